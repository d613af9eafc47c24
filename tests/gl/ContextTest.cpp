#include "GlTest.h"

#include "isc/gl/Context.h"

#include <algorithm>
#include <cctype>

using namespace isc;

TEST_F(GlTest, HeadlessContextIsGl45Core) {
    const gl::ContextInfo& info = isc::test::glContext()->info();
    EXPECT_GE(info.major * 10 + info.minor, 45) << info.version;
    EXPECT_TRUE(info.coreProfile) << info.version;
    EXPECT_TRUE(info.debug);
    EXPECT_FALSE(info.renderer.empty());
    EXPECT_FALSE(info.platform.empty());
    EXPECT_GT(info.extensions.size(), 20u);
    // has() finds exactly the listed names.
    EXPECT_TRUE(info.has(info.extensions.front()));
    EXPECT_FALSE(info.has("GL_ISC_no_such_extension"));
    EXPECT_EQ(isc::test::glContext()->window(), nullptr);
    std::string r = info.renderer;
    std::transform(r.begin(), r.end(), r.begin(), [](unsigned char c) { return std::tolower(c); });
    // Development machines and CI run Mesa's llvmpipe; a GPU machine reports its own renderer.
    if (std::getenv("ISC_EXPECT_LLVMPIPE")) {
        EXPECT_NE(r.find("llvmpipe"), std::string::npos) << info.renderer;
    }
    RecordProperty("renderer", info.renderer);
    RecordProperty("platform", info.platform);
    std::printf("GL: %s | %s | %s | via %s\n", info.vendor.c_str(), info.renderer.c_str(), info.version.c_str(),
                info.platform.c_str());
}

TEST_F(GlTest, SecondContextCanBeCreatedAndDestroyedRepeatedly) {
    for (int i = 0; i < 3; ++i) {
        gl::ContextOptions options;
        options.debug = false;
        auto second = gl::Context::createHeadless(options);
        ASSERT_TRUE(second.has_value()) << second.error().message;
        EXPECT_GE(second->info().major * 10 + second->info().minor, 45);
        // Moving keeps the context alive; the moved-from one releases nothing.
        gl::Context moved = std::move(*second);
        EXPECT_FALSE(moved.info().renderer.empty());
    }
    // The fixture's context still works after the others were destroyed.
    ASSERT_TRUE(isc::test::glContext()->makeCurrent().has_value());
    GLuint buffer = 0;
    glCreateBuffers(1, &buffer);
    EXPECT_NE(buffer, 0u);
    glDeleteBuffers(1, &buffer);
}

TEST_F(GlTest, CheckErrorNamesThePendingErrors) {
    EXPECT_TRUE(gl::checkError("nothing").has_value());
    // Provoke GL_INVALID_ENUM without the debug callback counting it as a test failure.
    glDisable(GL_DEBUG_OUTPUT);
    glEnable(0xFFFF);
    glEnable(GL_DEBUG_OUTPUT);
    auto r = gl::checkError("after glEnable(0xFFFF)");
    ASSERT_FALSE(r.has_value());
    EXPECT_NE(r.error().message.find("after glEnable(0xFFFF)"), std::string::npos);
    EXPECT_NE(r.error().message.find("GL_INVALID_ENUM"), std::string::npos) << r.error().message;
    EXPECT_TRUE(gl::checkError("drained").has_value());
}

TEST(GlWindow, WindowWithoutDisplayFailsWithGlfwText) {
    // Without a display: an error naming Context::createWindow(). With one (a desktop, Xvfb) a
    // hidden GL 4.5 window must work.
    gl::ContextOptions options;
    options.visible = false;
    const bool hasDisplay = std::getenv("DISPLAY") != nullptr || std::getenv("WAYLAND_DISPLAY") != nullptr;
    auto ctx = gl::Context::createWindow(64, 48, "isc test", options);
    if (hasDisplay) {
        ASSERT_TRUE(ctx.has_value()) << "a display is set but no hidden window: " << ctx.error().message;
        EXPECT_NE(ctx->window(), nullptr);
        EXPECT_EQ(ctx->info().platform, "GLFW");
        EXPECT_GE(ctx->info().major * 10 + ctx->info().minor, 45) << ctx->info().version;
    } else {
        ASSERT_FALSE(ctx.has_value());
        EXPECT_NE(ctx.error().message.find("Context::createWindow()"), std::string::npos) << ctx.error().message;
    }
    // Leave the headless context current for the tests that follow.
    if (auto* c = isc::test::glContext()) {
        ASSERT_TRUE(c->makeCurrent().has_value());
    }
}
