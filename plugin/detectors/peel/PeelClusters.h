#pragma once
// The peel detector's cluster trees (scene sampling's 3-D cull): per mesh, the top of its BVH
// (isc::geometry::Bvh over the local vertices) down to clusters of at most
// kMaxClusterTriangles triangles. Built once per mesh on the CPU and uploaded; the GPU refits
// the boxes from the world vertices each call (rigid and deforming meshes alike), walks the
// trees of each candidate pair against each other to the clusters, and tests the triangles of
// the cluster pairs it finds. Private to plugin/detectors/peel.
#include "isc/gl/Bindings.h"  // GLSL type aliases for the shared structs
#include "peel/bindings.h"

#include "isc/core/Types.h"

#include <cstdint>
#include <span>
#include <vector>

namespace isc {

class Mesh;
class Scene;

class PeelClusters {
public:
    /// Largest cluster (the triangle cull gives one 64-thread workgroup to a cluster pair:
    /// 32 threads per side).
    static constexpr std::uint32_t kMaxClusterTriangles = 32;

    /// Where one mesh's tree lives in nodes() and slots().
    struct MeshTree {
        std::uint32_t firstNode = 0;
        std::uint32_t nodeCount = 0;  ///< 0 for a mesh without triangles
        std::uint32_t firstSlot = 0;
        std::uint32_t clusterCount = 0;
        std::uint32_t height = 0;     ///< edges from the root to the deepest cluster
        float meanEdge = 0.0f;        ///< mean edge length of the mesh (local units)
    };

    /// The tree of one mesh: nodes (node 0 the root, children after their parent), slots (the
    /// mesh's triangles in cluster order: every node's triangles are one contiguous range).
    static MeshTree build(const Mesh& mesh, std::vector<gl::PeelClusterNode>& nodes,
                          std::vector<std::uint32_t>& slots);

    /// Builds the trees of the meshes of `scene` added since the last call (meshes never change
    /// once added). Returns true when it added any (the GPU copy must be uploaded again).
    bool update(const Scene& scene);

    const MeshTree& tree(MeshId mesh) const { return trees_[mesh]; }
    std::span<const gl::PeelClusterNode> nodes() const { return nodes_; }
    std::span<const std::uint32_t> slots() const { return slots_; }

private:
    std::vector<MeshTree> trees_;
    std::vector<gl::PeelClusterNode> nodes_;
    std::vector<std::uint32_t> slots_;
};

}  // namespace isc
