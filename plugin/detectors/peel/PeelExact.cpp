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
// Pairs a speculating thread takes at a time: after the fence it finishes at most these
// (about 10 us).
constexpr std::uint32_t kSpeculateChunk = 16;

// One object of a pair as the exact test reads it.
struct Side {
    const Mesh& mesh;
    std::span<const Vec3> vertices;
    const Pose& pose;
    Side(const Scene& scene, ObjectId o) : mesh(scene.objectMesh(o)), vertices(scene.localVertices(o)), pose(scene.pose(o)) {}
};

// The exact test of one pair, on vertices transformed exactly as the reference does
// (Pose::applyDouble); run() and speculate() both call this, so a speculated result is the one
// run() would compute. True when they intersect (then `segment` is set when wantSegments).
inline bool testPair(const Side& a, const Side& b, TrianglePair p, bool wantSegments, Segment& segment) {
    const UVec3 fa = a.mesh.triangles()[p.a];
    const UVec3 fb = b.mesh.triangles()[p.b];
    const auto& va = a.vertices;
    const auto& vb = b.vertices;
    const DVec3 P[3] = {a.pose.applyDouble(va[fa.x]), a.pose.applyDouble(va[fa.y]), a.pose.applyDouble(va[fa.z])};
    const DVec3 Q[3] = {b.pose.applyDouble(vb[fb.x]), b.pose.applyDouble(vb[fb.y]), b.pose.applyDouble(vb[fb.z])};
    if (!wantSegments) return geometry::trianglesIntersect(P, Q);  // the same decision, no segment
    DVec3 p0, p1;
    if (geometry::triangleIntersection(P, Q, p0, p1) == geometry::TriangleContact::None) return false;
    segment = {Vec3(p0), Vec3(p1)};
    return true;
}
}  // namespace

void PeelExact::beginCall(bool wantSegments) {
    priorSegmentsMade_ = wantSegments;
    priorState_.assign(priorPairs_.size(), 0);
    priorSegments_.resize(priorPairs_.size());
    priorCursor_.store(0, std::memory_order_relaxed);
    speculated_.store(0, std::memory_order_relaxed);
}

void PeelExact::speculate(const Scene& scene, const std::atomic<bool>& stop) {
    const bool wantSegments = priorSegmentsMade_;
    const auto total = static_cast<std::uint32_t>(priorPairs_.size());
    std::uint32_t tested = 0;
    while (!stop.load(std::memory_order_relaxed)) {
        const std::uint32_t first = priorCursor_.fetch_add(kSpeculateChunk, std::memory_order_relaxed);
        if (first >= total) break;
        const std::uint32_t last = std::min(total, first + kSpeculateChunk);
        for (std::uint32_t i = first; i < last;) {
            // The run of one object pair in this chunk.
            const PriorGroup& g = priorGroups_[priorPairs_[i].group];
            const std::uint32_t end = std::min(last, g.end);
            const std::size_t n = scene.objectCount();
            if (g.pair.a >= n || g.pair.b >= n) {  // not this scene's: left untested
                i = end;
                continue;
            }
            const Side a(scene, g.pair.a), b(scene, g.pair.b);
            const std::size_t ta = a.mesh.triangleCount(), tb = b.mesh.triangleCount();
            for (; i < end; ++i) {
                const TrianglePair p = priorPairs_[i].triangles;
                if (p.a >= ta || p.b >= tb) continue;
                priorState_[i] = testPair(a, b, p, wantSegments, priorSegments_[i]) ? 2 : 1;
                ++tested;
            }
        }
    }
    speculated_.fetch_add(tested, std::memory_order_relaxed);
}

