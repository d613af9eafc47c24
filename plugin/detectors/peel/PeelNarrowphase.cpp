#include "PeelNarrowphase.h"

#include "isc/core/Assert.h"
#include "isc/geometry/TriangleTriangle.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>

#include <omp.h>

namespace isc {

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// Exact tests per unit of parallel work.
constexpr std::size_t kTestChunk = 256;

bool sharesVertex(const UVec3& a, const UVec3& b) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            if (a[i] == b[j]) return true;
    return false;
}

// Per-thread buffers of the sweep, kept across pairs and calls (no allocation per pair).
struct Scratch {
    std::vector<PeelNarrowphase::Box> list;  // the records of one work item, side 0 first
    std::vector<std::uint32_t> cellStart, cellItems, cursor;  // the grid of one sweep
    std::vector<std::uint32_t> ua, ub;
    std::uint64_t swept = 0, visits = 0;  // records entering sweeps, active-list visits
};
Scratch& scratch() {
    thread_local Scratch s;
    return s;
}

}  // namespace

void PeelNarrowphase::sweepPair(const Scene& scene, ObjectPair pair, std::span<const Work> work,
                                std::span<const std::uint32_t> ownerStart, std::span<const Box> boxes, void* scratchPtr,
                                std::vector<TrianglePair>& cand) const {
    Scratch& sc = *static_cast<Scratch*>(scratchPtr);
    const bool self = pair.a == pair.b;
    const std::span<const UVec3> triA = scene.objectMesh(pair.a).triangles();
    std::vector<Box>& sorted = sc.list;
    for (const Work& w : work) {
        // A triangle of one object outside the other object's exact world box cannot touch
        // it: such records (many, when a tile holds whole objects) are dropped before the
        // sweep. Boxes keep their record index (world box in recordLo_/recordHi_).
        sorted.clear();
        for (int side = 0; side < (self ? 1 : 2); ++side) {
            const std::uint32_t owner = side == 0 ? w.ownerA : w.ownerB;
            const auto& [olo, ohi] = bounds_[side == 0 ? pair.b : pair.a];
            for (std::uint32_t k = ownerStart[owner]; k < ownerStart[owner + 1]; ++k) {
                const DVec3& tlo = recordLo_[k];
                const DVec3& thi = recordHi_[k];
                if (!self && (tlo.x > ohi.x || tlo.y > ohi.y || tlo.z > ohi.z || olo.x > thi.x || olo.y > thi.y ||
                              olo.z > thi.z))
                    continue;
                ++sc.swept;
                Box b = boxes[k];
                b.side = std::uint8_t(side);
                b.index = k;
                sorted.push_back(b);
            }
        }
        // Pairs whose screen boxes overlap (section 7's sweep in x and y) and whose
        // triangles' exact world boxes overlap (the depth test, on all three axes). In a
        // dense pile most screen-overlapping boxes are far apart in depth, so the pairs are
        // found through a uniform grid over the world boxes of the other object's records
        // (self: all), and the screen overlap is checked for each: the same pairs as a
        // screen-space sweep followed by the world test, with far fewer visits. A pair is
        // reported only in the first cell both boxes cover (the cell of the componentwise
        // max of their lower corners), so each is met once.
        const std::vector<DVec3>& lo = recordLo_;
        const std::vector<DVec3>& hi = recordHi_;
        std::uint32_t nA = 0;
        while (nA < sorted.size() && sorted[nA].side == 0) ++nA;
        const std::uint32_t gridFirst = self ? 0 : nA;
        const auto nGrid = static_cast<std::uint32_t>(sorted.size()) - gridFirst;
        if (nGrid == 0 || (!self && nA == 0)) continue;
        DVec3 g0(std::numeric_limits<double>::max()), g1(-std::numeric_limits<double>::max());
        double extent = 0.0;
        for (std::uint32_t j = gridFirst; j < sorted.size(); ++j) {
            const std::uint32_t r = sorted[j].index;
            g0 = glm::min(g0, lo[r]);
            g1 = glm::max(g1, hi[r]);
            const DVec3 e = hi[r] - lo[r];
            extent += std::max(e.x, std::max(e.y, e.z));
        }
        // Cells about as large as a triangle, at most about one per box.
        const DVec3 size = g1 - g0;
        const double volume = std::max(size.x, 1e-12) * std::max(size.y, 1e-12) * std::max(size.z, 1e-12);
        double cell = std::max(extent / nGrid, std::cbrt(volume / nGrid));
        if (!(cell > 0.0)) cell = 1.0;
        const double inv = 1.0 / cell;
        int dims[3];
        for (int a = 0; a < 3; ++a) dims[a] = std::clamp(int(size[a] * inv) + 1, 1, 1024);
        auto cellOf = [&](double v, int a) { return std::clamp(int((v - g0[a]) * inv), 0, dims[a] - 1); };
        sc.cellStart.assign(std::size_t(dims[0]) * dims[1] * dims[2] + 1, 0);
        auto cellIndex = [&](int x, int y, int z) { return (std::size_t(z) * dims[1] + y) * dims[0] + x; };
        for (int pass = 0; pass < 2; ++pass) {
            if (pass == 1) {
                for (std::size_t k = 0; k + 1 < sc.cellStart.size(); ++k) sc.cellStart[k + 1] += sc.cellStart[k];
                sc.cellItems.resize(sc.cellStart.back());
                sc.cursor.assign(sc.cellStart.begin(), sc.cellStart.end() - 1);
            }
            for (std::uint32_t j = gridFirst; j < sorted.size(); ++j) {
                const std::uint32_t r = sorted[j].index;
                const int x0 = cellOf(lo[r].x, 0), x1 = cellOf(hi[r].x, 0), y0 = cellOf(lo[r].y, 1),
                          y1 = cellOf(hi[r].y, 1), z0 = cellOf(lo[r].z, 2), z1 = cellOf(hi[r].z, 2);
                for (int z = z0; z <= z1; ++z)
                    for (int y = y0; y <= y1; ++y)
                        for (int x = x0; x <= x1; ++x) {
                            if (pass == 0) ++sc.cellStart[cellIndex(x, y, z) + 1];
                            else sc.cellItems[sc.cursor[cellIndex(x, y, z)]++] = j;
                        }
            }
        }
        const std::uint32_t queryEnd = self ? static_cast<std::uint32_t>(sorted.size()) : nA;
        for (std::uint32_t i = 0; i < queryEnd; ++i) {
            const Box& b = sorted[i];
            const DVec3& bl = lo[b.index];
            const DVec3& bh = hi[b.index];
            if (bl.x > g1.x || bl.y > g1.y || bl.z > g1.z || bh.x < g0.x || bh.y < g0.y || bh.z < g0.z) continue;
            const int x0 = cellOf(bl.x, 0), x1 = cellOf(bh.x, 0), y0 = cellOf(bl.y, 1), y1 = cellOf(bh.y, 1),
                      z0 = cellOf(bl.z, 2), z1 = cellOf(bh.z, 2);
            for (int z = z0; z <= z1; ++z)
                for (int y = y0; y <= y1; ++y)
                    for (int x = x0; x <= x1; ++x) {
                        const std::size_t c = cellIndex(x, y, z);
                        sc.visits += sc.cellStart[c + 1] - sc.cellStart[c];
                        for (std::uint32_t k = sc.cellStart[c]; k < sc.cellStart[c + 1]; ++k) {
                            const std::uint32_t j = sc.cellItems[k];
                            if (self && j <= i) continue;
                            const Box& o = sorted[j];
                            const DVec3& ol = lo[o.index];
                            const DVec3& oh = hi[o.index];
                            if (bl.x > oh.x || ol.x > bh.x || bl.y > oh.y || ol.y > bh.y || bl.z > oh.z || ol.z > bh.z)
                                continue;
                            // First common cell only.
                            if (cellOf(std::max(bl.x, ol.x), 0) != x || cellOf(std::max(bl.y, ol.y), 1) != y ||
                                cellOf(std::max(bl.z, ol.z), 2) != z)
                                continue;
                            if (o.x1 < b.x0 || b.x1 < o.x0 || o.y1 < b.y0 || b.y1 < o.y0) continue;  // screen
                            std::uint32_t ta = b.triangle, tb = o.triangle;
                            if (self) {
                                ta = std::min(b.triangle, o.triangle);
                                tb = std::max(b.triangle, o.triangle);
                                if (ta == tb || sharesVertex(triA[ta], triA[tb])) continue;
                            }
                            cand.push_back({ta, tb});
                        }
                    }
        }
    }
}

