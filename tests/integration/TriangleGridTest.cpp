// TriangleGrid::inside (the parity test that keeps concave pockets from reading as deep
// contacts) against the winding number over every triangle.
#include "../../integration/src/PatchContacts.h"
#include "../../integration/src/TriangleGrid.h"

#include "isc/mesh/MeshIo.h"
#include "isc/mesh/Shapes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

using namespace isc;

namespace {

// Winding number (sum of the solid angles of the triangles seen from p, over 4 pi, by Van
// Oosterom and Strackee's formula): 1 inside a closed outward mesh, 0 outside; no rays, so
// no ties on edges.
bool insideBrute(const Mesh& m, const Vec3& p) {
    const auto v = m.vertices();
    double sum = 0.0;
    for (const UVec3& t : m.triangles()) {
        const glm::dvec3 a = glm::dvec3(v[t.x]) - glm::dvec3(p), b = glm::dvec3(v[t.y]) - glm::dvec3(p),
                         c = glm::dvec3(v[t.z]) - glm::dvec3(p);
        const double la = glm::length(a), lb = glm::length(b), lc = glm::length(c);
        const double det = glm::dot(a, glm::cross(b, c));
        const double den = la * lb * lc + glm::dot(a, b) * lc + glm::dot(b, c) * la + glm::dot(c, a) * lb;
        sum += 2.0 * std::atan2(det, den);
    }
    return sum / (4.0 * 3.14159265358979) > 0.5;
}

}  // namespace

TEST(TriangleGrid, InsideOfABox) {
    const Mesh box = shapes::box(Vec3(0.5f, 0.25f, 1.0f));
    const bullet::TriangleGrid grid(box, 0.04f);
    EXPECT_TRUE(grid.inside(box, Vec3(0.0f)));
    EXPECT_TRUE(grid.inside(box, Vec3(0.49f, 0.2f, -0.9f)));
    EXPECT_FALSE(grid.inside(box, Vec3(0.51f, 0.0f, 0.0f)));
    EXPECT_FALSE(grid.inside(box, Vec3(-0.51f, 0.0f, 0.0f)));
    EXPECT_FALSE(grid.inside(box, Vec3(0.0f, 0.3f, 0.0f)));
    EXPECT_FALSE(grid.inside(box, Vec3(5.0f, 0.0f, 0.0f)));  // outside the grid
}

// The bunny (concave: ears, the pocket under the chin): random points in its bounds agree
// with the winding number (brute force over every triangle).
TEST(TriangleGrid, InsideOfTheBunnyMatchesBruteForce) {
    Result<Mesh> bunny = loadBunny(0.1f);
    ASSERT_TRUE(bunny.has_value()) << bunny.error().message;
    const bullet::TriangleGrid grid(*bunny, 0.05f);
    const Aabb b = bunny->localBounds();
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> x(b.min.x, b.max.x), y(b.min.y, b.max.y), z(b.min.z, b.max.z);
    int in = 0, agree = 0, compared = 0;
    const int n = 1000;
    for (int i = 0; i < n; ++i) {
        const Vec3 p(x(rng), y(rng), z(rng));
        const bool brute = insideBrute(*bunny, p);
        // Points within about a millimetre of the surface may go either way (the grid's
        // ray starts a hair off the point): compare only where a 1 mm step along each
        // axis stays on the same side.
        bool clear = true;
        for (int a = 0; a < 3 && clear; ++a)
            for (const float s : {-0.001f, 0.001f}) {
                Vec3 q = p;
                q[a] += s;
                clear = clear && insideBrute(*bunny, q) == brute;
            }
        if (!clear) continue;
        ++compared;
        in += brute;
        agree += grid.inside(*bunny, p) == brute;
    }
    EXPECT_GT(compared, n * 9 / 10);
    EXPECT_EQ(agree, compared);
    EXPECT_GT(in, compared / 10);  // the test sees both sides
    EXPECT_LT(in, compared * 9 / 10);
}

namespace {

// The bunny with every vertex moved by a smooth wobble of `amplitude` per axis (at most
// amplitude * sqrt(3) each).
Mesh wobbled(const Mesh& m, float amplitude, float phase) {
    std::vector<Vec3> v(m.vertices().begin(), m.vertices().end());
    for (Vec3& p : v)
        p += amplitude * Vec3(std::sin(phase + 7.0f * p.y), std::sin(1.3f * phase + 7.0f * p.z), std::sin(0.7f * phase + 7.0f * p.x));
    Result<Mesh> out = m.withVertices(std::move(v));
    EXPECT_TRUE(out.has_value()) << out.error().message;
    return std::move(*out);
}

}  // namespace

