#include "CullideNarrowphase.h"

#include "isc/geometry/SweepAndPrune.h"
#include "isc/geometry/TriangleTriangle.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

namespace isc::cullide {

namespace {

// Outward rounding of a double bound to float (one float ulp of padding, as Bvh does).
inline float roundDown(double x) {
    const float f = static_cast<float>(x);
    return f - (std::fabs(f) * 0x1.0p-23f + 0x1.0p-126f);
}
inline float roundUp(double x) {
    const float f = static_cast<float>(x);
    return f + (std::fabs(f) * 0x1.0p-23f + 0x1.0p-126f);
}

// The exact decision on two world triangles (double, as the reference computes them): true
// when they touch, then `segment` where (wantSegments). runListed() and speculate() both call
// it, so a speculated result is the one the listed test would compute.
inline bool decide(const DVec3 (&P)[3], const DVec3 (&Q)[3], bool wantSegments, Segment& segment) {
    if (!wantSegments) return geometry::trianglesIntersect(P, Q);
    DVec3 p0(0.0), p1(0.0);
    if (geometry::triangleIntersection(P, Q, p0, p1) == geometry::TriangleContact::None) return false;
    segment = {Vec3(p0), Vec3(p1)};
    return true;
}

// Object o's triangle t in world space, exactly as geometry::PosedMesh computes it.
inline void worldTriangle(const Scene& scene, ObjectId o, std::uint32_t t, DVec3 (&W)[3]) {
    const Pose& pose = scene.pose(o);
    const std::span<const Vec3> local = scene.localVertices(o);
    const UVec3 tri = scene.objectMesh(o).triangles()[t];
    for (int v = 0; v < 3; ++v) W[v] = pose.applyDouble(local[tri[v]]);
}

// Pairs a speculating thread takes at a time: after the fence it finishes at most these
// (about 10 us).
constexpr std::uint32_t kSpeculateChunk = 16;

// The exact tests of `total` entries in chunks of 256 over all cores (one thread a chunk, no
// barrier): `corners(k, P, Q)` gives entry k's two triangles in world space (double, as the
// reference computes them); `hit[k]` says whether they touch, `segment[k]` where (wantSegments).
template <class Corners>
void testExactly(std::size_t total, bool wantSegments, const Corners& corners, std::vector<char>& hit,
                 std::vector<Segment>& segment) {
    hit.assign(total, 0);
    segment.assign(wantSegments ? total : 0, Segment{});
    constexpr std::ptrdiff_t kChunk = 256;
#pragma omp parallel for schedule(dynamic, 1)
    for (std::ptrdiff_t c = 0; c < std::ptrdiff_t((total + kChunk - 1) / kChunk); ++c) {
        const std::size_t end = std::min(total, std::size_t(c + 1) * kChunk);
        Segment none{};
        for (std::size_t k = std::size_t(c) * kChunk; k < end; ++k) {
            DVec3 P[3], Q[3];
            corners(k, P, Q);
            hit[k] = decide(P, Q, wantSegments, wantSegments ? segment[k] : none) ? 1 : 0;
        }
    }
}

}  // namespace

void Narrowphase::pose(const Scene& scene, ObjectId o, std::span<const std::uint32_t> triangles, Posed& out) const {
    const Pose& pose = scene.pose(o);
    const std::span<const Vec3> local = scene.localVertices(o);
    const std::span<const UVec3> tris = scene.objectMesh(o).triangles();
    out.corners.resize(3 * triangles.size());
    out.boxes.resize(triangles.size());
    out.all = Aabb{};
    for (std::size_t i = 0; i < triangles.size(); ++i) {
        const UVec3 t = tris[triangles[i]];
        DVec3 lo(INFINITY), hi(-INFINITY);
        for (int k = 0; k < 3; ++k) {
            // Exactly as geometry::PosedMesh computes world vertices.
            const DVec3 w = pose.applyDouble(local[t[k]]);
            out.corners[3 * i + std::size_t(k)] = w;
            lo = glm::min(lo, w);
            hi = glm::max(hi, w);
        }
        Aabb& b = out.boxes[i];
        b.min = Vec3(roundDown(lo.x), roundDown(lo.y), roundDown(lo.z));
        b.max = Vec3(roundUp(hi.x), roundUp(hi.y), roundUp(hi.z));
        out.all.grow(b);
    }
}

void Narrowphase::run(const Scene& scene, std::span<const Job> jobs,
                      std::span<const std::vector<std::uint32_t>> survivors,
                      std::span<const std::vector<std::uint32_t>> selfSurvivors, bool wantSegments,
                      DetectionOutput& out) {
    using Clock = std::chrono::steady_clock;
    auto since = [](Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); };
    auto stage = Clock::now();
    // World corners of every survivor list a job needs, once, in parallel.
    posed_.resize(scene.objectCount());
    posedSelf_.resize(scene.objectCount());
    std::vector<char> need(scene.objectCount(), 0);
    for (const Job& j : jobs) {
        if (j.pair.a == j.pair.b) need[j.pair.a] |= 2;
        else need[j.pair.a] |= 1, need[j.pair.b] |= 1;
    }
    std::vector<std::pair<ObjectId, int>> lists;
    for (ObjectId o = 0; o < scene.objectCount(); ++o) {
        if (need[o] & 1) lists.push_back({o, 1});
        if (need[o] & 2) lists.push_back({o, 2});
    }
#pragma omp parallel for schedule(dynamic, 2)
    for (std::size_t i = 0; i < lists.size(); ++i) {
        const auto [o, kind] = lists[i];
        if (kind == 1) pose(scene, o, survivors[o], posed_[o]);
        else pose(scene, o, selfSurvivors[o], posedSelf_[o]);
    }

