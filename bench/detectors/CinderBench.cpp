// isc_bench_cinder: the cinder detector (papers/000) beside cpu and peel on one detect() call of
// a dense bunny pile (the same poses for every detector: medians of repeated calls), and the
// object pairs the paper's mip-map read-back loses against the lossless compaction, per
// resolution. One line per row, `key=value` fields, for bench/results/.
//   isc_bench_cinder pile [bodies=100] [calls=15]
//   isc_bench_cinder mipmap [bodies=30] [resolutions=128,256,512,1024,2048]  (pair tiles up to 512)
//   isc_bench_cinder recall [poses=60] [resolutions=16,...,512] [maxLayers=16]  (bunny/bunny)
// Scene: the dense pile of isc_bench_peel (bodies 0.9 m apart in a cube, random rotations,
// seed 7), candidates = the overlapping world boxes. Needs a GL 4.5 context (headless EGL).
#include "DensePile.h"
#include "isc/detect/Registry.h"
#include "isc/detectors/CinderDetector.h"
#include "isc/detectors/CpuDetector.h"
#include "isc/geometry/PoseSampler.h"
#include "isc/gl/Context.h"
#include "isc/mesh/MeshIo.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace isc {
namespace {

Scene densePile(int bodies) {
    auto b = loadBunny(0.1f);
    if (!b) {
        std::fprintf(stderr, "isc_bench_cinder: %s\n", b.error().message.c_str());
        std::exit(1);
    }
    return bench::densePile(std::make_shared<const Mesh>(std::move(*b)), bodies);
}

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

std::set<ObjectPair> pairsOf(const DetectionOutput& out) {
    std::set<ObjectPair> s;
    for (const PairResult& r : out.pairs)
        if (!r.triangles.empty() || !r.samples.empty()) s.insert(r.pair);
    return s;
}

std::string optionText(const OptionList& o) {
    std::string t;
    for (const auto& [k, v] : o) t += (t.empty() ? "" : ",") + k + "=" + v;
    return t.empty() ? "defaults" : t;
}

// One row: `calls` detect() calls on the same poses after one warm-up; medians.
void row(const std::string& sceneName, const Scene& scene, const std::vector<ObjectPair>& candidates,
         const std::string& detector, const OptionList& options, int calls, const DetectionOutput& truth) {
    auto d = createDetector(detector, {.wantSegments = false, .options = options});
    if (!d) {
        std::printf("detect: scene=%s detector=%s options=%s error=\"%s\"\n", sceneName.c_str(), detector.c_str(),
                    optionText(options).c_str(), d.error().message.c_str());
        return;
    }
    DetectionOutput out;
    std::vector<double> total, gpu, readback, cpu;
    for (int i = 0; i <= calls; ++i) {
        if (auto r = (*d)->detect(scene, candidates, out); !r) {
            std::printf("detect: scene=%s detector=%s error=\"%s\"\n", sceneName.c_str(), detector.c_str(),
                        r.error().message.c_str());
            return;
        }
        if (i == 0) continue;  // warm-up (shaders, buffers)
        total.push_back(out.stats.totalMs);
        gpu.push_back(out.stats.gpuMs);
        readback.push_back(out.stats.readbackMs);
        cpu.push_back(out.stats.cpuMs);
    }
    const auto found = pairsOf(out), ref = pairsOf(truth);
    std::size_t missed = 0, extra = 0, triangles = 0, samples = 0;
    for (const ObjectPair& p : ref) missed += found.count(p) ? 0 : 1;
    for (const ObjectPair& p : found) extra += ref.count(p) ? 0 : 1;
    for (const PairResult& r : out.pairs) triangles += r.triangles.size(), samples += r.samples.size();
    std::printf("detect: scene=%s detector=%s options=%s calls=%d median_ms=%.3f gpu_ms=%.3f readback_ms=%.3f "
                "cpu_ms=%.3f candidates=%zu pairs=%zu reference_pairs=%zu missed_pairs=%zu extra_pairs=%zu "
                "triangle_pairs=%zu samples=%zu hits=%.0f views=%.0f\n",
                sceneName.c_str(), detector.c_str(), optionText(options).c_str(), calls, median(total), median(gpu),
                median(readback), median(cpu), candidates.size(), found.size(), ref.size(), missed, extra, triangles,
                samples, out.stats.counter("hits"), out.stats.counter("views"));
    if (detector == "cinder") {  // the last call's counters: where the time goes, what the cull kept
        std::string line;
        for (const auto& [k, v] : out.stats.counters) {
            char buf[96];
            std::snprintf(buf, sizeof buf, " %s=%.6g", k.c_str(), v);
            line += buf;
        }
        std::printf("stats: scene=%s options=%s%s\n", sceneName.c_str(), optionText(options).c_str(), line.c_str());
    }
    std::fflush(stdout);
}

}  // namespace
}  // namespace isc

