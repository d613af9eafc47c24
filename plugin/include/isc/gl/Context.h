#pragma once
/// An OpenGL 4.5 core context: headless through EGL (tests, benchmarks, detectors) or in a
/// GLFW window (demos). See docs/gl.md for the order in which EGL platforms are tried.
#include "isc/core/Result.h"

#include <memory>
#include <string>
#include <utility>
#include <string_view>
#include <vector>

struct GLFWwindow;

namespace isc::gl {

/// How to create a context.
struct ContextOptions {
#ifdef NDEBUG
    bool debug = false;  ///< debug context + glDebugMessageCallback to stderr (also env ISC_GL_DEBUG=1)
#else
    bool debug = true;   ///< debug context + glDebugMessageCallback to stderr (also env ISC_GL_DEBUG=1)
#endif
    int glMajor = 4;       ///< requested core profile version (at least 4.5 is needed)
    int glMinor = 5;
    bool visible = true;   ///< createWindow only: false makes a hidden window
};

/// What the driver says about the context.
struct ContextInfo {
    std::string platform;     ///< how it was made: "EGL device 0 (EGL_EXT_device_drm)", "EGL surfaceless", "EGL default display", "GLFW"
    std::string vendor;       ///< GL_VENDOR
    std::string renderer;     ///< GL_RENDERER, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"
    std::string version;      ///< GL_VERSION
    std::string glslVersion;  ///< GL_SHADING_LANGUAGE_VERSION
    int major = 0;            ///< GL_MAJOR_VERSION
    int minor = 0;            ///< GL_MINOR_VERSION
    bool coreProfile = false; ///< GL_CONTEXT_CORE_PROFILE_BIT set
    bool debug = false;       ///< debug output installed
    std::vector<std::string> extensions;  ///< GL extensions (glGetStringi)
    /// True when the GL extension `name` is present (e.g. "GL_NV_conservative_raster").
    bool has(std::string_view name) const;
};

/// Owns a GL context (and its EGL display or GLFW window). Move-only. On creation the context
/// is made current on the calling thread and GL functions are loaded. Destruction releases the
/// context, the EGL display reference and the window; a process may create and destroy
/// contexts several times.
class Context {
public:
    /// Headless context, no surface: render into framebuffer objects. Tries, in order, every
    /// EGL device (EGL_EXT_platform_device), EGL_PLATFORM_SURFACELESS_MESA, then
    /// eglGetDisplay(EGL_DEFAULT_DISPLAY). The error names every platform tried and why it failed.
    [[nodiscard]] static Result<Context> createHeadless(const ContextOptions& options = {});
    /// Context in a GLFW window of `width` x `height` screen pixels (hidden when
    /// options.visible is false). Errors carry GLFW's text (e.g. no display).
    [[nodiscard]] static Result<Context> createWindow(int width, int height, const std::string& title,
                                                      const ContextOptions& options = {});

    Context(Context&&) noexcept;
    Context& operator=(Context&&) noexcept;
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;
    ~Context();

    /// The driver strings of the context the GL entry points are loaded for (the last one
    /// created or made current), or null when there is none (none made, or it was destroyed).
    /// For code that may use GL when a context is there (the auto detector).
    static const ContextInfo* currentInfo();

    /// Makes this context current on the calling thread (and reloads GL entry points).
    [[nodiscard]] Result<void> makeCurrent();
    /// Driver strings, version and extensions (queried at creation).
    const ContextInfo& info() const;
    /// The GLFW window, or nullptr for a headless context.
    GLFWwindow* window() const;
    /// Presents the window's back buffer; does nothing when headless.
    void swapBuffers();
    /// True when the window was asked to close (always false when headless).
    bool shouldClose() const;
    /// Default framebuffer size in pixels (window) or {0, 0} when headless.
    std::pair<int, int> framebufferSize() const;

    struct Impl;

private:
    explicit Context(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace isc::gl
