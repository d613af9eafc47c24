#pragma once
// Contact points of two mesh bodies from the detector's triangle pairs.
//
// The detector reports the triangles whose swollen copies intersect: the rim of each
// contact patch (two surfaces resting on each other are parallel inside the patch and
// never intersect there). So the reported triangles only seed the patch: from their
// vertices, a walk over each mesh's vertex graph visits every vertex that lies within
// the margin of the other body (or up to maxDepth inside it), and each gives one
// vertex-face contact: the nearest facing triangle of the other mesh (a triangle grid in
// that mesh's frame finds it), the triangle's normal when the vertex projects inside it,
// else the direction from the nearest edge point (a vertex against a convex edge). A
// vertex behind a face's plane counts as inside (penetrating) only when it projects into
// that face: beside the face it may well be outside the body. Both
// directions are walked (A's vertices against B's faces, B's against A's), so an edge
// resting across an edge still gets the vertices around the crossing. "Facing" means the
// vertex's normal points against the face's (dot < 0): a box's side faces never read its
// corners as contacts with a whole face's depth.
//
// A vertex deeper than the margin is not trusted with its nearest face's normal: a thin
// part (an ear) sunk through a body reads faces on opposite sides of that body from its
// two sides, the pushes cancel and the part stays in. The detector's triangle pairs are
// where the surfaces cross, the ring around the sunk part (the entry): their face normals
// (B's, minus A's) average to the way out, and their centroid lies on the entry. A deep
// vertex gets that normal and, as depth, how far it lies behind the entry plane (at least
// its nearest-face depth), so every deep contact of the pair pushes the same way.
//
// A detector that reports contact samples (PairResult::samples: point, normal, depth) gives
// that mesh pair's candidates directly (addSamples): no walk, its samples only.
//
// All candidates of a body pair are then reduced to four (Bullet's rule, done once on the
// whole set instead of point by point): the deepest, the farthest from it, and the two
// that span the largest area on either side of that line, in the plane across the mean
// normal; distances and areas weighted by depth (1 at the deepest, 0 at the margin,
// squared), since a point near the margin is speculative and holds nothing up. Normals point from B toward A; points lie on B; distances are signed (< 0 is
// penetration).
#include "ShapeMesh.h"
#include "TriangleGrid.h"

#include "isc/core/Types.h"

#include <LinearMath/btTransform.h>

#include <cstdint>
#include <span>
#include <vector>

namespace isc::bullet {

/// Closest point of triangle (a, b, c) to p (Ericson, Real-Time Collision Detection 5.1.5).
/// `inside`: the point is in the face's interior region (p projects into the triangle).
Vec3 closestOnTriangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c, bool& inside);

/// One contact as btManifoldResult::addContactPoint wants it, with its id fields.
struct MeshContact {
    btVector3 pointOnB;
    btVector3 normalOnB;  ///< unit, from B toward A
    btScalar distance;    ///< signed: negative is penetration
    std::int32_t partA, indexA, partB, indexB;
};

/// One mesh of a body as posed this step.
struct PosedMesh {
    const ShapeMesh* mesh = nullptr;
    const TriangleGrid* grid = nullptr;  ///< over mesh's triangles, reach >= the pair margin
    btTransform world;                   ///< shape-local to world
    int childIndex = -1;                 ///< compound child index, -1 when not a compound
};

class PatchContacts {
public:
    /// Starts a body pair: contacts closer than `margin` (metres), down to `maxDepth` deep.
    void begin(float margin, float maxDepth);
    /// Adds the candidates of one mesh pair (A, B) seeded by the detector's triangle pairs;
    /// `swapped`: each pair's `a` indexes B's mesh and `b` A's.
    void add(const PosedMesh& a, const PosedMesh& b, std::span<const TrianglePair> pairs, bool swapped);
    /// Adds the contact samples of one mesh pair (A, B) as candidates, instead of a walk.
    /// Samples were measured on the swollen meshes (each by half its body's margin,
    /// `halfMarginA` and `halfMarginB`, metres): each moves onto B's real surface and its
    /// distance grows by both. `swapped`: the samples' A is B here (their normals point from
    /// A toward B). Samples farther apart than the margin are dropped, like walked vertices.
    void addSamples(const PosedMesh& a, const PosedMesh& b, std::span<const ContactSample> samples, bool swapped,
                    float halfMarginA, float halfMarginB);
    /// Candidates gathered since begin().
    std::span<const MeshContact> candidates() const { return candidates_; }
    /// At most four of the candidates (see the file comment).
    std::span<const MeshContact> reduce();

private:
    void walk(const PosedMesh& from, const PosedMesh& onto, bool fromIsA);

    // The entry of the patch (see the file comment): a point on it and its normal, from B
    // toward A, in world space; valid when rimValid_.
    btVector3 rimPoint_, rimNormal_;
    bool rimValid_ = false;

    float margin_ = 0.0f, maxDepth_ = 0.0f;
    std::vector<MeshContact> candidates_;
    std::vector<std::uint32_t> seeds_, queue_, stamp_;
    std::vector<btScalar> weights_;
    std::uint32_t generation_ = 0;
    MeshContact chosen_[4];
};

}  // namespace isc::bullet
