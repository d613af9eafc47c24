#pragma once
// The cullide detector's exact stage: the triangles left in the PCS after the triangle level
// go to the reference's triangle–triangle test (isc/geometry/TriangleTriangle.h) in double, on
// world vertices computed exactly as the reference computes them (Pose::applyDouble), so the
// pairs reported are the reference's own (precision 1). Per pair, each object's survivors
// are cut to the other's survivors' box and paired by sweep and prune over their world
// boxes (isc/geometry/SweepAndPrune.h); self pairs skip triangles that share a vertex.
// Parallel over pairs, then over all their exact tests in equal chunks (OpenMP). The GPU
// filter's listed pairs go to peel's PeelExact (grouped by pair, speculation during the wait:
// CullideDetector.cpp); runListed() here is the flat loop kept behind ISC_CULLIDE_FUSED=0.
// Private to plugin/detectors/cullide. No GL.
#include "isc/detect/Detector.h"

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
    void runListed(const Scene& scene, std::span<const ObjectPair> pairs, std::span<const std::uint32_t> tests,
                   bool wantSegments, DetectionOutput& out);

private:
    // World corners (3 per survivor) and float boxes (outward) of one survivor list.
    struct Posed {
        std::vector<DVec3> corners;
        std::vector<Aabb> boxes;
        Aabb all;
    };
    void pose(const Scene& scene, ObjectId o, std::span<const std::uint32_t> triangles, Posed& out) const;

    std::vector<Posed> posed_, posedSelf_;  // per object, reused across calls
};

}  // namespace isc::cullide
