#pragma once
// The cullide detector's exact stage: the triangles left in the PCS after the triangle level
// go to the reference's triangle–triangle test (isc/geometry/TriangleTriangle.h) in double, on
// world vertices computed exactly as the reference computes them (Pose::applyDouble), so the
// pairs reported are the reference's own (precision 1). Per pair, each object's survivors
// are cut to the other's survivors' box and paired by sweep and prune over their world
// boxes (isc/geometry/SweepAndPrune.h); self pairs skip triangles that share a vertex.
// Parallel over pairs, then over all their exact tests in equal chunks (OpenMP). The GPU
// filter's listed pairs (runListed) are grouped by pair and tested in one parallel region,
// taking the results of speculate(), which retests the last call's intersecting pairs while
// the GPU works (as peel's PeelExact). Private to plugin/detectors/cullide. No GL.
#include "isc/detect/Detector.h"

#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

namespace isc::cullide {

class Narrowphase {
public:
    /// One exact job: `pair` (a < b: the survivors of a against those of b; a == b: the self
    /// survivors of a among themselves).
    struct Job {
        ObjectPair pair;
    };
    /// `survivors[o]`: object o's triangles left for its pairs with other objects (sorted
    /// mesh triangle indices); `selfSurvivors[o]`: those left for its self pair. Appends the
    /// colliding pairs (job order) to out.pairs and the counters tri_tri_tests and
    /// positive_tests to out.stats.
    void run(const Scene& scene, std::span<const Job> jobs, std::span<const std::vector<std::uint32_t>> survivors,
             std::span<const std::vector<std::uint32_t>> selfSurvivors, bool wantSegments, DetectionOutput& out);

    /// The exact test of listed triangle pairs (the GPU filter's output): `tests` holds 3 words
    /// per test, (index into `pairs`, triangle of pairs[i].a, triangle of pairs[i].b), in any
    /// order and each pair of triangles once. Appends the colliding pairs (in `pairs` order,
    /// triangle pairs sorted) to out.pairs and counts tri_tri_tests and positive_tests.
    /// `fused` (the default since cullide-8): grouping by pair, then one parallel loop over
    /// chunks of at most 256 tests of one pair that sorts, tests (or takes what speculate()
    /// found) and fills the pair's result; false: the flat loop over all tests, then a second
    /// loop making the results (before cullide-8; no speculation).
    /// With `fused` and `remember`, the call's tests and which intersected are kept (swapped,
    /// not copied) for the next call's speculate().
    void runListed(const Scene& scene, std::span<const ObjectPair> pairs, std::span<const std::uint32_t> tests,
                   bool wantSegments, DetectionOutput& out, bool fused = true, bool remember = false);

    /// Speculation (cullide-8, as peel's PeelExact): the last call's intersecting triangle pairs
    /// are tested again with this call's vertices and poses while the GPU works; the fused
    /// runListed() takes those results for the listed pairs instead of testing them again (the
    /// same test on the same doubles: bit for bit the same answer and segments).
    /// beginCall(): a new call, nothing speculated yet (segments made when `wantSegments`).
    void beginCall(bool wantSegments);
    /// Tests the remembered intersecting pairs (the last runListed() with `remember`), `scene`
    /// as it is now; called by every thread of a team at once (16 entries at a time) until all
    /// are tested or `stop` is set. Pairs naming objects or triangles `scene` does not have are
    /// skipped.
    void speculate(const Scene& scene, const std::atomic<bool>& stop);
    /// Nothing remembered (a call that did not list its tests).
    void forget();

private:
    // World corners (3 per survivor) and float boxes (outward) of one survivor list.
    struct Posed {
        std::vector<DVec3> corners;
        std::vector<Aabb> boxes;
        Aabb all;
    };
    void pose(const Scene& scene, ObjectId o, std::span<const std::uint32_t> triangles, Posed& out) const;
    // runListed() before cullide-8 (fused = false).
    void runListedFlat(const Scene& scene, std::span<const ObjectPair> pairs, std::span<const std::uint32_t> tests,
                       bool wantSegments, DetectionOutput& out);

    std::vector<Posed> posed_, posedSelf_;  // per object, reused across calls

    // The fused runListed(): tests grouped by pair, chunks of one pair, per-test results.
    struct Item {
        std::uint32_t pair, begin, end;
        std::uint32_t reused;  // tests taken from speculate()
    };
    std::vector<std::uint32_t> start_, cursor_, slotOf_;
    std::vector<TrianglePair> sorted_;
    std::vector<Item> items_;
    std::vector<std::uint8_t> hit_;
    std::vector<Segment> segments_;
    // Speculation: the last remembered call's tests as runListed() left them (start_, sorted_,
    // hit_ swapped in: grouped by pair, each pair's tests sorted), its pairs and an index of
    // them sorted by pair, and what speculate() found this call per entry.
    std::vector<ObjectPair> priorPairs_;
    std::vector<std::uint32_t> priorIndex_;
    std::vector<std::uint32_t> priorStart_;
    std::vector<TrianglePair> priorSorted_;
    std::vector<std::uint8_t> priorHit_;
    std::vector<std::uint8_t> priorState_;  // 0 not tested this call, 1 apart, 2 intersecting
    std::vector<Segment> priorSegments_;
    std::atomic<std::uint32_t> priorCursor_{0};
    std::atomic<std::uint32_t> speculated_{0};
    bool priorSegmentsMade_ = false;
};

}  // namespace isc::cullide
