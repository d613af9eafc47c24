#pragma once
/// The depth-peeling detector ("peel"): Georgii, Krüger & Westermann, "Interactive
/// collision detection for deformable and GPU objects" (papers/003). Image-space sampling of
/// the candidate objects along parallel rays finds the collision rays; a bounding-box mipmap
/// carries them back to the triangles they hit; the GPU pairs those triangles and drops the
/// pairs a float test proves apart; the exact CPU test (the reference's) decides the rest, so
/// every reported pair is exact (precision 1). docs/detectors/peel.md has the passes, the why
/// and the measured figures.
///
/// Default (settings.rays "auto" = "off" without self-collision): no image pass. The 3-D cull
/// below walks each candidate pair's cluster trees with the float tolerance as the margin, and
/// every triangle pair of the cluster pairs it reaches whose boxes meet goes to the GPU float
/// filter and then the exact CPU test: recall 1 by construction, and on the lent H100 faster
/// than the image passes (which stay: settings.rays "on", and self-collision).
///
/// Paper sections and where this implementation departs:
/// - §4 object sampling, settings.sampling "scene" (default): one orthographic view per axis
///   and cluster of candidate pairs, cut into tiles. Before it (beyond the paper) a 3-D cull
///   on the GPU: per candidate pair the objects' cluster trees (the top of their BVHs,
///   refitted from the world vertices each call) are walked against each other and only the
///   triangles within two pixels of a triangle of the other object are drawn (settings.cull).
///   One raster pass per batch of tiles stores each fragment (depth, facing, object id) in
///   its pixel's next slot (settings.maxLayers; more fragments mark the ray, the paper's
///   conservative cap); per ray, an object's inside/outside state between consecutive
///   fragments is read from its nearest fragment (the culled surfaces are partial; near an
///   intersection they are whole), and an interval inside two objects of a candidate pair
///   flags that pair and marks the ray. "pairs": one tile per (candidate pair, axis), no 3-D
///   cull, winding numbers. "peeling": the paper's multi-pass form on pair tiles (§4.1, §4.2:
///   a counting pass, the depth complexity by a GPU max-reduction, ceil(depth / 2) passes
///   peeling front and back at once, a facing test per pass).
/// - §5 ray merging: the bounding-box mipmap, in compute shaders, level 1 from the collision-ray
///   mask dilated by one pixel.
/// - §6 primitive separation: per triangle, its screen box against the mipmap; compute shader.
/// - §3, §7 compaction and narrowphase. Scene sampling: records appended on the GPU, paired in
///   a hashed world grid per tile (world and clipped screen boxes overlapping, flagged pairs
///   only), filtered by a float separating-axis test with a conservative tolerance, read back
///   once (one fence per call), tested exactly on the CPU (all cores). Pair tiles: "atomic" or
///   "packing" (the paper's row packing: per-row counts on the GPU, their scan on the CPU, a
///   move pass; one more read-back), records read back per batch and paired on the CPU.
/// - §8.2 open meshes (settings.openMeshes): consecutive fragments of two objects in close
///   depth mark a ray.
/// - Beyond the paper: object ids (triangles of unrelated objects are never paired), 1 or 3
///   axes (candidates unioned), depth proximity (settings.depthProximity), self-collision,
///   GL_NV_conservative_raster where present (settings.conservativeRaster).
#include "isc/detect/Detector.h"

#include <array>
#include <memory>
#include <string>

