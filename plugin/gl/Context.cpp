#include "isc/gl/Context.h"

#include "isc/gl/Gl.h"

#include <glad/egl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

namespace isc::gl {

namespace {

const char* eglErrorName(EGLint e) {
    switch (e) {
        case EGL_SUCCESS: return "EGL_SUCCESS";
        case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
        case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
        case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
        case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
        case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
        case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
        case EGL_BAD_CURRENT_SURFACE: return "EGL_BAD_CURRENT_SURFACE";
        case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
        case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
        case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
        case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
        case EGL_BAD_NATIVE_PIXMAP: return "EGL_BAD_NATIVE_PIXMAP";
        case EGL_BAD_NATIVE_WINDOW: return "EGL_BAD_NATIVE_WINDOW";
        case EGL_CONTEXT_LOST: return "EGL_CONTEXT_LOST";
        default: return "unknown EGL error";
    }
}

std::string eglFailure(const std::string& call) {
    return call + " failed (" + eglErrorName(eglGetError()) + ")";
}

bool hasToken(const char* list, std::string_view token) {
    if (list == nullptr) return false;
    std::string_view s(list);
    std::size_t pos = 0;
    while (pos < s.size()) {
        std::size_t end = s.find(' ', pos);
        if (end == std::string_view::npos) end = s.size();
        if (s.substr(pos, end - pos) == token) return true;
        pos = end + 1;
    }
    return false;
}

bool envFlag(const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr && v[0] != '\0' && std::strcmp(v, "0") != 0;
}

void GLAD_API_PTR debugCallback(GLenum source, GLenum type, GLuint id, GLenum severity, GLsizei,
                                const GLchar* message, const void*) {
    // Compiler and linker logs already reach the caller through Program::create's Result.
    if (source == GL_DEBUG_SOURCE_SHADER_COMPILER) return;
    // Errors always; otherwise only high/medium severity messages. Notifications (buffer
    // placement hints and the like) are noise.
    if (type != GL_DEBUG_TYPE_ERROR && severity != GL_DEBUG_SEVERITY_HIGH &&
        severity != GL_DEBUG_SEVERITY_MEDIUM)
        return;
    const char* typeName = type == GL_DEBUG_TYPE_ERROR                 ? "error"
                           : type == GL_DEBUG_TYPE_PERFORMANCE         ? "performance"
                           : type == GL_DEBUG_TYPE_DEPRECATED_BEHAVIOR ? "deprecated"
                           : type == GL_DEBUG_TYPE_UNDEFINED_BEHAVIOR  ? "undefined behaviour"
                                                                       : "message";
    std::fprintf(stderr, "[GL %s, source 0x%x, id %u] %s\n", typeName, source, id, message);
}

GLADapiproc eglLoad(const char* name) { return reinterpret_cast<GLADapiproc>(eglGetProcAddress(name)); }

// Which context the global glad GL function pointers were loaded for.
const void* g_glLoadedFor = nullptr;

// glad's EGL loader is loaded once per process and never unloaded: unloading libEGL while
// another context or a later one still needs it gains nothing (see docs/gl.md).
bool loadEglOnce(std::string& why) {
    static std::once_flag once;
    static int version = 0;
    std::call_once(once, [] { version = gladLoaderLoadEGL(EGL_NO_DISPLAY); });
    if (version == 0) why = "could not load libEGL (gladLoaderLoadEGL: is libEGL.so.1 installed, e.g. Debian libegl1?)";
    return version != 0;
}

int g_glfwUsers = 0;

// EGL does not count eglInitialize calls: eglTerminate ends a display for every context on
// it. Contexts on one display (Mesa and NVIDIA hand out the same handle for one device)
// therefore share a count, and the last one terminates the display.
std::map<EGLDisplay, int>& displayUsers() {
    // Never destroyed: a Context that lives in a static (a benchmark's or a test's) is
    // destroyed during static destruction, possibly after a function-local static map.
    static auto* users = new std::map<EGLDisplay, int>;
    return *users;
}

void releaseDisplay(EGLDisplay display) {
    auto& users = displayUsers();
    auto it = users.find(display);
    if (it != users.end() && --it->second > 0) return;
    if (it != users.end()) users.erase(it);
    eglTerminate(display);
    eglReleaseThread();
}

void glfwErrorCallback(int code, const char* text) {
    std::fprintf(stderr, "[GLFW error 0x%x] %s\n", code, text);
}

std::string glfwLastError() {
    const char* text = nullptr;
    const int code = glfwGetError(&text);
    if (code == GLFW_NO_ERROR) return "no GLFW error text";
    return text ? std::string(text) : "GLFW error " + std::to_string(code);
}

}  // namespace

struct Context::Impl {
    EGLDisplay display = EGL_NO_DISPLAY;
    EGLContext context = EGL_NO_CONTEXT;
    GLFWwindow* window = nullptr;
    ContextInfo info;
    bool debug = false;

