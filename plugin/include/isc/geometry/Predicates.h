#pragma once
/// Exact orientation predicates on double coordinates: a floating-point filter with a
/// forward error bound (Shewchuk 1997, orient2d/orient3d "A" bounds, rounded up), and
/// an exact expansion-arithmetic fallback when the filter cannot decide. The sign is
/// exact for every finite input whose products neither overflow nor underflow.
#include "isc/core/Math.h"

namespace isc::geometry {

/// Sign (-1, 0, +1) of det[b - a, c - a, d - a] = ((b - a) x (c - a)) . (d - a):
/// +1 when d lies on the side of the plane (a, b, c) that its normal (b - a) x (c - a)
/// points to, 0 when the four points are coplanar.
int orient3d(const DVec3& a, const DVec3& b, const DVec3& c, const DVec3& d);

/// orient3d(t[0], t[1], t[2], d[i]) for `count` points into signs[i]: the same signs, the
/// plane's products made once.
void orient3dOfPoints(const DVec3 t[3], const DVec3* d, int count, int* signs);

/// Sign (-1, 0, +1) of (b - a) x (c - a) in 2D: +1 when a, b, c turn counter-clockwise.
int orient2d(double ax, double ay, double bx, double by, double cx, double cy);

}  // namespace isc::geometry
