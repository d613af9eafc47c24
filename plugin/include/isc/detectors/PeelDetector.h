#pragma once
/// The depth-peeling detector ("peel"): Georgii, Krüger & Westermann, "Interactive
/// collision detection for deformable and GPU objects" (papers/003). Image-space sampling
/// of each candidate object pair along parallel rays finds the collision rays; a
/// bounding-box mipmap carries them back to the triangles they hit; the survivors are
/// compacted on the GPU, read back, pruned by sweep and prune over their screen boxes and
/// tested exactly on the CPU (the reference's triangle–triangle test), so every reported
/// pair is exact (precision 1).
///
/// Paper sections and where this implementation departs (docs/detectors/peel.md has the why):
/// - §4, §4.1 object sampling, settings.sampling "scene" (default, the paper's set-up): one
///   orthographic view per axis and cluster of candidate pairs (connected components of the
///   pairs whose boxes meet) over the union of the cluster's boxes, pixels of
///   (smallest object / resolution), cut into square tiles of at most 2048 pixels; every
///   triangle rasterized once per axis (objects inside a tile drawn whole, the others culled
///   per tile), fragments (depth, facing, object id). Per ray, a winding number per object:
///   entering an object while another is inside flags that object pair when it is a
///   candidate pair (hash table on the GPU). "pairs": one tile per (candidate pair, axis),
///   view volume = the intersection of the two boxes across the rays, their union along
///   them (finer pixels where the pair meets; each triangle drawn once per pair it is in).
///   "peeling": the paper's own form on pair tiles (§4.1, §4.2): a counting pass (fragments
///   per pixel), the depth complexity by a GPU max-reduction (read by the CPU), then
///   ceil(min(depth, maxLayers) / 2) geometry passes, each peeling the nearest and the
///   farthest remaining fragment of every ray at once (dual depth peeling with MIN/MAX as
///   storage-buffer atomics on (depth, side, facing) keys); after each pass a compute step
///   compares each peeled fragment's facing with the one the ray expects (a winding number
///   per object and direction) and marks the collision-ray mask; rays with more fragments
///   than maxLayers are marked colliding (the paper's conservative rule). Same tiles and
///   same collision rays as "pairs" (tested), at 1 + ceil(depth / 2) raster passes per batch.
///   Otherwise (scene, pairs), instead of one geometry pass per depth layer (§4.1) or two
///   (§4.2), ONE raster pass per batch of equal-size tiles stores every fragment in its
///   pixel's next slot (settings.maxLayers slots, per-pixel atomic counter); a compute pass
///   sorts each pixel's slots and sweeps them (a pixel with more fragments than slots marks
///   its ray colliding: the paper's conservative layer cap; with scene sampling every
///   candidate pair of that tile is then tested). For self-collision of one object the
///   ray test is the paper's rule (two consecutive front or back faces, or a back face
///   first: winding > 1 or < 0).
/// - §5 ray merging: the bounding-box mipmap, built in compute shaders. Level 1 is built
///   from the collision-ray mask dilated by one pixel (conservative: an intersection curve
///   within one pixel of a collision ray is kept).
/// - §6 primitive separation: per triangle, its screen box picks the level, the corner
///   texels' bundles are unioned and clipped by the triangle's box; compute shader.
/// - §3, §7 compaction: "atomic" (compute append) or "packing" (the paper's count / shift /
///   move per row, as compute passes); settings.compaction picks, "auto" = atomic.
/// - §7 CPU narrowphase: per flagged pair and tile, records outside the other object's world
///   box dropped; the pairs whose screen boxes overlap in x and y (the paper's sweep) and
///   whose triangles' world boxes overlap, found through a uniform grid over the world boxes
///   (the same pairs as a screen sweep followed by the world test, far fewer visits in a
///   dense pile); exact tests parallel over chunks of triangle pairs (OpenMP).
/// - §8.2 open meshes (settings.openMeshes): consecutive fragments of the two objects in
///   close depth proximity mark a collision ray.
/// - settings.conservativeRaster: GL_NV_conservative_raster in the raster passes where the
///   driver has it (measured in docs/detectors/peel.md; off by default).
/// - Beyond the paper: object ids (never pairs triangles of unrelated objects), 1 or 3
///   axes (candidates unioned), conservative mode = mask dilation plus depth proximity
///   (fragments of A and B within one pixel in depth mark the ray), self-collision.
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
    /// Scene sampling: cull in 3-D before the raster pass (keep only the triangles within two
    /// pixels of the other object of a candidate pair). Off: every triangle is drawn (for
    /// comparisons; the answers are the same).
    bool cull = true;

    static constexpr std::array<SettingField<PeelSettings>, 9> fields{{
        {"resolution", &PeelSettings::resolution,
         "pixels across the smallest object of a view: 0 = auto, or a power of two 16..4096"},
        {"axes", &PeelSettings::axes, "projection axes: 0 = auto, 1 (z) or 3 (x, y, z)"},
        {"sampling", &PeelSettings::sampling, "auto, scene, pairs or peeling (the paper's multi-pass form)"},
        {"compaction", &PeelSettings::compaction, "auto, atomic or packing (the paper's row packing; pair tiles)"},
        {"maxLayers", &PeelSettings::maxLayers, "fragments kept per pixel, 2..128 (more: the ray counts as colliding)"},
        {"openMeshes", &PeelSettings::openMeshes, "open-mesh rule (paper section 8.2): close fragments mark a ray"},
        {"depthProximity", &PeelSettings::depthProximity, "fragments of two objects within one pixel in depth mark a ray"},
        {"conservativeRaster", &PeelSettings::conservativeRaster, "GL_NV_conservative_raster where the driver has it"},
        {"cull", &PeelSettings::cull, "scene sampling: 3-D cull before the raster pass (off: draw every triangle)"},
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
    /// Counters per call (paper Table 1): views and pairs_with_collision_rays (scene
    /// sampling), peeling_passes ("peeling"), conservative_raster (1 when used), tiles,
    /// raster_passes, fragments, triangles_rasterized, collision_rays,
    /// overflow_rays, max_depth_complexity, triangles_read_back,
    /// potentially_colliding_triangles, tri_tri_tests, positive_tests; narrowphase phases
    /// np_group_ms, np_world_ms, np_sweep_ms, np_exact_ms, np_merge_ms, np_swept_records,
    /// np_sweep_visits.
    [[nodiscard]] Result<void> detect(const Scene& scene, std::span<const ObjectPair> candidates,
                                      DetectionOutput& out) override;

    struct Impl;

private:
    friend Result<std::unique_ptr<Detector>> createPeelDetector(const DetectorSettings&, const PeelSettings&);
    explicit PeelDetector(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

/// Creates the peel detector: checks the settings (resolution a power of two in [16, 4096],
/// axes 1 or 3, compaction "auto", "atomic" or "packing", sampling "auto", "scene", "pairs" or
/// "peeling" (not with openMeshes), maxLayers in [2, 128]) and compiles its shaders. Needs a
/// current GL 4.5 context; errors carry the driver's log.
[[nodiscard]] Result<std::unique_ptr<Detector>> createPeelDetector(const DetectorSettings& common,
                                                                   const PeelSettings& settings = {});

}  // namespace isc
