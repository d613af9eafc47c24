// Close-pose sampling (deterministic, overlapping boxes, a useful share colliding) and the
// pose file format (exact round trip, errors that name the line).
#include "isc/geometry/PoseSampler.h"
#include "isc/geometry/Reference.h"
#include "isc/mesh/Shapes.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace isc;
using namespace isc::geometry;

namespace {

Aabb worldBox(const Mesh& m, const Pose& p) {
    Aabb b;
    for (const Vec3& v : m.vertices()) b.grow(p.apply(v));
    return b;
}

bool samePose(const Pose& a, const Pose& b) {
    return a.position == b.position && a.rotation.w == b.rotation.w && a.rotation.x == b.rotation.x &&
           a.rotation.y == b.rotation.y && a.rotation.z == b.rotation.z;
}

TEST(PoseSampler, DeterministicOverlappingAndOftenColliding) {
    const Mesh t = shapes::torus(1.0f, 0.35f, 24, 12);
    const auto poses = sampleClosePoses(t, t, 300, 99);
    const auto again = sampleClosePoses(t, t, 300, 99);
    const auto other = sampleClosePoses(t, t, 300, 100);
    ASSERT_EQ(poses.size(), 300u);
    PosedMesh a(t), b(t);
    std::vector<TrianglePair> pairs;
    int colliding = 0;
    for (std::size_t i = 0; i < poses.size(); ++i) {
        EXPECT_TRUE(samePose(poses[i].first, again[i].first) && samePose(poses[i].second, again[i].second));
        EXPECT_TRUE(worldBox(t, poses[i].first).overlaps(worldBox(t, poses[i].second)));
        EXPECT_NEAR(glm::length(poses[i].second.rotation), 1.0f, 1e-6f);
        a.update(poses[i].first);
        b.update(poses[i].second);
        intersect(a, b, pairs);
        colliding += !pairs.empty();
    }
    EXPECT_FALSE(samePose(poses[0].second, other[0].second));
    // Documented target: 20-50% colliding (docs/reference.md has the measured numbers).
    EXPECT_GE(colliding, 300 * 15 / 100);
    EXPECT_LE(colliding, 300 * 55 / 100);
}

class PoseFile : public testing::Test {
protected:
    std::string path(const char* name) {
        const auto dir = std::filesystem::temp_directory_path() / "isc_geometry_test";
        std::filesystem::create_directories(dir);
        return (dir / name).string();
    }
    std::string writeText(const char* name, const std::string& text) {
        const std::string p = path(name);
        std::ofstream(p) << text;
        return p;
    }
};

TEST_F(PoseFile, RoundTripIsExact) {
    const Mesh box = shapes::box(Vec3(0.5f));
    const auto poses = sampleClosePoses(box, box, 50, 1);
    const std::string p = path("roundtrip.txt");
    ASSERT_TRUE(writePosesFile(p, poses).has_value());
    const auto back = readPosesFile(p);
    ASSERT_TRUE(back.has_value()) << back.error().message;
    ASSERT_EQ(back->size(), poses.size());
    for (std::size_t i = 0; i < poses.size(); ++i) {
        EXPECT_TRUE(samePose((*back)[i].first, poses[i].first)) << i;
        EXPECT_TRUE(samePose((*back)[i].second, poses[i].second)) << i;
    }
}

TEST_F(PoseFile, CommentsBlankLinesAndNormalisation) {
    const std::string p = writeText("comments.txt",
                                    "# header\n\n  1 2 3  2 0 0 0   -1 0.5 +2 0 0 0 3 # trailing comment\n"
                                    "\t0 0 0 1 0 0 0 0 0 0 1 0 0 0\n");
    const auto poses = readPosesFile(p);
    ASSERT_TRUE(poses.has_value()) << poses.error().message;
    ASSERT_EQ(poses->size(), 2u);
    const Pose& a = (*poses)[0].first;
    const Pose& b = (*poses)[0].second;
    EXPECT_EQ(a.position, Vec3(1, 2, 3));
    EXPECT_EQ(a.rotation.w, 1.0f);  // (2, 0, 0, 0) normalised
    EXPECT_EQ(b.position, Vec3(-1, 0.5f, 2));
    EXPECT_EQ(b.rotation.z, 1.0f);  // (0, 0, 0, 3) normalised
}

TEST_F(PoseFile, ErrorsNameTheLine) {
    struct Bad {
        const char* text;
        const char* needle;
    };
    const Bad bad[] = {
        {"0 0 0 1 0 0 0 0 0 0 1 0 0 0\n0 0 0 1 0 0 0\n", ":2: found 7 numbers, expected 14"},
        {"# c\n0 0 0 1 0 0 0 0 0 0 1 0 0 0 5\n", ":2: more than 14 numbers"},
        {"0 0 x 1 0 0 0 0 0 0 1 0 0 0\n", ":1: 'x' is not a number"},
        {"\n\n0 0 nan 1 0 0 0 0 0 0 1 0 0 0\n", ":3: 'nan' is not finite"},
        {"0 0 inf 1 0 0 0 0 0 0 1 0 0 0\n", ":1: 'inf' is not finite"},
        {"0 0 1e60 1 0 0 0 0 0 0 1 0 0 0\n", ":1: '1e60' is out of float range"},
        {"0 0 0 1 0 0 0 0 0 0 0 0 0 0\n", ":1: the quaternion of B has length 0"},
    };
    int i = 0;
    for (const Bad& b : bad) {
        const std::string name = "bad" + std::to_string(i++) + ".txt";
        const auto r = readPosesFile(writeText(name.c_str(), b.text));
        ASSERT_FALSE(r.has_value()) << b.text;
        EXPECT_NE(r.error().message.find(b.needle), std::string::npos) << r.error().message;
        EXPECT_NE(r.error().message.find(name), std::string::npos) << "names the file";
    }
    const auto missing = readPosesFile(path("does_not_exist.txt"));
    ASSERT_FALSE(missing.has_value());
    EXPECT_NE(missing.error().message.find("cannot open"), std::string::npos);
    const auto unwritable = writePosesFile("/nonexistent-dir/x/poses.txt", {});
    ASSERT_FALSE(unwritable.has_value());
    EXPECT_NE(unwritable.error().message.find("cannot write"), std::string::npos);
}

}  // namespace
