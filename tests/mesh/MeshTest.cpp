// Mesh::create: validation, the report, and the derived copies (scaled, centered).
#include "isc/mesh/Mesh.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace isc {
namespace {

// A 2 x 2 x 2 cube, written out by hand: 8 corners, 12 outward triangles.
std::vector<Vec3> cubeVertices() {
    return {{-1, -1, -1}, {1, -1, -1}, {-1, 1, -1}, {1, 1, -1},
            {-1, -1, 1},  {1, -1, 1},  {-1, 1, 1},  {1, 1, 1}};
}
std::vector<UVec3> cubeTriangles() {
    return {{1, 3, 7}, {1, 7, 5}, {0, 4, 6}, {0, 6, 2}, {2, 6, 7}, {2, 7, 3},
            {0, 1, 5}, {0, 5, 4}, {4, 5, 7}, {4, 7, 6}, {0, 2, 3}, {0, 3, 1}};
}

TEST(Mesh, CubeIsClosedWithVolumeEight) {
    Result<Mesh> mesh = Mesh::create("cube", cubeVertices(), cubeTriangles());
    ASSERT_TRUE(mesh.has_value()) << mesh.error().message;
    EXPECT_EQ(mesh->name(), "cube");
    EXPECT_EQ(mesh->vertexCount(), 8u);
    EXPECT_EQ(mesh->triangleCount(), 12u);
    EXPECT_TRUE(mesh->isClosed());
    EXPECT_EQ(mesh->report().boundaryEdges, 0u);
    EXPECT_EQ(mesh->report().nonManifoldEdges, 0u);
    EXPECT_EQ(mesh->report().degenerateDropped, 0u);
    EXPECT_EQ(mesh->report().misorientedEdges, 0u);
    EXPECT_TRUE(mesh->report().consistentlyOriented());
    EXPECT_EQ(mesh->report().describe(), "closed");
    EXPECT_DOUBLE_EQ(mesh->signedVolume(), 8.0);
    EXPECT_DOUBLE_EQ(mesh->surfaceArea(), 24.0);
    EXPECT_EQ(mesh->localBounds().min, Vec3(-1.0f));
    EXPECT_EQ(mesh->localBounds().max, Vec3(1.0f));
}

// A deforming mesh: new positions, same triangles and report; bounds and volume follow
// (the cube stretched to 2 x 4 x 2 has volume 16). Wrong counts, NaN and a triangle of zero
// area are errors naming the problem.
TEST(Mesh, WithVerticesKeepsTheTrianglesAndChecksThePositions) {
    Result<Mesh> cube = Mesh::create("cube", cubeVertices(), cubeTriangles());
    ASSERT_TRUE(cube);
    std::vector<Vec3> tall = cubeVertices();
    for (Vec3& v : tall) v.y *= 2.0f;
    Result<Mesh> stretched = cube->withVertices(tall);
    ASSERT_TRUE(stretched) << stretched.error().message;
    EXPECT_EQ(stretched->name(), "cube");
    EXPECT_EQ(stretched->triangleCount(), 12u);
    EXPECT_TRUE(stretched->isClosed());
    EXPECT_DOUBLE_EQ(stretched->signedVolume(), 16.0);
    EXPECT_EQ(stretched->localBounds().max, Vec3(1.0f, 2.0f, 1.0f));
    EXPECT_EQ(cube->localBounds().max, Vec3(1.0f));  // the original is untouched

    EXPECT_FALSE(cube->withVertices(std::vector<Vec3>(7, Vec3(0.0f))));
    std::vector<Vec3> nan = cubeVertices();
    nan[3].x = std::numeric_limits<float>::quiet_NaN();
    auto bad = cube->withVertices(nan);
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("vertex 3"), std::string::npos) << bad.error().message;
    std::vector<Vec3> flat = cubeVertices();
    for (Vec3& v : flat) v.x = 0.0f;  // every +-x face collapses
    auto degenerate = cube->withVertices(flat);
    ASSERT_FALSE(degenerate);
    EXPECT_NE(degenerate.error().message.find("zero area"), std::string::npos) << degenerate.error().message;
}

