// isc_bench_cullide: per-call detection time of "cullide" (papers/001: Govindaraju et al.'s
// reducePCS, Boldt & Meyer) beside the exact "cpu" detector, "peel" at its defaults and peel
// at its former pile settings (128 pixels, 1 axis), same scenes, same poses, same process; then a summary table of
// medians (one run prints all of them side by side).
//
// Scenes (made here, no Bullet):
// - pile/N: the dense bunny pile of isc_bench_peel (same generator, same seed): N bunnies
//   (loadBunny(0.1), 3674 triangles) on a jittered grid tighter than their size, turned at
//   random, neighbours interpenetrating about as deeply as in a settling pile.
// - deforming/N: the same pile, every bunny deforming every call (Scene::setVertices: a
//   wobble of 4% of its size that travels over it; 8 frames in turn, 8 timed calls per
//   detector, so every row sees the same frames), so nothing can be cached between calls
//   (GPU vertex uploads, BVH refits).
// Candidates: every pair whose world boxes overlap (Scene::overlappingPairs).
//
// Rows: cullide (compute, defaults), cullide_queries (the paper's occlusion queries at the
// object and cluster levels), cpu, peel (defaults; the summary's "/ peel"), peel_128_1axis. Counters per call: median_ms (wall time of
// detect(), the median over iterations), gpu_ms, readback_ms, cpu_ms; cullide's PCS sizes
// before and after each level (pcs_objects_in / pcs_objects, pcs_clusters_*, pcs_triangles_*),
// pairs left after each level, GPU time per level (gpu_object_ms, gpu_cluster_ms,
// gpu_triangle_ms), CPU time per level (cpu_object_ms, cpu_cluster_ms, cpu_triangle_ms,
// cpu_narrowphase_ms), queries, fragments, views, tri_tri_tests; triangle_pairs found.
//
// Run: isc_bench_cullide [--benchmark_filter=...]. Environment: ISC_CULLIDE_SET, options for
// the cullide rows ("resolution=128,clusterSize=32"); ISC_BENCH_CULLIDE_SIZES (default
// "100,300"); ISC_BENCH_CULLIDE_VARIANTS, more cullide rows, each a name and its options on
// top of ISC_CULLIDE_SET ("cullide_seq:viewsAtOnce=false;cullide_obj:objectLevel=true");
// an option named ISC_... is an environment hook set while that row's detector is made
// ("cullide_old:ISC_CULLIDE_SPECULATE=0,ISC_CULLIDE_FUSED=0");
// ISC_BENCH_CULLIDE_ORDER, the rows to run and their order ("cullide_old,cpu,peel,cullide");
// ISC_BENCH_CULLIDE_WARM_MS, untimed warm-up calls of GL rows for at least that long (default 0:
// three calls; the GPU's clock ramp, cullide.md "cullide-12");
// ISC_BENCH_CULLIDE_DEFORM_CALLS, timed calls of a deforming row (default 8: the eight frames
// once; more go round the frames again, every row the same calls, and keep the GPU clocked up);
// ISC_BENCH_CULLIDE_PILE_MIN_TIME, seconds of a pile row (default 0.5).
// With --benchmark_repetitions=R --benchmark_enable_random_interleaving=true (2026-11-29, eleventh
// session; bench/gpu/packed.sh CULLIDE_REPS) every row runs R times, the runs of all rows in a
// random order, so that the rows meet the same GPU clocks (a row run whole at the idle clock
// while the next ran clocked up made most of the misses of cullide.md's bar); the summary takes
// the median of each row's runs' medians.
// ISC_BENCH_CULLIDE_PATTERNS (e.g. "deforming_same,deforming_gap,pile_gap"), more scenes that
// take the deforming pile apart (as many calls as the deforming rows):
//   deforming_same/N: the deformed pile of frame 0, set once before the warm-up calls: no vertex
//                     upload and no work between calls (back to back, as pile/N);
//   deforming_gap/N:  the same, but between calls the bench does the deforming rows' vertex update
//                     on a copy of the scene the detector does not see (the same CPU time with the
//                     GPU idle: its clock), so no upload;
//   pile_gap/N:       the rigid pile with that same update on a copy between calls.
// So deforming/N - deforming_gap/N is the fresh vertices (upload, cold caches), deforming_gap/N -
// deforming_same/N the idle gap, deforming_same/N - pile/N the deformed layout itself.
#include "DensePile.h"
#include "isc/detect/Registry.h"
#include "isc/detectors/CpuDetector.h"
#include "isc/detectors/CullideDetector.h"
#include "isc/detectors/PeelDetector.h"
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
#include <sstream>
#include <string>

