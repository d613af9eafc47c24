#pragma once
// The GPU side of the cullide detector: one level of reducePCS (objects, clusters,
// triangles, or the self level) over its views, by compute passes (method "compute") or by
// the paper's occlusion queries (method "queries"). Needs a current GL 4.5 context.
#include "isc/core/Math.h"
#include "isc/core/Result.h"
#include "isc/detect/Detector.h"
#include "isc/gl/Bindings.h"
#include "isc/gl/Buffer.h"
#include "isc/gl/Fence.h"
#include "isc/gl/Framebuffer.h"
#include "isc/gl/GpuScene.h"
#include "isc/gl/Program.h"
#include "isc/gl/Query.h"
#include "isc/gl/ReadbackBuffer.h"
#include "isc/gl/Renderbuffer.h"
#include "isc/gl/VertexArray.h"

#include "CullideHierarchy.h"  // Slots
#include "cullide/bindings.h"  // shaders/: CullideItem

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace isc::cullide {

/// One orthographic view along world axis `axis` (the other two, (axis + 1) % 3 and
/// (axis + 2) % 3, run across it): pixel (i, j) covers world [origin.x + i * pixel, +pixel)
/// along the first, likewise along the second; depth 0..1 spans [origin.z, origin.z + depth].
struct View {
    int axis = 2;
    Vec3 origin{0.0f};
    float pixel = 1.0f;
    float depth = 1.0f;
    std::uint32_t width = 1, height = 1;
};

/// One level of the PCS: its items (work ranges already filled), the views it is reduced
/// along (in order: an item pruned in one view is gone for the next), and how it groups.
struct Level {
    const char* name = "level";               // for labels and messages
    std::span<const gl::CullideItem> items;
    std::uint32_t workCount = 0;              // sum of the items' slotCount
    std::uint32_t groupCount = 1;             // groups are 0 .. groupCount - 1
    std::vector<View> views;
    float epsilon = 0.0f;                     // world units: GPU round-off bound
    bool self = false;                        // the self level (fragment lists, adjacency excluded)
    bool queries = false;                     // method "queries": the paper's occlusion queries
    /// The members of the PCS: the items (false) or every triangle slot of them (true: alive
    /// and marks per work index; the triangle level and the self level).
    bool perSlot = false;
    std::size_t members() const { return perSlot ? workCount : items.size(); }
    /// The items' slots index boxes instead of triangles (compute path only): per-call world
    /// boxes `boxes` ((min, max), grown by the fattening and the round-off bound), or, for an
    /// item flagged CULLIDE_ITEM_LOCAL_BOXES, the static local boxes (setStaticBoxes).
    bool byBoxes = false;
    std::span<const glm::vec4> boxes;
    /// Compute path: all views in one dispatch per pass, each view testing the whole PCS of
    /// the level (true), or view after view, an item pruned in one gone for the next (false:
    /// prunes a little more, one dispatch chain per view).
    bool viewsAtOnce = false;
    /// Compute path, optional: per item, a (min, max) world box (2 entries) outside which its
    /// fragments are not queried (where it can touch another object; see splat.glsl).
    std::span<const glm::vec4> clip;
    /// The clip boxes are per group (2 entries per group), not per item.
    bool clipPerGroup = false;
    /// Per item, a world box holding every pixel footprint of its slots (triangles or boxes,
    /// grown by the fattening): sizes how many threads share each slot's pixels (bindings.h,
    /// CULLIDE_PIXELS_PER_THREAD). Empty: one thread per slot (then a slot over too many pixels
    /// makes the level keep every member).
    std::span<const Aabb> itemBoxes;
    /// When >= 0: the longest side of any of itemBoxes, and the items are laid out unsplit
    /// (workStart = memberStart = the prefix sum of slotCount, no split bits): when no item can
    /// need a split in these views they are used as they are (no per-call copy).
    float itemExtent = -1.0f;
    /// With itemExtent: the most slots of any item (0: unknown). At most 64 (and triangles, not
    /// boxes): the splat passes run one workgroup per item, an invocation per slot, no search.
    std::uint32_t maxSlotCount = 0;
    /// Non-zero: names this exact item list (the caller's cache generation); a buffer that holds
    /// the same version is not compared again.
    std::uint64_t itemsVersion = 0;
};

/// What one level did on the GPU.
struct LevelResult {
    double gpuMs = 0.0;       // GL timestamps around the level's passes
    double readbackMs = 0.0;  // reading the survivors
    double fragments = 0.0;   // conservative fragments stored (compute and self paths)
    double overflow = 0.0;    // self level: pixels over the layer cap
    double cut = 0.0;         // threads over CULLIDE_MAX_PIXELS_PER_THREAD (then every member kept)
    double threads = 0.0;     // splat work indices (slots times their split)
    double queries = 0.0;     // method "queries": occlusion queries issued
    std::uint32_t alive = 0;  // members left
    double runMs = 0.0;       // wall time of run(): issuing the passes, waiting, reading back
};

/// The chain (CullideSettings::chain): the cluster level, the per-pair cluster overlap
/// (chain.glsl) and, when `triangle` is given, the triangle level over the same clusters with
/// only the wanted ones' triangles in its PCS, queued on the GPU with one fence and one read-back.
struct Chain {
    const Level* cluster = nullptr;   // one member per item (a cluster)
    const Level* triangle = nullptr;  // the same clusters, one member per slot; null: stop after the pairs
    std::span<const gl::CullideChainPair> pairs;
    std::uint32_t pairThreads = 0;            // sum of the pairs' countA
    std::span<const glm::vec4> clusterBoxes;  // per cluster item, its world box (min, max); empty with poseItems
    /// CullideSettings::gpuItems: the cluster items' world boxes are computed on the GPU (pose.glsl)
    /// from the static local boxes (setStaticBoxes) or the deformed vertices, and an item
    /// starts in the cluster level's PCS only when its box reaches a partner object's box.
    bool poseItems = false;
    std::span<const std::uint32_t> itemBoxes;    // per cluster item: its static cluster index, with CULLIDE_ITEM_BOX_DEFORMED_BIT when deformed
    std::span<const glm::vec4> objectBoxes;      // per group: its object's world box (min, max), grown
    std::span<const std::uint32_t> partners;     // CSR (bindings.h, CULLIDE_BINDING_PARTNERS)
    /// After the triangle level, the float filter (filter.glsl): the triangle pairs of the
    /// survivors that may touch, listed for the exact test. Needs clusters of at most
    /// CULLIDE_FILTER_MAX_CLUSTER triangles.
    bool filter = false;
    float tolerance = 0.0f;  // world units: the filter's float tolerance
    /// The triangle level's visibility passes; false: its members are the wanted clusters'
    /// triangles as seeded (no pruning by visibility).
    bool triangleVisibility = true;
    /// The pair pass's threads per (pair, cluster item of side A), each walking a share of side
    /// B's clusters (cullide-10: 8; 1, hook ISC_CULLIDE_PAIR_SPLIT=1: one thread walks them all).
    std::uint32_t pairSplit = 1;
    /// The wait for the chain's fence (cullide-8): with waitTeam > 1 it runs on this thread
    /// inside an OpenMP team of that many threads, which are then awake (spinning) when the
    /// exact test's loop starts instead of waking after the GPU is done; meanwhile the other
    /// threads run `whileWaiting` (if set) until the flag it is given is set (the fence
    /// signalled). 0 or 1: this thread waits alone.
    int waitTeam = 0;
    std::function<void(const std::atomic<bool>&)> whileWaiting;
    /// The pose pass was queued and flushed already by Passes::startChain (cullide-13) with
    /// these cluster items, boxes and partners: runChain queues the rest.
    bool started = false;
    /// Run once on this thread after the chain is queued and flushed, before the wait
    /// (CullideDetector::prunePairs's `whileGpuRuns`: a caller's CPU work overlapping the GPU's).
    /// Its time counts in neither issueMs nor the read-back.
    std::function<void()> afterIssue;
};

/// What the chain left.
struct ChainResult {
    LevelResult cluster, triangle;
    std::vector<std::uint32_t> keep;  // per pair: 1 when surviving clusters of both sides overlap
    std::vector<std::uint32_t> bits;  // triangle members still in the PCS, 32 per word (all ones after a cut)
    std::uint32_t seeded = 0;         // triangle members that entered the triangle level
    std::uint32_t clusterSeeded = 0;  // poseItems: cluster items that entered the cluster level
    /// The filter ran and its lists fitted: `tests` holds every triangle pair that may touch,
    /// 3 words each (chain pair, triangle of the candidate's a, of its b). False: test the
    /// survivors (`bits`) instead.
    /// (In the read-back mapping, not copied: valid until the next call into these Passes.)
    bool listed = false;
    std::span<const std::uint32_t> tests;
    double clusterPairs = 0.0;  // cluster pairs the filter walked
    double boxPairs = 0.0;      // triangle pairs whose boxes met (before the separating-axis test)
    /// With setFilterSubCount(true): cluster pairs in which no triangle boxes met, in which no two
    /// 16-slot sub-boxes met, and whose clusters' tight world boxes (over their posed triangles)
    /// do not meet: what a tighter cut would leave out.
    double emptyPairs = 0.0, noSubBoxPairs = 0.0, noTightPairs = 0.0;
    double filterGpuMs = 0.0;   // GPU time of the filter (after the triangle level)
    double poseGpuMs = 0.0;     // poseItems: GPU time of the pose pass (part of cluster.gpuMs)
    double pairGpuMs = 0.0;     // GPU time of the pair pass (part of cluster.gpuMs)
    double issueMs = 0.0;       // wall time issuing everything (before the wait)
    double afterIssueMs = 0.0;  // wall time of Chain::afterIssue (not in runMs)
    double runMs = 0.0;               // wall time: issuing, waiting, reading back
    double waitMs = 0.0;              // wall time of the wait for the fence (part of runMs)
    /// After the wait (part of runMs): until the GPU's timestamps are read (copyMs), and until
    /// runChain returns (readMs: the timestamps, the counters and lists in the mapping).
    double copyMs = 0.0, readMs = 0.0;
    /// Chain::started: from startChain's flush to runChain's (the CPU's work while the GPU had
    /// only the pose pass).
    double betweenFlushesMs = 0.0;
    /// When the GPU was first given work of this chain (the first flush: startChain's or runChain's
    /// own), and when the wait for its fence returned (host clock).
    std::chrono::steady_clock::time_point flushedAt{}, waitedAt{};
    /// Passes::setTimeline: the GPU's side of the call on the GL clock, ms. startLagMs: from the
    /// first flush (glGetInteger64v(GL_TIMESTAMP) right after it) to the GPU's first command;
    /// spanMs: from that command to the last one before the fence (the copies included);
    /// wakeLagMs: from that last command to the GL clock read right after the wait returned.
    bool timeline = false;
    double startLagMs = 0.0, spanMs = 0.0, wakeLagMs = 0.0;
    /// Passes::setPassTimes: GPU ms of the cluster level's steps: from the pose pass's end to the
    /// depth words' clear's end (the GPU's wait for runChain's flush included), splat modes 0, 1,
    /// 2, the update (0 when done in the query pass, setGroupUpdate).
    bool passTimes = false;
    double passMs[5] = {};
    bool groupUpdate = false;   // setGroupUpdate applied to this call's cluster level
    bool earlyPairs = false;    // the pair pass ran before the cluster level (setEarlyPairs)
    bool pairRows = false;      // the pair pass ran as a row of workgroups per pair (setPairRows)
    double poseChecksum = 0.0;  // setPoseChecksum: the pose pass's item boxes summed (their float bits mixed)
};

/// What Passes::startChain needs: the pose pass's inputs (Chain's, before its levels are made).
struct ChainStart {
    std::span<const gl::CullideItem> items;     // the cluster level's items, as laid out (unsplit)
    std::uint64_t itemsVersion = 0;             // their Level::itemsVersion (0: none)
    float epsilon = 0.0f;                       // the cluster level's Level::epsilon
    std::span<const std::uint32_t> itemBoxes;   // as Chain::itemBoxes
    std::span<const glm::vec4> objectBoxes;     // as Chain::objectBoxes
    std::span<const std::uint32_t> partners;    // as Chain::partners
    /// The caller queues the early pair pass next (queueEarlyPairs): with setPairSeeds the pair
    /// pass seeds the cluster level's PCS instead of the pose pass's partner cut.
    bool earlyPairsNext = false;
};

class Passes {
public:
    Passes() = default;
    ~Passes();  // needs the context current, as the buffers and the fence do
    Passes(const Passes&) = delete;
    Passes& operator=(const Passes&) = delete;
    /// Compiles the programs; `queries` also the occlusion-query path.
    [[nodiscard]] Result<void> compile(bool queries, int selfLayers, int queryPool);
    /// The GPU filter's list holds `pairs` triangle pairs at first (grown after an overflow).
    void setFilterList(std::uint32_t pairs) { outputCapacity_ = pairs; }
    /// The cluster pair list's first capacity (test hook ISC_CULLIDE_CLUSTER_PAIR_LIST; default
    /// 32768, grown after an overflow).
    void setClusterPairList(std::uint32_t pairs) { clusterPairCapacity_ = std::max<std::uint32_t>(1u, pairs); }
    /// The filter with 128 invocations per cluster pair (both clusters loaded at once; cullide-10,
    /// the default) or 64 (one cluster after the other, as before).
    void setWideFilter(bool on) { wideFilter_ = on; }
    /// The pair pass also tests two rigid clusters whose world boxes meet as oriented boxes (their
    /// local boxes posed, chain.glsl) and keeps them only when those meet too (2026-11-28, sixth
    /// session; off, hook ISC_CULLIDE_OBB_PAIRS=0: the world boxes alone). Needs Chain::poseItems.
    void setObbPairs(bool on) { obbPairs_ = on; }
    /// The pair pass skips a cluster of side A whose box does not reach side B's object box (the
    /// default since 2026-11-29, ninth session; off, hook ISC_CULLIDE_PAIR_OBJECT_CUT=0: every
    /// cluster of A walks B's clusters). Needs Chain::poseItems.
    void setPairObjectCut(bool on) { objectCut_ = on; }
    /// The pair pass as a row of workgroups per pair (no thread searches for its pair; the
    /// default since 2026-11-29, ninth session, where the rows waste at most half their threads;
    /// off, hook ISC_CULLIDE_PAIR_ROWS=0: one flat range, each thread's pair found by a search).
    void setPairRows(bool on) { pairRows_ = on; }
    /// The pose pass boxes a deformed cluster over its distinct corners (setStaticClusterVertices;
    /// the default since 2026-11-29, tenth session: each vertex loaded and posed once, the same
    /// box) or, off (hook ISC_CULLIDE_POSE_CORNERS=0), over its triangles' corners.
    void setPoseCorners(bool on) { poseCorners_ = on; }
    /// With one workgroup per item (a deformed item in the call), the pose pass tests an item's
    /// partners over the workgroup's invocations (the default since 2026-11-29, tenth session;
    /// off, hook ISC_CULLIDE_POSE_PARTNERS=0: the first invocation tests them one after the other).
    void setPosePartners(bool on) { posePartners_ = on; }
    /// The pair pass loads four clusters' boxes of side B before testing them (chain.glsl
    /// uPairLoads; hook ISC_CULLIDE_PAIR_LOADS=0: one at a time).
    void setPairLoads(bool on) { pairLoads_ = on; }
    /// The pose pass writes each rigid item's oriented box (centre and fattening, three half
    /// edges) after the object boxes in the chain's boxes, and the pair pass's oriented-box test
    /// loads it there (the default since 2026-11-29, eleventh session: four independent loads
    /// instead of the item's box index, its local box, the item and its object's model matrix, and
    /// the posing per box pair; the same floats); off (hook ISC_CULLIDE_OBB_POSED=0), the pair pass
    /// poses the local boxes itself.
    void setObbPosed(bool on) { obbPosed_ = on; }
    /// With the early pair pass (ChainStart::earlyPairsNext), the clusters it pairs are the cluster
    /// level's PCS: the pose pass writes the boxes and clears the flags, the pair pass sets them for
    /// both clusters of every pair it lists (the default since 2026-11-29, eleventh session; off,
    /// hook ISC_CULLIDE_PAIR_SEEDS=0: the pose pass seeds every cluster whose box reaches one of its
    /// object's partners' boxes, a superset). Conservative as the paper's visibility test is: a
    /// cluster that touches a cluster of another object is paired with it (the pair pass's tests
    /// are conservative), so both are in the PCS, each rendered as the other's occluder; a cluster
    /// left out pairs with none, and as an occluder it could only keep others in.
    void setPairSeeds(bool on) { pairSeeds_ = on; }
    [[nodiscard]] bool pairSeeds() const { return pairSeeds_; }
    /// The caller's last pairs (DetectionOutput::clearInto): freed by runChain once the chain's GPU
    /// work is issued, while the GPU runs.
    void setSpent(std::vector<PairResult>* spent) { spent_ = spent; }
    /// Test hook ISC_CULLIDE_POSE_CHECKSUM=1: after the chain's wait, the pose pass's item boxes are
    /// read back and summed bit for bit (ChainResult::poseChecksum; a read-back of its own).
    void setPoseChecksum(bool on) { poseChecksum_ = on; }
    /// Per static cluster (setStaticBoxes' numbering), its distinct corners: the heads (absolute,
    /// one more than the clusters), then the corners (bindings.h, CULLIDE_BINDING_CLUSTER_VERTICES);
    /// kept until replaced, uploaded with the pose pass's inputs when new.
    void setStaticClusterVertices(std::span<const std::uint32_t> csr) {
        staticClusterVertices_.assign(csr.begin(), csr.end());
        staticClusterVerticesUploaded_ = false;
    }
    /// Diagnostic (hook ISC_CULLIDE_FILTER_SUBCOUNT=1): the wide filter counts the cluster pairs
    /// whose triangle boxes, whose 16-slot sub-boxes and whose tight world boxes meet nowhere
    /// (ChainResult::emptyPairs, noSubBoxPairs, noTightPairs); the same listed pairs. Compiles
    /// its program variant; an Error when it fails.
    [[nodiscard]] Result<void> setFilterSubCount(bool on);
    /// The filter reads each slot's corner indices and triangle in one load (Slots::corners;
    /// cullide-12, the default; hook ISC_CULLIDE_SLOT_CORNERS=0: the slot's triangle, then its
    /// indices, as sceneWorldTriangle does). The same floats, so the same pairs.
    void setSlotCorners(bool on) { slotCornersOn_ = on; }
    /// Mirrors `scene` (GpuScene) and uploads `slots` (every mesh's leaf order, at the bases
    /// the items use) when `slotsChanged`.
    void sync(const Scene& scene, const Slots& slots, bool slotsChanged);
    /// sync() in steps (cullide-10: the deformed vertices converted on the threads that make the
    /// deformed objects' boxes, copied in pieces as they are done; GpuScene::beginSync's
    /// contract): beginSync() returns the objects whose vertices are to be converted, a
    /// gl::ConversionTeam on gpuScene() converts them (copies recorded in pieces on the GL
    /// thread), endSync() records the rest, the object records and the slots, as sync() would.
    std::span<const ObjectId> beginSync(const Scene& scene) { return scene_.beginSync(scene); }
    /// The scene's GPU copy, for gl::ConversionTeam between beginSync() and endSync().
    gl::GpuScene& gpuScene() { return scene_; }
    void endSync(const Slots& slots, bool slotsChanged);
    /// Reduces `level` along its views; `alive` gets one flag per member (1: still in the PCS).
    [[nodiscard]] Result<void> run(const Level& level, std::vector<std::uint32_t>& alive, LevelResult& result);
    /// run() in two halves: issue() uploads the items and queues every pass on the GPU without
    /// waiting (and flushes); collect() then reads the survivors (the one synchronisation).
    /// Between them the CPU is free; no other level may be issued in between.
    void issue(const Level& level, LevelResult& result);
    [[nodiscard]] Result<void> collect(std::size_t members, const char* name, std::vector<std::uint32_t>& alive,
                                       LevelResult& result);
    /// Local (min, max) boxes that items flagged CULLIDE_ITEM_LOCAL_BOXES index from 0 (posed
    /// on the GPU by their object's model matrix); kept until replaced.
    void setStaticBoxes(std::span<const glm::vec4> boxes);
    /// Runs `chain` (see Chain): one synchronisation.
    [[nodiscard]] Result<void> runChain(const Chain& chain, ChainResult& out);
    /// cullide-13 (hook ISC_CULLIDE_EARLY_START): queues and flushes the chain's pose pass
    /// before the CPU makes the levels' views, clip boxes and the pair pass's list, so that the
    /// GPU starts (and gets past its submission latency) while the CPU does that. The runChain()
    /// that follows must have Chain::started set and the same items, boxes and partners; no
    /// other pass may be queued in between. Needs the context current.
    void startChain(const ChainStart& start);
    /// GL clock reads around the chain (ChainResult::timeline; test hook ISC_CULLIDE_TIMELINE=1:
    /// each read is a round trip to the driver, so off by default).
    void setTimeline(bool on) { timeline_ = on; }
    /// Diagnostic (hook ISC_CULLIDE_PASS_TIMES=1): a GPU timestamp after each of the chain's
    /// cluster-level passes (ChainResult::passMs).
    void setPassTimes(bool on) { passTimes_ = on; }
    /// The chain's cluster level without its update pass (default since 2026-11-29; hook
    /// ISC_CULLIDE_GROUP_UPDATE=0: the update pass): with one view and one workgroup per item,
    /// the query pass's workgroup ORs its item's marks in shared memory and applies the update's
    /// rule itself (splat.glsl uGroupUpdate); one dependent dispatch less, no marks written.
    void setGroupUpdate(bool on) { groupUpdate_ = on; }
    /// The splat's second (the nearest fragment of another group than the key's) made in the
    /// key's pass (default since 2026-11-29, eighth session; hook ISC_CULLIDE_PUSH_SECOND=0: its
    /// own pass, mode 1): what the key's atomic displaces, or a fragment the key rejects, goes
    /// to the second's word when of another group than the key it met (splat.glsl uPushSecond:
    /// why that is the same second). One dependent dispatch less per level.
    void setPushSecond(bool on) { pushSecond_ = on; }
    /// The pair pass queued right after the pose pass (queueEarlyPairs; the default since
    /// 2026-11-29, hook ISC_CULLIDE_EARLY_PAIRS=0 for the pair pass after the cluster level):
    /// it lists the cluster pairs of every seeded cluster while the GPU would otherwise wait for
    /// the CPU's views, clip boxes and queueing, and the filter skips a pair unless both clusters
    /// survived the cluster level (chain.glsl uEarly, filter.glsl uCheckClusters). Only where
    /// the chain ends in the filter without the triangle level's passes; elsewhere runChain
    /// queues the pair pass after the cluster level, as without it.
    void setEarlyPairs(bool on) { earlyPairs_ = on; }
    [[nodiscard]] bool earlyPairs() const { return earlyPairs_; }
    /// setEarlyPairs: after startChain (whose flush started the pose pass over its `nItems`
    /// cluster items), the pair pass over Chain's pairs, pairThreads and pairSplit queued and
    /// flushed; the runChain() that follows takes its list (when the chain ends in the filter
    /// without the triangle level's passes).
    void queueEarlyPairs(std::span<const gl::CullideChainPair> pairs, std::uint32_t pairThreads, std::uint32_t pairSplit,
                         std::size_t nItems, float epsilon);

private:
    /// Queues the passes of `level` with its items in `itemsBuffer` and its members' flags in
    /// `aliveBuffer` (every member starts in the PCS unless `seeded`: then a pass before set them).
    /// How a level's members start: all in the PCS, seeded from the wanted clusters (chain mode 1),
    /// or seeded by the pose pass (pose.glsl, its buffers bound).
    /// PosedEarly: the pose pass ran already (startChain): its seeds and counts are kept (nothing cleared).
    enum class Seed { All, Wanted, Posed, PosedEarly };
    void queueLevel(const Level& level, gl::Buffer& itemsBuffer, gl::Buffer& aliveBuffer, Seed seed, bool uploadClip);
    /// Uploads items unless the buffer already holds exactly these (`last`: what it holds).
    void uploadItems(gl::Buffer& buffer, std::span<const gl::CullideItem> items, std::vector<gl::CullideItem>& last,
                     std::uint64_t version);
    /// The static local boxes at the start of boxes_, uploaded when stale.
    void uploadStaticBoxes(std::size_t worldBytes);
    /// `clear`: the marks and the counters zeroed (false: startChain's pose pass counted already).
    void bindCommon(const Level& level, std::span<const gl::CullideItem> items, gl::Buffer& itemsBuffer,
                    gl::Buffer& aliveBuffer, bool seeded, bool clear = true);
    /// bindCommon's part after the items' upload (startChain's too): room for `members` flags and
    /// marks, the flags set to 1 when `fillAlive`, the marks and counters zeroed when `clear`, and
    /// the level's buffers bound.
    void bindMembers(gl::Buffer& itemsBuffer, gl::Buffer& aliveBuffer, std::size_t members, bool fillAlive, bool clear);
    /// chain.glsl over `threads` invocations (uCount), spread over x and y; with `rowGroups` > 0,
    /// `rowGroups` x `rowCount` workgroups instead (the pair pass's rows, setPairRows).
    void dispatchChain(unsigned mode, std::uint32_t threads, std::uint64_t rowGroups = 0, std::uint64_t rowCount = 0);
    /// The pair pass (chain.glsl mode 0) over `pairs` with its lists cleared and bound: the
    /// cluster pairs for the filter when `filter`, `early` as setEarlyPairs queues it; `posed`:
    /// the boxes are the pose pass's (its item and object boxes bound: setObbPairs, setPairObjectCut).
    void queuePairPass(std::span<const gl::CullideChainPair> pairs, std::uint32_t pairThreads,
                       std::uint32_t pairSplit, std::size_t nItems, bool filter, bool posed, float epsilon, bool early);
    /// The pose pass's inputs uploaded and bound (items' boxes by version), chainBoxes_ bound.
    void putPoseInputs(std::uint64_t itemsVersion, std::span<const std::uint32_t> itemBoxes,
                       std::span<const glm::vec4> objectBoxes, std::span<const std::uint32_t> partners);
    /// The pose pass over `n` items (its buffers bound), then the posed_ timestamp.
    void dispatchPose(std::uint32_t n, float epsilon);
    std::size_t chainBoxVec4s(std::size_t items, std::size_t objectBoxes, bool posed) const;
    /// The first flush of a chain: its time, and the GL clock then (timeline_).
    void markFirstFlush();
    /// sync()'s and endSync()'s last step: the slots when changed or not held.
    void uploadSlots(const Slots& slots, bool slotsChanged);
    /// The level's items with their split (threads per slot) and work ranges in threads;
    /// returns the thread count.
    std::uint32_t splitItems(const Level& level);
    void setView(gl::Program& program, const View& view, float epsilon) const;
    void runComputeView(const Level& level, const View& view, bool last);
    void runComputeViews(const Level& level);
    void runSelfView(const Level& level, const View& view, bool last);
    void runQueryView(const Level& level, const View& view, bool last, LevelResult& result);

    bool queries_ = false;
    int selfLayers_ = 16;
    int queryPool_ = 1024;
    // splat_'s modes 0 (key and pushed second) and 2 (query) in programs of their own (compile(),
    // splatPerMode_), and every splat program, for the uniforms they share.
    gl::Program splatKey_, splatQuery_;
    std::vector<gl::Program*> splatPrograms_;
    gl::Program splat_, splatBoxes_, splatMulti_, splatBoxesMulti_, update_, self_, queryDraw_, queryUpdate_, chain_,
        filter_, filterWide_, pose_;
    gl::GpuScene scene_{"cullide scene"};
    gl::Buffer items_{"cullide items"}, slots_{"cullide slot triangles"}, alive_{"cullide alive"},
        marks_{"cullide marks"}, depth_{"cullide depth words"}, counters_{"cullide counters"},
        selfCount_{"cullide self fragment counts"}, selfEntries_{"cullide self fragments"},
        queryResults_{"cullide query results"}, boxes_{"cullide boxes"},
        clip_{"cullide clip boxes"}, chainItems_{"cullide chain triangle items"},
        chainAlive_{"cullide chain triangle alive"}, chainPairs_{"cullide chain pairs"},
        chainBoxes_{"cullide chain cluster boxes"}, wanted_{"cullide chain wanted clusters"},
        keep_{"cullide chain kept pairs"}, bits_{"cullide chain survivor bits"},
        clusterPairs_{"cullide filter cluster pairs"}, chainCounters_{"cullide chain counters"},
        output_{"cullide filter triangle pairs"}, itemBoxes_{"cullide chain item boxes"},
        partners_{"cullide chain partners"}, clusterVertices_{"cullide static cluster corners"},
        slotCorners_{"cullide slot triangle corners"};
    std::vector<gl::CullideItem> itemsHeld_, chainItemsHeld_;  // what items_ / chainItems_ hold
    std::uint64_t itemsHeldVersion_ = 0, chainItemsHeldVersion_ = 0;  // and its Level::itemsVersion (0: none)
    std::uint32_t clusterPairCapacity_ = 1u << 15;  // entries; grown after an overflow
    std::uint32_t outputCapacity_ = 1u << 16;       // triangle pairs; grown after an overflow
    std::uint32_t lastOutput_ = 0;                  // triangle pairs of the last call (sizes the first copy)
    gl::VertexArray vao_;
    gl::Framebuffer framebuffer_;
    gl::Renderbuffer depthTarget_;
    std::vector<gl::Query> pool_;
    std::size_t poolNext_ = 0;
    gl::Query begin_, posed_, clustered_, mid_, end_, filterEnd_, done_;
    gl::Query passQ_[5];  // setPassTimes: after the clear, each splat mode, the update
    bool timeline_ = false;
    bool passTimes_ = false;
    bool groupUpdate_ = true;
    bool pushSecond_ = true;
    bool splatPerMode_ = true;  // test hook ISC_CULLIDE_SPLAT_PER_MODE=0: false (compile())
    bool earlyPairs_ = true;
    bool earlyPairsQueued_ = false;   // queueEarlyPairs queued the pair pass (setEarlyPairs)
    gl::Query earlyPaired_;           // after that pair pass
    bool passQueued_ = false;         // setPassTimes: the cluster level's timestamps were queued
    bool chainClusterLevel_ = false;  // runChain: the level being queued is the chain's cluster level
    bool groupUpdated_ = false;       // its update was done in the query pass (setGroupUpdate)
    std::chrono::steady_clock::time_point flushedAt_{};  // the chain's first flush
    GLint64 gpuAtFlush_ = 0;                             // the GL clock then (timeline_)
    std::vector<gl::CullideItem> splitItems_;  // the level's items with their split (when any needs one)
    std::span<const gl::CullideItem> levelItems_;  // what the level uploads: splitItems_ or its own items
    bool wideFilter_ = true;
    bool filterSubCount_ = false;
    bool obbPairs_ = true;
    bool objectCut_ = true;
    bool pairRows_ = true;
    bool pairRowsUsed_ = false;  // the last pair pass queued ran in rows
    bool poseCorners_ = true;
    bool posePartners_ = true;
    bool pairLoads_ = true;
    bool obbPosed_ = true;
    bool pairSeeds_ = true;
    std::vector<PairResult>* spent_ = nullptr;  // setSpent
    bool pairSeedsCall_ = false;  // startChain: this call's early pair pass seeds the PCS (setPairSeeds)
    std::uint32_t obbBase_ = 0;  // putPoseInputs: where the items' oriented boxes start in chainBoxes_ (vec4s)
    bool poseChecksum_ = false;
    std::vector<std::uint32_t> staticClusterVertices_;
    bool staticClusterVerticesUploaded_ = false;
    gl::Program filterWideCount_;  // setFilterSubCount(true): the wide filter with the counts
    bool slotCornersOn_ = true;
    std::uint64_t itemBoxesVersion_ = 0;           // Level::itemsVersion of what itemBoxes_ holds (0: none)
    bool poseGroupPerItem_ = false;                // the pose pass: one workgroup per item (some item deformed)
    bool itemPerGroup_ = false;                    // the splat passes: one workgroup per item (Level::maxSlotCount)
    std::uint32_t threads_ = 0;                // work indices of the splat passes
    std::size_t queriesIssued_ = 0;            // occlusion queries of the last queued level
    std::uint32_t maxGroupsX_ = 65535;         // GL_MAX_COMPUTE_WORK_GROUP_COUNT along x
    std::vector<glm::vec4> staticBoxes_;
    bool staticBoxesUploaded_ = false;
    // Read-back: the survivors and counters are copied on the GPU into this persistently mapped
    // client buffer and read after one fence. Reading the working buffers directly made the
    // NVIDIA driver move them to host memory ("copied/moved from VIDEO memory to HOST memory"),
    // where every later pass then reached them across the bus.
    gl::MappedCopy readback_{"cullide read-back"};
    gl::Fence fence_;
    std::size_t readbackMembers_ = 0;
    bool issued_ = false;
    std::chrono::steady_clock::time_point issuedAt_{};
};

}  // namespace isc::cullide
