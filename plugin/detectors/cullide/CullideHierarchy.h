#pragma once
// The per-object hierarchy cullide descends (Boldt & Meyer section 3.2: object, sub-objects,
// triangles). Each mesh gets a BVH over its local triangles (isc::geometry::Bvh, built once);
// its leaf order is the mesh's "slot" order, in which every subtree is a contiguous range of
// slots. A cluster is one of the largest subtrees with at most clusterSize triangles: a
// spatially compact patch, as the paper's connectivity-built hierarchy is. No GL.
#include "isc/geometry/Bvh.h"
#include "isc/mesh/Mesh.h"
#include "isc/scene/Scene.h"

#include <glm/ext/vector_uint4.hpp>

#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

namespace isc::cullide {

/// Slots [firstSlot, firstSlot + slotCount) of a mesh (relative to its slot base), and the
/// BVH node whose box bounds them.
struct Cluster {
    std::uint32_t firstSlot = 0;
    std::uint32_t slotCount = 0;
    std::uint32_t node = 0;
};

struct MeshHierarchy {
    std::shared_ptr<const Mesh> mesh;  // held, so that its address is not reused while cached
    geometry::Bvh bvh;                 // over the mesh's local vertices
    std::vector<Cluster> clusters;     // in slot order
    std::uint32_t slotBase = 0;        // where the mesh's slots start in Hierarchies::slotTriangles()
    /// Per cluster k, its triangles' distinct corners (mesh vertex indices), in
    /// clusterVertices[clusterVertexBegin[k], clusterVertexBegin[k + 1]): the pose pass boxes a
    /// deformed cluster over each vertex once, not once per corner (cullide.md).
    std::vector<std::uint32_t> clusterVertices;
    std::vector<std::uint32_t> clusterVertexBegin;
};

/// Every mesh's leaf order (cullide::Hierarchies), uploaded by Passes::sync() / endSync() when
/// it changes: per slot its triangle, and its triangle's corner indices with the triangle (the
/// filter's one load per slot, cullide-12).
struct Slots {
    std::span<const std::uint32_t> triangles;
    std::span<const glm::uvec4> corners;
};

/// The hierarchies of every mesh a scene uses, with all meshes' slot orders in one array (what
/// the GPU's slotTriangles[] holds).
class Hierarchies {
public:
    explicit Hierarchies(int clusterSize) : clusterSize_(clusterSize) {}
    /// Makes sure every mesh of `scene` has its hierarchy; returns true when slotTriangles()
    /// changed (re-upload it). Then get(m) is valid for each MeshId m of the scene.
    bool sync(const Scene& scene);
    const MeshHierarchy& get(MeshId mesh) const { return *byId_[mesh]; }
    std::span<const std::uint32_t> slotTriangles() const { return slots_; }
    /// Per slot (as slotTriangles()), its triangle's three corner indices (the mesh's) and the
    /// triangle: the filter's one load per slot (cullide-12).
    std::span<const glm::uvec4> slotCorners() const { return slotCorners_; }
    /// Both, as Passes::sync() uploads them (when sync() returned true).
    Slots slots() const { return {slots_, slotCorners_}; }

private:
    int clusterSize_;
    std::unordered_map<const Mesh*, std::unique_ptr<MeshHierarchy>> cache_;
    std::vector<const MeshHierarchy*> byId_;
    std::vector<std::uint32_t> slots_;
    std::vector<glm::uvec4> slotCorners_;
    void appendSlots(MeshHierarchy& h);
};

/// World box (float, grown by one float rounding) of `box` (in the object's local frame)
/// under `pose`: the box of its eight corners.
Aabb worldBox(const geometry::Bvh::Box& box, const Pose& pose);

}  // namespace isc::cullide
