#pragma once
/// One running demo: its world, the detector in use, the step loop and what it measured. Shared
/// by the headless loop and the window (demos/viewer/DemoRunner.cpp, DemoWindow.cpp). Needs the
/// GL context current (GL detectors are made and run in it).
#include "viewer/Demo.h"

#include "isc/detect/Settings.h"
#include "render/SceneRenderer.h"

#include <cstdio>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace isc::tool {

/// Timings of one step, milliseconds (what the window plots).
struct StepSample {
    int step = 0;
    double stepMs = 0.0;       ///< whole stepSimulation
    double collisionMs = 0.0;  ///< narrow phase (dispatchAllCollisionPairs)
    double detectMs = 0.0;     ///< the detector's batch (isc dispatcher only)
    double contactsMs = 0.0;   ///< contact generation from the triangle pairs
    double mirrorMs = 0.0;     ///< scene mirror update
    double gpuMs = 0.0;        ///< the detector's GPU time (GL_TIME_ELAPSED)
    int contacts = 0;
};

class DemoSession {
public:
    /// Builds the first world. `options` are every --set option (each detector gets its own:
    /// optionsFor()). Errors: the demo's build() (e.g. a detector that cannot be made).
    [[nodiscard]] static Result<std::unique_ptr<DemoSession>> create(Demo& demo, std::string detector,
                                                                     OptionList options, int bodies,
                                                                     std::uint32_t seed);

    /// One step of 1/60 s. Errors: a body's state became NaN.
    [[nodiscard]] Result<void> step();
    /// Rebuilds the world with `detector`, every body keeping its pose, velocity and sleep
    /// state (the simulation goes on; contact caches start afresh). On error the old world stays.
    [[nodiscard]] Result<void> switchDetector(const std::string& detector);
    /// Starts again with `bodies` bodies (the world as built, counters cleared).
    [[nodiscard]] Result<void> reset(int bodies);

    /// Copies the bodies' poses into the demo's scene.
    void syncScene();
    /// Contact points (a small cross) and normals (`normalLength` metres from each point, on B's side).
    std::vector<render::LineVertex> contactLines(float normalLength) const;

    /// Requested detector ("auto", "peel", "bullet-gimpact").
    const std::string& detector() const { return detector_; }
    /// The detector running now: auto's current choice, or the requested one.
    std::string runningDetector() const;
    /// "auto -> cpu (reason)" for auto, otherwise the name (with its options when any).
    std::string detectorLine() const;
    /// Prints "detector: <detectorLine()>" (at the start and after a switch).
    void reportDetector(std::FILE* out);
    /// Prints "detector: auto -> ..." once per measuring round of auto, when it has decided
    /// (the first choice, and each later round's: AutoDetector::rounds()).
    void reportAutoChoice(std::FILE* out);
    /// True when reportAutoChoice() would print now.
    bool autoChoicePending() const;
    /// The detector's image-space buffers of the last step (none for bullet-gimpact).
    std::vector<DetectorDebugView> debugViews();

    Demo& demo() { return demo_; }
    bullet::RigidWorld& world() { return *world_; }
    int bodies() const { return bodies_; }
    int steps() const { return steps_; }
    const std::deque<StepSample>& history() const { return history_; }
    /// Summary of the steps since the last (re)start.
    DemoRun run() const;
    /// Kept samples (the plot's window).
    static constexpr std::size_t kHistory = 300;

private:
    DemoSession(Demo& demo, std::string detector, OptionList options, int bodies, std::uint32_t seed)
        : demo_(demo), detector_(std::move(detector)), options_(std::move(options)), bodies_(bodies), seed_(seed) {}
    [[nodiscard]] Result<std::unique_ptr<bullet::RigidWorld>> build(const std::string& detector) const;
    Demo& demo_;
    std::string detector_;
    OptionList options_;
    int bodies_ = 1;
    std::uint32_t seed_ = 1;
    std::unique_ptr<bullet::RigidWorld> world_;
    int steps_ = 0;
    double sumStepMs_ = 0.0, sumCollisionMs_ = 0.0, maxPenetration_ = 0.0;
    std::deque<StepSample> history_;
    int autoReportedRound_ = 0;  // auto's round whose choice was printed (0: none)
};

}  // namespace isc::tool
