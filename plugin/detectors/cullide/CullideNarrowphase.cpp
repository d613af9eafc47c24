#include "CullideNarrowphase.h"

#include "isc/geometry/SweepAndPrune.h"
#include "isc/geometry/TriangleTriangle.h"

#include <algorithm>
#include <chrono>
#include <cmath>

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
        for (std::size_t k = std::size_t(c) * kChunk; k < end; ++k) {
            DVec3 P[3], Q[3];
            corners(k, P, Q);
            if (!wantSegments) {
                hit[k] = geometry::trianglesIntersect(P, Q) ? 1 : 0;
                continue;
            }
            DVec3 p0(0.0), p1(0.0);
            if (geometry::triangleIntersection(P, Q, p0, p1) != geometry::TriangleContact::None) {
                hit[k] = 1;
                segment[k] = {Vec3(p0), Vec3(p1)};
            }
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
                            std::span<const std::uint32_t> tests, bool wantSegments, DetectionOutput& out) {
    using Clock = std::chrono::steady_clock;
    auto since = [](Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); };
    auto stage = Clock::now();
    const std::size_t total = tests.size() / 3;
    // Grouped by pair (counting sort: the GPU appends in no particular order).
    std::vector<std::uint32_t> first(pairs.size() + 1, 0);
    for (std::size_t t = 0; t < total; ++t) ++first[tests[3 * t] + 1];
    for (std::size_t i = 0; i < pairs.size(); ++i) first[i + 1] += first[i];
    std::vector<std::uint32_t> order(total), next(first.begin(), first.end() - 1);
    for (std::size_t t = 0; t < total; ++t) order[next[tests[3 * t]]++] = static_cast<std::uint32_t>(t);
    out.stats.count("cpu_narrow_sort_ms", out.stats.counter("cpu_narrow_sort_ms") + since(stage));
    stage = Clock::now();
    // The exact tests in equal chunks over all pairs, on world vertices computed exactly as the
    // reference computes them.
    std::vector<char> hit;
    std::vector<Segment> segment;
    testExactly(
        total, wantSegments,
        [&](std::size_t k, DVec3 (&P)[3], DVec3 (&Q)[3]) {
            const std::size_t t = order[k];
            const ObjectPair p = pairs[tests[3 * t]];
            // (A test lists the triangle of the lower object id first: filter.glsl.)
            const std::size_t flip = p.a > p.b ? 1 : 0;
            for (int side = 0; side < 2; ++side) {
                const ObjectId o = side == 0 ? p.a : p.b;
                const Pose& pose = scene.pose(o);
                const std::span<const Vec3> local = scene.localVertices(o);
                const UVec3 tri = scene.objectMesh(o).triangles()[tests[3 * t + 1 + (std::size_t(side) ^ flip)]];
                DVec3* W = side == 0 ? P : Q;
                for (int v = 0; v < 3; ++v) W[v] = pose.applyDouble(local[tri[v]]);
            }
        },
        hit, segment);
    out.stats.count("cpu_narrow_exact_ms", out.stats.counter("cpu_narrow_exact_ms") + since(stage));
    stage = Clock::now();
    std::vector<PairResult> results(pairs.size());
#pragma omp parallel for schedule(dynamic, 4)
    for (std::size_t pi = 0; pi < pairs.size(); ++pi) {
        PairResult& r = results[pi];
        r.pair = pairs[pi];
        std::vector<std::pair<TrianglePair, Segment>> found;
        for (std::uint32_t k = first[pi]; k < first[pi + 1]; ++k) {
            if (!hit[k]) continue;
            const std::size_t t = order[k];
            const bool flip = r.pair.a > r.pair.b;  // (the lower object's triangle is listed first)
            found.push_back({TrianglePair{tests[3 * t + (flip ? 2 : 1)], tests[3 * t + (flip ? 1 : 2)]},
                             wantSegments ? segment[k] : Segment{}});
        }
        std::sort(found.begin(), found.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
        for (const auto& [tp, sg] : found) {
            r.triangles.push_back(tp);
            if (wantSegments) r.segments.push_back(sg);
        }
    }
    double positives = 0;
    for (PairResult& r : results) {
        if (r.triangles.empty()) continue;
        positives += double(r.triangles.size());
        out.pairs.push_back(std::move(r));
    }
    out.stats.count("cpu_narrow_results_ms", out.stats.counter("cpu_narrow_results_ms") + since(stage));
    out.stats.count("tri_tri_tests", out.stats.counter("tri_tri_tests") + double(total));
    out.stats.count("positive_tests", out.stats.counter("positive_tests") + positives);
}

}  // namespace isc::cullide
