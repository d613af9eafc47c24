#pragma once
/// The options every demo takes and the two loops that run a demo: headless (PNGs, frames for
/// a video) and the window (DemoWindow.cpp). Internal to demos/viewer.
#include "viewer/DemoSession.h"

#include <string>
#include <utility>
#include <vector>

namespace isc::gl {
class Context;
}

namespace isc::tool {

/// `isc demo <name>` options (docs/demos.md lists them).
struct DemoOptions {
    int bodies = 30;
    int steps = 300;
    bool stepsGiven = false;  ///< --steps on the command line (a window then closes after them)
    std::string detector = "auto";
    bool headless = false;
    std::string out;  ///< final frame PNG ("" in a window unless given; headless default <demo>.png)
    bool outGiven = false;
    std::string frames;  ///< folder for numbered frames ("": none)
    int frameEvery = 1;
    std::uint32_t seed = 1;
    int width = 1280, height = 720;
    std::vector<std::string> sets;      ///< --set name=value
    std::vector<std::string> switches;  ///< --switch STEP:DETECTOR
    bool detectorStats = false;
    bool contacts = false;   ///< headless: contact points and normals drawn into the pictures
    std::string screenshot;  ///< window: PNG of the whole window (panel included) at the end
};

/// A live switch asked for on the command line: before step `step`, change to `detector`.
struct ScheduledSwitch {
    int step = 0;
    std::string detector;
};

/// The window loop: runs until the window closes (or, with --steps, after that many steps).
/// Returns the exit code. The context must be a window context, current.
int runWindow(DemoSession& session, gl::Context& context, render::SceneRenderer& renderer, const DemoOptions& o,
              const std::vector<ScheduledSwitch>& switches, const std::string& title);

/// Switches the session's detector and says so on stdout ("switched detector to peel at step 40")
/// then prints the new detector line. The window's detector list calls this too.
[[nodiscard]] Result<void> switchDetectorLive(DemoSession& session, const std::string& detector);

/// Writes one numbered frame `dir`/frame_NNNNNN.png of the scene as it is now (poses synced,
/// contacts drawn when `contacts`). `index` counts from 1.
[[nodiscard]] Result<void> writeFrame(DemoSession& session, render::SceneRenderer& renderer, const std::string& dir,
                                      int index, bool contacts);

/// Draws the session's scene into `renderer` (poses synced; contacts when asked).
[[nodiscard]] Result<void> drawScene(DemoSession& session, render::SceneRenderer& renderer, bool contacts,
                                     bool contactsOnTop = true);

/// The periodic progress line on stdout ("step   30/300  ... contacts 12"; `total` 0: no
/// "/300", a window that runs until closed) and, with
/// --detector-stats, the dispatcher's split and the detector's counters.
void printStepLine(DemoSession& session, int total, bool detectorStats);

}  // namespace isc::tool
