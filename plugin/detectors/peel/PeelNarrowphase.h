#pragma once
// The peel detector's CPU narrowphase (papers/003 section 7): per candidate pair, sweep and
// prune over the screen boxes read back for each of its work items (two record lists of one
// tile: the pair's two objects in that tile; x, then y, then the triangles' exact world
// boxes), the union over items (tiles, axes), then the exact
// triangle-triangle test of the reference (isc/geometry/TriangleTriangle.h) in double on
// vertices transformed exactly as the reference does (Pose::applyDouble). Parallel over
// pairs (OpenMP). Private to plugin/detectors/peel.
#include "isc/detect/Detector.h"

#include "isc/gl/Bindings.h"  // GLSL type aliases for the shared structs
#include "peel/bindings.h"

#include <span>
#include <vector>

namespace isc {

class PeelNarrowphase {
public:
    /// One sweep: the records of owner `ownerA` (triangles of candidates[candidate].a) against
    /// those of `ownerB` (of .b), both in the same tile's screen space; ownerA == ownerB for a
    /// self pair.
    struct Work {
        std::uint32_t candidate = 0;  ///< index into the call's candidates
        std::uint32_t ownerA = 0;     ///< PeelRecord::tileSide values (< ownerCount)
        std::uint32_t ownerB = 0;
    };
    /// Appends the colliding pairs (candidate order) to out.pairs and the counters
    /// potentially_colliding_triangles, tri_tri_tests, positive_tests to out.stats, and the
    /// time of its phases (np_group_ms, np_world_ms, np_sweep_ms, np_exact_ms, np_merge_ms).
    /// Sweeps run in parallel over pairs, the exact tests over chunks of triangle pairs.
    void run(const Scene& scene, std::span<const ObjectPair> candidates, std::uint32_t ownerCount,
             std::span<const gl::PeelRecord> records, std::span<const Work> work, bool wantSegments,
             DetectionOutput& out);

    /// A record in the sweep: triangle, its index in the owner-grouped records (its world box),
    /// screen box in tile pixels (inclusive), which object of the pair (0: a, 1: b).
    struct Box {
        std::uint32_t triangle;
        std::uint32_t index;
        std::uint16_t x0, y0, x1, y1;
        std::uint8_t side;
    };

private:
    // Candidate triangle pairs of one object pair, from its work items (sweep and prune).
    void sweepPair(const Scene& scene, ObjectPair pair, std::span<const Work> work,
                   std::span<const std::uint32_t> ownerStart, std::span<const Box> boxes, void* scratch,
                   std::vector<TrianglePair>& cand) const;

    std::vector<std::vector<DVec3>> world_;  // per object, reused across calls
    std::vector<std::pair<DVec3, DVec3>> bounds_;  // per object: exact world box of world_
    std::vector<Box> boxes_;                       // records grouped by owner
    std::vector<std::uint32_t> counts_;            // per chunk and owner: record counts, then cursors
    std::vector<DVec3> recordLo_, recordHi_;       // per record (boxes_ order): its triangle's world box
    std::vector<std::vector<TrianglePair>> cand_;  // per candidate: triangle pairs to test
    std::vector<std::uint8_t> hit_;                // per test: intersecting
    std::vector<Segment> segments_;                // per test: the intersection segment
};

}  // namespace isc
