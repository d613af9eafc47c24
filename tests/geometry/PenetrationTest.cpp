// Penetration measured from poses (isc/geometry/Penetration.h): the signed distance against
// brute force with an independent inside test (the generalized winding number), depths worked
// out by hand (boxes, spheres, containment, an open terrain), and the walk over the vertices
// inside against every vertex on sampled poses.
#include "isc/geometry/Penetration.h"
#include "isc/geometry/PoseSampler.h"
#include "isc/mesh/Shapes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

using namespace isc;
using namespace isc::geometry;

namespace {

// Closest point of a triangle (independent of the library's: barycentric clamping by brute
// force over the face and the three edges).
DVec3 closestOnSegment(const DVec3& p, const DVec3& a, const DVec3& b) {
    const DVec3 ab = b - a;
    const double t = std::clamp(glm::dot(p - a, ab) / glm::dot(ab, ab), 0.0, 1.0);
    return a + t * ab;
}
double distanceToTriangle(const DVec3& p, const DVec3& a, const DVec3& b, const DVec3& c) {
    const DVec3 n = glm::normalize(glm::cross(b - a, c - a));
    const DVec3 q = p - glm::dot(p - a, n) * n;  // onto the plane
    // Inside the triangle when q is on the inner side of all three edges.
    const bool inside = glm::dot(glm::cross(b - a, q - a), n) >= 0.0 && glm::dot(glm::cross(c - b, q - b), n) >= 0.0 &&
                        glm::dot(glm::cross(a - c, q - c), n) >= 0.0;
    if (inside) return std::abs(glm::dot(p - a, n));
    return std::min({glm::length(p - closestOnSegment(p, a, b)), glm::length(p - closestOnSegment(p, b, c)),
                     glm::length(p - closestOnSegment(p, c, a))});
}

// Generalized winding number (Van Oosterom & Strackee solid angles): about 1 inside a closed
// outward mesh, about 0 outside.
double windingNumber(const Mesh& m, const DVec3& p) {
    double sum = 0.0;
    for (const UVec3& t : m.triangles()) {
        const DVec3 a = DVec3(m.vertices()[t.x]) - p, b = DVec3(m.vertices()[t.y]) - p, c = DVec3(m.vertices()[t.z]) - p;
        const double la = glm::length(a), lb = glm::length(b), lc = glm::length(c);
        const double num = glm::dot(a, glm::cross(b, c));
        const double den = la * lb * lc + glm::dot(a, b) * lc + glm::dot(b, c) * la + glm::dot(c, a) * lb;
        sum += 2.0 * std::atan2(num, den);
    }
    return sum / (4.0 * std::numbers::pi);
}

double bruteSignedDistance(const Mesh& m, const DVec3& p) {
    double d = INFINITY;
    for (const UVec3& t : m.triangles())
        d = std::min(d, distanceToTriangle(p, DVec3(m.vertices()[t.x]), DVec3(m.vertices()[t.y]),
                                           DVec3(m.vertices()[t.z])));
    return windingNumber(m, p) > 0.5 ? -d : d;
}

DVec3 toLocal(const Pose& pose, const DVec3& w) {
    const glm::dquat q = glm::normalize(glm::dquat(pose.rotation.w, pose.rotation.x, pose.rotation.y, pose.rotation.z));
    return glm::conjugate(q) * (w - DVec3(pose.position));
}

// The deepest vertex of either mesh inside the other, over every vertex, by brute force.
double bruteDepth(const PosedMesh& a, const PosedMesh& b) {
    double depth = 0.0;
    for (int side = 0; side < 2; ++side) {
        const PosedMesh& from = side == 0 ? a : b;
        const PosedMesh& onto = side == 0 ? b : a;
        const Aabb box = onto.mesh().localBounds();
        for (const DVec3& v : from.worldVertices()) {
            const DVec3 p = toLocal(onto.pose(), v);
            // Outside the other's bounding box a vertex cannot be inside it.
            if (p.x < box.min.x || p.y < box.min.y || p.z < box.min.z || p.x > box.max.x || p.y > box.max.y ||
                p.z > box.max.z)
                continue;
            depth = std::max(depth, -bruteSignedDistance(onto.mesh(), p));
        }
    }
    return depth;
}

Pose at(Vec3 position, Quat rotation = Quat(1.0f, 0.0f, 0.0f, 0.0f)) {
    Pose p;
    p.position = position;
    p.rotation = rotation;
    return p;
}

}  // namespace

