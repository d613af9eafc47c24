// Bunny pile: mean step and collision (narrow-phase dispatch) time per step, isc "cpu" and
// "peel" (the GL depth-peeling detector) against stock Bullet GImpact, same scene, same run.
// Each benchmark drops the pile and times the first ISC_BENCH_PILE_STEPS steps (default
// 180, 120 at 300 bodies: falling, landing and piling up, the hard part).
// Counters: step_ms, collision_ms (the dispatcher's whole dispatchAllCollisionPairs),
// detect_ms (the detector's detect() call), contacts_ms (patch contacts), fallback_pairs
// (pairs served by the exact path) per step, contacts at the end; penetration measured from
// the poses alone (RigidWorld::measurePenetration, the same for every detector and for
// GImpact) every ISC_BENCH_PILE_PENETRATION_EVERY steps (default 5; 0: off) and after the
// last step, outside the timed steps: pen_max_m (deepest over the samples), pen_final_m,
// pen_ms (one measurement), and contact_depth_max_m (the deepest manifold point at the same
// samples: what the solver was told); for peel also the detector's own per-step means gpu_ms
// (GL timestamp queries), readback_ms, narrowphase_ms, fragments, tiles, raster_passes,
// tri_tri_tests, tri_pairs. The "ratio" benchmarks divide GImpact's mean step time by cpu's
// and peel's (above 1: ours is faster).
//
// Peel settings (environment): ISC_BENCH_PILE_PEEL_RESOLUTION (default 128),
// ISC_BENCH_PILE_PEEL_AXES (1), ISC_BENCH_PILE_PEEL_SAMPLING ("scene"); docs/integration.md
// says why. Peel needs a headless GL context, made in main(); without one its benchmarks
// are skipped with the reason.
#include "BunnyPile.h"

#include "isc/bullet/CollisionDispatcher.h"
#include "isc/bullet/RigidWorld.h"
#include "isc/detect/Registry.h"
#include "isc/detectors/PeelDetector.h"
#include "isc/gl/Context.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>

