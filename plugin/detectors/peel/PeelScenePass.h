#pragma once
// Scene sampling (the peel detector's default): the whole call on the GPU up to one list of
// candidate triangle pairs, read back once, then the exact CPU test.
//
// Passes (each a compute shader unless said; shaders/peel/):
//  1. world.glsl           the world vertices of every object taking part ("parts");
//  2. cluster_refit.glsl   their cluster trees' world boxes (PeelClusters), bottom-up;
//  3. cluster_pairs.glsl   per candidate pair, the two trees walked against each other to the
//                          pairs of clusters within the margin (two pixels);
//  4. cull_triangles.glsl  per cluster pair, the triangles within the margin of a triangle of
//                          the other cluster: kept;
//  5. cull_compact.glsl    per part, the kept triangles as an index list (indirect draws);
//     draw_items.glsl      their counts into the draws, and the draws' separation items;
//  6. per batch of equal-size tiles: raster.*.glsl (one pass, only the kept triangles, into
//     the scene views' tiles), resolve.glsl (collision rays from the nearest fragments),
//     mip.glsl (ray merging), separate.glsl (primitive separation: records);
//  7. pair_grid.glsl, scan.glsl, pair_test.glsl: records binned by world cells per tile, pairs of
//     flagged candidate pairs whose world and screen boxes overlap, filtered by a float
//     separating-axis test (common/tritri.glsl); survivors written to a mapped buffer;
//  8. one fence; the CPU reads the counters and the list in place (PeelExact tests them).
// Without rays (the default) the chain is 2-3 then the triangle pairs (tri_pairs.glsl), and
// with the fused walk (settings.walk) three dispatches in all: cluster_refit.glsl from the
// local vertices, cluster_walk.glsl (every level of the walk in one dispatch), tri_pairs.glsl
// as a fixed grid; settings.overlap splits it in two halves with a fence each. There the walk
// (128 wide) writes records holding all the triangle pairs need (PEEL_WALK_RECORDS), and with
// the CPU's boxes the vertex upload comes first, its copy running while the CPU makes them.
// A buffer found too small after the fence is grown and the call redone (counted in
// capacity_retries; the buffers are kept, so later calls do not repeat it).
#include "PeelClusters.h"
#include "PeelCpuWalk.h"
#include "PeelExact.h"
#include "PeelGl.h"
#include "PeelSetup.h"

#include "isc/gl/Framebuffer.h"
#include "isc/gl/GpuScene.h"
#include "isc/gl/VertexArray.h"

#include <cstdint>
#include <vector>

namespace isc::peel {

class PeelScenePass {
public:
    /// Compiles the passes' programs. Needs a current GL 4.5 context.
    [[nodiscard]] Result<void> create(const PeelSettings& settings, const DetectorSettings& common,
                                      bool conservativeRaster);
    /// The caller's last pairs (DetectionOutput::clearInto): freed once this call's GPU part is
    /// issued, while the GPU works, instead of at the call's start.
    void setSpent(std::vector<PairResult>* spent) { spent_ = spent; }
    /// One detect() call's scene sampling: appends the colliding pairs to out.pairs and its
    /// counters and timings to out.stats (gpuMs, readbackMs: the wait for the GPU and the
    /// read; cpuMs).
    [[nodiscard]] Result<void> run(const Scene& scene, gl::GpuScene& gpu, std::span<const ObjectPair> candidates,
                                   const CallObjects& objects, DetectionOutput& out);
    /// The last batch's pixel counts and collision-ray bits (Detector::debugViews()).
    std::vector<DetectorDebugView> debugViews() const;

private:
    struct Batch {
        std::uint32_t firstTile = 0, tileCount = 0, firstDraw = 0, endDraw = 0, size = 0, width = 0, height = 0;
    };
    struct Capacities {
        std::size_t items = 1 << 15, clusterPairs = 1 << 15, records = 1 << 15, entries = 1 << 17,
                    output = 1 << 15;
    };
    /// One attempt; `retry` set when a buffer overflowed (grown for the next attempt).
    [[nodiscard]] Result<void> attempt(const Scene& scene, gl::GpuScene& gpu, std::span<const ObjectPair> candidates,
                                       DetectionOutput& out, bool& retry);
    /// Passes 5-7 (with collision rays): kept lists, raster, rays, separation, pairing, filter.
    [[nodiscard]] Result<void> imagePasses(std::span<const ObjectPair> candidates, std::uint32_t buckets);
    [[nodiscard]] Result<void> writeArgs(std::uint32_t slot, std::uint32_t mode, std::uint32_t counter,
                                         std::uint32_t scanBegin, std::uint32_t scanEnd, std::size_t capacity,
                                         std::uint32_t perGroup);
    void dispatchIndirect(const gl::Program& program, std::uint32_t slot) const;
    /// GPU timers: the pass about to be recorded (its stage for the stage clock; with
    /// gpuTimers "passes" a timestamp of its own).
    void markPass(int pass);
    /// GPU timers: a stage of the image passes starts (a timestamp unless gpuTimers is "off").
    void markStage(int stage);
    /// The fused chain (no rays): refit from local vertices, the one-dispatch walk, the
    /// triangle pairs as a fixed grid. The levels chain: world, refit, one dispatch per level.
    /// `half`: 0 the first (or only) half of the pairs (with the refit), 1 the second.
    [[nodiscard]] Result<void> fusedCull(std::uint32_t clusterCap, int half);
    // GpuScene::sync of the call (once; flushes what is recorded first), then binds the scene.
    void syncScene();
    [[nodiscard]] Result<void> levelsCull(std::uint32_t clusterCap);
    [[nodiscard]] Result<void> worldAndRefit(bool direct);
    /// The fused walk of pairs [first, first + count) and their triangle pairs (or cull).
    [[nodiscard]] Result<void> fusedWalkAndPairs(std::uint32_t clusterCap, std::uint32_t first, std::uint32_t count,
                                                 int half);

