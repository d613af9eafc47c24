// Procedural shapes: closed, welded, outward, and the right size (volume by the divergence
// theorem against the analytic volume). Subdivision and offset surfaces.
#include "isc/mesh/Shapes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

namespace isc {
namespace {

constexpr double kPi = std::numbers::pi;

// Every directed edge (a, b) appears once and its reverse (b, a) once: closed, two-manifold
// and consistently oriented. Returns the number of directed edges that break that.
std::size_t orientationDefects(const Mesh& mesh) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, int> directed;
    for (const UVec3& t : mesh.triangles()) {
        ++directed[{t.x, t.y}];
        ++directed[{t.y, t.z}];
        ++directed[{t.z, t.x}];
    }
    std::size_t defects = 0;
    for (const auto& [edge, count] : directed) {
        const auto reverse = directed.find({edge.second, edge.first});
        if (count != 1 || reverse == directed.end() || reverse->second != 1) ++defects;
    }
    return defects;
}

// Pairs of vertices closer than `eps` (an unwelded seam shows up here).
std::size_t duplicateVertices(const Mesh& mesh, float eps) {
    std::vector<Vec3> v(mesh.vertices().begin(), mesh.vertices().end());
    std::sort(v.begin(), v.end(), [](const Vec3& a, const Vec3& b) { return a.x < b.x; });
    std::size_t duplicates = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
        for (std::size_t j = i + 1; j < v.size() && v[j].x - v[i].x < eps; ++j) {
            if (glm::length(v[j] - v[i]) < eps) ++duplicates;
        }
    }
    return duplicates;
}

// Length of the torus-knot centre curve, integrated independently of Shapes.cpp (the
// curve of three.js' TorusKnotGeometry: radius (2 + cos(q/p u)) / 2, height sin(q/p u) / 2).
double knotCurveLength(double scale, int p, int q) {
    const int n = 200000;
    auto point = [&](double u) {
        const double r = 0.5 * (2.0 + std::cos(double(q) / p * u));
        return DVec3(r * std::cos(u), 0.5 * std::sin(double(q) / p * u), r * std::sin(u)) * scale;
    };
    double length = 0.0;
    DVec3 prev = point(0.0);
    for (int i = 1; i <= n; ++i) {
        const DVec3 cur = point(2.0 * kPi * p * i / n);
        length += glm::length(cur - prev);
        prev = cur;
    }
    return length;
}

// A tube of n segments has a regular n-gon cross-section, whose area is this fraction of
// the circle's: the main volume loss of a tessellated tube (the knot's curve is smooth).
double polygonAreaFactor(int n) { return n * std::sin(2.0 * kPi / n) / (2.0 * kPi); }

struct ShapeCase {
    std::string name;
    std::function<Mesh()> make;
    std::size_t triangles;
    double volume;           // analytic volume of the smooth shape
    double relTolerance;     // |V_mesh - V| / V allowed at this tessellation
};

class Shapes : public testing::TestWithParam<ShapeCase> {};

TEST_P(Shapes, ClosedWeldedOutwardAndRightVolume) {
    const ShapeCase& c = GetParam();
    const Mesh mesh = c.make();
    EXPECT_EQ(mesh.triangleCount(), c.triangles);
    EXPECT_TRUE(mesh.isClosed()) << mesh.report().describe();
    EXPECT_EQ(mesh.report().boundaryEdges, 0u);
    EXPECT_EQ(mesh.report().nonManifoldEdges, 0u);
    EXPECT_EQ(mesh.report().degenerateDropped, 0u);
    EXPECT_EQ(mesh.report().misorientedEdges, 0u);
    EXPECT_EQ(orientationDefects(mesh), 0u);
    EXPECT_EQ(duplicateVertices(mesh, 1e-6f), 0u);
    // Closed + consistently oriented + positive volume = every triangle faces out.
    const double volume = mesh.signedVolume();
    EXPECT_GT(volume, 0.0);
    EXPECT_NEAR(volume, c.volume, c.relTolerance * c.volume)
        << "relative error " << (volume - c.volume) / c.volume;
}

