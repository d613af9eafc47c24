#pragma once
/// What a demo of `isc demo` is: a scene of bodies in a bullet::RigidWorld. A demo is one file
/// demos/<Name>Demo.cpp that implements Demo and adds its subcommand with addDemoCommand();
/// the runner (demos/viewer/) does the rest the same way for every demo: the window (GLFW +
/// Dear ImGui: pause/step/reset, body count, live detector switching, timing plot, contacts,
/// the detector's image-space buffers, orbit camera) or `--headless` PNGs, `--frames` for a
/// video, progress, the detector line (`detector: auto -> cpu (...)`). docs/demos.md.
#include "isc/bullet/RigidWorld.h"
#include "isc/core/Result.h"
#include "isc/scene/Scene.h"
#include "render/SceneRenderer.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace CLI {
class App;
}

namespace isc::tool {

/// What the runner asks a demo to build.
struct DemoSetup {
    /// Detector (a registered name, "auto" or bullet::kBulletGImpact) and its options, filled
    /// by the runner; the demo may change the other fields (margin, friction, ...).
    bullet::WorldSettings world;
    int bodies = 1;          ///< bodies of the scene (>= 1)
    std::uint32_t seed = 1;  ///< seed of the scene's randomness
};

/// The runner's measurements, for the demo's summary line.
struct DemoRun {
    std::string detector;    ///< the detector running at the end (auto: its choice)
    bool automatic = false;  ///< chosen by auto
    int bodies = 0;
    int steps = 0;               ///< steps taken since the last (re)start
    double meanStepMs = 0.0;     ///< mean wall time of a whole step
    double meanCollisionMs = 0.0;  ///< mean narrow phase (the dispatcher's dispatchAllCollisionPairs)
    double maxPenetration = 0.0;   ///< largest RigidWorld::maxPenetration() over the steps, metres
};

class Demo {
public:
    virtual ~Demo() = default;

    /// A new world for `setup`: at the start, on Reset, on a new body count, and on a live
    /// detector switch (then the runner copies every body's state from the old world, so a
    /// demo must add the same bodies in the same order for the same setup). Body i of the
    /// world is object i of scene(). Errors: a mesh that cannot be loaded, a detector that
    /// cannot be created (its message).
    [[nodiscard]] virtual Result<std::unique_ptr<bullet::RigidWorld>> build(const DemoSetup& setup) = 0;
    /// The scene drawn: objects 0..bodies-1 show the bodies (the runner copies their poses
    /// before drawing); objects after them are static scenery the demo adds itself.
    virtual Scene& scene() = 0;
    /// Before each step (step = 1, 2, ...): a deforming scene moves its vertices here (in the
    /// world and in scene()). Default: nothing.
    virtual void beforeStep(bullet::RigidWorld& world, int step) {
        (void)world;
        (void)step;
    }
    /// After each step: a demo's own tallies for its summary (e.g. the dispatcher's
    /// lastStats() summed over the steps). step 1 is the first step of a (re)started run.
    /// Default: nothing.
    virtual void afterStep(bullet::RigidWorld& world, int step) {
        (void)world;
        (void)step;
    }
    /// Where the camera starts (after build()).
    virtual render::Camera camera() const = 0;
    /// One line on the scene for the log, e.g. "30 bunnies (4968 triangles each, 0.97 m tall)".
    virtual std::string describe() const = 0;
    /// The demo's own widgets in the window's panel (Dear ImGui calls); true asks the runner
    /// for a rebuild (Reset). Default: none.
    virtual bool panel() { return false; }
    /// Prints the demo's `summary:` line at the end of a run.
    virtual void printSummary(const DemoRun& run, bullet::RigidWorld& world) const = 0;
};

/// A demo's subcommand: name, help, defaults and how to make one.
struct DemoCommand {
    std::string name;         ///< `isc demo <name>`
    std::string description;  ///< one line for --help
    int defaultBodies = 30;
    int defaultSteps = 300;   ///< headless steps (a window runs until closed unless --steps is given)
    std::function<std::unique_ptr<Demo>()> make;
};

/// Adds `isc demo <name>` with every demo's options (docs/demos.md); returns the subcommand
/// so the demo can add its own options (read them in `make`).
CLI::App* addDemoCommand(CLI::App& demo, DemoCommand command, int& exitCode);

}  // namespace isc::tool