TEST(Mesh, InsideOutCubeHasNegativeVolume) {
    std::vector<UVec3> tris = cubeTriangles();
    for (UVec3& t : tris) std::swap(t.y, t.z);
    Result<Mesh> mesh = Mesh::create("inside-out", cubeVertices(), tris);
    ASSERT_TRUE(mesh.has_value());
    EXPECT_TRUE(mesh->isClosed());  // orientation is not part of closedness
    EXPECT_TRUE(mesh->report().consistentlyOriented());  // all flipped is still consistent
    EXPECT_DOUBLE_EQ(mesh->signedVolume(), -8.0);
}

TEST(Mesh, OneFlippedTriangleGivesThreeMisorientedEdges) {
    std::vector<UVec3> tris = cubeTriangles();
    std::swap(tris[4].y, tris[4].z);
    Result<Mesh> mesh = Mesh::create("flipped", cubeVertices(), tris);
    ASSERT_TRUE(mesh.has_value());
    EXPECT_TRUE(mesh->isClosed());
    EXPECT_FALSE(mesh->report().consistentlyOriented());
    EXPECT_EQ(mesh->report().misorientedEdges, 3u);
    EXPECT_EQ(mesh->report().describe(), "closed; 3 misoriented edges");
}

TEST(Mesh, OpenCubeCountsThreeBoundaryEdgesAndStaysUsable) {
    std::vector<UVec3> tris = cubeTriangles();
    tris.pop_back();
    Result<Mesh> mesh = Mesh::create("open", cubeVertices(), tris);
    ASSERT_TRUE(mesh.has_value()) << mesh.error().message;
    EXPECT_EQ(mesh->triangleCount(), 11u);
    EXPECT_EQ(mesh->report().boundaryEdges, 3u);
    EXPECT_EQ(mesh->report().nonManifoldEdges, 0u);
    EXPECT_FALSE(mesh->isClosed());
    EXPECT_EQ(mesh->report().describe(), "open: 3 boundary edges");
}

TEST(Mesh, NonManifoldEdgeIsCounted) {
    // Three triangles hinged on the edge (0, 1).
    std::vector<Vec3> v = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, -1, 0}};
    std::vector<UVec3> t = {{0, 1, 2}, {1, 0, 3}, {0, 1, 4}};
    Result<Mesh> mesh = Mesh::create("fan", v, t);
    ASSERT_TRUE(mesh.has_value());
    EXPECT_EQ(mesh->report().nonManifoldEdges, 1u);
    EXPECT_EQ(mesh->report().boundaryEdges, 6u);  // the two outer edges of each triangle
    EXPECT_EQ(mesh->report().describe(), "open: 6 boundary edges, 1 non-manifold edges");
}

TEST(Mesh, DegenerateTrianglesAreDroppedAndCounted) {
    std::vector<Vec3> v = cubeVertices();
    v.push_back({0.5f, -1.0f, -1.0f});  // 8: on the edge 0-1, collinear with it
    std::vector<UVec3> t = cubeTriangles();
    t.push_back({0, 0, 3});  // repeated index
    t.push_back({2, 5, 2});  // repeated index
    t.push_back({0, 8, 1});  // zero area
    Result<Mesh> mesh = Mesh::create("dirty", v, t);
    ASSERT_TRUE(mesh.has_value()) << mesh.error().message;
    EXPECT_EQ(mesh->report().degenerateDropped, 3u);
    EXPECT_EQ(mesh->triangleCount(), 12u);
    EXPECT_TRUE(mesh->isClosed());
    EXPECT_EQ(mesh->report().describe(), "closed; 3 degenerate triangles dropped");
    EXPECT_DOUBLE_EQ(mesh->signedVolume(), 8.0);
}

TEST(Mesh, ThinButRealTriangleIsKept) {
    // Height 1e-4 of its 1 m base: far above float resolution, so it is a real sliver.
    std::vector<Vec3> v = {{0, 0, 0}, {1, 0, 0}, {0.5f, 1e-4f, 0}};
    Result<Mesh> mesh = Mesh::create("sliver", v, {{0, 1, 2}});
    ASSERT_TRUE(mesh.has_value()) << mesh.error().message;
    EXPECT_EQ(mesh->report().degenerateDropped, 0u);
    EXPECT_EQ(mesh->triangleCount(), 1u);
    EXPECT_EQ(mesh->report().boundaryEdges, 3u);
}

