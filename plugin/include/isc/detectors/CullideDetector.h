#pragma once
/// The CULLIDE detector ("cullide"): Govindaraju, Redon, Lin & Manocha's reducePCS
/// (CULLIDE, 2003) with Boldt & Meyer's self-intersection variant ("Self-intersections with
/// Cullide", papers/001). A potentially colliding set (PCS) of objects is pruned on the GPU
/// by visibility: an item whose fragments all lie in front of (or all behind) every other
/// item's fragments along a view collides with none of them (paper Lemma 3.1), and testing
/// each item against the items drawn before it, then after it (Lemma 3.2) makes that O(n).
/// The PCS is reduced along 3 axes at the object level, then at the level of triangle
/// clusters of each object's hierarchy, then at the triangle level (paper section 3.2,
/// Figure 1); the triangles left go to the exact CPU triangle–triangle test (isc::geometry,
/// all cores), so the output is exact triangle pairs, as `cpu` reports them (precision 1).
///
/// Where this implementation departs from the papers (docs/detectors/cullide.md has the why):
/// - Conservative rasterization in every pass (shaders/cullide/raster.glsl): every pixel a
///   triangle's projection touches gets a fragment, with a depth interval [near, far] that
///   holds the triangle's depth over that pixel; a fragment is hidden when its far is at or
///   behind another item's near. So the paper's section 5 limits (depth bits, pixel size,
///   triangles parallel to the view) can never prune a true intersection: recall is 1 by
///   construction, at any resolution (the resolution only sets how much is pruned).
/// - settings.method "compute" (default): the two ordered passes of the paper's Figure 2 are
///   replaced by their equivalent, the nearest fragment of the OTHER groups at each pixel,
///   found exactly in compute passes with two depth words per pixel and direction; one axis
///   tests the view direction and its opposite at once (6 directions over 3 axes). "queries":
///   the paper's form at the object and cluster levels, an occlusion query per item and pass
///   (in order, then reversed; front, then back), from a pool reused in rounds; results land
///   in a query buffer read by a compute pass, so the CPU never waits on a query. (The
///   triangle level computes either way: a query per triangle would be millions per call.)
/// - The PCS is a set of objects, not pairs: the candidate pairs (from the broadphase) with
///   both objects in the PCS go on, and each level's items are also pruned per pair by
///   their boxes against the partners' surviving items.
/// - Self-intersections (DetectorSettings::selfCollision, pairs (o, o)): the paper's
///   Figure 3 tests an object against itself; with conservative fragments neighbouring
///   triangles always overlap where they meet, so the self level runs per triangle, each
///   against the non-adjacent triangles of its object (those sharing no vertex, as the exact
///   reference), with per-pixel fragment lists (settings.selfLayers; more: conservative).
/// - Open meshes are served: the test is on surfaces, so closedness never matters (the
///   paper: "both open and closed objects can be treated").
#include "isc/detect/Detector.h"

#include <array>
#include <functional>
#include <memory>
#include <string>

