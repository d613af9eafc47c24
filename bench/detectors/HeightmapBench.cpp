// isc_bench_heightmap: per-query time of the "heightmap" detector (papers/002: an object
// against its environment) beside the exact "cpu" detector and FCL 0.7 on the same poses, as
// the paper's Table 1 compares its method with FCL (0.10 ms against 0.21 ms per frame).
//
// Query: one bunny (loadBunny(0.1), 3674 triangles) against the bumpy terrain
// (scenes::makeTerrain: 12 m square, 96 cells, a closed slab of 36,864 triangles), 200 poses
// (x, z over the terrain's middle 8 m, a random turn about y and a tilt up to 25 degrees, the
// lowest vertex between 4 cm into the terrain and 2 cm over it: about 2/3 of the poses
// collide). Per pose: set the pose, one detect call (heightmap: GPU passes and the read-back;
// FCL: collide()). Wall time per pose is collected inside the loop; median_ms is their median.
// FCL runs twice: all triangle pairs (like cpu) and a yes/no answer (one contact, like the
// paper's use). Batch: 100 bunnies resting 1-3 cm deep on the terrain, one detect call for all.
// Counters: median_ms, mean_ms, colliding_poses, and for heightmap gpu_ms (median of the
// detector's GL timestamp span), samples per call, served/unserved pairs.
// Run: isc_bench_heightmap [--benchmark_filter=...]
#include "Terrain.h"

#include "isc/detectors/CpuDetector.h"
#include "isc/detectors/HeightmapDetector.h"
#include "isc/gl/Context.h"
#include "isc/gl/Gl.h"

#include <benchmark/benchmark.h>
#include <fcl/fcl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <random>

namespace isc {
namespace {

std::optional<gl::Context> g_context;
constexpr int kPoses = 200;

struct Setup {
    scenes::Terrain terrain;
    std::shared_ptr<const Mesh> bunny;
    std::vector<Pose> poses;
    std::shared_ptr<fcl::BVHModel<fcl::OBBRSSd>> fclBunny, fclTerrain;

