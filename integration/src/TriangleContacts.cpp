#include "TriangleContacts.h"

#include <BulletCollision/Gimpact/btClipPolygon.h>
#include <BulletCollision/Gimpact/btTriangleShapeEx.h>

#include <cmath>

namespace isc::bullet {

static_assert(MAX_TRI_CLIPPING <= 16, "TriangleContacts: out[] holds 16 points");

namespace {

struct Side {
    btVector3 points[MAX_TRI_CLIPPING];
    btScalar distance[MAX_TRI_CLIPPING];
    int count = 0;
    btScalar deepest = BT_LARGE_FLOAT;  // smallest signed distance kept
};

// Clips `other` by the prism of `self` and keeps the deepest points within `margin`
// (those within a small tolerance of the deepest, as GImpact's merge_points does).
void clipSide(btPrimitiveTriangle& self, btPrimitiveTriangle& other, btScalar margin, Side& side) {
    btVector3 clipped[MAX_TRI_CLIPPING];
    const int n = self.clip_triangle(other, clipped);
    btScalar d[MAX_TRI_CLIPPING];
    for (int i = 0; i < n; ++i) {
        d[i] = bt_distance_point_plane(self.m_plane, clipped[i]);
        if (d[i] <= margin && d[i] < side.deepest) side.deepest = d[i];
    }
    // Keep points up to 1 mm (relative to the deepest) less deep: a face resting on a face
    // then gives its corners, not one arbitrary point.
    const btScalar keep = side.deepest + btScalar(1e-3);
    for (int i = 0; i < n; ++i) {
        if (d[i] <= margin && d[i] <= keep) {
            side.points[side.count] = clipped[i];
            side.distance[side.count] = d[i];
            ++side.count;
        }
    }
}

}  // namespace

int triangleContacts(const btVector3 a[3], const btVector3 b[3], btScalar margin,
                     TriangleContact out[16]) {
    btPrimitiveTriangle ta, tb;
    for (int i = 0; i < 3; ++i) {
        ta.m_vertices[i] = a[i];
        tb.m_vertices[i] = b[i];
    }
    ta.buildTriPlane();
    tb.buildTriPlane();
    const btVector3 na(ta.m_plane[0], ta.m_plane[1], ta.m_plane[2]);
    const btVector3 nb(tb.m_plane[0], tb.m_plane[1], tb.m_plane[2]);
    if (!std::isfinite(na.x()) || !std::isfinite(nb.x())) return 0;  // degenerate triangle
    // Only facing triangles (within 60 degrees of opposite): for triangles at right angles
    // both clipping directions measure depth across a whole face (a box's side against
    // the other box's top reads 1 m deep), and same-facing ones have no meaningful normal.
    if (na.dot(nb) > btScalar(-0.5)) return 0;

    // B's points clipped by A's prism: they lie on B; the normal is -nA (from B toward A).
    Side onB;
    clipSide(ta, tb, margin, onB);
    // A's points clipped by B's prism: they lie on A; the normal is nB.
    Side onA;
    clipSide(tb, ta, margin, onA);
    if (onA.count == 0 && onB.count == 0) return 0;

    // The direction with the smaller penetration (larger deepest distance) wins.
    const bool useB = onB.count > 0 && (onA.count == 0 || onB.deepest >= onA.deepest);
    int n = 0;
    if (useB) {
        for (int i = 0; i < onB.count; ++i) out[n++] = {onB.points[i], -na, onB.distance[i]};
    } else {
        // Move A's point onto B's plane: the point on B is A's point minus nB * distance.
        for (int i = 0; i < onA.count; ++i)
            out[n++] = {onA.points[i] - nb * onA.distance[i], nb, onA.distance[i]};
    }
    return n;
}

}  // namespace isc::bullet