namespace isc {
namespace {

std::optional<gl::Context> g_context;

std::shared_ptr<const Mesh> bunny() {
    static std::shared_ptr<const Mesh> m = [] {
        auto b = loadBunny(0.1f);
        if (!b) {
            std::fprintf(stderr, "isc_bench_cullide: %s\n", b.error().message.c_str());
            std::exit(1);
        }
        return std::make_shared<const Mesh>(std::move(*b));
    }();
    return m;
}

// isc_bench_peel's densePile (bench/detectors/PeelBench.cpp), unchanged, so that the rows
// compare with its figures.
Scene densePile(int bodies) { return bench::densePile(bunny(), bodies); }

constexpr int kFrames = 8;

// Frame f of object o's wobble: each vertex moved along its offset from the centre by up to
// 4% of the bunny's size, a wave travelling up the body.
std::vector<Vec3> wobble(const Mesh& mesh, ObjectId o, int f) {
    const Aabb b = mesh.localBounds();
    const Vec3 c = b.center();
    const float size = std::max({b.extent().x, b.extent().y, b.extent().z});
    std::vector<Vec3> out;
    out.reserve(mesh.vertexCount());
    for (const Vec3& v : mesh.vertices()) {
        const float s = 0.04f * std::sin(6.0f * (v.y - c.y) / size * 3.14159f + 0.9f * float(o) + 0.8f * float(f));
        out.push_back(v + s * (v - c));
    }
    return out;
}

struct Measured {
    double medianMs = 0, gpuMs = 0, pairs = 0, triPairs = 0;
    std::map<std::string, double> counters;
};
// scene -> detector -> figures, one per run of the row (one, or one per repetition with
// --benchmark_repetitions; the summary takes the median of the runs' medians).
std::map<std::string, std::map<std::string, std::vector<Measured>>> g_results;
std::vector<std::string> g_sceneOrder, g_detectorOrder;

OptionList cullideOptions(const char* method) {
    OptionList options = {{"method", method}};
    if (const char* env = std::getenv("ISC_CULLIDE_SET")) {
        std::stringstream ss(env);
        std::string item;
        while (std::getline(ss, item, ',')) {
            auto o = parseOption(item);
            if (!o) {
                std::fprintf(stderr, "isc_bench_cullide: ISC_CULLIDE_SET: %s\n", o.error().message.c_str());
                std::exit(2);
            }
            options.push_back(*o);
        }
    }
    return options;
}

std::map<std::string, OptionList> g_variants;  // ISC_BENCH_CULLIDE_VARIANTS: row name -> extra options

void readVariants() {
    const char* env = std::getenv("ISC_BENCH_CULLIDE_VARIANTS");
    if (!env) return;
    std::stringstream rows(env);
    std::string row;
    while (std::getline(rows, row, ';')) {
        const auto colon = row.find(':');
        const std::string name = row.substr(0, colon);
        if (name.empty()) continue;
        OptionList options;
        std::stringstream items(colon == std::string::npos ? std::string() : row.substr(colon + 1));
        std::string item;
        while (std::getline(items, item, ',')) {
            auto o = parseOption(item);
            if (!o) {
                std::fprintf(stderr, "isc_bench_cullide: ISC_BENCH_CULLIDE_VARIANTS: %s\n", o.error().message.c_str());
                std::exit(2);
            }
            options.push_back(*o);
        }
        g_variants[name] = options;
    }
}

std::unique_ptr<Detector> makeDetector(const std::string& name) {
    Result<std::unique_ptr<Detector>> d = fail("unknown");
    if (auto v = g_variants.find(name); v != g_variants.end()) {
        // An option named ISC_... is an environment hook the detector reads when it is made
        // (CullideDetector.cpp: ISC_CULLIDE_FUSED, _SPECULATE, _TEAM_WAIT): set
        // while it is made, then unset, so rows of one process compare old and new code.
        OptionList options = cullideOptions("compute");
        std::vector<std::string> hooks;
        for (const auto& [key, value] : v->second) {
            if (key.rfind("ISC_", 0) == 0) {
                setenv(key.c_str(), value.c_str(), 1);
                hooks.push_back(key);
            } else {
                options.push_back({key, value});
            }
        }
        d = createDetector("cullide", {.wantSegments = false, .options = options});
        for (const std::string& key : hooks) unsetenv(key.c_str());
    } else if (name == "cullide") d = createDetector("cullide", {.wantSegments = false, .options = cullideOptions("compute")});
    else if (name == "cullide_queries")
        d = createDetector("cullide", {.wantSegments = false, .options = cullideOptions("queries")});
    else if (name == "cpu") d = createDetector("cpu", {.wantSegments = false});
    else if (name == "peel") d = createDetector("peel", {.wantSegments = false});
    else if (name == "peel_128_1axis")
        d = createDetector("peel", {.wantSegments = false,
                                    .options = {{"resolution", "128"}, {"axes", "1"}, {"sampling", "scene"}}});
    if (!d) {
        std::fprintf(stderr, "isc_bench_cullide: %s: %s\n", name.c_str(), d.error().message.c_str());
        std::exit(1);
    }
    return std::move(*d);
}

// What a scene does between calls (ISC_BENCH_CULLIDE_PATTERNS, above).
enum class Pattern { Rigid, Fresh, Same, Gap, RigidGap };

Pattern patternOf(const std::string& sceneName) {
    if (sceneName.rfind("deforming_same/", 0) == 0) return Pattern::Same;
    if (sceneName.rfind("deforming_gap/", 0) == 0) return Pattern::Gap;
    if (sceneName.rfind("pile_gap/", 0) == 0) return Pattern::RigidGap;
    if (sceneName.rfind("deforming/", 0) == 0) return Pattern::Fresh;
    return Pattern::Rigid;
}

// A row's scene, frames and detector, made by its first run and kept for its later ones (2026-11-29,
// eleventh session): a row timed for a minimum time is run several times (more iterations each
// time) and with --benchmark_repetitions once more per repetition; each run made its detector
// anew, shaders and buffers included. Each run still starts at frame 0 with three untimed calls.
struct RowState {
    std::optional<Scene> scene, shadow;  // shadow: Gap, RigidGap take the vertex updates the detector does not see
    std::vector<ObjectPair> candidates;
    std::vector<std::vector<std::vector<Vec3>>> frames;  // [frame][object]
    std::unique_ptr<Detector> detector;
};

std::map<std::string, RowState> g_rows;  // cleared in main() before the GL context goes

RowState& rowState(const std::string& sceneName, int bodies, bool deforming, const std::string& name) {
    RowState& r = g_rows[sceneName + "/" + name];
    if (r.detector) return r;
    const Pattern pattern = patternOf(sceneName);
    r.scene.emplace(densePile(bodies));
    r.shadow.emplace(densePile(bodies));
    r.candidates = r.scene->overlappingPairs();
    if (deforming || pattern != Pattern::Rigid) {
        r.frames.resize(kFrames);
        for (int f = 0; f < kFrames; ++f)
            for (ObjectId o = 0; o < r.scene->objectCount(); ++o)
                r.frames[std::size_t(f)].push_back(wobble(*bunny(), o, f));
    }
    if (pattern == Pattern::Same || pattern == Pattern::Gap)
        for (ObjectId o = 0; o < r.scene->objectCount(); ++o) r.scene->setVertices(o, r.frames[0][o]);
    r.detector = makeDetector(name);
    return r;
}

void run(benchmark::State& state, const std::string& sceneName, int bodies, bool deforming, const std::string& name) {
    using Clock = std::chrono::steady_clock;
    const Pattern pattern = patternOf(sceneName);
    RowState& row = rowState(sceneName, bodies, deforming, name);
    Scene& scene = *row.scene;
    Scene& shadow = *row.shadow;
    const std::vector<ObjectPair>& candidates = row.candidates;
    const auto& frames = row.frames;
    Detector* detector = row.detector.get();
    const bool gl = detector->usesGl();
    if (gl && glGetError() != GL_NO_ERROR) state.SkipWithError("GL error before the loop");
    DetectionOutput out;
    int frame = 0;
    auto pose = [&] {
        if (pattern == Pattern::Rigid || pattern == Pattern::Same) return;
        Scene& target = pattern == Pattern::Fresh ? scene : shadow;
        for (ObjectId o = 0; o < target.objectCount(); ++o)
            target.setVertices(o, frames[std::size_t(frame % kFrames)][o]);
        ++frame;
    };
    // Three calls before the loop: buffers sized, hierarchies built, shaders warm, and the GPU
    // clocked up (with one, the first row of a scene paid the clock ramp: the deforming rows'
    // 8 timed calls saw 2.8-4.8 ms of triangle-level GPU time where the next row saw 0.8).
    // Every row makes the same calls, so every row still times the same frames.
    // ISC_BENCH_CULLIDE_WARM_MS (cullide-12; default 0): for GL detectors, more warm-up calls, in
    // the row's own pattern, until that many ms have passed, rounded up to whole rounds of the
    // frames (every row still times the same frames). The lent H200 takes about a second to
    // ramp its clock up from 345 MHz after an idle GPU (the cpu row): a 0.5 s row right after
    // it ran whole inside the ramp (cullide-12 runs 1-3, cullide.md).
    const auto warmStart = Clock::now();
    double warmMs = 0.0;
    if (const char* env = std::getenv("ISC_BENCH_CULLIDE_WARM_MS"); env != nullptr && gl) warmMs = std::atof(env);
    for (int warm = 0;; ++warm) {
        if (warm >= 3 && (std::chrono::duration<double, std::milli>(Clock::now() - warmStart).count() >= warmMs) &&
            (warmMs <= 0.0 || warm % kFrames == 3 % kFrames))
            break;
        pose();
        if (auto r = detector->detect(scene, candidates, out); !r) {
            state.SkipWithError(r.error().message.c_str());
            return;
        }
    }
    std::vector<double> wall;
    std::map<std::string, double> sums;
    double gpu = 0, readback = 0, cpu = 0, pairs = 0, triPairs = 0;
    for (auto _ : state) {
        pose();  // outside the measured time
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
        for (const PairResult& p : out.pairs) triPairs += double(p.triangles.size());
    }
    if (gl && glGetError() != GL_NO_ERROR) state.SkipWithError("GL error after the loop");
    if (wall.empty()) return;
    const double n = double(wall.size());
    std::sort(wall.begin(), wall.end());
    Measured m;
    m.medianMs = wall[wall.size() / 2];
    m.gpuMs = gpu / n;
    m.pairs = pairs / n;
    m.triPairs = triPairs / n;
    state.counters["median_ms"] = m.medianMs;
    state.counters["triangles"] = double(bodies) * double(bunny()->triangleCount());
    state.counters["candidate_pairs"] = double(candidates.size());
    state.counters["colliding_pairs"] = m.pairs;
    state.counters["triangle_pairs"] = m.triPairs;
    state.counters["gpu_ms"] = m.gpuMs;
    state.counters["readback_ms"] = readback / n;
    state.counters["cpu_ms"] = cpu / n;
    for (const auto& [counter, sum] : sums) {
        state.counters[counter] = sum / n;
        m.counters[counter] = sum / n;
    }
    // A row timed for a minimum time is run with more and more iterations until one run lasts long
    // enough, and only that run is reported: a run right after one of the same row with fewer
    // iterations replaces it (another repetition starts again from one iteration).
    static std::string lastKey;
    static benchmark::IterationCount lastIterations = 0;
    const std::string key = sceneName + "/" + name;
    std::vector<Measured>& runs = g_results[sceneName][name];
    if (key == lastKey && state.max_iterations > lastIterations && !runs.empty()) runs.back() = m;
    else runs.push_back(m);
    lastKey = key;
    lastIterations = state.max_iterations;
}

void registerAll() {
    std::vector<int> sizes = {100, 300};
    if (const char* env = std::getenv("ISC_BENCH_CULLIDE_SIZES")) {
        sizes.clear();
        std::stringstream ss(env);
        std::string item;
        while (std::getline(ss, item, ',')) sizes.push_back(std::atoi(item.c_str()));
    }
    g_detectorOrder = {"cullide", "cullide_queries"};
    readVariants();
    for (const auto& [name, options] : g_variants) g_detectorOrder.push_back(name);
    g_detectorOrder.push_back("cpu");
    g_detectorOrder.push_back("peel");
    g_detectorOrder.push_back("peel_128_1axis");
    if (const char* env = std::getenv("ISC_BENCH_CULLIDE_ORDER")) {
        // The rows in this order (each scene's rows interleaved differently per process), those
        // named only.
        std::vector<std::string> order;
        std::stringstream ss(env);
        std::string item;
        while (std::getline(ss, item, ','))
            if (std::find(g_detectorOrder.begin(), g_detectorOrder.end(), item) != g_detectorOrder.end())
                order.push_back(item);
        if (!order.empty()) g_detectorOrder = order;
    }
    double pileMinTime = 0.5;
    if (const char* env = std::getenv("ISC_BENCH_CULLIDE_PILE_MIN_TIME")) pileMinTime = std::max(0.01, std::atof(env));
    int deformCalls = kFrames;
    if (const char* env = std::getenv("ISC_BENCH_CULLIDE_DEFORM_CALLS")) deformCalls = std::max(1, std::atoi(env));
    std::vector<std::pair<std::string, bool>> kinds = {{"pile/", false}, {"deforming/", true}};  // (prefix, timed by calls)
    if (const char* env = std::getenv("ISC_BENCH_CULLIDE_PATTERNS")) {
        std::stringstream ss(env);
        std::string item;
        while (std::getline(ss, item, ','))
            if (item == "deforming_same" || item == "deforming_gap" || item == "pile_gap") kinds.push_back({item + "/", true});
    }
    for (const auto& [prefix, deforming] : kinds) {
        for (int bodies : sizes) {
            const std::string scene = prefix + std::to_string(bodies);
            g_sceneOrder.push_back(scene);
            for (const std::string& name : g_detectorOrder) {
                auto* b = benchmark::RegisterBenchmark((scene + "/" + name).c_str(),
                                                       [=](benchmark::State& s) { run(s, scene, bodies, deforming, name); })
                              ->Unit(benchmark::kMillisecond)
                              ->UseManualTime();
                // Deforming: every detector sees the same frames (all eight, once each by default).
                if (deforming) b->Iterations(deformCalls);
                else b->MinTime(pileMinTime);
            }
        }
    }
}

// A row's runs as one: the median of their medians (the middle run's with an odd count, as
// isc_bench_peel's checks take the median over repetitions), the means of the rest.
Measured combined(const std::vector<Measured>& runs) {
    Measured out;
    if (runs.empty()) return out;
    std::vector<double> medians;
    for (const Measured& m : runs) {
        medians.push_back(m.medianMs);
        out.gpuMs += m.gpuMs / double(runs.size());
        out.pairs += m.pairs / double(runs.size());
        out.triPairs += m.triPairs / double(runs.size());
        for (const auto& [k, v] : m.counters) out.counters[k] += v / double(runs.size());
    }
    std::sort(medians.begin(), medians.end());
    const std::size_t h = medians.size() / 2;
    out.medianMs = medians.size() % 2 == 1 ? medians[h] : 0.5 * (medians[h - 1] + medians[h]);
    return out;
}

void printSummary() {
    std::printf("\n# isc_bench_cullide summary (medians of detect() wall time, ms; same scenes, same poses)\n");
    std::printf("| scene | detector | median ms | gpu ms | / cpu | / peel | colliding pairs | triangle pairs |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    for (const std::string& scene : g_sceneOrder) {
        auto it = g_results.find(scene);
        if (it == g_results.end()) continue;
        std::map<std::string, Measured> rows;
        for (const auto& [d, runs] : it->second) rows[d] = combined(runs);
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
            std::printf("| %s | %s | %.3f | %.3f | %s | %s | %.0f | %.0f |\n", scene.c_str(), d.c_str(), m.medianMs,
                        m.gpuMs, ratio(median("cpu")).c_str(), ratio(median("peel") > 0 ? median("peel") : median("peel_128_1axis")).c_str(), m.pairs,
                        m.triPairs);
        }
    }
    std::printf("\n# cullide per level (means per call): PCS in -> out, GPU ms, CPU ms\n");
    std::printf("| scene | method | objects | clusters | triangles | pairs after obj/clu/tri | gpu obj/clu/tri ms | "
                "cpu obj/clu/tri/narrow ms | queries | fragments | tri-tri tests |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const std::string& scene : g_sceneOrder) {
        auto it = g_results.find(scene);
        if (it == g_results.end()) continue;
        for (const std::string& name : g_detectorOrder) {
            if (name.rfind("cullide", 0) != 0) continue;
            const char* d = name.c_str();
            auto r = it->second.find(d);
            if (r == it->second.end()) continue;
            const Measured m = combined(r->second);
            auto c = [&](const char* k) {
                auto x = m.counters.find(k);
                return x == m.counters.end() ? 0.0 : x->second;
            };
            std::printf("| %s | %s | %.0f -> %.0f | %.0f -> %.0f | %.0f -> %.0f | %.0f / %.0f / %.0f | %.2f / %.2f / %.2f | "
                        "%.2f / %.2f / %.2f / %.2f | %.0f | %.0f | %.0f |\n",
                        scene.c_str(), d, c("pcs_objects_in"), c("pcs_objects"), c("pcs_clusters_in"), c("pcs_clusters"),
                        c("pcs_triangles_in"), c("pcs_triangles"), c("pairs_after_objects"), c("pairs_after_clusters"),
                        c("pairs_after_triangles"), c("gpu_object_ms"), c("gpu_cluster_ms"), c("gpu_triangle_ms"),
                        c("cpu_object_ms"), c("cpu_cluster_ms"), c("cpu_triangle_ms"), c("cpu_narrowphase_ms"),
                        c("queries"), c("fragments"), c("tri_tri_tests"));
        }
    }
}

}  // namespace
}  // namespace isc

int main(int argc, char** argv) {
    auto ctx = isc::gl::Context::createHeadless();
    if (!ctx) {
        std::fprintf(stderr, "isc_bench_cullide: no GL context: %s\n", ctx.error().message.c_str());
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
    isc::g_rows.clear();     // the detectors' GL objects, while the context is current
    isc::g_context.reset();  // before static destruction (see bench/detectors/PeelBench.cpp)
    return 0;
}
