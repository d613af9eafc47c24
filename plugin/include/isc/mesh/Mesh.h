#pragma once
/// Triangle meshes: validated once at creation, immutable after. No GL, no Bullet.
#include "isc/core/Math.h"
#include "isc/core/Result.h"

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace isc {

/// What Mesh::create found and did. Counts refer to the input.
struct MeshReport {
    std::size_t boundaryEdges = 0;      ///< edges used by exactly one triangle
    std::size_t nonManifoldEdges = 0;   ///< edges used by more than two triangles
    std::size_t degenerateDropped = 0;  ///< zero-area or repeated-index triangles removed
    /// Two-triangle edges that both triangles walk in the same direction: the winding
    /// flips there (a triangle is inside out). Closedness does not depend on it.
    std::size_t misorientedEdges = 0;
    /// Closed (watertight, two-manifold edges): what the volume-based detectors need.
    bool closed() const { return boundaryEdges == 0 && nonManifoldEdges == 0; }
    /// Every two-triangle edge is walked once each way (consistent winding).
    bool consistentlyOriented() const { return misorientedEdges == 0; }
    /// One line for logs, e.g. "open: 12 boundary edges; 3 degenerate triangles dropped"
    /// or "closed; 3 misoriented edges".
    std::string describe() const;
};

/// A validated triangle mesh in its local frame (world units). Counter-clockwise
/// triangles seen from outside (outward normals) for closed meshes.
class Mesh {
public:
    /// Validates and builds. Errors (returned, nothing thrown): a NaN or Inf coordinate,
    /// an index out of range, no triangle left. Degenerate triangles (repeated index or
    /// zero area) are dropped and counted; boundary and non-manifold edges are counted.
    [[nodiscard]] static Result<Mesh> create(std::string name, std::vector<Vec3> vertices,
                                             std::vector<UVec3> triangles);

    const std::string& name() const { return name_; }
    std::span<const Vec3> vertices() const { return vertices_; }
    std::span<const UVec3> triangles() const { return triangles_; }
    std::size_t vertexCount() const { return vertices_.size(); }
    std::size_t triangleCount() const { return triangles_.size(); }
    const MeshReport& report() const { return report_; }
    bool isClosed() const { return report_.closed(); }
    /// Bounds of the vertices in the local frame.
    const Aabb& localBounds() const { return bounds_; }

    /// The same triangles on new vertex positions (a deforming mesh), without validating the
    /// topology again (same triangles, same report): O(vertices + triangles). Errors: a
    /// different vertex count, a non-finite coordinate, a triangle of zero area (create()
    /// would drop it and change the triangles).
    [[nodiscard]] Result<Mesh> withVertices(std::vector<Vec3> vertices) const;
    /// Uniformly scaled copy (about the local origin).
    Mesh scaled(float factor) const;
    /// Copy moved so that its bounding-box centre is at the origin (before scaling).
    Mesh centered() const;

    /// Signed enclosed volume by the divergence theorem (sum of signed tetrahedra from the
    /// local origin), world units cubed, computed in double. Positive for a closed mesh
    /// with outward (counter-clockwise seen from outside) triangles; meaningless for an
    /// open mesh.
    double signedVolume() const;
    /// Total triangle area, world units squared, computed in double.
    double surfaceArea() const;

private:
    Mesh() = default;
    std::string name_;
    std::vector<Vec3> vertices_;
    std::vector<UVec3> triangles_;
    MeshReport report_;
    Aabb bounds_;
};

}  // namespace isc
