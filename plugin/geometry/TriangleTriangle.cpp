#include "isc/geometry/TriangleTriangle.h"

#include "isc/geometry/Predicates.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace isc::geometry {
namespace {

inline bool allSameStrictSign(const int s[3]) {
    return (s[0] > 0 && s[1] > 0 && s[2] > 0) || (s[0] < 0 && s[1] < 0 && s[2] < 0);
}

// Index i and orientation sigma (+1 or -1) such that sigma * s[i] >= 0 and the other two
// have sigma * s <= 0: vertex i is alone on its (closed) side. Exists whenever the three
// signs are neither all zero nor all of one strict sign.
inline void loneVertex(const int s[3], int& index, int& sigma) {
    for (int i = 0; i < 3; ++i) {
        const int j = (i + 1) % 3, k = (i + 2) % 3;
        for (int sg : {1, -1}) {
            if (sg * s[i] >= 0 && sg * s[j] <= 0 && sg * s[k] <= 0 && s[i] != 0) {
                index = i;
                sigma = sg;
                return;
            }
        }
    }
    // Only zero can be alone: two strictly on one side, the third on the plane.
    for (int i = 0; i < 3; ++i) {
        const int j = (i + 1) % 3, k = (i + 2) % 3;
        if (s[i] == 0 && s[j] == s[k]) {
            index = i;
            sigma = s[j] > 0 ? -1 : 1;
            return;
        }
    }
    index = 0;
    sigma = 1;
}

// Dominant axis of a normal: the one to drop when projecting onto a coordinate plane.
inline int dominantAxis(const DVec3& n) {
    const DVec3 a = glm::abs(n);
    return a.x >= a.y ? (a.x >= a.z ? 0 : 2) : (a.y >= a.z ? 1 : 2);
}

struct P2 {
    double x, y;
};

inline P2 project(const DVec3& p, int axis) {
    switch (axis) {
        case 0: return {p.y, p.z};
        case 1: return {p.z, p.x};
        default: return {p.x, p.y};
    }
}

inline int orient(const P2& a, const P2& b, const P2& c) { return orient2d(a.x, a.y, b.x, b.y, c.x, c.y); }

inline bool onSegment(const P2& a, const P2& b, const P2& c) {
    return std::min(a.x, b.x) <= c.x && c.x <= std::max(a.x, b.x) && std::min(a.y, b.y) <= c.y &&
           c.y <= std::max(a.y, b.y);
}

bool segmentsIntersect(const P2& a, const P2& b, const P2& c, const P2& d) {
    const int d1 = orient(a, b, c), d2 = orient(a, b, d);
    const int d3 = orient(c, d, a), d4 = orient(c, d, b);
    if (d1 * d2 < 0 && d3 * d4 < 0) return true;
    return (d1 == 0 && onSegment(a, b, c)) || (d2 == 0 && onSegment(a, b, d)) ||
           (d3 == 0 && onSegment(c, d, a)) || (d4 == 0 && onSegment(c, d, b));
}

bool pointInTriangle(const P2& x, const P2 t[3]) {
    const int o0 = orient(t[0], t[1], x), o1 = orient(t[1], t[2], x), o2 = orient(t[2], t[0], x);
    if (o0 == 0 && o1 == 0 && o2 == 0) return false;  // degenerate triangle: edges decide
    return (o0 >= 0 && o1 >= 0 && o2 >= 0) || (o0 <= 0 && o1 <= 0 && o2 <= 0);
}

// Both triangles in one plane: exact in the coordinate plane that the normal dominates.
// `n` (for the projection) is the normal of the less degenerate triangle.
bool coplanarIntersect(const DVec3 p[3], const DVec3 q[3], const DVec3& n) {
    const int axis = dominantAxis(n);
    const P2 a[3] = {project(p[0], axis), project(p[1], axis), project(p[2], axis)};
    const P2 b[3] = {project(q[0], axis), project(q[1], axis), project(q[2], axis)};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            if (segmentsIntersect(a[i], a[(i + 1) % 3], b[j], b[(j + 1) % 3])) return true;
    return pointInTriangle(a[0], b) || pointInTriangle(b[0], a);
}

enum class Overlap { None, Crossing, Coplanar };

// Guigue-Devillers, written with the canonical form spelled out instead of the paper's
// table of macros: rotate p so that p1 is alone on the non-negative side of q's plane
// (flipping q if needed), then the same for q against p's plane, and compare the two
// intervals on the planes' common line with two orientation signs. `s1` and `s2` receive each
// triangle's vertices' exact sides of the other's plane (for crossingSegment; s2 is set only
// when s1 does not already separate).
Overlap classify(const DVec3 pIn[3], const DVec3 qIn[3], int s1[3], int s2[3]) {
    orient3dOfPoints(qIn, pIn, 3, s1);
    if (allSameStrictSign(s1)) return Overlap::None;
    orient3dOfPoints(pIn, qIn, 3, s2);
    if (allSameStrictSign(s2)) return Overlap::None;
    if (s1[0] == 0 && s1[1] == 0 && s1[2] == 0) {
        const DVec3 n = glm::cross(qIn[1] - qIn[0], qIn[2] - qIn[0]);
        return coplanarIntersect(pIn, qIn, n) ? Overlap::Coplanar : Overlap::None;
    }
    if (s2[0] == 0 && s2[1] == 0 && s2[2] == 0) {
        // p is not in q's plane but q is in p's: only a degenerate q does that.
        const DVec3 n = glm::cross(pIn[1] - pIn[0], pIn[2] - pIn[0]);
        return coplanarIntersect(pIn, qIn, n) ? Overlap::Coplanar : Overlap::None;
    }
    int i1, sg1, i2, sg2;
    loneVertex(s1, i1, sg1);
    loneVertex(s2, i2, sg2);
    DVec3 p1 = pIn[i1], q1 = pIn[(i1 + 1) % 3], r1 = pIn[(i1 + 2) % 3];
    DVec3 p2 = qIn[i2], q2 = qIn[(i2 + 1) % 3], r2 = qIn[(i2 + 2) % 3];
    // Flipping q's orientation negates s1 (q's plane turns round); it leaves s2 alone.
    if (sg1 < 0) std::swap(q2, r2);
    if (sg2 < 0) std::swap(q1, r1);
    if (orient3d(q1, p2, p1, q2) > 0) return Overlap::None;
    if (orient3d(p1, p2, r1, r2) > 0) return Overlap::None;
    return Overlap::Crossing;
}

// Where triangle t crosses the plane (n, c): up to two points, from exact signs s and
// approximate distances d.
int planeCrossing(const DVec3 t[3], const int s[3], const double d[3], DVec3 out[3]) {
    int n = 0;
    for (int i = 0; i < 3 && n < 3; ++i) {
        if (s[i] == 0) out[n++] = t[i];
    }
    for (int i = 0; i < 3 && n < 3; ++i) {
        const int j = (i + 1) % 3;
        if (s[i] * s[j] < 0) {
            const double denom = d[i] - d[j];
            double u = denom != 0.0 ? d[i] / denom : 0.5;
            u = std::clamp(u, 0.0, 1.0);
            out[n++] = t[i] + u * (t[j] - t[i]);
        }
    }
    return n;
}

// `sp` and `sq`: classify's exact signs of p against q's plane and of q against p's (the
// same orient3d calls; taking them saves six of a crossing pair's fourteen).
void crossingSegment(const DVec3 p[3], const DVec3 q[3], const int sp[3], const int sq[3], DVec3& p0, DVec3& p1) {
    const DVec3 np = glm::cross(p[1] - p[0], p[2] - p[0]);
    const DVec3 nq = glm::cross(q[1] - q[0], q[2] - q[0]);
    double dp[3], dq[3];
    for (int i = 0; i < 3; ++i) {
        dp[i] = glm::dot(nq, p[i] - q[0]);
        dq[i] = glm::dot(np, q[i] - p[0]);
    }
    DVec3 a[3], b[3];
    const int na = planeCrossing(p, sp, dp, a);
    const int nb = planeCrossing(q, sq, dq, b);
    const DVec3 dir = glm::cross(np, nq);
    // Each triangle's piece of the common line as an interval of dot(dir, x).
    auto interval = [&](const DVec3* pts, int n, DVec3& lo, DVec3& hi, double& tlo, double& thi) {
        lo = hi = pts[0];
        tlo = thi = glm::dot(dir, pts[0]);
        for (int i = 1; i < n; ++i) {
            const double t = glm::dot(dir, pts[i]);
            if (t < tlo) tlo = t, lo = pts[i];
            if (t > thi) thi = t, hi = pts[i];
        }
    };
    if (na == 0 || nb == 0) {  // unreachable for intersecting non-degenerate triangles
        p0 = p1 = na ? a[0] : (nb ? b[0] : p[0]);
        return;
    }
    DVec3 aLo, aHi, bLo, bHi;
    double taLo, taHi, tbLo, tbHi;
    interval(a, na, aLo, aHi, taLo, taHi);
    interval(b, nb, bLo, bHi, tbLo, tbHi);
    p0 = taLo >= tbLo ? aLo : bLo;
    p1 = taHi <= tbHi ? aHi : bHi;
    if (std::max(taLo, tbLo) > std::min(taHi, tbHi)) {
        // The exact test says they touch; rounding separated the intervals: meet halfway.
        p0 = p1 = 0.5 * (p0 + p1);
    }
}

// Sutherland-Hodgman: p clipped by the three edge half-planes of q (in q's plane).
void coplanarSegment(const DVec3 p[3], const DVec3 q[3], DVec3& p0, DVec3& p1) {
    DVec3 poly[12], next[12];
    int n = 3;
    for (int i = 0; i < 3; ++i) poly[i] = p[i];
    const DVec3 nq = glm::cross(q[1] - q[0], q[2] - q[0]);
    double scale = 0.0;
    for (int i = 0; i < 3; ++i) scale = std::max(scale, glm::length(q[i] - q[0]) + glm::length(p[i] - q[0]));
    for (int e = 0; e < 3 && n > 0; ++e) {
        const DVec3 a = q[e], b = q[(e + 1) % 3];
        const DVec3 inward = glm::cross(nq, b - a);
        // Points within rounding of the edge line count as inside (touching is contact).
        const double tol = 1e-12 * glm::length(inward) * scale;
        int m = 0;
        for (int i = 0; i < n; ++i) {
            const DVec3& u = poly[i];
            const DVec3& v = poly[(i + 1) % n];
            const double du = glm::dot(inward, u - a), dv = glm::dot(inward, v - a);
            const bool uin = du >= -tol, vin = dv >= -tol;
            if (uin) next[m++] = u;
            if (uin != vin && m < 12) {
                const double t = std::clamp(du / (du - dv), 0.0, 1.0);
                next[m++] = u + t * (v - u);
            }
        }
        n = m;
        std::copy(next, next + m, poly);
    }
    if (n == 0) {
        // Rounding clipped a touching contact away: the closest pair of corners stands in.
        double best = INFINITY;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                const double d = glm::length(p[i] - q[j]);
                if (d < best) best = d, p0 = p[i], p1 = q[j];
            }
        p0 = p1 = 0.5 * (p0 + p1);
        return;
    }
    double best = -1.0;
    for (int i = 0; i < n; ++i)
        for (int j = i; j < n; ++j) {
            const double d = glm::length(poly[i] - poly[j]);
            if (d > best) best = d, p0 = poly[i], p1 = poly[j];
        }
}

}  // namespace

bool trianglesIntersect(const DVec3 p[3], const DVec3 q[3]) {
    int s1[3], s2[3];
    return classify(p, q, s1, s2) != Overlap::None;
}

TriangleContact triangleIntersection(const DVec3 p[3], const DVec3 q[3], DVec3& p0, DVec3& p1) {
    int s1[3], s2[3];
    switch (classify(p, q, s1, s2)) {
        case Overlap::None: return TriangleContact::None;
        case Overlap::Crossing: crossingSegment(p, q, s1, s2, p0, p1); return TriangleContact::Crossing;
        case Overlap::Coplanar: coplanarSegment(p, q, p0, p1); return TriangleContact::Coplanar;
    }
    return TriangleContact::None;
}

}  // namespace isc::geometry
