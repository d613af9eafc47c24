// isc_bench_peel: per-call detection time of "peel" (papers/003) against the exact "cpu"
// detector on the same scenes, same process, with the paper's Table 1 counters.
//
// Scenes (made here, no Bullet): a dense bunny pile, bunnies (loadBunny(0.1), 3674
// triangles) on a jittered grid tighter than their size, turned at random, so that
// neighbours interpenetrate about as deeply as in a settling pile; and a scaling scene,
// 16 such bunnies subdivided 0..3 times (59K to 3.8M triangles).
//
// Detectors: peel with scene sampling (default; 3 axes atomic / packing, 1 axis), peel with
// pair tiles (sampling "pairs", 3 and 1 axes), the paper's multi-pass depth peeling on pair
// tiles (sampling "peeling", 1 and 3 axes), cpu.
// Counters: gpu_ms (GL timestamp queries), readback_ms, cpu_ms, and per call the peel counters
// (tiles, raster_passes, collision_rays, triangles_read_back, potentially_colliding_triangles,
// tri_tri_tests, positive_tests, max_depth_complexity) and triangle_pairs found.
// Run: isc_bench_peel [--benchmark_filter=...]; env ISC_PEEL_RESOLUTION (default 512).
#include "isc/detectors/CpuDetector.h"
#include "isc/detectors/PeelDetector.h"
#include "isc/gl/Context.h"
#include "isc/gl/Gl.h"
#include "isc/mesh/MeshIo.h"
#include "isc/mesh/Shapes.h"

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <random>

