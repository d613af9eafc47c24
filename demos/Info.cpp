// isc info: the GL context we get, the extensions we use, the detectors available.
#include "Commands.h"

#include "isc/detect/AutoDetector.h"
#include "isc/detect/Detector.h"
#include "isc/detect/Registry.h"
#include "isc/gl/Context.h"

#include <CLI/CLI.hpp>

#include <cstdio>

namespace isc::tool {
namespace {

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
    std::printf("detectors (settings: --set name=value; docs/detectors/<name>.md):\n");
    // auto first: the default of every command (docs/demos.md).
    if (auto a = createDetector(kAutoDetectorName)) {
        const auto* automatic = dynamic_cast<const AutoDetector*>(a->get());
        std::printf("  %-8s the fastest exact detector for this GL and scene (the default)\n", kAutoDetectorName);
        if (automatic != nullptr) std::printf("           here: %s\n", automatic->describe().c_str());
        std::printf("           candidates=a,b (default: every exact one), warmupCalls=3 (int): timed calls each\n");
    }
    for (const DetectorInfo& d : registeredDetectors()) {
        std::printf("  %-8s %s\n", d.name.c_str(), d.summary.c_str());
        std::printf("           %s, %s meshes, reports %s%s\n", d.usesGl ? "GL 4.5" : "CPU only",
                    d.needsClosedMeshes ? "closed" : "any",
                    d.reportsTrianglePairs ? "triangle pairs" : "",
                    d.reportsContactSamples ? (d.reportsTrianglePairs ? " and contact samples" : "contact samples") : "");
        for (const SettingDoc& s : d.settings)
            std::printf("           %s=%s (%s): %s\n", s.name.c_str(), s.defaultValue.c_str(), s.type.c_str(),
                        s.doc.c_str());
        for (const auto& [ext, why] : d.extensions)
            std::printf("           [%s] %s: %s\n", info.has(ext) ? "yes" : " no", ext.c_str(), why.c_str());
        if (d.describeGl) std::printf("           here: %s\n", d.describeGl().c_str());
        if (!d.knownIssue.empty()) std::printf("           known issue (auto leaves it out): %s\n", d.knownIssue.c_str());
    }
    return 0;
}

}  // namespace

void addInfoCommand(CLI::App& app, int& exitCode) {
    CLI::App* cmd = app.add_subcommand("info", "Show the OpenGL context, extensions and detectors");
    cmd->callback([&exitCode] { exitCode = runInfo(); });
}

}  // namespace isc::tool