int main(int argc, char** argv) {
    using namespace isc;
    const std::string mode = argc > 1 ? argv[1] : "pile";
    auto ctx = gl::Context::createHeadless();
    if (!ctx) {
        std::fprintf(stderr, "isc_bench_cinder: %s\n", ctx.error().message.c_str());
        return 1;
    }
    std::printf("# renderer: %s\n", ctx->info().renderer.c_str());
    if (mode == "pile") {
        const int bodies = argc > 2 ? std::atoi(argv[2]) : 100;
        const int calls = argc > 3 ? std::atoi(argv[3]) : 15;
        const Scene scene = densePile(bodies);
        const auto candidates = scene.overlappingPairs();
        CpuDetector reference;
        DetectionOutput truth;
        if (!reference.detect(scene, candidates, truth)) return 1;
        const std::string name = "pile/" + std::to_string(bodies);
        row(name, scene, candidates, "cpu", {}, calls, truth);
        row(name, scene, candidates, "peel", {}, calls, truth);
        row(name, scene, candidates, "cinder", {}, calls, truth);
        row(name, scene, candidates, "cinder", {{"axes", "1"}}, calls, truth);
        row(name, scene, candidates, "cinder", {{"resolution", "64"}}, calls, truth);
        row(name, scene, candidates, "cinder", {{"samples", "false"}}, calls, truth);
        row(name, scene, candidates, "cinder", {{"cull", "false"}}, calls, truth);
        return 0;
    }
    if (mode == "mipmap") {
        const int bodies = argc > 2 ? std::atoi(argv[2]) : 30;
        std::string list = argc > 3 ? argv[3] : "128,256,512,1024,2048";
        const Scene scene = densePile(bodies);
        const auto candidates = scene.overlappingPairs();
        CpuDetector reference;
        DetectionOutput truth;
        if (!reference.detect(scene, candidates, truth)) return 1;
        const std::string name = "pile/" + std::to_string(bodies);
        std::stringstream ss(list);
        std::string r;
        while (std::getline(ss, r, ',')) {
            if (std::stoi(r) <= 512) {  // pair tiles: a tile per pair and axis (larger ones take long)
                row(name, scene, candidates, "cinder", {{"resolution", r}}, 1, truth);
                row(name, scene, candidates, "cinder", {{"resolution", r}, {"proximity", "0"}}, 1, truth);
            }
            row(name, scene, candidates, "cinder", {{"resolution", r}, {"layout", "scene"}}, 1, truth);
            for (const char* levels : {"2", "4"}) {
                row(name, scene, candidates, "cinder",
                    {{"resolution", r}, {"layout", "scene"}, {"readback", "mipmap"}, {"mipLevels", levels}}, 1, truth);
            }
        }
        return 0;
    }
    if (mode == "recall") {
        // bunny/bunny close poses (isc accuracy's sampler, seed 1): object recall per resolution
        // and proximity, and how many colliding poses were served by the whole exact test
        // (a pixel over maxLayers) rather than by the edge hits.
        const int poses = argc > 2 ? std::atoi(argv[2]) : 60;
        std::string list = argc > 3 ? argv[3] : "16,32,64,128,256,512";
        const int layers = argc > 4 ? std::atoi(argv[4]) : 16;
        auto b = loadBunny(0.1f);
        if (!b) return 1;
        auto mesh = std::make_shared<const Mesh>(std::move(*b));
        Scene scene;
        const MeshId m = scene.addMesh(mesh);
        scene.addObject(m);
        scene.addObject(m);
        const auto sampled = geometry::sampleClosePoses(*mesh, *mesh, poses, 1);
        const std::vector<ObjectPair> candidates = {{0, 1}};
        std::stringstream ss(list);
        std::string r;
        while (std::getline(ss, r, ',')) {
            for (const char* proximity : {"1.5", "0"}) {
                const OptionList options = {{"resolution", r}, {"proximity", proximity}, {"maxLayers", std::to_string(layers)}};
                auto d = createDetector("cinder", {.options = options});
                if (!d) {
                    std::printf("recall: options=%s error=\"%s\"\n", optionText(options).c_str(), d.error().message.c_str());
                    continue;
                }
                CpuDetector reference;
                std::size_t colliding = 0, found = 0, falsePairs = 0, byFallback = 0, foundByHits = 0;
                for (const auto& [pa, pb] : sampled) {
                    scene.setPose(0, pa);
                    scene.setPose(1, pb);
                    DetectionOutput truth, out;
                    if (!reference.detect(scene, candidates, truth) || !(*d)->detect(scene, candidates, out)) return 1;
                    const bool t = !truth.pairs.empty(), f = !out.pairs.empty();
                    const bool fallback = out.stats.counter("full_exact_pairs") > 0;
                    colliding += t;
                    found += t && f;
                    falsePairs += !t && f;
                    byFallback += t && fallback;
                    foundByHits += t && f && !fallback;
                }
                std::printf("recall: meshes=bunny,bunny poses=%d options=%s colliding=%zu found=%zu object_recall=%.4f "
                            "false_pairs=%zu colliding_served_by_whole_exact_test=%zu found_by_edge_hits=%zu "
                            "edge_hit_recall=%.4f\n",
                            poses, optionText(options).c_str(), colliding, found,
                            colliding ? double(found) / double(colliding) : 1.0, falsePairs, byFallback, foundByHits,
                            colliding ? double(foundByHits) / double(colliding - byFallback > 0 ? colliding - byFallback : 1) : 1.0);
                std::fflush(stdout);
            }
        }
        return 0;
    }
    std::fprintf(stderr, "usage: isc_bench_cinder pile [bodies] [calls] | mipmap [bodies] [resolutions] | recall [poses] [resolutions] [maxLayers]\n");
    return 2;
}
