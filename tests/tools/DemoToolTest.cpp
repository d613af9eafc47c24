// `isc demo` headless end to end: the auto line, numbered frames for a video, live switches
// that carry every body's state across (free fall matches a run without switches), and bad
// input (no display, unknown detector, missing mesh, malformed options) for demo and accuracy.
#include "isc/detect/Registry.h"

#include "Png.h"
#include "ToolRun.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

namespace isc {
namespace {

using test::runTool;
using test::tempPath;

// The progress lines: step -> (max speed, contacts, detector).
struct StepLine {
    double speed = 0.0;
    int contacts = 0;
    std::string detector;
};
std::map<int, StepLine> stepLines(const std::string& out) {
    std::map<int, StepLine> lines;
    const std::regex re(R"(step +(\d+)/\d+ .* max speed ([0-9.]+) m/s  contacts (\d+)  \[([a-z-]+)\])");
    for (std::sregex_iterator it(out.begin(), out.end(), re), end; it != end; ++it)
        lines[std::stoi((*it)[1])] = {std::stod((*it)[2]), std::stoi((*it)[3]), (*it)[4]};
    return lines;
}

TEST(DemoTool, AutoSaysWhatItChoseAndWhy) {
    int code = 0;
    const std::string out = runTool("demo bunny-pile --headless --bodies 1 --steps 1 --out ''", code);
    ASSERT_EQ(code, 0) << out;
    // The rule says the renderer and why: on llvmpipe (CI) it picks cpu at once; on a hardware GL
    // (the GPU rounds run this test too) it names the detectors it will measure.
    if (out.find("llvmpipe") != std::string::npos) {
        EXPECT_NE(out.find("detector: auto -> cpu (llvmpipe"), std::string::npos) << out;
        EXPECT_NE(out.find("software GL"), std::string::npos) << out;
    } else {
        EXPECT_NE(out.find("detector: auto -> measuring cpu, peel"), std::string::npos) << out;
        EXPECT_NE(out.find("hardware GL, the fastest of"), std::string::npos) << out;
    }
    EXPECT_NE(out.find("summary: detector=cpu auto=yes bodies=1 steps=1 "), std::string::npos) << out;
}

TEST(DemoTool, FramesAreNumberedPicturesOfTheFall) {
    const std::string dir = tempPath("isc_frames");
    int code = 0;
    const std::string out = runTool("demo bunny-pile --headless --bodies 2 --steps 12 --frame-every 3 --frames " + dir +
                                        " --width 320 --height 200 --out ''",
                                    code);
    ASSERT_EQ(code, 0) << out;
    EXPECT_NE(out.find("wrote 4 frames to " + dir), std::string::npos) << out;
    std::vector<test::Picture> frames;
    for (int i = 1; i <= 4; ++i) {
        char name[32];
        std::snprintf(name, sizeof name, "frame_%06d.png", i);
        frames.push_back(test::loadPng((std::filesystem::path(dir) / name).string()));
        ASSERT_EQ(frames.back().width, 320) << name;
        ASSERT_EQ(frames.back().height, 200) << name;
        // Two coloured bunnies in view (the palette is saturated, the ground grey).
        EXPECT_GT(test::countPixels(frames.back(), 0, 0, 320, 200, test::saturated), 200) << name;
    }
    EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(dir) / "frame_000005.png"));
    // Between steps 3 and 12 the bunnies fall 0.5 g (0.2^2 - 0.05^2) = 0.18 m: the pictures differ.
    int changed = 0;
    for (std::size_t i = 0; i < frames[0].rgba.size(); i += 4)
        changed += frames[0].rgba[i] != frames[3].rgba[i] || frames[0].rgba[i + 1] != frames[3].rgba[i + 1];
    EXPECT_GT(changed, 200);
    std::filesystem::remove_all(dir);
}

