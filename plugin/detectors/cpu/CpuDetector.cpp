#include "isc/detectors/CpuDetector.h"

#include "isc/detect/Registry.h"
#include "isc/geometry/Reference.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <omp.h>
#include <string>
#include <thread>
#include <utility>

namespace isc {

CpuDetector::CpuDetector(const DetectorSettings& settings) : settings_(settings) {
    if (const char* v = std::getenv("ISC_CPU_COPY_SHAPES")) copyShapes_ = std::string(v) != "0";
}
CpuDetector::~CpuDetector() = default;

Result<void> CpuDetector::detect(const Scene& scene, std::span<const ObjectPair> candidates,
                                 DetectionOutput& out) {
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    // The last call's pairs are freed by one thread of the team below while the others pose
    // (DetectionOutput::clearInto; 2026-11-29, eleventh session, as peel frees them during its GPU wait).
    out.clearInto(spent_);
    // runAlongside()'s work: exactly once, in the team below or, on any other way out, at return.
    std::function<void()> alongside = std::exchange(alongside_, {});
    struct RunLeft {
        std::function<void()>& work;
        ~RunLeft() {
            if (work) std::exchange(work, {})();
        }
    } runLeft{alongside};

    // Which objects take part, and which are unusable (warned once per call, skipped).
    std::vector<char> used(scene.objectCount(), 0);
    std::vector<char> bad(scene.objectCount(), 0);
    for (const ObjectPair& p : candidates) {
        if (p.a >= scene.objectCount() || p.b >= scene.objectCount())
            return fail("CpuDetector::detect(): candidate pair (" + std::to_string(p.a) + ", " +
                        std::to_string(p.b) + ") names an object the scene does not have");
        used[p.a] = used[p.b] = 1;
    }
    std::vector<ObjectId> objects;
    for (ObjectId o = 0; o < scene.objectCount(); ++o) {
        if (!used[o]) continue;
        if (!scene.pose(o).isFinite()) {
            bad[o] = 1;
            out.stats.warnings.push_back("object " + std::to_string(o) +
                                         " has a non-finite pose (NaN or Inf): skipped this step");
            continue;
        }
        objects.push_back(o);
    }

    // Pose every object taking part once (refit is O(n)), in parallel.
    if (cache_.size() < scene.objectCount()) cache_.resize(scene.objectCount());
    std::size_t built = 0;
    // Inactive objects (a removed body; a retired mesh's objects) give back their posed copy.
    for (ObjectId o = 0; o < scene.objectCount(); ++o)
        if (cache_[o].posed && !scene.isActive(o)) cache_[o] = {};
    // An object without a posed copy of its mesh (new, back after a call inactive: a body that
    // left every pair and met one again, or its mesh replaced) gets one copied from the mesh's
    // shape (PosedMesh::copyOf: the built topology copied), in the team below; the shapes a copy
    // needs are built first, in parallel. Before 2026-11-29 (twelfth session) each copy was built
    // here on one thread: 1.8 s on a 1000-bunny pile's first call on the H200 host, and again for
    // every body that came back into the pairs (with isc::bullet::CullideBroadphase, bodies that
    // lose all their pairs come back often); on the development machine that first call now
    // takes 32 ms instead of 1,272 (bench/results/llvmpipe-2026-11-29-cpu-shape-copies.txt).
    // Test hook ISC_CPU_COPY_SHAPES=0: each copy built, on one thread, as before.
    // One per mesh of this scene: a retired mesh's shape goes, and so do those of another scene
    // (a detector handed a scene with fewer meshes than the last one's, or other meshes).
    shapes_.resize(scene.meshCount());
    for (MeshId m = 0; m < shapes_.size(); ++m)
        if (shapes_[m].posed && shapes_[m].mesh != &scene.mesh(m)) shapes_[m] = {};
    std::vector<char> fresh(objects.size(), 0);
    std::vector<MeshId> newShapes;
    for (std::size_t i = 0; i < objects.size(); ++i) {
        const ObjectId o = objects[i];
        const Mesh& mesh = scene.objectMesh(o);
        if (cache_[o].posed && cache_[o].mesh == &mesh) continue;
        if (!copyShapes_) {
            cache_[o].posed = std::make_unique<geometry::PosedMesh>(mesh);
            cache_[o].mesh = &mesh;
            cache_[o].rigid = false;
            ++built;
            continue;
        }
        fresh[i] = 1;
        const MeshId m = scene.meshOf(o);
        if (!shapes_[m].posed && std::find(newShapes.begin(), newShapes.end(), m) == newShapes.end())
            newShapes.push_back(m);
    }
    if (!newShapes.empty()) {
        const auto count = static_cast<std::int64_t>(newShapes.size());
#pragma omp parallel for schedule(dynamic, 1) if (count > 1)
        for (std::int64_t k = 0; k < count; ++k) {
            const MeshId m = newShapes[std::size_t(k)];
            shapes_[m].posed = std::make_unique<geometry::PosedMesh>(scene.mesh(m));
            shapes_[m].mesh = &scene.mesh(m);
        }
        built += newShapes.size();
    }
    std::atomic<std::size_t> copied{0};
    // A rigid object at the pose of the last call is not posed again (a body at rest, the
    // ground, a second call in one step: the dispatcher's pairs the broadphase added late).
    auto samePose = [](const Pose& a, const Pose& b) {  // bit for bit (-0 is not 0, as posing sees it)
        const float fa[7] = {a.position.x, a.position.y, a.position.z, a.rotation.x, a.rotation.y, a.rotation.z, a.rotation.w};
        const float fb[7] = {b.position.x, b.position.y, b.position.z, b.rotation.x, b.rotation.y, b.rotation.z, b.rotation.w};
        return std::memcmp(fa, fb, sizeof fa) == 0;
    };
    auto pose = [&](std::size_t i) {
        const ObjectId o = objects[i];
        Cached& c = cache_[o];
        if (fresh[i]) {
            c.posed = std::make_unique<geometry::PosedMesh>(geometry::PosedMesh::copyOf(*shapes_[scene.meshOf(o)].posed));
            c.mesh = &scene.objectMesh(o);
            c.rigid = false;
            copied.fetch_add(1, std::memory_order_relaxed);
        }
        const bool deformed = scene.isDeformed(o);
        if (!deformed && c.rigid && samePose(c.pose, scene.pose(o))) return;
        c.posed->update(scene.pose(o), deformed ? scene.localVertices(o) : std::span<const Vec3>{});
        c.rigid = !deformed;
        c.pose = scene.pose(o);
    };

    // Narrowphase per pair, in parallel; results kept in candidate order.
    std::vector<PairResult> results(candidates.size());
    std::vector<char> valid(candidates.size(), 0);
    const bool wantSegments = settings_.wantSegments;
    auto test = [&](std::size_t i) {
        const ObjectPair p = candidates[i];
        if (bad[p.a] || bad[p.b]) return;
        PairResult& r = results[i];
        r.pair = p;
        if (p.a == p.b) {
            if (!settings_.selfCollision) return;
            geometry::intersectSelf(*cache_[p.a].posed, r.triangles, wantSegments ? &r.segments : nullptr);
        } else {
            geometry::intersect(*cache_[p.a].posed, *cache_[p.b].posed, r.triangles,
                                wantSegments ? &r.segments : nullptr);
        }
        valid[i] = !r.triangles.empty();
    };

    if (alongside && !candidates.empty()) {
        // The caller's work on this thread while the team's others start: objects and pairs are
        // handed out one by one (as schedule(dynamic) does), so this thread takes what is left
        // when its work is done, and no barrier waits for it between the two loops.
        const std::function<void()> work = std::exchange(alongside, {});
        std::atomic<std::size_t> nextObject{0}, posed{0}, nextPair{0};
        double workMs = 0.0;
#pragma omp parallel
        {
            if (omp_get_thread_num() == 0) {
                const auto tw = Clock::now();
                work();
                workMs = std::chrono::duration<double, std::milli>(Clock::now() - tw).count();
            }
            if (omp_get_thread_num() == omp_get_num_threads() - 1) spent_.clear();
            for (std::size_t i; (i = nextObject.fetch_add(1, std::memory_order_relaxed)) < objects.size();) {
                pose(i);
                posed.fetch_add(1, std::memory_order_release);
            }
            while (posed.load(std::memory_order_acquire) < objects.size()) std::this_thread::yield();
            for (std::size_t i; (i = nextPair.fetch_add(1, std::memory_order_relaxed)) < candidates.size();) test(i);
        }
        out.stats.count("alongside_ms", workMs);  // (in cpuMs and totalMs too)
    } else {
#pragma omp parallel
        {
#pragma omp single nowait
            spent_.clear();
#pragma omp for schedule(dynamic, 4)
            for (std::size_t i = 0; i < objects.size(); ++i) pose(i);
        }
#pragma omp parallel for schedule(dynamic, 1)
        for (std::size_t i = 0; i < candidates.size(); ++i) test(i);
    }
    std::size_t triPairs = 0;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        if (!valid[i]) continue;
        triPairs += results[i].triangles.size();
        out.pairs.push_back(std::move(results[i]));
    }

    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    out.stats.cpuMs = ms;
    out.stats.totalMs = ms;
    out.stats.count("candidate_pairs", double(candidates.size()));
    out.stats.count("colliding_pairs", double(out.pairs.size()));
    out.stats.count("triangle_pairs", double(triPairs));
    out.stats.count("posed_built", double(built));    // BVH topologies built this call (shapes, or copies with the hook)
    out.stats.count("posed_copied", double(copied));  // posed copies made from a shape this call
    return {};
}

namespace detectors {

DetectorInfo cpuInfo() {
    DetectorInfo d;
    d.name = "cpu";
    d.summary = "exact CPU reference: BVH + exact triangle-triangle tests (the oracle)";
    d.reportsTrianglePairs = true;
    d.settings = describeSettings<CpuSettings>();
    d.create = [](const DetectorSettings& common) -> Result<std::unique_ptr<Detector>> {
        CpuSettings settings;
        if (auto r = applyOptions(settings, common.options, "cpu"); !r) return fail(r.error().message);
        return std::unique_ptr<Detector>(std::make_unique<CpuDetector>(common));
    };
    return d;
}

}  // namespace detectors

}  // namespace isc