// A deforming mesh's grid is built with slack and kept while every vertex stays within it
// (SceneMirror): on the moved bunny it must still list every triangle within reach of a point
// (against the distance to every triangle) and answer inside() as the winding number does.
TEST(TriangleGrid, KeptWithinItsSlackAnswersForTheMovedMesh) {
    Result<Mesh> bunny = loadBunny(0.1f);
    ASSERT_TRUE(bunny.has_value()) << bunny.error().message;
    const float reach = 0.04f, slack = 0.02f;
    bullet::TriangleGrid grid(*bunny, reach, slack);
    EXPECT_TRUE(grid.covers(*bunny));
    // 0.0112 per axis: each vertex within 0.0194 of where it was.
    const Mesh moved = wobbled(*bunny, 0.0112f, 0.9f);
    ASSERT_TRUE(grid.covers(moved));
    const auto v = moved.vertices();
    const auto tris = moved.triangles();
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> offset(-0.06f, 0.06f);
    std::uniform_int_distribution<std::size_t> vertex(0, v.size() - 1);
    std::size_t listed = 0, within = 0;
    for (int i = 0; i < 400; ++i) {
        const Vec3 p = v[vertex(rng)] + Vec3(offset(rng), offset(rng), offset(rng));
        const auto near = grid.near(p);
        for (std::uint32_t t = 0; t < tris.size(); ++t) {
            const UVec3 k = tris[t];
            bool face = false;
            if (glm::length(p - bullet::closestOnTriangle(p, v[k.x], v[k.y], v[k.z], face)) > reach) continue;
            ++within;
            const bool found = std::find(near.begin(), near.end(), t) != near.end();
            listed += found;
            ASSERT_TRUE(found) << "triangle " << t << " within reach of point " << i << " is not listed";
        }
    }
    EXPECT_GT(within, 4000u);  // the test sees many triangles near the surface
    EXPECT_EQ(listed, within);

    const Aabb b = moved.localBounds();
    std::uniform_real_distribution<float> x(b.min.x, b.max.x), y(b.min.y, b.max.y), z(b.min.z, b.max.z);
    int in = 0, agree = 0, compared = 0;
    for (int i = 0; i < 600; ++i) {
        const Vec3 p(x(rng), y(rng), z(rng));
        const bool brute = insideBrute(moved, p);
        bool clear = true;  // as in InsideOfTheBunnyMatchesBruteForce
        for (int a = 0; a < 3 && clear; ++a)
            for (const float s : {-0.001f, 0.001f}) {
                Vec3 q = p;
                q[a] += s;
                clear = clear && insideBrute(moved, q) == brute;
            }
        if (!clear) continue;
        ++compared;
        in += brute;
        agree += grid.inside(moved, p) == brute;
    }
    EXPECT_GT(compared, 500);
    EXPECT_EQ(agree, compared);
    EXPECT_GT(in, compared / 10);
    EXPECT_LT(in, compared * 9 / 10);
}

// covers(): false once a vertex moved past the slack, for a grid built without slack, and for
// another mesh; a rebuilt grid covers the mesh it was rebuilt over.
TEST(TriangleGrid, CoversOnlyWithinItsSlack) {
    Result<Mesh> bunny = loadBunny(0.1f);
    ASSERT_TRUE(bunny.has_value()) << bunny.error().message;
    bullet::TriangleGrid grid(*bunny, 0.04f, 0.02f);
    std::vector<Vec3> v(bunny->vertices().begin(), bunny->vertices().end());
    v[17].x += 0.0199f;
    Result<Mesh> inside = bunny->withVertices(v);
    ASSERT_TRUE(inside.has_value());
    EXPECT_TRUE(grid.covers(*inside));
    v[17].x += 0.0002f;  // 0.0201 from where it was
    Result<Mesh> past = bunny->withVertices(v);
    ASSERT_TRUE(past.has_value());
    EXPECT_FALSE(grid.covers(*past));
    grid.rebuild(*past, 0.04f, 0.02f);
    EXPECT_TRUE(grid.covers(*past));
    EXPECT_FALSE(grid.covers(*bunny));  // vertex 17 is 0.0201 from where the grid was built
    EXPECT_FALSE(bullet::TriangleGrid(*bunny, 0.04f).covers(*bunny));  // no slack
    EXPECT_FALSE(grid.covers(shapes::box(Vec3(0.5f))));              // another mesh
}