namespace isc {
namespace {

std::optional<gl::Context> g_context;

std::shared_ptr<const Mesh> bunny(int subdivisions) {
    static std::map<int, std::shared_ptr<const Mesh>> cache;
    auto& m = cache[subdivisions];
    if (!m) {
        auto b = loadBunny(0.1f);
        if (!b) {
            std::fprintf(stderr, "isc_bench_peel: %s\n", b.error().message.c_str());
            std::exit(1);
        }
        m = std::make_shared<const Mesh>(subdivisions > 0 ? shapes::subdivided(*b, subdivisions) : std::move(*b));
    }
    return m;
}

Scene densePile(int bodies, int subdivisions) {
    Scene scene;
    const MeshId id = scene.addMesh(bunny(subdivisions));
    const int side = std::max(2, int(std::ceil(std::cbrt(double(bodies)))));
    const float spacing = 0.90f, layerGap = 0.90f, jitter = 0.05f;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (int i = 0; i < bodies; ++i) {
        const int layer = i / (side * side), cell = i % (side * side);
        Pose p;
        p.position = Vec3(float(cell % side) * spacing + jitter * u(rng), float(layer) * layerGap + jitter * u(rng),
                          float(cell / side) * spacing + jitter * u(rng));
        p.rotation = glm::normalize(Quat(u(rng), u(rng), u(rng), u(rng)));
        scene.addObject(id, p);
    }
    return scene;
}

std::unique_ptr<Detector> makeDetector(bool peel, int axes, const char* compaction, const char* sampling,
                                       bool conservativeRaster) {
    PeelSettings s;
    s.conservativeRaster = conservativeRaster;
    s.sampling = sampling;
    const char* res = std::getenv("ISC_PEEL_RESOLUTION");
    s.resolution = res ? std::atoi(res) : 512;
    s.axes = axes;
    s.compaction = compaction;
    if (!peel) return std::make_unique<CpuDetector>();
    auto d = createPeelDetector({}, s);
    if (!d) {
        std::fprintf(stderr, "isc_bench_peel: %s\n", d.error().message.c_str());
        std::exit(1);
    }
    return std::move(*d);
}

void run(benchmark::State& state, bool peel, int bodies, int subdivisions, int axes, const char* compaction,
         const char* sampling = "scene", bool conservativeRaster = false) {
    const Scene scene = densePile(bodies, subdivisions);
    const std::vector<ObjectPair> candidates = scene.overlappingPairs();
    auto detector = makeDetector(peel, axes, compaction, sampling, conservativeRaster);
    if (peel && glGetError() != GL_NO_ERROR) state.SkipWithError("GL error before the loop");
    DetectionOutput out;
    // One call before the timed loop: the first call sizes the detector's buffers (record
    // buffer, per-thread scratch) and may redo a batch; the loop measures the steady state.
    if (auto r = detector->detect(scene, candidates, out); !r) {
        state.SkipWithError(r.error().message.c_str());
        return;
    }
    std::map<std::string, double> sums;
    double gpu = 0, readback = 0, cpu = 0, pairs = 0;
    for (auto _ : state) {
        if (auto r = detector->detect(scene, candidates, out); !r) {
            state.SkipWithError(r.error().message.c_str());
            break;
        }
        gpu += out.stats.gpuMs;
        readback += out.stats.readbackMs;
        cpu += out.stats.cpuMs;
        for (const auto& [name, value] : out.stats.counters) sums[name] += value;
        double tp = 0;
        for (const PairResult& p : out.pairs) tp += double(p.triangles.size());
        pairs += tp;
    }
    if (peel && glGetError() != GL_NO_ERROR) state.SkipWithError("GL error after the loop");
    const double n = double(std::max<std::int64_t>(1, state.iterations()));
    state.counters["triangles"] = double(bodies) * double(scene.mesh(0).triangleCount());
    state.counters["candidate_pairs"] = double(candidates.size());
    state.counters["gpu_ms"] = gpu / n;
    state.counters["readback_ms"] = readback / n;
    state.counters["cpu_ms"] = cpu / n;
    state.counters["triangle_pairs"] = pairs / n;
    for (const auto& [name, value] : sums) state.counters[name] = value / n;
}

void registerAll() {
    auto add = [](const std::string& name, auto fn) {
        benchmark::RegisterBenchmark(name.c_str(), fn)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
    };
    for (int bodies : {100, 300}) {
        const std::string b = std::to_string(bodies);
        add("pile/" + b + "/peel_scene_3axes_atomic", [=](benchmark::State& s) { run(s, true, bodies, 0, 3, "atomic"); });
        add("pile/" + b + "/peel_scene_3axes_packing",
            [=](benchmark::State& s) { run(s, true, bodies, 0, 3, "packing"); });
        add("pile/" + b + "/peel_scene_1axis_atomic", [=](benchmark::State& s) { run(s, true, bodies, 0, 1, "atomic"); });
        add("pile/" + b + "/peel_scene_1axis_atomic_nvconservative",
            [=](benchmark::State& s) { run(s, true, bodies, 0, 1, "atomic", "scene", true); });
        add("pile/" + b + "/peel_pairs_3axes_atomic",
            [=](benchmark::State& s) { run(s, true, bodies, 0, 3, "atomic", "pairs"); });
        add("pile/" + b + "/peel_pairs_1axis_atomic",
            [=](benchmark::State& s) { run(s, true, bodies, 0, 1, "atomic", "pairs"); });
        add("pile/" + b + "/peel_peeling_1axis_atomic",
            [=](benchmark::State& s) { run(s, true, bodies, 0, 1, "atomic", "peeling"); });
        add("pile/" + b + "/peel_peeling_3axes_atomic",
            [=](benchmark::State& s) { run(s, true, bodies, 0, 3, "atomic", "peeling"); });
        add("pile/" + b + "/cpu", [=](benchmark::State& s) { run(s, false, bodies, 0, 3, "auto"); });
    }
    for (int level = 0; level <= 3; ++level) {
        const std::string l = std::to_string(level);
        add("scaling/16x_sub" + l + "/peel_3axes", [=](benchmark::State& s) { run(s, true, 16, level, 3, "atomic"); });
        add("scaling/16x_sub" + l + "/cpu", [=](benchmark::State& s) { run(s, false, 16, level, 3, "auto"); });
    }
}

}  // namespace
}  // namespace isc

int main(int argc, char** argv) {
    auto ctx = isc::gl::Context::createHeadless();
    if (!ctx) {
        std::fprintf(stderr, "isc_bench_peel: no GL context: %s\n", ctx.error().message.c_str());
        return 1;
    }
    isc::g_context.emplace(std::move(*ctx));
    std::fprintf(stderr, "GL: %s\n", isc::g_context->info().renderer.c_str());
    isc::registerAll();
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    // The context goes before static destruction: Context's display bookkeeping is a
    // function-local static created after g_context, so it is destroyed first, and a
    // Context destroyed at exit used it after its end ("double free or corruption").
    isc::g_context.reset();
    return 0;
}
