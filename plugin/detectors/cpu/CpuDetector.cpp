#include "isc/detectors/CpuDetector.h"

#include "isc/detect/Registry.h"
#include "isc/geometry/Reference.h"

#include <algorithm>
#include <chrono>
#include <string>

namespace isc {

CpuDetector::CpuDetector(const DetectorSettings& settings) : settings_(settings) {}
CpuDetector::~CpuDetector() = default;

Result<void> CpuDetector::detect(const Scene& scene, std::span<const ObjectPair> candidates,
                                 DetectionOutput& out) {
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    out.clear();

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
    // Inactive objects (a removed body; a retired mesh's objects) give back their posed copy.
    for (ObjectId o = 0; o < scene.objectCount(); ++o)
        if (cache_[o].posed && !scene.isActive(o)) cache_[o] = {};
    for (ObjectId o : objects) {
        const Mesh& mesh = scene.objectMesh(o);
        if (!cache_[o].posed || cache_[o].mesh != &mesh) {
            cache_[o].posed = std::make_unique<geometry::PosedMesh>(mesh);
            cache_[o].mesh = &mesh;
        }
    }
#pragma omp parallel for schedule(dynamic, 4)
    for (std::size_t i = 0; i < objects.size(); ++i) {
        const ObjectId o = objects[i];
        cache_[o].posed->update(scene.pose(o),
                                scene.isDeformed(o) ? scene.localVertices(o) : std::span<const Vec3>{});
    }

    // Narrowphase per pair, in parallel; results kept in candidate order.
    std::vector<PairResult> results(candidates.size());
    std::vector<char> valid(candidates.size(), 0);
    const bool wantSegments = settings_.wantSegments;
#pragma omp parallel for schedule(dynamic, 1)
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const ObjectPair p = candidates[i];
        if (bad[p.a] || bad[p.b]) continue;
        PairResult& r = results[i];
        r.pair = p;
        if (p.a == p.b) {
            if (!settings_.selfCollision) continue;
            geometry::intersectSelf(*cache_[p.a].posed, r.triangles, wantSegments ? &r.segments : nullptr);
        } else {
            geometry::intersect(*cache_[p.a].posed, *cache_[p.b].posed, r.triangles,
                                wantSegments ? &r.segments : nullptr);
        }
        valid[i] = !r.triangles.empty();
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
