// TriangleGrid::inside (the parity test that keeps concave pockets from reading as deep
// contacts) against the winding number over every triangle.
#include "../../integration/src/TriangleGrid.h"

#include "isc/mesh/MeshIo.h"
#include "isc/mesh/Shapes.h"

#include <gtest/gtest.h>

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