// Box of half extent 0.5: hand-worked distances, inside negative (faces, an edge, a corner).
TEST(Penetration, BoxSignedDistanceByHand) {
    const Mesh box = shapes::box(Vec3(0.5f));
    const SurfaceDistance d(box);
    struct Case {
        DVec3 p;
        double expected;
    };
    for (const Case& c : {Case{{0, 0, 0}, -0.5}, Case{{0.7, 0, 0}, 0.2}, Case{{0, -0.9, 0}, 0.4},
                          Case{{0.45, 0.45, 0}, -0.05}, Case{{0.6, 0.6, 0}, std::sqrt(0.02)},
                          Case{{0.6, 0.6, 0.6}, std::sqrt(0.03)}, Case{{0.3, 0.1, -0.49}, -0.01},
                          Case{{0.5, 0.2, 0.1}, 0.0}}) {
        EXPECT_NEAR(d.signedDistance(c.p), c.expected, 1e-12) << c.p.x << " " << c.p.y << " " << c.p.z;
    }
    // Nothing within the limit: +limit, no triangle.
    const auto far = d.closest(DVec3(3, 0, 0), 1.0);
    EXPECT_EQ(far.distance, 1.0);
    EXPECT_EQ(far.triangle, UINT32_MAX);
}

// Signed distance against brute force (every triangle) with the winding number's sign, on
// 400 random points around each of a torus and a torus knot (concave, closed): the same
// distance to 1e-9, the same side wherever the point is more than 1e-9 from the surface.
TEST(Penetration, SignedDistanceMatchesBruteForceAndWindingNumber) {
    std::mt19937_64 rng(5);
    for (const Mesh& m : {shapes::torus(1.0f, 0.35f, 24, 12), shapes::torusKnot(1.0f, 0.2f, 2, 3, 96, 8)}) {
        const SurfaceDistance d(m);
        const Aabb box = m.localBounds();
        std::uniform_real_distribution<double> ux(box.min.x - 0.2, box.max.x + 0.2), uy(box.min.y - 0.2, box.max.y + 0.2),
            uz(box.min.z - 0.2, box.max.z + 0.2);
        int inside = 0;
        for (int i = 0; i < 400; ++i) {
            const DVec3 p(ux(rng), uy(rng), uz(rng));
            const double got = d.signedDistance(p), want = bruteSignedDistance(m, p);
            EXPECT_NEAR(std::abs(got), std::abs(want), 1e-9) << m.name() << " point " << i;
            if (std::abs(want) > 1e-9) {
                EXPECT_EQ(got < 0.0, want < 0.0) << m.name() << " point " << i;
            }
            inside += want < 0.0;
        }
        EXPECT_GT(inside, 20) << m.name();  // both sides are exercised
    }
}

// A box sunk d into a larger box (faces parallel, and turned 30 degrees about y): d.
TEST(Penetration, BoxIntoBoxReadsTheOverlap) {
    const Mesh small = shapes::box(Vec3(0.5f)), big = shapes::box(Vec3(2.0f, 0.5f, 2.0f));
    const SurfaceDistance ds(small), db(big);
    PosedMesh a(small), b(big);
    b.update(at(Vec3(0.0f, -0.5f, 0.0f)));  // top face at y = 0
    for (float turn : {0.0f, 0.5236f})
        for (float d : {0.001f, 0.01f, 0.1f, 0.3f}) {
            a.update(at(Vec3(0.1f, 0.5f - d, -0.2f), glm::angleAxis(turn, Vec3(0, 1, 0))));
            const Penetration p = penetration(a, ds, b, db);
            EXPECT_NEAR(p.depth, d, 1e-6) << "turn " << turn << " depth " << d;
            EXPECT_TRUE(p.pointOnA);
            EXPECT_GT(p.crossingPairs, 0u);
            EXPECT_NEAR(clearance(a, ds, b, db, 1.0), -p.depth, 1e-12);
        }
    // Apart by 0.05: no depth, and the clearance is the gap (and capped at the limit).
    a.update(at(Vec3(0.1f, 0.55f, -0.2f)));
    EXPECT_EQ(penetration(a, ds, b, db).depth, 0.0);
    EXPECT_NEAR(clearance(a, ds, b, db, 1.0), 0.05, 1e-6);
    EXPECT_EQ(clearance(a, ds, b, db, 0.01), 0.01);
}

// Two spheres (poles on the line of centres) overlapping by d: the pole of each lies d deep
// in the other (less the flattening of the facets around the other's pole: within 1 %).
TEST(Penetration, SpheresReadTheirOverlap) {
    const Mesh s = shapes::uvSphere(0.5f, 32, 16);
    const SurfaceDistance ds(s);
    PosedMesh a(s), b(s);
    a.update(at(Vec3(0.0f)));
    for (float d : {0.02f, 0.1f, 0.3f}) {
        b.update(at(Vec3(0.0f, 1.0f - d, 0.0f)));
        const Penetration p = penetration(a, ds, b, ds);
        EXPECT_NEAR(p.depth, d, 0.01 * d) << "overlap " << d;
        EXPECT_LE(p.depth, d + 1e-6);
    }
}