// Tolerances: an inscribed tessellation loses volume ~ (pi / segments)^2. Measured at these
// settings: sphere 32x16 -1.6%, torus 48x24 -1.4%; the knots are compared with the volume
// of a tube of polygonal cross-section, pi r^2 L * polygonAreaFactor(n) (Pappus), which
// they match to a fraction of a percent.
INSTANTIATE_TEST_SUITE_P(
    Mesh, Shapes,
    testing::Values(
        ShapeCase{"box", [] { return shapes::box({1.0f, 2.0f, 3.0f}); }, 12, 48.0, 1e-12},
        ShapeCase{"sphere", [] { return shapes::uvSphere(1.0f); }, 32 * 15 * 2,
                  4.0 / 3.0 * kPi, 0.02},
        ShapeCase{"sphereCoarse", [] { return shapes::uvSphere(2.0f, 8, 4); }, 8 * 3 * 2,
                  4.0 / 3.0 * kPi * 8.0, 0.35},
        ShapeCase{"torus", [] { return shapes::torus(1.0f, 0.25f); }, 48 * 24 * 2,
                  2.0 * kPi * kPi * 1.0 * 0.25 * 0.25, 0.02},
        ShapeCase{"torusKnot", [] { return shapes::torusKnot(); }, 256 * 16 * 2,
                  kPi * 0.15 * 0.15 * knotCurveLength(1.0, 2, 3) * polygonAreaFactor(16), 0.005},
        ShapeCase{"torusKnot35", [] { return shapes::torusKnot(2.0f, 0.2f, 3, 5, 384, 12); },
                  384 * 12 * 2,
                  kPi * 0.2 * 0.2 * knotCurveLength(2.0, 3, 5) * polygonAreaFactor(12), 0.005},
        ShapeCase{"sphereSub2", [] { return shapes::subdivided(shapes::uvSphere(1.0f), 2); },
                  960 * 16, 4.0 / 3.0 * kPi, 0.02}),
    [](const testing::TestParamInfo<ShapeCase>& p) { return p.param.name; });

// The volume error shrinks as the tessellation gets finer (second order: about 4x per
// doubling of both segment counts).
TEST(Shapes, SphereAndTorusConvergeWithMoreSegments) {
    const double sphere = 4.0 / 3.0 * kPi;
    double previous = 1.0;
    for (int n : {8, 16, 32, 64}) {  // measured: 6.3%, 1.6%, 0.40%, 0.10%
        const double err = std::abs(shapes::uvSphere(1.0f, 2 * n, n).signedVolume() - sphere) / sphere;
        std::printf("sphere %d x %d: relative volume error %.5f\n", 2 * n, n, err);
        EXPECT_LT(err, previous / 3.5) << n << " stacks";
        previous = err;
    }
    EXPECT_LT(previous, 0.004);

    const double torus = 2.0 * kPi * kPi * 2.0 * 0.5 * 0.5;
    previous = 1.0;
    for (int n : {6, 12, 24, 48}) {  // measured: 21%, 5.6%, 1.4%, 0.36%
        const double err = std::abs(shapes::torus(2.0f, 0.5f, 2 * n, n).signedVolume() - torus) / torus;
        std::printf("torus %d x %d: relative volume error %.5f\n", 2 * n, n, err);
        EXPECT_LT(err, previous / 3.5) << n << " minor segments";
        previous = err;
    }
    EXPECT_LT(previous, 0.004);
}

TEST(Shapes, BoxFacesPointOutward) {
    const Mesh box = shapes::box({1.0f, 2.0f, 3.0f});
    for (const UVec3& t : box.triangles()) {
        const Vec3 a = box.vertices()[t.x], b = box.vertices()[t.y], c = box.vertices()[t.z];
        const Vec3 n = glm::cross(b - a, c - a);
        EXPECT_GT(glm::dot(n, (a + b + c) / 3.0f), 0.0f);  // convex and centred: n . centroid > 0
    }
    EXPECT_EQ(box.localBounds().min, Vec3(-1, -2, -3));
    EXPECT_EQ(box.localBounds().max, Vec3(1, 2, 3));
    EXPECT_DOUBLE_EQ(box.surfaceArea(), 2.0 * (2 * 4 + 2 * 6 + 4 * 6));
}

TEST(Shapes, SphereTrianglesPointOutward) {
    const Mesh sphere = shapes::uvSphere(1.5f, 12, 7);
    for (const UVec3& t : sphere.triangles()) {
        const Vec3 a = sphere.vertices()[t.x], b = sphere.vertices()[t.y], c = sphere.vertices()[t.z];
        EXPECT_GT(glm::dot(glm::cross(b - a, c - a), (a + b + c) / 3.0f), 0.0f);
    }
    EXPECT_NEAR(sphere.localBounds().max.y, 1.5f, 1e-6f);
    EXPECT_NEAR(sphere.localBounds().min.y, -1.5f, 1e-6f);
}

TEST(Shapes, TorusKnotFitsItsStatedBound) {
    const Mesh knot = shapes::torusKnot(2.0f, 0.1f);
    float farthest = 0.0f;
    for (const Vec3& v : knot.vertices()) farthest = std::max(farthest, glm::length(v));
    EXPECT_LE(farthest, 1.5f * 2.0f + 0.1f + 1e-5f);
    EXPECT_GT(farthest, 1.5f * 2.0f);
}