void PeelExact::remember(std::span<const PairResult> pairs) {
    priorGroups_.clear();
    priorPairs_.clear();
    for (const PairResult& r : pairs) {
        if (r.triangles.empty()) continue;
        const auto g = static_cast<std::uint32_t>(priorGroups_.size());
        const auto begin = static_cast<std::uint32_t>(priorPairs_.size());
        for (const TrianglePair& t : r.triangles) priorPairs_.push_back({g, t});
        priorGroups_.push_back({r.pair, begin, static_cast<std::uint32_t>(priorPairs_.size())});
    }
    // run() looks groups up by object pair (a candidate order may list them in any order).
    if (!std::is_sorted(priorGroups_.begin(), priorGroups_.end(),
                        [](const PriorGroup& x, const PriorGroup& y) { return x.pair < y.pair; })) {
        std::vector<PriorGroup> groups = priorGroups_;
        std::sort(groups.begin(), groups.end(), [](const PriorGroup& x, const PriorGroup& y) { return x.pair < y.pair; });
        std::vector<PriorPair> moved(priorPairs_.size());
        std::uint32_t at = 0;
        for (std::uint32_t g = 0; g < groups.size(); ++g) {
            const std::uint32_t begin = at;
            for (std::uint32_t i = groups[g].begin; i < groups[g].end; ++i) moved[at++] = {g, priorPairs_[i].triangles};
            groups[g].begin = begin;
            groups[g].end = at;
        }
        priorGroups_ = std::move(groups);
        priorPairs_ = std::move(moved);
    }
    priorState_.assign(priorPairs_.size(), 0);  // nothing speculated for the next call yet
}

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
        cursor_.assign(start_.begin(), start_.end() - 1);
        for (const TrianglePairCandidate& f : found) {
            const ObjectPair p = candidates[f.candidate];
            sorted_[cursor_[f.candidate]++] = p.a <= p.b ? TrianglePair{f.low, f.high} : TrianglePair{f.high, f.low};
        }
    }
    // Work items: each candidate's entries cut into chunks of at most kChunk (a pile has a few
    // dozen entries per candidate: one chunk each; one pair with thousands still spreads).
    items_.clear();
    for (std::size_t c = 0; c < nc; ++c)
        for (std::uint32_t b = start_[c]; b < start_[c + 1]; b += kChunk)
            items_.push_back({static_cast<std::uint32_t>(c), b,
                              std::min<std::uint32_t>(start_[c + 1], b + static_cast<std::uint32_t>(kChunk)), 0, 0});
    hit_.assign(found.size(), 0);
    if (wantSegments) segments_.resize(found.size());
    // One result per candidate with entries, made here so that the loop's threads fill those of
    // one item (nearly all) in place; the empty ones are dropped after.
    const std::size_t base = out.pairs.size();
    slotOf_.resize(nc);
    out.pairs.reserve(base + nc);
    for (std::size_t c = 0; c < nc; ++c) {
        if (start_[c + 1] == start_[c]) continue;
        slotOf_[c] = static_cast<std::uint32_t>(out.pairs.size());
        out.pairs.emplace_back().pair = candidates[c];
    }
    const auto t1 = std::chrono::steady_clock::now();
    // One parallel loop, one join: each item sorts its entries, merges their duplicates (one
    // per axis and tile that found the pair, with rays) and tests what is left. No barrier in
    // between: a thread the OS parks for a while (a VM's vCPU, the GL driver's thread on the
    // same core) delays only its own items, not a phase of every thread.
    const auto count = static_cast<std::int64_t>(items_.size());
    const bool parallel = found.size() >= kParallelFrom;
    const int team = threads > 0 ? threads : omp_get_max_threads();
    // Speculated results are usable when made with segments where segments are wanted.
    const bool useSpeculation = !priorPairs_.empty() && priorState_.size() == priorPairs_.size() &&
                                (priorSegmentsMade_ || !wantSegments) &&
                                speculated_.load(std::memory_order_relaxed) > 0;
