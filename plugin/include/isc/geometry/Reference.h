#pragma once
/// The exact CPU reference: which triangles of two posed meshes intersect. The oracle
/// every GPU detector is measured against. No GL, no Bullet.
#include "isc/core/Types.h"
#include "isc/geometry/Bvh.h"
#include "isc/mesh/Mesh.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

namespace isc::geometry {

/// One mesh posed in world space. Two BVHs share one topology, built once in the
/// constructor: one over the mesh's own (local) vertices, never refitted, and one in world
/// space. A rigid pose (update() without `localVertices`) is O(1): intersect() then
/// traverses the local trees with the relative pose and transforms only the vertices of
/// triangles that reach an exact test (intersectSelf() likewise, on its local tree); the
/// world vertices and the world BVH are computed on first use (worldVertices(), bvh(),
/// intersectBruteForce()). A deformed
/// pose transforms every vertex and refits the world BVH at once, O(n).
///
/// World vertices are always `pose.applyDouble(local)`, whichever path computes them, so
/// every answer is the same bit for bit. Const members may be called from several threads
/// at once (the lazy world state is guarded); update() may not run concurrently with them.
/// Move-only.
class PosedMesh {
public:
    /// Builds the BVH topology over `mesh` (kept by reference: it must outlive this).
    explicit PosedMesh(const Mesh& mesh);
    /// Another posed copy of `shape`'s mesh: its built topology and local boxes copied (O(n)
    /// copies instead of the build's partitioning), posed at the identity as a new one is; then
    /// the same as PosedMesh(shape.mesh()) in every answer, bit for bit.
    static PosedMesh copyOf(const PosedMesh& shape);
    /// Poses the mesh. Without `localVertices` (rigid): stores the pose, O(1). With them
    /// (deformed; the count must match the mesh's): transforms them to world space in
    /// double and refits the world BVH, O(vertices + triangles).
    void update(const Pose& pose, std::span<const Vec3> localVertices = {});

    const Mesh& mesh() const { return *mesh_; }
    /// Last pose given to update().
    const Pose& pose() const { return pose_; }
    /// True when the last update() was rigid (the mesh's own vertices, posed).
    bool isRigid() const { return rigid_; }
    /// World-space vertices (double). For a rigid pose computed on the first call after
    /// update() (O(n)), then cached.
    std::span<const DVec3> worldVertices() const;
    /// BVH with world-space boxes. For a rigid pose refitted on the first call after
    /// update() (O(n)), then cached.
    const Bvh& bvh() const;
    /// BVH with boxes in the mesh's local frame (exact float boxes of the mesh's vertices).
    const Bvh& localBvh() const { return localBvh_; }
    /// Largest distance of a mesh vertex from the local origin.
    double localRadius() const { return localRadius_; }
    /// World corners of triangle t.
    void triangle(std::uint32_t t, DVec3 out[3]) const;

private:
    struct CopyTag {};
    PosedMesh(const PosedMesh& shape, CopyTag);  // copyOf()
    void materializeWorld() const;  // needs lazy_->mutex held
    struct LazyState {
        std::mutex mutex;
        std::atomic<bool> worldReady{false};
        std::atomic<bool> bvhReady{false};
    };
    const Mesh* mesh_;
    Bvh localBvh_;
    double localRadius_ = 0.0;
    Pose pose_;
    bool rigid_ = true;
    mutable std::vector<DVec3> world_;
    mutable Bvh bvh_;
    std::unique_ptr<LazyState> lazy_ = std::make_unique<LazyState>();
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
