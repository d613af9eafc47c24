// isc_glsl_probe: does the driver compile and link a shader file, and with what log? For
// bisecting a driver's compiler failure (issue 10: NVIDIA 580's internal error on
// cinder/resolve.glsl) in one device run: each folder given holds a variant of the file (and of
// any file it includes); the probe points ISC_SHADER_DIR at it (files missing there come from the
// embedded table, "-" means the embedded file alone) and builds the program, one line per folder.
//   isc_glsl_probe [--stage compute|vertex|fragment] [--define NAME[=VALUE]]... FILE FOLDER...
//   e.g. isc_glsl_probe --define MAX_LAYERS=32 cinder/resolve.glsl - variants/*
// Output: "probe: FOLDER ok" or "probe: FOLDER FAIL" followed by the driver's log, indented.
// Exit status 0 when every folder built. Needs a GL 4.5 context (headless EGL).
// --binary-info: after a build, the program binary's (glGetProgramBinary) printable runs that
// name registers, instructions or memory ("R-regs", "instructions", "smem", ...; NVIDIA's binary
// carries its assembly's summary), to see what limits a pass's occupancy.
//   e.g. isc_glsl_probe --binary-info --define PEEL_WALK_RECORDS=1 peel/tri_pairs.glsl -
#include "isc/gl/Context.h"
#include "isc/gl/Program.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace {

// The printable runs (8 or more characters) of the program's binary that name what a pass's
// occupancy depends on; at most 40 lines.
void printBinaryInfo(GLuint program) {
    GLint length = 0;
    glGetProgramiv(program, GL_PROGRAM_BINARY_LENGTH, &length);
    if (length <= 0) {
        std::printf("    binary: none (GL_PROGRAM_BINARY_LENGTH %d)\n", length);
        return;
    }
    std::vector<char> bytes(static_cast<std::size_t>(length));
    GLenum format = 0;
    GLsizei got = 0;
    glGetProgramBinary(program, length, &got, &format, bytes.data());
    std::printf("    binary: %d bytes, format 0x%x\n", got, format);
    // (NVIDIA's binary holds its NV_gpu_program5 assembly, "!!NVcp5.0 ... END", whose last
    // comment counts instructions and registers; the body's lines are left out.)
    static const char* const kWords[] = {"R-regs", "instructions", "!!NV", "lmem", "TEMP", "occupan"};
    int printed = 0;
    std::string run;
    auto flush = [&] {
        if (run.size() >= 8 && printed < 40) {
            for (const char* w : kWords) {
                if (run.find(w) != std::string::npos) {
                    std::printf("    | %s\n", run.substr(0, 200).c_str());
                    ++printed;
                    break;
                }
            }
        }
        run.clear();
    };
    for (GLsizei k = 0; k < got; ++k) {
        const char c = bytes[std::size_t(k)];
        if (c >= 32 && c < 127) {
            run.push_back(c);
        } else {
            flush();
        }
    }
    flush();
    if (printed > 0) return;
    // None named: the first long runs, to see what the binary holds.
    for (GLsizei k = 0; k < got && printed < 20; ++k) {
        const char c = bytes[std::size_t(k)];
        if (c >= 32 && c < 127) {
            run.push_back(c);
        } else {
            if (run.size() >= 16) std::printf("    ~ %s\n", run.substr(0, 200).c_str()), ++printed;
            run.clear();
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    using namespace isc;
    GLenum stage = GL_COMPUTE_SHADER;
    std::string defines;
    std::vector<std::string> rest;
    bool binaryInfo = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--binary-info") {
            binaryInfo = true;
        } else if (a == "--stage" && i + 1 < argc) {
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
            if (binaryInfo) printBinaryInfo(p->id());
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
