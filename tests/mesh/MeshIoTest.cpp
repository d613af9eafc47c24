// OBJ loading (through files the tests write) and the bundled bunny.
#include "isc/mesh/MeshIo.h"
#include "isc/mesh/Shapes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace isc {
namespace {

namespace fs = std::filesystem;

// A file in the temp folder, unique per process and test, removed at the end.
class TempFile {
public:
    explicit TempFile(const std::string& tag, const std::string& text) {
        const auto* info = testing::UnitTest::GetInstance()->current_test_info();
        path_ = (fs::temp_directory_path() /
                 ("isc_mesh_" + std::to_string(::getpid()) + "_" + info->name() + "_" + tag + ".obj"))
                    .string();
        std::ofstream(path_) << text;
    }
    ~TempFile() {
        std::error_code ec;
        fs::remove(path_, ec);
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

std::string toObj(const Mesh& mesh) {
    std::string s = "# written by MeshIoTest\no " + mesh.name() + "\n";
    for (const Vec3& v : mesh.vertices()) {
        // %.9g round-trips a float exactly.
        char line[128];
        std::snprintf(line, sizeof line, "v %.9g %.9g %.9g\n", v.x, v.y, v.z);
        s += line;
    }
    for (const UVec3& t : mesh.triangles()) {
        s += "f " + std::to_string(t.x + 1) + " " + std::to_string(t.y + 1) + " " +
             std::to_string(t.z + 1) + "\n";
    }
    return s;
}

TEST(MeshIo, ObjRoundTripIsExact) {
    const Mesh knot = shapes::torusKnot(1.0f, 0.15f, 2, 3, 64, 8);
    TempFile file("knot", toObj(knot));
    Result<Mesh> loaded = loadObj(file.path());
    ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
    ASSERT_EQ(loaded->vertexCount(), knot.vertexCount());
    ASSERT_EQ(loaded->triangleCount(), knot.triangleCount());
    for (std::size_t i = 0; i < knot.vertexCount(); ++i) {
        EXPECT_EQ(loaded->vertices()[i], knot.vertices()[i]) << "vertex " << i;
    }
    for (std::size_t i = 0; i < knot.triangleCount(); ++i) {
        EXPECT_EQ(loaded->triangles()[i], knot.triangles()[i]) << "triangle " << i;
    }
    EXPECT_TRUE(loaded->isClosed());
    EXPECT_DOUBLE_EQ(loaded->signedVolume(), knot.signedVolume());
    EXPECT_EQ(loaded->name(), fs::path(file.path()).stem().string());
}

TEST(MeshIo, QuadsAndSeveralShapesBecomeOneTriangulatedMesh) {
    // A unit cube as six quads, split over two 'o' shapes, with relative (negative) indices
    // in the second: 12 triangles, closed, volume 1.
    const std::string text =
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nv 0 0 1\nv 1 0 1\nv 0 1 1\nv 1 1 1\n"
        "o first\n"
        "f 2 4 8 6\nf 1 5 7 3\nf 3 7 8 4\n"
        "o second\n"
        "f -8 -7 -3 -4\nf -4 -3 -1 -2\nf -8 -6 -5 -7\n";
    TempFile file("quads", text);
    Result<Mesh> mesh = loadObj(file.path());
    ASSERT_TRUE(mesh.has_value()) << mesh.error().message;
    EXPECT_EQ(mesh->vertexCount(), 8u);
    EXPECT_EQ(mesh->triangleCount(), 12u);
    EXPECT_TRUE(mesh->isClosed()) << mesh->report().describe();
    EXPECT_DOUBLE_EQ(mesh->signedVolume(), 1.0);
}

TEST(MeshIo, MissingFileIsAnErrorNamingIt) {
    const std::string path = "/nonexistent/isc/nothing-here.obj";
    Result<Mesh> mesh = loadObj(path);
    ASSERT_FALSE(mesh.has_value());
    EXPECT_NE(mesh.error().message.find(path), std::string::npos) << mesh.error().message;
    EXPECT_NE(mesh.error().message.find("no such file"), std::string::npos) << mesh.error().message;
}

TEST(MeshIo, DirectoryIsAnError) {
    Result<Mesh> mesh = loadObj(fs::temp_directory_path().string());
    ASSERT_FALSE(mesh.has_value());
    EXPECT_NE(mesh.error().message.find("not a regular file"), std::string::npos);
}

TEST(MeshIo, FileWithoutFacesIsAnError) {
    TempFile file("points", "v 0 0 0\nv 1 0 0\nv 0 1 0\n");
    Result<Mesh> mesh = loadObj(file.path());
    ASSERT_FALSE(mesh.has_value());
    EXPECT_NE(mesh.error().message.find("no faces"), std::string::npos) << mesh.error().message;
    EXPECT_NE(mesh.error().message.find(file.path()), std::string::npos);
}

TEST(MeshIo, FaceIndexBeyondTheVerticesIsAnError) {
    TempFile file("badindex", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 9\n");
    Result<Mesh> mesh = loadObj(file.path());
    ASSERT_FALSE(mesh.has_value());
    EXPECT_NE(mesh.error().message.find(file.path()), std::string::npos) << mesh.error().message;
}

// tinyobjloader alone reads these as 0; loadObj must refuse them and say where.
TEST(MeshIo, NonFiniteOrGarbageCoordinateIsAnErrorNamingTheVertex) {
    for (const std::string bad : {"nan", "inf", "1e999", "abc", "1.0x"}) {
        TempFile file("coord", "v 0 0 0\nv 1 0 0\n# comment\nv 0 " + bad + " 0\nf 1 2 3\n");
        Result<Mesh> mesh = loadObj(file.path());
        ASSERT_FALSE(mesh.has_value()) << bad;
        EXPECT_NE(mesh.error().message.find("vertex 3 (1-based, line 4)"), std::string::npos)
            << mesh.error().message;
        EXPECT_NE(mesh.error().message.find("'" + bad + "'"), std::string::npos)
            << mesh.error().message;
    }
    TempFile shortLine("short", "v 0 0 0\nv 1 0\nv 0 1 0\nf 1 2 3\n");
    Result<Mesh> mesh = loadObj(shortLine.path());
    ASSERT_FALSE(mesh.has_value());
    EXPECT_NE(mesh.error().message.find("fewer than 3 coordinates"), std::string::npos)
        << mesh.error().message;
}

TEST(MeshIo, ParseFailureCarriesTinyobjloadersMessage) {
    TempFile file("parse", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 0 2\n");
    Result<Mesh> mesh = loadObj(file.path());
    ASSERT_FALSE(mesh.has_value());
    EXPECT_NE(mesh.error().message.find("tinyobjloader could not parse it"), std::string::npos)
        << mesh.error().message;
    EXPECT_NE(mesh.error().message.find("line 5"), std::string::npos) << mesh.error().message;
}

TEST(MeshIo, DegenerateFacesInAFileAreDroppedAndCounted) {
    TempFile file("degenerate", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 2 0 0\nf 1 2 3\nf 1 2 4\n");
    Result<Mesh> mesh = loadObj(file.path());
    ASSERT_TRUE(mesh.has_value()) << mesh.error().message;
    EXPECT_EQ(mesh->triangleCount(), 1u);
    EXPECT_EQ(mesh->report().degenerateDropped, 1u);
}

TEST(MeshIo, BunnyIsTheClosedNpmBunnyAboutOneMetreTall) {
    Result<Mesh> bunny = loadBunny(0.1f);
    ASSERT_TRUE(bunny.has_value()) << bunny.error().message;
    EXPECT_EQ(bunny->triangleCount(), 3674u);
    EXPECT_EQ(bunny->vertexCount(), 1839u);
    EXPECT_EQ(bunny->report().degenerateDropped, 0u);
    EXPECT_TRUE(bunny->isClosed()) << bunny->report().describe();
    EXPECT_TRUE(bunny->report().consistentlyOriented()) << bunny->report().describe();
    // Euler characteristic V - E + F with E = 3F/2: 2, a sphere-like (genus 0) surface.
    const auto faces = std::int64_t(bunny->triangleCount());
    EXPECT_EQ(std::int64_t(bunny->vertexCount()) - 3 * faces / 2 + faces, 2);
    EXPECT_GT(bunny->signedVolume(), 0.0);  // outward-facing
    const Aabb b = bunny->localBounds();
    EXPECT_NEAR(b.extent().y, 0.97f, 0.01f);
    EXPECT_NEAR(b.center().x, 0.0f, 1e-5f);
    EXPECT_NEAR(b.center().y, 0.0f, 1e-5f);
    EXPECT_NEAR(b.center().z, 0.0f, 1e-5f);

    // Scale is linear: the unscaled bunny is ten times taller, with 1000x the volume.
    Result<Mesh> raw = loadBunny(1.0f);
    ASSERT_TRUE(raw.has_value());
    EXPECT_NEAR(raw->localBounds().extent().y, 10.0f * b.extent().y, 1e-4f);
    EXPECT_NEAR(raw->signedVolume(), 1000.0 * bunny->signedVolume(), 1e-3 * raw->signedVolume());
}

TEST(MeshIo, BunnyOffsetChangesVolumeByAreaTimesDistance) {
    // Steiner: V(d) = V + A d + M d^2 + O(d^3) for a smooth closed surface (M: integrated
    // mean curvature). The central difference (V(d) - V(-d)) / 2d cancels M and gives A.
    // The bunny has A ~ 2.19 m^2; measured (V(d) - V(-d)) / 2d = 2.13 m^2 at d = 1 cm
    // (vertex-normal offsets of a coarse mesh are not an exact offset surface): 5% allowed.
    Result<Mesh> bunny = loadBunny(0.1f);
    ASSERT_TRUE(bunny.has_value()) << bunny.error().message;
    const float d = 0.01f;
    const Mesh grown = shapes::offset(*bunny, d);
    const Mesh shrunk = shapes::offset(*bunny, -d);
    for (const Mesh* m : {&grown, &shrunk}) {
        EXPECT_TRUE(m->isClosed()) << m->report().describe();
        EXPECT_EQ(m->triangleCount(), bunny->triangleCount());
    }
    EXPECT_GT(grown.signedVolume(), bunny->signedVolume());
    EXPECT_LT(shrunk.signedVolume(), bunny->signedVolume());
    const double area = bunny->surfaceArea();
    const double areaFromVolumes = (grown.signedVolume() - shrunk.signedVolume()) / (2.0 * d);
    EXPECT_NEAR(areaFromVolumes, area, 0.05 * area);
}

TEST(MeshIo, SubdividedBunnyLevelsForScalingBenchmarks) {
    Result<Mesh> bunny = loadBunny(0.1f);
    ASSERT_TRUE(bunny.has_value()) << bunny.error().message;
    const Mesh sub = shapes::subdivided(*bunny, 2);
    EXPECT_EQ(sub.triangleCount(), 3674u * 16u);
    EXPECT_EQ(sub.vertexCount(), 29394u);  // V = F / 2 + 2 for a closed genus-0 mesh
    EXPECT_TRUE(sub.isClosed());
    EXPECT_TRUE(sub.report().consistentlyOriented());
    EXPECT_NEAR(sub.signedVolume(), bunny->signedVolume(), 1e-6 * bunny->signedVolume());
}

TEST(MeshIo, BunnyPathFollowsTheEnvironmentVariable) {
    ASSERT_EQ(::unsetenv("ISC_BUNNY_OBJ"), 0);
    const std::string compiled = bunnyPath();
    EXPECT_FALSE(compiled.empty());

    ASSERT_EQ(::setenv("ISC_BUNNY_OBJ", "/nonexistent/isc/bunny.obj", 1), 0);
    EXPECT_EQ(bunnyPath(), "/nonexistent/isc/bunny.obj");
    Result<Mesh> missing = loadBunny();
    ASSERT_EQ(::unsetenv("ISC_BUNNY_OBJ"), 0);
    ASSERT_FALSE(missing.has_value());
    EXPECT_NE(missing.error().message.find("/nonexistent/isc/bunny.obj"), std::string::npos);
    EXPECT_NE(missing.error().message.find("cmake"), std::string::npos) << missing.error().message;
    EXPECT_NE(missing.error().message.find("npm"), std::string::npos) << missing.error().message;
    EXPECT_EQ(bunnyPath(), compiled);
}

TEST(MeshIo, BunnyRejectsABadScale) {
    EXPECT_FALSE(loadBunny(0.0f).has_value());
    EXPECT_FALSE(loadBunny(-1.0f).has_value());
}

}  // namespace
}  // namespace isc