namespace isc {

/// The cullide detector's own settings (DetectorSettings::options by these names;
/// docs/detectors/cullide.md says what each costs and gains).
struct CullideSettings {
    /// "compute" (default: compute passes equivalent to the paper's ordered passes) or
    /// "queries" (the paper's occlusion queries at the object and cluster levels).
    std::string method = "compute";
    /// Pixels across the smallest object at the triangle level (and the self level), 8..4096.
    /// (32 since 2026-11-27, was 128: with the GPU filter behind it, more pixels left fewer
    /// triangles but the same exact tests, for 2-4 times the level's GPU time;
    /// docs/detectors/cullide.md.)
    int resolution = 32;
    /// Pixels across the smallest object at the cluster level, 4..4096 (8 since the evening of
    /// 2026-11-27, 32 before, 64 before that: with the GPU filter behind it, a coarser cluster
    /// level changes no exact test, docs/detectors/cullide.md).
    int clusterResolution = 8;
    /// Pixels across the smallest object at the object level, 4..4096.
    int objectResolution = 32;
    /// Triangles per cluster (the largest subtrees of each mesh's BVH with at most this many
    /// triangles), 4..4096; 0: no cluster level (objects, then triangles).
    int clusterSize = 64;
    /// Axes along which each level is reduced: 1 (z) or 3 (x, y, z).
    int axes = 3;
    /// Fragments kept per pixel at the self level, 4..64 (a fuller pixel hides everything).
    int selfLayers = 16;
    /// Occlusion queries in the pool (method "queries"), 1..65536; more items than that are
    /// queried in rounds that reuse the pool.
    int queryPool = 1024;
    /// The object level draws each object as the world boxes of its clusters (a box holds its
    /// triangles: conservative, a box per cluster instead of every triangle); false: the
    /// triangles, as the paper (method "queries" always does).
    bool objectBoxes = true;
    /// detect() runs the object level before the cluster level (true), or starts at the cluster
    /// level (false, default): with the cluster level on, an object fully visible at the object
    /// level leaves every one of its clusters visible too, so the object level only saves
    /// cluster work where it prunes whole objects (the broadphase's prunePairs always runs it).
    bool objectLevel = false;
    /// Compute path: every level's views in one dispatch per pass, each view testing the whole
    /// PCS of the level (true, default), or view after view, an item pruned along one axis gone
    /// for the next (false: the paper's successive reducePCS calls; prunes a little more).
    bool viewsAtOnce = true;
    /// Compute path: an item's fragments are queried only inside its object's box met with
    /// its partners' boxes (where any contact point of it lies; occluders are not cut), true
    /// (default); false: everywhere, as the paper (prunes less).
    bool contactClip = true;
    /// Compute path: the cluster level draws each cluster as its world box (one box per
    /// cluster: far cheaper, prunes less), false (default): as its triangles.
    bool clusterBoxes = false;
    /// detect(): the cluster level's visibility pass on the GPU (true, default), or clusters
    /// cut by boxes only (false: a cluster goes on when its box meets a cluster box of the
    /// partner; one GPU round trip less per call, more triangles at the triangle level).
    bool clusterPass = true;
    /// Compute path: the cluster level, the per-pair cluster overlap and the triangle level
    /// chained on the GPU with one read-back per call (true, default; the triangle level's PCS
    /// seeded on the GPU from the clusters the kept pairs need), or each level read back and
    /// the next one built on the CPU (false).
    bool chain = true;
    /// With the chain, detect(): after the triangle level, a float triangle–triangle filter on
    /// the GPU lists the surviving triangle pairs that may touch (conservative tolerance), and
    /// only those go to the exact CPU test (true, default; clusters of at most 64 triangles), or
    /// the survivors are read back and paired on the CPU by sweep and prune (false).
    bool gpuFilter = true;
    /// The triangle level's visibility passes (the paper's last reducePCS). False (default since
    /// the evening of 2026-11-27; with the chain): every triangle of the clusters the kept pairs
    /// need goes on as it is, and only the GPU filter (or the CPU pairing) narrows them: on the
    /// piles the same exact tests for less GPU time (docs/detectors/cullide.md). True: the
    /// paper's triangle level.
    bool triangleLevel = false;
    /// With the GPU filter: triangle pairs its list holds at first, 16..2^28. A call that lists
    /// more tests its survivors on the CPU instead (the same answer, counter `filter_overflows`)
    /// and the next call gets a list large enough for it.
    int filterList = 1 << 16;
    /// With the chain (cluster level on triangles): every cluster of the pairs' objects is an
    /// item, its world box posed (rigid) or refit from the uploaded vertices (deformed) on the
    /// GPU, and only those reaching a partner's box enter the cluster level (true, default); the
    /// CPU then builds no boxes and no per-call item list. False: the boxes and the clusters that
    /// reach a partner found on the CPU (round E's path).
    bool gpuItems = true;
    /// The cluster level's axes (detect() and prunePairs() at the cluster level): 1 (z, default
    /// since 2026-11-27 night) or 3, never more than `axes`. In detect() its pruning only narrows
    /// what the GPU filter and the exact test see, so the answer is the same either way (through
    /// prunePairs() at the cluster level one axis keeps more pairs, conservatively); one axis leaves
    /// more clusters (6074 instead of 3936 of 8134 on pile/100) for a third of the fragments, and
    /// took 0.04-0.17 ms off each call on both piles on the H200 and the H100
    /// (docs/detectors/cullide.md, cullide-7).
    int clusterAxes = 1;