    static const Setup& get() {
        static const Setup s = [] {
            Setup out;
            auto field = scenes::makeBunnyField(1, 1);
            auto terrain = scenes::makeTerrain();
            if (!field || !terrain) {
                std::fprintf(stderr, "isc_bench_heightmap: %s\n",
                             (!field ? field.error() : terrain.error()).message.c_str());
                std::exit(1);
            }
            out.terrain = std::move(*terrain);
            out.bunny = field->bunny;
            std::mt19937 rng(20240611);
            std::uniform_real_distribution<float> xz(-4.0f, 4.0f), turn(0.0f, 6.2831853f), tilt(-0.436f, 0.436f),
                clearance(-0.04f, 0.02f);
            for (int i = 0; i < kPoses; ++i) {
                Pose p;
                p.position = Vec3(xz(rng), 2.0f, xz(rng));
                p.rotation = glm::angleAxis(tilt(rng), Vec3(1, 0, 0)) * glm::angleAxis(tilt(rng), Vec3(0, 0, 1)) *
                             glm::angleAxis(turn(rng), Vec3(0, 1, 0));
                float low = INFINITY;
                for (const Vec3& v : out.bunny->vertices()) {
                    const Vec3 w = p.apply(v);
                    low = std::min(low, w.y - out.terrain.heightAt(w.x, w.z));
                }
                p.position.y += clearance(rng) - low;
                out.poses.push_back(p);
            }
            auto model = [](const Mesh& m) {
                auto b = std::make_shared<fcl::BVHModel<fcl::OBBRSSd>>();
                std::vector<fcl::Vector3d> v;
                std::vector<fcl::Triangle> t;
                for (const Vec3& p : m.vertices()) v.emplace_back(p.x, p.y, p.z);
                for (const UVec3& f : m.triangles()) t.emplace_back(f.x, f.y, f.z);
                b->beginModel();
                b->addSubModel(v, t);
                b->endModel();
                return b;
            };
            out.fclBunny = model(*out.bunny);
            out.fclTerrain = model(*out.terrain.mesh);
            return out;
        }();
        return s;
    }
};

fcl::Transform3d toFcl(const Pose& p) {
    fcl::Transform3d tf = fcl::Transform3d::Identity();
    tf.linear() = fcl::Quaterniond(p.rotation.w, p.rotation.x, p.rotation.y, p.rotation.z).toRotationMatrix();
    tf.translation() = fcl::Vector3d(p.position.x, p.position.y, p.position.z);
    return tf;
}

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::nth_element(v.begin(), v.begin() + long(v.size() / 2), v.end());
    return v[v.size() / 2];
}

void report(benchmark::State& state, const std::vector<double>& ms, std::size_t colliding) {
    double sum = 0.0;
    for (double x : ms) sum += x;
    state.counters["median_ms"] = median(ms);
    state.counters["mean_ms"] = ms.empty() ? 0.0 : sum / double(ms.size());
    state.counters["colliding_poses"] = double(colliding);
}

std::unique_ptr<Detector> makeDetector(const std::string& name, int resolution) {
    if (name == "cpu") return std::make_unique<CpuDetector>();
    HeightmapSettings s;
    s.resolution = resolution;
    auto d = createHeightmapDetector({.wantSegments = false}, s);
    if (!d) {
        std::fprintf(stderr, "isc_bench_heightmap: %s\n", d.error().message.c_str());
        std::exit(1);
    }
    return std::move(*d);
}

// One bunny against the terrain, pose by pose.
void BM_Query(benchmark::State& state, const std::string& name, int resolution) {
    const Setup& s = Setup::get();
    Scene scene;
    const ObjectId t = scene.addObject(scene.addMesh(s.terrain.mesh));
    scene.setStatic(t, true);
    const ObjectId b = scene.addObject(scene.addMesh(s.bunny), s.poses[0]);
    const ObjectPair pair{t, b};
    auto detector = makeDetector(name, resolution);
    DetectionOutput out;
    if (!detector->detect(scene, std::span(&pair, 1), out)) state.SkipWithError("detect failed");
    if (glGetError() != GL_NO_ERROR) state.SkipWithError("GL error before the loop");
    std::vector<double> ms, gpu;
    std::size_t colliding = 0;
    double samples = 0.0, unserved = 0.0;
    for (auto _ : state) {
        colliding = 0;
        for (const Pose& p : s.poses) {
            scene.setPose(b, p);
            const auto t0 = std::chrono::steady_clock::now();
            if (!detector->detect(scene, std::span(&pair, 1), out)) state.SkipWithError("detect failed");
            ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
            gpu.push_back(out.stats.gpuMs);
            colliding += out.pairs.empty() ? 0 : 1;
            samples += out.stats.counter("samples");
            unserved += double(out.unserved.size());
        }
    }
    if (glGetError() != GL_NO_ERROR) state.SkipWithError("GL error after the loop");
    report(state, ms, colliding);
    if (name != "cpu") {
        state.counters["gpu_ms"] = median(gpu);
        state.counters["samples_per_query"] = samples / double(std::max<std::size_t>(1, ms.size()));
        state.counters["unserved_queries"] = unserved / double(std::max<std::int64_t>(1, state.iterations()));
    }
}

// FCL on the same poses: all triangle pairs (max contacts large, no contact data) or yes/no.
void BM_Fcl(benchmark::State& state, bool all) {
    const Setup& s = Setup::get();
    fcl::CollisionObjectd terrain(s.fclTerrain, fcl::Transform3d::Identity());
    std::vector<double> ms;
    std::size_t colliding = 0;
    for (auto _ : state) {
        colliding = 0;
        for (const Pose& p : s.poses) {
            const auto t0 = std::chrono::steady_clock::now();
            fcl::CollisionObjectd bunny(s.fclBunny, toFcl(p));
            fcl::CollisionRequestd request(all ? 1000000 : 1, false);
            fcl::CollisionResultd result;
            fcl::collide(&bunny, &terrain, request, result);
            ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
            colliding += result.isCollision() ? 1 : 0;
        }
    }
    report(state, ms, colliding);
}

// 100 bunnies 1-3 cm deep in the terrain, one call for all.
void BM_Field(benchmark::State& state, const std::string& name, int resolution) {
    auto field = scenes::makeBunnyField(100, 2);
    if (!field) {
        state.SkipWithError(field.error().message.c_str());
        return;
    }
    Scene scene;
    const ObjectId t = scene.addObject(scene.addMesh(field->terrain.mesh));
    scene.setStatic(t, true);
    const MeshId bm = scene.addMesh(field->bunny);
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> sink(0.01f, 0.03f);
    std::vector<ObjectPair> pairs;
    for (Pose p : field->poses) {
        p.position.y -= sink(rng);
        pairs.push_back({t, scene.addObject(bm, p)});
    }
    auto detector = makeDetector(name, resolution);
    DetectionOutput out;
    if (!detector->detect(scene, pairs, out)) state.SkipWithError("detect failed");
    std::vector<double> ms, gpu;
    for (auto _ : state) {
        const auto t0 = std::chrono::steady_clock::now();
        if (!detector->detect(scene, pairs, out)) state.SkipWithError("detect failed");
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        gpu.push_back(out.stats.gpuMs);
    }
    if (glGetError() != GL_NO_ERROR) state.SkipWithError("GL error after the loop");
    report(state, ms, out.pairs.size());
    state.counters["gpu_ms"] = median(gpu);
    state.counters["environment_triangles"] = double(field->terrain.mesh->triangleCount());
}

void registerAll() {
    auto add = [](const std::string& n, auto fn, int iterations) {
        benchmark::RegisterBenchmark(n.c_str(), fn)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(iterations);
    };
    add("query/heightmap_64", [](benchmark::State& s) { BM_Query(s, "heightmap", 64); }, 3);
    add("query/heightmap_128", [](benchmark::State& s) { BM_Query(s, "heightmap", 128); }, 3);
    add("query/cpu", [](benchmark::State& s) { BM_Query(s, "cpu", 0); }, 3);
    add("query/fcl_all_pairs", [](benchmark::State& s) { BM_Fcl(s, true); }, 3);
    add("query/fcl_yes_no", [](benchmark::State& s) { BM_Fcl(s, false); }, 3);
    add("field100/heightmap_64", [](benchmark::State& s) { BM_Field(s, "heightmap", 64); }, 20);
    add("field100/cpu", [](benchmark::State& s) { BM_Field(s, "cpu", 0); }, 20);
}

}  // namespace
}  // namespace isc

int main(int argc, char** argv) {
    auto ctx = isc::gl::Context::createHeadless();
    if (!ctx) {
        std::fprintf(stderr, "isc_bench_heightmap: no GL context: %s\n", ctx.error().message.c_str());
        return 1;
    }
    isc::g_context.emplace(std::move(*ctx));
    std::fprintf(stderr, "GL: %s\n", isc::g_context->info().renderer.c_str());
    isc::registerAll();
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    isc::g_context.reset();  // before static destruction (see bench/detectors/PeelBench.cpp)
    return 0;
}
