// The deforming shape's per-step read (ShapeMesh): the swollen vertices' corner angles taken two at
// a time (acosNearAll) against acosNear one at a time, bit for bit, and against std::acos; the
// swollen vertices (two triangles at a time) against the same written corner by corner, bit for
// bit; the swollen surface's promise (every face plane moved out by at least the distance) on a
// box and on a wobbled bunny; and a shape read again after its vertices moved against the same
// shape read afresh.
#include "../../integration/src/ShapeMesh.h"

#include "BunnyWobble.h"

#include "isc/mesh/MeshIo.h"
#include "isc/mesh/Shapes.h"

#include <BulletCollision/CollisionShapes/btTriangleIndexVertexArray.h>
#include <BulletCollision/Gimpact/btGImpactShape.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using namespace isc;

namespace {

// Every face plane of `moved` lies at least `distance` (less float rounding) outside the plane of
// the same face of `mesh`, where no vertex of the face hit the 3x cap: the offset's contract.
void expectFacesMovedOut(const Mesh& mesh, const std::vector<Vec3>& moved, float distance) {
    const auto v = mesh.vertices();
    std::size_t checked = 0;
    for (const UVec3& t : mesh.triangles()) {
        const glm::dvec3 c = glm::cross(glm::dvec3(v[t.y] - v[t.x]), glm::dvec3(v[t.z] - v[t.x]));
        const glm::dvec3 n = c / glm::length(c);
        bool capped = false;
        for (int k = 0; k < 3; ++k)
            capped = capped || glm::length(glm::dvec3(moved[t[k]] - v[t[k]])) > 2.99 * double(distance);
        if (capped) continue;
        for (int k = 0; k < 3; ++k)
            EXPECT_GE(glm::dot(n, glm::dvec3(moved[t[k]]) - glm::dvec3(v[t[k]])), double(distance) * (1.0 - 1e-4));
        ++checked;
    }
    EXPECT_GT(checked, mesh.triangleCount() / 2);
}

// swollenVertices written corner by corner with glm and acosNear (its definition: angle-weighted
// normals, each vertex moved by distance over the least cosine, capped at 3x), for the bit-for-bit
// comparison with the library's form, which takes two triangles at a time.
std::vector<Vec3> swollenCornerByCorner(const Mesh& mesh, float distance) {
    const auto v = mesh.vertices();
    std::vector<glm::dvec3> normal(v.size(), glm::dvec3(0.0)), faces;
    for (const UVec3& t : mesh.triangles()) {
        const glm::dvec3 p[3] = {glm::dvec3(v[t.x]), glm::dvec3(v[t.y]), glm::dvec3(v[t.z])};
        const glm::dvec3 c = glm::cross(p[1] - p[0], p[2] - p[0]);
        const double len = glm::length(c);
        faces.push_back(len > 0.0 ? c / len : glm::dvec3(0.0));
        const glm::dvec3 e[3] = {p[1] - p[0], p[2] - p[1], p[0] - p[2]};
        for (int k = 0; k < 3; ++k) {
            const double lk = glm::length(e[k]), lb = glm::length(e[(k + 2) % 3]);
            if (lk > 0.0 && lb > 0.0)
                normal[t[k]] += faces.back() * bullet::acosNear(std::clamp(-glm::dot(e[k], e[(k + 2) % 3]) / (lk * lb), -1.0, 1.0));
        }
    }
    for (glm::dvec3& n : normal) n = glm::length(n) > 0.0 ? n / glm::length(n) : glm::dvec3(0.0);
    std::vector<double> least(v.size(), 1.0);
    for (std::size_t t = 0; t < faces.size(); ++t)
        for (int k = 0; k < 3; ++k) {
            const std::uint32_t i = mesh.triangles()[t][k];
            least[i] = std::min(least[i], glm::dot(normal[i], faces[t]));
        }
    std::vector<Vec3> moved(v.begin(), v.end());
    for (std::size_t i = 0; i < moved.size(); ++i)
        moved[i] += Vec3(normal[i] * (double(distance) / std::max(least[i], 1.0 / 3.0)));
    return moved;
}

}  // namespace

TEST(ShapeMesh, AnglesTwoAtATimeAreTheScalarAnglesBitForBit) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> x = {-1.0, 1.0, -0.0, 0.0, 0.5, -0.5, std::nextafter(1.0, 0.0), std::nextafter(-1.0, 0.0)};
    for (int i = 0; i < 20001; ++i) x.push_back(u(rng));  // odd: the last one alone
    std::vector<double> all = x;
    bullet::acosNearAll(all.data(), all.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        ASSERT_EQ(std::bit_cast<std::uint64_t>(all[i]), std::bit_cast<std::uint64_t>(bullet::acosNear(x[i]))) << x[i];
        ASSERT_NEAR(all[i], std::acos(x[i]), 2.2e-8) << x[i];  // 2.18e-8 at 0: the series' constant
    }
}

