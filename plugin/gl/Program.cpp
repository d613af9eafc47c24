#include "isc/gl/Program.h"

#include "ShaderSource.h"

#include <glm/gtc/type_ptr.hpp>

#include <utility>
#include <vector>

namespace isc::gl {

namespace {

const char* stageName(GLenum type) {
    switch (type) {
        case GL_VERTEX_SHADER: return "vertex";
        case GL_FRAGMENT_SHADER: return "fragment";
        case GL_GEOMETRY_SHADER: return "geometry";
        case GL_TESS_CONTROL_SHADER: return "tessellation control";
        case GL_TESS_EVALUATION_SHADER: return "tessellation evaluation";
        case GL_COMPUTE_SHADER: return "compute";
        default: return "unknown-stage";
    }
}

std::string shaderLog(GLuint shader) {
    GLint length = 0;
    glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
    std::string log(static_cast<std::size_t>(std::max(length, 1)), '\0');
    glGetShaderInfoLog(shader, length, nullptr, log.data());
    log.resize(std::string_view(log.c_str()).size());
    return log;
}

std::string programLog(GLuint program) {
    GLint length = 0;
    glGetProgramiv(program, GL_INFO_LOG_LENGTH, &length);
    std::string log(static_cast<std::size_t>(std::max(length, 1)), '\0');
    glGetProgramInfoLog(program, length, nullptr, log.data());
    log.resize(std::string_view(log.c_str()).size());
    return log;
}

std::string legend(const std::vector<std::string>& files) {
    std::string s = "(source numbers in the log: ";
    for (std::size_t i = 0; i < files.size(); ++i) s += (i ? ", " : "") + std::to_string(i) + " = " + files[i];
    return s + ")";
}

}  // namespace

Result<Program> Program::create(std::initializer_list<ShaderStage> stages, std::string_view defines,
                                std::string_view label) {
    std::string names;
    for (const ShaderStage& s : stages) names += (names.empty() ? "" : " + ") + s.file;
    if (stages.size() == 0) return fail("Program::create(): no shader stage given");

    std::vector<GLuint> shaders;
    auto cleanup = [&] {
        for (GLuint s : shaders) glDeleteShader(s);
    };
    for (const ShaderStage& stage : stages) {
        std::vector<std::string> files;
        auto body = detail::expandShader(stage.file, true, files);
        if (!body) {
            cleanup();
            return fail("Program::create(" + names + "): " + body.error().message);
        }
        std::string source = "#version 450 core\n";
        source += defines;
        if (!defines.empty() && defines.back() != '\n') source += '\n';
        source += *body;
        const GLuint shader = glCreateShader(stage.type);
        shaders.push_back(shader);
        const char* text = source.c_str();
        const GLint length = static_cast<GLint>(source.size());
        glShaderSource(shader, 1, &text, &length);
        glCompileShader(shader);
        GLint ok = GL_FALSE;
        glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
        if (ok != GL_TRUE) {
            const std::string log = shaderLog(shader);
            cleanup();
            return fail("Program::create(): " + std::string(stageName(stage.type)) + " shader '" + stage.file +
                        "' does not compile " + legend(files) + ":\n" + log);
        }
    }
    Program p;
    p.id_ = glCreateProgram();
    detail::countObject(ObjectKind::Program, 1);
    p.label_ = label.empty() ? names : std::string(label);
    glObjectLabel(GL_PROGRAM, p.id_, static_cast<GLsizei>(p.label_.size()), p.label_.data());
    for (GLuint s : shaders) glAttachShader(p.id_, s);
    glLinkProgram(p.id_);
    for (GLuint s : shaders) glDetachShader(p.id_, s);
    cleanup();
    GLint ok = GL_FALSE;
    glGetProgramiv(p.id_, GL_LINK_STATUS, &ok);
    if (ok != GL_TRUE) return fail("Program::create(): program '" + names + "' does not link:\n" + programLog(p.id_));
    return p;
}

Program::Program(Program&& o) noexcept
    : id_(std::exchange(o.id_, 0)), label_(std::move(o.label_)), locations_(std::move(o.locations_)) {}

Program& Program::operator=(Program&& o) noexcept {
    if (this != &o) {
        std::swap(id_, o.id_);
        std::swap(label_, o.label_);
        std::swap(locations_, o.locations_);
    }
    return *this;
}

Program::~Program() {
    if (id_ != 0) {
        // A program in use is only flagged for deletion (GL 4.5, 7.3): it would live on, with
        // its compiled code, until the next glUseProgram. Leave it so that it goes now.
        GLint current = 0;
        glGetIntegerv(GL_CURRENT_PROGRAM, &current);
        if (static_cast<GLuint>(current) == id_) glUseProgram(0);
        glDeleteProgram(id_);
        detail::countObject(ObjectKind::Program, -1);
    }
}

void Program::use() const { glUseProgram(id_); }

GLint Program::uniformLocation(std::string_view name) const {
    std::string key(name);
    auto it = locations_.find(key);
    if (it != locations_.end()) return it->second;
    const GLint loc = glGetUniformLocation(id_, key.c_str());
    locations_.emplace(std::move(key), loc);
    return loc;
}

void Program::setUniform(std::string_view n, int v) { glProgramUniform1i(id_, uniformLocation(n), v); }
void Program::setUniform(std::string_view n, unsigned v) { glProgramUniform1ui(id_, uniformLocation(n), v); }
void Program::setUniform(std::string_view n, float v) { glProgramUniform1f(id_, uniformLocation(n), v); }
void Program::setUniform(std::string_view n, const glm::vec2& v) {
    glProgramUniform2fv(id_, uniformLocation(n), 1, glm::value_ptr(v));
}
void Program::setUniform(std::string_view n, const glm::vec3& v) {
    glProgramUniform3fv(id_, uniformLocation(n), 1, glm::value_ptr(v));
}
void Program::setUniform(std::string_view n, const glm::vec4& v) {
    glProgramUniform4fv(id_, uniformLocation(n), 1, glm::value_ptr(v));
}
void Program::setUniform(std::string_view n, const glm::ivec2& v) {
    glProgramUniform2iv(id_, uniformLocation(n), 1, glm::value_ptr(v));
}
void Program::setUniform(std::string_view n, const glm::uvec2& v) {
    glProgramUniform2uiv(id_, uniformLocation(n), 1, glm::value_ptr(v));
}
void Program::setUniform(std::string_view n, const glm::mat3& v) {
    glProgramUniformMatrix3fv(id_, uniformLocation(n), 1, GL_FALSE, glm::value_ptr(v));
}
void Program::setUniform(std::string_view n, const glm::mat4& v) {
    glProgramUniformMatrix4fv(id_, uniformLocation(n), 1, GL_FALSE, glm::value_ptr(v));
}

void Program::dispatch(GLuint x, GLuint y, GLuint z) const {
    glUseProgram(id_);
    glDispatchCompute(x, y, z);
}

glm::ivec3 Program::workGroupSize() const {
    glm::ivec3 size(0);
    glGetProgramiv(id_, GL_COMPUTE_WORK_GROUP_SIZE, glm::value_ptr(size));
    return size;
}

GLuint Program::release() {
    if (id_ != 0) detail::countObject(ObjectKind::Program, -1);
    return std::exchange(id_, 0);
}

}  // namespace isc::gl