    out.stats.count("cpu_narrow_pose_ms", since(stage));
    stage = Clock::now();
    // Candidate triangle pairs of every job (sweep and prune, parallel over jobs), then the
    // exact tests flattened over all jobs in equal chunks: a pile's pairs differ in size by
    // orders of magnitude, and one thread per pair would leave most cores waiting on the largest.
    struct Test {
        std::uint32_t i, j;  // survivor indices of the job's sides
    };
    std::vector<std::vector<Test>> jobTests(jobs.size());
#pragma omp parallel for schedule(dynamic, 1)
    for (std::size_t ji = 0; ji < jobs.size(); ++ji) {
        const ObjectPair p = jobs[ji].pair;
        const bool self = p.a == p.b;
        const Posed& A = self ? posedSelf_[p.a] : posed_[p.a];
        const Posed& B = self ? posedSelf_[p.b] : posed_[p.b];
        const std::span<const std::uint32_t> ta = self ? selfSurvivors[p.a] : survivors[p.a];
        const std::span<const std::uint32_t> tb = self ? selfSurvivors[p.b] : survivors[p.b];
        if (ta.empty() || tb.empty()) continue;
        // Each side cut to the other side's box (an object's survivors are those of all its
        // pairs: most lie elsewhere), in three rounds: A to B's box, B to what is left of A's,
        // A to what is left of B's (a box pair that overlaps survives every round). Then sweep
        // and prune over the world boxes.
        std::vector<std::uint32_t> ia0, ia, ib;
        std::vector<Aabb> ba, bb;
        Aabb cutA, cutB;
        for (std::uint32_t i = 0; i < ta.size(); ++i)
            if (A.boxes[i].overlaps(B.all)) ia0.push_back(i), cutA.grow(A.boxes[i]);
        for (std::uint32_t j = 0; j < tb.size(); ++j)
            if (B.boxes[j].overlaps(cutA)) ib.push_back(j), bb.push_back(B.boxes[j]), cutB.grow(B.boxes[j]);
        for (std::uint32_t i : ia0)
            if (A.boxes[i].overlaps(cutB)) ia.push_back(i), ba.push_back(A.boxes[i]);
        std::vector<TrianglePair> boxPairs;
        geometry::sweepAndPrune(ba, bb, boxPairs);
        const std::span<const UVec3> tris = scene.objectMesh(p.a).triangles();
        std::vector<Test>& tests = jobTests[ji];
        tests.reserve(boxPairs.size());
        for (const TrianglePair& bp : boxPairs) {
            const std::uint32_t i = ia[bp.a], j = ib[bp.b];
            if (self) {
                if (ta[i] >= tb[j]) continue;  // each unordered pair once, never a triangle with itself
                const UVec3 x = tris[ta[i]], y = tris[tb[j]];
                bool neighbours = false;
                for (int u = 0; u < 3; ++u)
                    for (int v = 0; v < 3; ++v) neighbours = neighbours || x[u] == y[v];
                if (neighbours) continue;  // share a vertex: they touch by construction (as the reference)
            }
            tests.push_back({i, j});
        }
    }
    out.stats.count("cpu_narrow_sap_ms", since(stage));
    stage = Clock::now();
    std::vector<std::size_t> first(jobs.size() + 1, 0);
    for (std::size_t ji = 0; ji < jobs.size(); ++ji) first[ji + 1] = first[ji] + jobTests[ji].size();
    const std::size_t total = first.back();
    std::vector<std::uint32_t> jobOf(total);
    for (std::size_t ji = 0; ji < jobs.size(); ++ji)
        std::fill(jobOf.begin() + std::ptrdiff_t(first[ji]), jobOf.begin() + std::ptrdiff_t(first[ji + 1]),
                  std::uint32_t(ji));
    std::vector<char> hit;
    std::vector<Segment> segment;
    testExactly(
        total, wantSegments,
        [&](std::size_t t, DVec3 (&P)[3], DVec3 (&Q)[3]) {
            const std::uint32_t ji = jobOf[t];
            const ObjectPair p = jobs[ji].pair;
            const bool self = p.a == p.b;
            const Posed& A = self ? posedSelf_[p.a] : posed_[p.a];
            const Posed& B = self ? posedSelf_[p.b] : posed_[p.b];
            const Test& x = jobTests[ji][t - first[ji]];
            std::copy_n(&A.corners[3 * std::size_t(x.i)], 3, P);
            std::copy_n(&B.corners[3 * std::size_t(x.j)], 3, Q);
        },
        hit, segment);

