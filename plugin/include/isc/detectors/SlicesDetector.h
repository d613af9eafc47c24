#pragma once
/// The colour-coded depth-slice detector ("slices"): Dinerstein and Egbert, "Practical
/// Collision Detection in Rendering Hardware for Two Complex 3D Polygon Objects"
/// (papers/004). Per candidate pair, the view volume is the intersection of the two objects'
/// world boxes; x and y are pixels, depth is cut into slices coded as bits of colour,
/// combined with glLogicOp on integer targets; the pair collides where both objects set the
/// same bit of the same pixel.
///
/// Paper sections and where this implementation departs (docs/detectors/slices.md has why):
/// - §3 steps 1-4: step 1 (box test) is the caller's broadphase; step 2 the view volume = box
///   overlap (a degenerate overlap, touching faces or a zero-thickness box, is fattened to one
///   pixel of its longest side and counted: counter fattened_pairs; never dropped); step 3
///   renders both objects into integer targets with glLogicOp: each RGBA32UI target holds 64
///   slices (r, g: object A's bits; b, a: object B's), two targets 128; step 4 (the paper reads
///   the colour buffer on the CPU) is a compute pass that ANDs the two objects' words per pixel
///   and reads back only per-pair counts, the collision volume and contact samples (lossless:
///   every bit is tested on the GPU).
/// - Beyond the paper, settings.fill: besides the surface bit of each fragment (the paper,
///   GL_OR), each object's interior between front and back faces is coded per slice by a first
///   pass under GL_XOR (a fragment toggles every slice whose centre lies beyond it: the parity
///   of crossings at each slice centre), so an object inside another, or a face orthogonal to
///   the view (§3.1.2), still shows. Off: the paper's surface-only coding.
/// - §3.1.1 offset surfaces: vertices moved along their normals by settings.offset (+ swell:
///   conservative; - shrink: tight), in the pair's voxel diagonals or, with offsetUnit=model,
///   as a fraction of the object's box diagonal (the paper's 1%). Each vertex moves by
///   offset / min(n_v . n_f) over its faces (at most 4x), so every face plane moves by at least
///   the offset.
/// - §3.1.1 collision-volume refinement (settings.refine): the pairs that collided are
///   rendered again in the box of their colliding voxels (widened by one voxel); the last
///   rendering may use settings.lastSlices slices (Table 1's last row).
/// - §3.2 collision response: contact samples from the shared voxels (settings.samples; one per
///   pixel column: the centre of the middle voxel of its longest shared run), one normal per
///   pair from the fill gradient (grad occupancy(A) - grad occupancy(B) by central differences
///   over 5x5x5 voxels, summed over the pair's samples; where all vanish, the view's depth axis,
///   the overlap's thinnest, from B's box toward A's), depth the shared region's thickness along
///   the sample's gradient less half a voxel. §5's "traditional technique in the collision volume":
///   settings.exact tests the triangles of both objects inside the collision volume exactly
///   (triangle pairs; a pair is reported only when one intersects).
/// - Many pairs per call: every pair's view is a tile of an atlas; one batch renders all tiles.
/// - A driver whose glLogicOp does not work on the integer target (probed at creation) gets the
///   shader-OR path: the fragment shader ORs/XORs into a storage buffer with atomics
///   (`isc info` says which path this GL gets).
#include "isc/detect/Detector.h"

#include <array>
#include <memory>
#include <string>

namespace isc {

/// The slices detector's own settings (DetectorSettings::options by these names;
/// docs/detectors/slices.md has what each costs and gains).
struct SlicesSettings {
    int resolution = 32;  ///< pixels across a pair's view (square), 4..512
    int slices = 16;      ///< depth slices per rendering, 1..128 (64 per RGBA32UI target)
    int refine = 0;       ///< collision-volume refinements (extra renderings of colliding pairs), 0..8
    int lastSlices = 0;   ///< slices of the last refinement's rendering (0: `slices`), 1..128
    bool fill = true;     ///< code each object's interior (XOR parity at slice centres) besides its surface
    float offset = 0.0f;  ///< vertex offset along normals: + swell (conservative), - shrink (tight)
    std::string offsetUnit = "voxel";  ///< "voxel" (the pair's first voxel diagonal) or "model" (object box diagonal)
    bool exact = true;    ///< exact triangle test inside the collision volume: triangle pairs, precision 1
    /// Contact samples from the shared voxels (always made with exact=false: they carry the
    /// voxel verdict). Off by default: the dispatcher then makes contacts from the exact
    /// triangle pairs (a resting pile; samples alone hold a pile up but keep it jittering,
    /// docs/detectors/slices.md).
    bool samples = false;
    bool logicOp = true;  ///< glLogicOp on the targets (false, or not working here: the shader-OR path)
    /// Draw, per pair, only the triangles whose world boxes can reach its view (across it, and
    /// not wholly beyond its far face): the same bits, fewer triangles. false: whole objects
    /// (the paper: "we did not ... perform gross culling of subobjects").
    bool cull = true;

