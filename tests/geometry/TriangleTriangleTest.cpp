// Triangle-triangle overlap: a table of hand-worked cases (answers and segment endpoints
// worked out on paper, see each case's comment), invariance under vertex order, and an
// exhaustive comparison with an independent edge-against-triangle test on integer grids,
// where touching, collinear and coplanar configurations are the rule, not the exception.
#include "isc/geometry/Predicates.h"
#include "isc/geometry/TriangleTriangle.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>

using namespace isc;
using namespace isc::geometry;

namespace {

struct Case {
    std::string name;
    DVec3 p[3];
    DVec3 q[3];
    TriangleContact expected;
    DVec3 s0{0.0}, s1{0.0};  // expected segment (either order) when intersecting
};

// P is the right triangle (0,0,0), (2,0,0), (0,2,0) in the plane z = 0 (x + y <= 2).
const DVec3 P0(0, 0, 0), P1(2, 0, 0), P2(0, 2, 0);

std::vector<Case> cases() {
    return {
        // Q lies in the plane x = 5; P spans x in [0, 2].
        {"separated", {P0, P1, P2}, {{5, 0, -1}, {5, 0, 1}, {5, 1, 0}}, TriangleContact::None},
        // Q in the plane y = 0.5 meets z = 0 on x in [0.25, 1.25]; P at y = 0.5 spans x in [0, 1.5].
        {"crossing", {P0, P1, P2}, {{-0.75, 0.5, -1}, {1.25, 0.5, 1}, {1.25, 0.5, -1}}, TriangleContact::Crossing,
         {0.25, 0.5, 0}, {1.25, 0.5, 0}},
        // A narrow Q pierces P's interior: edges cross z = 0 at x = 0.55 and x = 0.65.
        {"piercing", {P0, P1, P2}, {{0.5, 0.5, -1}, {0.6, 0.5, 1}, {0.7, 0.5, -1}}, TriangleContact::Crossing,
         {0.55, 0.5, 0}, {0.65, 0.5, 0}},
        // Q's corner rests on P's interior point (0.5, 0.5, 0); the rest of Q is above.
        {"vertex on face", {P0, P1, P2}, {{0.5, 0.5, 0}, {1, 0.5, 1}, {0.5, 1, 1}}, TriangleContact::Crossing,
         {0.5, 0.5, 0}, {0.5, 0.5, 0}},
        // The same lifted by 1e-9: a near miss.
        {"vertex near miss", {P0, P1, P2}, {{0.5, 0.5, 1e-9}, {1, 0.5, 1}, {0.5, 1, 1}}, TriangleContact::None},
        // Corner to corner at the origin, Q above-behind P.
        {"vertex on vertex", {P0, P1, P2}, {{0, 0, 0}, {-1, 0, 1}, {0, -1, 1}}, TriangleContact::Crossing,
         {0, 0, 0}, {0, 0, 0}},
        // Q in the plane x = 1 is y + z <= 0, y >= -1, z >= -1; its hypotenuse crosses P's
        // edge y = 0 at (1, 0, 0), and at z = 0 Q holds y in [-1, 0]: only that point.
        {"edge on edge", {P0, P1, P2}, {{1, -1, 1}, {1, 1, -1}, {1, -1, -1}}, TriangleContact::Crossing,
         {1, 0, 0}, {1, 0, 0}},
        // Overlap is the triangle (0.5,0.5), (1.5,0.5), (0.5,1.5); its longest chord is the hypotenuse.
        {"coplanar overlapping", {P0, P1, P2}, {{0.5, 0.5, 0}, {3, 0.5, 0}, {0.5, 3, 0}}, TriangleContact::Coplanar,
         {1.5, 0.5, 0}, {0.5, 1.5, 0}},
        // Q inside P: the overlap is Q, longest chord (0.6,0.2)-(0.2,0.6).
        {"coplanar contained", {P0, P1, P2}, {{0.2, 0.2, 0}, {0.6, 0.2, 0}, {0.2, 0.6, 0}}, TriangleContact::Coplanar,
         {0.6, 0.2, 0}, {0.2, 0.6, 0}},
        // Q beyond P's hypotenuse (x + y >= 4).
        {"coplanar disjoint", {P0, P1, P2}, {{2, 2, 0}, {3, 2, 0}, {2, 3, 0}}, TriangleContact::None},
        // Q shares P's hypotenuse from the other side: the overlap is that edge.
        {"coplanar shared edge", {P0, P1, P2}, {{2, 0, 0}, {0, 2, 0}, {2, 2, 0}}, TriangleContact::Coplanar,
         {2, 0, 0}, {0, 2, 0}},
        // Q touches P at the corner (2, 0, 0) only.
        {"coplanar shared vertex", {P0, P1, P2}, {{2, 0, 0}, {3, 0, 0}, {2, 1, 0}}, TriangleContact::Coplanar,
         {2, 0, 0}, {2, 0, 0}},
        // Q is P lifted by 1e-6.
        {"parallel planes", {P0, P1, P2}, {{0, 0, 1e-6}, {2, 0, 1e-6}, {0, 2, 1e-6}}, TriangleContact::None},
        // A sliver 1e-9 wide along x; Q in the plane x = 0.5 holds y in [-0.5, 0.5] at z = 0,
        // the sliver at x = 0.5 is y in [0, 5e-10].
        {"degenerate thin crossing", {{0, 0, 0}, {1, 0, 0}, {1, 1e-9, 0}}, {{0.5, -1, -1}, {0.5, 1, -1}, {0.5, 0, 1}},
         TriangleContact::Crossing, {0.5, 0, 0}, {0.5, 5e-10, 0}},
        // The same Q moved up by 0.5 + 1e-8: it starts at y = 1e-8, above the sliver.
        {"degenerate thin miss", {{0, 0, 0}, {1, 0, 0}, {1, 1e-9, 0}},
         {{0.5, -0.5 + 1e-8, -1}, {0.5, 1.5 + 1e-8, -1}, {0.5, 0.5 + 1e-8, 1}}, TriangleContact::None},
    };
}

class TriangleTriangleCase : public testing::TestWithParam<Case> {};

bool near(const DVec3& a, const DVec3& b, double tol) { return glm::length(a - b) <= tol; }

TEST_P(TriangleTriangleCase, AnswerAndSegment) {
    const Case& c = GetParam();
    const bool expected = c.expected != TriangleContact::None;
    EXPECT_EQ(trianglesIntersect(c.p, c.q), expected);
    EXPECT_EQ(trianglesIntersect(c.q, c.p), expected);
    DVec3 s0(-7.0), s1(-7.0);
    EXPECT_EQ(triangleIntersection(c.p, c.q, s0, s1), c.expected);
    if (expected) {
        const bool same = near(s0, c.s0, 1e-12) && near(s1, c.s1, 1e-12);
        const bool swapped = near(s0, c.s1, 1e-12) && near(s1, c.s0, 1e-12);
        EXPECT_TRUE(same || swapped) << "segment (" << s0.x << ' ' << s0.y << ' ' << s0.z << ") - (" << s1.x << ' '
                                     << s1.y << ' ' << s1.z << ")";
    } else {
        EXPECT_EQ(s0, DVec3(-7.0)) << "untouched when disjoint";
    }
}

TEST_P(TriangleTriangleCase, VertexOrderDoesNotMatter) {
    const Case& c = GetParam();
    const bool expected = c.expected != TriangleContact::None;
    for (int rp = 0; rp < 3; ++rp)
        for (int rq = 0; rq < 3; ++rq)
            for (int flip = 0; flip < 4; ++flip) {
                DVec3 p[3] = {c.p[rp], c.p[(rp + 1) % 3], c.p[(rp + 2) % 3]};
                DVec3 q[3] = {c.q[rq], c.q[(rq + 1) % 3], c.q[(rq + 2) % 3]};
                if (flip & 1) std::swap(p[1], p[2]);
                if (flip & 2) std::swap(q[1], q[2]);
                EXPECT_EQ(trianglesIntersect(p, q), expected) << rp << rq << flip;
            }
}

INSTANTIATE_TEST_SUITE_P(HandWorked, TriangleTriangleCase, testing::ValuesIn(cases()),
                         [](const testing::TestParamInfo<Case>& param) {
                             std::string n = param.param.name;
                             std::replace(n.begin(), n.end(), ' ', '_');
                             return n;
                         });

// ---- an independent test: two closed triangles meet iff an edge of one meets the other ----

int dominant(const DVec3& n) {
    const DVec3 a = glm::abs(n);
    return a.x >= a.y ? (a.x >= a.z ? 0 : 2) : (a.y >= a.z ? 1 : 2);
}
glm::dvec2 drop(const DVec3& p, int axis) {
    return axis == 0 ? glm::dvec2(p.y, p.z) : axis == 1 ? glm::dvec2(p.z, p.x) : glm::dvec2(p.x, p.y);
}
int o2(glm::dvec2 a, glm::dvec2 b, glm::dvec2 c) { return orient2d(a.x, a.y, b.x, b.y, c.x, c.y); }
bool between(glm::dvec2 a, glm::dvec2 b, glm::dvec2 c) {
    return std::min(a.x, b.x) <= c.x && c.x <= std::max(a.x, b.x) && std::min(a.y, b.y) <= c.y &&
           c.y <= std::max(a.y, b.y);
}
bool segSeg2(glm::dvec2 a, glm::dvec2 b, glm::dvec2 c, glm::dvec2 d) {
    const int d1 = o2(a, b, c), d2 = o2(a, b, d), d3 = o2(c, d, a), d4 = o2(c, d, b);
    if (d1 * d2 < 0 && d3 * d4 < 0) return true;
    return (d1 == 0 && between(a, b, c)) || (d2 == 0 && between(a, b, d)) || (d3 == 0 && between(c, d, a)) ||
           (d4 == 0 && between(c, d, b));
}
bool segmentMeetsTriangle(const DVec3& a, const DVec3& b, const DVec3 t[3]) {
    const int sa = orient3d(t[0], t[1], t[2], a), sb = orient3d(t[0], t[1], t[2], b);
    if (sa * sb > 0) return false;
    if (sa == 0 && sb == 0) {
        const int ax = dominant(glm::cross(t[1] - t[0], t[2] - t[0]));
        const glm::dvec2 A = drop(a, ax), B = drop(b, ax);
        const glm::dvec2 T[3] = {drop(t[0], ax), drop(t[1], ax), drop(t[2], ax)};
        for (int i = 0; i < 3; ++i)
            if (segSeg2(A, B, T[i], T[(i + 1) % 3])) return true;
        const int x = o2(T[0], T[1], A), y = o2(T[1], T[2], A), z = o2(T[2], T[0], A);
        return (x >= 0 && y >= 0 && z >= 0) || (x <= 0 && y <= 0 && z <= 0);
    }
    // The segment crosses the plane once: inside iff the line passes every edge on one side.
    const int x = orient3d(a, b, t[0], t[1]), y = orient3d(a, b, t[1], t[2]), z = orient3d(a, b, t[2], t[0]);
    return (x >= 0 && y >= 0 && z >= 0) || (x <= 0 && y <= 0 && z <= 0);
}
bool edgeBased(const DVec3 p[3], const DVec3 q[3]) {
    for (int i = 0; i < 3; ++i)
        if (segmentMeetsTriangle(p[i], p[(i + 1) % 3], q) || segmentMeetsTriangle(q[i], q[(i + 1) % 3], p))
            return true;
    return false;
}

TEST(TriangleTriangle, AgreesWithEdgeTestOnIntegerGrids) {
    std::mt19937_64 rng(42);
    int tested = 0, hits = 0, coplanar = 0;
    for (int range : {2, 3, 5}) {
        for (int it = 0; it < 100000; ++it) {
            DVec3 p[3], q[3];
            for (int i = 0; i < 3; ++i) {
                p[i] = DVec3(double(rng() % range), double(rng() % range), double(rng() % range));
                q[i] = DVec3(double(rng() % range), double(rng() % range), double(rng() % range));
            }
            if (glm::cross(p[1] - p[0], p[2] - p[0]) == DVec3(0.0) || glm::cross(q[1] - q[0], q[2] - q[0]) == DVec3(0.0))
                continue;
            ++tested;
            const bool ours = trianglesIntersect(p, q);
            ASSERT_EQ(ours, edgeBased(p, q)) << "range " << range << " case " << it;
            DVec3 s0, s1;
            const TriangleContact c = triangleIntersection(p, q, s0, s1);
            ASSERT_EQ(c != TriangleContact::None, ours);
            hits += ours;
            coplanar += c == TriangleContact::Coplanar;
        }
    }
    // The grids must really exercise both answers and the coplanar branch.
    EXPECT_GT(hits, tested / 10);
    EXPECT_LT(hits, tested - tested / 10);
    EXPECT_GT(coplanar, 1000);
}

// Distance from x to the closed triangle t (for checking that segment ends lie on both).
double distanceToTriangle(const DVec3& x, const DVec3 t[3]) {
    const DVec3 n = glm::normalize(glm::cross(t[1] - t[0], t[2] - t[0]));
    const DVec3 onPlane = x - glm::dot(x - t[0], n) * n;
    bool inside = true;
    for (int i = 0; i < 3; ++i)
        if (glm::dot(glm::cross(t[(i + 1) % 3] - t[i], onPlane - t[i]), n) < 0) inside = false;
    if (inside) return glm::length(x - onPlane);
    double best = INFINITY;
    for (int i = 0; i < 3; ++i) {
        const DVec3 a = t[i], e = t[(i + 1) % 3] - a;
        const double u = std::clamp(glm::dot(x - a, e) / glm::dot(e, e), 0.0, 1.0);
        best = std::min(best, glm::length(x - (a + u * e)));
    }
    return best;
}

TEST(TriangleTriangle, CrossingSegmentEndsLieOnBothTriangles) {
    std::mt19937_64 rng(7);
    auto uni = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53 * 2.0 - 1.0; };
    int crossing = 0;
    for (int it = 0; it < 20000; ++it) {
        DVec3 p[3], q[3];
        for (int i = 0; i < 3; ++i) {
            p[i] = DVec3(uni(), uni(), uni());
            q[i] = DVec3(uni(), uni(), uni());
        }
        DVec3 s0, s1;
        if (triangleIntersection(p, q, s0, s1) != TriangleContact::Crossing) continue;
        ++crossing;
        for (const DVec3& s : {s0, s1}) {
            ASSERT_LT(distanceToTriangle(s, p), 1e-9);
            ASSERT_LT(distanceToTriangle(s, q), 1e-9);
        }
    }
    EXPECT_GT(crossing, 1000);
}

