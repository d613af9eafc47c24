#pragma once
/// Triangle-triangle overlap of closed triangles in double (Guigue & Devillers 2003,
/// "Fast and robust triangle-triangle overlap test using orientation predicates"),
/// coplanar case included. Every decision is a sign of an exact orientation predicate
/// (isc/geometry/Predicates.h), so the yes/no answer is exact for the given doubles;
/// only the segment endpoints are rounded. Touching (a shared point, edge or vertex)
/// counts as intersecting.
///
/// Triangles must be non-degenerate (non-zero area); a degenerate one gets an answer
/// but not necessarily the right one.
#include "isc/core/Math.h"

namespace isc::geometry {

/// True when the closed triangles (p[0], p[1], p[2]) and (q[0], q[1], q[2]) share at
/// least one point. Any space, any orientation of either triangle.
bool trianglesIntersect(const DVec3 p[3], const DVec3 q[3]);

/// What triangleIntersection() found.
enum class TriangleContact {
    None,      ///< disjoint
    Crossing,  ///< not coplanar; the segment is the exact intersection (up to rounding)
    Coplanar,  ///< coplanar and overlapping; the segment is a chord of the overlap region
};

/// Like trianglesIntersect(), and also gives an intersection segment (p0, p1), same space
/// as the input. For non-coplanar triangles it is the intersection itself (p0 == p1 when
/// they touch at one point). For coplanar overlapping triangles the overlap is a convex
/// polygon: the segment is its longest diagonal (two of its vertices farthest apart),
/// found by clipping p against q; when they only touch it degenerates to a point or to
/// the shared piece of edge. p0 and p1 are untouched when the result is None.
TriangleContact triangleIntersection(const DVec3 p[3], const DVec3 q[3], DVec3& p0, DVec3& p1);

}  // namespace isc::geometry
