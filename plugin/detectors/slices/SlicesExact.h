#pragma once
// The slices detector's exact step (papers/004 §5: "the collision volume can be used to clip
// polygons that are known to not collide"): per pair whose last rendering shared a voxel,
// the triangles of both objects whose boxes reach the collision volume, tested pairwise with
// the reference's exact triangle-triangle test on vertices transformed as the reference does
// (Pose::applyDouble). Parallel over pairs (OpenMP). Private to plugin/detectors/slices.
#include "isc/detect/Detector.h"

#include <span>
#include <vector>

namespace isc::detail {

class SlicesExact {
public:
    struct Query {
        ObjectId a = 0, b = 0;
        Aabb box;  ///< the collision volume, world
    };
    struct Found {
        std::vector<TrianglePair> triangles;  ///< sorted, unique
        std::vector<Segment> segments;        ///< when wantSegments
    };
    /// One Found per query (same order). Counters: exact_triangles (triangles inside the
    /// volumes), tri_tri_tests.
    void run(const Scene& scene, std::span<const Query> queries, bool wantSegments, std::vector<Found>& found,
             DetectorStats& stats);
};

}  // namespace isc::detail