namespace isc {

/// The peel detector's own settings (DetectorSettings::options by these names;
/// docs/detectors/peel.md has what each costs and gains).
struct PeelSettings {
    /// Pixels across the smallest object of a view (scene sampling) or a pair tile's side;
    /// 0 = auto (the detector's default, see docs/detectors/peel.md "Defaults"), else a power
    /// of two in [16, 4096].
    int resolution = 0;
    int axes = 0;  ///< projection axes: 0 = auto, 1 (z) or 3 (x, y, z; candidates unioned)
    /// "auto" (= "scene"), "scene", "pairs" or "peeling" (see the class comment).
    std::string sampling = "auto";
    /// Record compaction of the pair tiles: "auto" (= "atomic"), "atomic" (compute append) or
    /// "packing" (the paper's section 7 row packing: counted per row on the GPU, rows' offsets
    /// scanned on the CPU, moved on the GPU). Scene sampling compacts atomically.
    std::string compaction = "auto";
    int maxLayers = 16;  ///< fragments kept per pixel (slots, or peeled layers), in [2, 128]
    /// Open meshes: consecutive fragments of two objects in close depth mark a ray (§8.2).
    bool openMeshes = false;
    /// Fragments of the two objects within one pixel of each other in depth also mark the
    /// ray (catches touching surfaces the winding test alone misses).
    bool depthProximity = true;
    /// GL_NV_conservative_raster in the raster passes where the driver has it (every pixel a
    /// triangle touches gets a fragment); ignored, with the counter conservative_raster = 0,
    /// where it does not.
    bool conservativeRaster = false;
    /// Scene sampling with three axes: cull in 3-D before the raster pass (keep only the
    /// triangles within two pixels of the other object of a candidate pair). Off, or with one
    /// axis (a surface edge-on to the single view would be invisible near its contacts once its
    /// other faces are culled): every triangle is drawn.
    bool cull = true;
    /// Scene sampling: "auto" (= "off" without self-collision, "on" with it), "on" or "off".
    /// "on": the image passes above (object sampling, collision rays, ray merging, primitive
    /// separation, pairing) choose the triangle pairs for the float filter. "off": every
    /// triangle pair of the 3-D cull's cluster pairs (walked with the float tolerance as the
    /// margin, not two pixels) whose world boxes overlap goes to the float filter, with no
    /// raster pass: the candidates are bounded by the cull alone (recall 1 by construction,
    /// docs/detectors/peel.md "Without collision rays"). Self-collision needs "on" (the
    /// facing rule).
    std::string rays = "auto";
    /// Threads of the exact CPU test (and of the team that wakes during the wait for the
    /// GPU): 0 = OpenMP's default (every core), else 1..1024. Fewer than the cores leaves
    /// room for the GL driver's own thread (docs/detectors/peel.md, the deforming pile).
    int exactThreads = 0;
    /// Scene sampling's walk of the cluster trees: "auto" (= "fused"), "fused" (every level in
    /// one dispatch, one workgroup per pair of parts, the frontier in shared memory) or
    /// "levels" (one dispatch per level, each sized by an indirect-argument pass; the form
    /// before 2026-11-25's round e, kept for comparison and as the fallback of trees deeper
    /// than 30 levels). Both give the same cluster pairs.
    std::string walk = "auto";
    /// GPU timers of scene sampling: "stages" (default: GL timestamps around each stage,
    /// gpu_world_ms ... gpu_filter_ms), "passes" (a timestamp around every dispatch: counters
    /// gpu_pass_<name>_ms, for benchmarks) or "off" (no queries; gpuMs 0).
    std::string gpuTimers = "stages";
    /// Without rays, with the fused walk: split the call's pairs of parts in two halves, each
    /// walked and paired on the GPU with its own fence and list, so that the exact CPU test of
    /// the first half runs while the GPU works on the second. Off (default): one fence. On the
    /// lent H100 the second half's own dispatches cost about what the overlap saves
    /// (docs/detectors/peel.md, "The deforming pile").
    bool overlap = false;
    /// Scene sampling: while the GPU works, the threads that wait for it test the last call's
    /// intersecting triangle pairs again with this call's vertices; the exact test after the
    /// wait takes those results for the pairs the GPU lists (the same test on the same
    /// doubles: the same answer and segments) and tests only the rest. Pays where calls are
    /// coherent (a physics step, a deforming mesh); costs nothing else but the threads' time
    /// during the wait. Not with software GL (its rendering needs the cores).
    bool speculate = true;
    /// Scene sampling without rays: where the cluster trees' world boxes are made each call.
    /// "gpu" (peel/cluster_refit.glsl, one compute pass before the walk), "cpu" (on every
    /// core, from the local vertices and the poses, while the GPU copies the vertices; copied
    /// to the GPU with the call's data: one dependent dispatch less) or "auto" (default: "cpu"
    /// when most of the call's vertices are deformed objects', else "gpu"; measured in
    /// docs/detectors/peel.md, "Round 2026-11-27 evening"). Both give boxes within float
    /// rounding of the exact ones and the same pairs. With rays the boxes are the GPU's.
    std::string refit = "auto";