// No crossing: a small box wholly inside a big one reads its deepest vertex (by hand: the
// corner nearest the big box's centre); apart reads 0.
TEST(Penetration, ContainedMeshReadsItsDeepestVertex) {
    const Mesh small = shapes::box(Vec3(0.1f)), big = shapes::box(Vec3(1.0f));
    const SurfaceDistance ds(small), db(big);
    PosedMesh a(small), b(big);
    b.update(at(Vec3(0.0f)));
    a.update(at(Vec3(0.5f, 0.6f, 0.0f)));  // corners from x 0.4..0.6, y 0.5..0.7
    Penetration p = penetration(a, ds, b, db);
    EXPECT_EQ(p.crossingPairs, 0u);
    // Deepest: a corner at x = 0.4, y = 0.5, z = +-0.1: 0.5 from the top face (y = 1).
    EXPECT_NEAR(p.depth, 0.5, 1e-6);
    p = penetration(b, db, a, ds);  // the same the other way round
    EXPECT_NEAR(p.depth, 0.5, 1e-6);
    EXPECT_FALSE(p.pointOnA);
    a.update(at(Vec3(3.0f, 0.0f, 0.0f)));
    EXPECT_EQ(penetration(a, ds, b, db).depth, 0.0);
}

// An open terrain (a bumpy height field, normals up): "inside" is below it. A box sunk into
// a bump reads the depth of its lowest corner below the surface; above, nothing.
TEST(Penetration, OpenTerrainReadsDepthBelowItsSurface) {
    std::vector<Vec3> verts;
    std::vector<UVec3> tris;
    const int n = 16;
    auto height = [](float x, float z) { return 0.05f * std::sin(2.0f * x) * std::cos(1.5f * z); };
    for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= n; ++j) {
            const float x = -2.0f + 4.0f * float(i) / n, z = -2.0f + 4.0f * float(j) / n;
            verts.emplace_back(x, height(x, z), z);
        }
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            const std::uint32_t v = std::uint32_t(i * (n + 1) + j);
            tris.emplace_back(v, v + 1, v + n + 1);  // counter-clockwise seen from above
            tris.emplace_back(v + 1, v + n + 2, v + n + 1);
        }
    auto terrain = Mesh::create("terrain", verts, tris);
    ASSERT_TRUE(terrain.has_value());
    ASSERT_FALSE(terrain->isClosed());
    const SurfaceDistance dt(*terrain);
    EXPECT_LT(dt.signedDistance(DVec3(0.1, -0.2, 0.1)), 0.0);
    EXPECT_GT(dt.signedDistance(DVec3(0.1, 0.2, 0.1)), 0.0);

    const Mesh box = shapes::box(Vec3(0.1f));
    const SurfaceDistance db(box);
    PosedMesh a(box), t(*terrain);
    t.update(at(Vec3(0.0f)));
    // The box's bottom face at y = -0.03 over the flat middle of a grid cell (x, z = 0:
    // height 0 there and 0 along x = 0): its corners at x = +-0.1 lie under the bump.
    a.update(at(Vec3(0.0f, 0.07f, 0.0f)));
    // By hand: the four bottom corners lie below the terrain (|height| < 0.01 there), each
    // as deep as its distance to the terrain's triangles (brute force); the terrain's vertex
    // at the origin lies in the box, 0.03 above its bottom face. The deepest of those.
    double expected = 0.03;
    for (const DVec3& v : a.worldVertices()) {
        if (v.y > 0.0) continue;
        double d = INFINITY;
        for (const UVec3& tri : terrain->triangles())
            d = std::min(d, distanceToTriangle(v, DVec3(verts[tri.x]), DVec3(verts[tri.y]), DVec3(verts[tri.z])));
        expected = std::max(expected, d);
    }
    const Penetration p = penetration(a, db, t, dt);
    EXPECT_GT(p.depth, 0.03);
    EXPECT_NEAR(p.depth, expected, 1e-9);
    a.update(at(Vec3(0.0f, 0.3f, 0.0f)));
    EXPECT_EQ(penetration(a, db, t, dt).depth, 0.0);
}

// The walk from the crossing triangles finds the deepest vertex that a test of every vertex
// finds (the brute-force signed distance with the winding number), on sampled close poses
// of tori and torus knots (concave: parts pass through each other).
TEST(Penetration, WalkMatchesEveryVertexOnSampledPoses) {
    for (const Mesh& m : {shapes::torus(1.0f, 0.35f, 24, 12), shapes::torusKnot(1.0f, 0.2f, 2, 3, 96, 8)}) {
        const SurfaceDistance d(m);
        PosedMesh a(m), b(m);
        int deep = 0, n = 0;
        for (const auto& [pa, pb] : sampleClosePoses(m, m, 40, 99)) {
            a.update(pa);
            b.update(pb);
            const Penetration p = penetration(a, d, b, d);
            EXPECT_NEAR(p.depth, bruteDepth(a, b), 1e-9) << m.name() << " pose " << n;
            deep += p.depth > 0.05;
            ++n;
        }
        EXPECT_GT(deep, 5) << m.name();
    }
}