TEST(Mesh, NanVertexIsAnErrorNamingIt) {
    std::vector<Vec3> v = cubeVertices();
    v[5].y = std::numeric_limits<float>::quiet_NaN();
    Result<Mesh> mesh = Mesh::create("bad", v, cubeTriangles());
    ASSERT_FALSE(mesh.has_value());
    EXPECT_NE(mesh.error().message.find("vertex 5"), std::string::npos) << mesh.error().message;
    EXPECT_NE(mesh.error().message.find("\"bad\""), std::string::npos) << mesh.error().message;
}

TEST(Mesh, InfVertexIsAnError) {
    std::vector<Vec3> v = cubeVertices();
    v[7].z = std::numeric_limits<float>::infinity();
    Result<Mesh> mesh = Mesh::create("bad", v, cubeTriangles());
    ASSERT_FALSE(mesh.has_value());
    EXPECT_NE(mesh.error().message.find("vertex 7"), std::string::npos) << mesh.error().message;
}

TEST(Mesh, IndexOutOfRangeIsAnErrorNamingTheTriangle) {
    std::vector<UVec3> t = cubeTriangles();
    t[3] = {0, 8, 2};  // 8 vertices: index 8 is one past the end
    Result<Mesh> mesh = Mesh::create("bad", cubeVertices(), t);
    ASSERT_FALSE(mesh.has_value());
    EXPECT_NE(mesh.error().message.find("triangle 3"), std::string::npos) << mesh.error().message;
    EXPECT_NE(mesh.error().message.find("only 8 vertices"), std::string::npos)
        << mesh.error().message;
}

TEST(Mesh, NoTriangleLeftIsAnError) {
    Result<Mesh> empty = Mesh::create("empty", cubeVertices(), {});
    ASSERT_FALSE(empty.has_value());
    EXPECT_NE(empty.error().message.find("no triangle left"), std::string::npos);

    std::vector<Vec3> line = {{0, 0, 0}, {1, 1, 1}, {2, 2, 2}};
    Result<Mesh> flat = Mesh::create("line", line, {{0, 1, 2}, {0, 0, 1}});
    ASSERT_FALSE(flat.has_value());
    EXPECT_NE(flat.error().message.find("2 degenerate dropped"), std::string::npos)
        << flat.error().message;
}

TEST(Mesh, ScaledMultipliesBoundsAndVolume) {
    Result<Mesh> mesh = Mesh::create("cube", cubeVertices(), cubeTriangles());
    ASSERT_TRUE(mesh.has_value());
    const Mesh big = mesh->scaled(2.5f);
    EXPECT_EQ(big.localBounds().max, Vec3(2.5f));
    EXPECT_EQ(big.localBounds().min, Vec3(-2.5f));
    EXPECT_NEAR(big.signedVolume(), 8.0 * 2.5 * 2.5 * 2.5, 1e-9);
    EXPECT_TRUE(big.isClosed());
    EXPECT_EQ(big.triangleCount(), 12u);
}

TEST(Mesh, CenteredMovesBoundsCentreToOrigin) {
    std::vector<Vec3> v = cubeVertices();
    for (Vec3& p : v) p = p * Vec3(1, 2, 3) + Vec3(10, -4, 0.5f);
    Result<Mesh> mesh = Mesh::create("moved", v, cubeTriangles());
    ASSERT_TRUE(mesh.has_value());
    const Mesh c = mesh->centered();
    EXPECT_EQ(c.localBounds().center(), Vec3(0.0f));
    EXPECT_EQ(c.localBounds().extent(), Vec3(2, 4, 6));
    EXPECT_NEAR(c.signedVolume(), 48.0, 1e-9);  // translation keeps the volume
    EXPECT_NEAR(mesh->signedVolume(), 48.0, 1e-6);
}

}  // namespace
}  // namespace isc
