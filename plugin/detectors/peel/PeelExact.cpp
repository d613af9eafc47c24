#include "PeelExact.h"

#include "isc/geometry/TriangleTriangle.h"

#include <algorithm>
#include <chrono>
#include <numeric>

#include <omp.h>

namespace isc::peel {

namespace {
// Entries per unit of parallel work, and the least work worth a parallel region (a region
// costs a few microseconds of fork and join).
constexpr std::size_t kChunk = 256;
constexpr std::size_t kParallelFrom = 2048;
}  // namespace

void PeelExact::run(const Scene& scene, std::span<const ObjectPair> candidates,
                    std::span<const TrianglePairCandidate> found, bool wantSegments, DetectionOutput& out,
                    int threads) {
    const auto t0 = std::chrono::steady_clock::now();
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
    // Work items: each candidate's entries cut into chunks of at most kChunk (a pile has a few
    // dozen entries per candidate: one chunk each; one pair with thousands still spreads).
    items_.clear();
    for (std::size_t c = 0; c < nc; ++c)
        for (std::uint32_t b = start_[c]; b < start_[c + 1]; b += kChunk)
            items_.push_back({static_cast<std::uint32_t>(c), b,
                              std::min<std::uint32_t>(start_[c + 1], b + static_cast<std::uint32_t>(kChunk)), 0});
    hit_.assign(found.size(), 0);
    if (wantSegments) segments_.resize(found.size());
    const auto t1 = std::chrono::steady_clock::now();
    // One parallel loop, one join: each item sorts its entries, merges their duplicates (one
    // per axis and tile that found the pair, with rays) and tests what is left. No barrier in
    // between: a thread the OS parks for a while (a VM's vCPU, the GL driver's thread on the
    // same core) delays only its own items, not a phase of every thread.
    const auto count = static_cast<std::int64_t>(items_.size());
    const bool parallel = found.size() >= kParallelFrom;
    const int team = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 1) if (parallel) num_threads(team)
    for (std::int64_t k = 0; k < count; ++k) {
        Item& item = items_[std::size_t(k)];
        const auto b = sorted_.begin() + item.begin, e = sorted_.begin() + item.end;
        std::sort(b, e);
        item.tests = static_cast<std::uint32_t>(std::unique(b, e) - b);
        const ObjectPair pair = candidates[item.candidate];
        const Mesh& ma = scene.objectMesh(pair.a);
        const Mesh& mb = scene.objectMesh(pair.b);
        const std::span<const Vec3> va = scene.localVertices(pair.a), vb = scene.localVertices(pair.b);
        const Pose& pa = scene.pose(pair.a);
        const Pose& pb = scene.pose(pair.b);
        for (std::uint32_t i = item.begin; i < item.begin + item.tests; ++i) {
            const TrianglePair p = sorted_[i];
            const UVec3 fa = ma.triangles()[p.a];
            const UVec3 fb = mb.triangles()[p.b];
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
    const auto t2 = std::chrono::steady_clock::now();
    // Added to what the call has (a split call runs the test once per half).
    out.stats.count("exact_sort_ms",
                    out.stats.counter("exact_sort_ms") + std::chrono::duration<double, std::milli>(t1 - t0).count());
    out.stats.count("exact_test_ms",
                    out.stats.counter("exact_test_ms") + std::chrono::duration<double, std::milli>(t2 - t1).count());
    // The results, per candidate in candidate order. A candidate of one item is sorted and
    // unique already; one of several is merged here (sorted, and unique across its items).
    double tests = 0, positives = 0;
    std::size_t k = 0;
    for (std::size_t c = 0; c < nc; ++c) {
        const std::size_t first = k;
        std::size_t n = 0;
        for (; k < items_.size() && items_[k].candidate == c; ++k) {
            tests += double(items_[k].tests);
            for (std::uint32_t i = items_[k].begin; i < items_[k].begin + items_[k].tests; ++i) n += hit_[i];
        }
        if (n == 0) continue;
        PairResult& r = out.pairs.emplace_back();
        r.pair = candidates[c];
        r.triangles.reserve(n);
        if (wantSegments) r.segments.reserve(n);
        for (std::size_t j = first; j < k; ++j)
            for (std::uint32_t i = items_[j].begin; i < items_[j].begin + items_[j].tests; ++i) {
                if (!hit_[i]) continue;
                r.triangles.push_back(sorted_[i]);
                if (wantSegments) r.segments.push_back(segments_[i]);
            }
        if (k - first > 1) {
            order_.resize(r.triangles.size());
            std::iota(order_.begin(), order_.end(), 0u);
            std::stable_sort(order_.begin(), order_.end(),
                             [&](std::uint32_t x, std::uint32_t y) { return r.triangles[x] < r.triangles[y]; });
            std::vector<TrianglePair> tris;
            std::vector<Segment> segs;
            tris.reserve(order_.size());
            for (std::uint32_t x : order_) {
                if (!tris.empty() && tris.back() == r.triangles[x]) continue;  // found in two items
                tris.push_back(r.triangles[x]);
                if (wantSegments) segs.push_back(r.segments[x]);
            }
            r.triangles = std::move(tris);
            if (wantSegments) r.segments = std::move(segs);
        }
        positives += double(r.triangles.size());
    }
    out.stats.count("tri_tri_tests", out.stats.counter("tri_tri_tests") + tests);
    out.stats.count("positive_tests", out.stats.counter("positive_tests") + positives);
}

}  // namespace isc::peel
