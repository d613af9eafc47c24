#pragma once
/// The exact CPU reference: which triangles of two posed meshes intersect. The oracle
/// every GPU detector is measured against. No GL, no Bullet.
#include "isc/core/Types.h"
#include "isc/geometry/Bvh.h"
#include "isc/mesh/Mesh.h"

#include <span>
#include <vector>

namespace isc::geometry {

/// One mesh posed in world space: vertices transformed in double, and a BVH over its
/// triangles whose topology is built once (in the constructor) and refitted per update().
class PosedMesh {
public:
    /// Builds the BVH topology over `mesh` (kept by reference: it must outlive this).
    explicit PosedMesh(const Mesh& mesh);
    /// Poses the mesh: transforms `localVertices` (or the mesh's own when empty; the
    /// count must match) to world space and refits the BVH. O(vertices + triangles).
    void update(const Pose& pose, std::span<const Vec3> localVertices = {});

    const Mesh& mesh() const { return *mesh_; }
    std::span<const DVec3> worldVertices() const { return world_; }
    const Bvh& bvh() const { return bvh_; }
    /// World corners of triangle t.
    void triangle(std::uint32_t t, DVec3 out[3]) const;

private:
    const Mesh* mesh_;
    std::vector<DVec3> world_;
    Bvh bvh_;
};

/// All intersecting triangle pairs of `a` and `b`, sorted by (a, b), unique; with the
/// intersection segment of each when `segments` is given (same order). Touching counts.
void intersect(const PosedMesh& a, const PosedMesh& b, std::vector<TrianglePair>& pairs,
               std::vector<Segment>* segments = nullptr);
/// Self-intersections of one mesh: pairs (i < j) of triangles that share no vertex.
void intersectSelf(const PosedMesh& m, std::vector<TrianglePair>& pairs,
                   std::vector<Segment>* segments = nullptr);
/// The same as intersect(), by testing every triangle pair (for tests and benchmarks).
void intersectBruteForce(const PosedMesh& a, const PosedMesh& b, std::vector<TrianglePair>& pairs);

}  // namespace isc::geometry
