// isc_bench_peel: one detect() call of "peel" against the exact "cpu" detector, on the same
// scenes and poses, in the same process (issue 8's "What must show").
//
// Scenes (made here and in demos/scenes, no Bullet):
//   pile/<n>         a dense bunny pile: n bunnies (loadBunny(0.1), 3674 triangles) on a
//                    jittered grid 0.9 m apart, turned at random (seed 7): neighbours
//                    interpenetrate about as deeply as in a settling pile; n = 100, 300, 1000.
//   scaling/16x_sub<k> 16 such bunnies, each subdivided k = 0..3 times (59K to 3.76M triangles).
//   deform/100       the 100-bunny pile with every bunny's vertices wobbling each call
//                    (scenes::BunnyWobble, 2 % of its size, a phase per body): cpu must refit
//                    its trees, peel uploads the vertices. The wobble is computed between
//                    calls (one core, several ms): the GPU and the threads idle meanwhile.
//   deform_b2b/100   the same wobble, 120 frames at 1/60 s precomputed and set in turn
//                    (Scene::setVertices only between calls): calls back to back.
//   deform_gap5/100  those frames with a 5 ms busy wait before each call (a solver's step).
//   variants/...     peel variants: refit=gpu (the cluster boxes by the GPU pass) on every
//                    deforming pattern (the default there makes them on the CPU), refit=cpu on
//                    the 100- and 1000-bunny piles and the 3.76M-triangle scene (the default
//                    there is the GPU pass); speculate off and 12 exact threads on deform_b2b;
//                    peel_mainchain (test hook ISC_PEEL_WALK_RECORDS=0: the walk and triangle
//                    pairs as before 2026-11-27 night, with ISC_PEEL_UPLOAD_FIRST=0), peel_uploadafter
//                    (ISC_PEEL_UPLOAD_FIRST=0: the vertex upload after the walk's dispatch) and
//                    peel_walk64/256 (ISC_PEEL_WALK_WIDTH; 128 by default) and peel_notimers
//                    (gpuTimers off: no GL timestamps) on deform_b2b; peel_groupedexact
//                    (ISC_PEEL_EXACT_LOOKUP=0: the exact stage groups and sorts the whole list,
//                    the intersecting pairs speculated only), peel_ownsync (ISC_PEEL_FUSED_SYNC=0:
//                    the vertex conversion in its own region before the boxes') and peel_round7
//                    (both: the code before 2026-11-27 late night), peel_nohash
//                    (ISC_PEEL_EXACT_HASH=0: the lookup's binary search) on deform_b2b, and
//                    peel_round7 on deform_gap5/100, pile/100, pile/1000 and scaling/16x_sub3;
//                    peel_nomerge (ISC_PEEL_EXACT_MERGE=0: the exact stage's lookup one by one),
//                    peel_onecopy / peel_copy8 (ISC_PEEL_COPY_PIECES=1 / 8: the deformed
//                    vertices copied in one piece after the conversion, as before, or in 8; 4 by
//                    default) and peel_round8 (both: the code before 2026-11-28) on
//                    deform_b2b, peel_round8 on deform_gap5/100, pile/100 and pile/1000;
//                    peel_refitscalar (ISC_PEEL_REFIT_SIMD=0: the CPU's boxes one component
//                    at a time), peel_nostream (ISC_PEEL_STREAM_STORES=0: the conversion and
//                    the boxes with ordinary stores) and peel_round9 (both: the code before
//                    2026-11-28 morning) on deform_b2b, peel_round9 on deform_gap5/100 and pile/100;
//                    peel_gpuwalk (ISC_PEEL_CPU_WALK=0: the cluster walk on the GPU, the code
//                    before 2026-11-28 peel-walk-12), peel_walkbarrier (ISC_PEEL_CPU_WALK=1:
//                    every pair walked after a barrier behind the last box), peel_boxcopy
//                    (ISC_PEEL_RECORD_BOXES=0: records without the clusters' boxes, the node
//                    boxes copied) and peel_noflush (ISC_PEEL_WALK_FLUSH=0: the records' copy
//                    not flushed at once, as in runs 1-3) on deform_b2b;
//                    peel_room0 (ISC_PEEL_EXACT_ROOM=0: the exact stage's room of the next call's
//                    pairs made anew and zeroed every call, as before peel-exact-12) and
//                    peel_round11 (ISC_PEEL_CPU_WALK=0 and ISC_PEEL_EXACT_ROOM=0: the code
//                    before 2026-11-28's third session) on deform_b2b;
//                    peel_owned0 (ISC_PEEL_EXACT_OWNED=0: the wait's speculation one shared
//                    sweep, the exact stage's candidates taken by any thread, as before
//                    peel-exact-13) on deform_b2b;
//                    peel_tpcopy (ISC_PEEL_TRI_PAIRS=copy: every clear and upload before the
//                    triangle pairs, as before peel-tripairs-14) and peel_tptrim (the default)
//                    on deform_b2b; the branch's other forms are in the history (0cc56f0);
//                    peel_walkbranch / peel_walkpadded (ISC_PEEL_WALK_FORM=branch: the CPU
//                    walk as before peel-region-14b; padded, the default: no branch on the box
//                    tests, the walk's flags on their own cache lines) on deform_b2b;
//                    peel_fifth0 (ISC_PEEL_TRI_PAIRS=copy and ISC_PEEL_WALK_FORM=branch: the code
//                    before 2026-11-28's fifth session) on deform_b2b.
// Detectors per scene:
//   cpu              the exact reference (BVH per object, OpenMP over pairs)
//   peel             peel with its defaults (scene sampling; rays auto = off: the 3-D cull's
//                    cluster pairs straight to the GPU float filter, no raster)
//   peel_rays        peel with rays=on, otherwise defaults (auto resolution and axes, 3-D cull,
//                    collision rays choose the pairs for the filter)
//   peel_128_1axis   peel with rays=on resolution=128 axes=1 (the form the dispatcher used
//                    before; one axis draws every triangle: the 3-D cull needs three)
// Each benchmark first runs one call of the detector and one of cpu on the same poses and
// compares them (counters missed_pairs, extra_pairs: triangle pairs peel missed or invented,
// both must be 0, of reference_pairs), then times detect() only (manual time: scene updates
// excluded). Counters median_ms (the median call of a repetition) and between_ms (mean time
// from the end of one call to the start of the next: the update and any gap).
// Counters (per call, means over the timed iterations): triangles, candidate_pairs,
// triangle_pairs, gpu_ms, readback_ms (the wait for the GPU and the read), cpu_ms, and the
// detector's own counters: gpu_cull_ms, gpu_raster_ms, gpu_rays_ms, gpu_grid_ms,
// gpu_filter_ms, cpu_setup_ms, cpu_upload_ms, cpu_exact_ms, triangles_in, triangles_kept,
// triangles_rasterized, pixels_sampled, fragments, collision_rays, records, screen_pairs,
// filtered_pairs, tri_tri_tests, positive_tests, pairs_culled, capacity_retries, ...
//
// Tuning rows (tune/...): peel at explicit resolutions (32..256, 3 axes), auto at 1 axis, and
// with the cull off, on the 100-bunny pile, the deforming pile and the 3.76M-triangle scene;
// (threads/...): peel with exactThreads = 4, 8, 12, 15 on the pile and the deforming pile; 14 and
// 15 on deform_b2b (variants/deform_b2b/100/peel_team<N>);
// (speculate/...): peel with speculate off (the default is on) on the pile and the deforming pile;
// (chain/...): the fused walk with the call split in two halves (peel_overlap), with a
// timestamp per dispatch (peel_passes) and with no timers (peel_notimers), and the levels walk
// (the walk before round e) with stage timers, per dispatch and without (peel_levels*).
// Run everything (medians of 5):
//   isc_bench_peel --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//                  --benchmark_out=peel.json --benchmark_out_format=json
// A quick subset: --benchmark_filter='^pile/100/|^deform' (names: <scene>/<detector>); the docs'
// rows without the tuning ones: --benchmark_filter='^(pile|scaling|deform)/'.
// Env: ISC_BUNNY_OBJ (the bunny), ISC_PEEL_BENCH_MIN_TIME (seconds per benchmark, default 0.5).
// bench/detectors/peel_table.py turns the JSON into the tables and the plot of
// docs/detectors/peel.md.
#include "DensePile.h"
#include "BunnyWobble.h"