TEST(DemoTool, LiveSwitchesCarryTheBodiesState) {
    // Free fall until about step 21: every detector gives the same speeds, so a switch that
    // kept each body's pose and velocity matches the run without switches exactly.
    int code = 0;
    const std::string base = "demo bunny-pile --headless --bodies 3 --steps 30 --out '' --set resolution=64 --set axes=1";
    const std::string plain = runTool(base + " --detector cpu", code);
    ASSERT_EQ(code, 0) << plain;
    const std::string switched =
        runTool(base + " --switch 7:peel --switch 13:bullet-gimpact --switch 19:auto", code);
    ASSERT_EQ(code, 0) << switched;
    for (const char* s : {"switched detector to peel at step 6", "switched detector to bullet-gimpact at step 12",
                          "switched detector to auto at step 18"})
        EXPECT_NE(switched.find(s), std::string::npos) << s << "\n" << switched;
    const auto a = stepLines(plain), b = stepLines(switched);
    ASSERT_EQ(a.size(), 10u) << plain;
    ASSERT_EQ(b.size(), 10u) << switched;
    EXPECT_EQ(b.at(9).detector, "peel");
    EXPECT_EQ(b.at(15).detector, "bullet-gimpact");
    EXPECT_EQ(b.at(30).detector, "cpu");
    for (int step : {3, 6, 9, 12, 15, 18})
        EXPECT_NEAR(b.at(step).speed, a.at(step).speed, 1e-3) << "step " << step;
    EXPECT_NEAR(a.at(18).speed, 18 * 9.81 / 60, 2e-3);  // still falling freely: g t
    // The run goes on after the last switch: the bunnies land and touch the ground.
    EXPECT_GT(b.at(30).contacts, 0) << switched;
    EXPECT_NE(switched.find("summary: detector=cpu auto=yes bodies=3 steps=30 "), std::string::npos) << switched;
}

TEST(ToolBadInput, NoDisplayAsksForHeadless) {
    int code = 0;
    const std::string out = runTool("demo bunny-pile --steps 1", code, "env -u DISPLAY -u WAYLAND_DISPLAY");
    EXPECT_EQ(code, 2) << out;
    EXPECT_NE(out.find("no display"), std::string::npos) << out;
    EXPECT_NE(out.find("--headless"), std::string::npos) << out;
    // A display that cannot be opened: GLFW's reason and the same hint.
    const std::string bad = runTool("demo bunny-pile --steps 1", code, "env -u WAYLAND_DISPLAY DISPLAY=:987");
    EXPECT_EQ(code, 1) << bad;
    EXPECT_NE(bad.find("cannot open a window"), std::string::npos) << bad;
    EXPECT_NE(bad.find("--headless"), std::string::npos) << bad;
}

TEST(ToolBadInput, UnknownDetectorListsTheNames) {
    int code = 0;
    for (const std::string& cmd : {std::string("demo bunny-pile --headless --steps 1"), std::string("accuracy --poses 2")}) {
        const std::string out = runTool(cmd + " --detector nope", code);
        EXPECT_EQ(code, 2) << out;
        EXPECT_NE(out.find("unknown detector 'nope'"), std::string::npos) << out;
        EXPECT_NE(out.find("auto"), std::string::npos) << out;
        for (const std::string& name : detectorNames()) EXPECT_NE(out.find(name), std::string::npos) << name << out;
    }
    std::string out = runTool("demo bunny-pile --headless --steps 1 --detector nope", code);
    EXPECT_NE(out.find("bullet-gimpact"), std::string::npos) << out;
    out = runTool("demo bunny-pile --headless --steps 1 --switch 1:nope", code);
    EXPECT_EQ(code, 2) << out;
    EXPECT_NE(out.find("unknown detector 'nope'"), std::string::npos) << out;
    out = runTool("demo bunny-pile --headless --steps 1 --switch soon:peel", code);
    EXPECT_EQ(code, 2) << out;
    EXPECT_NE(out.find("STEP:DETECTOR"), std::string::npos) << out;
    out = runTool("demo bunny-pile --headless --steps 1 --set resolutoin=64", code);
    EXPECT_EQ(code, 2) << out;
    EXPECT_NE(out.find("resolutoin"), std::string::npos) << out;
    EXPECT_NE(out.find("resolution"), std::string::npos) << "lists the options: " << out;
}

TEST(ToolBadInput, MissingMeshNamesThePathAndWhy) {
    const std::string path = "/nonexistent/folder/body.obj";
    int code = 0;
    for (const std::string& cmd : {"demo bunny-pile --headless --steps 1 --mesh " + path,
                                   "accuracy --detector cpu --poses 2 --mesh " + path}) {
        const std::string out = runTool(cmd, code);
        EXPECT_NE(code, 0) << out;
        EXPECT_NE(out.find(path), std::string::npos) << out;
        EXPECT_NE(out.find("no such file"), std::string::npos) << out;
    }
    // A file that is there but not an OBJ: the path and the parser's reason.
    const std::string junk = tempPath("isc_junk", ".obj");
    {
        std::ofstream f(junk);
        f << "this is not a mesh\n";
    }
    const std::string out = runTool("demo bunny-pile --headless --steps 1 --mesh " + junk, code);
    EXPECT_NE(code, 0) << out;
    EXPECT_NE(out.find(junk), std::string::npos) << out;
    EXPECT_NE(out.find("no faces"), std::string::npos) << out;
    std::filesystem::remove(junk);
}

}  // namespace
}  // namespace isc
