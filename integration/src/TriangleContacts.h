#pragma once
// Contact points of two triangles that are within `margin` of each other or intersect,
// by Bullet's GImpact clipping (btPrimitiveTriangle::clip_triangle, btTriangleShapeEx.h):
// one triangle is clipped by the other's edge planes (its prism), the deepest clipped
// points against the other's face plane are kept, and of the two directions the one with
// the smaller penetration wins (a separating-axis choice over the two face normals).
// Departure from GImpact's find_triangle_collision_clip_method: points are put on B in
// both directions (GImpact hands A's points over as B's when B's face wins), the distance
// is the real signed distance (no margin folded in), and only facing triangles (normals
// within 60 degrees of opposite) give contacts: for triangles at right angles both
// directions measure depth across a whole face (garbage depths of a body's size).
#include <LinearMath/btVector3.h>

namespace isc::bullet {

/// One contact as btManifoldResult::addContactPoint wants it.
struct TriangleContact {
    btVector3 pointOnB;
    btVector3 normalOnB;  ///< unit, from B toward A
    btScalar distance;    ///< signed: negative is penetration
};

/// Up to 16 contacts of world triangles `a` (of body A) and `b` (of body B) whose signed
/// distance is <= `margin`. Returns how many were written to `out`.
int triangleContacts(const btVector3 a[3], const btVector3 b[3], btScalar margin,
                     TriangleContact out[16]);

}  // namespace isc::bullet