#include "isc/detectors/CpuDetector.h"
#include "isc/detectors/PeelDetector.h"
#include "isc/gl/Context.h"
#include "isc/gl/Gl.h"
#include "isc/mesh/MeshIo.h"
#include "isc/mesh/Shapes.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace isc {
namespace {

std::optional<gl::Context> g_context;

constexpr int kWobbleFrames = 120;  // the precomputed deforming rows' frames (2 s of wobble)
constexpr double kGapMs = 5.0;      // deform_gap5's busy wait before each call

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

Scene densePile(int bodies, int subdivisions) { return bench::densePile(bunny(subdivisions), bodies); }

// A detector of a row: cpu, or peel with these settings.
struct Kind {
    bool cpu = false;
    PeelSettings peel;
    // Test hooks (environment variables peel reads when a detector is made) set for this
    // detector only: variants of the chain that are no setting, in the same process as the
    // defaults (so that their rows interleave and see the same GPU clock).
    std::vector<std::pair<std::string, std::string>> hooks = {};
};

std::unique_ptr<Detector> makeDetector(const Kind& kind, std::string& error) {
    if (kind.cpu) return std::make_unique<CpuDetector>();
    for (const auto& [name, value] : kind.hooks) setenv(name.c_str(), value.c_str(), 1);
    auto d = createPeelDetector({}, kind.peel);
    for (const auto& [name, value] : kind.hooks) unsetenv(name.c_str());
    if (!d) {
        error = d.error().message;
        return nullptr;
    }
    return std::move(*d);
}

PeelSettings peelWith(int resolution, int axes, bool cull = true, const char* rays = "on") {
    PeelSettings s;
    s.resolution = resolution;
    s.axes = axes;
    s.cull = cull;
    s.rays = rays;
    return s;
}

// Triangle pairs of `found` missing from `truth` and the other way round.
struct Comparison {
    double missed = 0, extra = 0, truth = 0;
};
Comparison compare(const DetectionOutput& truth, const DetectionOutput& found) {
    std::map<ObjectPair, const PairResult*> t;
    for (const PairResult& r : truth.pairs) t[r.pair] = &r;
    double extra = 0, common = 0, total = 0;
    for (const PairResult& r : truth.pairs) total += double(r.triangles.size());
    for (const PairResult& r : found.pairs) {
        auto it = t.find(r.pair);
        for (const TrianglePair& p : r.triangles) {
            const bool in = it != t.end() && std::binary_search(it->second->triangles.begin(),
                                                                it->second->triangles.end(), p);
            (in ? common : extra) += 1;
        }
    }
    return {total - common, extra, total};
}

// Scene updates between calls (deforming scenes); null for rigid ones.
using Update = std::function<void(Scene&, int step)>;

// `gapMs`: a busy wait of that long on the calling thread before each timed call, after the
// update (a physics step's solver between two detector calls): the GPU and the OpenMP team
// idle meanwhile, as in a simulation loop.
void run(benchmark::State& state, const Kind& kind, const std::function<Scene()>& make, const Update& update,
         double gapMs = 0.0) {
    using Clock = std::chrono::steady_clock;
    Scene scene = make();
    if (update) update(scene, 0);
    const std::vector<ObjectPair> candidates = scene.overlappingPairs();
    std::string error;
    auto detector = makeDetector(kind, error);
    if (!detector) {
        state.SkipWithError(error.c_str());
        return;
    }
    const bool gl = !kind.cpu;
    if (gl && glGetError() != GL_NO_ERROR) state.SkipWithError("GL error before the loop");
    // One checked call: the same poses through cpu and the detector.
    DetectionOutput out, truth;
    if (auto r = detector->detect(scene, candidates, out); !r) {
        state.SkipWithError(r.error().message.c_str());
        return;
    }
    Comparison checked;
    if (!kind.cpu) {
        CpuDetector cpu;
        if (auto r = cpu.detect(scene, candidates, truth); !r) {
            state.SkipWithError(r.error().message.c_str());
            return;
        }
        checked = compare(truth, out);
    }
    std::map<std::string, double> sums;
    double gpu = 0, readback = 0, cpu = 0, pairs = 0, between = 0;
    std::vector<double> wall;
    int step = 1;
    auto lastEnd = Clock::now();
    for (auto _ : state) {
        if (update) update(scene, step++);
        if (gapMs > 0.0) {
            const auto until = Clock::now() + std::chrono::duration<double, std::milli>(gapMs);
            while (Clock::now() < until) {
            }
        }
        const auto t0 = Clock::now();
        between += std::chrono::duration<double, std::milli>(t0 - lastEnd).count();
        const auto r = detector->detect(scene, candidates, out);
        lastEnd = Clock::now();
        const double seconds = std::chrono::duration<double>(lastEnd - t0).count();
        state.SetIterationTime(seconds);
        wall.push_back(seconds * 1e3);
        if (!r) {
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
    if (gl && glGetError() != GL_NO_ERROR) state.SkipWithError("GL error after the loop");
    const double n = double(std::max<std::int64_t>(1, state.iterations()));
    double triangles = 0;
    for (ObjectId o = 0; o < scene.objectCount(); ++o) triangles += double(scene.objectMesh(o).triangleCount());
    state.counters["triangles"] = triangles;
    state.counters["candidate_pairs"] = double(candidates.size());
    state.counters["triangle_pairs"] = pairs / n;
    state.counters["missed_pairs"] = checked.missed;
    state.counters["extra_pairs"] = checked.extra;
    state.counters["reference_pairs"] = checked.truth;  // cpu's triangle pairs on the checked call
    state.counters["gpu_ms"] = gpu / n;
    state.counters["readback_ms"] = readback / n;
    state.counters["cpu_ms"] = cpu / n;
    // The median call of this repetition, and the mean time between the end of one call and
    // the start of the next (the update and the gap: what the GPU and the threads idle).
    if (!wall.empty()) {
        std::nth_element(wall.begin(), wall.begin() + std::ptrdiff_t(wall.size() / 2), wall.end());
        state.counters["median_ms"] = wall[wall.size() / 2];
    }
    state.counters["between_ms"] = between / n;
    for (const auto& [name, value] : sums) state.counters[name] = value / n;
}

void registerAll() {
    double minTime = 0.5;
    if (const char* m = std::getenv("ISC_PEEL_BENCH_MIN_TIME")) minTime = std::max(0.01, std::atof(m));
    const std::vector<std::pair<Kind, std::string>> kinds = {
        {Kind{true, {}}, "cpu"},
        {Kind{false, PeelSettings{}}, "peel"},
        {Kind{false, peelWith(0, 0)}, "peel_rays"},
        {Kind{false, peelWith(128, 1)}, "peel_128_1axis"}};
    auto addRows = [&](const std::string& scene, const std::vector<std::pair<Kind, std::string>>& rows,
                       std::function<Scene()> make, Update update, double gapMs = 0.0) {
        for (const auto& [kind, name] : rows) {
            const Kind k = kind;
            benchmark::RegisterBenchmark((scene + "/" + name).c_str(),
                                         [=](benchmark::State& s) { run(s, k, make, update, gapMs); })
                ->Unit(benchmark::kMillisecond)
                ->UseManualTime()
                ->MinTime(minTime);
        }
    };
    auto add = [&](const std::string& scene, std::function<Scene()> make, Update update) {
        addRows(scene, kinds, std::move(make), std::move(update));
    };
    for (int bodies : {100, 300, 1000})
        add("pile/" + std::to_string(bodies), [=] { return densePile(bodies, 0); }, nullptr);
    for (int level = 0; level <= 3; ++level)
        add("scaling/16x_sub" + std::to_string(level), [=] { return densePile(16, level); }, nullptr);
    // The deforming pile: the wobble advances 1/60 s per call.
    auto wobble = std::make_shared<scenes::BunnyWobble>(bunny(0));
    const Update wobbling = [wobble](Scene& scene, int step) {
        std::vector<Vec3> v;
        for (ObjectId o = 0; o < scene.objectCount(); ++o) {
            wobble->vertices(o, float(step) / 60.0f, v);
            scene.setVertices(o, v);
        }
    };
    add("deform/100", [] { return densePile(100, 0); }, wobbling);
    // The same wobble precomputed (kWobbleFrames frames at 1/60 s, made once, in turn), so
    // that between two calls only Scene::setVertices runs (copies, ~0.2 ms): calls back to
    // back (deform_b2b), and with a busy wait of kGapMs before each call (deform_gap5: a
    // physics step's solver between calls). deform/100 computes the wobble between calls
    // (BunnyWobble on one core, several ms): an idle gap too. The clock ramp (peel.md) makes
    // these patterns differ; every row of a pattern sees the same frames and poses.
    auto frames = std::make_shared<std::vector<std::vector<std::vector<Vec3>>>>();  // [frame][object]
    const Update precomputed = [wobble, frames](Scene& scene, int step) {
        if (frames->empty()) {
            frames->resize(kWobbleFrames);
            for (int f = 0; f < kWobbleFrames; ++f) {
                auto& frame = (*frames)[std::size_t(f)];
                frame.resize(scene.objectCount());
                for (ObjectId o = 0; o < scene.objectCount(); ++o) wobble->vertices(o, float(f) / 60.0f, frame[o]);
            }
        }
        const auto& frame = (*frames)[std::size_t(step % kWobbleFrames)];
        for (ObjectId o = 0; o < scene.objectCount(); ++o) scene.setVertices(o, frame[o]);
    };
    std::vector<std::pair<Kind, std::string>> deformKinds = {{Kind{true, {}}, "cpu"}, {Kind{false, PeelSettings{}}, "peel"}};
    addRows("deform_b2b/100", deformKinds, [] { return densePile(100, 0); }, precomputed);
    addRows("deform_gap5/100", deformKinds, [] { return densePile(100, 0); }, precomputed, kGapMs);
    // Variants on the back-to-back frames: speculation off; 12 exact threads. (Measured and
    // dropped, 2026-11-27 evening: the vertex upload in 4 or 8 pieces, a polled GPU wait; peel.md.)
    PeelSettings noSpec;
    noSpec.speculate = false;
    PeelSettings exact12;
    exact12.exactThreads = 12;
    // refit: the default ("auto") makes the cluster boxes on the CPU for the deforming pile
    // and by the GPU pass for the rigid scenes; each row also with the other.
    PeelSettings cpuRefit, gpuRefit;
    cpuRefit.refit = "cpu";
    gpuRefit.refit = "gpu";
    // The chain as before 2026-11-27 night (the walk writes node pairs, the triangle pairs look
    // up the rest and pair all 32 x 32 triangles; the vertex upload after the walk's dispatch),
    // the upload after the walk alone, and the fused walk 64 and 256 invocations wide (128 by default).
    const Kind mainChain{false, PeelSettings{}, {{"ISC_PEEL_WALK_RECORDS", "0"}, {"ISC_PEEL_UPLOAD_FIRST", "0"}}};
    const Kind uploadAfter{false, PeelSettings{}, {{"ISC_PEEL_UPLOAD_FIRST", "0"}}};
    const Kind walk64{false, PeelSettings{}, {{"ISC_PEEL_WALK_WIDTH", "64"}}};
    PeelSettings noTimers;
    noTimers.gpuTimers = "off";
    const Kind walk256{false, PeelSettings{}, {{"ISC_PEEL_WALK_WIDTH", "256"}}};
    // 2026-11-27 late night: the exact stage that groups and sorts the whole list and speculates
    // the intersecting pairs only (ISC_PEEL_EXACT_LOOKUP=0), the conversion in its own region
    // before the boxes' (ISC_PEEL_FUSED_SYNC=0), and both (the code of the night before).
    const Kind groupedExact{false, PeelSettings{}, {{"ISC_PEEL_EXACT_LOOKUP", "0"}}};
    const Kind ownSync{false, PeelSettings{}, {{"ISC_PEEL_FUSED_SYNC", "0"}}};
    const Kind round7{false, PeelSettings{}, {{"ISC_PEEL_EXACT_LOOKUP", "0"}, {"ISC_PEEL_FUSED_SYNC", "0"}}};
    const Kind noHash{false, PeelSettings{}, {{"ISC_PEEL_EXACT_HASH", "0"}}};
    // 2026-11-28 (peel-deform-9): the exact stage's lookup one by one (ISC_PEEL_EXACT_MERGE=0),
    // the vertex copy in one piece after the conversion and the boxes' copy in attempt()
    // (ISC_PEEL_COPY_PIECES=1; 8 pieces to compare), and both (the code of the late night before).
    const Kind noMerge{false, PeelSettings{}, {{"ISC_PEEL_EXACT_MERGE", "0"}}};
    const Kind oneCopy{false, PeelSettings{}, {{"ISC_PEEL_COPY_PIECES", "1"}}};
    const Kind copy8{false, PeelSettings{}, {{"ISC_PEEL_COPY_PIECES", "8"}}};
    const Kind round8{false, PeelSettings{}, {{"ISC_PEEL_EXACT_MERGE", "0"}, {"ISC_PEEL_COPY_PIECES", "1"}}};
    // 2026-11-28 morning (peel-deform-10): the CPU's boxes one component at a time
    // (ISC_PEEL_REFIT_SIMD=0), the conversion and the boxes with ordinary stores
    // (ISC_PEEL_STREAM_STORES=0), and both (the code of 2026-11-28 before).
    const Kind refitScalar{false, PeelSettings{}, {{"ISC_PEEL_REFIT_SIMD", "0"}}};
    const Kind noStream{false, PeelSettings{}, {{"ISC_PEEL_STREAM_STORES", "0"}}};
    const Kind round9{false, PeelSettings{}, {{"ISC_PEEL_REFIT_SIMD", "0"}, {"ISC_PEEL_STREAM_STORES", "0"}}};
    // 2026-11-28 (peel-walk-12): the cluster walk on the GPU (ISC_PEEL_CPU_WALK=0; the CPU walks
    // by default where it makes the boxes): the code before.
    const Kind gpuWalk{false, PeelSettings{}, {{"ISC_PEEL_CPU_WALK", "0"}}};
    // The CPU walk's first form (every pair after a barrier behind the last box) and the records
    // without the clusters' boxes (the node boxes copied to the GPU; run 2's default). (Run 2's
    // peel_walkpf, a pair's boxes prefetched, was slower; its hook was taken out again.)
    const Kind walkBarrier{false, PeelSettings{}, {{"ISC_PEEL_CPU_WALK", "1"}}};
    const Kind boxCopy{false, PeelSettings{}, {{"ISC_PEEL_RECORD_BOXES", "0"}}};
    const Kind noFlush{false, PeelSettings{}, {{"ISC_PEEL_WALK_FLUSH", "0"}}};  // runs 1-3's records copy
    // 2026-11-28 (peel-exact-12): the room of the exact stage's next-call pairs made anew and
    // zeroed every call (ISC_PEEL_EXACT_ROOM=0), as before.
    const Kind room0{false, PeelSettings{}, {{"ISC_PEEL_EXACT_ROOM", "0"}}};
    // Both (the code before the third session of 2026-11-28).
    const Kind round11{false, PeelSettings{}, {{"ISC_PEEL_CPU_WALK", "0"}, {"ISC_PEEL_EXACT_ROOM", "0"}}};
    // 2026-11-28 (peel-exact-13): the wait's speculation one shared sweep and the exact stage's
    // candidates taken by any thread (ISC_PEEL_EXACT_OWNED=0), as before.
    const Kind owned0{false, PeelSettings{}, {{"ISC_PEEL_EXACT_OWNED", "0"}}};
    // 2026-11-28 (peel-tripairs-14): what precedes the triangle pairs on the CPU walk's records.
    auto tp = [](const char* form) { return Kind{false, PeelSettings{}, {{"ISC_PEEL_TRI_PAIRS", form}}}; };
    // 2026-11-28 (peel-region-14b): the CPU walk's form.
    auto wf = [](const char* form) { return Kind{false, PeelSettings{}, {{"ISC_PEEL_WALK_FORM", form}}}; };
    // The code before 2026-11-28's fifth session: both of its rounds' hooks off.
    const Kind fifth0{false, PeelSettings{}, {{"ISC_PEEL_TRI_PAIRS", "copy"}, {"ISC_PEEL_WALK_FORM", "branch"}}};
    // 2026-11-29, eighth session: the triangle pairs' survivors n at a time (less shared memory;
    // 256 the default since, 1024: all at once, the code before).
    auto chunk = [](int n) { return Kind{false, PeelSettings{}, {{"ISC_PEEL_SURVIVOR_CHUNK", std::to_string(n)}}}; };
    // 2026-11-29, eleventh session: the output cleared at the call's start and the objects classed
    // pair by pair, as before.
    const Kind pre0{false, PeelSettings{}, {{"ISC_PEEL_PRE", "0"}}};
    const std::vector<std::pair<Kind, std::string>> deformVariants = {{Kind{false, gpuRefit}, "peel_gpurefit"},
                                                                      {Kind{false, noSpec}, "peel_nospeculate"},
                                                                      {Kind{false, exact12}, "peel_exact12"},
                                                                      {mainChain, "peel_mainchain"},
                                                                      {uploadAfter, "peel_uploadafter"},
                                                                      {walk64, "peel_walk64"},
                                                                      {Kind{false, noTimers}, "peel_notimers"},
                                                                      {walk256, "peel_walk256"},
                                                                      {groupedExact, "peel_groupedexact"},
                                                                      {ownSync, "peel_ownsync"},
                                                                      {round7, "peel_round7"},
                                                                      {noHash, "peel_nohash"},
                                                                      {noMerge, "peel_nomerge"},
                                                                      {oneCopy, "peel_onecopy"},
                                                                      {copy8, "peel_copy8"},
                                                                      {round8, "peel_round8"},
                                                                      {refitScalar, "peel_refitscalar"},
                                                                      {noStream, "peel_nostream"},
                                                                      {round9, "peel_round9"},
                                                                      {gpuWalk, "peel_gpuwalk"},
                                                                      {walkBarrier, "peel_walkbarrier"},
                                                                      {boxCopy, "peel_boxcopy"},
                                                                      {noFlush, "peel_noflush"},
                                                                      {room0, "peel_room0"},
                                                                      {round11, "peel_round11"},
                                                                      {owned0, "peel_owned0"},
                                                                      {tp("copy"), "peel_tpcopy"},
                                                                      {tp("trim"), "peel_tptrim"},
                                                                      {wf("branch"), "peel_walkbranch"},
                                                                      {wf("padded"), "peel_walkpadded"},
                                                                      {fifth0, "peel_fifth0"},
                                                                      {chunk(128), "peel_chunk128"},
                                                                      {chunk(256), "peel_chunk256"},
                                                                      {chunk(1024), "peel_chunk1024"},
                                                                      {pre0, "peel_pre0"}};
    addRows("variants/deform_b2b/100", deformVariants, [] { return densePile(100, 0); }, precomputed);
    const std::vector<std::pair<Kind, std::string>> gpuRefitRows = {{Kind{false, gpuRefit}, "peel_gpurefit"}};
    const std::vector<std::pair<Kind, std::string>> refitRows = {{Kind{false, cpuRefit}, "peel_cpurefit"}};
    addRows("variants/deform_gap5/100", gpuRefitRows, [] { return densePile(100, 0); }, precomputed, kGapMs);
    // The code before 2026-11-27 late night on the rigid pile and with a gap between calls.
    const std::vector<std::pair<Kind, std::string>> round7Rows = {{round7, "peel_round7"}};
    addRows("variants/deform_gap5/100", round7Rows, [] { return densePile(100, 0); }, precomputed, kGapMs);
    addRows("variants/pile/100", round7Rows, [] { return densePile(100, 0); }, nullptr);
    addRows("variants/pile/1000", round7Rows, [] { return densePile(1000, 0); }, nullptr);
    addRows("variants/scaling/16x_sub3", round7Rows, [] { return densePile(16, 3); }, nullptr);
    // The code before 2026-11-28 (peel-deform-9) on the rigid piles and with a gap.
    const std::vector<std::pair<Kind, std::string>> round8Rows = {{round8, "peel_round8"}};
    addRows("variants/deform_gap5/100", round8Rows, [] { return densePile(100, 0); }, precomputed, kGapMs);
    addRows("variants/pile/100", round8Rows, [] { return densePile(100, 0); }, nullptr);
    addRows("variants/pile/1000", round8Rows, [] { return densePile(1000, 0); }, nullptr);
    // The code before 2026-11-28 morning (peel-deform-10) on the rigid pile and with a gap.
    const std::vector<std::pair<Kind, std::string>> round9Rows = {{round9, "peel_round9"}};
    addRows("variants/deform_gap5/100", round9Rows, [] { return densePile(100, 0); }, precomputed, kGapMs);
    addRows("variants/pile/100", round9Rows, [] { return densePile(100, 0); }, nullptr);
    addRows("variants/deform/100", gpuRefitRows, [] { return densePile(100, 0); }, wobbling);
    for (int bodies : {100, 1000})
        addRows("variants/pile/" + std::to_string(bodies), refitRows, [=] { return densePile(bodies, 0); }, nullptr);
    addRows("variants/scaling/16x_sub3", refitRows, [] { return densePile(16, 3); }, nullptr);
    // Tuning rows (not in the docs' tables; select with --benchmark_filter=tune): explicit
    // resolutions at 3 axes, auto at 1 axis, and the cull off, against the defaults' choice.
    const std::vector<std::pair<Kind, std::string>> tune = {
        {Kind{false, peelWith(32, 3)}, "peel_32_3axes"},   {Kind{false, peelWith(64, 3)}, "peel_64_3axes"},
        {Kind{false, peelWith(128, 3)}, "peel_128_3axes"}, {Kind{false, peelWith(256, 3)}, "peel_256_3axes"},
        {Kind{false, peelWith(0, 1)}, "peel_auto_1axis"},  {Kind{false, peelWith(0, 0, false)}, "peel_nocull"}};
    addRows("tune/pile/100", tune, [] { return densePile(100, 0); }, nullptr);
    addRows("tune/deform/100", tune, [] { return densePile(100, 0); }, wobbling);
    addRows("tune/scaling/16x_sub3", tune, [] { return densePile(16, 3); }, nullptr);
    // Threads of the exact test (and of the team woken during the GPU wait): fewer than the
    // cores leave one for the GL driver's thread (the deforming pile's variance, peel.md).
    std::vector<std::pair<Kind, std::string>> threads;
    for (int t : {4, 8, 12, 15}) {
        PeelSettings s;
        s.exactThreads = t;
        threads.push_back({Kind{false, s}, "peel_exact" + std::to_string(t)});
    }
    // The GPU chain (round e): the fused walk (default) against the levels walk, each with a
    // timestamp per dispatch (gpuTimers=passes: gpu_pass_*_ms) and with no timers at all.
    auto chainKind = [](const char* walk, const char* timers, bool overlap = false) {
        PeelSettings s;
        s.walk = walk;
        s.gpuTimers = timers;
        s.overlap = overlap;
        return Kind{false, s};
    };
    const std::vector<std::pair<Kind, std::string>> chain = {
        {chainKind("fused", "stages", true), "peel_overlap"},
        {chainKind("fused", "passes"), "peel_passes"},
        {chainKind("fused", "off"), "peel_notimers"},
        {chainKind("levels", "stages"), "peel_levels"},
        {chainKind("levels", "passes"), "peel_levels_passes"},
        {chainKind("levels", "off"), "peel_levels_notimers"}};
    addRows("chain/pile/100", chain, [] { return densePile(100, 0); }, nullptr);
    addRows("chain/deform/100", chain, [] { return densePile(100, 0); }, wobbling);
    // Speculation (2026-11-27): the default (speculate on) against peel with it off, on the same
    // scenes: the last call's intersecting pairs tested again during the GPU wait.
    PeelSettings noSpeculation;
    noSpeculation.speculate = false;
    const std::vector<std::pair<Kind, std::string>> speculation = {{Kind{false, noSpeculation}, "peel_nospeculate"}};
    addRows("speculate/pile/100", speculation, [] { return densePile(100, 0); }, nullptr);
    addRows("speculate/deform/100", speculation, [] { return densePile(100, 0); }, wobbling);
    addRows("threads/pile/100", threads, [] { return densePile(100, 0); }, nullptr);
    addRows("threads/deform/100", threads, [] { return densePile(100, 0); }, wobbling);
    // The deforming pile back to back with a team one to four threads short of the cores (the
    // GL driver's own thread keeps a core: 2026-11-28, sixth session).
    std::vector<std::pair<Kind, std::string>> fewerThreads;
    for (int t : {14, 15}) {  // (12: peel_exact12 above, slower in 2026-11-27's patterns rounds)
        PeelSettings s;
        s.exactThreads = t;
        fewerThreads.push_back({Kind{false, s}, "peel_team" + std::to_string(t)});
    }
    addRows("variants/deform_b2b/100", fewerThreads, [] { return densePile(100, 0); }, precomputed);
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
    benchmark::AddCustomContext("gl_renderer", isc::g_context->info().renderer);
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
