#pragma once
/// The CInDeR detector ("cinder"): Knott & Pai's "Collision and Interference Detection in
/// Real-time using graphics hardware", as Malmsten & Klasén report and extend it (papers/000,
/// section 4.2 and Knott & Pai's pseudo code in its Appendix A). Two objects interfere if and
/// only if an edge of one intersects the volume of the other; the edges are sampled in image
/// space and each sample is located against the other objects by virtual ray casting: the
/// surfaces in front of it along the view ray, counted front-facing +1 and back-facing -1 (the
/// paper's stencil counting), are not zero where it lies inside a closed volume.
///
/// Passes (docs/detectors/cinder.md has what each costs) and where this implementation departs:
/// - The paper's views: one camera over the scene, one object id pair per pixel. Here views are
///   orthographic tiles of an atlas, per axis (settings.axes) and per view group: with
///   settings.layout "pairs" (default) one group per candidate pair, its tile the overlap of the
///   two world boxes across the axis and both objects' whole depth; with "scene" (the paper's
///   form) one group of up to 255 objects (8-bit object slots, as the paper's 8-bit colour
///   channels), more objects making more groups (a second pass), never wrapped ids.
/// - Pass 1 (edges into the depth buffer, last writer wins): every edge fragment is kept, in
///   its pixel's next slot (settings.maxLayers), with the object's slot and the edge's index.
/// - Passes 2-3 and 5-6 (front faces increment the stencil, back faces decrement it, in front
///   of the edge; per object for the identification): one raster pass keeps every surface
///   fragment (slot, triangle) in the pixel's slots; a compute pass counts, per edge fragment
///   and per other object of the view, the crossings in front of it. Several collisions per
///   pixel are kept (each edge fragment against each object), not one pair per pixel.
/// - Self-interference (the paper filters it after the fact, section 4.3.1): prevented, an
///   object's surfaces are never counted against its own edges.
/// - Passes 4 and 7 (object ids coded in colour) and the read-back: settings.readback
///   "compact" (default) appends one record per edge hit to a storage buffer (an atomic
///   counter: lossless), with the point on the edge, the penetrated object's triangle there and
///   its outward normal, octahedral-encoded in 2 x 16 bits (the encoded-normal pass; worst
///   angular error 0.005 degrees), and the depth along that normal; "mipmap" is the paper's
///   section 4.3.2.2: one pair code per pixel (the last hit, as the paper's colour buffer), a
///   max-reduction by 2 x 2 for settings.mipLevels levels, the small image read back; pairs
///   whose pixels share a reduced pixel are lost (the paper's trade-off, kept to compare).
/// - Beyond the paper: a compute cull before the raster passes (settings.cull): per tile only the
///   edges whose box meets the pairs' overlap box and the triangles whose box meets its footprint
///   across the view axis, at any depth (the parity needs every crossing in front of a point),
///   drawn from compacted index lists through indirect multi-draws.
/// - Beyond the paper: an edge sample within settings.proximity pixels of the other object's
///   surface also counts (catches crossings shorter than a pixel), and the exact check: per
///   edge hit, the triangles of the other object along the edge (its local BVH) and the two
///   faces of the edge are tested with the reference's exact triangle test, so the triangle
///   pairs reported are exact (precision 1) and a pair is reported only when they exist. Each
///   pair also carries contact samples from the GPU's own records (readback "compact"): the
///   dispatcher makes its contacts from those.
/// Closed meshes only: a pair with an open mesh is not drawn and comes back in
/// DetectionOutput::unserved, with a warning naming the object.
#include "isc/detect/Detector.h"

#include <array>
#include <memory>
#include <string>

namespace isc {

/// The cinder detector's own settings (DetectorSettings::options by these names;
/// docs/detectors/cinder.md has what each costs and gains).
struct CinderSettings {
    int resolution = 128;  ///< pixels across a tile (each direction), a power of two in [16, 2048]
    int axes = 3;          ///< projection axes: 1 (z) or 3 (x, y, z; hits unioned)
    std::string layout = "pairs";      ///< "pairs" (one tile per candidate pair and axis) or "scene" (the paper's: one view of up to 255 objects)
    std::string readback = "compact";  ///< "compact" (every hit appended, lossless) or "mipmap" (the paper's lossy reduction)
    int mipLevels = 3;     ///< readback=mipmap: 2 x 2 reductions before the read-back, 1..log2(resolution)
    /// Edge and surface fragments kept per pixel, 4..64. A pixel with more: its kept edges count
    /// as near hits against every other object there (the exact check decides), no winding.
    int maxLayers = 32;
    /// Edge samples within this many pixels (in depth) of the other object's surface count as
    /// hits too (the exact check decides); 0: the paper's inside test alone.
    float proximity = 1.5f;
    /// Contact samples (point on the edge, encoded normal, depth) for every pair (compact read-back).
    bool samples = true;
    /// The cull before the raster passes (not in the paper, which draws every object whole): per
    /// tile, only the edges whose box meets the pairs' overlap box and the triangles whose box
    /// meets its footprint across the view axis (at any depth: the parity needs every crossing in
    /// front of an edge point) are drawn, through compacted index lists and indirect draws.
    bool cull = true;