    out.stats.count("cpu_narrow_exact_ms", since(stage));
    stage = Clock::now();
    std::vector<PairResult> results(jobs.size());
    std::vector<double> tests(jobs.size(), 0.0);
#pragma omp parallel for schedule(dynamic, 4)
    for (std::size_t ji = 0; ji < jobs.size(); ++ji) {
        const ObjectPair p = jobs[ji].pair;
        PairResult& r = results[ji];
        r.pair = p;
        const bool self = p.a == p.b;
        const std::span<const std::uint32_t> ta = self ? selfSurvivors[p.a] : survivors[p.a];
        const std::span<const std::uint32_t> tb = self ? selfSurvivors[p.b] : survivors[p.b];
        tests[ji] = double(jobTests[ji].size());
        for (std::size_t t = first[ji]; t < first[ji + 1]; ++t) {
            if (!hit[t]) continue;
            const Test& x = jobTests[ji][t - first[ji]];
            r.triangles.push_back({ta[x.i], tb[x.j]});
            if (wantSegments) r.segments.push_back(segment[t]);
        }
        if (!r.segments.empty()) {
            // Sort both by triangle pair.
            std::vector<std::uint32_t> order(r.triangles.size());
            for (std::uint32_t k = 0; k < order.size(); ++k) order[k] = k;
            std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) { return r.triangles[x] < r.triangles[y]; });
            std::vector<TrianglePair> t(order.size());
            std::vector<Segment> s(order.size());
            for (std::size_t k = 0; k < order.size(); ++k) t[k] = r.triangles[order[k]], s[k] = r.segments[order[k]];
            r.triangles = std::move(t);
            r.segments = std::move(s);
        } else {
            std::sort(r.triangles.begin(), r.triangles.end());
        }
    }
    double testsAll = 0, positives = 0;
    for (std::size_t ji = 0; ji < jobs.size(); ++ji) {
        testsAll += tests[ji];
        if (results[ji].triangles.empty()) continue;
        positives += double(results[ji].triangles.size());
        out.pairs.push_back(std::move(results[ji]));
    }
    out.stats.count("cpu_narrow_results_ms", since(stage));
    out.stats.count("tri_tri_tests", testsAll);
    out.stats.count("positive_tests", positives);
}