    PeelSettings settings_;
    DetectorSettings common_;
    bool conservativeRaster_ = false;
    bool cull_ = true;  // settings.cull, and three axes
    bool direct_ = false;  // no collision rays: cluster pairs straight to the float filter
    bool softwareGl_ = false;  // llvmpipe and the like: the GPU wait does not wake the exact test's threads
    bool speculateAll_ = false;
    bool uploadFirst_ = true;  // the vertex upload before the CPU's boxes (test hook ISC_PEEL_UPLOAD_FIRST=0: after the walk)
    // With the CPU's boxes and the upload first: the vertex conversion and the boxes in one
    // parallel region (test hook ISC_PEEL_FUSED_SYNC=0: the conversion's region, then the boxes').
    bool fusedSync_ = true;
    bool boxesCopied_ = false;  // the CPU's boxes copied right after they were made (this call)
    int copyPieces_ = 4;        // the deformed vertices' copy in pieces (test hook ISC_PEEL_COPY_PIECES)
    std::vector<std::uint8_t> convertedFlags_;  // per changed object: converted (the fused region)
    bool streamStores_ = true;  // non-temporal stores into the staging buffers (test hook ISC_PEEL_STREAM_STORES=0)
    bool refitSimd_ = true;  // the CPU's boxes 4-wide (test hook ISC_PEEL_REFIT_SIMD=0: PeelClusters::refitScalar)
    bool walkRecords_ = true;  // test hook ISC_PEEL_WALK_RECORDS=0: the fused walk without rays writes node pairs
    // The cluster walk on the CPU (round 2026-11-28, branch peel-walk-12): with the CPU's boxes in
    // the fused region, no rays and the records form, every pair of parts is walked on the CPU
    // right after the boxes (PeelClusters::walkPair, the shader's test and margin), its records
    // written into walkStaging_ and copied to clusterPairsBuffer_, the count written into the
    // counters; the GPU runs only the triangle pairs. Test hook ISC_PEEL_CPU_WALK=0: the GPU walk.
    bool cpuWalkOn_ = true;
    bool cpuWalkCall_ = false;             // this call's cluster pairs are the CPU's
    int cpuWalkMode_ = 2;                  // 2: each pair once both its parts are boxed; 1: all after a barrier
    // The CPU walk's records carry the two clusters' boxes (five uvec4 each; tri_pairs.glsl with
    // PEEL_RECORD_BOXES): no node boxes to the GPU. Test hook ISC_PEEL_RECORD_BOXES=0: two uvec4.
    bool recordBoxes_ = true;
    std::uint32_t recordUvec4_ = 5;        // uvec4 per cluster pair in clusterPairsBuffer_'s capacity
    bool walkBranchless_ = true;           // the CPU walk's form (test hook ISC_PEEL_WALK_FORM=branch: false)
    bool walkFlush_ = true;                // the records' copy flushed as soon as it is recorded (test hook)
    // On the CPU walk's calls (round 2026-11-28, branch peel-tripairs-14; test hook
    // ISC_PEEL_TRI_PAIRS=copy: false, the code before): no clears or uploads that only the GPU
    // walk and the image passes read, and the counters' zeros and the walk's counts in one copy.
    bool trimCpuWalkCalls_ = true;
    std::vector<PairResult>* spent_ = nullptr;  // setSpent
    bool clusterPairsHash_ = false;        // test hook ISC_PEEL_CLUSTER_PAIRS_HASH=1: the sorted list's hash in the stats
    PeelCpuWalk cpuWalk_;                  // its host boxes, staging buffers and per-call state
    // refit "cpu" (no rays; "auto" on mostly deformed calls): the cluster boxes made on the CPU into a persistently mapped
    // staging buffer and copied to boxesBuffer_ (cpuBoxes_: this call's are there).
    int refitMode_ = 0;     // 0 the GPU pass, 1 auto (the CPU for mostly deformed calls), 2 the CPU
    bool cpuBoxes_ = false;
    // The call's scene, mirror and stats for syncScene(); synced_: done this call.
    const Scene* syncScene_ = nullptr;
    gl::GpuScene* syncGpu_ = nullptr;
    DetectorStats* syncStats_ = nullptr;
    bool synced_ = false;
    gl::Buffer boxStaging_{"peel node boxes (staging)"};
    gl::PeelBox* boxStagingData_ = nullptr;  // test hook ISC_PEEL_SPECULATE_ALL: speculation does not stop at the fence
    bool fusedWalk_ = true;    // settings.walk; off for good once a fused walk was cut (redone with levels)
    bool fusedCall_ = true;    // this call: the fused walk (trees shallow enough)
    int timers_ = 1;           // 0 off, 1 stages, 2 passes
    int stage_ = -1;           // stage of the last marked pass
    std::size_t lastClusterPairs_ = 0;
    bool splitCall_ = false;        // this call: two halves (settings.overlap, no rays, fused walk)
    std::uint32_t splitPairs_ = 0;  // pairs of the first half
    std::uint32_t walkQueue_ = PEEL_WALK_QUEUE, walkBudget_ = PEEL_WALK_BUDGET;  // test hooks (environment)  // sizes the triangle pairs' grid of the fused chain
    GlLimits limits_;
    PeelClusters clusters_;
    Capacities cap_;
    StageClock clock_;
    PeelExact exact_;

