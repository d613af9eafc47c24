#include "isc/detectors/CullideDetector.h"

#include "isc/detect/Registry.h"

#include "CullideHierarchy.h"
#include "CullideNarrowphase.h"
#include "CullidePasses.h"

#include "../peel/PeelExact.h"

#include "isc/core/Assert.h"
#include "isc/detect/AutoDetector.h"
#include "isc/gl/Gl.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include <omp.h>

namespace isc {

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

void addCount(DetectorStats& stats, std::string_view name, double value) {
    stats.count(name, stats.counter(name) + value);
}

// Storage a level's view may take: the depth words (16 bytes per pixel) of the compute
// passes, the fragment lists of the self level. A larger view gets coarser pixels.
constexpr double kMaxDepthBytes = 64.0 * 1024 * 1024;
constexpr double kMaxSelfBytes = 128.0 * 1024 * 1024;
constexpr std::uint32_t kMaxViewSide = 8192;

float longest(const Aabb& b) { return std::max({b.extent().x, b.extent().y, b.extent().z}); }

// One view per axis over `lateral` (across) and `depthBox` (along), pixels of `pixel` world
// units, coarsened so that no view holds more than `maxPixels` pixels.
std::vector<cullide::View> makeViews(const Aabb& lateral, const Aabb& depthBox, float pixel, int axes,
                                     double maxPixels, DetectorStats& stats) {
    std::vector<cullide::View> views;
    for (int ai = 0; ai < (axes == 3 ? 3 : 1); ++ai) {
        const int w = axes == 3 ? ai : 2, u = (w + 1) % 3, v = (w + 2) % 3;
        const float eu = std::max(lateral.max[u] - lateral.min[u], 0.0f);
        const float ev = std::max(lateral.max[v] - lateral.min[v], 0.0f);
        float p = std::max(pixel, 1e-30f);
        auto side = [&](float e) { return double(std::ceil(e / p)) + 1.0; };
        if (side(eu) * side(ev) > maxPixels || side(eu) > kMaxViewSide || side(ev) > kMaxViewSide) {
            // Coarser pixels until it fits (conservative: only less is pruned).
            const double scale = std::max({std::sqrt(side(eu) * side(ev) / maxPixels), side(eu) / kMaxViewSide,
                                           side(ev) / kMaxViewSide});
            p = float(double(p) * scale * 1.01);
            addCount(stats, "coarsened_views", 1);
        }
        cullide::View view;
        view.axis = w;
        view.origin = Vec3(lateral.min[u], lateral.min[v], depthBox.min[w]);
        view.pixel = p;
        view.depth = std::max(depthBox.max[w] - depthBox.min[w], 1e-30f);
        view.width = static_cast<std::uint32_t>(side(eu));
        view.height = static_cast<std::uint32_t>(side(ev));
        views.push_back(view);
    }
    addCount(stats, "views", double(views.size()));
    return views;
}

}  // namespace

struct CullideDetector::Impl {
    std::vector<PairResult> spentPairs;  // the last call's pairs (detect(): clearInto), freed while the GPU runs
    DetectorSettings common;
    CullideSettings settings;
    cullide::Passes passes;
    std::unique_ptr<cullide::Hierarchies> hierarchies;
    cullide::Narrowphase narrowphase;
    // The listed tests' exact stage: peel's (grouped by pair, the last call's pairs speculated
    // during the chain's wait and looked up after it), as cinder uses it too. `listedObjects`:
    // the object pairs of the chain's listed pairs, made before the chain so that the wait can
    // prepare the look-up (PeelExact::prepare wants the same span as run()); `found`: the
    // listed tests as PeelExact takes them.
    peel::PeelExact exact;
    std::vector<ObjectPair> listedObjects;
    std::vector<peel::TrianglePairCandidate> found;
    std::vector<std::vector<Vec3>> worldVertices;  // per object: deformed objects' posed vertices (this call)
    // Cullide-8's changes, each on by default; the environment turns one off ("0") when the
    // detector is made, to compare old and new in one process (bench/gpu/cullide-speed-8.sh):
    // ISC_CULLIDE_FUSED (the listed tests to PeelExact; 0: Narrowphase::runListed's flat loop),
    // ISC_CULLIDE_SPECULATE (the last call's pairs tested while the GPU works; needs
    // PeelExact), ISC_CULLIDE_TEAM_WAIT (the chain's wait inside the exact test's
    // OpenMP team, Chain::waitTeam).
    // Test hook ISC_CULLIDE_SPECULATE_ALL=1: speculation tests every remembered pair whatever the
    // fence (after the wait on software GL, where the wait runs alone), so tests see the reuse path.
    bool fusedExact = true, speculate = true, teamWait = true, speculateAll = false;
    // Cullide-10's, on by default, the same way: ISC_CULLIDE_FUSED_SETUP (the deformed boxes
    // and the vertex conversion in one parallel region, the copy in pieces; 0: two regions, the
    // copy with the chain). (Its pair pass cut to the other object's box, ISC_CULLIDE_PAIR_CUT,
    // measured no faster on the H100 and was removed: cullide.md, "cullide-10".)
    bool fusedSetup = true;
    // ISC_CULLIDE_PAIR_SPLIT (cullide-10): threads of the chain's pair pass per (pair, cluster of
    // its side A), each walking a share of side B's clusters; default 8, 1 as before.
    std::uint32_t pairSplit = 8;
    static constexpr int kCopyPieces = 4;  // fusedSetup: the vertex copy in up to 4 pieces (peel's)
    std::vector<std::uint8_t> convertedFlags;       // fusedSetup: per changed object, converted
    std::vector<char> isChanged;                    // fusedSetup: per object, its vertices converted this call
    bool softwareGl = false;
    // Test hook ISC_CULLIDE_FILTER_CHECKSUM=1 (cullide-12): the counter filter_list_checksum, an
    // order-free checksum of the filter's listed triangle pairs (pair, triangle of a, of b), so
    // that tests compare the list of two filter paths as a set.
    bool filterChecksum = false;
    // Diagnostic hook ISC_CULLIDE_FILTER_SUBCOUNT=1 (2026-11-28, sixth session): the counters
    // filter_empty_cluster_pairs, filter_no_subbox_cluster_pairs and filter_no_tight_cluster_pairs
    // (Passes::setFilterSubCount): how many of the filter's workgroups a tighter cut would save.
    bool filterSubCount = false;
    // cullide-13: ISC_CULLIDE_EARLY_START (the chain's pose pass queued and flushed as soon as
    // the object boxes and partners are made, Passes::startChain: the GPU starts while the CPU
    // makes the views, clip boxes and pair list; 0: with the cluster level's splats, as before);
    // test hook ISC_CULLIDE_TIMELINE=1 (the counters gpu_start_lag_ms, gpu_span_ms,
    // gpu_wake_lag_ms: the GL clock read around the chain, Passes::setTimeline).
    bool earlyStart = true;
    bool testsInPlace = true;  // ISC_CULLIDE_TESTS_IN_PLACE (detect(): the filter's list read in the mapping)

    // What the levels leave.
    struct Pcs {
        std::vector<std::uint32_t> pairs;                       // candidate indices of the inter pairs left
        std::vector<std::vector<std::uint32_t>> survivors;      // per object: its triangles left (inter)
        std::vector<std::vector<std::uint32_t>> selfSurvivors;  // per object: its triangles left (self)
        std::vector<std::uint32_t> selfPairs;                   // candidate indices of the self pairs served
        // The chain's GPU filter listed the inter pairs' triangle pairs that may touch: `tests`
        // (3 words each: index into listedPairs, triangle of its a, of its b) replaces the
        // survivor lists for the exact test.
        // (`tests` lies in the chain's read-back mapping, cullide-8: not copied unless a later
        // level of the call could move it, then into testsCopy.)
        bool listed = false;
        std::vector<std::uint32_t> listedPairs;  // candidate indices
        std::span<const std::uint32_t> tests;
        std::vector<std::uint32_t> testsCopy;
        // The chain's wait for its fence returned then (the counter cpu_after_wait_ms).
        std::optional<std::chrono::steady_clock::time_point> waitedAt;
    };
    // prunePairs's `whileGpuRuns`: handed to the next chain (Chain::afterIssue), else run by prunePairs at its end.
    std::function<void()> afterIssue;
    isc::Result<void> pipeline(const Scene& scene, std::span<const ObjectPair> candidates, CullideLevel limit,
                               bool objectLevel, bool withSelf, std::span<const float> fatten, bool gpuFilter, Pcs& out,
                               DetectorStats& stats);

    // beginObjectPcs / endObjectPcs: the local cluster boxes of every mesh (static, uploaded
    // once), where each mesh's start, and what the pass in flight needs at its end.
    bool staticBoxesStale = true;
    std::vector<std::uint32_t> staticBase;  // per MeshId: first box (in boxes, not vec4s)
    std::vector<const Mesh*> boxedMeshes;   // per MeshId: the mesh staticBase and the item cache were made for
    /// Syncs the hierarchies; when a MeshId names another mesh than at the last call (another
    /// scene handed to the detector, back to meshes whose hierarchies are cached), the static
    /// boxes and the item cache, which go by MeshId, are made again. True: new hierarchies.
    bool syncHierarchies(const Scene& scene) {
        const bool changed = hierarchies->sync(scene);
        bool same = !changed && boxedMeshes.size() == scene.meshCount();
        for (MeshId m = 0; same && m < scene.meshCount(); ++m) same = boxedMeshes[m] == &scene.mesh(m);
        if (!same) {
            staticBoxesStale = true;
            itemCache.valid = false;
            boxedMeshes.resize(scene.meshCount());
            for (MeshId m = 0; m < scene.meshCount(); ++m) boxedMeshes[m] = &scene.mesh(m);
        }
        return changed;
    }
    /// Uploads every mesh's local cluster boxes (clusterSize 0: its root box) when stale.
    void ensureStaticBoxes(const Scene& scene);
    // gpuItems: the cluster items of the last call's objects (a pile keeps its pairs' objects
    // from call to call: then only the object boxes and the partners are new).
    struct ItemCache {
        bool valid = false;
        std::vector<ObjectId> objects;  // in group order
        std::vector<float> grows;       // per group: the fattening
        std::vector<char> deformed;     // per group
        std::vector<MeshId> meshes;     // per group (a detector may be handed another scene)
        std::vector<gl::CullideItem> items;
        std::vector<Aabb> boxes;        // per item: a box its cluster fits in any rotation (sizes the split)
        std::vector<std::uint32_t> boxIndex, first, count;  // per item; per group: first item, items
        std::uint32_t work = 0;
        float extent = 0.0f;  // the longest side of boxes
        std::uint32_t maxSlots = 0;  // the most slots of an item
        std::uint64_t version = 0;   // Level::itemsVersion of this list (new with every rebuild)
    } itemCache;
    std::uint64_t itemVersions = 0;
    struct ObjectPass {
        bool open = false;
        std::size_t objectCount = 0;            // scene objects
        std::vector<ObjectId> objects;          // the PCS, in group order
        std::vector<gl::CullideItem> items;
        std::vector<Aabb> itemBoxes;            // per item: its object's world box (grown)
        std::vector<glm::vec4> worldBoxes;      // deformed objects' cluster boxes
        std::vector<std::string> warnings;
        cullide::LevelResult result;
        DetectorStats stats;                    // views, coarsened_views, cpu_object_setup_ms
    } objectPass;
};

