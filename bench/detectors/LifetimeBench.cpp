// isc_bench_lifetime: what making, using and destroying a GPU detector costs in resident memory
// (issue 14, the soak: docs/robustness.md). One mode per process, so that each starts from the
// same state; bench/gpu/soak-memory.sh runs them all.
//
//   isc_bench_lifetime recreate <detector> [cycles] [bodies] [detects]
//       each cycle: createDetector(), `detects` detect() calls on a pile of `bodies` bunnies
//       (poses jittered per call), destroy it; a row after each destroy.
//   isc_bench_lifetime reuse <detector> [cycles] [bodies] [detects]
//       one detector for the whole run; a row after every `detects` calls.
//   isc_bench_lifetime create-only <detector> [cycles]
//       createDetector() and destroy, no detect(): what creation alone (shader compiles) costs.
//   isc_bench_lifetime switch|switch-keep <d1,d2,...|all> [rounds] [bodies] [detects]
//       the soak's pattern without the physics: the detectors in turn, `detects` calls each,
//       for `rounds` rounds; switch destroys each before making the next (as
//       CollisionDispatcher::switchDetector does), switch-keep makes each once and keeps them
//       all alive (the remedy docs/robustness.md proposes). A row after each turn.
//   isc_bench_lifetime map-probe <unmap|no-unmap> [cycles] [mib]
//       no detector: a GL buffer of `mib` MiB with persistent, coherent, client-storage read
//       mapping (what cullide's and peel's read-back buffers are), a copy into it, a fence wait,
//       then deleted (after glUnmapNamedBuffer, or while still mapped) and made again 20 % larger
//       (as a growing read-back buffer is).
//
// Rows: mode, detector, cycle, resident MiB, the same after malloc_trim(0), GL buffer bytes
// bullet-isc holds (gl::bufferBytes), the live GL objects of every kind (gl::liveObjects), the
// colliding pairs of the last call, the cycle's wall time, and resident MiB once more after every
// binding point of the context was set back to zero (unbindAll; the detector of reuse binds again).
#include "isc/detect/Registry.h"
#include "isc/gl/Buffer.h"
#include "isc/gl/Context.h"
#include "isc/gl/Fence.h"
#include "isc/mesh/MeshIo.h"
#include "isc/scene/Scene.h"

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

using namespace isc;