    // Per-call layout (CPU).
    SceneLayout layout_;
    std::vector<float> edge_;  // per object: its mesh's mean edge
    std::vector<gl::PeelPart> parts_;
    std::vector<gl::PeelPair> pairs_;
    std::vector<std::uint32_t> activeCandidates_;
    std::vector<gl::PeelDraw> draws_;
    std::vector<gl::DrawElementsIndirectCommand> commands_;
    std::vector<Batch> batches_;
    std::uint32_t vertexTotal_ = 0, nodeTotal_ = 0, triangleTotal_ = 0, pairMask_ = 0;
    float cellSize_ = 1.0f;  // pairing grid, level 0 (world units)
    std::uint32_t gridLevels_ = PEEL_GRID_LEVELS;  // pairing grid levels of the call (uGridLevels)
    std::uint32_t levelSteps_ = 0;
    std::uint32_t treeHeight_ = 0;  // deepest cluster tree of the call
    std::size_t atlasPixels_ = 0;  // largest batch
    std::size_t clusterNodesUploaded_ = 0;

    gl::Program world_, refit_, pairsInit_, pairsStep_, pairsStack_, cullTriangles_, compact_, drawItems_, raster_,
        resolve_, mip_, separate_, gridCount_, gridFill_, scan_, pairTest_, args_, triPairs_, walk_, refitLocal_,
        triPairsLocal_, walkRec_, triPairsRecords_, triPairsBoxRecords_;
    gl::VertexArray vao_;
    gl::Framebuffer framebuffer_;
    gl::Buffer partsBuffer_{"peel parts"}, worldBuffer_{"peel world vertices"}, nodesBuffer_{"peel cluster nodes"},
        slotsBuffer_{"peel cluster slots"}, boxesBuffer_{"peel node boxes"}, visitsBuffer_{"peel node visits"},
        pairListBuffer_{"peel pair list"}, itemsBuffer_[2] = {gl::Buffer("peel node pairs A"), gl::Buffer("peel node pairs B")},
        clusterPairsBuffer_{"peel cluster pairs"}, argsBuffer_{"peel dispatch args"}, keptBitsBuffer_{"peel kept bits"},
        keptIndicesBuffer_{"peel kept indices"}, keptTrianglesBuffer_{"peel kept triangles"},
        keptCountsBuffer_{"peel kept counts"}, tilesBuffer_{"peel tiles"}, drawsBuffer_{"peel draws"},
        commandsBuffer_{"peel draw commands"}, drawIdsBuffer_{"peel draw ids"}, scanBuffer_{"peel draw items"},
        headsBuffer_{"peel pixel counts"}, pixelSlotsBuffer_{"peel pixel slots"}, maskBuffer_{"peel mask"},
        pyramidBuffer_{"peel pyramid"}, recordsBuffer_{"peel records"}, cellStartsBuffer_{"peel cell starts"},
        cellFillBuffer_{"peel cell fill"}, cellItemsBuffer_{"peel cell items"}, pairTableBuffer_{"peel pair table"},
        slotTrianglesBuffer_{"peel cluster slot triangles"}, hitsBuffer_{"peel pair hits"}, pairFlagsBuffer_{"peel pair flags"}, recordBoxesBuffer_{"peel record boxes"};
    ReadbackBuffer counters_{"peel counters"}, output_{"peel candidate triangle pairs"},
        countersB_{"peel counters (second half)"}, outputB_{"peel candidate triangle pairs (second half)"};
    std::size_t outputCopy_ = 1 << 14;  // candidate triangle pairs copied to the mapping before the fence
};

}  // namespace isc::peel