    static constexpr std::array<SettingField<CullideSettings>, 20> fields{{
        {"method", &CullideSettings::method, "compute (default) or queries (the paper's occlusion queries, object and cluster levels)"},
        {"resolution", &CullideSettings::resolution, "triangle level: pixels across the smallest object (8..4096)"},
        {"clusterResolution", &CullideSettings::clusterResolution,
         "cluster level: pixels across the smallest object (4..4096)"},
        {"objectResolution", &CullideSettings::objectResolution,
         "object level: pixels across the smallest object (4..4096)"},
        {"clusterSize", &CullideSettings::clusterSize, "triangles per cluster (4..4096), 0: no cluster level"},
        {"axes", &CullideSettings::axes, "axes each level is reduced along: 1 (z) or 3 (x, y, z)"},
        {"selfLayers", &CullideSettings::selfLayers, "self level: fragments kept per pixel (4..64)"},
        {"queryPool", &CullideSettings::queryPool, "method queries: occlusion queries in the pool (1..65536)"},
        {"objectBoxes", &CullideSettings::objectBoxes,
         "object level on its clusters' boxes (true) or on its triangles (false, the paper's form)"},
        {"objectLevel", &CullideSettings::objectLevel,
         "detect(): run the object level before the cluster level (default false: clusters first)"},
        {"viewsAtOnce", &CullideSettings::viewsAtOnce,
         "compute: all axes of a level in one dispatch per pass (true) or axis after axis (false)"},
        {"contactClip", &CullideSettings::contactClip,
         "compute: query an item only inside its object's box met with its partners' (true) or everywhere (false)"},
        {"clusterBoxes", &CullideSettings::clusterBoxes,
         "compute: cluster level on the clusters' boxes (true: cheaper, prunes less) or their triangles (false)"},
        {"clusterPass", &CullideSettings::clusterPass,
         "detect(): the cluster level's GPU pass (true) or clusters cut by their boxes only (false: one round trip less)"},
        {"chain", &CullideSettings::chain,
         "compute: cluster level, per-pair cluster overlap and triangle level chained on the GPU, one read-back (true) or "
         "a read-back per level (false)"},
        {"gpuFilter", &CullideSettings::gpuFilter,
         "chain, detect(): float triangle-triangle filter on the GPU lists the pairs for the exact test (true) or the "
         "survivors are paired on the CPU (false)"},
        {"triangleLevel", &CullideSettings::triangleLevel,
         "chain: the triangle level's visibility passes (true) or the wanted clusters' triangles as they are (false)"},
        {"filterList", &CullideSettings::filterList,
         "gpuFilter: triangle pairs the filter's list holds at first (16..2^28); a call that lists more tests its "
         "survivors on the CPU and the next gets room"},
        {"gpuItems", &CullideSettings::gpuItems,
         "chain: cluster boxes posed and cut to the partners' boxes on the GPU (true) or on the CPU (false)"},
        {"clusterAxes", &CullideSettings::clusterAxes,
         "cluster level: axes it is reduced along, 1 (z) or 3, at most axes (default 1)"},
    }};
};

/// How far prunePairs() descends before it decides on a pair.
enum class CullideLevel {
    Object,   ///< both objects in the object-level PCS
    Cluster,  ///< and a surviving cluster of each whose boxes overlap
    Triangle, ///< and a surviving triangle of each whose boxes overlap
};

/// The cullide detector. Needs a current GL 4.5 context at creation and at every detect()
/// (the same context). Serves open meshes (never returns pairs unserved).
class CullideDetector final : public Detector {
public:
    ~CullideDetector() override;

    std::string_view name() const override { return "cullide"; }
    bool usesGl() const override { return true; }
    bool reportsTrianglePairs() const override { return true; }
    bool needsClosedMeshes() const override { return false; }
    /// Counters per call: pcs_objects_in / pcs_objects (object level, before and after),
    /// pcs_clusters_in / pcs_clusters, pcs_triangles_in / pcs_triangles, self_triangles_in /
    /// self_triangles, pairs_after_objects / pairs_after_clusters / pairs_after_triangles,
    /// queries (method "queries"), fragments, views, gpu_object_ms / gpu_cluster_ms /
    /// gpu_triangle_ms / gpu_self_ms (GL timestamps per level), tri_tri_tests,
    /// positive_tests, cpu_setup_ms, cpu_narrowphase_ms (and its stages cpu_narrow_pose_ms,
    /// _sap_ms, _exact_ms, _results_ms), cpu_cluster_pairs_ms (per-pair cluster overlap),
    /// splat_threads (work indices of the splat passes), cut_levels (levels kept whole: a
    /// thread had more pixels than a shader loop may visit; conservative, with a warning).
    [[nodiscard]] Result<void> detect(const Scene& scene, std::span<const ObjectPair> candidates,
                                      DetectionOutput& out) override;