namespace {

std::optional<isc::gl::Context> g_context;
std::string g_contextError;

int envInt(const char* name, int fallback) {
    const char* s = std::getenv(name);
    return s && *s ? std::atoi(s) : fallback;
}

int stepsFor(int bodies) {
    if (const char* s = std::getenv("ISC_BENCH_PILE_STEPS")) return std::max(1, std::atoi(s));
    return bodies >= 300 ? 120 : 180;
}

isc::PeelSettings peelSettings() {
    isc::PeelSettings s;
    s.resolution = envInt("ISC_BENCH_PILE_PEEL_RESOLUTION", 128);
    s.axes = envInt("ISC_BENCH_PILE_PEEL_AXES", 1);
    const char* sampling = std::getenv("ISC_BENCH_PILE_PEEL_SAMPLING");
    s.sampling = sampling && *sampling ? sampling : "scene";
    return s;
}

struct Measured {
    double stepMs = 0.0, collisionMs = 0.0;
};
std::map<std::pair<std::string, int>, Measured> gMeasured;

void runPile(benchmark::State& state, const std::string& detector) {
    const int bodies = int(state.range(0));
    const int steps = stepsFor(bodies);
    const bool gl = isc::detectorUsesGl(detector);
    if (gl && !g_context) {
        state.SkipWithError(("no GL context: " + g_contextError).c_str());
        return;
    }
    auto pile = isc::scenes::makeBunnyPile(bodies, 1);
    if (!pile) {
        state.SkipWithError(pile.error().message.c_str());
        return;
    }
    double stepMs = 0.0, collisionMs = 0.0, contacts = 0.0;
    double detectMs = 0.0, contactsMs = 0.0, fallbackPairs = 0.0;
    // Penetration from the poses, sampled (see the file comment).
    const int penEvery = std::max(0, envInt("ISC_BENCH_PILE_PENETRATION_EVERY", 5));
    double penMax = 0.0, penFinal = 0.0, penMs = 0.0, contactDepthMax = 0.0;
    int penSamples = 0;
    // The detector's own counters, summed over steps (GL detectors).
    std::map<std::string, double> counters;
    int runs = 0;
    for (auto _ : state) {
        state.PauseTiming();
        isc::bullet::WorldSettings ws;
        ws.detector = detector;
        if (detector == "peel") ws.detectorSettings.options = isc::toOptions(peelSettings());
        auto world = isc::bullet::RigidWorld::create(ws);
        if (!world) {
            state.SkipWithError(world.error().message.c_str());
            return;
        }
        (*world)->addGround(pile->groundHalfExtents);
        for (const isc::Pose& p : pile->poses) (*world)->addMeshBody(pile->bunny, p);
        state.ResumeTiming();
        for (int s = 0; s < steps; ++s) {
            const isc::bullet::StepTimes t = (*world)->step();
            stepMs += t.stepMs;
            collisionMs += t.collisionMs;
            if (penEvery > 0 && (s + 1) % penEvery == 0 && s + 1 < steps) {
                state.PauseTiming();
                const isc::bullet::PenetrationReport r = (*world)->measurePenetration();
                penMax = std::max(penMax, r.maxDepth);
                contactDepthMax = std::max(contactDepthMax, (*world)->deepestContact());
                penMs += r.ms;
                ++penSamples;
                state.ResumeTiming();
            }
            if (const isc::bullet::CollisionDispatcher* d = (*world)->dispatcher()) {
                detectMs += d->lastStats().detectMs;
                contactsMs += d->lastStats().contactsMs;
                fallbackPairs += double(d->lastStats().fallbackPairs);
                if (gl) {
                    const isc::DetectorStats& st = d->lastDetectorStats();
                    counters["gpu_ms"] += st.gpuMs;
                    counters["readback_ms"] += st.readbackMs;
                    counters["narrowphase_ms"] += st.counter("cpu_narrowphase_ms");
                    for (const char* c : {"fragments", "tiles", "raster_passes", "tri_tri_tests"})
                        counters[c] += st.counter(c);
                    counters["tri_pairs"] += double(d->lastStats().trianglePairs);
                }
            }
        }
        state.PauseTiming();
        contacts += (*world)->contactCount();
        {
            const isc::bullet::PenetrationReport r = (*world)->measurePenetration();
            penFinal = r.maxDepth;
            penMax = std::max(penMax, r.maxDepth);
            contactDepthMax = std::max(contactDepthMax, (*world)->deepestContact());
            penMs += r.ms;
            ++penSamples;
        }
        ++runs;
        world->reset();
        state.ResumeTiming();
    }
    const double n = double(runs) * steps;
    state.counters["step_ms"] = stepMs / n;
    state.counters["collision_ms"] = collisionMs / n;
    state.counters["contacts"] = contacts / runs;
    state.counters["pen_max_m"] = penMax;
    state.counters["pen_final_m"] = penFinal;
    state.counters["pen_ms"] = penSamples ? penMs / penSamples : 0.0;
    state.counters["contact_depth_max_m"] = contactDepthMax;
    if (detector != isc::bullet::kBulletGImpact) {
        state.counters["detect_ms"] = detectMs / n;
        state.counters["contacts_ms"] = contactsMs / n;
        state.counters["fallback_pairs"] = fallbackPairs / n;
    }
    for (const auto& [name, sum] : counters) state.counters[name] = sum / n;
    gMeasured[{detector, bodies}] = {stepMs / n, collisionMs / n};
}

void BM_PileCpu(benchmark::State& state) { runPile(state, "cpu"); }
void BM_PileGImpact(benchmark::State& state) { runPile(state, isc::bullet::kBulletGImpact); }
void BM_PilePeel(benchmark::State& state) { runPile(state, "peel"); }

// Reads the two measurements above (run first, same process): GImpact / cpu.
void BM_PileRatio(benchmark::State& state) {
    const int bodies = int(state.range(0));
    for (auto _ : state) benchmark::DoNotOptimize(bodies);
    auto cpu = gMeasured.find({"cpu", bodies});
    auto gim = gMeasured.find({isc::bullet::kBulletGImpact, bodies});
    if (cpu == gMeasured.end() || gim == gMeasured.end()) {
        state.SkipWithError("run BM_PileCpu and BM_PileGImpact at this size first");
        return;
    }
    state.counters["gimpact_over_cpu_step"] = gim->second.stepMs / cpu->second.stepMs;
    state.counters["gimpact_over_cpu_collision"] = gim->second.collisionMs / cpu->second.collisionMs;
    auto peel = gMeasured.find({"peel", bodies});
    if (peel != gMeasured.end()) {
        state.counters["gimpact_over_peel_step"] = gim->second.stepMs / peel->second.stepMs;
        state.counters["gimpact_over_peel_collision"] = gim->second.collisionMs / peel->second.collisionMs;
    }
}

}  // namespace

BENCHMARK(BM_PileCpu)->Arg(10)->Arg(30)->Arg(100)->Arg(300)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PileGImpact)->Arg(10)->Arg(30)->Arg(100)->Arg(300)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PilePeel)->Arg(10)->Arg(30)->Arg(100)->Arg(300)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PileRatio)->Arg(10)->Arg(30)->Arg(100)->Arg(300)->Iterations(1);

int main(int argc, char** argv) {
    // peel needs a current GL context on this thread; the cpu and GImpact rows run without.
    if (auto ctx = isc::gl::Context::createHeadless()) {
        g_context.emplace(std::move(*ctx));
        std::fprintf(stderr, "GL: %s\n", g_context->info().renderer.c_str());
    } else {
        g_contextError = ctx.error().message;
        std::fprintf(stderr, "isc_bench_pile: no GL context (peel rows skipped): %s\n", g_contextError.c_str());
    }
    const isc::PeelSettings peel = peelSettings();
    std::fprintf(stderr, "peel: resolution %d, axes %d, sampling %s\n", peel.resolution, peel.axes,
                 peel.sampling.c_str());
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    g_context.reset();  // before static destruction (see bench/detectors/PeelBench.cpp)
    return 0;
}