#pragma omp parallel for schedule(dynamic, 1) if (parallel) num_threads(team)
    for (std::int64_t k = 0; k < count; ++k) {
        Item& item = items_[std::size_t(k)];
        const auto first = sorted_.begin() + item.begin, last = sorted_.begin() + item.end;
        std::sort(first, last);
        item.tests = static_cast<std::uint32_t>(std::unique(first, last) - first);
        const ObjectPair pair = candidates[item.candidate];
        const Side sa(scene, pair.a), sb(scene, pair.b);
        // What speculate() tested of this object pair this call (sorted, as the entries are).
        const PriorPair *prior = nullptr, *priorEnd = nullptr;
        if (useSpeculation) {
            const auto g = std::lower_bound(priorGroups_.begin(), priorGroups_.end(), pair,
                                            [](const PriorGroup& x, const ObjectPair& y) { return x.pair < y; });
            if (g != priorGroups_.end() && g->pair == pair) {
                prior = priorPairs_.data() + g->begin;
                priorEnd = priorPairs_.data() + g->end;
            }
        }
        std::uint32_t reused = 0;
        for (std::uint32_t i = item.begin; i < item.begin + item.tests; ++i) {
            const TrianglePair p = sorted_[i];
            prior = std::lower_bound(prior, priorEnd, p,
                                     [](const PriorPair& x, const TrianglePair& y) { return x.triangles < y; });
            if (prior != priorEnd && prior->triangles == p) {
                const std::size_t at = std::size_t(prior - priorPairs_.data());
                if (const std::uint8_t state = priorState_[at]; state != 0) {
                    hit_[i] = state == 2 ? 1 : 0;
                    if (state == 2 && wantSegments) segments_[i] = priorSegments_[at];
                    ++reused;
                    continue;
                }
            }
            Segment segment;
            if (!testPair(sa, sb, p, wantSegments, segment)) continue;
            hit_[i] = 1;
            if (wantSegments) segments_[i] = segment;
        }
        item.reused = reused;
        if (item.end - item.begin == start_[item.candidate + 1] - start_[item.candidate]) {
            // The candidate's only item: its result, sorted and unique already.
            std::uint32_t n = 0;
            for (std::uint32_t i = item.begin; i < item.begin + item.tests; ++i) n += hit_[i];
            if (n == 0) continue;
            PairResult& r = out.pairs[slotOf_[item.candidate]];
            r.triangles.reserve(n);
            if (wantSegments) r.segments.reserve(n);
            for (std::uint32_t i = item.begin; i < item.begin + item.tests; ++i) {
                if (!hit_[i]) continue;
                r.triangles.push_back(sorted_[i]);
                if (wantSegments) r.segments.push_back(segments_[i]);
            }
        }
    }
    const auto t2 = std::chrono::steady_clock::now();
    // Added to what the call has (a split call runs the test once per half).
    out.stats.count("exact_sort_ms",
                    out.stats.counter("exact_sort_ms") + std::chrono::duration<double, std::milli>(t1 - t0).count());
    out.stats.count("exact_test_ms",
                    out.stats.counter("exact_test_ms") + std::chrono::duration<double, std::milli>(t2 - t1).count());
    // The results, per candidate in candidate order. A candidate of one item has its result
    // (sorted and unique) from the loop; one of several is merged here (sorted, and unique
    // across its items). Then the candidates without an intersecting pair are dropped.
    double tests = 0, positives = 0, reused = 0;
    std::size_t k = 0;
    for (std::size_t c = 0; c < nc; ++c) {
        const std::size_t first = k;
        for (; k < items_.size() && items_[k].candidate == c; ++k) {
            tests += double(items_[k].tests);
            reused += double(items_[k].reused);
        }
        if (k - first <= 1) continue;
        PairResult& r = out.pairs[slotOf_[c]];
        for (std::size_t j = first; j < k; ++j)
            for (std::uint32_t i = items_[j].begin; i < items_[j].begin + items_[j].tests; ++i) {
                if (!hit_[i]) continue;
                r.triangles.push_back(sorted_[i]);
                if (wantSegments) r.segments.push_back(segments_[i]);
            }
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
    out.pairs.erase(std::remove_if(out.pairs.begin() + std::ptrdiff_t(base), out.pairs.end(),
                                   [](const PairResult& r) { return r.triangles.empty(); }),
                    out.pairs.end());
    for (std::size_t i = base; i < out.pairs.size(); ++i) positives += double(out.pairs[i].triangles.size());
    out.stats.count("tri_tri_tests", out.stats.counter("tri_tri_tests") + tests);
    out.stats.count("positive_tests", out.stats.counter("positive_tests") + positives);
    out.stats.count("exact_reused", out.stats.counter("exact_reused") + reused);
    out.stats.count("exact_speculated", double(speculated_.load(std::memory_order_relaxed)));
}

}  // namespace isc::peel
