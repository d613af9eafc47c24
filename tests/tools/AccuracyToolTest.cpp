// `isc accuracy --detector cpu` end to end: its verdicts file must agree with brute force
// on the same poses, and it must report recall 1 and precision 1 (it is its own oracle).
#include "isc/geometry/PoseSampler.h"
#include "isc/geometry/Reference.h"
#include "isc/mesh/Shapes.h"

#include "ToolRun.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace isc {
namespace {

using test::runTool;
using test::tempPath;

TEST(AccuracyTool, CpuVerdictsAgreeWithBruteForce) {
    const std::string verdicts = tempPath("isc_verdicts", ".txt");
    int status = 0;
    const std::string out =
        runTool("accuracy --detector cpu --mesh torus --poses 60 --seed 7 --verdicts " + verdicts, status);
    ASSERT_EQ(status, 0) << out;
    EXPECT_NE(out.find("accuracy: detector=cpu poses=60 "), std::string::npos) << out;
    EXPECT_NE(out.find("object_recall=1.0000 object_precision=1.0000 tripair_recall=1.0000 "
                       "false_negatives=0 false_positives=0"),
              std::string::npos)
        << out;

    // The same poses, judged here by brute force. The tool's torus is torus(0.4, 0.15).
    const Mesh torus = shapes::torus(0.4f, 0.15f);
    const auto poses = geometry::sampleClosePoses(torus, torus, 60, 7);
    geometry::PosedMesh a(torus), b(torus);
    std::ifstream f(verdicts);
    std::string line;
    std::getline(f, line);  // header comment
    int colliding = 0;
    for (std::size_t i = 0; i < poses.size(); ++i) {
        ASSERT_TRUE(std::getline(f, line)) << "verdicts file ends at pose " << i;
        std::istringstream in(line);
        std::size_t index = 0, n = 0;
        int hit = 0;
        in >> index >> hit >> n;
        a.update(poses[i].first);
        b.update(poses[i].second);
        std::vector<TrianglePair> pairs;
        geometry::intersectBruteForce(a, b, pairs);
        EXPECT_EQ(index, i);
        EXPECT_EQ(hit, pairs.empty() ? 0 : 1) << "pose " << i;
        EXPECT_EQ(n, pairs.size()) << "pose " << i;
        colliding += hit;
    }
    // The sampler promises close poses, a fair share of them colliding.
    EXPECT_GT(colliding, 6);
    EXPECT_LT(colliding, 54);
}

TEST(AccuracyTool, PosesFileGivesHandWorkedVerdicts) {
    // Box (half extents 0.4 0.3 0.25) against itself: pose 0 identical (every face coincides:
    // colliding), pose 1 B moved 1 m along x (0.2 m gap: not), pose 2 B moved 0.7 m along x
    // (0.1 m overlap: colliding), pose 3 a line the tool must reject (bad quaternion count).
    const std::string poses = tempPath("isc_poses", ".txt");
    const std::string verdicts = tempPath("isc_poses_verdicts", ".txt");
    {
        std::ofstream f(poses);
        f << "# tx ty tz qw qx qy qz (A) then (B)\n"
          << "0 0 0 1 0 0 0   0 0 0 1 0 0 0\n"
          << "0 0 0 1 0 0 0   1 0 0 1 0 0 0\n"
          << "\n"
          << "0 0 0 1 0 0 0   0.7 0 0 1 0 0 0\n";
    }
    int status = 0;
    std::string out = runTool("accuracy --detector cpu --mesh box --poses-file " + poses +
                                  " --verdicts " + verdicts + " --quiet",
                              status);
    ASSERT_EQ(status, 0) << out;
    EXPECT_NE(out.find("poses=3 colliding=2 "), std::string::npos) << out;
    std::ifstream v(verdicts);
    std::string line, all;
    std::getline(v, line);  // header
    std::vector<int> hits;
    while (std::getline(v, line)) {
        std::istringstream in(line);
        int index = 0, hit = 0, n = 0;
        in >> index >> hit >> n;
        hits.push_back(hit);
        if (hit) EXPECT_GT(n, 0) << line;
        else EXPECT_EQ(n, 0) << line;
    }
    EXPECT_EQ(hits, (std::vector<int>{1, 0, 1}));

    {
        std::ofstream f(poses, std::ios::app);
        f << "0 0 0 1 0 0   0 0 0 1 0 0 0\n";
    }
    out = runTool("accuracy --detector cpu --mesh box --poses-file " + poses, status);
    EXPECT_NE(status, 0);
    EXPECT_NE(out.find(poses + ":6:"), std::string::npos) << out;  // names file and line
}

TEST(AccuracyTool, BadArgumentsGiveAClearError) {
    int status = 0;
    std::string out = runTool("accuracy --detector nope --poses 2", status);
    EXPECT_NE(status, 0);
    EXPECT_NE(out.find("unknown detector 'nope'"), std::string::npos) << out;
    out = runTool("accuracy --detector cpu --mesh /nonexistent/file.obj --poses 2", status);
    EXPECT_NE(status, 0);
    EXPECT_NE(out.find("/nonexistent/file.obj"), std::string::npos) << out;
}

}  // namespace
}  // namespace isc
