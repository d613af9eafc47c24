// isc_bench_slices: the colour-coded depth-slice detector (papers/004, Dinerstein & Egbert)
// beside the exact "cpu" detector and "peel" at its pile settings (128 pixels, 1 axis, scene
// sampling), one detect() call on the dense bunny pile of isc_bench_peel (same generator, same
// seed: N bunnies in a jittered grid, neighbours interpenetrating), every candidate pair of
// the pile in one call (the atlas). Same scene, same poses, same process; medians of wall
// time, GL_TIMESTAMP GPU time, and each detector's object pairs against cpu's (missed,
// extra) from the warm-up call. Then a summary table.
//
// Detectors (rows):
// - slices: defaults (32 px, 16 slices, fill, exact check in the collision volume, no samples);
// - slices_conservative: offset=1 (swollen by a voxel diagonal) + exact: recall and precision 1;
// - slices_paper: the paper's first pass (surfaces only, exact=false: voxel verdicts, samples);
// - slices_refined: the paper's accurate setting (128 px, 16 slices, refine=2, exact=false);
// - slices_shader_or: the defaults on the shader-OR path (logicOp=false).
// ISC_BENCH_SLICES_SIZES=100,300 picks the pile sizes (default 100).
#include "DensePile.h"
#include "isc/detect/Registry.h"
#include "isc/gl/Context.h"
#include "isc/gl/Gl.h"
#include "isc/mesh/MeshIo.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>

