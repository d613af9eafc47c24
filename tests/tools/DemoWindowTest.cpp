// The windowed demo under Xvfb (llvmpipe): the pile and the Dear ImGui panel are on the
// screenshot (pixels, not file size), and the detector switched live (cpu -> peel ->
// bullet-gimpact -> cpu, the same code path as the panel's list) keeps the simulation running:
// body state carried across (free-fall speeds equal to a headless run without switches), steps
// counted on, contacts after landing.
#include "Png.h"
#include "ToolRun.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>

namespace isc {
namespace {

using test::runTool;
using test::tempPath;

std::map<int, std::pair<double, std::string>> speeds(const std::string& out) {
    std::map<int, std::pair<double, std::string>> lines;
    const std::regex re(R"(step +(\d+)/\d+ .* max speed ([0-9.]+) m/s  contacts (\d+)  \[([a-z-]+)\])");
    for (std::sregex_iterator it(out.begin(), out.end(), re), end; it != end; ++it)
        lines[std::stoi((*it)[1])] = {std::stod((*it)[2]), (*it)[4]};
    return lines;
}

TEST(DemoWindow, PileAndPanelOnScreenAndLiveSwitching) {
    if (std::system("command -v xvfb-run > /dev/null 2>&1") != 0)
        GTEST_SKIP() << "xvfb-run is not installed (Debian xvfb; scripts/setup.sh installs it)";
    const std::string shot = tempPath("isc_window", ".png");
    const std::string args = "demo bunny-pile --bodies 4 --steps 40 --width 960 --height 600 --set resolution=64 "
                             "--set axes=1 --detector cpu";
    int code = 0;
    const std::string out = runTool(args + " --switch 9:peel --switch 21:bullet-gimpact --switch 29:cpu --screenshot " +
                                        shot,
                                    code, "xvfb-run -a -s '-screen 0 1280x800x24'");
    ASSERT_EQ(code, 0) << out;
    for (const char* s : {"switched detector to peel at step 8", "switched detector to bullet-gimpact at step 20",
                          "switched detector to cpu at step 28", "summary: detector=cpu bodies=4 steps=40 "})
        EXPECT_NE(out.find(s), std::string::npos) << s << "\n" << out;

    // The same run headless without switches: equal speeds while the bunnies fall freely.
    const std::string plain = runTool(args + " --headless --out ''", code);
    ASSERT_EQ(code, 0) << plain;
    const auto w = speeds(out), h = speeds(plain);
    ASSERT_EQ(w.size(), 10u) << out;
    ASSERT_EQ(h.size(), 10u) << plain;
    for (int step : {12, 16, 20}) {
        EXPECT_EQ(w.at(step).second, "peel");
        EXPECT_NEAR(w.at(step).first, h.at(step).first, 1e-3) << "step " << step;
    }
    EXPECT_EQ(w.at(24).second, "bullet-gimpact");
    EXPECT_EQ(w.at(40).second, "cpu");
    const std::regex contacts(R"(step +40/40 .* contacts (\d+))");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(out, m, contacts)) << out;
    EXPECT_GT(std::stoi(m[1]), 0) << "landed: contacts at step 40";

    // The screenshot: the whole window, panel on the left (up to 400 px), scene on the right.
    const test::Picture p = test::loadPng(shot);
    ASSERT_EQ(p.width, 960) << shot;
    ASSERT_EQ(p.height, 600);
    // Panel: ImGui's dark window background (greys below 40) over most of it, and text (bright
    // greys) in it; no saturated scene colour.
    const int panelArea = 380 * 600;
    const int dark = test::countPixels(p, 0, 0, 380, 600, [](int r, int g, int b) { return r < 40 && g < 40 && b < 45; });
    const int text = test::countPixels(p, 0, 0, 380, 600, [](int r, int g, int b) { return r > 180 && g > 180 && b > 180; });
    EXPECT_GT(dark, panelArea / 2) << "panel background";
    EXPECT_GT(text, 1500) << "panel text";
    // Scene: the ground (mid greys) and four coloured bunnies (saturated palette colours).
    const int sceneArea = (960 - 420) * 600;
    const int bunnies = test::countPixels(p, 420, 0, 960, 600, test::saturated);
    const int ground = test::countPixels(p, 420, 0, 960, 600, [](int r, int g, int b) {
        return std::abs(r - g) < 12 && std::abs(g - b) < 12 && r > 60 && r < 160;
    });
    EXPECT_GT(bunnies, sceneArea / 100) << "bunnies in view";
    EXPECT_GT(ground, sceneArea / 10) << "ground in view";
    std::filesystem::remove(shot);
}

}  // namespace
}  // namespace isc
