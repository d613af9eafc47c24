#pragma once
// The cinder detector's exact check: per edge hit (an edge of one object found inside or near
// the other's volume), the triangles of the other object whose boxes the edge's segment
// reaches (its BVH, in its local frame) against the edge's two faces, tested with the
// reference's exact triangle test (through peel's PeelExact); pairs that only the mip-map
// read-back names (no edges read back) get the whole exact reference. Private to plugin/detectors/cinder.
#include "isc/detect/Detector.h"
#include "isc/geometry/Reference.h"

#include "../peel/PeelExact.h"

#include <glm/glm.hpp>

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace isc::cinder {

/// One edge of a mesh: its two vertices and the (up to) two triangles that share it.
using MeshEdge = glm::uvec4;

/// The unique edges of a mesh, each with the triangles beside it (the second equals the first
/// for a boundary edge).
std::vector<MeshEdge> meshEdges(const Mesh& mesh);

/// One edge hit after read-back: candidate pair, which of its objects owns the edge, the edge.
struct EdgeHit {
    std::uint32_t candidate;
    std::uint32_t side;  // 0: the edge is candidates[candidate].a's, 1: .b's
    std::uint32_t edge;
    bool operator<(const EdgeHit& o) const {
        return candidate != o.candidate ? candidate < o.candidate : side != o.side ? side < o.side : edge < o.edge;
    }
    bool operator==(const EdgeHit& o) const = default;
};

class CinderExact {
public:
    /// Tests the triangle pairs the edge hits name and, for `fullPairs` (indices into
    /// candidates), the whole pair; appends the intersecting pairs to out.pairs (sorted
    /// triangles; segments when `wantSegments`). `edges[m]` are mesh m's edges (MeshId order).
    /// Counters: tri_tri_tests, positive_tests, full_exact_pairs.
    void run(const Scene& scene, std::span<const ObjectPair> candidates, std::vector<EdgeHit>& hits,
             std::span<const std::uint32_t> fullPairs, std::span<const std::vector<MeshEdge>> edges, bool wantSegments,
             DetectionOutput& out);

private:
    const geometry::PosedMesh& posed(const Scene& scene, ObjectId o);

    std::vector<std::unique_ptr<geometry::PosedMesh>> posed_;  // per object, rebuilt when its mesh changes
    std::vector<const Mesh*> posedMesh_;
    std::vector<std::uint64_t> posedStamp_;  // the run() that last posed each object
    std::uint64_t generation_ = 0;
    peel::PeelExact exact_;
    std::vector<peel::TrianglePairCandidate> found_;
    std::vector<std::vector<peel::TrianglePairCandidate>> threadFound_;  // per OpenMP thread
    std::vector<EdgeHit> sorted_;  // the hits by candidate (reused)
};

}  // namespace isc::cinder