    /// The PCS passes without the exact test, for a broadphase: the candidate pairs (a < b;
    /// self pairs are ignored) of which both objects survive down to `level`, with boxes of
    /// their surviving items that overlap, go to `kept` (in candidate order). A pair of two
    /// colliding objects (triangles sharing a point, each grown by its `fatten`) is always
    /// kept. `fatten`: per object, world units (empty: 0); the objects' triangles are tested
    /// grown by it. Objects with non-finite poses or inactive are dropped with their pairs
    /// (a warning in `stats`). Same counters as detect().
    /// `objectLevel` false: the pair-based object level is skipped (the caller ran
    /// beginObjectPcs / endObjectPcs and passes only pairs of objects left in that PCS).
    /// `whileGpuRuns` (optional): the caller's CPU work, run exactly once on this thread, even
    /// when the call fails: at the cluster level (chained) after the GPU passes are queued and
    /// flushed, before the wait for them, so that it overlaps the GPU's work; otherwise at the
    /// end. It must not use GL or this detector. Its wall time is counter `overlap_ms`, left out
    /// of stats.totalMs (CullideBroadphase runs its dispatcher's detector in it).
    [[nodiscard]] Result<void> prunePairs(const Scene& scene, std::span<const ObjectPair> candidates,
                                          CullideLevel level, std::vector<ObjectPair>& kept, DetectorStats& stats,
                                          std::span<const float> fatten = {}, bool objectLevel = true,
                                          const std::function<void()>& whileGpuRuns = {});

    /// The object level over EVERY active object of `scene` at once, with no candidate pairs:
    /// the PCS is all of them, each tested against all the others along the 3 axes (or 1), in
    /// one view per axis over the whole scene, at `objectResolution` pixels across the smallest
    /// object; each object is drawn as its clusters' boxes, rigid ones posed on the GPU from
    /// the scene's model matrices (local boxes uploaded once per mesh), deformed ones from
    /// their vertices. An object left out of the PCS is fully visible from some direction: it
    /// touches no other object (grown by `fatten`, per object, world units; empty: 0), so
    /// every pair naming it can be dropped. Split in two so that the CPU works while the GPU
    /// does: beginObjectPcs() queues the passes and returns without waiting; endObjectPcs()
    /// reads the result (one synchronisation): `inPcs[o]` is 1 for an object still in the PCS,
    /// 0 for one pruned, inactive or with a non-finite pose (a warning in `stats`). Counters:
    /// pcs_objects_in, pcs_objects, pcs_boxes, gpu_object_ms, views, coarsened_views,
    /// cpu_object_setup_ms, run_object_ms. Nothing else may be called in between.
    /// `pairs` (optional, the candidate pairs): the PCS is then the objects of these pairs
    /// only, each queried only inside its box met with its partners' boxes (contactClip) and
    /// the views span those regions: more is pruned, and an object none of whose partners'
    /// boxes meets its own leaves the PCS.
    [[nodiscard]] Result<void> beginObjectPcs(const Scene& scene, std::span<const float> fatten = {},
                                              std::span<const ObjectPair> pairs = {});
    [[nodiscard]] Result<void> endObjectPcs(std::vector<std::uint8_t>& inPcs, DetectorStats& stats);

    struct Impl;

private:
    friend Result<std::unique_ptr<CullideDetector>> createCullideDetector(const DetectorSettings&,
                                                                          const CullideSettings&);
    explicit CullideDetector(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

/// Creates the cullide detector: checks the settings (ranges above, method "compute" or
/// "queries", axes 1 or 3) and compiles its shaders. Needs a current GL 4.5 context; errors
/// carry the driver's log.
[[nodiscard]] Result<std::unique_ptr<CullideDetector>> createCullideDetector(const DetectorSettings& common,
                                                                             const CullideSettings& settings = {});

}  // namespace isc