    static constexpr std::array<SettingField<CinderSettings>, 9> fields{{
        {"resolution", &CinderSettings::resolution, "pixels across a tile, a power of two 16..2048"},
        {"axes", &CinderSettings::axes, "projection axes: 1 (z) or 3 (x, y, z)"},
        {"layout", &CinderSettings::layout, "pairs (a tile per candidate pair) or scene (the paper's: a view of up to 255 objects)"},
        {"readback", &CinderSettings::readback, "compact (lossless append) or mipmap (the paper's 2x2 max reduction, lossy)"},
        {"mipLevels", &CinderSettings::mipLevels, "readback=mipmap: reductions before the read-back, 1..log2(resolution)"},
        {"maxLayers", &CinderSettings::maxLayers, "edge and surface fragments kept per pixel, 4..64 (more: near hits, no winding)"},
        {"proximity", &CinderSettings::proximity, "edge samples this many pixels from the other surface count too (0: inside only)"},
        {"samples", &CinderSettings::samples, "contact samples from the GPU's records (compact read-back)"},
        {"cull", &CinderSettings::cull, "draw per tile only the edges in the pairs' overlap box and the triangles in its footprint prism"},
    }};
};

/// The cinder detector. Needs a current GL 4.5 context at creation and at every detect()
/// (the same context). Needs closed meshes: pairs with an open mesh come back unserved.
class CinderDetector final : public Detector {
public:
    ~CinderDetector() override;

    std::string_view name() const override { return "cinder"; }
    bool usesGl() const override { return true; }
    bool reportsTrianglePairs() const override { return true; }
    bool needsClosedMeshes() const override { return true; }
    /// Counters per call: candidate_pairs, unserved_pairs, open_mesh_pairs, view_groups, views,
    /// batches, edges_in, triangles_in (the tiles' objects' edges and triangles, summed over
    /// tiles), edges_drawn, triangles_drawn (what the cull kept; = the inputs with cull=false),
    /// pixels (atlas pixels resolved), inside_fragments (edge fragments inside the other
    /// volume), near_fragments, overflow_pixels, overflow_views, hits (records read back), hit_pairs (pairs with
    /// a hit), mipmap_pairs (readback=mipmap), full_exact_pairs (pairs only the mip-map names),
    /// tri_tri_tests, positive_tests, samples, colliding_pairs; gpu_ms split as
    /// gpu_cull_ms, gpu_edges_ms, gpu_surfaces_ms, gpu_resolve_ms; CPU: cpu_setup_ms, cpu_hits_ms
    /// (grouping the records), cpu_exact_ms, cpu_samples_ms.
    [[nodiscard]] Result<void> detect(const Scene& scene, std::span<const ObjectPair> candidates,
                                      DetectionOutput& out) override;
    /// The last batch of the last call: "edge fragments per pixel" and "surface fragments per
    /// pixel" (counts over the atlas).
    std::vector<DetectorDebugView> debugViews() const override;

    struct Impl;

private:
    friend Result<std::unique_ptr<Detector>> createCinderDetector(const DetectorSettings&, const CinderSettings&);
    explicit CinderDetector(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

/// Creates the cinder detector: checks the settings (resolution a power of two in [16, 2048],
/// axes 1 or 3, layout "pairs" or "scene", readback "compact" or "mipmap", mipLevels in [1,
/// log2(resolution)], maxLayers in [4, 64], proximity >= 0, a tile's slot buffer of resolution^2
/// x maxLayers x 8 bytes within GL_MAX_SHADER_STORAGE_BLOCK_SIZE: 128 MB on llvmpipe, so 2048 px
/// needs maxLayers 4 there) and compiles its shaders. Needs a current GL 4.5 context; errors
/// carry the driver's log.
[[nodiscard]] Result<std::unique_ptr<Detector>> createCinderDetector(const DetectorSettings& common,
                                                                     const CinderSettings& settings = {});

/// Octahedral normal encoding of the cinder records (2 x 16-bit snorm, x in the low half):
/// decodes what the GPU wrote. Worst angular error of an encode/decode round trip: 0.04 degrees (100,000 random normals).
Vec3 decodeCinderNormal(std::uint32_t code);
/// The same encoding on the CPU (for tests).
std::uint32_t encodeCinderNormal(const Vec3& n);

}  // namespace isc