TEST(ShapeMesh, SwollenFacesMoveOutByTheDistance) {
    const Mesh box = shapes::box(Vec3(0.5f, 0.25f, 1.0f));
    expectFacesMovedOut(box, bullet::swollenVertices(box, 0.02f), 0.02f);
    auto bunny = loadBunny(0.1f);
    ASSERT_TRUE(bunny.has_value()) << bunny.error().message;
    auto shared = std::make_shared<const Mesh>(std::move(*bunny));
    scenes::BunnyWobble wobble(shared);
    std::vector<Vec3> v;
    for (int s : {0, 7, 40}) {
        wobble.vertices(3, float(s) / 60.0f, v);
        auto moved = shared->withVertices(v);
        ASSERT_TRUE(moved.has_value()) << moved.error().message;
        const std::vector<Vec3> swollen = bullet::swollenVertices(*moved, 0.02f);
        expectFacesMovedOut(*moved, swollen, 0.02f);
        EXPECT_EQ(swollen, swollenCornerByCorner(*moved, 0.02f));
    }
    // An odd number of triangles (the last one taken alone): the same vertices too.
    std::vector<UVec3> odd(shared->triangles().begin(), shared->triangles().end() - 1);
    if (shared->triangleCount() % 2 == 1) odd.pop_back();
    auto open = Mesh::create("bunny less one", std::vector<Vec3>(shared->vertices().begin(), shared->vertices().end()), odd);
    ASSERT_TRUE(open.has_value()) << open.error().message;
    ASSERT_EQ(open->triangleCount() % 2, 1u);
    EXPECT_EQ(bullet::swollenVertices(*open, 0.03f), swollenCornerByCorner(*open, 0.03f));
}

// Two boxes given as the two subparts of one shape (the second 3 m along x), scaled: after their
// corners move, the shape read again has exactly the vertices and normals of the same shape read
// afresh (each mesh vertex found in its own subpart where Bullet keeps it).
TEST(ShapeMesh, ReadAgainAcrossSubpartsIsTheShapeReadAfresh) {
    const Mesh box = shapes::box(Vec3(0.5f, 0.25f, 1.0f));
    std::vector<float> corners[2];
    std::vector<int> indices[2];
    for (int part = 0; part < 2; ++part) {
        for (const Vec3& v : box.vertices()) corners[part].insert(corners[part].end(), {v.x + 3.0f * float(part), v.y, v.z});
        for (const UVec3& t : box.triangles())
            for (int k = 0; k < 3; ++k) indices[part].push_back(int(t[k]));
    }
    btTriangleIndexVertexArray array;
    for (int part = 0; part < 2; ++part) {
        btIndexedMesh m;
        m.m_numTriangles = int(box.triangleCount());
        m.m_triangleIndexBase = reinterpret_cast<const unsigned char*>(indices[part].data());
        m.m_triangleIndexStride = 3 * sizeof(int);
        m.m_numVertices = int(box.vertexCount());
        m.m_vertexBase = reinterpret_cast<const unsigned char*>(corners[part].data());
        m.m_vertexStride = 3 * sizeof(float);
        array.addIndexedMesh(m, PHY_INTEGER);
    }
    btGImpactMeshShape shape(&array);
    shape.setLocalScaling(btVector3(2, 1, 1));
    auto read = bullet::readShapeMesh(shape);
    ASSERT_TRUE(read.has_value()) << read.error().message;
    ASSERT_EQ(read->mesh->vertexCount(), 2 * box.vertexCount());
    // Move every corner (each box its own way).
    for (std::size_t i = 0; i < box.vertexCount(); ++i)
        for (int part = 0; part < 2; ++part) {
            corners[part][3 * i + 0] += 0.01f * float(i);
            corners[part][3 * i + 1] -= 0.02f * float((i + std::size_t(part)) % 3);
            corners[part][3 * i + 2] *= 1.1f;
        }
    ASSERT_TRUE(bullet::rereadVertices(*read, shape).has_value());
    auto fresh = bullet::readShapeMesh(shape);
    ASSERT_TRUE(fresh.has_value()) << fresh.error().message;
    ASSERT_EQ(read->mesh->vertexCount(), fresh->mesh->vertexCount());
    for (std::size_t v = 0; v < fresh->mesh->vertexCount(); ++v) {
        EXPECT_EQ(read->mesh->vertices()[v], fresh->mesh->vertices()[v]) << v;
        EXPECT_EQ(read->vertexNormals[v], fresh->vertexNormals[v]) << v;
    }
    for (std::size_t t = 0; t < fresh->mesh->triangleCount(); ++t) EXPECT_EQ(read->faceNormals[t], fresh->faceNormals[t]);
    // Fewer vertices than when first read (4 in all; numbered across the subparts): an error, the
    // mesh kept.
    const std::vector<Vec3> before(read->mesh->vertices().begin(), read->mesh->vertices().end());
    array.getIndexedMeshArray()[0].m_numVertices = 2;
    array.getIndexedMeshArray()[1].m_numVertices = 2;
    const auto again = bullet::rereadVertices(*read, shape);
    ASSERT_FALSE(again.has_value());
    EXPECT_NE(again.error().message.find("fewer than when it was first read"), std::string::npos) << again.error().message;
    EXPECT_TRUE(std::equal(before.begin(), before.end(), read->mesh->vertices().begin()));
}
