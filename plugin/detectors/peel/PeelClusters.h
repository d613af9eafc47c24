#pragma once
// The peel detector's cluster trees (scene sampling's 3-D cull): per mesh, the top of its BVH
// (isc::geometry::Bvh over the local vertices) down to clusters of at most
// kMaxClusterTriangles triangles. Built once per mesh on the CPU and uploaded; each call the
// boxes are refitted (rigid and deforming meshes alike: by the GPU, or by refit() on the CPU),
// then the GPU walks the trees of each candidate pair against each other to the clusters and
// tests the triangles of the cluster pairs it finds. Private to plugin/detectors/peel.
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
    /// The world boxes of one object's tree on the CPU (what peel/cluster_refit.glsl makes on
    /// the GPU): each cluster's box over its triangles' corners, each corner transformed in
    /// float as the shaders do (model x (v, 1)), each inner node the union of its children's.
    /// `local`: the object's local vertices (as many as the mesh has); `out`: the tree's
    /// nodeCount boxes (node n at out[n]). O(the clusters' distinct corners).
    /// With SSE2 (every x86-64; elsewhere refitScalar()), four components at a time: each
    /// vertex turned as one vector with the products and sums of refitScalar() in its order,
    /// each box a vector minimum and maximum over four running ones; the same boxes as floats
    /// (a zero's sign may differ where +0 and -0 tie). The inner nodes are made in the
    /// thread's own memory; `out` is only written, with non-temporal stores when `stream` (and
    /// `out` 16-byte aligned), fenced at the end.
    /// `copy` (optional): the same boxes also stored there with ordinary stores (host memory
    /// the CPU walk reads; the staging buffer `out` is write-combined, slow to read); `out` may
    /// then be null (nothing written there; the SSE2 path only).
    void refit(MeshId mesh, std::span<const Vec3> local, const Mat4& model, gl::PeelBox* out,
               bool stream = false, gl::PeelBox* copy = nullptr) const;
    /// refit() one component at a time (before 2026-11-28 morning; test hook
    /// ISC_PEEL_REFIT_SIMD=0 in PeelScenePass).
    void refitScalar(MeshId mesh, std::span<const Vec3> local, const Mat4& model, gl::PeelBox* out) const;
    /// The fused walk of one pair of parts on the CPU (peel/cluster_walk.glsl's test and margin:
    /// two boxes meet when lo <= the other's hi + margin on x, y and z, in float; the roots
    /// first, then each node pair that meets expanded as the shader's expand(), depth first on
    /// `stack`): appends two uvec4 per cluster pair to `records`, exactly the shader's
    /// PEEL_WALK_RECORDS form (candidate, margin bits, objects; absolute slot ranges with the
    /// triangles - 1 in the top 5 bits, box indices). `boxes`: the call's node boxes (part p's
    /// node n at boxes[p.nodeBase + n]). Returns the node-pair box tests made. No depth limit
    /// (the stack grows).
    /// `withBoxes`: five uvec4 per cluster pair, the two above, then the two clusters' boxes as
    /// float bits (A's lo.xyz, hi.xyz, then B's: tri_pairs.glsl's PEEL_RECORD_BOXES).
    std::size_t walkPair(const gl::PeelPart& a, const gl::PeelPart& b, const gl::PeelPair& pair,
                         const gl::PeelBox* boxes, std::vector<glm::uvec4>& records,
                         std::vector<glm::uvec2>& stack, bool withBoxes = false) const;
    /// walkPair() with the box tests' outcomes never branched on (branch peel-region-14b: the
    /// walk's ~22 ns a test on the H200's host; each meeting node pair stored on the stack and
    /// the top advanced by the test's outcome, the children's boxes loaded and their margins
    /// added once per expansion): the same tests, in the same order, the same records in the
    /// same order and the same return value as walkPair() (test hook ISC_PEEL_WALK_FORM=branch
    /// in PeelScenePass: walkPair()). Without SSE2: walkPair().
    std::size_t walkPairBranchless(const gl::PeelPart& a, const gl::PeelPart& b, const gl::PeelPair& pair,
                                   const gl::PeelBox* boxes, std::vector<glm::uvec4>& records,
                                   std::vector<glm::uvec2>& stack, bool withBoxes = false) const;
    std::span<const gl::PeelClusterNode> nodes() const { return nodes_; }
    std::span<const std::uint32_t> slots() const { return slots_; }
    /// Per slot (as slots()): (mesh triangle, its three mesh vertex indices), so that the
    /// triangle pairs reach a cluster's corners in one load instead of two dependent ones.
    std::span<const glm::uvec4> slotTriangles() const { return slotTriangles_; }

private:
    std::vector<MeshTree> trees_;
    std::vector<gl::PeelClusterNode> nodes_;
    std::vector<std::uint32_t> slots_;
    std::vector<glm::uvec4> slotTriangles_;
    // Per node (nodes_ index): its distinct corners (mesh vertex indices) in refs_, from
    // refBegin_[i] to refBegin_[i + 1]; empty for inner nodes (refit()).
    std::vector<std::uint32_t> refs_;
    std::vector<std::uint32_t> refBegin_{0};
};

}  // namespace isc