TEST(Shapes, SubdividedBoxKeepsVolumeAndClosedness) {
    const Mesh box = shapes::box({0.5f, 1.0f, 2.0f});
    EXPECT_EQ(shapes::subdivided(box, 0).triangleCount(), 12u);
    std::size_t expected = 12;
    for (int k = 1; k <= 4; ++k) {
        expected *= 4;
        const Mesh sub = shapes::subdivided(box, k);
        EXPECT_EQ(sub.triangleCount(), expected) << "level " << k;
        EXPECT_TRUE(sub.isClosed()) << "level " << k << ": " << sub.report().describe();
        EXPECT_EQ(orientationDefects(sub), 0u) << "level " << k;
        EXPECT_NEAR(sub.signedVolume(), 8.0 * 0.5 * 1.0 * 2.0, 1e-5) << "level " << k;
        EXPECT_EQ(sub.localBounds().min, box.localBounds().min);
        EXPECT_EQ(sub.localBounds().max, box.localBounds().max);
        // Euler: V - E + F = 2 for a sphere-like closed mesh, E = 3F/2.
        EXPECT_EQ(std::int64_t(sub.vertexCount()) - std::int64_t(3 * expected / 2) +
                      std::int64_t(expected),
                  2);
    }
}

TEST(Shapes, SubdividedKeepsOpenMeshesOpenWithMoreBoundaryEdges) {
    const Mesh box = shapes::box(Vec3(1.0f));
    std::vector<UVec3> tris(box.triangles().begin(), box.triangles().end() - 1);
    Result<Mesh> open = Mesh::create("open", {box.vertices().begin(), box.vertices().end()}, tris);
    ASSERT_TRUE(open.has_value());
    const Mesh sub = shapes::subdivided(*open, 1);
    EXPECT_EQ(sub.triangleCount(), 44u);
    EXPECT_EQ(sub.report().boundaryEdges, 6u);  // each boundary edge split in two
}

TEST(Shapes, OffsetSphereRadiusGrowsByDistance) {
    const float r = 1.0f;
    const Mesh sphere = shapes::uvSphere(r, 48, 24);
    for (float d : {0.1f, 0.25f, -0.2f}) {
        const Mesh grown = shapes::offset(sphere, d);
        EXPECT_EQ(grown.triangleCount(), sphere.triangleCount());
        EXPECT_EQ(grown.vertexCount(), sphere.vertexCount());
        EXPECT_TRUE(grown.isClosed());
        float lo = 1e9f, hi = 0.0f;
        for (const Vec3& v : grown.vertices()) {
            lo = std::min(lo, glm::length(v));
            hi = std::max(hi, glm::length(v));
        }
        // Area-weighted normals of a UV sphere lean slightly off radial (the stacks above
        // and below differ in area); the radius stays within 0.2% of |d| of r + d.
        EXPECT_NEAR(lo, r + d, 0.002f * std::abs(d)) << "d = " << d;
        EXPECT_NEAR(hi, r + d, 0.002f * std::abs(d)) << "d = " << d;
        // And the volume is the offset sphere's, as well as the tessellation allows.
        const double expected = sphere.signedVolume() * std::pow((r + d) / r, 3.0);
        EXPECT_NEAR(grown.signedVolume(), expected, 0.002 * expected) << "d = " << d;
    }
}

TEST(Shapes, OffsetBoxMovesCornersAlongVertexNormals) {
    // Every corner of a box is on 3 faces; the area-weighted normal (twice-area sums of
    // its 4 or 5 triangles) points out of the box on all three axes.
    const Mesh box = shapes::box(Vec3(1.0f));
    const Mesh grown = shapes::offset(box, 0.1f);
    for (std::size_t i = 0; i < box.vertexCount(); ++i) {
        const Vec3 moved = grown.vertices()[i] - box.vertices()[i];
        EXPECT_NEAR(glm::length(moved), 0.1f, 1e-6f);
        EXPECT_GT(glm::dot(moved, box.vertices()[i]), 0.0f);
        for (int axis = 0; axis < 3; ++axis) {
            EXPECT_GT(moved[axis] * box.vertices()[i][axis], 0.0f) << "corner " << i;
        }
    }
    EXPECT_GT(grown.signedVolume(), box.signedVolume());
    EXPECT_DOUBLE_EQ(shapes::offset(box, 0.0f).signedVolume(), box.signedVolume());
}

}  // namespace
}  // namespace isc