void Narrowphase::runListed(const Scene& scene, std::span<const ObjectPair> pairs,
                            std::span<const std::uint32_t> tests, bool wantSegments, DetectionOutput& out,
                            bool keep) {
    using Clock = std::chrono::steady_clock;
    auto since = [](Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); };
    auto stage = Clock::now();
    const std::size_t total = tests.size() / 3;
    // Grouped by pair (counting sort: the GPU appends in no particular order).
    std::vector<std::uint32_t>& first = listedFirst_;
    first.assign(pairs.size() + 1, 0);
    for (std::size_t t = 0; t < total; ++t) ++first[tests[3 * t] + 1];
    for (std::size_t i = 0; i < pairs.size(); ++i) first[i + 1] += first[i];
    std::vector<std::uint32_t>& order = listedOrder_;
    order.resize(total);
    {
        std::vector<std::uint32_t> next(first.begin(), first.end() - 1);
        for (std::size_t t = 0; t < total; ++t) order[next[tests[3 * t]]++] = static_cast<std::uint32_t>(t);
    }
    // Speculation: each listed pair's group of the last call's intersecting pairs (none: UINT32_MAX).
    const bool reuse = !priorGroups_.empty() && priorSegmentsMade_ == wantSegments &&
                       speculated_.load(std::memory_order_relaxed) > 0;
    std::vector<std::uint32_t> priorOf(reuse ? pairs.size() : 0, UINT32_MAX);
    for (std::size_t pi = 0; pi < priorOf.size(); ++pi) {
        const auto g = std::lower_bound(priorGroups_.begin(), priorGroups_.end(), pairs[pi],
                                        [](const PriorGroup& x, const ObjectPair& y) { return x.pair < y; });
        if (g != priorGroups_.end() && g->pair == pairs[pi]) priorOf[pi] = std::uint32_t(g - priorGroups_.begin());
    }
    out.stats.count("cpu_narrow_sort_ms", out.stats.counter("cpu_narrow_sort_ms") + since(stage));
    stage = Clock::now();
    // One parallel region: the exact tests in equal chunks over all pairs, on world vertices
    // computed exactly as the reference computes them (or what speculate() found for the pair
    // with this call's vertices), then each pair's results (a region costs its fork and join).
    hit_.assign(total, 0);
    segments_.assign(wantSegments ? total : 0, Segment{});
    std::vector<PairResult> results(pairs.size());
    constexpr std::ptrdiff_t kChunk = 256;
    const std::ptrdiff_t chunks = std::ptrdiff_t((total + kChunk - 1) / kChunk);
    std::size_t reused = 0;
    double exactMs = 0.0;
