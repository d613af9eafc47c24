#pragma once
/// The detector interface: a scene and candidate object pairs in, per colliding object
/// pair the intersecting triangle pairs and/or contact samples out, with timings and
/// diagnostics. The exact CPU reference is the first detector ("cpu").
#include "isc/core/Result.h"
#include "isc/core/Types.h"
#include "isc/detect/Settings.h"
#include "isc/scene/Scene.h"

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace isc {

/// What one detector found for one object pair. Only colliding pairs are reported.
struct PairResult {
    ObjectPair pair;
    /// Intersecting triangles (indices into each object's mesh), sorted, unique.
    std::vector<TrianglePair> triangles;
    /// Intersection segment of each triangle pair (same order), when segments were asked for.
    std::vector<Segment> segments;
    /// Contact samples, from detectors that make them (height maps, depth intervals).
    std::vector<ContactSample> samples;
};

/// Timings (milliseconds) and counters of one detect() call.
struct DetectorStats {
    double gpuMs = 0.0;       ///< GPU time from GL_TIME_ELAPSED queries
    double readbackMs = 0.0;  ///< time spent mapping/reading GPU results
    double cpuMs = 0.0;       ///< CPU work (narrowphase, set-up)
    double totalMs = 0.0;     ///< wall time of the whole call
    /// Named counters, in the order added (e.g. "layers_peeled", "tri_tri_tests").
    std::vector<std::pair<std::string, double>> counters;
    /// Things the detector had to drop or could not do, each said once per call.
    std::vector<std::string> warnings;

    void count(std::string_view name, double value);
    double counter(std::string_view name) const;  ///< 0 when absent
};

/// Everything one detect() call returns.
struct DetectionOutput {
    std::vector<PairResult> pairs;
    /// Candidate pairs this call did not examine (an open mesh given to a detector that
    /// needs closed ones, more objects than an id encoding holds, a buffer limit): the
    /// caller sends them to an exact detector; none is ever dropped silently. The
    /// dispatcher does this and counts them (DispatchStats::fallbackPairs). Pairs with a
    /// non-finite pose are not listed here (no detector can serve them): they are warnings.
    std::vector<ObjectPair> unserved;
    DetectorStats stats;
    void clear() { *this = {}; }
    /// As clear(), but the pairs go to `spent` (whose own pairs, if any, are freed here) for the
    /// caller to free later, off its critical path (peel frees them while the GPU works), and the
    /// lists keep their room: `pairs` takes `spent`'s.
    void clearInto(std::vector<PairResult>& spent) {
        spent.swap(pairs);
        pairs.clear();
        unserved.clear();
        stats.gpuMs = stats.readbackMs = stats.cpuMs = stats.totalMs = 0.0;
        stats.counters.clear();
        stats.warnings.clear();
    }
};

/// Settings every detector shares. A detector's own settings (resolution, axes, ...) are
/// its settings struct (e.g. isc::PeelSettings), passed here as `options` by name: the one
/// form the command line (`--set name=value`), the dispatcher and the benches all use.
/// Each detector's page (docs/detectors/<name>.md) and `isc info` list its options.
struct DetectorSettings {
    /// Fill PairResult::segments (the dispatcher turns this off: contacts come from the triangles).
    bool wantSegments = true;
    /// Also detect pairs (o, o): an object against itself, for deforming meshes.
    bool selfCollision = false;
    /// Expensive invariant check: every call also runs the exact `cpu` detector on the same
    /// input and counts the triangle pairs the detector missed or invented (counters
    /// validate_missed_pairs, validate_extra_pairs; a warning when either is not 0).
    bool validate = false;
    /// The detector's own settings by name; unknown names are an error from createDetector().
    OptionList options;
};

/// One image-space buffer of a detector's last detect() call, for viewers (the demos'
/// overlay, docs/demos.md): what makes an image-space method visible. The buffer belongs to
/// the detector, lives in its GL context and is valid until its next detect() call.
struct DetectorDebugView {
    enum class Format {
        Counts,    ///< one uint32 per pixel, rows of `width` pixels from the bottom (fragments, layers)
        TileBits,  ///< one bit per pixel in square tiles of `tileSize`: tile t holds pixels
                   ///< (x, y) of its square at bit y * tileSize + x of its words (tileSize^2 / 32
                   ///< words per tile, tile-major); tiles laid out `tilesPerRow` across
        Float32,   ///< one float per pixel, rows of `width` pixels from the bottom (depths, heights)
    };
    std::string name;         ///< short, e.g. "fragments per pixel"
    std::string description;  ///< one line: what a bright pixel means
    unsigned int buffer = 0;  ///< GL buffer name (GL_SHADER_STORAGE_BUFFER) in the detector's context
    std::size_t offset = 0;   ///< bytes from the buffer's start
    Format format = Format::Counts;
    int width = 0, height = 0;  ///< pixels of the whole image
    int tileSize = 0, tiles = 0, tilesPerRow = 0;  ///< TileBits only
};

class Detector {
public:
    virtual ~Detector() = default;
    /// Registry name ("cpu", "peel", ...).
    virtual std::string_view name() const = 0;
    /// True when detect() needs the GL context that was current at creation.
    virtual bool usesGl() const = 0;
    /// True when the detector reports triangle pairs (triangle-pair recall applies).
    virtual bool reportsTrianglePairs() const = 0;
    /// True when the detector needs closed meshes (pairs with an open mesh are returned in
    /// DetectionOutput::unserved, with a warning).
    virtual bool needsClosedMeshes() const = 0;
    /// Runs on `candidates` (pairs of objects of `scene`, a <= b) and writes the colliding
    /// ones into `out` (cleared first). Objects with non-finite poses are skipped with a
    /// warning in out.stats.warnings. An Error means the call could not run at all.
    [[nodiscard]] virtual Result<void> detect(const Scene& scene,
                                              std::span<const ObjectPair> candidates,
                                              DetectionOutput& out) = 0;
    /// The image-space buffers of the last detect() call (depth layers, fragment counts,
    /// collision-ray bits, height maps), for viewers; none by default. Cheap: no GL call,
    /// no copy. A wrapper (auto, validate) returns its inner detector's.
    virtual std::vector<DetectorDebugView> debugViews() const { return {}; }
};

}  // namespace isc