namespace isc {
namespace {

std::optional<gl::Context> g_context;

std::shared_ptr<const Mesh> bunny() {
    static std::shared_ptr<const Mesh> m = [] {
        auto b = loadBunny(0.1f);
        if (!b) {
            std::fprintf(stderr, "isc_bench_slices: %s\n", b.error().message.c_str());
            std::exit(1);
        }
        return std::make_shared<const Mesh>(std::move(*b));
    }();
    return m;
}

// isc_bench_peel's densePile (bench/detectors/PeelBench.cpp), unchanged, so that the rows
// compare with its figures and isc_bench_cullide's.
Scene densePile(int bodies) { return bench::densePile(bunny(), bodies); }

struct Measured {
    double medianMs = 0, gpuMs = 0, pairs = 0, triPairs = 0, samples = 0, missed = 0, extra = 0;
    std::map<std::string, double> counters;
};
std::map<std::string, std::map<std::string, Measured>> g_results;  // scene -> detector -> figures
std::vector<std::string> g_sceneOrder, g_detectorOrder;
std::map<std::string, std::set<ObjectPair>> g_truth;  // scene -> cpu's colliding pairs

std::unique_ptr<Detector> makeDetector(const std::string& name) {
    Result<std::unique_ptr<Detector>> d = fail("unknown detector row " + name);
    if (name == "cpu") d = createDetector("cpu", {.wantSegments = false});
    else if (name == "peel_128_1axis")
        d = createDetector("peel", {.wantSegments = false,
                                    .options = {{"resolution", "128"}, {"axes", "1"}, {"sampling", "scene"}}});
    else if (name == "slices") d = createDetector("slices", {.wantSegments = false});
    else if (name == "slices_conservative")
        d = createDetector("slices", {.wantSegments = false, .options = {{"offset", "1"}}});
    else if (name == "slices_paper")
        d = createDetector("slices", {.wantSegments = false, .options = {{"fill", "false"}, {"exact", "false"}}});
    else if (name == "slices_refined")
        d = createDetector("slices", {.wantSegments = false,
                                      .options = {{"resolution", "128"}, {"refine", "2"}, {"exact", "false"}}});
    else if (name == "slices_shader_or")
        d = createDetector("slices", {.wantSegments = false, .options = {{"logicOp", "false"}}});
    if (!d) {
        std::fprintf(stderr, "isc_bench_slices: %s: %s\n", name.c_str(), d.error().message.c_str());
        std::exit(1);
    }
    return std::move(*d);
}

void run(benchmark::State& state, const std::string& sceneName, int bodies, const std::string& name) {
    using Clock = std::chrono::steady_clock;
    Scene scene = densePile(bodies);
    const std::vector<ObjectPair> candidates = scene.overlappingPairs();
    auto detector = makeDetector(name);
    const bool gl = detector->usesGl();
    if (gl && glGetError() != GL_NO_ERROR) state.SkipWithError("GL error before the loop");
    DetectionOutput out;
    // One call before the loop: buffers sized, shaders warm; its pairs against cpu's.
    if (auto r = detector->detect(scene, candidates, out); !r) {
        state.SkipWithError(r.error().message.c_str());
        return;
    }
    std::set<ObjectPair> found;
    for (const PairResult& p : out.pairs) found.insert(p.pair);
    if (name == "cpu") g_truth[sceneName] = found;
    Measured m;
    if (auto t = g_truth.find(sceneName); t != g_truth.end()) {
        for (const ObjectPair& p : t->second) m.missed += found.count(p) ? 0 : 1;
        for (const ObjectPair& p : found) m.extra += t->second.count(p) ? 0 : 1;
    } else {
        m.missed = m.extra = -1;  // cpu did not run first (a --benchmark_filter without it)
    }
    std::vector<double> wall;
    std::map<std::string, double> sums;
    double gpu = 0, readback = 0, cpu = 0, pairs = 0, triPairs = 0, samples = 0;
    for (auto _ : state) {
        const auto t0 = Clock::now();
        if (auto r = detector->detect(scene, candidates, out); !r) {
            state.SkipWithError(r.error().message.c_str());
            break;
        }
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        state.SetIterationTime(ms * 1e-3);
        wall.push_back(ms);
        gpu += out.stats.gpuMs;
        readback += out.stats.readbackMs;
        cpu += out.stats.cpuMs;
        for (const auto& [counter, value] : out.stats.counters) sums[counter] += value;
        pairs += double(out.pairs.size());
        for (const PairResult& p : out.pairs) {
            triPairs += double(p.triangles.size());
            samples += double(p.samples.size());
        }
    }
    if (gl && glGetError() != GL_NO_ERROR) state.SkipWithError("GL error after the loop");
    if (wall.empty()) return;
    const double n = double(wall.size());
    std::sort(wall.begin(), wall.end());
    m.medianMs = wall[wall.size() / 2];
    m.gpuMs = gpu / n;
    m.pairs = pairs / n;
    m.triPairs = triPairs / n;
    m.samples = samples / n;
    state.counters["median_ms"] = m.medianMs;
    state.counters["triangles"] = double(bodies) * double(bunny()->triangleCount());
    state.counters["candidate_pairs"] = double(candidates.size());
    state.counters["colliding_pairs"] = m.pairs;
    state.counters["triangle_pairs"] = m.triPairs;
    state.counters["contact_samples"] = m.samples;
    state.counters["missed_vs_cpu"] = m.missed;
    state.counters["extra_vs_cpu"] = m.extra;
    state.counters["gpu_ms"] = m.gpuMs;
    state.counters["readback_ms"] = readback / n;
    state.counters["cpu_ms"] = cpu / n;
    for (const auto& [counter, sum] : sums) {
        state.counters[counter] = sum / n;
        m.counters[counter] = sum / n;
    }
    g_results[sceneName][name] = m;
}

void registerAll() {
    std::vector<int> sizes = {100};
    if (const char* env = std::getenv("ISC_BENCH_SLICES_SIZES")) {
        sizes.clear();
        std::stringstream ss(env);
        std::string item;
        while (std::getline(ss, item, ',')) sizes.push_back(std::atoi(item.c_str()));
    }
    // cpu first: the other rows are checked against its pairs.
    g_detectorOrder = {"cpu", "peel_128_1axis", "slices", "slices_conservative", "slices_paper", "slices_refined",
                       "slices_shader_or"};
    for (int bodies : sizes) {
        const std::string scene = "pile/" + std::to_string(bodies);
        g_sceneOrder.push_back(scene);
        for (const std::string& name : g_detectorOrder) {
            benchmark::RegisterBenchmark((scene + "/" + name).c_str(),
                                         [=](benchmark::State& s) { run(s, scene, bodies, name); })
                ->Unit(benchmark::kMillisecond)
                ->UseManualTime()
                ->MinTime(0.5);
        }
    }
}

void printSummary() {
    std::printf("\n# isc_bench_slices summary (medians of detect() wall time, ms; same scenes, same poses)\n");
    std::printf("| scene | detector | median ms | gpu ms (raster / test) | / cpu | / peel | colliding pairs | "
                "missed / extra vs cpu | triangle pairs | samples | renderings | triangles drawn |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const std::string& scene : g_sceneOrder) {
        auto it = g_results.find(scene);
        if (it == g_results.end()) continue;
        const auto& rows = it->second;
        auto median = [&](const char* d) {
            auto r = rows.find(d);
            return r == rows.end() ? 0.0 : r->second.medianMs;
        };
        for (const std::string& d : g_detectorOrder) {
            auto r = rows.find(d);
            if (r == rows.end()) continue;
            const Measured& m = r->second;
            auto ratio = [&](double x) {
                char buf[32];
                if (x <= 0) return std::string("-");
                std::snprintf(buf, sizeof buf, "%.2f", m.medianMs / x);
                return std::string(buf);
            };
            auto c = [&](const char* k) {
                auto x = m.counters.find(k);
                return x == m.counters.end() ? 0.0 : x->second;
            };
            std::printf("| %s | %s | %.3f | %.3f (%.3f / %.3f) | %s | %s | %.0f | %.0f / %.0f | %.0f | %.0f | %.0f | "
                        "%.0f |\n",
                        scene.c_str(), d.c_str(), m.medianMs, m.gpuMs, c("gpu_raster_ms"), c("gpu_test_ms"),
                        ratio(median("cpu")).c_str(), ratio(median("peel_128_1axis")).c_str(), m.pairs, m.missed,
                        m.extra, m.triPairs, m.samples, c("renderings"), c("triangles_drawn"));
        }
    }
}

}  // namespace
}  // namespace isc

int main(int argc, char** argv) {
    auto ctx = isc::gl::Context::createHeadless();
    if (!ctx) {
        std::fprintf(stderr, "isc_bench_slices: no GL context: %s\n", ctx.error().message.c_str());
        return 1;
    }
    isc::g_context.emplace(std::move(*ctx));
    std::fprintf(stderr, "GL: %s\n", isc::g_context->info().renderer.c_str());
    isc::registerAll();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    isc::printSummary();
    isc::g_context.reset();  // before static destruction (see bench/detectors/PeelBench.cpp)
    return 0;
}
