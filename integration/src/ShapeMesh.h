#pragma once
// Reads a Bullet triangle-mesh shape into an isc::Mesh (all subparts in one mesh, scaling
// applied), remembering each triangle's (subpart, index) for the manifold's id fields.
#include "isc/core/Result.h"
#include "isc/mesh/Mesh.h"

#include <cstdint>
#include <memory>
#include <vector>

class btCollisionShape;

namespace isc::bullet {

/// A mesh shape as the detector and the contact clipping see it.
struct ShapeMesh {
    std::shared_ptr<const Mesh> mesh;     ///< the real surface, shape-local, scaled
    std::vector<std::int32_t> partOf;     ///< subpart of each mesh triangle
    std::vector<std::int32_t> indexOf;    ///< triangle index within its subpart
    /// Triangles sharing a vertex with triangle t (t excluded):
    /// ring[ringStart[t] .. ringStart[t + 1]).
    std::vector<std::uint32_t> ringStart, ring;
};

/// Reads btGImpactMeshShape, btBvhTriangleMeshShape (any btTriangleMeshShape) or
/// btConvexTriangleMeshShape. Errors: another shape type, a mesh with no usable triangle,
/// a NaN vertex (Mesh::create's message).
[[nodiscard]] Result<ShapeMesh> readShapeMesh(const btCollisionShape& shape);

}  // namespace isc::bullet
