#pragma once
/// The "auto" detector: picks the fastest exact detector for this GL and scene, the default
/// everywhere a user does not choose (`isc demo`, `isc accuracy`). Not a folder of the
/// registry: createDetector("auto") makes it (docs/demos.md, "Which detector auto picks").
///
/// Exact: a registered detector whose DetectorInfo says it reports triangle pairs (by the
/// architecture's contract those are confirmed by the exact triangle–triangle test; cpu,
/// peel, ...). The list comes from the registry, never from here.
///
/// The rule, in order:
/// 1. Candidates: every exact registered detector (option `candidates` narrows the list).
/// 2. No current GL context: the GL detectors drop out ("no current GL context").
/// 3. A software GL (llvmpipe, softpipe, swrast, SwiftShader in GL_RENDERER): the GL detectors
///    drop out, unless `candidates` names them: they would run on the same CPU cores as
///    `cpu`, and measure 30-100x slower there (docs/detectors/peel.md).
/// 4. One candidate left: it is the choice. Several: a measured warm-up. Each detect() call
///    that has candidate pairs runs every candidate on the same input (the output returned
///    is the first candidate's, in registry order, so results do not depend on the warm-up);
///    a candidate's first such call is not timed (buffers grow, caches fill); after
///    `warmupCalls` timed calls each, the candidate with the smallest median wall time is
///    chosen (ties: the earlier in the registry), the others are destroyed. A candidate that
///    leaves pairs unserved (DetectionOutput::unserved) during the warm-up drops out.
/// 5. Measured again when the scene's work changes: when the median wall time of the choice's
///    last 3 calls with pairs is more than `remeasureAt` (2) times, or less than
///    1 / `remeasureAt` of, its median in the round that chose it, a new round as in 4 starts
///    (every candidate made again). The choice changes only when another candidate is faster
///    by more than 10 % (hysteresis); at most `remeasureMax` (8) such rounds. A candidate more
///    than 10 times and 5 ms slower than the choice is not measured again. A pile's first
///    calls with pairs are the sparse start of the fall (cpu fastest); its dense rest, where
///    each call costs several times more, is measured again.
///
/// Options (DetectorSettings::options): its own `candidates` (comma-separated names),
/// `warmupCalls` (int >= 1, default 3), `remeasureAt` (factor > 1, or 0: never again; default
/// 2) and `remeasureMax` (int >= 0, default 8); every other option goes to the candidates that
/// have a setting of that name (e.g. `resolution=128` to peel only); a name no candidate has is
/// an Error listing them all.
#include "isc/detect/Detector.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace isc {

/// One candidate of an auto detector made from a list (createAutoDetector(candidates, ...)).
struct AutoCandidate {
    std::string name;
    bool usesGl = false;
    /// Makes the detector: at creation, and again for a later measuring round.
    std::function<Result<std::unique_ptr<Detector>>()> create;
};

/// The measuring rule's numbers (see AutoDetector).
struct AutoTuning {
    int warmupCalls = 3;       ///< timed calls per candidate and round (>= 1)
    double remeasureAt = 2.0;  ///< factor of the choice's call time that starts a new round; <= 1: never
    int remeasureMax = 8;      ///< most rounds after the first
    double switchMargin = 0.1; ///< a later round replaces the choice only when faster by this fraction
    /// Milliseconds now; empty: the steady clock. Tests pass a clock their fake detectors advance.
    std::function<double()> clockMs;
};

/// The registry name of the automatic choice.
inline constexpr const char* kAutoDetectorName = "auto";

class AutoDetector final : public Detector {
public:
    /// One candidate's measured median, for the log line.
    struct Timing {
        std::string name;
        double medianMs = 0.0;  ///< median wall time of its timed warm-up calls
        int calls = 0;          ///< timed calls so far
    };

    ~AutoDetector() override;

    std::string_view name() const override { return kAutoDetectorName; }
    /// True when a candidate still in the running (or the choice) uses GL.
    bool usesGl() const override;
    bool reportsTrianglePairs() const override { return true; }
    /// The choice's (during the warm-up: the first candidate's).
    bool needsClosedMeshes() const override;
    /// During the warm-up: every candidate on each call with pairs; then the choice only.
    /// Counters: the running detector's, plus auto_warmup = 1 on a measuring call.
    [[nodiscard]] Result<void> detect(const Scene& scene, std::span<const ObjectPair> candidates,
                                      DetectionOutput& out) override;
    /// The choice's (during the warm-up: the first candidate's).
    std::vector<DetectorDebugView> debugViews() const override;

    /// True once the choice is made (at once when one candidate is left).
    bool decided() const;
    /// The detector that runs now: the choice, or during the warm-up the first candidate.
    std::string_view current() const;
    /// Why: the GL renderer and the rule or the measured medians, one line, e.g.
    /// "llvmpipe (LLVM 15.0.6, 256 bits): software GL, peel left out (GL detectors would run on
    /// the CPU cores), cpu is the only exact detector left". During the warm-up, what is
    /// being measured.
    const std::string& reason() const;
    /// "auto -> cpu (reason)" or "auto -> measuring cpu, peel (reason)": the line tools print.
    std::string describe() const;
    /// Medians per candidate that was timed in the latest round (once decided: every candidate
    /// of the deciding round, those left out after it too; empty when none ran).
    std::vector<Timing> timings() const;
    /// Measuring rounds begun so far (1: only the first).
    int rounds() const;

    struct Impl;

private:
    friend Result<std::unique_ptr<Detector>> createAutoDetector(const DetectorSettings&);
    friend Result<std::unique_ptr<Detector>> createAutoDetector(std::vector<AutoCandidate>, AutoTuning, std::string);
    explicit AutoDetector(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

/// Makes the auto detector (see the class comment). Errors: an unknown candidate name or
/// option, no candidate left, a candidate that cannot be created (its message). With
/// settings.validate the candidates are not wrapped: createDetector wraps the whole.
[[nodiscard]] Result<std::unique_ptr<Detector>> createAutoDetector(const DetectorSettings& settings = {});

/// An auto detector over the given candidates (any detectors, e.g. one's own, or fakes in a
/// test) with `tuning`; `why` starts the reason line. No GL rule: the list is taken as given.
/// Errors: an empty list, warmupCalls < 1, every candidate failing to start.
[[nodiscard]] Result<std::unique_ptr<Detector>> createAutoDetector(std::vector<AutoCandidate> candidates,
                                                                   AutoTuning tuning = {}, std::string why = {});

/// True when `renderer` (GL_RENDERER) names a software rasterizer (llvmpipe, softpipe,
/// swrast, SwiftShader, "Software Rasterizer").
bool isSoftwareRenderer(std::string_view renderer);

}  // namespace isc
