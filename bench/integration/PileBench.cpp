// Bunny pile: mean step and collision (narrow-phase dispatch) time per step, isc "cpu"
// against stock Bullet GImpact, same scene, same run. Each benchmark drops the pile and
// times `kSteps` steps from the start (falling, landing and piling up: the hard part).
// Counters: step_ms, collision_ms, contacts; the "ratio" benchmarks divide GImpact's
// mean step time by cpu's (above 1: cpu is faster).
#include "BunnyPile.h"

#include "isc/bullet/RigidWorld.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <map>
#include <string>

namespace {

int stepsFor(int bodies) {
    if (const char* s = std::getenv("ISC_BENCH_PILE_STEPS")) return std::max(1, std::atoi(s));
    return bodies >= 300 ? 120 : 180;
}

struct Measured {
    double stepMs = 0.0, collisionMs = 0.0;
};
std::map<std::pair<std::string, int>, Measured> gMeasured;

void runPile(benchmark::State& state, const std::string& detector) {
    const int bodies = int(state.range(0));
    const int steps = stepsFor(bodies);
    auto pile = isc::scenes::makeBunnyPile(bodies, 1);
    if (!pile) {
        state.SkipWithError(pile.error().message.c_str());
        return;
    }
    double stepMs = 0.0, collisionMs = 0.0, contacts = 0.0, penetration = 0.0;
    int runs = 0;
    for (auto _ : state) {
        state.PauseTiming();
        isc::bullet::WorldSettings ws;
        ws.detector = detector;
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
        }
        state.PauseTiming();
        contacts += (*world)->contactCount();
        penetration = std::max(penetration, (*world)->maxPenetration());
        ++runs;
        world->reset();
        state.ResumeTiming();
    }
    const double n = double(runs) * steps;
    state.counters["step_ms"] = stepMs / n;
    state.counters["collision_ms"] = collisionMs / n;
    state.counters["contacts"] = contacts / runs;
    state.counters["final_penetration"] = penetration;
    gMeasured[{detector, bodies}] = {stepMs / n, collisionMs / n};
}

void BM_PileCpu(benchmark::State& state) { runPile(state, "cpu"); }
void BM_PileGImpact(benchmark::State& state) { runPile(state, isc::bullet::kBulletGImpact); }

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
}

}  // namespace

BENCHMARK(BM_PileCpu)->Arg(10)->Arg(30)->Arg(100)->Arg(300)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PileGImpact)->Arg(10)->Arg(30)->Arg(100)->Arg(300)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PileRatio)->Arg(10)->Arg(30)->Arg(100)->Arg(300)->Iterations(1);

BENCHMARK_MAIN();
