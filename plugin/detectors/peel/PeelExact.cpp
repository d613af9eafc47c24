#include "PeelExact.h"

#include "isc/geometry/TriangleTriangle.h"

#include <algorithm>

namespace isc::peel {

namespace {
// Exact tests per unit of parallel work, and the least work worth a parallel region (a
// region costs a few microseconds of fork and join).
constexpr std::size_t kChunk = 256;
constexpr std::size_t kParallelFrom = 2048;
}  // namespace

void PeelExact::run(const Scene& scene, std::span<const ObjectPair> candidates,
                    std::span<const TrianglePairCandidate> found, bool wantSegments, DetectionOutput& out) {
    // Group by candidate (counting sort), as (triangle of a, triangle of b).
    const std::size_t nc = candidates.size();
    start_.assign(nc + 1, 0);
    for (const TrianglePairCandidate& f : found) ++start_[f.candidate + 1];
    for (std::size_t c = 0; c < nc; ++c) start_[c + 1] += start_[c];
    sorted_.resize(found.size());
    {
        std::vector<std::uint32_t> cursor(start_.begin(), start_.end() - 1);
        for (const TrianglePairCandidate& f : found) {
            const ObjectPair p = candidates[f.candidate];
            sorted_[cursor[f.candidate]++] = p.a <= p.b ? TrianglePair{f.low, f.high} : TrianglePair{f.high, f.low};
        }
    }
    // Sort and merge duplicates per candidate (parallel over candidates), compacting in place.
    std::vector<std::uint32_t> unique(nc, 0);
#pragma omp parallel for schedule(dynamic, 8) if (found.size() >= kParallelFrom)
    for (std::size_t c = 0; c < nc; ++c) {
        auto b = sorted_.begin() + start_[c], e = sorted_.begin() + start_[c + 1];
        std::sort(b, e);
        unique[c] = static_cast<std::uint32_t>(std::unique(b, e) - b);
    }
    // Tests: entries [start_[c], start_[c] + unique[c]).
    std::vector<std::uint32_t> firstTest(nc + 1, 0);
    for (std::size_t c = 0; c < nc; ++c) firstTest[c + 1] = firstTest[c] + unique[c];
    const std::size_t total = firstTest[nc];
    hit_.assign(total, 0);
    if (wantSegments) segments_.resize(total);
    const auto chunks = static_cast<std::int64_t>((total + kChunk - 1) / kChunk);
#pragma omp parallel for schedule(dynamic, 1) if (total >= kParallelFrom)
    for (std::int64_t k = 0; k < chunks; ++k) {
        std::size_t i = std::size_t(k) * kChunk;
        const std::size_t e = std::min(total, i + kChunk);
        std::size_t c = std::size_t(std::upper_bound(firstTest.begin(), firstTest.end(), std::uint32_t(i)) -
                                    firstTest.begin()) - 1;
        for (; i < e; ++i) {
            while (firstTest[c + 1] <= i) ++c;
            const ObjectPair pair = candidates[c];
            const TrianglePair p = sorted_[start_[c] + (i - firstTest[c])];
            const UVec3 fa = scene.objectMesh(pair.a).triangles()[p.a];
            const UVec3 fb = scene.objectMesh(pair.b).triangles()[p.b];
            const std::span<const Vec3> va = scene.localVertices(pair.a), vb = scene.localVertices(pair.b);
            const Pose& pa = scene.pose(pair.a);
            const Pose& pb = scene.pose(pair.b);
            const DVec3 P[3] = {pa.applyDouble(va[fa.x]), pa.applyDouble(va[fa.y]), pa.applyDouble(va[fa.z])};
            const DVec3 Q[3] = {pb.applyDouble(vb[fb.x]), pb.applyDouble(vb[fb.y]), pb.applyDouble(vb[fb.z])};
            DVec3 p0, p1;
            if (geometry::triangleIntersection(P, Q, p0, p1) == geometry::TriangleContact::None) continue;
            hit_[i] = 1;
            if (wantSegments) segments_[i] = {Vec3(p0), Vec3(p1)};
        }
    }
    double positives = 0;
    for (std::size_t c = 0; c < nc; ++c) {
        std::size_t n = 0;
        for (std::size_t i = firstTest[c]; i < firstTest[c + 1]; ++i) n += hit_[i];
        if (n == 0) continue;
        positives += double(n);
        PairResult& r = out.pairs.emplace_back();
        r.pair = candidates[c];
        r.triangles.reserve(n);
        if (wantSegments) r.segments.reserve(n);
        for (std::size_t i = firstTest[c]; i < firstTest[c + 1]; ++i) {
            if (!hit_[i]) continue;
            r.triangles.push_back(sorted_[start_[c] + (i - firstTest[c])]);
            if (wantSegments) r.segments.push_back(segments_[i]);
        }
    }
    out.stats.count("tri_tri_tests", double(total));
    out.stats.count("positive_tests", positives);
}

}  // namespace isc::peel
