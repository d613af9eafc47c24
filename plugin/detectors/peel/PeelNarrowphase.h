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
#include "peel_bindings.h"

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
    /// potentially_colliding_triangles, tri_tri_tests, positive_tests to out.stats.
    void run(const Scene& scene, std::span<const ObjectPair> candidates, std::uint32_t ownerCount,
             std::span<const gl::PeelRecord> records, std::span<const Work> work, bool wantSegments,
             DetectionOutput& out);

private:
    std::vector<std::vector<DVec3>> world_;  // per object, reused across calls
    std::vector<std::pair<DVec3, DVec3>> bounds_;  // per object: exact world box of world_
};

}  // namespace isc
