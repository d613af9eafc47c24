#pragma once
/// The detector interface: a scene and candidate object pairs in, per colliding object
/// pair the intersecting triangle pairs and/or contact samples out, with timings and
/// diagnostics. The exact CPU reference is the first detector ("cpu").
#include "isc/core/Result.h"
#include "isc/core/Types.h"
#include "isc/scene/Scene.h"

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
    DetectorStats stats;
    void clear() { *this = {}; }
};

/// Options shared by the detectors; each uses those that apply to it.
struct DetectorSettings {
    int resolution = 512;         ///< image-space resolution (pixels per side)
    int axes = 3;                 ///< projection axes sampled (1: z only, 3: x, y, z)
    bool conservative = true;     ///< conservative rasterization (or its portable fallback)
    std::string compaction = "auto";  ///< "auto", "atomic" (compute append) or "packing" (paper)
    bool openMeshes = false;      ///< use the open-mesh variant where a detector has one
    bool selfCollision = false;   ///< also report pairs (o, o) of deforming objects
    int maxLayers = 32;           ///< depth-peeling layer cap
    /// How the peel detector samples objects: "auto" (= "scene"), "scene" (every candidate
    /// object once per axis and cluster of candidate pairs, object ids in the fragments),
    /// "pairs" (one tile per candidate pair and axis; finer pixels where the two boxes meet,
    /// every triangle drawn once per pair it is in), "peeling" (pair tiles sampled by the
    /// paper's multi-pass depth peeling, section 4.1, front and back at once, section 4.2:
    /// a counting pass, then one raster pass per two layers; closed meshes only).
    /// docs/detectors/peel.md compares them.
    std::string sampling = "auto";
    /// Peel: rasterize with GL_NV_conservative_raster where the driver has it (every pixel a
    /// triangle touches gets a fragment); ignored, with the counter conservative_raster = 0,
    /// where it does not. Off by default: docs/detectors/peel.md has the measured effect.
    bool conservativeRaster = false;
    bool wantSegments = true;     ///< fill PairResult::segments
    bool validate = false;        ///< re-run the CPU reference inside (expensive invariant checks)
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
    /// True when the detector needs closed meshes (objects with open meshes are skipped
    /// with a warning).
    virtual bool needsClosedMeshes() const = 0;
    /// Runs on `candidates` (pairs of objects of `scene`, a <= b) and writes the colliding
    /// ones into `out` (cleared first). Objects with non-finite poses are skipped with a
    /// warning in out.stats.warnings. An Error means the call could not run at all.
    [[nodiscard]] virtual Result<void> detect(const Scene& scene,
                                              std::span<const ObjectPair> candidates,
                                              DetectionOutput& out) = 0;
};

/// Names accepted by createDetector().
std::vector<std::string> detectorNames();
/// True when the named detector runs on GL (create a context before createDetector()).
bool detectorUsesGl(std::string_view name);
/// Creates a detector by name. GL detectors need a current GL context (isc::gl::Context).
[[nodiscard]] Result<std::unique_ptr<Detector>> createDetector(std::string_view name,
                                                               const DetectorSettings& settings = {});

}  // namespace isc