    static constexpr std::array<SettingField<SlicesSettings>, 11> fields{{
        {"resolution", &SlicesSettings::resolution, "pixels across a pair's view (4..512)"},
        {"slices", &SlicesSettings::slices, "depth slices per rendering (1..128)"},
        {"refine", &SlicesSettings::refine, "collision-volume refinements (0..8)"},
        {"lastSlices", &SlicesSettings::lastSlices, "slices of the last refinement (0: slices)"},
        {"fill", &SlicesSettings::fill, "code interiors (XOR parity) besides surfaces; false: the paper's surfaces only"},
        {"offset", &SlicesSettings::offset, "vertex offset along normals: + swell (conservative), - shrink (tight)"},
        {"offsetUnit", &SlicesSettings::offsetUnit, "unit of offset: voxel (pair's voxel diagonal) or model (box diagonal)"},
        {"exact", &SlicesSettings::exact, "exact triangle test in the collision volume (triangle pairs)"},
        {"samples", &SlicesSettings::samples, "contact samples from the shared voxels (always with exact=false)"},
        {"logicOp", &SlicesSettings::logicOp, "glLogicOp on integer targets (false: shader-OR path)"},
        {"cull", &SlicesSettings::cull, "draw only the triangles that can reach each pair's view (same bits)"},
    }};
};

/// The slices detector. Needs a current GL 4.5 context at creation and at every detect()
/// (the same context).
class SlicesDetector final : public Detector {
public:
    ~SlicesDetector() override;

    std::string_view name() const override { return "slices"; }
    bool usesGl() const override { return true; }
    /// True with settings.exact.
    bool reportsTrianglePairs() const override;
    /// True when settings.fill (interiors need closed meshes); pairs with an open mesh are
    /// then returned unserved.
    bool needsClosedMeshes() const override;
    /// Counters per call: candidate_pairs, served_pairs, unserved_pairs, fattened_pairs,
    /// disjoint_pairs (boxes apart), renderings (views rendered, all rounds), batches,
    /// triangles_drawn, shared_voxels (last rendering of each pair), voxel_colliding_pairs
    /// (pairs whose last rendering shares a voxel), samples, tri_tri_tests, colliding_pairs,
    /// shader_or (1 on the shader-OR path); gpu_ms split as gpu_raster_ms, gpu_test_ms.
    [[nodiscard]] Result<void> detect(const Scene& scene, std::span<const ObjectPair> candidates,
                                      DetectionOutput& out) override;
    /// The last batch's shared-voxel counts per pixel (Counts) and object A's and B's
    /// occupied slices per pixel.
    std::vector<DetectorDebugView> debugViews() const override;
    /// True when this detector runs on the shader-OR path (logicOp off or not working here).
    bool usesShaderOr() const;

    struct Impl;

private:
    friend Result<std::unique_ptr<Detector>> createSlicesDetector(const DetectorSettings&, const SlicesSettings&);
    explicit SlicesDetector(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

/// Creates the slices detector: checks the settings (resolution in [4, 512], slices and
/// lastSlices in [1, 128] (lastSlices 0 allowed), refine in [0, 8], offsetUnit voxel or model),
/// compiles its shaders and probes glLogicOp on an RGBA32UI target. Needs a current GL 4.5
/// context; errors carry the driver's log.
[[nodiscard]] Result<std::unique_ptr<Detector>> createSlicesDetector(const DetectorSettings& common,
                                                                     const SlicesSettings& settings = {});

/// Whether glLogicOp (GL_OR and GL_XOR) works on an RGBA32UI target with the current GL
/// context (a 1x1 probe draw, read back). Needs a current GL 4.5 context.
[[nodiscard]] Result<bool> probeIntegerLogicOp();

}  // namespace isc