isc::Result<void> CullideDetector::Impl::pipeline(const Scene& scene, std::span<const ObjectPair> candidates,
                                                  CullideLevel limit, bool objectLevel, bool withSelf, std::span<const float> fatten,
                                                  bool gpuFilter, Pcs& res, DetectorStats& stats) {
    const auto tSetup = Clock::now();
    const CullideSettings& st = settings;
    // The paper's occlusion queries at the object and cluster levels; at the triangle level one
    // query per triangle and pass would be millions per call, so that level always computes.
    const bool queries = st.method == "queries";
    const std::size_t n = scene.objectCount();
    res = {};
    res.survivors.resize(n);
    res.selfSurvivors.resize(n);
    for (const ObjectPair& p : candidates)
        if (p.a >= n || p.b >= n)
            return fail("CullideDetector: candidate pair (" + std::to_string(p.a) + ", " + std::to_string(p.b) +
                        ") names an object the scene does not have");
    if (!fatten.empty() && fatten.size() != n)
        return fail("CullideDetector::prunePairs(): fatten has " + std::to_string(fatten.size()) +
                    " entries, the scene " + std::to_string(n) + " objects");

    // Objects taking part; unusable ones are skipped (a warning for a bad pose).
    std::vector<char> state(n, 0);  // 0 unused, 1 ok, 2 skipped
    for (const ObjectPair& p : candidates) {
        if (p.a == p.b && !withSelf) continue;
        for (ObjectId o : {p.a, p.b}) {
            if (state[o] != 0) continue;
            state[o] = 1;
            if (!scene.isActive(o)) {
                state[o] = 2;
            } else if (!scene.pose(o).isFinite()) {
                state[o] = 2;
                stats.warnings.push_back("object " + std::to_string(o) +
                                         " has a non-finite pose (NaN or Inf): skipped this step");
            }
        }
    }
    const bool slotsChanged = syncHierarchies(scene);
    auto grow = [&](ObjectId o) { return fatten.empty() ? 0.0f : std::max(0.0f, fatten[o]); };
    // gpuItems: the chain's cluster items are every cluster of the pairs' objects, their world
    // boxes and the cut to the partners' boxes computed on the GPU (pose.glsl); the CPU
    // builds no cluster boxes and keeps no posed vertices.
    bool gpuItems = st.gpuItems && st.chain && !queries && st.clusterSize > 0 && !st.clusterBoxes && st.clusterPass &&
                    limit != CullideLevel::Object && !objectLevel;
    for (ObjectId o = 0; o < n && gpuItems; ++o)
        if (state[o] == 1 && hierarchies->get(scene.meshOf(o)).clusters.size() > CULLIDE_CHAIN_MAX_ITEMS) gpuItems = false;

    // World boxes (grown by the object's fattening): rigid from the hierarchy root, deformed
    // from the vertices. The GPU's round-off bound scales with the largest coordinate.
    std::vector<Aabb> box(n);
    float scale = 0.0f;
    // Deformed objects' boxes from their vertices, in parallel (the rest is cheap); the world
    // vertices are kept for the cluster boxes (each vertex posed once, not once per triangle
    // corner: 6 times fewer on the bunny).
    if (worldVertices.size() < n) worldVertices.resize(n);
    const auto tBoxes = Clock::now();
    // (A deformed object's box from its local bounds turned, Scene::worldBounds, with no pass
    // over its vertices: tried in cullide-8's run 2 and dropped, cullide.md.)
    // No parallel region without a deformed object (a rigid pile, the broadphase): waking the
    // team costs more than the loop (cullide-9).
    bool anyDeformed = false;
    for (std::size_t o = 0; o < n && !anyDeformed; ++o) anyDeformed = state[o] == 1 && scene.isDeformed(ObjectId(o));
    // A deformed object's box (and without gpuItems its posed vertices).
    auto deformedBox = [&](std::size_t o) {
        const Pose& pose = scene.pose(ObjectId(o));
        const auto local = scene.localVertices(ObjectId(o));
        if (gpuItems) {
            // Only the box: the GPU poses the vertices itself.
            const glm::mat3 r = glm::mat3_cast(pose.rotation);
            Vec3 lo(INFINITY), hi(-INFINITY);
            for (const Vec3& v : local) {
                const Vec3 w = r * v;
                lo = glm::min(lo, w);
                hi = glm::max(hi, w);
            }
            if (!local.empty()) {
                box[o].grow(lo + pose.position);
                box[o].grow(hi + pose.position);
            }
            return;
        }
        std::vector<Vec3>& world = worldVertices[o];
        world.resize(local.size());
        for (std::size_t i = 0; i < local.size(); ++i) {
            world[i] = pose.apply(local[i]);
            box[o].grow(world[i]);
        }
    };
    // cullide-10 (fusedSetup, hook ISC_CULLIDE_FUSED_SETUP=0): with a deformed object in the
    // call, the deformed vertices' conversion for the upload (GpuScene) and the deformed boxes
    // share one parallel region, as peel's fused sync does (PeelScenePass): each thread takes
    // the next changed object, converts it and makes its box while its vertices are in cache;
    // the thread with the GL context records the copy of those converted so far in pieces
    // (flushed: the GPU copies while the rest are converted), then the object records; the
    // deformed objects whose vertices did not change get their box after. Before (the hook):
    // the boxes in one region, then GpuScene::sync's conversion in a second one after the pairs,
    // its copy flushed only with the chain's first passes.
    bool synced = false;
    std::span<const ObjectId> changed;
    const auto tSync = Clock::now();
    if (anyDeformed && fusedSetup) {
        changed = passes.beginSync(scene);
        if (changed.empty()) {
            // No new vertices (the object records only): the boxes as before, then the rest of the sync.
#pragma omp parallel for schedule(dynamic, 4)
            for (std::size_t o = 0; o < n; ++o)
                if (state[o] == 1 && scene.isDeformed(ObjectId(o))) deformedBox(o);
            passes.endSync(hierarchies->slots(), slotsChanged);
            synced = true;
        }
    }
    if (!changed.empty()) {
        isChanged.assign(n, 0);
        for (ObjectId o : changed) isChanged[o] = 1;
        // Each thread converts the next changed object and makes its box while its vertices are
        // in cache; the GL thread records the copy in pieces (gl::ConversionTeam).
        gl::ConversionTeam team(passes.gpuScene(), scene, changed.size(), kCopyPieces, false, convertedFlags,
                                [&](std::size_t k) {
                                    if (state[changed[k]] == 1) deformedBox(changed[k]);
                                });
        double uploadMs = 0.0;
        std::int64_t copies = 0;
        const cullide::Slots slots = hierarchies->slots();
#pragma omp parallel
        {
            if (omp_get_thread_num() == 0) {  // the thread with the GL context
                copies = team.convertAndCopy();
                passes.endSync(slots, slotsChanged);
                glFlush();  // the rest of the copy runs while the CPU goes on
                ++copies;
                uploadMs = msSince(tSync);
            } else {
                while (team.convertNext()) {
                }
            }
#pragma omp for schedule(dynamic, 4)
            for (std::size_t o = 0; o < n; ++o)
                if (state[o] == 1 && !isChanged[o] && scene.isDeformed(ObjectId(o))) deformedBox(o);
        }
        synced = true;
        stats.count("cpu_setup_upload_ms", uploadMs);
        stats.count("vertex_copies", double(copies));  // (0: no deformed vertices changed)
    } else if (!synced) {
#pragma omp parallel for schedule(dynamic, 4) if (anyDeformed)
        for (std::size_t o = 0; o < n; ++o)
            if (state[o] == 1 && scene.isDeformed(ObjectId(o))) deformedBox(o);
    }
    for (ObjectId o = 0; o < n; ++o) {
        if (state[o] != 1) continue;
        const cullide::MeshHierarchy& h = hierarchies->get(scene.meshOf(o));
        if (scene.isDeformed(o)) {
            const float m = std::max({std::fabs(box[o].min.x), std::fabs(box[o].min.y), std::fabs(box[o].min.z),
                                      std::fabs(box[o].max.x), std::fabs(box[o].max.y), std::fabs(box[o].max.z)});
            box[o] = box[o].expanded(m * 2e-6f);
        } else {
            box[o] = cullide::worldBox(h.bvh.nodes()[0].box, scene.pose(o));
        }
        const Aabb local = h.mesh->localBounds();
        for (int k = 0; k < 3; ++k)
            scale = std::max({scale, std::fabs(box[o].min[k]), std::fabs(box[o].max[k]), std::fabs(local.min[k]),
                              std::fabs(local.max[k])});
    }
    const float eps = 4e-6f * scale + 1e-30f;
    for (ObjectId o = 0; o < n; ++o)
        if (state[o] == 1) box[o] = box[o].expanded(grow(o) + eps);
    stats.count("cpu_setup_boxes_ms", msSince(tBoxes));

    // Inter pairs whose grown boxes meet (others cannot collide).
    std::vector<std::uint32_t> pairs;
    for (std::uint32_t c = 0; c < candidates.size(); ++c) {
        const ObjectPair p = candidates[c];
        if (p.a == p.b || state[p.a] != 1 || state[p.b] != 1) continue;
        if (box[p.a].overlaps(box[p.b])) pairs.push_back(c);
    }
    if (!synced) {
        // (Here, after the boxes: uploading first and flushing gained nothing in cullide-7's run 1,
        // as every pass of the chain reads the deformed vertices; cullide.md. Beside the boxes,
        // on the master of their team, it took 0.37-0.45 ms instead of 0.07-0.08: GpuScene::sync's
        // own parallel loop ran on one thread there; cullide-8's run 1.)
        const auto tUpload = Clock::now();
        passes.sync(scene, hierarchies->slots(), slotsChanged);
        stats.count("cpu_setup_upload_ms", msSince(tUpload));
    }
    stats.count("cpu_setup_ms", msSince(tSetup));

    // Views of a set of pairs: across, the union of the pairs' box intersections (only there
    // can they collide); along, the union of their objects' boxes.
    // The cluster level's axes: clusterAxes, never more than axes.
    const int clusterAxes = std::min(st.axes, st.clusterAxes);
    auto pairViews = [&](std::span<const std::uint32_t> ps, int resolution, double maxPixels, int axes) {
        Aabb lateral, along;
        float smallest = INFINITY;
        for (std::uint32_t c : ps) {
            const ObjectPair p = candidates[c];
            lateral.grow(box[p.a].intersection(box[p.b]));
            along.grow(box[p.a]);
            along.grow(box[p.b]);
            smallest = std::min({smallest, longest(box[p.a]), longest(box[p.b])});
        }
        return makeViews(lateral, along, smallest / float(resolution), axes, maxPixels, stats);
    };
    // Groups of a level: its objects, numbered densely (fragments of one object never hide
    // each other: the PCS is tested object against object).
    std::vector<std::uint32_t> groupOf(n, 0);
    // (Marked, then listed in id order: the same sorted list without sorting the pairs' ids; the
    // step it opens, cpu_chain_need_ms, took 0.03-0.07 ms on the H100's host before the GPU starts.)
    std::vector<char> inGroup;
    auto numberGroups = [&](std::span<const std::uint32_t> ps) {
        inGroup.assign(n, 0);
        for (std::uint32_t c : ps) inGroup[candidates[c].a] = inGroup[candidates[c].b] = 1;
        std::vector<ObjectId> objects;
        for (ObjectId o = 0; o < n; ++o)
            if (inGroup[o]) {
                groupOf[o] = static_cast<std::uint32_t>(objects.size());
                objects.push_back(o);
            }
        return objects;
    };
    std::vector<gl::CullideItem> items;
    std::vector<Aabb> itemBoxes;  // per item: a world box holding its slots (sizes the threads per slot)
    std::span<const ObjectId> clipObjects;  // non-empty: clip boxes per group, these objects in group order
    std::vector<std::uint32_t> alive;
    auto addItem = [&](ObjectId o, std::uint32_t firstSlot, std::uint32_t count, std::uint32_t group,
                       std::uint32_t& work, const Aabb& within) {
        items.push_back({o, firstSlot, count, work, group, grow(o), 0u, work});
        itemBoxes.push_back(within);
        work += count;
    };
    // Per object: its box met with its partners' boxes over the pairs left (where any contact
    // point of it must lie).
    auto contactBoxes = [&] {
        std::vector<Aabb> contact(n);
        for (std::uint32_t c : pairs) {
            const ObjectPair p = candidates[c];
            const Aabb meet = box[p.a].intersection(box[p.b]);
            contact[p.a].grow(meet);
            contact[p.b].grow(meet);
        }
        return contact;
    };
    // A level over `levelItems` (their world boxes `levelItemBoxes`); `clip` holds its clip boxes.
    auto makeLevel = [&](const char* name, std::span<const gl::CullideItem> levelItems,
                         std::span<const Aabb> levelItemBoxes, std::uint32_t work, std::uint32_t groups,
                         std::vector<cullide::View> views, bool self, bool byQueries, bool perSlot,
                         std::span<const glm::vec4> boxes, std::vector<glm::vec4>& clip,
                         std::span<const Aabb> contactGiven = {}, bool wantClip = true) -> isc::Result<cullide::Level> {
        // Depth keys hold the group id in at most 24 bits (cullide::Passes): more groups is an
        // Error of this call (the dispatcher then serves its pairs exactly), never an assert.
        if (groups >= (1u << 24))
            return isc::fail(std::string("cullide: the ") + name + " level has " + std::to_string(groups) +
                             " groups, more than the 16777215 its depth keys can name; use the exact detector");
        cullide::Level level;
        level.name = name;
        level.items = levelItems;
        level.workCount = work;
        level.groupCount = groups;
        level.views = std::move(views);
        level.epsilon = eps;
        level.self = self;
        level.queries = byQueries;
        level.perSlot = perSlot;
        level.boxes = boxes;
        level.byBoxes = !boxes.empty();
        level.viewsAtOnce = st.viewsAtOnce;
        level.itemBoxes = levelItemBoxes;
        // Each item queried only inside its object's box met with its partners' boxes (the
        // pairs left), where any contact point of it must lie.
        clip.clear();
        if (st.contactClip && !self && !byQueries && wantClip) {
            // (contactGiven: the same pairs' contact boxes, made once for the chain's levels.)
            std::vector<Aabb> made;
            if (contactGiven.empty()) made = contactBoxes();
            const std::span<const Aabb> contact = contactGiven.empty() ? std::span<const Aabb>(made) : contactGiven;
            if (!clipObjects.empty()) {
                clip.reserve(2 * clipObjects.size());
                for (ObjectId o : clipObjects) {
                    clip.push_back(glm::vec4(contact[o].min, 0.0f));
                    clip.push_back(glm::vec4(contact[o].max, 0.0f));
                }
                level.clipPerGroup = true;
            } else {
                clip.reserve(2 * levelItems.size());
                for (const gl::CullideItem& it : levelItems) {
                    clip.push_back(glm::vec4(contact[it.object].min, 0.0f));
                    clip.push_back(glm::vec4(contact[it.object].max, 0.0f));
                }
            }
            level.clip = clip;
        }
        return level;
    };
    // The counters of a level that ran.
    auto recordLevel = [&](const char* name, const char* counterIn, const char* counterOut, const char* gpuCounter,
                           std::size_t membersIn, const cullide::LevelResult& lr, bool self) {
        addCount(stats, counterIn, double(membersIn));
        addCount(stats, counterOut, double(lr.alive));
        addCount(stats, gpuCounter, lr.gpuMs);
        addCount(stats, "gpu_ms", lr.gpuMs);
        addCount(stats, "readback_ms", lr.readbackMs);
        addCount(stats, "fragments", lr.fragments);
        addCount(stats, "splat_threads", lr.threads);
        if (lr.cut > 0) {
            addCount(stats, "cut_levels", 1);
            stats.warnings.push_back(std::string("cullide: the ") + name +
                                     " level kept every member (a thread had more pixels than one loop may visit)");
        }
        addCount(stats, "queries", lr.queries);
        if (self) addCount(stats, "self_overflow_pixels", lr.overflow);
    };
    auto runLevel = [&](const char* name, const char* counterIn, const char* counterOut, const char* gpuCounter,
                        std::uint32_t work, std::uint32_t groups, std::vector<cullide::View> views,
                        bool self, bool byQueries, bool perSlot,
                        std::span<const glm::vec4> boxes = {}) -> isc::Result<void> {
        std::vector<glm::vec4> clip;
        auto level = makeLevel(name, items, itemBoxes, work, groups, std::move(views), self, byQueries, perSlot, boxes, clip);
        if (!level) return fail(level.error().message);
        cullide::LevelResult lr;
        if (auto r = passes.run(*level, alive, lr); !r) return r;
        recordLevel(name, counterIn, counterOut, gpuCounter, level->members(), lr, self);
        addCount(stats, std::string("run_") + name + "_ms", lr.runMs);
        return {};
    };

    // World boxes of each object's clusters (the largest subtrees of its BVH with at most
    // clusterSize triangles; with clusterSize 0 the whole object), grown by the fattening.
    std::vector<std::vector<Aabb>> clusterBox(n);
    bool needStale = false;
    std::vector<std::vector<cullide::Cluster>> wholeObject(n);  // clusterSize 0: one cluster per object
    auto clustersOf = [&](ObjectId o) -> std::span<const cullide::Cluster> {
        const cullide::MeshHierarchy& h = hierarchies->get(scene.meshOf(o));
        if (st.clusterSize > 0) return h.clusters;
        return wholeObject[o];
    };
    // need[o]: per cluster of o, whether its box reaches a partner's box (per object, over its
    // partners), found with the boxes (one parallel region, not two: on the H100's host each
    // region's thread wake-up costs about 0.1 ms); again after an object level changed the pairs.
    std::vector<std::vector<ObjectId>> partners(n);
    std::vector<std::vector<char>> need(n);
    auto findPartners = [&] {
        for (auto& v : partners) v.clear();
        for (std::uint32_t c : pairs) {
            partners[candidates[c].a].push_back(candidates[c].b);
            partners[candidates[c].b].push_back(candidates[c].a);
        }
    };
    auto findNeed = [&](ObjectId o) {
        need[o].assign(clusterBox[o].size(), 0);
        for (std::size_t k = 0; k < clusterBox[o].size(); ++k)
            for (ObjectId y : partners[o])
                if (clusterBox[o][k].overlaps(box[y])) {
                    need[o][k] = 1;
                    break;
                }
    };
    if (!pairs.empty() && !gpuItems) {
        const auto t0 = Clock::now();
        const std::vector<ObjectId> objects = numberGroups(pairs);
        for (ObjectId o : objects)
            if (st.clusterSize == 0)
                wholeObject[o] = {{0u, static_cast<std::uint32_t>(scene.objectMesh(o).triangleCount()), 0u}};
        findPartners();
#pragma omp parallel for schedule(dynamic, 4)
        for (std::size_t oi = 0; oi < objects.size(); ++oi) {
            const ObjectId o = objects[oi];
            const cullide::MeshHierarchy& h = hierarchies->get(scene.meshOf(o));
            const auto cl = clustersOf(o);
            clusterBox[o].resize(cl.size());
            if (scene.isDeformed(o)) {
                const std::vector<Vec3>& world = worldVertices[o];  // posed in the set-up
                const auto tris = h.mesh->triangles();
                const auto slots = h.bvh.slotTriangles();
                for (std::size_t k = 0; k < cl.size(); ++k) {
                    Aabb b;
                    for (std::uint32_t s = cl[k].firstSlot; s < cl[k].firstSlot + cl[k].slotCount; ++s)
                        for (int c = 0; c < 3; ++c) b.grow(world[tris[slots[s]][c]]);
                    const float m = std::max({std::fabs(b.min.x), std::fabs(b.min.y), std::fabs(b.min.z),
                                              std::fabs(b.max.x), std::fabs(b.max.y), std::fabs(b.max.z)});
                    clusterBox[o][k] = b.expanded(m * 2e-6f + grow(o) + eps);
                }
            } else {
                for (std::size_t k = 0; k < cl.size(); ++k)
                    clusterBox[o][k] = cullide::worldBox(h.bvh.nodes()[cl[k].node].box, scene.pose(o))
                                           .expanded(grow(o) + eps);
            }
            findNeed(o);
        }
        stats.count("cpu_boxes_ms", msSince(t0));
    }

    // Level 1: objects (paper Figure 1, first reducePCS). By default each object is drawn as
    // the boxes of its clusters (settings.objectBoxes; a box holds its triangles, so this is
    // conservative and costs a box per cluster instead of every triangle); the paper draws
    // the triangles themselves (objectBoxes false, and always with method "queries").
    if (!pairs.empty() && (objectLevel || limit == CullideLevel::Object || st.clusterSize == 0)) {
        const auto t0 = Clock::now();
        const std::vector<ObjectId> objects = numberGroups(pairs);
        items.clear();
        itemBoxes.clear();
        std::uint32_t work = 0;
        const bool byBoxes = st.objectBoxes && !queries;
        std::vector<glm::vec4> boxes;
        for (ObjectId o : objects) {
            const cullide::MeshHierarchy& h = hierarchies->get(scene.meshOf(o));
            if (byBoxes) {
                addItem(o, static_cast<std::uint32_t>(boxes.size() / 2), static_cast<std::uint32_t>(clusterBox[o].size()),
                        groupOf[o], work, box[o]);
                for (const Aabb& b : clusterBox[o]) boxes.push_back(glm::vec4(b.min, 0.0f)), boxes.push_back(glm::vec4(b.max, 0.0f));
            } else {
                addItem(o, h.slotBase, static_cast<std::uint32_t>(h.mesh->triangleCount()), groupOf[o], work, box[o]);
            }
        }
        if (auto r = runLevel("object", "pcs_objects_in", "pcs_objects", "gpu_object_ms", work,
                              static_cast<std::uint32_t>(objects.size()),
                              pairViews(pairs, st.objectResolution, kMaxDepthBytes / 16, st.axes), false, queries, false, boxes);
            !r)
            return r;
        std::vector<char> in(n, 0);
        for (std::size_t i = 0; i < objects.size(); ++i) in[objects[i]] = alive[i] != 0;
        std::erase_if(pairs, [&](std::uint32_t c) { return !in[candidates[c].a] || !in[candidates[c].b]; });
        needStale = true;
        stats.count("pairs_after_objects", double(pairs.size()));
        stats.count("cpu_object_ms", msSince(t0));
    }

    // Level 2: clusters of each object's hierarchy, cut to the partners' boxes, then each
    // pair kept only when surviving clusters of both sides overlap.
    // clusterWanted[o]: per cluster of o, whether its triangles go to the triangle level.
    std::vector<std::vector<char>> clusterWanted(n);
    bool chainedDone = false;
    if (!pairs.empty() && limit != CullideLevel::Object) {
        const auto t0 = Clock::now();
        const std::vector<ObjectId> objects = numberGroups(pairs);
        // Clusters that reach a partner's box: found with the boxes unless the object level
        // dropped pairs since.
        if (needStale && !gpuItems) {
            findPartners();
#pragma omp parallel for schedule(dynamic, 4)
            for (std::size_t oi = 0; oi < objects.size(); ++oi) findNeed(objects[oi]);
        }
        std::vector<std::vector<char>> survived(n);
        // The chain: cluster level, per-pair cluster overlap and triangle level on the GPU, one
        // read-back (objects with more cluster items than one loop of the pair pass may walk
        // take the path below).
        std::size_t mostItems = 0;
        if (!gpuItems)
            for (ObjectId o : objects)
                mostItems = std::max<std::size_t>(mostItems, std::size_t(std::count(need[o].begin(), need[o].end(), 1)));
        const bool chained = gpuItems || (st.chain && !queries && st.clusterSize > 0 &&
                                          (st.clusterPass || limit != CullideLevel::Triangle) &&
                                          mostItems <= CULLIDE_CHAIN_MAX_ITEMS);
        if (chained) {
            stats.count("cpu_chain_need_ms", msSince(t0));
            items.clear();
            itemBoxes.clear();
            std::vector<std::uint32_t> itemFirst(n, 0), itemCount(n, 0);
            std::vector<glm::vec4> chainBoxes, boxes;
            std::vector<gl::CullideItem> triItems;
            std::uint32_t work = 0, triWork = 0;
            const bool byBoxes = st.clusterBoxes;
            std::vector<std::uint32_t> partnerCsr;
            std::vector<glm::vec4> objectBoxes;
            bool started = false;  // Passes::startChain ran (earlyStart)
            // (cullide-14b) Host clock between startChain's flush and runChain's: after it, after the
            // pair list, after the cluster level's views and clip boxes, after the triangle level's,
            // at runChain (the counters cpu_between_*_ms).
            Clock::time_point tStarted{}, tPairs{}, tClusterLevel{}, tTriangleLevel{}, tRunChain{};
            // The pair pass's list: per pair its sides' item ranges, the side with fewer clusters first.
            std::vector<gl::CullideChainPair> chainPairs;
            std::uint32_t pairThreads = 0;
            bool pairsMade = false;
            auto makeChainPairs = [&] {
                chainPairs.clear();
                chainPairs.reserve(pairs.size());
                pairThreads = 0;
                for (std::uint32_t c : pairs) {
                    ObjectId a = candidates[c].a, b = candidates[c].b;
                    const bool swapped = itemCount[a] > itemCount[b];  // fewer threads, longer loops
                    if (swapped) std::swap(a, b);
                    chainPairs.push_back({itemFirst[a], itemCount[a], itemFirst[b], itemCount[b], pairThreads, swapped ? 1u : 0u});
                    pairThreads += itemCount[a];
                }
                pairsMade = true;
            };
            // The float filter's conditions (chain.filter below).
            const bool filterEligible = gpuFilter && st.gpuFilter && limit == CullideLevel::Triangle && fatten.empty() &&
                                        st.clusterSize <= int(CULLIDE_FILTER_MAX_CLUSTER);
            if (gpuItems) {
                // Every cluster of the pairs' objects; the GPU poses its box and cuts it to the
                // partners'. The split (threads per slot) is sized from a box holding the cluster
                // in any rotation (its local box's half diagonal; for a deformed one the rest shape's:
                // an estimate there, and a thread over its loop's bound keeps the level whole).
                ensureStaticBoxes(scene);
                ItemCache& ic = itemCache;
                bool same = ic.valid && !slotsChanged && ic.objects == objects;
                for (std::size_t g = 0; g < objects.size() && same; ++g)
                    same = ic.grows[g] == grow(objects[g]) && ic.deformed[g] == char(scene.isDeformed(objects[g])) &&
                           ic.meshes[g] == scene.meshOf(objects[g]);
                if (!same) {
                    ic = {};
                    ic.objects = objects;
                    for (ObjectId o : objects) {
                        const cullide::MeshHierarchy& h = hierarchies->get(scene.meshOf(o));
                        const bool deformed = scene.isDeformed(o);
                        const std::uint32_t base = staticBase[scene.meshOf(o)];
                        ic.grows.push_back(grow(o));
                        ic.deformed.push_back(char(deformed));
                        ic.meshes.push_back(scene.meshOf(o));
                        ic.first.push_back(static_cast<std::uint32_t>(ic.items.size()));
                        for (std::uint32_t k = 0; k < h.clusters.size(); ++k) {
                            const cullide::Cluster& c = h.clusters[k];
                            const geometry::Bvh::Box& lb = h.bvh.nodes()[c.node].box;
                            // Only the extent sizes the split: centred at 0. (Deformed: the rest
                            // shape's, an estimate; a thread past its loop's bound keeps the level.)
                            const float r = 0.505f * std::sqrt((lb.max[0] - lb.min[0]) * (lb.max[0] - lb.min[0]) +
                                                               (lb.max[1] - lb.min[1]) * (lb.max[1] - lb.min[1]) +
                                                               (lb.max[2] - lb.min[2]) * (lb.max[2] - lb.min[2])) +
                                            grow(o);
                            ic.items.push_back({o, h.slotBase + c.firstSlot, c.slotCount, ic.work, groupOf[o], grow(o), 0u,
                                                ic.work});
                            ic.work += c.slotCount;
                            ic.boxes.push_back(Aabb{Vec3(-r), Vec3(r)});
                            ic.extent = std::max(ic.extent, 2.0f * r);
                            ic.maxSlots = std::max(ic.maxSlots, c.slotCount);
                            ic.boxIndex.push_back(deformed ? (CULLIDE_ITEM_BOX_DEFORMED_BIT | (base + k)) : base + k);
                        }
                        ic.count.push_back(static_cast<std::uint32_t>(ic.items.size()) - ic.first.back());
                    }
                    ic.valid = true;
                    ic.version = ++itemVersions;
                }
                work = ic.work;
                for (std::size_t g = 0; g < objects.size(); ++g) {
                    const ObjectId o = objects[g];
                    itemFirst[o] = ic.first[g];
                    itemCount[o] = ic.count[g];
                    objectBoxes.push_back(glm::vec4(box[o].min, 0.0f));
                    objectBoxes.push_back(glm::vec4(box[o].max, 0.0f));
                }
                // Partner groups per group (CSR over the pairs left), for the pose pass's partner cut:
                // not made when the early pair pass seeds the PCS instead (Passes::setPairSeeds).
                const bool earlyPairsNext = passes.earlyPairs() && filterEligible && !st.triangleLevel;
                if (!(earlyStart && earlyPairsNext && passes.pairSeeds())) {
                    const std::size_t ng = objects.size();
                    partnerCsr.assign(ng + 1 + 2 * pairs.size(), 0u);
                    for (std::uint32_t c : pairs)
                        ++partnerCsr[groupOf[candidates[c].a] + 1], ++partnerCsr[groupOf[candidates[c].b] + 1];
                    partnerCsr[0] = static_cast<std::uint32_t>(ng + 1);
                    for (std::size_t g = 0; g < ng; ++g) partnerCsr[g + 1] += partnerCsr[g];
                    std::vector<std::uint32_t> fill(partnerCsr.begin(), partnerCsr.begin() + std::ptrdiff_t(ng));
                    for (std::uint32_t c : pairs) {
                        const std::uint32_t ga = groupOf[candidates[c].a], gb = groupOf[candidates[c].b];
                        partnerCsr[fill[ga]++] = gb;
                        partnerCsr[fill[gb]++] = ga;
                    }
                }
                clipObjects = objects;
                if (earlyStart) {
                    // (cullide-13) The GPU starts on the pose pass now; the views, clip boxes and
                    // pair list below are made meanwhile. With Passes::setEarlyPairs the pair list
                    // first, and the pair pass queued and flushed after the pose pass, where the
                    // chain will end in the filter without the triangle level's passes (as
                    // runChain decides).
                    passes.startChain({itemCache.items, itemCache.version, eps, itemCache.boxIndex, objectBoxes,
                                       partnerCsr, earlyPairsNext});
                    started = true;
                    tStarted = Clock::now();
                    if (earlyPairsNext) {
                        makeChainPairs();
                        passes.queueEarlyPairs(chainPairs, pairThreads, pairSplit, itemCache.items.size(), eps);
                    }
                }
            }
            for (ObjectId o : gpuItems ? std::span<const ObjectId>() : std::span<const ObjectId>(objects)) {
                const cullide::MeshHierarchy& h = hierarchies->get(scene.meshOf(o));
                itemFirst[o] = static_cast<std::uint32_t>(items.size());
                for (std::uint32_t k = 0; k < h.clusters.size(); ++k) {
                    if (!need[o][k]) continue;
                    const Aabb& cb = clusterBox[o][k];
                    if (byBoxes) {
                        addItem(o, static_cast<std::uint32_t>(boxes.size() / 2), 1u, groupOf[o], work, cb);
                        boxes.push_back(glm::vec4(cb.min, 0.0f));
                        boxes.push_back(glm::vec4(cb.max, 0.0f));
                        triItems.push_back({o, h.slotBase + h.clusters[k].firstSlot, h.clusters[k].slotCount, triWork,
                                            groupOf[o], grow(o), 0u, triWork});
                        triWork += h.clusters[k].slotCount;
                    } else {
                        addItem(o, h.slotBase + h.clusters[k].firstSlot, h.clusters[k].slotCount, groupOf[o], work, cb);
                    }
                    chainBoxes.push_back(glm::vec4(cb.min, 0.0f));
                    chainBoxes.push_back(glm::vec4(cb.max, 0.0f));
                }
                itemCount[o] = static_cast<std::uint32_t>(items.size()) - itemFirst[o];
            }
            if (!byBoxes) {
                if (!gpuItems) triItems = items;
                triWork = work;
            }
            if (!pairsMade) makeChainPairs();
            const std::uint32_t groups = static_cast<std::uint32_t>(objects.size());
            stats.count("cpu_chain_items_ms", msSince(t0));
            tPairs = Clock::now();
            std::vector<glm::vec4> clusterClip, triangleClip;
            // gpuItems: the cached items themselves (no per-call copies).
            const std::span<const gl::CullideItem> clusterItems = gpuItems ? std::span<const gl::CullideItem>(itemCache.items)
                                                                           : std::span<const gl::CullideItem>(items);
            const std::span<const gl::CullideItem> triangleItems =
                gpuItems ? clusterItems : std::span<const gl::CullideItem>(triItems);
            const std::span<const Aabb> clusterItemBoxes =
                gpuItems ? std::span<const Aabb>(itemCache.boxes) : std::span<const Aabb>(itemBoxes);
            // (cullide-10: the pairs' contact boxes made once for both levels, and no clip boxes for
            // a triangle level without its visibility passes: the chain uploads none for it.)
            const std::vector<Aabb> contact = st.contactClip ? contactBoxes() : std::vector<Aabb>();
            auto clusterLevel = makeLevel("cluster", clusterItems, clusterItemBoxes, work, groups,
                                          pairViews(pairs, st.clusterResolution, kMaxDepthBytes / 16, clusterAxes), false, false,
                                          false, boxes, clusterClip, contact);
            if (!clusterLevel) return fail(clusterLevel.error().message);
            if (gpuItems) {
                clusterLevel->itemExtent = itemCache.extent;
                clusterLevel->maxSlotCount = itemCache.maxSlots;
                clusterLevel->itemsVersion = itemCache.version;
            }
            tClusterLevel = Clock::now();
            std::optional<cullide::Level> triangleLevel;
            if (limit == CullideLevel::Triangle) {
                auto tl = makeLevel("triangle", triangleItems, clusterItemBoxes, triWork, groups,
                                    pairViews(pairs, st.resolution, kMaxDepthBytes / 16, st.axes), false, false, true, {},
                                    triangleClip, contact, st.triangleLevel);
                if (!tl) return fail(tl.error().message);
                if (gpuItems) {
                    tl->itemExtent = itemCache.extent;
                    tl->maxSlotCount = itemCache.maxSlots;
                    tl->itemsVersion = itemCache.version;
                }
                triangleLevel = std::move(*tl);
            }
            tTriangleLevel = Clock::now();
            cullide::Chain chain;
            chain.cluster = &*clusterLevel;
            chain.triangle = triangleLevel ? &*triangleLevel : nullptr;
            chain.pairs = chainPairs;
            chain.pairThreads = pairThreads;
            chain.clusterBoxes = chainBoxes;
            chain.poseItems = gpuItems;
            chain.itemBoxes = gpuItems ? std::span<const std::uint32_t>(itemCache.boxIndex) : std::span<const std::uint32_t>();
            chain.objectBoxes = objectBoxes;
            chain.partners = partnerCsr;
            chain.started = started;
            // The float filter (exact test's input listed on the GPU): detect() only (no fattening),
            // clusters that fit its shared memory. Tolerance: 1e-5 of the scene's coordinate scale,
            // far above the float rounding of the world vertices (as peel).
            chain.filter = filterEligible;
            chain.tolerance = 1e-5f * scale;
            chain.triangleVisibility = st.triangleLevel;
            chain.pairSplit = pairSplit;
            // detect(): the wait inside the exact test's team (not on software GL, whose
            // rendering the spinning threads would slow), speculating meanwhile.
            if (chain.filter) {
                listedObjects.clear();
                for (std::uint32_t c : pairs) listedObjects.push_back(candidates[c]);
            }
            if (chain.filter && (teamWait || (speculate && fusedExact)) && !softwareGl) {
                chain.waitTeam = omp_get_max_threads();
                if (speculate && fusedExact)
                    chain.whileWaiting = [this, &scene](const std::atomic<bool>& stop) {
                        // One thread looks the pairs' groups up and makes the look-up table.
#pragma omp single nowait
                        exact.prepare(listedObjects, &stop);
                        exact.speculate(scene, stop);
                    };
            }
            chain.afterIssue = std::exchange(afterIssue, {});
            stats.count("cpu_chain_setup_ms", msSince(t0));
            tRunChain = Clock::now();
            cullide::ChainResult cr;
            auto ran = passes.runChain(chain, cr);
            clipObjects = {};  // (objects goes out of scope after this level)
            if (!ran) return ran;
            if (chain.filter) {
                addCount(stats, "gpu_filter_ms", cr.filterGpuMs);
                addCount(stats, "gpu_ms", cr.filterGpuMs);
                addCount(stats, "filter_cluster_pairs", cr.clusterPairs);
                addCount(stats, "filter_box_pairs", cr.boxPairs);
                if (filterSubCount) {
                    addCount(stats, "filter_empty_cluster_pairs", cr.emptyPairs);
                    addCount(stats, "filter_no_subbox_cluster_pairs", cr.noSubBoxPairs);
                    addCount(stats, "filter_no_tight_cluster_pairs", cr.noTightPairs);
                }
                if (!cr.listed) addCount(stats, "filter_overflows", 1);
            }
            if (cr.listed) {
                res.listed = true;
                res.listedPairs = pairs;
                res.tests = cr.tests;
                addCount(stats, "filtered_pairs", double(res.tests.size() / 3));
                if (filterChecksum) {
                    // Sum of a mix of each listed (pair, a, b), modulo 2^32: the same for the same set.
                    std::uint32_t sum = 0;
                    for (std::size_t t = 0; t < res.tests.size(); t += 3) {
                        std::uint64_t h = (std::uint64_t(res.tests[t]) * 0x9E3779B97F4A7C15ull) ^
                                          (std::uint64_t(res.tests[t + 1]) * 0xC2B2AE3D27D4EB4Full) ^
                                          (std::uint64_t(res.tests[t + 2]) * 0x165667B19E3779F9ull);
                        h ^= h >> 29;
                        sum += std::uint32_t(h * 0xBF58476D1CE4E5B9ull >> 32);
                    }
                    addCount(stats, "filter_list_checksum", double(sum));
                }
            }
            recordLevel("cluster", "pcs_clusters_in", "pcs_clusters", "gpu_cluster_ms", cr.clusterSeeded, cr.cluster, false);
            addCount(stats, "run_chain_ms", cr.runMs);
            if (chain.poseItems) addCount(stats, "gpu_pose_ms", cr.poseGpuMs);
            addCount(stats, "gpu_pair_ms", cr.pairGpuMs);
            if (cr.groupUpdate) stats.count("cluster_update_folded", 1.0);
            if (cr.earlyPairs) stats.count("pairs_early", 1.0);
            if (cr.pairRows) stats.count("pair_rows", 1.0);
            if (cr.poseChecksum != 0.0) stats.count("pose_box_checksum", cr.poseChecksum);
            if (cr.passTimes) {
                static constexpr const char* kPass[5] = {"gpu_pass_clear_ms", "gpu_pass_splat0_ms", "gpu_pass_splat1_ms",
                                                         "gpu_pass_splat2_ms", "gpu_pass_update_ms"};
                for (int k = 0; k < 5; ++k) addCount(stats, kPass[k], cr.passMs[k]);
            }
            addCount(stats, "run_chain_issue_ms", cr.issueMs);
            // (cullide-13) The CPU's part before the GPU was given work, the wait itself, and the
            // GPU's side on the GL clock (test hook).
            // (Both times stay unset when the chain had nothing to run.)
            const bool ranGpu = cr.waitedAt != Clock::time_point{};
            if (ranGpu)
                addCount(stats, "cpu_before_gpu_ms",
                         std::chrono::duration<double, std::milli>(cr.flushedAt - tSetup).count());
            addCount(stats, "run_chain_wait_ms", cr.waitMs);
            if (chain.started) {
                addCount(stats, "cpu_between_flushes_ms", cr.betweenFlushesMs);
                auto ms = [](Clock::time_point a, Clock::time_point b) {
                    return std::chrono::duration<double, std::milli>(b - a).count();
                };
                // (cullide-14b) Where the time between the flushes goes: the pair list, the cluster
                // level's contact boxes, views and clip boxes, the triangle level's, the chain's
                // set-up, and runChain's queueing up to its flush (the rest of betweenFlushesMs).
                addCount(stats, "cpu_between_pairs_ms", ms(tStarted, tPairs));
                addCount(stats, "cpu_between_cluster_level_ms", ms(tPairs, tClusterLevel));
                addCount(stats, "cpu_between_triangle_level_ms", ms(tClusterLevel, tTriangleLevel));
                addCount(stats, "cpu_between_chain_setup_ms", ms(tTriangleLevel, tRunChain));
                addCount(stats, "cpu_between_queue_ms", cr.betweenFlushesMs - ms(tStarted, tRunChain));
            }
            addCount(stats, "run_chain_copy_ms", cr.copyMs);
            addCount(stats, "run_chain_read_ms", cr.readMs);
            if (cr.timeline) {
                addCount(stats, "gpu_start_lag_ms", cr.startLagMs);
                addCount(stats, "gpu_span_ms", cr.spanMs);
                addCount(stats, "gpu_wake_lag_ms", cr.wakeLagMs);
            }
            if (ranGpu) res.waitedAt = cr.waitedAt;
            if (chain.afterIssue) addCount(stats, "overlap_ms", cr.afterIssueMs);
            std::vector<std::uint32_t> kept;
            for (std::size_t pi = 0; pi < pairs.size(); ++pi)
                if (cr.keep[pi]) kept.push_back(pairs[pi]);
            pairs = std::move(kept);
            stats.count("pairs_after_clusters", double(pairs.size()));
            stats.count("cpu_cluster_ms", msSince(t0));
            if (triangleLevel && res.listed) {
                recordLevel("triangle", "pcs_triangles_in", "pcs_triangles", "gpu_triangle_ms", cr.seeded, cr.triangle,
                            false);
                // Pairs with a listed triangle pair (the survivor lists are not needed).
                std::vector<char> listedPair(res.listedPairs.size(), 0);
                for (std::size_t t = 0; t < res.tests.size(); t += 3) listedPair[res.tests[t]] = 1;
                stats.count("pairs_after_triangles",
                            double(std::count(listedPair.begin(), listedPair.end(), char(1))));
            } else if (triangleLevel) {
                const auto t1 = Clock::now();
                // Survivors from the packed bits, item by item (members are the items' slots in order).
                cr.triangle.readbackMs = 0.0;  // counted with the cluster level: one read-back
                recordLevel("triangle", "pcs_triangles_in", "pcs_triangles", "gpu_triangle_ms", cr.seeded, cr.triangle,
                            false);
                std::size_t item = 0;
                const cullide::MeshHierarchy* h = nullptr;
                std::span<const std::uint32_t> slots;
                std::size_t hItem = SIZE_MAX;
                for (std::size_t w = 0; w < cr.bits.size(); ++w) {
                    for (std::uint32_t v = cr.bits[w]; v != 0; v &= v - 1) {
                        const std::uint32_t m = static_cast<std::uint32_t>(32 * w) + std::uint32_t(std::countr_zero(v));
                        while (item < triangleItems.size() &&
                               m >= triangleItems[item].memberStart + triangleItems[item].slotCount)
                            ++item;
                        if (item == triangleItems.size()) break;
                        const gl::CullideItem& it = triangleItems[item];
                        if (hItem != item) {
                            h = &hierarchies->get(scene.meshOf(it.object));
                            slots = h->bvh.slotTriangles();
                            hItem = item;
                        }
                        res.survivors[it.object].push_back(slots[it.firstSlot - h->slotBase + (m - it.memberStart)]);
                    }
                }
                std::erase_if(pairs, [&](std::uint32_t c) {
                    return res.survivors[candidates[c].a].empty() || res.survivors[candidates[c].b].empty();
                });
                stats.count("pairs_after_triangles", double(pairs.size()));
                stats.count("cpu_triangle_ms", msSince(t1));
            }
            chainedDone = true;
        }
        if (!chainedDone) {  // the chain did the cluster level, the pair overlap and the triangle level
    if (st.clusterSize > 0 && (st.clusterPass || limit != CullideLevel::Triangle)) {
                items.clear();
                itemBoxes.clear();
                std::vector<std::pair<ObjectId, std::uint32_t>> itemCluster;
                std::uint32_t work = 0;
                // clusterBoxes: each cluster drawn as its world box (one work index), not its triangles.
                const bool byBoxes = st.clusterBoxes && !queries;
                std::vector<glm::vec4> boxes;
                for (ObjectId o : objects) {
                    const cullide::MeshHierarchy& h = hierarchies->get(scene.meshOf(o));
                    for (std::uint32_t k = 0; k < h.clusters.size(); ++k) {
                        if (!need[o][k]) continue;
                        if (byBoxes) {
                            addItem(o, static_cast<std::uint32_t>(boxes.size() / 2), 1u, groupOf[o], work, clusterBox[o][k]);
                            boxes.push_back(glm::vec4(clusterBox[o][k].min, 0.0f));
                            boxes.push_back(glm::vec4(clusterBox[o][k].max, 0.0f));
                        } else {
                            addItem(o, h.slotBase + h.clusters[k].firstSlot, h.clusters[k].slotCount, groupOf[o], work,
                                    clusterBox[o][k]);
                        }
                        itemCluster.push_back({o, k});
                    }
                }
                if (auto r = runLevel("cluster", "pcs_clusters_in", "pcs_clusters", "gpu_cluster_ms", work,
                                      static_cast<std::uint32_t>(objects.size()),
                                      pairViews(pairs, st.clusterResolution, kMaxDepthBytes / 16, clusterAxes), false, queries, false,
                                      boxes);
                    !r)
                    return r;
                for (ObjectId o : objects) survived[o].assign(clustersOf(o).size(), 0);
                for (std::size_t i = 0; i < itemCluster.size(); ++i)
                    survived[itemCluster[i].first][itemCluster[i].second] = alive[i] != 0 ? 1 : 0;
            } else {
                survived = need;
            }
            const auto tPairs = Clock::now();
            // Per pair: surviving clusters of each side that meet a surviving cluster of the other
            // (in parallel over pairs; the flags are only ever set to 1).
            for (ObjectId o : objects) clusterWanted[o].assign(clustersOf(o).size(), 0);
            std::vector<char> keep(pairs.size(), 0);
    #pragma omp parallel for schedule(dynamic, 8)
            for (std::size_t pi = 0; pi < pairs.size(); ++pi) {
                const ObjectPair p = candidates[pairs[pi]];
                std::vector<std::uint32_t> ka, kb;
                for (std::uint32_t k = 0; k < clusterBox[p.a].size(); ++k)
                    if (survived[p.a][k] && clusterBox[p.a][k].overlaps(box[p.b])) ka.push_back(k);
                for (std::uint32_t k = 0; k < clusterBox[p.b].size(); ++k)
                    if (survived[p.b][k] && clusterBox[p.b][k].overlaps(box[p.a])) kb.push_back(k);
                std::vector<char> wantA(ka.size(), 0), wantB(kb.size(), 0);
                for (std::size_t x = 0; x < ka.size(); ++x)
                    for (std::size_t y = 0; y < kb.size(); ++y)
                        if (clusterBox[p.a][ka[x]].overlaps(clusterBox[p.b][kb[y]])) wantA[x] = wantB[y] = 1;
                for (std::size_t x = 0; x < ka.size(); ++x)
                    if (wantA[x]) {
                        keep[pi] = 1;
    #pragma omp atomic write
                        clusterWanted[p.a][ka[x]] = 1;
                    }
                for (std::size_t y = 0; y < kb.size(); ++y)
                    if (wantB[y]) {
    #pragma omp atomic write
                        clusterWanted[p.b][kb[y]] = 1;
                    }
            }
            stats.count("cpu_cluster_pairs_ms", msSince(tPairs));
            std::vector<std::uint32_t> kept;
            for (std::size_t pi = 0; pi < pairs.size(); ++pi)
                if (keep[pi]) kept.push_back(pairs[pi]);
            pairs = std::move(kept);
            stats.count("pairs_after_clusters", double(pairs.size()));
            stats.count("cpu_cluster_ms", msSince(t0));
        }
    }

    // Level 3: every triangle of the clusters left is a member of the PCS (the items are the
    // clusters, their slots the members).
    if (!pairs.empty() && limit == CullideLevel::Triangle && !chainedDone) {
        const auto t0 = Clock::now();
        const std::vector<ObjectId> objects = numberGroups(pairs);
        items.clear();
        itemBoxes.clear();
        std::uint32_t work = 0;
        for (ObjectId o : objects) {
            const cullide::MeshHierarchy& h = hierarchies->get(scene.meshOf(o));
            if (st.clusterSize == 0) {
                if (!clusterWanted[o].empty() && clusterWanted[o][0])
                    addItem(o, h.slotBase, static_cast<std::uint32_t>(h.mesh->triangleCount()), groupOf[o], work, box[o]);
                continue;
            }
            for (std::uint32_t k = 0; k < h.clusters.size(); ++k)
                if (clusterWanted[o][k])
                    addItem(o, h.slotBase + h.clusters[k].firstSlot, h.clusters[k].slotCount, groupOf[o], work,
                            clusterBox[o][k]);
        }
        if (auto r = runLevel("triangle", "pcs_triangles_in", "pcs_triangles", "gpu_triangle_ms", work,
                              static_cast<std::uint32_t>(objects.size()),
                              pairViews(pairs, st.resolution, kMaxDepthBytes / 16, st.axes), false, false, true);
            !r)
            return r;
        for (const gl::CullideItem& it : items) {
            const cullide::MeshHierarchy& h = hierarchies->get(scene.meshOf(it.object));
            const auto slots = h.bvh.slotTriangles();
            for (std::uint32_t k = 0; k < it.slotCount; ++k)
                if (alive[it.workStart + k]) res.survivors[it.object].push_back(slots[it.firstSlot - h.slotBase + k]);
        }
        // (Left in slot order, the hierarchy's leaf order: nothing needs them sorted, and the
        // sort took 0.3 ms a call on pile/100, more than the rest of the level's CPU work.)
        // A pair goes on when both sides kept a triangle.
        std::erase_if(pairs, [&](std::uint32_t c) {
            return res.survivors[candidates[c].a].empty() || res.survivors[candidates[c].b].empty();
        });
        stats.count("pairs_after_triangles", double(pairs.size()));
        stats.count("cpu_triangle_ms", msSince(t0));
    }
    res.pairs = std::move(pairs);

    // The self level (Boldt & Meyer section 4): each triangle of a self pair's object against
    // the non-adjacent triangles of the same object.
    if (withSelf) {
        const auto t0 = Clock::now();
        if (res.listed) {
            // The listed tests out of the read-back mapping before the self level reuses it.
            res.testsCopy.assign(res.tests.begin(), res.tests.end());
            res.tests = res.testsCopy;
        }
        std::vector<ObjectId> objects;
        for (std::uint32_t c = 0; c < candidates.size(); ++c) {
            const ObjectPair p = candidates[c];
            if (p.a != p.b || state[p.a] != 1) continue;
            if (std::find(objects.begin(), objects.end(), p.a) == objects.end()) objects.push_back(p.a);
            res.selfPairs.push_back(c);
        }
        if (objects.size() > CULLIDE_SELF_MAX_GROUPS)
            return fail("CullideDetector: " + std::to_string(objects.size()) + " objects with self pairs in one call; "
                        "the self level holds at most " + std::to_string(CULLIDE_SELF_MAX_GROUPS));
        items.clear();
        itemBoxes.clear();
        std::uint32_t work = 0;
        Aabb all;
        float smallest = INFINITY;
        for (std::uint32_t g = 0; g < objects.size(); ++g) {
            const ObjectId o = objects[g];
            const cullide::MeshHierarchy& h = hierarchies->get(scene.meshOf(o));
            if (h.mesh->triangleCount() > CULLIDE_SELF_MAX_TRIANGLES)
                return fail("CullideDetector: object " + std::to_string(o) + " has " +
                            std::to_string(h.mesh->triangleCount()) + " triangles; the self level holds at most " +
                            std::to_string(CULLIDE_SELF_MAX_TRIANGLES) + " per object");
            addItem(o, h.slotBase, static_cast<std::uint32_t>(h.mesh->triangleCount()), g, work, box[o]);
            all.grow(box[o]);
            smallest = std::min(smallest, longest(box[o]));
        }
        if (!objects.empty()) {
            const double maxPixels = kMaxSelfBytes / (8.0 * st.selfLayers);
            if (auto r = runLevel("self", "self_triangles_in", "self_triangles", "gpu_self_ms", work,
                                  static_cast<std::uint32_t>(objects.size()),
                                  makeViews(all, all, smallest / float(st.resolution), st.axes, maxPixels, stats), true,
                                  false, true);
                !r)
                return r;
            for (const gl::CullideItem& it : items) {
                const cullide::MeshHierarchy& h = hierarchies->get(scene.meshOf(it.object));
                const auto slots = h.bvh.slotTriangles();
                for (std::uint32_t k = 0; k < it.slotCount; ++k)
                    if (alive[it.workStart + k])
                        res.selfSurvivors[it.object].push_back(slots[it.firstSlot - h.slotBase + k]);
            }
            for (ObjectId o : objects) std::sort(res.selfSurvivors[o].begin(), res.selfSurvivors[o].end());
        }
        stats.count("cpu_self_ms", msSince(t0));
    }
    return {};
}