#pragma omp parallel reduction(+ : reused)
    {
#pragma omp for schedule(dynamic, 1)
        for (std::ptrdiff_t c = 0; c < chunks; ++c) {
            const std::size_t end = std::min(total, std::size_t(c + 1) * kChunk);
            Segment none{};
            for (std::size_t k = std::size_t(c) * kChunk; k < end; ++k) {
                const std::size_t t = order[k];
                Segment& sg = wantSegments ? segments_[k] : none;
                if (reuse) {
                    const std::uint32_t g = priorOf[tests[3 * t]];
                    if (g != UINT32_MAX) {
                        const TrianglePair tp{tests[3 * t + 1], tests[3 * t + 2]};
                        const auto from = priorPairs_.begin() + std::ptrdiff_t(priorGroups_[g].begin);
                        const auto to = priorPairs_.begin() + std::ptrdiff_t(priorGroups_[g].end);
                        const auto it = std::lower_bound(from, to, tp);
                        if (it != to && *it == tp) {
                            const std::size_t i = std::size_t(it - priorPairs_.begin());
                            if (const std::uint8_t state = priorState_[i]; state != 0) {
                                hit_[k] = state == 2 ? 1 : 0;
                                if (state == 2 && wantSegments) sg = priorSegments_[i];
                                ++reused;
                                continue;
                            }
                        }
                    }
                }
                const ObjectPair p = pairs[tests[3 * t]];
                DVec3 P[3], Q[3];
                worldTriangle(scene, p.a, tests[3 * t + 1], P);
                worldTriangle(scene, p.b, tests[3 * t + 2], Q);
                hit_[k] = decide(P, Q, wantSegments, sg) ? 1 : 0;
            }
        }
#pragma omp master
        exactMs = since(stage);
        std::vector<std::pair<TrianglePair, Segment>> found;
#pragma omp for schedule(dynamic, 4)
        for (std::size_t pi = 0; pi < pairs.size(); ++pi) {
            PairResult& r = results[pi];
            r.pair = pairs[pi];
            found.clear();
            for (std::uint32_t k = first[pi]; k < first[pi + 1]; ++k) {
                if (!hit_[k]) continue;
                const std::size_t t = order[k];
                found.push_back({TrianglePair{tests[3 * t + 1], tests[3 * t + 2]}, wantSegments ? segments_[k] : Segment{}});
            }
            std::sort(found.begin(), found.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
            r.triangles.reserve(found.size());
            if (wantSegments) r.segments.reserve(found.size());
            for (const auto& [tp, sg] : found) {
                r.triangles.push_back(tp);
                if (wantSegments) r.segments.push_back(sg);
            }
        }
        if (keep) {
            // remember(), in parallel: each pair's intersecting triangle pairs copied to its place
            // (the groups sorted by object pair first, by one thread).
#pragma omp single
            {
                keptAt_.assign(pairs.size(), UINT32_MAX);
                keptGroup_.assign(pairs.size(), 0u);
                priorGroups_.clear();
                std::uint32_t at = 0;
                for (std::size_t pi = 0; pi < pairs.size(); ++pi) {
                    const auto n = static_cast<std::uint32_t>(results[pi].triangles.size());
                    if (n == 0 || pairs[pi].a == pairs[pi].b) continue;
                    keptAt_[pi] = at;
                    priorGroups_.push_back({pairs[pi], at, at + n});
                    at += n;
                }
                std::vector<std::uint32_t> index(priorGroups_.size());
                std::iota(index.begin(), index.end(), 0u);
                std::sort(index.begin(), index.end(),
                          [&](std::uint32_t x, std::uint32_t y) { return priorGroups_[x].pair < priorGroups_[y].pair; });
                std::vector<PriorGroup> sorted(priorGroups_.size());
                std::vector<std::uint32_t> rank(priorGroups_.size());
                for (std::uint32_t k = 0; k < index.size(); ++k) sorted[k] = priorGroups_[index[k]], rank[index[k]] = k;
                std::uint32_t g = 0;
                for (std::size_t pi = 0; pi < pairs.size(); ++pi)
                    if (keptAt_[pi] != UINT32_MAX) keptGroup_[pi] = rank[g++];
                priorGroups_ = std::move(sorted);
                priorPairs_.resize(at);
                priorGroupOf_.resize(at);
                priorState_.assign(at, 0);  // nothing speculated for the next call yet
            }
#pragma omp for schedule(dynamic, 8)
            for (std::size_t pi = 0; pi < pairs.size(); ++pi) {
                if (keptAt_[pi] == UINT32_MAX) continue;
                const std::vector<TrianglePair>& t = results[pi].triangles;  // sorted
                std::copy(t.begin(), t.end(), priorPairs_.begin() + keptAt_[pi]);
                std::fill_n(priorGroupOf_.begin() + keptAt_[pi], t.size(), keptGroup_[pi]);
            }
        }
    }
    out.stats.count("cpu_narrow_exact_ms", out.stats.counter("cpu_narrow_exact_ms") + exactMs);
    if (reuse) {
        out.stats.count("exact_reused", out.stats.counter("exact_reused") + double(reused));
        out.stats.count("exact_speculated",
                        out.stats.counter("exact_speculated") + double(speculated_.load(std::memory_order_relaxed)));
    }
    if (keep) speculated_.store(0, std::memory_order_relaxed);  // (a call that does not speculate reuses nothing)
    double positives = 0;
    for (PairResult& r : results) {
        if (r.triangles.empty()) continue;
        positives += double(r.triangles.size());
        out.pairs.push_back(std::move(r));
    }
    out.stats.count("cpu_narrow_results_ms", out.stats.counter("cpu_narrow_results_ms") + since(stage) - exactMs);
    out.stats.count("tri_tri_tests", out.stats.counter("tri_tri_tests") + double(total));
    out.stats.count("positive_tests", out.stats.counter("positive_tests") + positives);
}

