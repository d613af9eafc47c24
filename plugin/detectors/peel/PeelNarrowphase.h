#pragma once
// The peel detector's CPU narrowphase (papers/003 section 7): per candidate pair, sweep and
// prune over the screen boxes read back for each of its tiles (x, then y, then the
// triangles' exact world boxes), the union over axes, then the exact
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
    struct TileInfo {
        std::uint32_t candidate = 0;  ///< index into the call's candidates
        int axis = 2;                 ///< world axis sampled (0 x, 1 y, 2 z)
        Mat4 viewProj{1.0f};
    };
    /// Appends the colliding pairs (candidate order) to out.pairs and the counters
    /// potentially_colliding_triangles, tri_tri_tests, positive_tests to out.stats.
    void run(const Scene& scene, std::span<const ObjectPair> candidates, std::span<const TileInfo> tiles,
             std::span<const gl::PeelRecord> records, bool wantSegments, DetectionOutput& out);

private:
    std::vector<std::vector<DVec3>> world_;  // per object, reused across calls
};

}  // namespace isc