    static constexpr std::array<SettingField<PeelSettings>, 16> fields{{
        {"resolution", &PeelSettings::resolution,
         "pixels across the smallest object of a view: 0 = auto, or a power of two 16..4096"},
        {"axes", &PeelSettings::axes, "projection axes: 0 = auto, 1 (z) or 3 (x, y, z)"},
        {"sampling", &PeelSettings::sampling, "auto, scene, pairs or peeling (the paper's multi-pass form)"},
        {"compaction", &PeelSettings::compaction, "auto, atomic or packing (the paper's row packing; pair tiles)"},
        {"maxLayers", &PeelSettings::maxLayers, "fragments kept per pixel, 2..128 (more: the ray counts as colliding)"},
        {"openMeshes", &PeelSettings::openMeshes, "open-mesh rule (paper section 8.2): close fragments mark a ray"},
        {"depthProximity", &PeelSettings::depthProximity, "fragments of two objects within one pixel in depth mark a ray"},
        {"conservativeRaster", &PeelSettings::conservativeRaster, "GL_NV_conservative_raster where the driver has it"},
        {"cull", &PeelSettings::cull, "scene sampling, 3 axes: 3-D cull before the raster pass (off: draw every triangle)"},
        {"rays", &PeelSettings::rays,
         "scene sampling: auto (off unless selfCollision), on (collision rays choose the pairs) or off (the 3-D "
         "cull's cluster pairs go straight to the GPU filter, no raster)"},
        {"exactThreads", &PeelSettings::exactThreads,
         "threads of the exact CPU test: 0 = every core (OpenMP's default), else 1..1024"},
        {"walk", &PeelSettings::walk,
         "scene sampling's cluster-tree walk: auto (= fused), fused (one dispatch) or levels (one dispatch per level)"},
        {"gpuTimers", &PeelSettings::gpuTimers,
         "GPU timestamps: stages (default), passes (one per dispatch, gpu_pass_*_ms) or off"},
        {"overlap", &PeelSettings::overlap,
         "no rays: two halves of the pairs, the exact test of the first while the GPU does the second"},
        {"speculate", &PeelSettings::speculate,
         "scene sampling: test the last call's intersecting pairs again during the GPU wait (reused by the exact test)"},
        {"refit", &PeelSettings::refit,
         "no rays: the cluster boxes each call by a gpu pass or on the cpu (every core); auto: cpu on mostly deformed calls"},
    }};
};

/// The peel detector. Needs a current GL 4.5 context at creation and at every detect()
/// (the same context). Needs closed meshes unless settings.openMeshes: pairs with an open
/// mesh come back in DetectionOutput::unserved.
class PeelDetector final : public Detector {
public:
    ~PeelDetector() override;

    std::string_view name() const override { return "peel"; }
    bool usesGl() const override { return true; }
    bool reportsTrianglePairs() const override { return true; }
    bool needsClosedMeshes() const override;
    /// Timings: stats.gpuMs (GL timestamps), readbackMs (the one wait for the GPU and the
    /// read), cpuMs, totalMs; per stage gpu_world_ms, gpu_cull_ms, gpu_raster_ms, gpu_rays_ms,
    /// gpu_grid_ms, gpu_filter_ms, cpu_setup_ms, cpu_upload_ms, cpu_exact_ms (exact_sort_ms,
    /// exact_test_ms) (scene sampling; rays, late_copies). Counters
    /// (paper Table 1 and the cull): views, tiles, raster_passes, pixel_size, axes,
    /// triangles_in, cluster_pairs, triangles_kept, triangles_rasterized, pairs_culled,
    /// pixels_sampled, fragments, collision_rays, overflow_rays, max_depth_complexity,
    /// pairs_with_collision_rays, records, grid_entries, screen_pairs, filtered_pairs,
    /// tri_tri_tests, positive_tests, capacity_retries, unserved_pairs, conservative_raster;
    /// the pair tiles add triangles_read_back, peeling_passes and the CPU narrowphase's np_*.
    [[nodiscard]] Result<void> detect(const Scene& scene, std::span<const ObjectPair> candidates,
                                      DetectionOutput& out) override;
    /// Scene sampling (the default): the last batch's atlas of the last call, "fragments per
    /// pixel" (counts) and "collision rays" (tile bits). None with pair tiles.
    std::vector<DetectorDebugView> debugViews() const override;

    struct Impl;

private:
    friend Result<std::unique_ptr<Detector>> createPeelDetector(const DetectorSettings&, const PeelSettings&);
    explicit PeelDetector(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

/// Creates the peel detector: checks the settings (resolution 0 or a power of two in [16,
/// 4096], axes 0, 1 or 3, compaction "auto", "atomic" or "packing" (pair tiles only), sampling
/// "auto", "scene", "pairs" or "peeling" (not with openMeshes), maxLayers in [2, 128]) and
/// compiles its shaders. Needs a current GL 4.5 context; errors carry the driver's log. A
/// detect() that needs more than the GL's limits (storage block size, workgroup counts) fails
/// with an error naming the limit.
[[nodiscard]] Result<std::unique_ptr<Detector>> createPeelDetector(const DetectorSettings& common,
                                                                   const PeelSettings& settings = {});

}  // namespace isc