    ~Impl() {
        if (context != EGL_NO_CONTEXT) {
            if (eglGetCurrentContext() == context)
                eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
            eglDestroyContext(display, context);
        }
        if (display != EGL_NO_DISPLAY) releaseDisplay(display);
        if (window != nullptr) {
            glfwDestroyWindow(window);
            if (--g_glfwUsers == 0) glfwTerminate();
        }
        if (g_glLoadedFor == this) g_glLoadedFor = nullptr;
    }

    // Loads GL for this context (must be current) and fills info.
    Result<void> finishSetup(bool wantDebug, int major, int minor, GLADloadfunc load) {
        if (gladLoadGL(load) == 0) return fail("gladLoadGL failed: could not load GL entry points");
        g_glLoadedFor = this;
        info.vendor = reinterpret_cast<const char*>(glGetString(GL_VENDOR));
        info.renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
        info.version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
        info.glslVersion = reinterpret_cast<const char*>(glGetString(GL_SHADING_LANGUAGE_VERSION));
        glGetIntegerv(GL_MAJOR_VERSION, &info.major);
        glGetIntegerv(GL_MINOR_VERSION, &info.minor);
        GLint mask = 0;
        glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &mask);
        info.coreProfile = (mask & GL_CONTEXT_CORE_PROFILE_BIT) != 0;
        GLint count = 0;
        glGetIntegerv(GL_NUM_EXTENSIONS, &count);
        info.extensions.reserve(static_cast<std::size_t>(count));
        for (GLint i = 0; i < count; ++i)
            info.extensions.emplace_back(reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, static_cast<GLuint>(i))));
        std::sort(info.extensions.begin(), info.extensions.end());
        if (info.major * 10 + info.minor < major * 10 + minor)
            return fail("the context is OpenGL " + info.version + " (" + info.renderer + "), OpenGL " +
                        std::to_string(major) + "." + std::to_string(minor) + " core is needed");
        if (wantDebug) {
            glEnable(GL_DEBUG_OUTPUT);
            glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);  // messages point at the call that caused them
            glDebugMessageCallback(debugCallback, nullptr);
            glDebugMessageControl(GL_DONT_CARE, GL_DONT_CARE, GL_DONT_CARE, 0, nullptr, GL_TRUE);
            info.debug = true;
        }
        while (glGetError() != GL_NO_ERROR) {
        }
        return {};
    }
};

bool ContextInfo::has(std::string_view name) const {
    return std::binary_search(extensions.begin(), extensions.end(), name,
                              [](const auto& a, const auto& b) { return std::string_view(a) < std::string_view(b); });
}

