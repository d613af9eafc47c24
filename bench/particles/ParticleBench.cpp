// isc_bench_particles: one particle step on the GPU (isc::particles::ParticleSystem: shared
// conservative height maps, 6 directions, 1024 pixels) beside the same particles collided on
// the CPU against the exact mesh (particles::stepOnCpu: a segment cast through one BVH over
// the environment's triangles per particle, all cores, OpenMP), in one run.
//
// Environment: the 100-bunny scene (scenes::makeBunnyFieldPour(100): 100 bunnies resting on
// the bumpy terrain, 12.6 m square, 100 x 3674 + 40,000 triangles). Particles: N (1,000,000
// and 10,000,000; env ISC_BENCH_PARTICLES="100000,1000000" to choose) emitted over the
// field 1.2 to 2.5 m up, falling at 3 m/s, restitution 0.25, friction 0.5; 30 warm-up steps
// of 1/60 s (most have landed: they rest, slide and bounce on the bunnies and the terrain),
// then 10 timed steps (the same steps 31-40 for both). GPU: median of the step's GPU time (GL timestamp queries) and of its
// wall time (step + the wait for it). CPU: median wall time of stepOnCpu on the same initial
// particles. Counters: median_gpu_ms, median_wall_ms / median_ms, collisions per step, alive,
// maps_ms (rasterising the environment's maps once).
#include "ParticlePour.h"

#include "isc/gl/Context.h"
#include "isc/gl/Gl.h"
#include "isc/particles/ExactEnvironment.h"
#include "isc/particles/ParticleSystem.h"

#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>