CullideDetector::CullideDetector(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CullideDetector::~CullideDetector() = default;

Result<void> CullideDetector::detect(const Scene& scene, std::span<const ObjectPair> candidates,
                                     DetectionOutput& out) {
    const auto t0 = Clock::now();
    Impl& im = *impl_;
    // The last call's pairs are freed once the chain's GPU work is issued, while the GPU runs
    // (DetectionOutput::clearInto, Passes::setSpent; 2026-11-29, eleventh session, as peel does).
    out.clearInto(im.spentPairs);
    im.passes.setSpent(&im.spentPairs);
    struct FreeLeft {  // (freed here when no chain ran, or on an error)
        std::vector<PairResult>& spent;
        ~FreeLeft() { spent.clear(); }
    } freeLeft{im.spentPairs};
    Impl::Pcs res;
    const bool speculate = im.speculate && im.fusedExact;
    if (speculate) im.exact.beginCall(im.common.wantSegments);  // new vertices and poses
    if (auto r = im.pipeline(scene, candidates, CullideLevel::Triangle, im.settings.objectLevel,
                             im.common.selfCollision, {}, true, res, out.stats);
        !r)
        return r;
    const auto tn = Clock::now();
    if (res.waitedAt)
        out.stats.count("cpu_after_wait_pipeline_ms",
                        std::chrono::duration<double, std::milli>(tn - *res.waitedAt).count());
    if (speculate && im.speculateAll && res.listed) {
        // Test hook: every remembered pair speculated (the rest of them, after the wait).
        const std::atomic<bool> never{false};
#pragma omp parallel
        im.exact.speculate(scene, never);
    }
    if (res.listed) {
        // The GPU filter listed the inter pairs' triangle pairs: the self pairs' survivors, then
        // the listed tests, merged in candidate order.
        std::vector<cullide::Narrowphase::Job> selfJobs;
        for (std::uint32_t c : res.selfPairs) selfJobs.push_back({candidates[c]});
        if (!selfJobs.empty())
            im.narrowphase.run(scene, selfJobs, res.survivors, res.selfSurvivors, im.common.wantSegments, out);
        const std::size_t selfResults = out.pairs.size();
        const std::span<const ObjectPair> listed = im.listedObjects;  // res.listedPairs' object pairs
        if (im.fusedExact) {
            // (3 words a test: index into `listed`, triangle of the lower object id, of the higher:
            // the filter writes PeelExact's TrianglePairCandidate, read where it lies in the
            // read-back mapping. Test hook ISC_CULLIDE_TESTS_IN_PLACE=0: copied first, as before
            // 2026-11-29, when the list was in candidate order and each entry was flipped here.)
            static_assert(sizeof(peel::TrianglePairCandidate) == 3 * sizeof(std::uint32_t));
            const std::size_t n = res.tests.size() / 3;
            std::span<const peel::TrianglePairCandidate> found(
                reinterpret_cast<const peel::TrianglePairCandidate*>(res.tests.data()), n);
            if (!im.testsInPlace) {
                im.found.assign(found.begin(), found.end());
                found = im.found;
            }
            im.exact.run(scene, listed, found, im.common.wantSegments, out);
            // The call's listed pairs and their results, for the next call's speculation.
            if (speculate) im.exact.rememberCall(std::span<const PairResult>(out.pairs).subspan(selfResults));
        } else {
            im.narrowphase.runListed(scene, listed, res.tests, im.common.wantSegments, out);
        }
        if (selfResults > 0 && selfResults < out.pairs.size()) {
            // Both kinds: candidate order (each list is in it already).
            std::vector<std::pair<std::uint32_t, std::size_t>> order;  // (candidate, position)
            std::size_t si = 0, li = 0;
            for (std::size_t k = 0; k < out.pairs.size(); ++k) {
                const bool self = k < selfResults;
                std::uint32_t c = 0;
                if (self) {
                    while (si < res.selfPairs.size() && candidates[res.selfPairs[si]] != out.pairs[k].pair) ++si;
                    c = si < res.selfPairs.size() ? res.selfPairs[si] : std::uint32_t(candidates.size());
                } else {
                    while (li < res.listedPairs.size() && candidates[res.listedPairs[li]] != out.pairs[k].pair) ++li;
                    c = li < res.listedPairs.size() ? res.listedPairs[li] : std::uint32_t(candidates.size());
                }
                order.push_back({c, k});
            }
            std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
            std::vector<PairResult> sorted;
            sorted.reserve(out.pairs.size());
            for (const auto& [c, k] : order) sorted.push_back(std::move(out.pairs[k]));
            out.pairs = std::move(sorted);
        }
        DetectorStats& stats = out.stats;
        stats.count("cpu_narrowphase_ms", msSince(tn));
        if (res.waitedAt) stats.count("cpu_after_wait_ms", msSince(*res.waitedAt));
        stats.gpuMs = stats.counter("gpu_ms");
        stats.readbackMs = stats.counter("readback_ms");
        stats.totalMs = msSince(t0);
        stats.cpuMs = std::max(0.0, stats.totalMs - stats.gpuMs - stats.readbackMs);
        return {};
    }
    // Exact jobs in candidate order.
    std::vector<cullide::Narrowphase::Job> jobs;
    std::size_t i = 0, j = 0;
    while (i < res.pairs.size() || j < res.selfPairs.size()) {
        const bool takeInter = j == res.selfPairs.size() || (i < res.pairs.size() && res.pairs[i] < res.selfPairs[j]);
        const std::uint32_t c = takeInter ? res.pairs[i++] : res.selfPairs[j++];
        jobs.push_back({candidates[c]});
    }
    im.narrowphase.run(scene, jobs, res.survivors, res.selfSurvivors, im.common.wantSegments, out);
    if (speculate) im.exact.remember({});  // (only listed calls are remembered)
    DetectorStats& stats = out.stats;
    stats.count("cpu_narrowphase_ms", msSince(tn));
    stats.gpuMs = stats.counter("gpu_ms");
    stats.readbackMs = stats.counter("readback_ms");
    stats.totalMs = msSince(t0);
    stats.cpuMs = std::max(0.0, stats.totalMs - stats.gpuMs - stats.readbackMs);
    return {};
}

Result<void> CullideDetector::prunePairs(const Scene& scene, std::span<const ObjectPair> candidates, CullideLevel level,
                                         std::vector<ObjectPair>& kept, DetectorStats& stats,
                                         std::span<const float> fatten, bool objectLevel,
                                         const std::function<void()>& whileGpuRuns) {
    const auto t0 = Clock::now();
    kept.clear();
    stats = {};
    Impl& im = *impl_;
    Impl::Pcs res;
    // `whileGpuRuns` runs exactly once: inside the chain after its passes are queued, or here.
    im.afterIssue = whileGpuRuns;
    auto pipelined = im.pipeline(scene, candidates, level, objectLevel, false, fatten, false, res, stats);
    if (im.afterIssue) {
        const auto ta = Clock::now();
        std::exchange(im.afterIssue, {})();
        stats.count("overlap_ms", msSince(ta));
    }
    if (!pipelined) return pipelined;
    if (level == CullideLevel::Triangle) {
        // Both sides kept triangles: keep the pair when some of their boxes overlap (the
        // narrowphase's sweep, without the exact test).
        DetectionOutput scratch;
        std::vector<std::uint32_t> confirmed;
        for (std::uint32_t c : res.pairs) {
            const ObjectPair p = candidates[c];
            auto boxes = [&](ObjectId o) {
                std::vector<Aabb> out;
                const Pose& pose = scene.pose(o);
                const auto local = scene.localVertices(o);
                const auto tris = scene.objectMesh(o).triangles();
                const float g = fatten.empty() ? 0.0f : fatten[o];
                for (std::uint32_t t : res.survivors[o]) {
                    Aabb b;
                    for (int k = 0; k < 3; ++k) b.grow(pose.apply(local[tris[t][k]]));
                    const float m = std::max({std::fabs(b.min.x), std::fabs(b.min.y), std::fabs(b.min.z),
                                              std::fabs(b.max.x), std::fabs(b.max.y), std::fabs(b.max.z)});
                    out.push_back(b.expanded(g + m * 2e-6f));
                }
                return out;
            };
            const std::vector<Aabb> ba = boxes(p.a), bb = boxes(p.b);
            bool any = false;
            for (std::size_t x = 0; x < ba.size() && !any; ++x)
                for (std::size_t y = 0; y < bb.size() && !any; ++y) any = ba[x].overlaps(bb[y]);
            if (any) confirmed.push_back(c);
        }
        res.pairs = std::move(confirmed);
    }
    for (std::uint32_t c : res.pairs) kept.push_back(candidates[c]);
    stats.count("pairs_kept", double(kept.size()));
    stats.gpuMs = stats.counter("gpu_ms");
    stats.readbackMs = stats.counter("readback_ms");
    // (The caller's work, overlap_ms, is not this call's time.)
    stats.totalMs = msSince(t0) - stats.counter("overlap_ms");
    stats.cpuMs = std::max(0.0, stats.totalMs - stats.gpuMs - stats.readbackMs);
    return {};
}

void CullideDetector::Impl::ensureStaticBoxes(const Scene& scene) {
    // Each mesh's cluster boxes, local (clusterSize 0: the root box), once per set of meshes.
    if (!staticBoxesStale && staticBase.size() == scene.meshCount()) return;
    std::vector<glm::vec4> local;
    // And each static cluster's distinct corners (pose.glsl's deformed boxes): heads, then corners.
    std::vector<std::uint32_t> corners;
    std::vector<std::uint32_t> heads;
    staticBase.assign(scene.meshCount(), 0u);
    for (MeshId m = 0; m < scene.meshCount(); ++m) {
        const cullide::MeshHierarchy& h = hierarchies->get(m);
        staticBase[m] = static_cast<std::uint32_t>(local.size() / 2);
        auto put = [&](std::uint32_t node) {
            const geometry::Bvh::Box& b = h.bvh.nodes()[node].box;
            local.push_back(glm::vec4(b.min[0], b.min[1], b.min[2], 0.0f));
            local.push_back(glm::vec4(b.max[0], b.max[1], b.max[2], 0.0f));
        };
        if (settings.clusterSize > 0) {
            for (const cullide::Cluster& c : h.clusters) put(c.node);
            for (std::size_t k = 0; k < h.clusters.size(); ++k) {
                heads.push_back(static_cast<std::uint32_t>(corners.size()));
                corners.insert(corners.end(), h.clusterVertices.begin() + h.clusterVertexBegin[k],
                               h.clusterVertices.begin() + h.clusterVertexBegin[k + 1]);
            }
        } else {
            // (No pose pass without clusters, gpuItems: an empty corner list keeps the numbering.)
            put(0u);
            heads.push_back(static_cast<std::uint32_t>(corners.size()));
        }
    }
    passes.setStaticBoxes(local);
    // (Absolute: the heads first, with the end of the last cluster after them.)
    heads.push_back(static_cast<std::uint32_t>(corners.size()));
    for (std::uint32_t& x : heads) x += static_cast<std::uint32_t>(heads.size());
    heads.insert(heads.end(), corners.begin(), corners.end());
    passes.setStaticClusterVertices(heads);
    staticBoxesStale = false;
}

Result<void> CullideDetector::beginObjectPcs(const Scene& scene, std::span<const float> fatten,
                                             std::span<const ObjectPair> pairs) {
    const auto t0 = Clock::now();
    Impl& im = *impl_;
    const CullideSettings& st = im.settings;
    Impl::ObjectPass& pass = im.objectPass;
    pass.open = false;
    pass.objects.clear();
    pass.items.clear();
    pass.itemBoxes.clear();
    pass.worldBoxes.clear();
    pass.warnings.clear();
    pass.result = {};
    pass.stats = {};
    const std::size_t n = scene.objectCount();
    pass.objectCount = n;
    if (!fatten.empty() && fatten.size() != n)
        return fail("CullideDetector::beginObjectPcs(): fatten has " + std::to_string(fatten.size()) +
                    " entries, the scene " + std::to_string(n) + " objects");
    auto grow = [&](ObjectId o) { return fatten.empty() ? 0.0f : std::max(0.0f, fatten[o]); };
    const bool changed = im.syncHierarchies(scene);
    im.passes.sync(scene, im.hierarchies->slots(), changed);
    auto clusterNodes = [&](const cullide::MeshHierarchy& h) {
        std::vector<std::uint32_t> nodes;
        if (st.clusterSize > 0)
            for (const cullide::Cluster& c : h.clusters) nodes.push_back(c.node);
        else
            nodes.push_back(0u);
        return nodes;
    };
    im.ensureStaticBoxes(scene);

    // The PCS: every active object with a finite pose and triangles (of a pair, when given).
    std::vector<char> inPairs(pairs.empty() ? 0 : n, 0);
    for (const ObjectPair& p : pairs) {
        if (p.a >= n || p.b >= n)
            return fail("CullideDetector::beginObjectPcs(): pair (" + std::to_string(p.a) + ", " + std::to_string(p.b) +
                        ") names an object the scene does not have");
        if (p.a != p.b) inPairs[p.a] = inPairs[p.b] = 1;
    }
    std::vector<Aabb> box;
    float scale = 0.0f;
    for (ObjectId o = 0; o < n; ++o) {
        if (!pairs.empty() && !inPairs[o]) continue;
        if (!scene.isActive(o) || scene.objectMesh(o).triangleCount() == 0) continue;
        if (!scene.pose(o).isFinite()) {
            pass.warnings.push_back("object " + std::to_string(o) +
                                    " has a non-finite pose (NaN or Inf): skipped this step");
            continue;
        }
        const cullide::MeshHierarchy& h = im.hierarchies->get(scene.meshOf(o));
        Aabb b;
        if (scene.isDeformed(o)) {
            // Posed once, kept for the cluster boxes below.
            const Pose& pose = scene.pose(o);
            const auto local = scene.localVertices(o);
            if (im.worldVertices.size() < n) im.worldVertices.resize(n);
            std::vector<Vec3>& world = im.worldVertices[o];
            world.resize(local.size());
            for (std::size_t i = 0; i < local.size(); ++i) {
                world[i] = pose.apply(local[i]);
                b.grow(world[i]);
            }
        } else {
            b = cullide::worldBox(h.bvh.nodes()[0].box, scene.pose(o));
        }
        const Aabb local = h.mesh->localBounds();
        for (int k = 0; k < 3; ++k)
            scale = std::max({scale, std::fabs(b.min[k]), std::fabs(b.max[k]), std::fabs(local.min[k]),
                              std::fabs(local.max[k])});
        pass.objects.push_back(o);
        box.push_back(b);
    }
    if (pass.objects.empty()) {
        pass.open = true;
        pass.stats.count("cpu_object_setup_ms", msSince(t0));
        return {};
    }
    const float eps = 4e-6f * scale + 1e-30f;
    std::vector<std::int64_t> groupOf(n, -1);
    for (std::size_t g = 0; g < pass.objects.size(); ++g) {
        const ObjectId o = pass.objects[g];
        groupOf[o] = std::int64_t(g);
        const float m = std::max({std::fabs(box[g].min.x), std::fabs(box[g].min.y), std::fabs(box[g].min.z),
                                  std::fabs(box[g].max.x), std::fabs(box[g].max.y), std::fabs(box[g].max.z)});
        box[g] = box[g].expanded(m * 2e-6f + grow(o) + eps);
    }
    // With pairs: each object queried only inside its box met with its partners' (contactClip),
    // and the views only span those regions.
    std::vector<Aabb> contact;
    if (!pairs.empty()) {
        contact.resize(pass.objects.size());
        for (const ObjectPair& p : pairs) {
            const std::int64_t ga = groupOf[p.a], gb = groupOf[p.b];
            if (p.a == p.b || ga < 0 || gb < 0) continue;
            const Aabb meet = box[std::size_t(ga)].intersection(box[std::size_t(gb)]);
            if (meet.isEmpty()) continue;
            contact[std::size_t(ga)].grow(meet);
            contact[std::size_t(gb)].grow(meet);
        }
    }
    std::vector<glm::vec4> clip;
    Aabb lateral, all;
    float smallest = INFINITY;
    std::uint32_t work = 0;
    for (std::size_t g = 0; g < pass.objects.size(); ++g) {
        const ObjectId o = pass.objects[g];
        const cullide::MeshHierarchy& h = im.hierarchies->get(scene.meshOf(o));
        const std::vector<std::uint32_t> nodes = clusterNodes(h);
        all.grow(box[g]);
        lateral.grow(contact.empty() ? box[g] : contact[g]);
        smallest = std::min(smallest, longest(box[g]));
        if (!contact.empty() && st.contactClip) {
            // An object whose partners' boxes miss it gets an empty clip box: never hidden.
            clip.push_back(glm::vec4(contact[g].min, 0.0f));
            clip.push_back(glm::vec4(contact[g].max, 0.0f));
        }
        gl::CullideItem item{o, 0u, static_cast<std::uint32_t>(nodes.size()), work, static_cast<std::uint32_t>(g),
                             grow(o), 0u, work};
        pass.itemBoxes.push_back(box[g]);
        if (!scene.isDeformed(o)) {
            item.firstSlot = im.staticBase[scene.meshOf(o)];
            item.flags = CULLIDE_ITEM_LOCAL_BOXES;
        } else {
            // Deformed: the clusters' world boxes from the vertices, grown here.
            item.firstSlot = static_cast<std::uint32_t>(pass.worldBoxes.size() / 2);
            const std::vector<Vec3>& world = im.worldVertices[o];  // posed above
            const auto tris = h.mesh->triangles();
            const auto slots = h.bvh.slotTriangles();
            std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges;  // (first slot, count) per cluster
            if (st.clusterSize > 0)
                for (const cullide::Cluster& c : h.clusters) ranges.push_back({c.firstSlot, c.slotCount});
            else
                ranges.push_back({0u, static_cast<std::uint32_t>(slots.size())});
            for (const auto& [first, count] : ranges) {
                Aabb b;
                for (std::uint32_t s = first; s < first + count; ++s)
                    for (int c = 0; c < 3; ++c) b.grow(world[tris[slots[s]][c]]);
                const float mb = std::max({std::fabs(b.min.x), std::fabs(b.min.y), std::fabs(b.min.z),
                                           std::fabs(b.max.x), std::fabs(b.max.y), std::fabs(b.max.z)});
                b = b.expanded(mb * 2e-6f + grow(o) + eps);
                pass.worldBoxes.push_back(glm::vec4(b.min, 0.0f));
                pass.worldBoxes.push_back(glm::vec4(b.max, 0.0f));
            }
        }
        pass.items.push_back(item);
        work += item.slotCount;
    }
    cullide::Level level;
    level.name = "object";
    level.items = pass.items;
    level.workCount = work;
    level.groupCount = static_cast<std::uint32_t>(pass.objects.size());
    if (lateral.isEmpty()) lateral = all;  // no pair boxes met: any view will do
    level.views = makeViews(lateral, all, smallest / float(st.objectResolution), st.axes, kMaxDepthBytes / 16,
                            pass.stats);
    level.clip = clip;
    level.epsilon = eps;
    level.byBoxes = true;
    level.boxes = pass.worldBoxes;
    level.viewsAtOnce = st.viewsAtOnce;
    level.itemBoxes = pass.itemBoxes;
    pass.stats.count("pcs_boxes", double(work));
    im.passes.issue(level, pass.result);
    pass.open = true;
    pass.stats.count("cpu_object_setup_ms", msSince(t0));
    return {};
}

Result<void> CullideDetector::endObjectPcs(std::vector<std::uint8_t>& inPcs, DetectorStats& stats) {
    Impl& im = *impl_;
    Impl::ObjectPass& pass = im.objectPass;
    stats = std::move(pass.stats);
    pass.stats = {};
    inPcs.assign(pass.objectCount, 0);
    if (!pass.open) return fail("CullideDetector::endObjectPcs(): no beginObjectPcs() before it");
    pass.open = false;
    for (std::string& w : pass.warnings) stats.warnings.push_back(std::move(w));
    std::vector<std::uint32_t> alive;
    if (auto r = im.passes.collect(pass.items.size(), "object", alive, pass.result); !r) return r;
    for (std::size_t i = 0; i < pass.objects.size() && i < alive.size(); ++i) inPcs[pass.objects[i]] = alive[i] != 0;
    stats.count("pcs_objects_in", double(pass.objects.size()));
    stats.count("pcs_objects", double(pass.result.alive));
    stats.count("gpu_object_ms", pass.result.gpuMs);
    stats.count("gpu_ms", pass.result.gpuMs);
    stats.count("readback_ms", pass.result.readbackMs);
    stats.count("fragments", pass.result.fragments);
    stats.count("run_object_ms", pass.result.runMs);
    stats.gpuMs = pass.result.gpuMs;
    stats.readbackMs = pass.result.readbackMs;
    return {};
}

Result<std::unique_ptr<CullideDetector>> createCullideDetector(const DetectorSettings& common,
                                                               const CullideSettings& settings) {
    auto range = [](const char* name, int v, int lo, int hi) -> Result<void> {
        if (v < lo || v > hi)
            return fail(std::string("createCullideDetector(): ") + name + " " + std::to_string(v) + " is outside [" +
                        std::to_string(lo) + ", " + std::to_string(hi) + "]");
        return {};
    };
    if (settings.method != "compute" && settings.method != "queries")
        return fail("createCullideDetector(): method \"" + settings.method +
                    "\" is unknown; use \"compute\" or \"queries\" (the paper's occlusion queries)");
    if (settings.axes != 1 && settings.axes != 3)
        return fail("createCullideDetector(): axes must be 1 (z) or 3 (x, y, z), got " + std::to_string(settings.axes));
    if (settings.clusterAxes != 1 && settings.clusterAxes != 3)
        return fail("createCullideDetector(): clusterAxes must be 1 (z) or 3 (x, y, z), got " +
                    std::to_string(settings.clusterAxes));
    for (auto r : {range("resolution", settings.resolution, 8, 4096),
                   range("clusterResolution", settings.clusterResolution, 4, 4096),
                   range("objectResolution", settings.objectResolution, 4, 4096),
                   range("selfLayers", settings.selfLayers, 4, 64), range("queryPool", settings.queryPool, 1, 65536),
                   range("filterList", settings.filterList, 16, 1 << 28)})
        if (!r) return fail(r.error().message);
    if (settings.clusterSize != 0)
        if (auto r = range("clusterSize", settings.clusterSize, 4, 4096); !r)
            return fail(r.error().message + " (0 turns the cluster level off)");
    if (glad_glCreateBuffers == nullptr)
        return fail("createCullideDetector(): no current GL context; create one with isc::gl::Context first");
    auto impl = std::make_unique<CullideDetector::Impl>();
    impl->common = common;
    impl->settings = settings;
    impl->hierarchies = std::make_unique<cullide::Hierarchies>(settings.clusterSize);
    if (auto c = impl->passes.compile(settings.method == "queries", settings.selfLayers, settings.queryPool); !c)
        return fail(c.error().message);
    impl->passes.setFilterList(std::uint32_t(settings.filterList));
    auto envOn = [](const char* name, bool fallback) {
        const char* v = std::getenv(name);
        if (v == nullptr || *v == '\0') return fallback;
        return *v != '0';
    };
    impl->fusedExact = envOn("ISC_CULLIDE_FUSED", true);
    impl->speculate = envOn("ISC_CULLIDE_SPECULATE", true);
    impl->teamWait = envOn("ISC_CULLIDE_TEAM_WAIT", true);
    impl->speculateAll = envOn("ISC_CULLIDE_SPECULATE_ALL", false);
    impl->fusedSetup = envOn("ISC_CULLIDE_FUSED_SETUP", true);
    // ISC_CULLIDE_WIDE_FILTER=0: the filter's 64-invocation workgroups, one cluster loaded after
    // the other (before cullide-10's run 4).
    impl->passes.setWideFilter(envOn("ISC_CULLIDE_WIDE_FILTER", true));
    // ISC_CULLIDE_SLOT_CORNERS=0 (cullide-12): the filter loads a slot's triangle, then its corner
    // indices (before cullide-12).
    impl->passes.setSlotCorners(envOn("ISC_CULLIDE_SLOT_CORNERS", true));
    impl->filterChecksum = envOn("ISC_CULLIDE_FILTER_CHECKSUM", false);
    // ISC_CULLIDE_OBB_PAIRS=0 (2026-11-28, sixth session): the pair pass on the clusters' world
    // boxes alone, without the oriented-box test (Passes::setObbPairs).
    impl->passes.setObbPairs(envOn("ISC_CULLIDE_OBB_PAIRS", true));
    // ISC_CULLIDE_PAIR_OBJECT_CUT=0 (2026-11-29, ninth session): every cluster of side A walks side
    // B's clusters in the pair pass, whether or not its box reaches B's object box
    // (Passes::setPairObjectCut).
    impl->passes.setPairObjectCut(envOn("ISC_CULLIDE_PAIR_OBJECT_CUT", true));
    // ISC_CULLIDE_PAIR_ROWS=0 (2026-11-29, ninth session): the pair pass over one flat range of
    // threads, each finding its pair by a search (Passes::setPairRows).
    impl->passes.setPairRows(envOn("ISC_CULLIDE_PAIR_ROWS", true));
    // ISC_CULLIDE_POSE_CORNERS=0 (2026-11-29, tenth session): the pose pass boxes a deformed cluster
    // over its triangles' corners instead of its distinct corners (Passes::setPoseCorners).
    impl->passes.setPoseCorners(envOn("ISC_CULLIDE_POSE_CORNERS", true));
    impl->passes.setPoseChecksum(envOn("ISC_CULLIDE_POSE_CHECKSUM", false));
    // ISC_CULLIDE_POSE_PARTNERS=0 (2026-11-29, tenth session): the pose pass's partner test on one
    // invocation per item (Passes::setPosePartners).
    impl->passes.setPosePartners(envOn("ISC_CULLIDE_POSE_PARTNERS", true));
    // ISC_CULLIDE_PAIR_LOADS=0 (2026-11-29, tenth session): the pair pass loads one cluster of B's
    // box at a time (Passes::setPairLoads).
    impl->passes.setPairLoads(envOn("ISC_CULLIDE_PAIR_LOADS", true));
    // ISC_CULLIDE_OBB_POSED=0 (2026-11-29, eleventh session): the pair pass poses the rigid clusters'
    // local boxes into oriented boxes itself instead of loading the pose pass's (Passes::setObbPosed).
    impl->passes.setObbPosed(envOn("ISC_CULLIDE_OBB_POSED", true));
    // ISC_CULLIDE_PAIR_SEEDS=0 (2026-11-29, eleventh session): the pose pass's partner cut seeds the
    // cluster level's PCS also when the early pair pass follows (Passes::setPairSeeds).
    impl->passes.setPairSeeds(envOn("ISC_CULLIDE_PAIR_SEEDS", true));
    impl->filterSubCount = envOn("ISC_CULLIDE_FILTER_SUBCOUNT", false);
    if (impl->filterSubCount)
        if (auto r = impl->passes.setFilterSubCount(true); !r) return fail(r.error().message);
    impl->earlyStart = envOn("ISC_CULLIDE_EARLY_START", true);
    impl->testsInPlace = envOn("ISC_CULLIDE_TESTS_IN_PLACE", true);
    impl->passes.setTimeline(envOn("ISC_CULLIDE_TIMELINE", false));
    // Diagnostic ISC_CULLIDE_PASS_TIMES=1 (2026-11-29): gpu_pass_{clear,splat0,splat1,splat2,update}_ms.
    impl->passes.setPassTimes(envOn("ISC_CULLIDE_PASS_TIMES", false));
    // ISC_CULLIDE_GROUP_UPDATE=0 (2026-11-29, seventh session): the cluster level's update pass
    // instead of its rule applied by the query pass's workgroups (Passes::setGroupUpdate).
    impl->passes.setGroupUpdate(envOn("ISC_CULLIDE_GROUP_UPDATE", true));
    // ISC_CULLIDE_PUSH_SECOND=0 (2026-11-29, eighth session): the splat's second in its own pass
    // (mode 1) instead of pushed by the key's pass (Passes::setPushSecond).
    impl->passes.setPushSecond(envOn("ISC_CULLIDE_PUSH_SECOND", true));
    // ISC_CULLIDE_EARLY_PAIRS=0 (2026-11-29, seventh session): the pair pass after the cluster
    // level instead of right after the pose pass with the filter checking the clusters' survival
    // (Passes::setEarlyPairs).
    impl->passes.setEarlyPairs(envOn("ISC_CULLIDE_EARLY_PAIRS", true));
    // Test hook ISC_CULLIDE_CLUSTER_PAIR_LIST=n: the filter's cluster pair list starts with room
    // for n pairs (an overflow on a pile's first call; Passes::setClusterPairList).
    if (const char* v = std::getenv("ISC_CULLIDE_CLUSTER_PAIR_LIST"); v != nullptr && *v != '\0')
        impl->passes.setClusterPairList(std::uint32_t(std::clamp(std::atoi(v), 1, 1 << 30)));
    if (const char* v = std::getenv("ISC_CULLIDE_PAIR_SPLIT"); v != nullptr && *v != '\0')
        impl->pairSplit = std::uint32_t(std::clamp(std::atoi(v), 1, 64));
    const auto* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    impl->softwareGl = renderer != nullptr && isSoftwareRenderer(renderer);
    return std::unique_ptr<CullideDetector>(new CullideDetector(std::move(impl)));
}

namespace detectors {

DetectorInfo cullideInfo() {
    DetectorInfo d;
    d.name = "cullide";
    d.summary = "CULLIDE: GPU visibility pruning of the potentially colliding set (objects, clusters, triangles), "
                "exact CPU narrowphase; self-intersections (Govindaraju et al.; Boldt & Meyer)";
    d.usesGl = true;
    d.needsClosedMeshes = false;
    d.reportsTrianglePairs = true;
    d.settings = describeSettings<CullideSettings>();
    d.create = [](const DetectorSettings& common) -> Result<std::unique_ptr<Detector>> {
        CullideSettings settings;
        if (auto r = applyOptions(settings, common.options, "cullide"); !r) return fail(r.error().message);
        auto c = createCullideDetector(common, settings);
        if (!c) return fail(c.error().message);
        return std::unique_ptr<Detector>(std::move(*c));
    };
    return d;
}

}  // namespace detectors

}  // namespace isc