void Narrowphase::beginCall(bool wantSegments) {
    priorSegmentsMade_ = wantSegments;
    priorState_.assign(priorPairs_.size(), 0);
    priorSegments_.resize(wantSegments ? priorPairs_.size() : 0);
    priorCursor_.store(0, std::memory_order_relaxed);
    speculated_.store(0, std::memory_order_relaxed);
}

void Narrowphase::speculate(const Scene& scene, const std::atomic<bool>& stop) {
    const bool wantSegments = priorSegmentsMade_;
    const auto total = static_cast<std::uint32_t>(priorPairs_.size());
    const std::size_t objects = scene.objectCount();
    std::uint32_t tested = 0;
    Segment none{};
    while (!stop.load(std::memory_order_relaxed)) {
        const std::uint32_t first = priorCursor_.fetch_add(kSpeculateChunk, std::memory_order_relaxed);
        if (first >= total) break;
        const std::uint32_t last = std::min(total, first + kSpeculateChunk);
        for (std::uint32_t i = first; i < last; ++i) {
            const ObjectPair p = priorGroups_[priorGroupOf_[i]].pair;
            if (p.a >= objects || p.b >= objects) continue;  // not this scene's: left untested
            const TrianglePair tp = priorPairs_[i];
            if (tp.a >= scene.objectMesh(p.a).triangleCount() || tp.b >= scene.objectMesh(p.b).triangleCount()) continue;
            DVec3 P[3], Q[3];
            worldTriangle(scene, p.a, tp.a, P);
            worldTriangle(scene, p.b, tp.b, Q);
            priorState_[i] = decide(P, Q, wantSegments, wantSegments ? priorSegments_[i] : none) ? 2 : 1;
            ++tested;
        }
    }
    speculated_.fetch_add(tested, std::memory_order_relaxed);
}

void Narrowphase::remember(std::span<const PairResult> pairs) {
    priorGroups_.clear();
    priorPairs_.clear();
    for (const PairResult& r : pairs) {
        if (r.triangles.empty() || r.pair.a == r.pair.b) continue;
        const auto begin = static_cast<std::uint32_t>(priorPairs_.size());
        priorPairs_.insert(priorPairs_.end(), r.triangles.begin(), r.triangles.end());
        if (!std::is_sorted(priorPairs_.begin() + begin, priorPairs_.end()))
            std::sort(priorPairs_.begin() + begin, priorPairs_.end());
        priorGroups_.push_back({r.pair, begin, static_cast<std::uint32_t>(priorPairs_.size())});
    }
    // runListed() looks groups up by object pair: the groups sorted, their pairs left in place.
    if (!std::is_sorted(priorGroups_.begin(), priorGroups_.end(),
                        [](const PriorGroup& x, const PriorGroup& y) { return x.pair < y.pair; }))
        std::sort(priorGroups_.begin(), priorGroups_.end(),
                  [](const PriorGroup& x, const PriorGroup& y) { return x.pair < y.pair; });
    priorGroupOf_.resize(priorPairs_.size());
    for (std::uint32_t g = 0; g < priorGroups_.size(); ++g)
        std::fill(priorGroupOf_.begin() + priorGroups_[g].begin, priorGroupOf_.begin() + priorGroups_[g].end, g);
    priorState_.assign(priorPairs_.size(), 0);  // nothing speculated for the next call yet
    speculated_.store(0, std::memory_order_relaxed);
}

}  // namespace isc::cullide