TEST(Predicates, ExactWhereTheFilterCannotDecide) {
    // Four points on one plane z = x + y, with coordinates that round in a naive evaluation.
    const double e = 0x1.0p-40;
    const DVec3 a(1.0 + e, 2.0, 3.0 + e), b(3.0, 1.0 + e, 4.0 + e), c(0.5, 0.25 + e, 0.75 + e);
    const DVec3 d(7.0 + e, 3.0, 10.0 + e);
    EXPECT_EQ(orient3d(a, b, c, d), 0);
    EXPECT_EQ(orient3d(a, b, c, d + DVec3(0, 0, 0x1.0p-45)), -orient3d(a, b, c, d - DVec3(0, 0, 0x1.0p-45)));
    EXPECT_NE(orient3d(a, b, c, d + DVec3(0, 0, 0x1.0p-45)), 0);
    EXPECT_EQ(orient2d(0.0, 0.0, 1.0 + e, 1.0 + e, 3.0 + 3 * e, 3.0 + 3 * e), 0);
    EXPECT_EQ(orient2d(0.0, 0.0, 1.0, 0.0, 0.5, 0x1.0p-60), 1);
}

// orient3dOfPoints (three points against one plane, as the triangle test asks) against the sign
// of the determinant computed exactly in 128-bit integers. Coordinates are integers below 2^36
// scaled by 2^-20 (exact doubles); the points are anywhere, on the plane, or one unit off it, and
// half the triangles are slivers (the second edge the first plus a few units), where a point one
// unit off the plane is far inside the filter's error bound: the exact fallback decides those.
TEST(Predicates, SignsOfPointsAgainstAPlaneAreTheExactDeterminantsSigns) {
    __extension__ typedef __int128 I;
    std::mt19937_64 rng(29);
    const std::int64_t range = std::int64_t(1) << 36;
    std::uniform_int_distribution<std::int64_t> coord(-range, range), small(-3, 3);
    const double scale = 0x1.0p-20;
    auto toD = [&](const std::int64_t v[3]) {
        return DVec3(double(v[0]) * scale, double(v[1]) * scale, double(v[2]) * scale);
    };
    int signs[3] = {0, 0, 0}, counted[3] = {0, 0, 0}, slivers = 0;
    for (int round = 0; round < 30000; ++round) {
        std::int64_t t[3][3], d[3][3];
        for (auto& p : t)
            for (auto& x : p) x = coord(rng);
        const bool sliver = round % 2 == 1;
        if (sliver)
            for (int k = 0; k < 3; ++k) t[2][k] = t[0][k] + 2 * (t[1][k] - t[0][k]) / 3 + small(rng);
        const I u[3] = {t[1][0] - t[0][0], t[1][1] - t[0][1], t[1][2] - t[0][2]};
        const I v[3] = {t[2][0] - t[0][0], t[2][1] - t[0][1], t[2][2] - t[0][2]};
        const int kind = (round / 2) % 3;  // anywhere, on the plane, one unit off it
        for (int i = 0; i < 3; ++i) {
            if (kind == 0) {
                for (auto& x : d[i]) x = coord(rng);
            } else {  // t[0] plus integer multiples of u and v, then nudged
                const std::int64_t a = small(rng), b = small(rng);
                for (int k = 0; k < 3; ++k) d[i][k] = t[0][k] + a * std::int64_t(u[k]) + b * std::int64_t(v[k]);
                if (kind == 2) d[i][i] += (rng() & 1) ? 1 : -1;
            }
        }
        const DVec3 td[3] = {toD(t[0]), toD(t[1]), toD(t[2])};
        const DVec3 dd[3] = {toD(d[0]), toD(d[1]), toD(d[2])};
        orient3dOfPoints(td, dd, 3, signs);
        for (int i = 0; i < 3; ++i) {
            const I w[3] = {d[i][0] - t[0][0], d[i][1] - t[0][1], d[i][2] - t[0][2]};
            const I det = (u[1] * v[2] - u[2] * v[1]) * w[0] + (u[2] * v[0] - u[0] * v[2]) * w[1] +
                          (u[0] * v[1] - u[1] * v[0]) * w[2];
            const int exact = det > 0 ? 1 : (det < 0 ? -1 : 0);
            ASSERT_EQ(signs[i], exact) << "round " << round << " point " << i;
            ASSERT_EQ(orient3d(td[0], td[1], td[2], dd[i]), exact) << "round " << round << " point " << i;
            ++counted[exact + 1];
            if (sliver && kind == 2 && exact != 0) ++slivers;
        }
    }
    EXPECT_GT(counted[0], 10000);
    EXPECT_GT(counted[1], 10000);  // on the plane
    EXPECT_GT(counted[2], 10000);
    EXPECT_GT(slivers, 10000);  // one unit off a sliver's plane, not zero
}

}  // namespace
