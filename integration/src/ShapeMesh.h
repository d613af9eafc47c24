#pragma once
// Reads a Bullet triangle-mesh shape (or a box) into an isc::Mesh (all subparts in one mesh,
// scaling applied), remembering each triangle's (subpart, index) for the manifold's id
// fields, with what the vertex-face contacts need: normals and vertex adjacency.
#include "isc/core/Result.h"
#include "isc/mesh/Mesh.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

class btCollisionShape;

namespace isc::bullet {

/// A mesh shape as the detector and the contact clipping see it.
struct ShapeMesh {
    std::shared_ptr<const Mesh> mesh;     ///< the real surface, shape-local, scaled
    std::vector<std::int32_t> partOf;     ///< subpart of each mesh triangle
    std::vector<std::int32_t> indexOf;    ///< triangle index within its subpart
    /// Unit outward normal of each triangle (shape-local).
    std::vector<Vec3> faceNormals;
    /// Unit outward normal of each vertex: area-weighted mean of its triangles' normals.
    std::vector<Vec3> vertexNormals;
    /// Vertices sharing an edge with vertex v: adjacent[adjacentStart[v] .. adjacentStart[v + 1]).
    std::vector<std::uint32_t> adjacentStart, adjacent;
    /// One triangle using each vertex (for the manifold's id fields).
    std::vector<std::uint32_t> triangleOf;
    /// Per mesh vertex, the Bullet vertex it was read from (subparts' vertices numbered one
    /// after the other; welded duplicates keep the first): rereadVertices() follows it.
    std::vector<std::uint32_t> rawVertex;
};

/// The mesh swollen by `distance` (metres, >= 0) for detection: every face plane moves out
/// by at least `distance`. Each vertex moves along its angle-weighted normal (Baerentzen's
/// pseudo-normal: a box corner's is the diagonal) by distance / cos, where cos is the least
/// cosine between that normal and the normals of its triangles, so a box's faces move by
/// the whole distance (isc::shapes::offset moves a box corner by `distance` along the
/// diagonal: its faces by only distance / sqrt(3)). The stretch is capped at 3x (a sharp
/// spike moves at most 3 x distance). Same vertices and triangles, same order; an open
/// mesh (a 2-triangle ground) moves along its one side's normals.
Mesh swollen(const Mesh& mesh, float distance);
/// The vertices of swollen(mesh, distance) alone (no Mesh made: a deforming mesh's per-step copy).
std::vector<Vec3> swollenVertices(const Mesh& mesh, float distance);
/// acos within 2.2e-8 rad of std::acos (Abramowitz & Stegun 4.4.46), for swollenVertices'
/// corner angles; x in [-1, 1].
double acosNear(double x);
/// acosNear of each of x[0 .. n), in place: the same doubles, two at a time where SSE2 is.
void acosNearAll(double* x, std::size_t n);

/// Reads btGImpactMeshShape, btBvhTriangleMeshShape (any btTriangleMeshShape),
/// btConvexTriangleMeshShape, or a btBoxShape (12 triangles, half extents with margin). Errors: another shape type, a mesh with no usable triangle,
/// a NaN vertex (Mesh::create's message).
[[nodiscard]] Result<ShapeMesh> readShapeMesh(const btCollisionShape& shape);

/// A 64-bit hash of what readShapeMesh() reads from `shape` (its type, vertices after
/// scaling, triangles; a box's half extents): the same shape read again gives the same
/// value, another mesh almost surely another. O(vertices + triangles), no Mesh made. The
/// dispatcher checks it before re-using what it read from a shape no body uses any more
/// (a new shape may have been made at a deleted one's address).
std::uint64_t shapeSignature(const btCollisionShape& shape);

/// A deforming shape: reads `shape`'s vertex positions again (the same shape `mesh` was read
/// from, its triangles unchanged) into `mesh`: new Mesh, normals; the topology (triangles,
/// subpart ids, adjacency) is kept. O(vertices + triangles). Errors: a box shape, a vertex
/// count that changed, a NaN vertex, a triangle that became degenerate (`mesh` unchanged).
[[nodiscard]] Result<void> rereadVertices(ShapeMesh& mesh, const btCollisionShape& shape);
/// A deforming shape's detection vertices: rereadVertices(), then swollenVertices(mesh, swell)
/// when `offset` (the detection mesh was the shape swollen by `swell`), else the vertices as
/// read. The dispatcher's mirror and CullideBroadphase both take them from here, so that both
/// test one surface. Errors: rereadVertices's (`mesh` unchanged).
[[nodiscard]] Result<std::vector<Vec3>> rereadDetectVertices(ShapeMesh& mesh, const btCollisionShape& shape,
                                                             float swell, bool offset);

/// How warnings name a shape: "mesh shape <Bullet's name> at <address>".
std::string describeShape(const btCollisionShape& shape);

}  // namespace isc::bullet
