// isc info: the GL context we get, the extensions we use, the detectors available.
#include "Commands.h"

#include "isc/detect/Detector.h"
#include "isc/gl/Context.h"

#include <CLI/CLI.hpp>

#include <cstdio>

namespace isc::tool {
namespace {

/// Extensions a detector uses when present (each has a portable fallback).
constexpr const char* kUsedExtensions[][2] = {
    {"GL_NV_conservative_raster", "conservative rasterization (thin triangles never missed)"},
    {"GL_NV_conservative_raster_dilate", "wider conservative dilation"},
    {"GL_ARB_fragment_shader_interlock", "ordered per-pixel critical sections"},
    {"GL_NV_fragment_shader_interlock", "ordered per-pixel critical sections (NV)"},
    {"GL_ARB_shader_viewport_layer_array", "gl_Layer from the vertex shader (no geometry shader)"},
    {"GL_ARB_post_depth_coverage", "post-depth coverage"},
    {"GL_ARB_shader_atomic_counter_ops", "atomic counter arithmetic"},
    {"GL_KHR_debug", "debug output and object labels"},
};

int runInfo() {
    auto context = gl::Context::createHeadless();
    if (!context) {
        std::printf("gl: unavailable\n%s\n", context.error().message.c_str());
        std::printf("detectors: cpu (the GL detectors need an OpenGL 4.5 context)\n");
        return 1;
    }
    const gl::ContextInfo& info = context->info();
    std::printf("platform:  %s\n", info.platform.c_str());
    std::printf("vendor:    %s\n", info.vendor.c_str());
    std::printf("renderer:  %s\n", info.renderer.c_str());
    std::printf("version:   %s\n", info.version.c_str());
    std::printf("glsl:      %s\n", info.glslVersion.c_str());
    std::printf("extensions used when present:\n");
    for (const auto& [ext, why] : kUsedExtensions)
        std::printf("  [%s] %-38s %s\n", info.has(ext) ? "yes" : " no", ext, why);
    std::printf("detectors:");
    for (const std::string& name : detectorNames()) std::printf(" %s", name.c_str());
    std::printf("\n");
    return 0;
}

}  // namespace

void addInfoCommand(CLI::App& app, int& exitCode) {
    CLI::App* cmd = app.add_subcommand("info", "Show the OpenGL context, extensions and detectors");
    cmd->callback([&exitCode] { exitCode = runInfo(); });
}

}  // namespace isc::tool