void PeelNarrowphase::run(const Scene& scene, std::span<const ObjectPair> candidates, std::uint32_t ownerCount,
                          std::span<const gl::PeelRecord> records, std::span<const Work> work, bool wantSegments,
                          DetectionOutput& out) {
    // Records grouped by owner (counting sort), work grouped by candidate.
    const auto tg = Clock::now();
    // Parallel counting sort: per-thread histograms over contiguous chunks, so each owner's
    // records keep the read-back order (as a serial sort would).
    std::vector<std::uint32_t> ownerStart(std::size_t(ownerCount) + 1, 0);
    boxes_.resize(records.size());
    const int chunks = std::max(1, std::min(omp_get_max_threads(), int(records.size() / 4096) + 1));
    counts_.assign(std::size_t(chunks) * ownerCount, 0);
    const std::size_t per = (records.size() + std::size_t(chunks) - 1) / std::size_t(chunks);
#pragma omp parallel for schedule(static, 1)
    for (int t = 0; t < chunks; ++t) {
        std::uint32_t* h = counts_.data() + std::size_t(t) * ownerCount;
        for (std::size_t i = std::size_t(t) * per; i < std::min(records.size(), std::size_t(t + 1) * per); ++i) {
            ISC_ASSERT(records[i].tileSide < ownerCount, "PeelNarrowphase::run(): record owner out of range");
            ++h[records[i].tileSide];
        }
    }
    {
        std::uint32_t sum = 0;
        for (std::uint32_t o = 0; o < ownerCount; ++o) {
            ownerStart[o] = sum;
            for (int t = 0; t < chunks; ++t) {
                std::uint32_t& c = counts_[std::size_t(t) * ownerCount + o];
                const std::uint32_t n = c;
                c = sum;  // now the chunk's cursor for this owner
                sum += n;
            }
        }
        ownerStart[ownerCount] = sum;
    }
#pragma omp parallel for schedule(static, 1)
    for (int t = 0; t < chunks; ++t) {
        std::uint32_t* cursor = counts_.data() + std::size_t(t) * ownerCount;
        for (std::size_t i = std::size_t(t) * per; i < std::min(records.size(), std::size_t(t + 1) * per); ++i) {
            const gl::PeelRecord& r = records[i];
            boxes_[cursor[r.tileSide]++] = {r.triangle,
                                            0,
                                            std::uint16_t(r.boxLo & 0xFFFF),
                                            std::uint16_t(r.boxLo >> 16),
                                            std::uint16_t(r.boxHi & 0xFFFF),
                                            std::uint16_t(r.boxHi >> 16),
                                            0};
        }
    }
    const std::span<const Box> boxes = boxes_;
    auto hasRecords = [&](std::uint32_t o) { return ownerStart[o + 1] > ownerStart[o]; };
    std::vector<std::vector<Work>> tilesOf(candidates.size());
    for (const Work& w : work)
        if (hasRecords(w.ownerA) && hasRecords(w.ownerB)) tilesOf[w.candidate].push_back(w);
    // Object of each owner that some work item sweeps (kNoObject: none).
    constexpr ObjectId kNoObject = std::numeric_limits<ObjectId>::max();
    std::vector<ObjectId> ownerObject(ownerCount, kNoObject);
    for (std::size_t c = 0; c < candidates.size(); ++c)
        for (const Work& w : tilesOf[c]) {
            ownerObject[w.ownerA] = candidates[c].a;
            ownerObject[w.ownerB] = candidates[c].b;
        }
    const double groupMs = msSince(tg);

    // World vertices (double, exactly as the reference) of every object with records.
    const auto tw = Clock::now();
    if (world_.size() < scene.objectCount()) world_.resize(scene.objectCount());
    if (bounds_.size() < scene.objectCount()) bounds_.resize(scene.objectCount());
    std::vector<ObjectId> objects;
    {
        std::vector<char> used(scene.objectCount(), 0);
        for (std::size_t c = 0; c < candidates.size(); ++c)
            if (!tilesOf[c].empty()) used[candidates[c].a] = used[candidates[c].b] = 1;
        for (ObjectId o = 0; o < scene.objectCount(); ++o)
            if (used[o]) objects.push_back(o);
    }
#pragma omp parallel for schedule(dynamic, 4)
    for (std::size_t i = 0; i < objects.size(); ++i) {
        const ObjectId o = objects[i];
        const Pose& pose = scene.pose(o);
        const std::span<const Vec3> local = scene.localVertices(o);
        world_[o].resize(local.size());
        DVec3 lo(std::numeric_limits<double>::max()), hi(-std::numeric_limits<double>::max());
        for (std::size_t v = 0; v < local.size(); ++v) {
            world_[o][v] = pose.applyDouble(local[v]);
            lo = glm::min(lo, world_[o][v]);
            hi = glm::max(hi, world_[o][v]);
        }
        bounds_[o] = {lo, hi};
    }
    // World box of every record's triangle (double, exact bounds of its corners), once per
    // record: a record takes part in the sweeps of several pairs.
    recordLo_.resize(boxes.size());
    recordHi_.resize(boxes.size());
#pragma omp parallel for schedule(static)
    for (std::size_t o = 0; o < ownerObject.size(); ++o) {
        const ObjectId object = ownerObject[o];
        if (object == kNoObject || world_[object].empty()) continue;
        const std::span<const UVec3> tri = scene.objectMesh(object).triangles();
        const std::vector<DVec3>& v = world_[object];
        for (std::uint32_t k = ownerStart[o]; k < ownerStart[o + 1]; ++k) {
            const UVec3 f = tri[boxes_[k].triangle];
            recordLo_[k] = glm::min(v[f.x], glm::min(v[f.y], v[f.z]));
            recordHi_[k] = glm::max(v[f.x], glm::max(v[f.y], v[f.z]));
        }
    }
    const double worldMs = msSince(tw);

    // Sweep and prune per candidate pair (parallel over pairs): triangle-pair candidates,
    // appended per pair into one flat list afterwards, so that the exact tests (most of the
    // work) are spread over the threads evenly, not by pair.
    const auto ts = Clock::now();
    if (cand_.size() < candidates.size()) cand_.resize(candidates.size());
    std::vector<std::uint64_t> potential(candidates.size(), 0);
    double swept = 0, visits = 0;
    // Pairs with work, largest first (records to sweep): the few big pairs of a pile start
    // early instead of ending the parallel loop alone.
    std::vector<std::pair<std::uint64_t, std::uint32_t>> order;
    for (std::size_t c = 0; c < candidates.size(); ++c) {
        cand_[c].clear();
        if (tilesOf[c].empty()) continue;
        std::uint64_t size = 0;
        for (const Work& w : tilesOf[c])
            size += std::uint64_t(ownerStart[w.ownerA + 1] - ownerStart[w.ownerA]) +
                    (ownerStart[w.ownerB + 1] - ownerStart[w.ownerB]);
        order.push_back({size, static_cast<std::uint32_t>(c)});
    }
    std::sort(order.begin(), order.end(), std::greater<>());
#pragma omp parallel reduction(+ : swept, visits)
    {
        Scratch& sc = scratch();
        sc.swept = sc.visits = 0;
#pragma omp for schedule(dynamic, 1) nowait
        for (std::size_t n = 0; n < order.size(); ++n) {
            const std::size_t c = order[n].second;
            std::vector<TrianglePair>& cand = cand_[c];
            sweepPair(scene, candidates[c], tilesOf[c], ownerStart, boxes, &sc, cand);
            std::sort(cand.begin(), cand.end());
            cand.erase(std::unique(cand.begin(), cand.end()), cand.end());
            // Distinct triangles in some candidate pair (Table 1's "potentially colliding").
            const bool self = candidates[c].a == candidates[c].b;
            sc.ua.clear();
            sc.ub.clear();
            for (const TrianglePair& p : cand) {
                sc.ua.push_back(p.a);
                (self ? sc.ua : sc.ub).push_back(p.b);
            }
            std::sort(sc.ua.begin(), sc.ua.end());
            std::sort(sc.ub.begin(), sc.ub.end());
            potential[c] = std::size_t(std::unique(sc.ua.begin(), sc.ua.end()) - sc.ua.begin()) +
                           std::size_t(std::unique(sc.ub.begin(), sc.ub.end()) - sc.ub.begin());
        }
        swept += double(sc.swept);
        visits += double(sc.visits);
    }
    out.stats.count("np_swept_records", swept);
    out.stats.count("np_sweep_visits", visits);
    std::vector<std::size_t> first(candidates.size() + 1, 0);
    for (std::size_t c = 0; c < candidates.size(); ++c) first[c + 1] = first[c] + cand_[c].size();
    const std::size_t total = first.back();
    const double sweepMs = msSince(ts);

    // Exact tests (parallel over triangle pairs, static chunks: each test costs about the same).
    const auto te = Clock::now();
    hit_.assign(total, 0);
    if (wantSegments) segments_.resize(total);
    const auto testChunks = static_cast<std::int64_t>((total + kTestChunk - 1) / kTestChunk);
#pragma omp parallel for schedule(dynamic, 1)
    for (std::int64_t k = 0; k < testChunks; ++k) {
        // Candidate of the chunk's first test, then walk forward.
        std::size_t i = std::size_t(k) * kTestChunk;
        const std::size_t e = std::min(total, i + kTestChunk);
        std::size_t c = std::size_t(std::upper_bound(first.begin(), first.end(), i) - first.begin()) - 1;
        for (; i < e; ++i) {
            while (first[c + 1] <= i) ++c;
            const ObjectPair pair = candidates[c];
            const TrianglePair p = cand_[c][i - first[c]];
            const UVec3 fa = scene.objectMesh(pair.a).triangles()[p.a];
            const UVec3 fb = scene.objectMesh(pair.b).triangles()[p.b];
            const std::vector<DVec3>& va = world_[pair.a];
            const std::vector<DVec3>& vb = world_[pair.b];
            const DVec3 P[3] = {va[fa.x], va[fa.y], va[fa.z]};
            const DVec3 Q[3] = {vb[fb.x], vb[fb.y], vb[fb.z]};
            DVec3 p0, p1;
            if (geometry::triangleIntersection(P, Q, p0, p1) == geometry::TriangleContact::None) continue;
            hit_[i] = 1;
            if (wantSegments) segments_[i] = {Vec3(p0), Vec3(p1)};
        }
    }
    const double exactMs = msSince(te);

    // Output in candidate order.
    const auto tm = Clock::now();
    double potentialSum = 0, positives = 0;
    for (std::size_t c = 0; c < candidates.size(); ++c) {
        potentialSum += double(potential[c]);
        std::size_t n = 0;
        for (std::size_t i = first[c]; i < first[c + 1]; ++i) n += hit_[i];
        if (n == 0) continue;
        positives += double(n);
        PairResult& r = out.pairs.emplace_back();
        r.pair = candidates[c];
        r.triangles.reserve(n);
        if (wantSegments) r.segments.reserve(n);
        for (std::size_t i = first[c]; i < first[c + 1]; ++i) {
            if (!hit_[i]) continue;
            r.triangles.push_back(cand_[c][i - first[c]]);
            if (wantSegments) r.segments.push_back(segments_[i]);
        }
    }
    out.stats.count("potentially_colliding_triangles", potentialSum);
    out.stats.count("tri_tri_tests", double(total));
    out.stats.count("positive_tests", positives);
    out.stats.count("np_group_ms", groupMs);
    out.stats.count("np_world_ms", worldMs);
    out.stats.count("np_sweep_ms", sweepMs);
    out.stats.count("np_exact_ms", exactMs);
    out.stats.count("np_merge_ms", msSince(tm));
}

}  // namespace isc
