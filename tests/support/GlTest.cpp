#include "GlTest.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <unistd.h>

namespace isc::test {

namespace {

int g_debugErrors = 0;

void GLAD_API_PTR countingCallback(GLenum source, GLenum type, GLuint id, GLenum severity, GLsizei,
                                   const GLchar* message, const void*) {
    // Shader compiler messages come back in Program::create's Result (negative tests make them).
    if (source == GL_DEBUG_SOURCE_SHADER_COMPILER) return;
    if (type == GL_DEBUG_TYPE_ERROR) ++g_debugErrors;
    if (type == GL_DEBUG_TYPE_ERROR || severity == GL_DEBUG_SEVERITY_HIGH || severity == GL_DEBUG_SEVERITY_MEDIUM)
        std::fprintf(stderr, "[GL debug type 0x%x, source 0x%x, id %u] %s\n", type, source, id, message);
}

struct State {
    std::optional<gl::Context> context;
    std::string error;
    bool tried = false;
};

State& state() {
    // Leaked on purpose: destroying the context from a static destructor would race the
    // driver's own teardown at exit (atexit order across libEGL and Mesa is not ours).
    static State* s = new State;
    return *s;
}

}  // namespace

gl::Context* glContext(std::string* error) {
    State& s = state();
    if (!s.tried) {
        s.tried = true;
        testShaderDir();
        gl::ContextOptions options;
        options.debug = true;
        auto ctx = gl::Context::createHeadless(options);
        if (ctx) {
            s.context.emplace(std::move(*ctx));
            // The library's callback prints; ours also counts errors for the tear-down check.
            glDebugMessageCallback(countingCallback, nullptr);
        } else {
            s.error = ctx.error().message;
        }
    }
    if (!s.context) {
        if (error) *error = s.error;
        return nullptr;
    }
    return &*s.context;
}

int glDebugErrorCount() { return g_debugErrors; }

const std::string& testShaderDir() {
    // Never destroyed: the atexit handler below runs after the destructors of statics made
    // before it was registered, and this one is made while it is registered.
    static const std::string& dir = *new std::string([] {
        auto base = std::filesystem::temp_directory_path() / ("isc-test-shaders-" + std::to_string(::getpid()));
        std::filesystem::create_directories(base);
        ::setenv("ISC_SHADER_DIR", base.c_str(), 1);
        std::atexit([] {
            std::error_code ec;
            std::filesystem::remove_all(testShaderDir(), ec);
        });
        return base.string();
    }());
    return dir;
}

void writeTestShader(std::string_view name, std::string_view text) {
    const std::filesystem::path path = std::filesystem::path(testShaderDir()) / std::string(name);
    std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

void GlTest::SetUp() {
    std::string error;
    gl::Context* ctx = glContext(&error);
    ASSERT_NE(ctx, nullptr) << "no headless GL context: " << error;
    auto current = ctx->makeCurrent();
    ASSERT_TRUE(current.has_value()) << current.error().message;
    // A test starts clean even if an earlier one failed half-way.
    while (glGetError() != GL_NO_ERROR) {
    }
    debugErrorsBefore_ = g_debugErrors;
}

void GlTest::TearDown() {
    if (state().context) {
        EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR)) << "a GL error is pending at the end of the test";
        EXPECT_EQ(g_debugErrors, debugErrorsBefore_) << "GL debug output reported errors during the test";
    }
}

}  // namespace isc::test
