// `isc accuracy` end to end, judged by brute force (every triangle pair of the two meshes
// tested, isc::geometry::intersectBruteForce), never by the tool's own reference: its
// verdicts file and the figures of its `accuracy:` line must be what brute force says about
// the detector's verdicts, for `cpu` and for `peel` (a GL detector, run by the tool in its
// own headless context).
#include "isc/geometry/PoseSampler.h"
#include "isc/geometry/Reference.h"
#include "isc/mesh/Shapes.h"

#include <gtest/gtest.h>

#include "ToolRun.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

namespace isc {
namespace {

// ctest runs each test in its own process, several at once: every file name carries the pid.
std::string tempPath(const std::string& name) {
    return (std::filesystem::temp_directory_path() / (std::to_string(::getpid()) + "_" + name)).string();
}

std::string runTool(const std::string& args, int& status) {
    const std::string out = tempPath("isc_tool_out.txt");
    status = std::system((test::toolPath() + " " + args + " > " + out + " 2>&1").c_str());
    std::ifstream f(out);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

std::string ratio(std::size_t num, std::size_t den) {
    if (den == 0) return "n/a";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f", double(num) / double(den));
    return buf;
}

struct Judged {
    std::size_t colliding = 0, truePositives = 0, falseNegatives = 0, falsePositives = 0;
};

// Runs the tool on `poses` torus poses (seed 7) with `detector` and `sets`, then judges every
// verdict against brute force and the tool's figures against those judgements.
Judged judge(const std::string& detector, const std::string& sets, int poseCount) {
    const std::string verdicts = tempPath("isc_verdicts_" + detector + ".txt");
    int status = 0;
    const std::string out = runTool("accuracy --detector " + detector + " --mesh torus --poses " +
                                        std::to_string(poseCount) + " --seed 7 --quiet " + sets + " --verdicts " + verdicts,
                                    status);
    Judged j;
    EXPECT_EQ(status, 0) << out;
    if (status != 0) return j;

    // The same poses, judged here by brute force. The tool's torus is torus(0.4, 0.15).
    const Mesh torus = shapes::torus(0.4f, 0.15f);
    const auto poses = geometry::sampleClosePoses(torus, torus, poseCount, 7);
    geometry::PosedMesh a(torus), b(torus);
    std::ifstream f(verdicts);
    std::string line;
    std::getline(f, line);  // header comment
    std::size_t truthPairs = 0, reportedPairs = 0;
    for (std::size_t i = 0; i < poses.size(); ++i) {
        EXPECT_TRUE(std::getline(f, line)) << detector << ": verdicts file ends at pose " << i;
        std::istringstream in(line);
        std::size_t index = 0, n = 0;
        int hit = 0;
        in >> index >> hit >> n;
        a.update(poses[i].first);
        b.update(poses[i].second);
        std::vector<TrianglePair> pairs;
        geometry::intersectBruteForce(a, b, pairs);
        const bool truth = !pairs.empty();
        EXPECT_EQ(index, i);
        // The narrowphase is exact: never a pair that does not intersect, so never more than
        // brute force finds (cpu: exactly as many).
        EXPECT_LE(n, pairs.size()) << detector << " pose " << i;
        if (detector == "cpu") {
            EXPECT_EQ(n, pairs.size()) << "pose " << i;
        }
        EXPECT_FALSE(hit && !truth) << detector << " pose " << i << ": a collision brute force does not see";
        j.colliding += truth;
        j.truePositives += truth && hit;
        j.falseNegatives += truth && !hit;
        j.falsePositives += !truth && hit;
        truthPairs += pairs.size();
        reportedPairs += n;
    }
    // The tool's line says what brute force says about its verdicts (recall over triangle
    // pairs: every reported pair is real, checked through tripair_precision=1).
    const std::string expected = "accuracy: detector=" + detector + " poses=" + std::to_string(poseCount) +
                                 " colliding=" + std::to_string(j.colliding) +
                                 " object_recall=" + ratio(j.truePositives, j.truePositives + j.falseNegatives) +
                                 " object_precision=" + ratio(j.truePositives, j.truePositives + j.falsePositives) +
                                 " tripair_recall=" + ratio(reportedPairs, truthPairs) +
                                 " false_negatives=" + std::to_string(j.falseNegatives) +
                                 " false_positives=" + std::to_string(j.falsePositives);
    EXPECT_NE(out.find(expected), std::string::npos) << "expected: " << expected << "\ngot:\n" << out;
    EXPECT_NE(out.find("tripair_precision=1.0000"), std::string::npos) << out;
    // The sampler promises close poses, a fair share of them colliding: both verdicts occur.
    EXPECT_GT(j.colliding, std::size_t(poseCount) / 6) << detector;
    EXPECT_LT(j.colliding, std::size_t(poseCount) * 5 / 6) << detector;
    return j;
}

TEST(AccuracyTool, CpuVerdictsAndFiguresAgreeWithBruteForce) {
    const Judged j = judge("cpu", "", 60);
    EXPECT_EQ(j.falseNegatives, 0u);
}

// peel at 128 pixels across (3 axes, 60 torus poses; the default 512 takes 4x longer on
// llvmpipe): whatever it finds, the tool reports it as brute force sees it; and it finds
// collisions at all (a detector reporting nothing would make the figures vacuous).
TEST(AccuracyTool, PeelVerdictsAndFiguresAgreeWithBruteForce) {
    const Judged j = judge("peel", "--set resolution=128", 60);
    EXPECT_GT(j.truePositives, j.colliding / 2);
}

TEST(AccuracyTool, PosesFileGivesHandWorkedVerdicts) {
    // Box (half extents 0.4 0.3 0.25) against itself: pose 0 identical (every face coincides:
    // colliding), pose 1 B moved 1 m along x (0.2 m gap: not), pose 2 B moved 0.7 m along x
    // (0.1 m overlap: colliding), pose 3 a line the tool must reject (bad quaternion count).
    const std::string poses = tempPath("isc_poses.txt");
    const std::string verdicts = tempPath("isc_poses_verdicts.txt");
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
    EXPECT_NE(out.find("isc_poses.txt:6:"), std::string::npos) << out;  // names file and line
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
