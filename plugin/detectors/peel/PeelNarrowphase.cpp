#include "PeelNarrowphase.h"

#include "isc/core/Assert.h"
#include "isc/geometry/TriangleTriangle.h"

#include <algorithm>
#include <limits>

namespace isc {

namespace {

struct Box {
    std::uint32_t triangle;
    std::uint16_t x0, y0, x1, y1;
    std::uint8_t side;
};

bool sharesVertex(const UVec3& a, const UVec3& b) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            if (a[i] == b[j]) return true;
    return false;
}

}  // namespace

void PeelNarrowphase::run(const Scene& scene, std::span<const ObjectPair> candidates, std::uint32_t ownerCount,
                          std::span<const gl::PeelRecord> records, std::span<const Work> work, bool wantSegments,
                          DetectionOutput& out) {
    // Records grouped by owner (counting sort), work grouped by candidate.
    std::vector<std::uint32_t> ownerStart(std::size_t(ownerCount) + 1, 0);
    for (const gl::PeelRecord& r : records) {
        ISC_ASSERT(r.tileSide < ownerCount, "PeelNarrowphase::run(): record owner out of range");
        ++ownerStart[r.tileSide + 1];
    }
    for (std::size_t i = 0; i < ownerCount; ++i) ownerStart[i + 1] += ownerStart[i];
    std::vector<Box> boxes(records.size());
    {
        std::vector<std::uint32_t> cursor(ownerStart.begin(), ownerStart.end() - 1);
        for (const gl::PeelRecord& r : records)
            boxes[cursor[r.tileSide]++] = {r.triangle,
                                           std::uint16_t(r.boxLo & 0xFFFF), std::uint16_t(r.boxLo >> 16),
                                           std::uint16_t(r.boxHi & 0xFFFF), std::uint16_t(r.boxHi >> 16), 0};
    }
    auto hasRecords = [&](std::uint32_t o) { return ownerStart[o + 1] > ownerStart[o]; };
    std::vector<std::vector<Work>> workOf(candidates.size());
    for (const Work& w : work)
        if (hasRecords(w.ownerA) && hasRecords(w.ownerB)) workOf[w.candidate].push_back(w);
    const auto& tilesOf = workOf;

    // World vertices (double, exactly as the reference) of every object with records.
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

    std::vector<PairResult> results(candidates.size());
    std::vector<std::uint64_t> potential(candidates.size(), 0), tests(candidates.size(), 0);
#pragma omp parallel for schedule(dynamic, 1)
    for (std::size_t c = 0; c < candidates.size(); ++c) {
        if (tilesOf[c].empty()) continue;
        const ObjectPair pair = candidates[c];
        const bool self = pair.a == pair.b;
        const std::span<const UVec3> triA = scene.objectMesh(pair.a).triangles();
        const std::span<const UVec3> triB = scene.objectMesh(pair.b).triangles();
        const std::vector<DVec3>& va = world_[pair.a];
        const std::vector<DVec3>& vb = world_[pair.b];
        // World box of a triangle (double, exact bounds of its corners).
        auto worldBox = [&](int side, std::uint32_t t, DVec3& lo, DVec3& hi) {
            const UVec3 f = side == 0 ? triA[t] : triB[t];
            const std::vector<DVec3>& v = side == 0 ? va : vb;
            lo = glm::min(v[f.x], glm::min(v[f.y], v[f.z]));
            hi = glm::max(v[f.x], glm::max(v[f.y], v[f.z]));
        };
        std::vector<TrianglePair> cand;
        std::vector<Box> sorted;
        std::vector<DVec3> lo, hi;
        std::vector<std::uint32_t> active[2];
        for (const Work& w : workOf[c]) {
            // A triangle of one object outside the other object's exact world box cannot
            // touch it: such records (many, when a tile holds whole objects) are dropped
            // before the sweep.
            sorted.clear();
            for (int side = 0; side < (self ? 1 : 2); ++side) {
                const std::uint32_t owner = side == 0 ? w.ownerA : w.ownerB;
                const auto& [olo, ohi] = bounds_[side == 0 ? pair.b : pair.a];
                for (std::uint32_t k = ownerStart[owner]; k < ownerStart[owner + 1]; ++k) {
                    Box b = boxes[k];
                    b.side = std::uint8_t(side);
                    if (!self) {
                        DVec3 tlo, thi;
                        worldBox(side, b.triangle, tlo, thi);
                        if (tlo.x > ohi.x || tlo.y > ohi.y || tlo.z > ohi.z || olo.x > thi.x || olo.y > thi.y ||
                            olo.z > thi.z)
                            continue;
                    }
                    sorted.push_back(b);
                }
            }
            std::sort(sorted.begin(), sorted.end(), [](const Box& x, const Box& y) { return x.x0 < y.x0; });
            lo.resize(sorted.size());
            hi.resize(sorted.size());
            for (std::size_t i = 0; i < sorted.size(); ++i) worldBox(sorted[i].side, sorted[i].triangle, lo[i], hi[i]);
            active[0].clear();
            active[1].clear();
            for (std::uint32_t i = 0; i < sorted.size(); ++i) {
                const Box& b = sorted[i];
                // Sweep in screen x against the other object's open boxes (self: the same list).
                std::vector<std::uint32_t>& others = active[self ? 0 : 1 - b.side];
                std::size_t keep = 0;
                for (std::size_t k = 0; k < others.size(); ++k) {
                    const std::uint32_t j = others[k];
                    const Box& o = sorted[j];
                    if (o.x1 < b.x0) continue;  // ends before b starts: leaves the sweep
                    others[keep++] = j;
                    if (o.y0 > b.y1 || b.y0 > o.y1) continue;
                    // Only boxes overlapping in screen x and y get the depth test (section 7),
                    // here on the triangles' exact world boxes (all three axes).
                    if (lo[i].x > hi[j].x || lo[j].x > hi[i].x || lo[i].y > hi[j].y || lo[j].y > hi[i].y ||
                        lo[i].z > hi[j].z || lo[j].z > hi[i].z)
                        continue;
                    std::uint32_t ta = b.side == 0 ? b.triangle : o.triangle;
                    std::uint32_t tb = b.side == 0 ? o.triangle : b.triangle;
                    if (self) {
                        ta = std::min(b.triangle, o.triangle);
                        tb = std::max(b.triangle, o.triangle);
                        if (ta == tb || sharesVertex(triA[ta], triA[tb])) continue;
                    }
                    cand.push_back({ta, tb});
                }
                others.resize(keep);
                active[self ? 0 : b.side].push_back(i);
            }
        }
        std::sort(cand.begin(), cand.end());
        cand.erase(std::unique(cand.begin(), cand.end()), cand.end());
        {
            std::vector<std::uint32_t> ua, ub;
            for (const TrianglePair& p : cand) {
                ua.push_back(p.a);
                (self ? ua : ub).push_back(p.b);
            }
            std::sort(ua.begin(), ua.end());
            std::sort(ub.begin(), ub.end());
            potential[c] = std::size_t(std::unique(ua.begin(), ua.end()) - ua.begin()) +
                           std::size_t(std::unique(ub.begin(), ub.end()) - ub.begin());
        }
        tests[c] = cand.size();
        PairResult& r = results[c];
        r.pair = pair;
        for (const TrianglePair& p : cand) {
            const UVec3 fa = triA[p.a], fb = triB[p.b];
            const DVec3 P[3] = {va[fa.x], va[fa.y], va[fa.z]};
            const DVec3 Q[3] = {vb[fb.x], vb[fb.y], vb[fb.z]};
            DVec3 p0, p1;
            if (geometry::triangleIntersection(P, Q, p0, p1) == geometry::TriangleContact::None) continue;
            r.triangles.push_back(p);
            if (wantSegments) r.segments.push_back({Vec3(p0), Vec3(p1)});
        }
    }
    double potentialSum = 0, testSum = 0, positives = 0;
    for (std::size_t c = 0; c < candidates.size(); ++c) {
        potentialSum += double(potential[c]);
        testSum += double(tests[c]);
        if (results[c].triangles.empty()) continue;
        positives += double(results[c].triangles.size());
        out.pairs.push_back(std::move(results[c]));
    }
    out.stats.count("potentially_colliding_triangles", potentialSum);
    out.stats.count("tri_tri_tests", testSum);
    out.stats.count("positive_tests", positives);
}

}  // namespace isc