namespace isc {
namespace {

std::optional<gl::Context> g_context;
constexpr int kWarmup = 30;
constexpr float kDt = 1.0f / 60.0f;

const scenes::ParticlePour& pour() {
    static const scenes::ParticlePour p = [] {
        auto r = scenes::makeBunnyFieldPour(100, 1);
        if (!r) {
            std::fprintf(stderr, "isc_bench_particles: %s\n", r.error().message.c_str());
            std::exit(1);
        }
        return std::move(*r);
    }();
    return p;
}

particles::ParticleSettings settings(std::size_t n) {
    particles::ParticleSettings s;
    s.capacity = n;
    s.domain = pour().domain;
    s.resolution = 1024;
    s.directions = 6;
    s.restitution = 0.25f;
    s.friction = 0.5f;
    return s;
}

Aabb source() {
    const Aabb d = pour().domain;
    return {Vec3(d.min.x + 0.5f, 1.2f, d.min.z + 0.5f), Vec3(d.max.x - 0.5f, 2.5f, d.max.z - 0.5f)};
}

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::nth_element(v.begin(), v.begin() + long(v.size() / 2), v.end());
    return v[v.size() / 2];
}

// The same initial particles for both: emitted on the GPU, read back for the CPU.
struct Initial {
    std::vector<Vec4> positions, velocities;
};
const Initial& initial(std::size_t n) {
    static std::size_t made = 0;
    static Initial init;
    if (made != n) {
        auto ps = particles::ParticleSystem::create(settings(n));
        if (!ps || !ps->emitBox(n, source(), Vec3(0.0f, -3.0f, 0.0f), 1.0f, 17) ||
            !ps->readParticles(&init.positions, &init.velocities)) {
            std::fprintf(stderr, "isc_bench_particles: cannot make %zu particles%s\n", n,
                         ps ? "" : (": " + ps.error().message).c_str());
            std::exit(1);
        }
        made = n;
    }
    return init;
}

void BM_Gpu(benchmark::State& state) {
    const auto n = std::size_t(state.range(0));
    auto created = particles::ParticleSystem::create(settings(n));
    if (!created) {
        state.SkipWithError(created.error().message.c_str());
        return;
    }
    particles::ParticleSystem& ps = *created;
    auto env = ps.setEnvironment(pour().environment);
    const Initial& init = initial(n);
    std::vector<Vec3> p(n), v(n);
    for (std::size_t i = 0; i < n; ++i) {
        p[i] = Vec3(init.positions[i]);
        v[i] = Vec3(init.velocities[i]);
    }
    if (!env || !ps.emit(p, v)) {
        state.SkipWithError("environment or emit failed");
        return;
    }
    for (int i = 0; i < kWarmup; ++i) (void)ps.step(kDt);
    glFinish();
    if (glGetError() != GL_NO_ERROR) state.SkipWithError("GL error before the loop");
    std::vector<double> gpu, wall;
    double collisions = 0.0;
    for (auto _ : state) {
        const auto t0 = std::chrono::steady_clock::now();
        (void)ps.step(kDt);
        gpu.push_back(ps.lastStepGpuMs());  // waits for the step
        wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        auto st = ps.readStats();
        collisions += st ? double(st->lastCollisions) : 0.0;
    }
    if (glGetError() != GL_NO_ERROR) state.SkipWithError("GL error after the loop");
    auto st = ps.readStats();
    state.counters["median_gpu_ms"] = median(gpu);
    state.counters["median_wall_ms"] = median(wall);
    state.counters["collisions_per_step"] = collisions / double(std::max<std::int64_t>(1, state.iterations()));
    state.counters["alive"] = st ? double(st->alive()) : 0.0;
    state.counters["maps_ms"] = env->gpuMs;
    state.counters["environment_triangles"] = double(env->triangles);
}

void BM_Cpu(benchmark::State& state) {
    const auto n = std::size_t(state.range(0));
    static std::optional<particles::ExactEnvironment> exact;
    if (!exact) exact = particles::ExactEnvironment::build(pour().environment);
    const Initial& init = initial(n);
    std::vector<Vec4> p = init.positions, v = init.velocities;
    const particles::ParticleSettings s = settings(n);
    for (int i = 0; i < kWarmup; ++i) particles::stepOnCpu(p, v, *exact, s, kDt);
    std::vector<double> wall;
    double collisions = 0.0;
    for (auto _ : state) {
        const auto t0 = std::chrono::steady_clock::now();
        collisions += double(particles::stepOnCpu(p, v, *exact, s, kDt).collisions);
        wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::size_t alive = 0;
    for (const Vec4& q : p) alive += q.w != 0.0f ? 1 : 0;
    state.counters["median_ms"] = median(wall);
    state.counters["collisions_per_step"] = collisions / double(std::max<std::int64_t>(1, state.iterations()));
    state.counters["alive"] = double(alive);
    state.counters["threads"] = double(omp_get_max_threads());
}

std::vector<std::int64_t> counts() {
    std::vector<std::int64_t> out;
    const char* env = std::getenv("ISC_BENCH_PARTICLES");
    std::stringstream in(env ? env : "1000000,10000000");
    std::string item;
    while (std::getline(in, item, ','))
        if (!item.empty()) out.push_back(std::atoll(item.c_str()));
    return out;
}

void registerAll() {
    for (std::int64_t n : counts()) {
        benchmark::RegisterBenchmark("particles/gpu", BM_Gpu)->Arg(n)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(10);
        benchmark::RegisterBenchmark("particles/cpu_exact", BM_Cpu)->Arg(n)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(10);
    }
}

}  // namespace
}  // namespace isc

int main(int argc, char** argv) {
    auto ctx = isc::gl::Context::createHeadless();
    if (!ctx) {
        std::fprintf(stderr, "isc_bench_particles: no GL context: %s\n", ctx.error().message.c_str());
        return 1;
    }
    isc::g_context.emplace(std::move(*ctx));
    std::fprintf(stderr, "GL: %s, max particles %zu\n", isc::g_context->info().renderer.c_str(),
                 isc::particles::ParticleSystem::maxCapacity());
    isc::registerAll();
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    isc::g_context.reset();  // before static destruction (see bench/detectors/PeelBench.cpp)
    return 0;
}