namespace {

double residentMiB() {
    std::ifstream statm("/proc/self/statm");
    long pages = 0, resident = 0;
    statm >> pages >> resident;
    return double(resident) * double(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

double trimmedMiB() {
    malloc_trim(0);
    return residentMiB();
}

// A dense pile: `bodies` bunnies on a grid 0.75 m apart in layers 0.7 m apart (the bunny is
// about 0.97 m tall, so neighbours overlap as in a settled pile), each turned about y.
struct Pile {
    Scene scene;
    std::vector<Pose> base;
    std::mt19937 rng{7};
    void jitter() {
        std::uniform_real_distribution<float> d(-0.03f, 0.03f);
        for (ObjectId i = 0; i < ObjectId(base.size()); ++i) {
            Pose p = base[i];
            p.position += Vec3(d(rng), d(rng), d(rng));
            p.rotation = glm::angleAxis(d(rng), Vec3(1.0f, 0.0f, 0.0f)) * p.rotation;
            scene.setPose(i, p);
        }
    }
};

Result<std::unique_ptr<Pile>> makePile(int bodies) {
    auto bunny = loadBunny(0.1f);
    if (!bunny) return fail(bunny.error().message);
    auto pile = std::make_unique<Pile>();
    const MeshId m = pile->scene.addMesh(std::make_shared<const Mesh>(std::move(*bunny)));
    const int side = std::max(2, int(std::ceil(std::sqrt(double(bodies) / 4.0))));
    std::uniform_real_distribution<float> angle(0.0f, 6.2831853f);
    for (int i = 0; i < bodies; ++i) {
        const int layer = i / (side * side), cell = i % (side * side);
        Pose p;
        p.position = Vec3(float(cell % side) * 0.75f, 0.5f + float(layer) * 0.7f, float(cell / side) * 0.75f);
        p.rotation = glm::angleAxis(angle(pile->rng), Vec3(0.0f, 1.0f, 0.0f));
        pile->base.push_back(p);
        pile->scene.addObject(m, p);
    }
    return pile;
}

// Every binding point a detector may leave pointing at (deleted) objects, back to zero: a driver
// that keeps deleted objects alive while some binding of the context names them would give
// their memory back now (rss_unbound_mib).
void unbindAll() {
    GLint n = 0;
    for (GLenum target : {GL_SHADER_STORAGE_BUFFER, GL_UNIFORM_BUFFER, GL_ATOMIC_COUNTER_BUFFER,
                          GL_TRANSFORM_FEEDBACK_BUFFER}) {
        const GLenum max = target == GL_SHADER_STORAGE_BUFFER  ? GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS
                           : target == GL_UNIFORM_BUFFER       ? GL_MAX_UNIFORM_BUFFER_BINDINGS
                           : target == GL_ATOMIC_COUNTER_BUFFER ? GL_MAX_ATOMIC_COUNTER_BUFFER_BINDINGS
                                                                : GL_MAX_TRANSFORM_FEEDBACK_BUFFERS;
        glGetIntegerv(max, &n);
        for (GLint i = 0; i < std::min(n, 96); ++i) glBindBufferBase(target, GLuint(i), 0);
    }
    for (GLenum target : {GL_ARRAY_BUFFER, GL_DRAW_INDIRECT_BUFFER, GL_DISPATCH_INDIRECT_BUFFER, GL_PIXEL_PACK_BUFFER,
                          GL_PIXEL_UNPACK_BUFFER, GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, GL_QUERY_BUFFER})
        glBindBuffer(target, 0);
    glGetIntegerv(GL_MAX_IMAGE_UNITS, &n);
    for (GLint i = 0; i < std::min(n, 32); ++i) glBindImageTexture(GLuint(i), 0, 0, GL_FALSE, 0, GL_READ_ONLY, GL_R32UI);
    glGetIntegerv(GL_MAX_COMBINED_TEXTURE_IMAGE_UNITS, &n);
    for (GLint i = 0; i < std::min(n, 64); ++i) glBindTextureUnit(GLuint(i), 0);
    glBindVertexArray(0);
    glUseProgram(0);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glBindRenderbuffer(GL_RENDERBUFFER, 0);
    glFinish();
}

void header() {
    std::printf("mode\tdetector\tcycle\trss_mib\trss_trim_mib\tgl_buffer_bytes");
    for (std::size_t k = 0; k < gl::kObjectKinds; ++k)
        std::printf("\t%s", gl::objectKindName(static_cast<gl::ObjectKind>(k)));
    std::printf("\tpairs\tcycle_ms\trss_unbound_mib\n");
}

void row(const char* mode, const std::string& what, int cycle, std::size_t pairs, double ms) {
    const double rss = residentMiB(), trimmed = trimmedMiB();
    std::printf("%s\t%s\t%d\t%.2f\t%.2f\t%zu", mode, what.c_str(), cycle, rss, trimmed, gl::bufferBytes());
    const gl::LiveObjects live = gl::liveObjects();
    for (long c : live.count) std::printf("\t%ld", c);
    unbindAll();
    std::printf("\t%zu\t%.1f\t%.2f\n", pairs, ms, trimmedMiB());
    std::fflush(stdout);
}

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

int detectorModes(const std::string& mode, const std::string& name, int cycles, int bodies, int detects) {
    auto pile = makePile(bodies);
    if (!pile) {
        std::fprintf(stderr, "isc_bench_lifetime: %s\n", pile.error().message.c_str());
        return 1;
    }
    Pile& p = **pile;
    const std::vector<ObjectPair> candidates = p.scene.overlappingPairs();
    std::printf("# %s %s: %d bunnies, %zu candidate pairs, %d detect() calls per cycle, %d cycles\n", mode.c_str(),
                name.c_str(), bodies, candidates.size(), detects, cycles);
    header();
    row(mode.c_str(), name, 0, 0, 0.0);
    DetectionOutput out;
    auto run = [&](Detector& d) -> bool {
        for (int k = 0; k < detects; ++k) {
            p.jitter();
            if (auto r = d.detect(p.scene, candidates, out); !r) {
                std::fprintf(stderr, "isc_bench_lifetime: %s detect(): %s\n", name.c_str(), r.error().message.c_str());
                return false;
            }
        }
        return true;
    };
    std::unique_ptr<Detector> kept;
    for (int c = 1; c <= cycles; ++c) {
        const auto t = Clock::now();
        if (mode == "reuse") {
            if (!kept) {
                auto d = createDetector(name);
                if (!d) {
                    std::fprintf(stderr, "isc_bench_lifetime: %s\n", d.error().message.c_str());
                    return 1;
                }
                kept = std::move(*d);
            }
            if (!run(*kept)) return 1;
        } else {
            auto made = createDetector(name);
            if (!made) {
                std::fprintf(stderr, "isc_bench_lifetime: %s\n", made.error().message.c_str());
                return 1;
            }
            std::unique_ptr<Detector> d = std::move(*made);
            if (mode == "recreate" && !run(*d)) return 1;
            glFinish();
            d.reset();
        }
        glFinish();
        row(mode.c_str(), name, c, out.pairs.size(), msSince(t));
    }
    kept.reset();
    glFinish();
    std::printf("# after the last destroy: %s\n", gl::liveObjects().describe().c_str());
    return 0;
}

int switchModes(const std::string& mode, const std::string& list, int rounds, int bodies, int detects) {
    std::vector<std::string> names;
    if (list == "all") {
        for (const DetectorInfo& d : registeredDetectors())
            if (d.usesGl) names.push_back(d.name);
    } else {
        for (std::size_t at = 0; at <= list.size();) {
            const std::size_t comma = std::min(list.find(',', at), list.size());
            if (comma > at) names.push_back(list.substr(at, comma - at));
            at = comma + 1;
        }
    }
    auto pile = makePile(bodies);
    if (!pile) {
        std::fprintf(stderr, "isc_bench_lifetime: %s\n", pile.error().message.c_str());
        return 1;
    }
    Pile& p = **pile;
    const std::vector<ObjectPair> candidates = p.scene.overlappingPairs();
    std::printf("# %s %s: %d bunnies, %zu candidate pairs, %d detect() calls per turn, %d rounds\n", mode.c_str(),
                list.c_str(), bodies, candidates.size(), detects, rounds);
    header();
    row(mode.c_str(), "-", 0, 0, 0.0);
    const bool keep = mode == "switch-keep";
    std::vector<std::unique_ptr<Detector>> kept(names.size());
    DetectionOutput out;
    for (int r = 1; r <= rounds; ++r) {
        for (std::size_t i = 0; i < names.size(); ++i) {
            const auto t = Clock::now();
            std::unique_ptr<Detector> made;
            Detector* d = kept[i].get();
            if (d == nullptr) {
                auto m = createDetector(names[i]);
                if (!m) {
                    std::fprintf(stderr, "isc_bench_lifetime: %s\n", m.error().message.c_str());
                    return 1;
                }
                made = std::move(*m);
                d = made.get();
            }
            for (int k = 0; k < detects; ++k) {
                p.jitter();
                if (auto e = d->detect(p.scene, candidates, out); !e) {
                    std::fprintf(stderr, "isc_bench_lifetime: %s detect(): %s\n", names[i].c_str(), e.error().message.c_str());
                    return 1;
                }
            }
            if (keep && made) kept[i] = std::move(made);
            made.reset();
            glFinish();
            row(mode.c_str(), names[i], r, out.pairs.size(), msSince(t));
        }
    }
    kept.clear();
    glFinish();
    std::printf("# after the last destroy: %s\n", gl::liveObjects().describe().c_str());
    return 0;
}

int mapProbe(bool unmap, int cycles, double mib) {
    std::printf("# map-probe %s: a persistent coherent client-storage read mapping of %.0f MiB, filled by a GPU copy, "
                "deleted %s and made again 20%% larger, %d cycles (raw GL, no gl::Buffer)\n",
                unmap ? "unmap" : "no-unmap", mib, unmap ? "after glUnmapNamedBuffer" : "while mapped", cycles);
    header();
    const char* mode = unmap ? "map-probe-unmap" : "map-probe-no-unmap";
    row(mode, "-", 0, 0, 0.0);
    double size = mib * 1024.0 * 1024.0;
    for (int c = 1; c <= cycles; ++c, size *= 1.2) {
        const auto t = Clock::now();
        const auto bytes = static_cast<GLsizeiptr>(size) & ~GLsizeiptr(15);
        GLuint src = 0, dst = 0;
        glCreateBuffers(1, &src);
        glNamedBufferStorage(src, bytes, nullptr, 0);
        const GLuint zero = 0;
        glClearNamedBufferData(src, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
        glCreateBuffers(1, &dst);
        constexpr GLbitfield access = GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
        glNamedBufferStorage(dst, bytes, nullptr, access | GL_CLIENT_STORAGE_BIT);
        const auto* map = static_cast<const unsigned char*>(glMapNamedBufferRange(dst, 0, bytes, access));
        glCopyNamedBufferSubData(src, dst, 0, 0, bytes);
        (void)gl::Fence::insert().wait();
        unsigned sum = 0;
        for (GLsizeiptr i = 0; map != nullptr && i < bytes; i += 4096) sum += map[i];
        if (unmap) glUnmapNamedBuffer(dst);
        glDeleteBuffers(1, &dst);
        glDeleteBuffers(1, &src);
        glFinish();
        row(mode, "-", c, sum, msSince(t));
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr,
                     "usage: isc_bench_lifetime recreate|reuse|create-only <detector> [cycles] [bodies] [detects]\n"
                     "       isc_bench_lifetime switch|switch-keep <d1,d2,...|all> [rounds] [bodies] [detects]\n"
                     "       isc_bench_lifetime map-probe unmap|no-unmap [cycles] [mib]\n");
        return 2;
    }
    const std::string mode = argv[1], what = argv[2];
    const int cycles = argc > 3 ? std::atoi(argv[3]) : 8;
    auto ctx = gl::Context::createHeadless();
    if (!ctx) {
        std::fprintf(stderr, "isc_bench_lifetime: no GL context: %s\n", ctx.error().message.c_str());
        return 1;
    }
    std::printf("# GL: %s | %s\n", ctx->info().renderer.c_str(), ctx->info().version.c_str());
    std::printf("# start (context made): resident %.2f MiB\n", residentMiB());
    if (mode == "map-probe") return mapProbe(what == "unmap", cycles, argc > 4 ? std::atof(argv[4]) : 16.0);
    if (mode == "switch" || mode == "switch-keep")
        return switchModes(mode, what, cycles, argc > 4 ? std::atoi(argv[4]) : 100, argc > 5 ? std::atoi(argv[5]) : 3);
    if (mode != "recreate" && mode != "reuse" && mode != "create-only") {
        std::fprintf(stderr, "isc_bench_lifetime: unknown mode '%s'\n", mode.c_str());
        return 2;
    }
    return detectorModes(mode, what, cycles, argc > 4 ? std::atoi(argv[4]) : 100, argc > 5 ? std::atoi(argv[5]) : 3);
}