Context::Context(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Context::Context(Context&&) noexcept = default;
Context& Context::operator=(Context&&) noexcept = default;
Context::~Context() = default;

Result<Context> Context::createHeadless(const ContextOptions& options) {
    std::string why;
    if (!loadEglOnce(why)) return fail("Context::createHeadless(): " + why);
    const bool wantDebug = options.debug || envFlag("ISC_GL_DEBUG");

    // Client extensions are queried on EGL_NO_DISPLAY. glad only loads extension functions
    // it found on a display, so the client-extension entry points are resolved by hand
    // (workaround "glad-egl-client-extensions" in docs/gl.md).
    const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    (void)eglGetError();
    auto getPlatformDisplay =
        reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
    auto queryDevices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
    auto queryDeviceString =
        reinterpret_cast<PFNEGLQUERYDEVICESTRINGEXTPROC>(eglGetProcAddress("eglQueryDeviceStringEXT"));
    const bool hasPlatformBase = hasToken(client, "EGL_EXT_platform_base") && getPlatformDisplay != nullptr;

    std::string tried;
    auto note = [&](const std::string& platform, const std::string& reason) {
        tried += "\n  " + platform + ": " + reason;
    };

    // Tries one display; on success the context is current and the Impl is returned.
    auto tryDisplay = [&](EGLDisplay display, const std::string& platform) -> std::unique_ptr<Impl> {
        if (display == EGL_NO_DISPLAY) {
            note(platform, eglFailure("eglGetPlatformDisplay/eglGetDisplay"));
            return nullptr;
        }
        EGLint major = 0, minor = 0;
        if (!eglInitialize(display, &major, &minor)) {
            note(platform, eglFailure("eglInitialize"));
            return nullptr;
        }
        // From here on a failure releases the display (terminated unless a live Context uses it).
        ++displayUsers()[display];
        struct Release {
            EGLDisplay d;
            bool keep = false;
            ~Release() { if (!keep) releaseDisplay(d); }
        } release{display};
        // Load the functions of this display's EGL version and extensions.
        if (gladLoaderLoadEGL(display) == 0) {
            note(platform, "gladLoaderLoadEGL(display) failed");
            return nullptr;
        }
        const char* exts = eglQueryString(display, EGL_EXTENSIONS);
        if (!hasToken(exts, "EGL_KHR_no_config_context") && !(major == 1 && minor >= 5)) {
            note(platform, "EGL " + std::to_string(major) + "." + std::to_string(minor) +
                               " without EGL_KHR_no_config_context");
            return nullptr;
        }
        if (!hasToken(exts, "EGL_KHR_surfaceless_context")) {
            note(platform, "no EGL_KHR_surfaceless_context (cannot make a context current without a surface)");
            return nullptr;
        }
        if (!eglBindAPI(EGL_OPENGL_API)) {
            note(platform, eglFailure("eglBindAPI(EGL_OPENGL_API)"));
            return nullptr;
        }
        const EGLint attribs[] = {EGL_CONTEXT_MAJOR_VERSION,
                                  options.glMajor,
                                  EGL_CONTEXT_MINOR_VERSION,
                                  options.glMinor,
                                  EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                  EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                  EGL_CONTEXT_OPENGL_DEBUG,
                                  wantDebug ? EGL_TRUE : EGL_FALSE,
                                  EGL_NONE};
        EGLContext ctx = eglCreateContext(display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attribs);
        if (ctx == EGL_NO_CONTEXT) {
            note(platform, eglFailure("eglCreateContext(OpenGL " + std::to_string(options.glMajor) + "." +
                                      std::to_string(options.glMinor) + " core, EGL_NO_CONFIG_KHR)")
                               );
            return nullptr;
        }
        if (!eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
            note(platform, eglFailure("eglMakeCurrent(no surface)"));
            eglDestroyContext(display, ctx);
            return nullptr;
        }
        auto impl = std::make_unique<Impl>();
        release.keep = true;  // the Impl owns the display reference now
        impl->display = display;
        impl->context = ctx;
        impl->info.platform = platform;
        auto setup = impl->finishSetup(wantDebug, options.glMajor, options.glMinor, eglLoad);
        if (!setup) {
            note(platform, setup.error().message);
            return nullptr;  // ~Impl releases the context
        }
        return impl;
    };

    // 1. Every EGL device (NVIDIA without a display; Mesa's software device gives llvmpipe).
    if (!hasPlatformBase || !hasToken(client, "EGL_EXT_platform_device") || queryDevices == nullptr) {
        note("EGL device platform", "not offered (client extensions: " + std::string(client ? client : "none") + ")");
    } else {
        EGLint count = 0;
        if (!queryDevices(0, nullptr, &count)) {
            note("EGL device platform", eglFailure("eglQueryDevicesEXT"));
        } else if (count == 0) {
            note("EGL device platform", "eglQueryDevicesEXT found no device");
        } else {
            std::vector<EGLDeviceEXT> devices(static_cast<std::size_t>(count));
            queryDevices(count, devices.data(), &count);
            for (EGLint i = 0; i < count; ++i) {
                std::string name = "EGL device " + std::to_string(i);
                if (queryDeviceString) {
                    const char* devExts = queryDeviceString(devices[static_cast<std::size_t>(i)], EGL_EXTENSIONS);
                    (void)eglGetError();
                    if (hasToken(devExts, "EGL_EXT_device_drm")) {
                        const char* file = queryDeviceString(devices[static_cast<std::size_t>(i)], EGL_DRM_DEVICE_FILE_EXT);
                        (void)eglGetError();
                        name += std::string(" (") + (file ? file : "drm") + ")";
                    } else if (hasToken(devExts, "EGL_MESA_device_software")) {
                        name += " (Mesa software)";
                    }
                }
                EGLDisplay d = getPlatformDisplay(EGL_PLATFORM_DEVICE_EXT, devices[static_cast<std::size_t>(i)], nullptr);
                if (auto impl = tryDisplay(d, name)) return Context(std::move(impl));
            }
        }
    }
    // 2. Mesa surfaceless.
    if (!hasPlatformBase || !hasToken(client, "EGL_MESA_platform_surfaceless")) {
        note("EGL surfaceless", "EGL_MESA_platform_surfaceless not offered");
    } else {
        EGLDisplay d = getPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
        if (auto impl = tryDisplay(d, "EGL surfaceless")) return Context(std::move(impl));
    }
    // 3. Default display.
    {
        EGLDisplay d = eglGetDisplay(EGL_DEFAULT_DISPLAY);
        if (auto impl = tryDisplay(d, "EGL default display")) return Context(std::move(impl));
    }
    return fail("Context::createHeadless(): no EGL platform gave an OpenGL " + std::to_string(options.glMajor) +
                "." + std::to_string(options.glMinor) + " core context. Tried:" + tried +
                "\nOn NVIDIA, check that libEGL (glvnd) finds the vendor file (__EGL_VENDOR_LIBRARY_FILENAMES); "
                "with Mesa, try EGL_PLATFORM=surfaceless or LIBGL_ALWAYS_SOFTWARE=1.");
}

Result<Context> Context::createWindow(int width, int height, const std::string& title, const ContextOptions& options) {
    const bool wantDebug = options.debug || envFlag("ISC_GL_DEBUG");
    if (g_glfwUsers == 0) {
        glfwSetErrorCallback(nullptr);
        if (!glfwInit()) return fail("Context::createWindow(): glfwInit failed: " + glfwLastError());
    }
    ++g_glfwUsers;
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, options.glMajor);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, options.glMinor);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, wantDebug ? GLFW_TRUE : GLFW_FALSE);
    glfwWindowHint(GLFW_VISIBLE, options.visible ? GLFW_TRUE : GLFW_FALSE);
    GLFWwindow* window = glfwCreateWindow(width, height, title.c_str(), nullptr, nullptr);
    if (window == nullptr) {
        std::string msg = "Context::createWindow(): glfwCreateWindow(" + std::to_string(width) + "x" +
                          std::to_string(height) + ", OpenGL " + std::to_string(options.glMajor) + "." +
                          std::to_string(options.glMinor) + " core) failed: " + glfwLastError();
        if (--g_glfwUsers == 0) glfwTerminate();
        return fail(msg + " (no display? use Context::createHeadless)");
    }
    glfwMakeContextCurrent(window);
    auto impl = std::make_unique<Impl>();
    impl->window = window;
    impl->info.platform = "GLFW";
    auto setup = impl->finishSetup(wantDebug, options.glMajor, options.glMinor,
                                   reinterpret_cast<GLADloadfunc>(glfwGetProcAddress));
    if (!setup) return fail("Context::createWindow(): " + setup.error().message);
    glfwSetErrorCallback(glfwErrorCallback);
    return Context(std::move(impl));
}

