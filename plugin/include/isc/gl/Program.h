#pragma once
/// A linked GL program built from embedded shader files.
#include "isc/gl/Gl.h"

#include <glm/glm.hpp>

#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_map>

namespace isc::gl {

/// One stage of a program: `type` GL_VERTEX_SHADER, GL_FRAGMENT_SHADER, GL_COMPUTE_SHADER, ...
/// and the shader file name (e.g. "render/scene.vert.glsl") looked up by loadShaderSource.
struct ShaderStage {
    GLenum type;
    std::string file;
};

/// Move-only RAII program: copy deleted, moves noexcept, a moved-from one holds id 0.
/// Every member needs a current GL context.
class Program {
public:
    Program() noexcept = default;
    /// Compiles each stage from "#version 450 core", then the `defines` text (lines such as
    /// "#define MAX_LAYERS 8\n"), then the file with its includes expanded, and links them.
    /// Errors carry the file name and the driver's log (compile) or the stage files and the
    /// log (link). Line numbers in logs: the file starts at line 1 through a #line directive
    /// (included files reset lines too; their text is marked in the log by the file index).
    [[nodiscard]] static Result<Program> create(std::initializer_list<ShaderStage> stages,
                                                std::string_view defines = {}, std::string_view label = {});
    Program(Program&& other) noexcept;
    Program& operator=(Program&& other) noexcept;
    Program(const Program&) = delete;
    Program& operator=(const Program&) = delete;
    ~Program();

    /// glUseProgram(id).
    void use() const;
    /// Uniform location (cached), -1 when the uniform does not exist or was optimised away.
    GLint uniformLocation(std::string_view name) const;

    // glProgramUniform*: no need to use() first. A missing uniform (location -1) is ignored by GL.
    void setUniform(std::string_view name, int value);
    void setUniform(std::string_view name, unsigned value);
    void setUniform(std::string_view name, float value);
    void setUniform(std::string_view name, const glm::vec2& value);
    void setUniform(std::string_view name, const glm::vec3& value);
    void setUniform(std::string_view name, const glm::vec4& value);
    void setUniform(std::string_view name, const glm::ivec2& value);
    void setUniform(std::string_view name, const glm::uvec2& value);
    void setUniform(std::string_view name, const glm::mat3& value);
    void setUniform(std::string_view name, const glm::mat4& value);

    /// glDispatchCompute after use(); `x`,`y`,`z` work groups.
    void dispatch(GLuint x, GLuint y = 1, GLuint z = 1) const;
    /// Work-group size declared by a compute shader (GL_COMPUTE_WORK_GROUP_SIZE).
    glm::ivec3 workGroupSize() const;

    GLuint id() const { return id_; }
    const std::string& label() const { return label_; }
    GLuint release();

private:
    GLuint id_ = 0;
    std::string label_;
    mutable std::unordered_map<std::string, GLint> locations_;
};

}  // namespace isc::gl
