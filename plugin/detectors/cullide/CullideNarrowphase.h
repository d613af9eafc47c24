#pragma once
// The cullide detector's exact stage: the triangles left in the PCS after the triangle level
// go to the reference's triangle–triangle test (isc/geometry/TriangleTriangle.h) in double, on
// world vertices computed exactly as the reference computes them (Pose::applyDouble), so the
// pairs reported are the reference's own (precision 1). Per pair, each object's survivors
// are cut to the other's survivors' box and paired by sweep and prune over their world
// boxes (isc/geometry/SweepAndPrune.h); self pairs skip triangles that share a vertex.
// Parallel over pairs, then over all their exact tests in equal chunks (OpenMP). Private to plugin/detectors/cullide. No GL.
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
    /// With speculation (beginCall() before, speculate() during the GPU wait), a listed pair that
    /// speculate() tested takes that result instead of being tested again (counters
    /// exact_speculated, exact_reused): the same test on the same doubles, so the same answer
    /// and segments; only listed pairs are reported.
    /// `keep`: also keeps the intersecting pairs found for the next call's speculate() (as
    /// remember() on them, inside the same parallel region: self pairs skipped).
    void runListed(const Scene& scene, std::span<const ObjectPair> pairs, std::span<const std::uint32_t> tests,
                   bool wantSegments, DetectionOutput& out, bool keep = false);

    /// Speculation (CullideSettings::speculate; as peel's PeelExact): a new call (new vertices
    /// or poses) forgets what speculate() tested in the last one; speculate() makes segments when
    /// `wantSegments`.
    void beginCall(bool wantSegments);
    /// Tests the pairs remember() kept, with `scene` as it is now; called by every thread of a
    /// team at once (16 pairs at a time) until all are tested or `stop` is set. Pairs whose
    /// objects or triangles `scene` does not have are skipped. Between beginCall() and runListed().
    void speculate(const Scene& scene, const std::atomic<bool>& stop);
    /// Keeps the call's intersecting pairs of two objects (self pairs are skipped) for the next
    /// call's speculate().
    void remember(std::span<const PairResult> pairs);
    /// Pairs remember() kept.
    std::size_t remembered() const { return priorPairs_.size(); }

private:
    // World corners (3 per survivor) and float boxes (outward) of one survivor list.
    struct Posed {
        std::vector<DVec3> corners;
        std::vector<Aabb> boxes;
        Aabb all;
    };
    void pose(const Scene& scene, ObjectId o, std::span<const std::uint32_t> triangles, Posed& out) const;

    std::vector<Posed> posed_, posedSelf_;  // per object, reused across calls
    // runListed()'s per-call arrays, kept (no allocation per call).
    std::vector<std::uint32_t> listedFirst_, listedOrder_, keptAt_, keptGroup_;
    std::vector<char> hit_;
    std::vector<Segment> segments_;
    // Speculation: the last call's intersecting pairs, grouped by object pair (groups sorted by
    // pair, triangle pairs sorted in each), and what speculate() found for each this call.
    struct PriorGroup {
        ObjectPair pair;
        std::uint32_t begin, end;  // in priorPairs_
    };
    std::vector<PriorGroup> priorGroups_;
    std::vector<TrianglePair> priorPairs_;
    std::vector<std::uint32_t> priorGroupOf_;  // per prior pair: its group
    std::vector<std::uint8_t> priorState_;     // 0 not tested this call, 1 apart, 2 intersecting
    std::vector<Segment> priorSegments_;
    std::atomic<std::uint32_t> priorCursor_{0};
    std::atomic<std::uint32_t> speculated_{0};
    bool priorSegmentsMade_ = false;
};

}  // namespace isc::cullide