Result<void> Context::makeCurrent() {
    Impl& m = *impl_;
    if (m.window != nullptr) {
        glfwMakeContextCurrent(m.window);
        if (g_glLoadedFor != impl_.get()) {
            if (gladLoadGL(reinterpret_cast<GLADloadfunc>(glfwGetProcAddress)) == 0)
                return fail("Context::makeCurrent(): gladLoadGL failed");
            g_glLoadedFor = impl_.get();
        }
        return {};
    }
    if (!eglMakeCurrent(m.display, EGL_NO_SURFACE, EGL_NO_SURFACE, m.context))
        return fail("Context::makeCurrent(): " + eglFailure("eglMakeCurrent"));
    if (g_glLoadedFor != impl_.get()) {
        if (gladLoadGL(eglLoad) == 0) return fail("Context::makeCurrent(): gladLoadGL failed");
        g_glLoadedFor = impl_.get();
    }
    return {};
}

const ContextInfo& Context::info() const { return impl_->info; }

const ContextInfo* Context::currentInfo() {
    return g_glLoadedFor != nullptr ? &static_cast<const Impl*>(g_glLoadedFor)->info : nullptr;
}
GLFWwindow* Context::window() const { return impl_ ? impl_->window : nullptr; }

void Context::swapBuffers() {
    if (impl_ && impl_->window) glfwSwapBuffers(impl_->window);
}

bool Context::shouldClose() const { return impl_ && impl_->window && glfwWindowShouldClose(impl_->window); }

std::pair<int, int> Context::framebufferSize() const {
    if (!impl_ || !impl_->window) return {0, 0};
    int w = 0, h = 0;
    glfwGetFramebufferSize(impl_->window, &w, &h);
    return {w, h};
}

}  // namespace isc::gl
