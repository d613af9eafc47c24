#pragma once
/// How deep two posed meshes are in each other, measured from their poses alone with the
/// exact reference (no detector, no contacts): the yardstick for penetration in the pile
/// tests, the benches and the demo, the same for every detector and for stock Bullet.
///
/// What is measured: the deepest vertex of either surface that lies inside the other body,
/// as its distance to that body's surface. Why this one: it needs nothing but the two
/// meshes and poses (the depth along a contact normal needs a contact, so a detector that
/// misses a contact would read *less* penetration), it is the usual depth on simple cases
/// (a sphere or box sunk d into a box reads d, two spheres overlapping by d read d), and it
/// stays meaningful on concave meshes (an ear sunk into a body reads how far its tip is from
/// the surface it passed). It is read at vertices: a point inside a triangle can lie deeper
/// than the triangle's vertices, by at most the triangle's circumradius (the distance to a
/// surface changes by at most the distance moved); where both surfaces are tessellated
/// finely against the depth, the vertices on either side bound it closely.
///
/// How: the exact reference (intersect()) gives the triangle pairs where the surfaces
/// cross; from their vertices a walk over each mesh's edges visits every vertex inside the
/// other body (each connected piece of one surface inside the other is bounded by crossing
/// triangles, so it is reached), and each gets a signed distance to the other surface:
/// nearest point through a BVH, sign from the angle-weighted pseudo-normal of the nearest
/// feature (Bærentzen & Aanæs 2005; exact for closed meshes; for an open mesh, such as a
/// terrain, "inside" is behind its front side). No crossing: one vertex of each mesh says
/// whether one lies wholly inside the other. Cost: one intersect() per pair plus one nearest
/// query per vertex inside the other body. No GL, no Bullet.
#include "isc/core/Math.h"
#include "isc/geometry/Bvh.h"
#include "isc/geometry/Reference.h"
#include "isc/mesh/Mesh.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace isc::geometry {

/// Signed distance to one mesh's surface, in the mesh's local frame. Builds a BVH, the
/// pseudo-normals (faces, edges: the sum of their two faces' normals, vertices:
/// angle-weighted) and the vertex adjacency once; queries are const and thread-safe.
class SurfaceDistance {
public:
    /// Keeps `mesh` by reference: it must outlive this.
    explicit SurfaceDistance(const Mesh& mesh);

    const Mesh& mesh() const { return *mesh_; }

    /// The nearest surface point to a point (mesh-local, double).
    struct Closest {
        /// Signed distance: negative when the point lies behind the surface (inside a closed
        /// mesh); +limit (and no triangle) when no surface point is nearer than `limit`.
        double distance = INFINITY;
        DVec3 point{0.0};                       ///< nearest surface point, mesh-local
        std::uint32_t triangle = UINT32_MAX;    ///< its triangle
    };
    /// Nearest surface point to `p` within `limit` (world units, > 0).
    Closest closest(const DVec3& p, double limit = INFINITY) const;
    /// closest(p, limit).distance.
    double signedDistance(const DVec3& p, double limit = INFINITY) const { return closest(p, limit).distance; }
    /// Vertices sharing an edge with vertex v.
    std::span<const std::uint32_t> neighbours(std::uint32_t v) const {
        return {adjacent_.data() + adjacentStart_[v], adjacent_.data() + adjacentStart_[v + 1]};
    }

private:
    const Mesh* mesh_;
    Bvh bvh_;
    std::vector<DVec3> faceNormal_;    // unit, per triangle
    std::vector<DVec3> edgeNormal_;    // per triangle, edge k from corner k to k + 1
    std::vector<DVec3> vertexNormal_;  // angle-weighted
    std::vector<std::uint32_t> adjacentStart_, adjacent_;
};

/// What penetration() found for one pair.
struct Penetration {
    double depth = 0.0;          ///< world units, >= 0: the deepest vertex's distance to the other surface
    DVec3 point{0.0};            ///< that vertex, world space (when depth > 0)
    bool pointOnA = true;        ///< the vertex is A's (inside B); false: B's (inside A)
    std::size_t crossingPairs = 0;   ///< triangle pairs where the surfaces cross (intersect())
    std::size_t verticesTested = 0;  ///< nearest-point queries made
};

/// The deepest vertex of either mesh inside the other (see the file comment). `a` and `b`
/// must be posed rigidly (PosedMesh::update(pose)); `da` and `db` built over the same meshes.
/// Thread-safe for distinct or shared const arguments.
Penetration penetration(const PosedMesh& a, const SurfaceDistance& da, const PosedMesh& b,
                        const SurfaceDistance& db);

/// The gap between two posed meshes as their vertices see it, world units: when the
/// surfaces cross (or one lies inside the other), minus penetration().depth; otherwise the
/// least distance from a vertex of either to the other surface, capped at `limit` (> 0;
/// only vertices within `limit` of the other's bounding box are queried). A vertex-based
/// gap is at least the true one (an edge may pass closer than any vertex).
double clearance(const PosedMesh& a, const SurfaceDistance& da, const PosedMesh& b, const SurfaceDistance& db,
                 double limit);

}  // namespace isc::geometry
