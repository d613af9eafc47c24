// isc_glsl_probe: does the driver compile and link a shader file, and with what log? For
// bisecting a driver's compiler failure (issue 10: NVIDIA 580's internal error on
// cinder/resolve.glsl) in one device run: each folder given holds a variant of the file (and of
// any file it includes); the probe points ISC_SHADER_DIR at it (files missing there come from the
// embedded table, "-" means the embedded file alone) and builds the program, one line per folder.
//   isc_glsl_probe [--stage compute|vertex|fragment] [--define NAME[=VALUE]]... FILE FOLDER...
//   e.g. isc_glsl_probe --define MAX_LAYERS=32 cinder/resolve.glsl - variants/*
// Output: "probe: FOLDER ok" or "probe: FOLDER FAIL" followed by the driver's log, indented.
// Exit status 0 when every folder built. Needs a GL 4.5 context (headless EGL).
#include "isc/gl/Context.h"
#include "isc/gl/Program.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    using namespace isc;
    GLenum stage = GL_COMPUTE_SHADER;
    std::string defines;
    std::vector<std::string> rest;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--stage" && i + 1 < argc) {
            const std::string s = argv[++i];
            stage = s == "vertex" ? GL_VERTEX_SHADER : s == "fragment" ? GL_FRAGMENT_SHADER : GL_COMPUTE_SHADER;
        } else if (a == "--define" && i + 1 < argc) {
            std::string d = argv[++i];
            const std::size_t eq = d.find('=');
            if (eq != std::string::npos) d[eq] = ' ';
            defines += "#define " + d + "\n";
        } else {
            rest.push_back(a);
        }
    }
    if (rest.size() < 2) {
        std::fprintf(stderr, "usage: isc_glsl_probe [--stage S] [--define N[=V]]... FILE FOLDER...\n");
        return 2;
    }
    auto ctx = gl::Context::createHeadless();
    if (!ctx) {
        std::fprintf(stderr, "isc_glsl_probe: %s\n", ctx.error().message.c_str());
        return 1;
    }
    std::printf("# renderer: %s\n", ctx->info().renderer.c_str());
    int failed = 0;
    for (std::size_t i = 1; i < rest.size(); ++i) {
        if (rest[i] == "-") ::unsetenv("ISC_SHADER_DIR");
        else ::setenv("ISC_SHADER_DIR", rest[i].c_str(), 1);
        auto p = gl::Program::create({{stage, rest[0]}}, defines, "probe");
        if (p) {
            std::printf("probe: %s ok\n", rest[i].c_str());
        } else {
            ++failed;
            std::printf("probe: %s FAIL\n", rest[i].c_str());
            std::istringstream log(p.error().message);
            for (std::string line; std::getline(log, line);)
                if (!line.empty()) std::printf("    %s\n", line.c_str());
        }
        std::fflush(stdout);
    }
    return failed == 0 ? 0 : 1;
}
