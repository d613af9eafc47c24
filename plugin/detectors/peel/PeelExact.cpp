#include "PeelExact.h"

#include "isc/geometry/TriangleTriangle.h"

#include <algorithm>
#include <chrono>

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
    // One parallel region (one wake-up of the thread team): sort and merge duplicates per
    // candidate, compacting in place; number the tests; test (static-size chunks: each test
    // costs about the same).
    const auto t0 = std::chrono::steady_clock::now();
    auto t1 = t0;
    unique_.assign(nc, 0);
    firstTest_.assign(nc + 1, 0);
    std::size_t total = 0;
    const bool parallel = found.size() >= kParallelFrom;
#pragma omp parallel if (parallel)
    {
#pragma omp for schedule(dynamic, 8)
        for (std::size_t c = 0; c < nc; ++c) {
            auto b = sorted_.begin() + start_[c], e = sorted_.begin() + start_[c + 1];
            std::sort(b, e);
            unique_[c] = static_cast<std::uint32_t>(std::unique(b, e) - b);
        }
#pragma omp single
        {
            // Tests: entries [start_[c], start_[c] + unique_[c]).
            for (std::size_t c = 0; c < nc; ++c) firstTest_[c + 1] = firstTest_[c] + unique_[c];
            total = firstTest_[nc];
            hit_.assign(total, 0);
            if (wantSegments) segments_.resize(total);
            t1 = std::chrono::steady_clock::now();
        }
        const auto chunks = static_cast<std::int64_t>((total + kChunk - 1) / kChunk);
#pragma omp for schedule(dynamic, 1)
        for (std::int64_t k = 0; k < chunks; ++k) {
            std::size_t i = std::size_t(k) * kChunk;
            const std::size_t e = std::min(total, i + kChunk);
            std::size_t c = std::size_t(std::upper_bound(firstTest_.begin(), firstTest_.end(), std::uint32_t(i)) -
                                        firstTest_.begin()) - 1;
            for (; i < e; ++i) {
                while (firstTest_[c + 1] <= i) ++c;
                const ObjectPair pair = candidates[c];
                const TrianglePair p = sorted_[start_[c] + (i - firstTest_[c])];
                const UVec3 fa = scene.objectMesh(pair.a).triangles()[p.a];
                const UVec3 fb = scene.objectMesh(pair.b).triangles()[p.b];
                const std::span<const Vec3> va = scene.localVertices(pair.a), vb = scene.localVertices(pair.b);
                const Pose& pa = scene.pose(pair.a);
                const Pose& pb = scene.pose(pair.b);
                const DVec3 P[3] = {pa.applyDouble(va[fa.x]), pa.applyDouble(va[fa.y]), pa.applyDouble(va[fa.z])};
                const DVec3 Q[3] = {pb.applyDouble(vb[fb.x]), pb.applyDouble(vb[fb.y]), pb.applyDouble(vb[fb.z])};
                if (!wantSegments) {  // the same decision, without the segment's construction
                    hit_[i] = geometry::trianglesIntersect(P, Q) ? 1 : 0;
                    continue;
                }
                DVec3 p0, p1;
                if (geometry::triangleIntersection(P, Q, p0, p1) == geometry::TriangleContact::None) continue;
                hit_[i] = 1;
                segments_[i] = {Vec3(p0), Vec3(p1)};
            }
        }
    }
    const auto t2 = std::chrono::steady_clock::now();
    out.stats.count("exact_sort_ms", std::chrono::duration<double, std::milli>(t1 - t0).count());
    out.stats.count("exact_test_ms", std::chrono::duration<double, std::milli>(t2 - t1).count());
    const std::vector<std::uint32_t>& firstTest = firstTest_;
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
