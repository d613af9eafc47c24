#include "PeelScenePass.h"

#include "isc/core/Assert.h"
#include "isc/detect/AutoDetector.h"
#include "isc/gl/Fence.h"
#include "isc/scene/Scene.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>

#include <omp.h>

namespace isc::peel {

namespace {

// Margin of the 3-D cull, in pixels of the view: the ray test reads an object's state from
// its nearest fragment, which near an intersection must be a fragment of the whole surface.
constexpr float kMarginPixels = 2.0f;
// Atlas pixels per raster pass (the per-pixel slots take maxLayers x 8 bytes each).
constexpr std::size_t kMaxAtlasPixels = std::size_t(2048) * 2048;
constexpr std::uint32_t kMaxAtlasSide = 8192;
// GL_NV_conservative_raster's enable (GL_CONSERVATIVE_RASTERIZATION_NV).
constexpr GLenum kConservativeRasterizationNv = 0x9346;
// Indirect-argument slots (args buffer, 4 uints each: x, y, z, count).
constexpr std::uint32_t kSlotTriangles = 40, kSlotSeparate = 41, kSlotRecords = 42, kSlotCount = 44;
// Levels walked one dispatch each before the depth-first rest (its stack holds 96 node pairs:
// 3 per remaining level, so at most 31 levels may remain).
constexpr std::uint32_t kLevelSteps = 5, kStackLevels = 31;
// Stages of the GPU clock.
enum Stage { kStageWorld, kStageCull, kStageRaster, kStageRays, kStageGrid, kStageFilter, kStageCount };
constexpr const char* kStageNames[kStageCount] = {"gpu_world_ms", "gpu_cull_ms",  "gpu_raster_ms",
                                                  "gpu_rays_ms",  "gpu_grid_ms",  "gpu_filter_ms"};
// Dispatches of the cull and the triangle pairs, timed one by one with gpuTimers "passes"
// (counters gpu_pass_<name>_ms), and the stage each belongs to (-1: the stage it runs in).
enum Pass { kPassWorld, kPassRefit, kPassRoots, kPassArgs, kPassLevel, kPassStack, kPassWalk, kPassTriangles,
            kPassTriangleCull, kPassCount };
constexpr const char* kPassNames[kPassCount] = {
    "gpu_pass_world_ms", "gpu_pass_refit_ms", "gpu_pass_roots_ms",     "gpu_pass_args_ms",         "gpu_pass_level_ms",
    "gpu_pass_stack_ms", "gpu_pass_walk_ms",  "gpu_pass_triangles_ms", "gpu_pass_triangle_cull_ms"};
constexpr int kPassStage[kPassCount] = {kStageWorld, kStageWorld, kStageCull,   -1,       kStageCull,
                                        kStageCull,  kStageCull,  kStageFilter, kStageCull};
// Deepest cluster tree the fused walk takes (its per-invocation stack: 4 + 3 per level below).
constexpr std::uint32_t kFusedLevels = 30;

void barrier(GLbitfield bits = GL_SHADER_STORAGE_BARRIER_BIT) { glMemoryBarrier(bits); }

// Reserves `count` elements of `bytesEach` (at least one) and checks the storage-block limit.
// With headroom up to that limit: a pile whose counts go up and down a little does not
// re-create the buffer at each new high (the soak, docs/robustness.md).
Result<void> reserveChecked(gl::Buffer& buffer, std::size_t count, std::size_t bytesEach, const GlLimits& limits,
                            std::string_view what) {
    const std::size_t bytes = std::max<std::size_t>(count, 1) * bytesEach;
    if (auto r = limits.checkBlock(bytes, what); !r) return r;
    buffer.reserveWithHeadroom(bytes, limits.maxStorageBlock);
    return {};
}

Result<gl::Program> compute(const char* file, const std::string& defines, const char* label) {
    return gl::Program::create({{GL_COMPUTE_SHADER, file}}, defines, label);
}

}  // namespace

Result<void> PeelScenePass::create(const PeelSettings& settings, const DetectorSettings& common,
                                   bool conservativeRaster) {
    settings_ = settings;
    common_ = common;
    conservativeRaster_ = conservativeRaster;
    fusedWalk_ = settings.walk != "levels";
    timers_ = settings.gpuTimers == "off" ? 0 : settings.gpuTimers == "passes" ? 2 : 1;
    // The cull needs three views: with one, a surface edge-on to it (the ground's top in a view
    // along z) leaves no fragment near its contacts once its other faces are culled, and the
    // view cannot see them (docs/detectors/peel.md, "The ray test on culled surfaces").
    cull_ = settings.cull && effectiveAxes(settings) == 3;
    direct_ = !effectiveRays(settings, common.selfCollision);
    refitMode_ = !direct_ ? 0 : settings.refit == "cpu" ? 2 : settings.refit == "gpu" ? 0 : 1;
    const auto* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    softwareGl_ = renderer != nullptr && isSoftwareRenderer(renderer);
    limits_ = GlLimits::query();
    // A smaller storage-block limit than the driver's, to test what a small GPU is told.
    if (const char* cap = std::getenv("ISC_PEEL_LIMIT_STORAGE_BLOCK"); cap != nullptr && *cap != '\0')
        limits_.maxStorageBlock = std::min<std::size_t>(limits_.maxStorageBlock, std::strtoull(cap, nullptr, 10));
    // Test hooks: a smaller frontier (the walk's stack path) and step budget (its cut, redone
    // with the levels walk) than the shader's.
    auto hook = [](const char* name, std::uint32_t most) {
        const char* v = std::getenv(name);
        if (v == nullptr || *v == '\0') return most;
        return static_cast<std::uint32_t>(std::clamp<unsigned long long>(std::strtoull(v, nullptr, 10), 1, most));
    };
    walkQueue_ = hook("ISC_PEEL_WALK_QUEUE", PEEL_WALK_QUEUE);
    walkBudget_ = hook("ISC_PEEL_WALK_BUDGET", PEEL_WALK_BUDGET);
    // Test hook: speculation tests all of the last call's pairs, whatever the fence says.
    if (const char* v = std::getenv("ISC_PEEL_SPECULATE_ALL"); v != nullptr && *v != '\0' && *v != '0')
        speculateAll_ = true;
    // Test hook: ISC_PEEL_WALK_RECORDS=0, the fused walk without rays writes (pair, node, node)
    // and the triangle pairs look the rest up (the chain before 2026-11-27 night), to compare.
    if (const char* v = std::getenv("ISC_PEEL_WALK_RECORDS"); v != nullptr && *v == '0') walkRecords_ = false;
    // Test hook: ISC_PEEL_UPLOAD_FIRST=0, with the CPU's boxes the vertices are uploaded after
    // the walk is dispatched (the order before 2026-11-27 night), to compare.
    if (const char* v = std::getenv("ISC_PEEL_UPLOAD_FIRST"); v != nullptr && *v == '0') uploadFirst_ = false;
    // Test hook: ISC_PEEL_FUSED_SYNC=0, with the CPU's boxes the vertex conversion runs in its
    // own parallel region before the boxes' (as before 2026-11-27 late night), to compare.
    if (const char* v = std::getenv("ISC_PEEL_FUSED_SYNC"); v != nullptr && *v == '0') fusedSync_ = false;
    // Test hook: ISC_PEEL_EXACT_LOOKUP=0, the exact test groups and sorts the whole list even
    // with speculated results, and the next call speculates the intersecting pairs only (the
    // exact stage before 2026-11-27 late night), to compare.
    if (const char* v = std::getenv("ISC_PEEL_EXACT_LOOKUP"); v != nullptr && *v == '0') exact_.setLookup(false);
    // Test hook: ISC_PEEL_EXACT_HASH=0, the lookup searches each listed pair in its group
    // (binary search) instead of the hash table made during the wait, to compare.
    if (const char* v = std::getenv("ISC_PEEL_EXACT_HASH"); v != nullptr && *v == '0') exact_.setHash(false);
    // Test hook: ISC_PEEL_EXACT_MERGE=0, the exact test looks each listed pair up (the hash
    // table, as on 2026-11-27 late night) instead of grouping the list on every thread and
    // merging each candidate's pairs with the last call's, to compare.
    if (const char* v = std::getenv("ISC_PEEL_EXACT_MERGE"); v != nullptr && *v == '0') exact_.setMerge(false);
    // Test hook: ISC_PEEL_EXACT_ROOM=0, the room of the next call's pairs made anew (zeroed) in
    // the exact test's serial step every call instead of kept from the last, to compare.
    if (const char* v = std::getenv("ISC_PEEL_EXACT_ROOM"); v != nullptr && *v == '0') exact_.setKeepRoom(false);
    // Test hook: ISC_PEEL_EXACT_OWNED=0, the wait's speculation one shared sweep and the exact
    // test's candidates taken by any thread (before branch peel-exact-13) instead of each
    // candidate handled by the thread that speculated its last call's pairs, to compare.
    if (const char* v = std::getenv("ISC_PEEL_EXACT_OWNED"); v != nullptr && *v == '0') exact_.setOwned(false);
    // Test hook: ISC_PEEL_COPY_PIECES=n (1 to 64), the deformed vertices copied in n pieces as
    // they are converted (default 4; 1: one copy after the last, as before 2026-11-28).
    if (const char* v = std::getenv("ISC_PEEL_COPY_PIECES"); v != nullptr && *v != '\0')
        copyPieces_ = std::clamp(std::atoi(v), 1, 64);
    // Test hook: ISC_PEEL_REFIT_SIMD=0, the CPU's cluster boxes one component at a time
    // (PeelClusters::refitScalar, before 2026-11-28 morning) instead of 4-wide (the same boxes).
    if (const char* v = std::getenv("ISC_PEEL_REFIT_SIMD"); v != nullptr && *v == '0') refitSimd_ = false;
    // Test hook: ISC_PEEL_STREAM_STORES=0, the fused region's vertex conversion and CPU boxes
    // write the staging buffers with ordinary stores (before 2026-11-28 morning) instead of
    // non-temporal ones (GpuScene::convertStreaming, PeelClusters::refit's `stream`).
    if (const char* v = std::getenv("ISC_PEEL_STREAM_STORES"); v != nullptr && *v == '0') streamStores_ = false;
    // Test hook: ISC_PEEL_CPU_WALK=0, the cluster walk on the GPU (cluster_walk.glsl) also where
    // the CPU makes the boxes (before 2026-11-28, branch peel-walk-12), to compare.
    // ISC_PEEL_CPU_WALK=1: every pair walked after a barrier behind the last box (the first form,
    // run 1 of peel-walk-12); 2 (default): each pair as soon as both its parts are boxed.
    if (const char* v = std::getenv("ISC_PEEL_CPU_WALK"); v != nullptr && *v == '0') cpuWalkOn_ = false;
    if (const char* v = std::getenv("ISC_PEEL_CPU_WALK"); v != nullptr && *v == '1') cpuWalkMode_ = 1;
    // (A prefetch of a pair's boxes once its roots meet was slower on the H200, run 2 of
    // peel-walk-12, and was taken out again.)
    // Test hook: ISC_PEEL_RECORD_BOXES=0, the CPU walk's records without the two clusters' boxes
    // (the boxes written to the staging buffer and copied for the triangle pairs, run 2's form).
    if (const char* v = std::getenv("ISC_PEEL_RECORD_BOXES"); v != nullptr && *v == '0') recordBoxes_ = false;
    // Test hook: ISC_PEEL_WALK_FLUSH=0, the CPU walk's records copy is not flushed at once (it
    // starts with the call's last flush, as in runs 1-3 of peel-walk-12).
    if (const char* v = std::getenv("ISC_PEEL_WALK_FLUSH"); v != nullptr && *v == '0') walkFlush_ = false;
    recordUvec4_ = cpuWalkOn_ && recordBoxes_ ? 5u : 2u;
    // Test hook: ISC_PEEL_WALK_FORM, the CPU walk's form (branch peel-region-14b; the same
    // records either way): "padded" (the default: PeelClusters::walkPairBranchless, each flag on
    // its own 64 bytes and a claim read before its exchange: PeelCpuWalk::setForm) or "branch"
    // (walkPair, a branch on each box test, the parts' and pairs' flags one byte each: the code
    // before). Measured on an H200 (docs/detectors/peel.md, "Round 2026-11-28 (branch
    // peel-region-14b)"): the walk's thread time 0.79-0.82 ms against branch's 0.91-0.94, the
    // call within the noise (median calls 0.002-0.012 ms faster than branch in 4 of 4 processes).
    if (const char* v = std::getenv("ISC_PEEL_WALK_FORM"); v != nullptr && std::string(v) == "branch")
        walkBranchless_ = false;
    cpuWalk_.setForm(walkBranchless_);
    // Test hook: ISC_PEEL_CLUSTER_PAIRS_HASH=1, the cluster pairs (records form) read back after
    // the call, sorted and hashed into the stats (cluster_pairs_hash_lo/_hi): the CPU walk's
    // list against the GPU walk's.
    if (const char* v = std::getenv("ISC_PEEL_CLUSTER_PAIRS_HASH"); v != nullptr && *v == '1') clusterPairsHash_ = true;
    // Test hook: ISC_PEEL_CLUSTER_CAPACITY=n, the cluster pairs' first capacity (the CPU walk's
    // fallback to the GPU walk when its list does not fit, and the growth after it).
    if (const char* v = std::getenv("ISC_PEEL_CLUSTER_CAPACITY"); v != nullptr && *v != '\0')
        cap_.clusterPairs = std::max<std::size_t>(1, std::strtoull(v, nullptr, 10));
    // The fused walk without rays runs 128 invocations per pair of parts (the largest pairs'
    // rounds are its critical path; 64 and 256 were slower on the H200, "Round 2026-11-27
    // night"). Test hook ISC_PEEL_WALK_WIDTH=64 or 256, to compare.
    std::string walkWidth = "128";
    if (const char* v = std::getenv("ISC_PEEL_WALK_WIDTH"); v != nullptr && (std::string(v) == "64" || std::string(v) == "256"))
        walkWidth = v;
    // The triangle pairs on the CPU walk's records ("Round 2026-11-28 (branch peel-tripairs-14)"):
    // test hook ISC_PEEL_TRI_PAIRS, read here. "trim" (the default, when the variable is unset):
    // on the CPU walk's calls the clears and uploads that only the GPU walk and the image passes
    // read are left out, and the counters' clear and the walk's counts are one copy (the GPU wait
    // ~0.04 ms shorter on an H200). "copy" (any other value): the code before the round. The
    // slower forms it measured (the records read in the mapped staging buffer, the float test's
    // axes spread over the invocations) and its timing diagnostics are in the history (0cc56f0).
    if (const char* v = std::getenv("ISC_PEEL_TRI_PAIRS"); v != nullptr && std::string(v) != "trim")
        trimCpuWalkCalls_ = false;
    const std::string layers = "#define MAX_LAYERS " + std::to_string(settings.maxLayers) + "\n";
    // The triangle pairs on the walk's records box and test their kept pairs 256 at a time
    // (tri_pairs.glsl PEEL_SURVIVOR_CHUNK; since 2026-11-29, eighth session): 3 KB less shared
    // memory per workgroup than room for all 32 x 32, so that 32 workgroups fit an SM instead of
    // ~23; the pass 0.139 ms against 0.173 on the deforming pile at an H200's idle clock
    // (peel.md, "The lead's rounds of 2026-11-29, eighth session"). Test hook
    // ISC_PEEL_SURVIVOR_CHUNK=n: n at a time (64..512), or 1024: all at once, as before.
    unsigned long chunk = 256;
    if (const char* v = std::getenv("ISC_PEEL_SURVIVOR_CHUNK"); v != nullptr && *v != '\0') {
        const unsigned long n = std::strtoul(v, nullptr, 10);
        if ((n >= 64 && n <= 512) || n == 1024) chunk = n;
    }
    const std::string survivorChunk = "#define PEEL_SURVIVOR_CHUNK " + std::to_string(chunk) + "u\n";
    struct Entry {
        gl::Program* program;
        const char* file;
        std::string defines;
        const char* label;
    };
    const Entry entries[] = {
        {&world_, "peel/world.glsl", "", "peel world vertices"},
        {&refit_, "peel/cluster_refit.glsl", "", "peel cluster refit"},
        {&pairsInit_, "peel/cluster_pairs.glsl", "#define PEEL_PAIRS_INIT 1\n", "peel cluster pairs (roots)"},
        {&pairsStep_, "peel/cluster_pairs.glsl", "", "peel cluster pairs (one level)"},
        {&pairsStack_, "peel/cluster_pairs.glsl", "#define PEEL_PAIRS_STACK 1\n", "peel cluster pairs (depth first)"},
        {&cullTriangles_, "peel/cull_triangles.glsl", "", "peel triangle cull"},
        {&compact_, "peel/cull_compact.glsl", "", "peel kept lists"},
        {&drawItems_, "peel/draw_items.glsl", "", "peel draw items"},
        {&resolve_, "peel/resolve.glsl", layers + "#define PEEL_SCENE 1\n", "peel resolve (scene)"},
        {&mip_, "peel/mip.glsl", "", "peel mip"},
        {&separate_, "peel/separate.glsl", "#define COMPACT_ATOMIC 1\n#define PEEL_WORLD 1\n", "peel separate (scene)"},
        {&gridCount_, "peel/pair_grid.glsl", "#define PEEL_GRID_COUNT 1\n", "peel pairing grid (count)"},
        {&gridFill_, "peel/pair_grid.glsl", "#define PEEL_GRID_FILL 1\n", "peel pairing grid (fill)"},
        {&scan_, "peel/scan.glsl", "#define PEEL_SCAN_MAIN 1\n", "peel scan"},
        {&pairTest_, "peel/pair_test.glsl", "", "peel pair test"},
        {&args_, "peel/args.glsl", "", "peel dispatch args"},
        {&triPairs_, "peel/tri_pairs.glsl", "", "peel triangle pairs (no rays)"},
        {&walk_, "peel/cluster_walk.glsl", "", "peel cluster walk (fused)"},
        {&refitLocal_, "peel/cluster_refit.glsl", "#define PEEL_LOCAL_VERTICES 1\n", "peel cluster refit (local)"},
        {&triPairsLocal_, "peel/tri_pairs.glsl", "#define PEEL_LOCAL_VERTICES 1\n", "peel triangle pairs (local)"},
        {&walkRec_, "peel/cluster_walk.glsl", "#define PEEL_WALK_RECORDS 1\n#define PEEL_WALK_WIDTH " + walkWidth + "u\n",
         "peel cluster walk (records)"},
        {&triPairsRecords_, "peel/tri_pairs.glsl",
         "#define PEEL_LOCAL_VERTICES 1\n#define PEEL_WALK_RECORDS 1\n" + survivorChunk, "peel triangle pairs (records)"},
        {&triPairsBoxRecords_, "peel/tri_pairs.glsl",
         "#define PEEL_LOCAL_VERTICES 1\n#define PEEL_WALK_RECORDS 1\n#define PEEL_RECORD_BOXES 1\n" + survivorChunk,
         "peel triangle pairs (records with boxes)"},
    };
    for (const Entry& e : entries) {
        auto p = compute(e.file, e.defines, e.label);
        if (!p) return fail(p.error().message);
        *e.program = std::move(*p);
    }
    auto r = gl::Program::create({{GL_VERTEX_SHADER, "peel/raster.vert.glsl"},
                                  {GL_FRAGMENT_SHADER, "peel/raster.frag.glsl"}},
                                 layers + "#define PEEL_SCENE 1\n#define PEEL_WORLD 1\n", "peel raster (scene)");
    if (!r) return fail(r.error().message);
    raster_ = std::move(*r);
    vao_ = gl::VertexArray("peel vao (scene)");
    framebuffer_ = gl::Framebuffer("peel atlas (no attachments)");
    for (ReadbackBuffer* b : {&counters_, &countersB_})
        if (auto reserved = b->reserve(PEEL_COUNTER_COUNT * sizeof(std::uint32_t)); !reserved) return reserved;
    argsBuffer_.reserve(kSlotCount * 4 * sizeof(std::uint32_t));
    return {};
}

Result<void> PeelScenePass::writeArgs(std::uint32_t slot, std::uint32_t mode, std::uint32_t counter,
                                      std::uint32_t scanBegin, std::uint32_t scanEnd, std::size_t capacity,
                                      std::uint32_t perGroup) {
    markPass(kPassArgs);
    args_.setUniform("uSlot", slot);
    args_.setUniform("uMode", mode);
    args_.setUniform("uCounter", counter);
    args_.setUniform("uScanBegin", scanBegin);
    args_.setUniform("uScanEnd", scanEnd);
    args_.setUniform("uCapacity", static_cast<std::uint32_t>(std::min<std::size_t>(capacity, 0xFFFFFFFFu)));
    args_.setUniform("uPerGroup", perGroup);
    args_.setUniform("uMaxGroups", limits_.maxGroupsX);
    args_.use();
    args_.dispatch(1);
    barrier(GL_COMMAND_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
    return {};
}

void PeelScenePass::markPass(int pass) {
    if (timers_ == 0) return;
    const int stage = kPassStage[pass] < 0 ? std::max(stage_, 0) : kPassStage[pass];
    // With "passes" every pass gets its own timestamp; its index says pass and stage.
    if (timers_ == 2) {
        clock_.mark(kStageCount + pass * kStageCount + stage);
    } else if (stage != stage_) {
        clock_.mark(stage);
    }
    stage_ = stage;
}

void PeelScenePass::markStage(int stage) {
    if (timers_ == 0) return;
    clock_.mark(stage);
    stage_ = stage;
}

void PeelScenePass::dispatchIndirect(const gl::Program& program, std::uint32_t slot) const {
    program.use();
    argsBuffer_.bind(GL_DISPATCH_INDIRECT_BUFFER);
    glDispatchComputeIndirect(static_cast<GLintptr>(slot) * 4 * sizeof(std::uint32_t));
    barrier();
}

Result<void> PeelScenePass::run(const Scene& scene, gl::GpuScene& gpu, std::span<const ObjectPair> candidates,
                                const CallObjects& objects, DetectionOutput& out) {
    DetectorStats& stats = out.stats;
    const auto tc = Clock::now();
    const std::size_t n = scene.objectCount();
    // Cluster trees of new meshes (once per mesh).
    if (clusters_.update(scene) || clusterNodesUploaded_ != clusters_.nodes().size()) {
        if (auto r = reserveChecked(nodesBuffer_, clusters_.nodes().size(), sizeof(gl::PeelClusterNode), limits_,
                                    "the cluster trees");
            !r)
            return r;
        if (auto r = reserveChecked(slotsBuffer_, clusters_.slots().size(), sizeof(std::uint32_t), limits_,
                                    "the cluster slots");
            !r)
            return r;
        nodesBuffer_.upload(0, clusters_.nodes().size_bytes(), clusters_.nodes().data());
        slotsBuffer_.upload(0, clusters_.slots().size_bytes(), clusters_.slots().data());
        if (auto r = reserveChecked(slotTrianglesBuffer_, clusters_.slotTriangles().size(), sizeof(glm::uvec4), limits_,
                                    "the cluster slots' triangles");
            !r)
            return r;
        slotTrianglesBuffer_.upload(0, clusters_.slotTriangles().size_bytes(), clusters_.slotTriangles().data());
        clusterNodesUploaded_ = clusters_.nodes().size();
    }

    // Views and tiles; the pairs that take part; the parts (their objects).
    edge_.assign(n, 0.0f);
    for (ObjectId o = 0; o < n; ++o)
        if (objects.state[o] == kUsed) edge_[o] = clusters_.tree(scene.meshOf(o)).meanEdge;
    // The largest tile whose fragment slots fit one storage block (llvmpipe: 128 MB).
    const std::size_t slotBytes = std::size_t(settings_.maxLayers) * 2 * sizeof(std::uint32_t);
    const std::size_t pixelBudget = std::min(kMaxAtlasPixels, limits_.maxStorageBlock / slotBytes);
    const auto maxTile = static_cast<std::uint32_t>(std::bit_floor(std::max<std::size_t>(
        1, static_cast<std::size_t>(std::sqrt(double(pixelBudget))))));
    if (maxTile < 16)
        return fail("peel: " + std::to_string(settings_.maxLayers) + " fragment slots per pixel leave room for no " +
                    "16-pixel tile in GL_MAX_SHADER_STORAGE_BLOCK_SIZE (" + std::to_string(limits_.maxStorageBlock) +
                    " bytes); lower maxLayers");
    if (direct_) {
        layout_ = SceneLayout{};
    } else {
        layout_ = makeSceneTiles(candidates, objects, edge_, settings_, common_.selfCollision, kMarginPixels, maxTile);
        stats.count("views", double(layout_.views));
        stats.count("cull", cull_ ? 1.0 : 0.0);
        if (!layout_.pixel.empty())
            stats.count("pixel_size", double(*std::min_element(layout_.pixel.begin(), layout_.pixel.end())));
        stats.count("coarsened_views", double(layout_.coarsenedViews));
    }
    stats.count("rays", direct_ ? 0.0 : 1.0);
    constexpr std::uint32_t kNone = 0xFFFFFFFFu;
    std::vector<std::uint32_t> partOf(n, kNone);
    parts_.clear();
    pairs_.clear();
    activeCandidates_.clear();
    vertexTotal_ = nodeTotal_ = triangleTotal_ = 0;
    std::uint32_t maxHeight = 0;
    float cellSize = std::numeric_limits<float>::max();
    float longestBox = 0.0f;  // the longest world-box diagonal: bounds every triangle's box
    auto partFor = [&](ObjectId o) {
        if (partOf[o] != kNone) return partOf[o];
        const Mesh& mesh = scene.objectMesh(o);
        const PeelClusters::MeshTree& tree = clusters_.tree(scene.meshOf(o));
        const Aabb& b = objects.bounds[o];
        const Vec3 pos = scene.pose(o).position;
        const float radius = glm::length(glm::max(glm::abs(b.min - pos), glm::abs(b.max - pos)));
        gl::PeelPart p{};
        p.object = o;
        p.vertexBase = vertexTotal_;
        p.vertexCount = static_cast<std::uint32_t>(mesh.vertexCount());
        p.nodeBase = nodeTotal_;
        p.firstNode = tree.firstNode;
        p.nodeCount = tree.nodeCount;
        p.firstSlot = tree.firstSlot;
        p.triangleBase = triangleTotal_;
        p.triangleCount = static_cast<std::uint32_t>(mesh.triangleCount());
        p.errorScale = glm::length(pos) + radius;
        vertexTotal_ += p.vertexCount;
        nodeTotal_ += p.nodeCount;
        triangleTotal_ += p.triangleCount;
        maxHeight = std::max(maxHeight, tree.height);
        if (tree.meanEdge > 0.0f) cellSize = std::min(cellSize, tree.meanEdge);
        longestBox = std::max(longestBox, glm::length(b.max - b.min));
        partOf[o] = static_cast<std::uint32_t>(parts_.size());
        parts_.push_back(p);
        return partOf[o];
    };
    for (std::uint32_t c = 0; c < candidates.size(); ++c) {
        const ObjectPair p = candidates[c];
        if (!pairTakesPart(p, objects, common_.selfCollision)) continue;
        if (!direct_ && layout_.groupOf[p.a] < 0) continue;
        // Without rays the margin is the float tolerance alone: only triangles that touch matter.
        const float pixel = direct_ ? 0.0f : layout_.pixel[std::size_t(layout_.groupOf[p.a])];
        const Aabb& A = objects.bounds[p.a];
        const Aabb& B = objects.bounds[p.b];
        const float boxes = boxMargin(std::max(glm::length(A.extent()), glm::length(B.extent())));
        const float margin = kMarginPixels * pixel + boxes;
        if (p.a != p.b && A.expanded(margin).intersection(B.expanded(margin)).isEmpty()) continue;
        const std::uint32_t pa = partFor(p.a), pb = partFor(p.b);
        activeCandidates_.push_back(c);
        // With rays, a self pair or the cull off (one axis): drawn whole, nothing to walk.
        // Without rays every pair is walked (the walk is what bounds its candidates).
        const bool whole = !direct_ && (p.a == p.b || !cull_);
        if (whole) {
            parts_[pa].flags |= PEEL_PART_KEEP_ALL;
            parts_[pb].flags |= PEEL_PART_KEEP_ALL;
            continue;
        }
        // The margin in world units, plus the float rounding of the world boxes (without rays the
        // cluster boxes are exact bounds of the float world vertices: their rounding alone).
        const float rounding = 1e-5f * std::max(parts_[pa].errorScale, parts_[pb].errorScale);
        pairs_.push_back({c, pa, pb, direct_ ? rounding : margin + rounding});
    }
    stats.count("triangles_in", double(triangleTotal_));
    if (activeCandidates_.empty()) {
        stats.cpuMs += msSince(tc);
        return {};
    }

    // Tiles largest first, grouped into batches of equal size that fit the atlas budget; the
    // draws (one per tile and part) in tile order, so a batch's draws are contiguous.
    std::vector<Tile>& tiles = layout_.tiles;
    std::stable_sort(tiles.begin(), tiles.end(), [](const Tile& x, const Tile& y) { return x.size > y.size; });
    draws_.clear();
    commands_.clear();
    batches_.clear();
    atlasPixels_ = 0;
    std::vector<gl::PeelTile> tileData(tiles.size());
    for (std::size_t first = 0, count = 0; first < tiles.size(); first += count) {
        const std::uint32_t side = tiles[first].size;
        if (std::size_t(side) * side > pixelBudget)
            return fail("peel: a " + std::to_string(side) + "-pixel tile needs " +
                        std::to_string(std::size_t(side) * side * slotBytes) +
                        " bytes of fragment slots, above this GL's GL_MAX_SHADER_STORAGE_BLOCK_SIZE (" +
                        std::to_string(limits_.maxStorageBlock) + "); lower maxLayers or the resolution");
        const std::size_t perBatch = std::max<std::size_t>(
            1, std::min(pixelBudget / (std::size_t(side) * side), std::size_t(kMaxAtlasSide / side) * (kMaxAtlasSide / side)));
        count = 0;
        while (first + count < tiles.size() && count < perBatch && tiles[first + count].size == side) ++count;
        Batch b;
        b.firstTile = static_cast<std::uint32_t>(first);
        b.tileCount = static_cast<std::uint32_t>(count);
        b.size = side;
        const auto tilesX = std::min<std::uint32_t>(
            b.tileCount, std::max<std::uint32_t>(1, static_cast<std::uint32_t>(std::ceil(std::sqrt(double(count))))));
        const std::uint32_t tilesY = (b.tileCount + tilesX - 1) / tilesX;
        b.width = tilesX * side;
        b.height = tilesY * side;
        b.firstDraw = static_cast<std::uint32_t>(draws_.size());
        for (std::uint32_t i = 0; i < b.tileCount; ++i) {
            const std::uint32_t t = b.firstTile + i;
            gl::PeelTile& g = tileData[t];
            g = tiles[t].gpu;
            g.originX = (i % tilesX) * side;
            g.originY = (i / tilesX) * side;
            g.size = side;
            for (ObjectId o : tiles[t].objects) {
                if (partOf[o] == kNone) continue;
                const auto d = static_cast<std::uint32_t>(draws_.size());
                draws_.push_back({t, partOf[o], o, 0});
                commands_.push_back({0, 1, 3 * parts_[partOf[o]].triangleBase, 0, d});
            }
        }
        b.endDraw = static_cast<std::uint32_t>(draws_.size());
        atlasPixels_ = std::max(atlasPixels_, std::size_t(b.width) * b.height);
        batches_.push_back(b);
    }
    stats.count("tiles", double(tiles.size()));
    stats.count("raster_passes", double(batches_.size()));
    // Candidate pairs of the call: an open-addressing hash table (linear probing, at most half
    // full; the hash matches the shaders').
    const std::size_t tableSize = std::bit_ceil(std::max<std::size_t>(16, 2 * activeCandidates_.size()));
    std::vector<glm::uvec4> table(tableSize, glm::uvec4(0xFFFFFFFFu, 0u, 0u, 0u));
    for (std::uint32_t c : activeCandidates_) {
        const ObjectPair p = candidates[c];
        const std::uint32_t lo = std::min(p.a, p.b), hi = std::max(p.a, p.b);
        std::uint32_t h = (lo * 0x9E3779B1u) ^ (hi * 0x85EBCA77u);
        h ^= h >> 15;
        for (std::uint32_t probe = 0;; ++probe) {
            glm::uvec4& e = table[(h + probe) & (tableSize - 1)];
            if (e.x == 0xFFFFFFFFu) {
                e = glm::uvec4(lo, hi, c, 0u);
                break;
            }
            if (e.x == lo && e.y == hi) break;  // a repeated candidate: the first index wins
        }
    }
    pairMask_ = static_cast<std::uint32_t>(tableSize - 1);
    // Pairing grid: level-0 cells as large as the smallest mean edge of the call's meshes.
    cellSize_ = cellSize == std::numeric_limits<float>::max() ? 1.0f : cellSize;
    // Enough levels that the call's longest triangle spans at most three top-level cells a
    // side: a record's cell loops (pair_grid, pair_test) stay short, where llvmpipe ends an
    // invocation's loops silently after 65535 iterations (a 300 m ground beside 1 mm edges
    // spanned 476^2 level-3 cells; docs/gl.md "Loop bounds on llvmpipe").
    gridLevels_ = PEEL_GRID_LEVELS;
    while (gridLevels_ < PEEL_GRID_MAX_LEVELS &&
           2.0f * cellSize_ * float(1u << (3u * (gridLevels_ - 1u))) < 1.01f * longestBox)
        ++gridLevels_;
    stats.count("grid_levels", double(gridLevels_));
    // Breadth first (one dispatch per level) down to the clusters where the slots allow: a
    // depth-first walk per node pair leaves few long threads on deep trees (3.76M triangles).
    treeHeight_ = maxHeight;
    levelSteps_ = std::max({kLevelSteps, maxHeight > kStackLevels ? maxHeight - kStackLevels : 0u,
                            std::min(maxHeight + 1, kSlotTriangles - 2)});
    if (levelSteps_ + 1 >= kSlotTriangles)
        return fail("peel: a cluster tree " + std::to_string(maxHeight) + " levels deep is beyond the traversal's " +
                    std::to_string(kSlotTriangles - 2 + kStackLevels) + " levels");
    // refit "cpu": the cluster boxes on every core into the mapped staging buffer; attempt()
    // copies them to the node boxes. "auto": so when most of the call's vertices are deformed
    // objects' (their own vertex ranges: the GPU pass would read each from memory, where rigid
    // objects share their mesh's, cached). Measured: docs/detectors/peel.md, "Round 2026-11-27
    // evening". The vertices are uploaded (GpuScene::sync) first and the copy flushed, so that
    // the GPU copies them while the CPU makes the boxes (the copy, ~0.12 ms for the deforming
    // pile's 3 MB, is then off the walk's path; "Round 2026-11-27 night"). Test hook
    // ISC_PEEL_UPLOAD_FIRST=0: with the CPU's boxes, after the walk is dispatched (syncScene()).
    syncScene_ = &scene;
    syncGpu_ = &gpu;
    syncStats_ = &stats;
    synced_ = false;
    cpuBoxes_ = false;
    boxesCopied_ = false;
    cpuWalkCall_ = false;
    bool cpuRefit = refitMode_ == 2;
    if (refitMode_ == 1) {
        std::size_t deformed = 0;
        for (const gl::PeelPart& p : parts_)
            if (scene.isDeformed(p.object)) deformed += p.vertexCount;
        cpuRefit = 2 * deformed > std::size_t(vertexTotal_);
    }
    stats.count("refit_cpu", cpuRefit ? 1.0 : 0.0);
    // With the CPU's boxes and the upload first, the conversion and the boxes share one
    // parallel region: threads take the objects' conversions first; the one with the GL
    // context records the copy in pieces as they are done (the GPU copies while the rest are
    // converted and the boxes made), the others go on to the boxes without waiting for it.
    const bool fused = cpuRefit && nodeTotal_ > 0 && uploadFirst_ && fusedSync_;
    stats.count("sync_fused", fused ? 1.0 : 0.0);
    if (!fused && (!cpuRefit || nodeTotal_ == 0 || uploadFirst_)) {
        syncScene();
        if (cpuRefit) glFlush();  // the vertex copy runs while the CPU makes the boxes
    }
    if (cpuRefit && nodeTotal_ > 0) {
        const auto tb = Clock::now();
        const std::size_t bytes = std::size_t(nodeTotal_) * sizeof(gl::PeelBox);
        if (auto r = limits_.checkBlock(bytes, "the node boxes"); !r) return r;
        if (boxStaging_.size() < bytes || boxStagingData_ == nullptr) {
            const GLbitfield flags = GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
            boxStaging_ = gl::Buffer("peel node boxes (staging)");
            boxStaging_.allocate(bytes + bytes / 2, nullptr, flags);
            boxStagingData_ = static_cast<gl::PeelBox*>(boxStaging_.mapPersistent(flags));
        }
        // The last call's copy out of it is done: that call waited for its fence.
        const auto partCount = static_cast<std::int64_t>(parts_.size());
        std::span<const ObjectId> changed;
        if (fused) {
            glFlush();  // what is recorded so far starts now
            changed = gpu.beginSync(scene);
        }
        // The vertex copy in pieces (copyPieces_, default 4): the thread with the GL context
        // records the copy of the objects converted so far, in order, each time another
        // piece's worth is done, so that the GPU copies them while the rest are converted
        // (the copy, ~0.12 ms for the deforming pile's 3 MB, was on the walk's path: the GPU
        // copies before it walks). 1: one copy after the last conversion (before 2026-11-28).
        gl::ConversionTeam team(gpu, scene, changed.size(), copyPieces_, streamStores_, convertedFlags_);
        double uploadMs = 0;
        std::int64_t copies = 0;
        // The cluster walk on the CPU (cpuWalkOn_, PeelCpuWalk; docs/detectors/peel.md, "Round 2026-11-28
        // (branch peel-walk-12)"): in the same region, on the boxes kept in host memory for it
        // (when to walk: cpuWalkMode_ below), its records appended to the mapped staging buffer
        // (one atomic per pair of parts) and copied after the region. A list longer than the
        // staging buffer: this call takes the GPU walk (counted), the next calls a larger
        // buffer. Not with the copy in one piece (ISC_PEEL_COPY_PIECES=1, the boxes' copy in
        // attempt()) nor a split call.
        const bool records = walkRecords_ && clusters_.slots().size() < (std::size_t(1) << 27);
        cpuWalkCall_ = cpuWalkOn_ && fused && records && direct_ && !settings_.overlap && !pairs_.empty() &&
                       fusedWalk_ && treeHeight_ <= kFusedLevels && copyPieces_ > 1;
        double walkStartMs = 0;
        // cpuWalkMode_ 2 (the default): a pair is walked as soon as both its parts are boxed, by
        // the thread that boxed the later one (its boxes are in that core's cache;
        // PeelCpuWalk::partBoxed). Mode 1: every pair after a barrier behind the last box.
        const bool walkAtBoxes = cpuWalkCall_ && cpuWalkMode_ == 2;
        // With the boxes in the records (recordBoxes_, the default) the triangle pairs read no
        // node boxes: the CPU's boxes go to host memory only, nothing to the staging buffer, no
        // boxes' copy (a 1 MB copy on the deforming pile, before the triangle pairs).
        const bool boxRecords = cpuWalkCall_ && recordUvec4_ == 5u;
        if (cpuWalkCall_) {
            if (auto r = reserveChecked(boxesBuffer_, nodeTotal_, sizeof(gl::PeelBox), limits_, "the node boxes"); !r)
                return r;
            // (Within one storage block; a list that does not fit takes the GPU walk, below.)
            cap_.clusterPairs = std::max<std::size_t>(
                1, std::min(cap_.clusterPairs, limits_.maxStorageBlock / (recordUvec4_ * sizeof(glm::uvec4))));
            if (auto r = reserveChecked(clusterPairsBuffer_, cap_.clusterPairs, recordUvec4_ * sizeof(glm::uvec4), limits_,
                                        "the cluster pairs");
                !r)
                return r;
            cpuWalk_.begin(parts_, pairs_, nodeTotal_, cap_.clusterPairs, recordUvec4_, walkAtBoxes);
        }
        const auto pairCount = static_cast<std::int64_t>(pairs_.size());
#pragma omp parallel if (partCount >= 4)
        {
            if (fused) {
                if (omp_get_thread_num() == 0) {  // the thread with the GL context
                    copies = team.convertAndCopy();
                    gpu.endSync();
                    ++copies;
                    gpu.bind();  // a first sync (re)makes the scene's buffers
                    glFlush();   // the vertex copy runs while the CPU makes the boxes
                    uploadMs = msSince(tb);
                } else {
                    while (team.convertNext()) {
                    }
                }
            }
            thread_local PeelCpuWalk::Scratch walkScratch;
            walkScratch.tests = 0;
            walkScratch.ns = 0;
#pragma omp for schedule(dynamic, 1) nowait
            for (std::int64_t k = 0; k < partCount; ++k) {
                const gl::PeelPart& p = parts_[std::size_t(k)];
                if (refitSimd_) {
                    clusters_.refit(scene.meshOf(p.object), scene.localVertices(p.object),
                                    scene.pose(p.object).matrix(), boxRecords ? nullptr : boxStagingData_ + p.nodeBase,
                                    streamStores_, cpuWalkCall_ ? cpuWalk_.hostBoxes() + p.nodeBase : nullptr);
                } else if (cpuWalkCall_) {
                    clusters_.refitScalar(scene.meshOf(p.object), scene.localVertices(p.object),
                                          scene.pose(p.object).matrix(), cpuWalk_.hostBoxes() + p.nodeBase);
                    if (!boxRecords)
                        std::copy_n(cpuWalk_.hostBoxes() + p.nodeBase, p.nodeCount, boxStagingData_ + p.nodeBase);
                } else {
                    clusters_.refitScalar(scene.meshOf(p.object), scene.localVertices(p.object),
                                          scene.pose(p.object).matrix(), boxStagingData_ + p.nodeBase);
                }
                if (walkAtBoxes) cpuWalk_.partBoxed(clusters_, static_cast<std::uint32_t>(k), walkScratch);
            }
            if (walkAtBoxes) {
#pragma omp master
                {
                    // Every box made (the others are walking meanwhile): the boxes' copy.
                    while (cpuWalk_.partsBoxed() < partCount) {
                    }
                    walkStartMs = msSince(tb);
                    if (!boxRecords) {
                        glCopyNamedBufferSubData(boxStaging_.id(), boxesBuffer_.id(), 0, 0,
                                                 static_cast<GLsizeiptr>(std::size_t(nodeTotal_) * sizeof(gl::PeelBox)));
                        glFlush();
                    }
                }
            } else if (cpuWalkCall_) {
#pragma omp barrier
#pragma omp master
                {
                    walkStartMs = msSince(tb);
                    if (!boxRecords) {
                        glCopyNamedBufferSubData(boxStaging_.id(), boxesBuffer_.id(), 0, 0,
                                                 static_cast<GLsizeiptr>(std::size_t(nodeTotal_) * sizeof(gl::PeelBox)));
                        glFlush();
                    }
                }
#pragma omp for schedule(dynamic, 4) nowait
                for (std::int64_t k = 0; k < pairCount; ++k) cpuWalk_.walk(clusters_, std::size_t(k), walkScratch);
            }
            if (cpuWalkCall_) cpuWalk_.addTally(walkScratch);
        }
        if (fused) {
            synced_ = true;
            stats.count("cpu_upload_ms", stats.counter("cpu_upload_ms") + uploadMs);
            stats.count("vertex_copies", double(copies));
        }
        cpuBoxes_ = true;
        stats.count("cpu_refit_ms", msSince(tb));
        stats.count("cpu_walk", cpuWalkCall_ ? 1.0 : 0.0);
        if (cpuWalkCall_) {
            boxesCopied_ = true;  // recorded in the region
            const std::size_t total = cpuWalk_.records();
            stats.count("cpu_walk_ms", msSince(tb) - walkStartMs);  // after the last box (and its copy's recording)
            stats.count("cpu_walk_mode", double(cpuWalkMode_));
            stats.count("cpu_walk_form", walkBranchless_ ? 1.0 : 0.0);
            stats.count("walk_tests", double(cpuWalk_.tests()));
            stats.count("cpu_walk_thread_ms", cpuWalk_.threadMs());
            if (!cpuWalk_.fitted()) {
                // Did not fit: the GPU walks this call (its list grown as usual), the staging
                // buffer is made larger for the next calls.
                cpuWalkCall_ = false;
                stats.count("cpu_walk_overflow", 1.0);
                if (boxRecords) {  // the GPU walk reads the node boxes: made on the CPU, copied now
                    std::copy_n(cpuWalk_.hostBoxes(), nodeTotal_, boxStagingData_);
                    glCopyNamedBufferSubData(boxStaging_.id(), boxesBuffer_.id(), 0, 0,
                                             static_cast<GLsizeiptr>(std::size_t(nodeTotal_) * sizeof(gl::PeelBox)));
                }
                const std::size_t most = limits_.maxStorageBlock / (recordUvec4_ * sizeof(glm::uvec4));
                cap_.clusterPairs = std::min(most, std::max(cap_.clusterPairs, total + total / 2 + 1024));
            } else {
                cpuWalk_.copyRecords(clusterPairsBuffer_);
                if (total > 0 && walkFlush_) glFlush();  // the copy starts now, while the CPU records the rest
            }
        }
        // The boxes' copy recorded (and started) at once, before the call's other uploads and
        // buffers (with the copy in pieces; before 2026-11-28 attempt() recorded it).
        if (copyPieces_ > 1 && !boxesCopied_) {
            if (auto r = reserveChecked(boxesBuffer_, nodeTotal_, sizeof(gl::PeelBox), limits_, "the node boxes"); !r)
                return r;
            glCopyNamedBufferSubData(boxStaging_.id(), boxesBuffer_.id(), 0, 0,
                                     static_cast<GLsizeiptr>(std::size_t(nodeTotal_) * sizeof(gl::PeelBox)));
            glFlush();
            boxesCopied_ = true;
        }
    }
    if (auto r = reserveChecked(pairTableBuffer_, table.size(), sizeof(glm::uvec4), limits_, "the candidate pair table");
        !r)
        return r;
    if (auto r = reserveChecked(partsBuffer_, parts_.size(), sizeof(gl::PeelPart), limits_, "the parts"); !r) return r;
    if (auto r = reserveChecked(pairListBuffer_, pairs_.size(), sizeof(gl::PeelPair), limits_, "the pair list"); !r)
        return r;
    // The triangle pairs on the CPU walk's records read none of these three ("trim"; a call that
    // falls back to the GPU walk has cpuWalkCall_ false here, and every call uploads them anew).
    if (!(trimCpuWalkCalls_ && cpuWalkCall_)) {
        pairTableBuffer_.upload<glm::uvec4>(0, table);
        partsBuffer_.upload<gl::PeelPart>(0, parts_);
        if (!pairs_.empty()) pairListBuffer_.upload<gl::PeelPair>(0, pairs_);
    }
    if (auto r = reserveChecked(tilesBuffer_, tileData.size(), sizeof(gl::PeelTile), limits_, "the tiles"); !r) return r;
    tilesBuffer_.upload<gl::PeelTile>(0, tileData);
    if (auto r = reserveChecked(drawsBuffer_, draws_.size(), sizeof(gl::PeelDraw), limits_, "the draws"); !r) return r;
    if (!draws_.empty()) drawsBuffer_.upload<gl::PeelDraw>(0, draws_);
    if (auto r = reserveChecked(commandsBuffer_, commands_.size(), sizeof(gl::DrawElementsIndirectCommand), limits_,
                                "the draw commands");
        !r)
        return r;
    if (!commands_.empty()) commandsBuffer_.upload<gl::DrawElementsIndirectCommand>(0, commands_);
    if (drawIdsBuffer_.reserveSequence(static_cast<std::uint32_t>(draws_.size()))) {
        vao_.setVertexBuffer(0, drawIdsBuffer_, 0, sizeof(std::uint32_t), 1);
        vao_.setIntegerAttribute(PEEL_ATTRIB_DRAW_ID, 0, 1, GL_UNSIGNED_INT);
    }
    stats.cpuMs += msSince(tc);
    stats.count("cpu_setup_ms", msSince(tc));

    // The GPU part; redone with larger buffers when one overflowed.
    for (int attemptNo = 0;; ++attemptNo) {
        bool retry = false;
        if (auto r = attempt(scene, gpu, candidates, out, retry); !r) return r;
        if (!retry) break;
        if (attemptNo == 3)
            return fail("peel: the GPU lists still overflow after 3 enlargements (capacities: node pairs " +
                        std::to_string(cap_.items) + ", cluster pairs " + std::to_string(cap_.clusterPairs) +
                        ", records " + std::to_string(cap_.records) + ", grid entries " + std::to_string(cap_.entries) +
                        ", triangle pairs " + std::to_string(cap_.output) + ")");
        stats.count("capacity_retries", stats.counter("capacity_retries") + 1);
    }
    return {};
}

Result<void> PeelScenePass::attempt(const Scene& scene, gl::GpuScene& gpu, std::span<const ObjectPair> candidates,
                                    DetectionOutput& out, bool& retry) {
    DetectorStats& stats = out.stats;
    const auto tg = Clock::now();
    // Growable lists never ask for more than one storage block holds.
    auto clampTo = [&](std::size_t& capacity, std::size_t bytesEach) {
        capacity = std::max<std::size_t>(1, std::min(capacity, limits_.maxStorageBlock / bytesEach));
    };
    clampTo(cap_.items, sizeof(glm::uvec4));
    // A cluster pair's record: two uvec4 (the GPU walk's), five with the CPU walk's boxes.
    const std::size_t recordBytes = (cpuWalkCall_ ? recordUvec4_ : 2u) * sizeof(glm::uvec4);
    clampTo(cap_.clusterPairs, recordBytes);
    clampTo(cap_.records, sizeof(gl::PeelBox));  // the records' boxes are the larger of the two
    clampTo(cap_.entries, 2 * 2 * sizeof(std::uint32_t));  // two buckets per entry, two words each
    clampTo(cap_.output, 3 * sizeof(std::uint32_t));
    // Buffers of this attempt.
    struct Need {
        gl::Buffer* buffer;
        std::size_t count, bytesEach;
        const char* what;
    };
    const std::size_t maxPixels = atlasPixels_;
    // Hash buckets of the pairing grid: about two per expected entry.
    const auto buckets = static_cast<std::uint32_t>(std::bit_ceil(std::max<std::size_t>(1024, 2 * cap_.entries)));
    const std::uint32_t maskWordsMax = [&] {
        std::uint32_t m = 0;
        for (const Batch& b : batches_) m = std::max(m, b.tileCount * ((b.size * b.size + 31) / 32));
        return m;
    }();
    const std::uint32_t pyramidMax = [&] {
        std::uint32_t m = 0;
        for (const Batch& b : batches_) {
            std::uint32_t stride = 0;
            for (std::uint32_t l = 1; (b.size >> l) > 0; ++l) stride += (b.size >> l) * (b.size >> l);
            m = std::max(m, b.tileCount * stride);
        }
        return m;
    }();
    const Need needs[] = {
        {&worldBuffer_, vertexTotal_, sizeof(glm::vec4), "the world vertices"},
        {&boxesBuffer_, nodeTotal_, sizeof(gl::PeelBox), "the node boxes"},
        {&visitsBuffer_, nodeTotal_, sizeof(std::uint32_t), "the node visits"},
        {&itemsBuffer_[0], cap_.items, sizeof(glm::uvec4), "the node pair lists"},
        {&itemsBuffer_[1], cap_.items, sizeof(glm::uvec4), "the node pair lists"},
        {&clusterPairsBuffer_, cap_.clusterPairs, recordBytes, "the cluster pairs"},
        {&keptBitsBuffer_, (triangleTotal_ + 31) / 32, sizeof(std::uint32_t), "the kept bits"},
        {&keptIndicesBuffer_, triangleTotal_, 3 * sizeof(std::uint32_t), "the kept index lists"},
        {&keptTrianglesBuffer_, triangleTotal_, sizeof(std::uint32_t), "the kept triangles"},
        {&keptCountsBuffer_, parts_.size(), sizeof(std::uint32_t), "the kept counts"},
        {&scanBuffer_, draws_.size() + 1, sizeof(std::uint32_t), "the draw items"},
        {&headsBuffer_, maxPixels, sizeof(std::uint32_t), "the pixel counts"},
        {&pixelSlotsBuffer_, maxPixels * std::size_t(settings_.maxLayers), 2 * sizeof(std::uint32_t),
         "the pixel slots"},
        {&maskBuffer_, maskWordsMax, sizeof(std::uint32_t), "the collision mask"},
        {&pyramidBuffer_, pyramidMax, 2 * sizeof(std::uint32_t), "the ray pyramid"},
        {&recordsBuffer_, cap_.records, sizeof(gl::PeelRecord), "the records"},
        {&recordBoxesBuffer_, cap_.records, sizeof(gl::PeelBox), "the records' boxes"},
        {&cellStartsBuffer_, std::size_t(buckets) + 1, sizeof(std::uint32_t), "the pairing grid"},
        {&cellFillBuffer_, buckets, sizeof(std::uint32_t), "the pairing grid"},
        {&cellItemsBuffer_, cap_.entries, sizeof(std::uint32_t), "the pairing grid entries"},
        {&hitsBuffer_, candidates.size() + layout_.tiles.size(), sizeof(std::uint32_t), "the pair flags"},
        {&pairFlagsBuffer_, pairs_.size(), sizeof(std::uint32_t), "the pair flags"},
    };
    for (const Need& need : needs)
        if (auto r = reserveChecked(*need.buffer, need.count, need.bytesEach, limits_, need.what); !r) return r;
    if (cpuBoxes_ && !boxesCopied_)  // the CPU's cluster boxes (refit "cpu"); read by the walk after this copy
        glCopyNamedBufferSubData(boxStaging_.id(), boxesBuffer_.id(), 0, 0,
                                 static_cast<GLsizeiptr>(std::size_t(nodeTotal_) * sizeof(gl::PeelBox)));
    if (auto r = limits_.checkBlock(cap_.output * 3 * sizeof(std::uint32_t), "the candidate triangle pairs"); !r)
        return r;
    if (auto r = output_.reserve(cap_.output * 3 * sizeof(std::uint32_t)); !r) return r;
    if (direct_ && settings_.overlap)
        if (auto r = outputB_.reserve(cap_.output * 3 * sizeof(std::uint32_t)); !r) return r;
    // Cleared every attempt ("trim" on the CPU walk's calls: zeros and the walk's two counts in
    // one copy from a mapped buffer instead of a clear and two copies).
    const bool trim = trimCpuWalkCalls_ && cpuWalkCall_;
    if (trim) {
        cpuWalk_.copyCountersBlock(counters_.buffer(), PEEL_COUNTER_CLUSTER_PAIRS, PEEL_COUNTER_PAIRS_WITH_CLUSTERS);
    } else {
        counters_.buffer().clearZero();
    }
    if (cpuWalkCall_ && !trim) {
        // The CPU's walk: its counts, as the GPU walk would have counted, copied in from a mapped
        // buffer (a GPU copy, ordered after the clear; glNamedBufferSubData here lost the count
        // from the second call on with the NVIDIA driver, which moves the counters to host
        // memory: run 1 of peel-walk-12; workaround "nvidia-subdata-into-counters" in docs/gl.md).
        cpuWalk_.copyCounts(counters_.buffer(), PEEL_COUNTER_CLUSTER_PAIRS, PEEL_COUNTER_PAIRS_WITH_CLUSTERS);
    }
    // Read by the GPU walk, the levels walk and the image passes only ("trim": left out when
    // the triangle pairs run alone on the CPU walk's records).
    if (!trim) {
        argsBuffer_.clearZero();
        visitsBuffer_.clearZero(0, std::size_t(nodeTotal_) * 4);
        pairFlagsBuffer_.clearZero(0, std::max<std::size_t>(pairs_.size(), 1) * 4);
    }
    if (!direct_) {  // the image passes' lists
        keptBitsBuffer_.clearZero(0, std::size_t((triangleTotal_ + 31) / 32) * 4);
        keptCountsBuffer_.clearZero(0, parts_.size() * 4);
        cellStartsBuffer_.clearZero(0, (std::size_t(buckets) + 1) * 4);
        cellFillBuffer_.clearZero(0, std::size_t(buckets) * 4);
        hitsBuffer_.clearZero(0, (candidates.size() + layout_.tiles.size()) * 4);
    }
    stats.count("cpu_upload_ms", stats.counter("cpu_upload_ms") + msSince(tg));

    // Bindings: every buffer of scene sampling at its own binding point.
    gpu.bind();
    const std::pair<const gl::Buffer*, GLuint> bindings[] = {
        {&partsBuffer_, PEEL_BINDING_PARTS},
        {&worldBuffer_, PEEL_BINDING_WORLD},
        {&nodesBuffer_, PEEL_BINDING_CLUSTER_NODES},
        {&slotsBuffer_, PEEL_BINDING_CLUSTER_SLOTS},
        {&slotTrianglesBuffer_, PEEL_BINDING_SLOT_TRIANGLES},
        {&boxesBuffer_, PEEL_BINDING_NODE_BOXES},
        {&visitsBuffer_, PEEL_BINDING_NODE_VISITS},
        {&pairListBuffer_, PEEL_BINDING_PAIR_LIST},
        {&clusterPairsBuffer_, PEEL_BINDING_CLUSTER_PAIRS},
        {&argsBuffer_, PEEL_BINDING_ARGS},
        {&keptBitsBuffer_, PEEL_BINDING_KEPT_BITS},
        {&keptIndicesBuffer_, PEEL_BINDING_KEPT_INDICES},
        {&keptTrianglesBuffer_, PEEL_BINDING_KEPT_TRIANGLES},
        {&keptCountsBuffer_, PEEL_BINDING_KEPT_COUNTS},
        {&counters_.buffer(), PEEL_BINDING_COUNTERS},
        {&tilesBuffer_, PEEL_BINDING_TILES},
        {&drawsBuffer_, PEEL_BINDING_DRAWS},
        {&commandsBuffer_, PEEL_BINDING_COMMANDS},
        {&scanBuffer_, PEEL_BINDING_SCAN},
        {&headsBuffer_, PEEL_BINDING_HEADS},
        {&pixelSlotsBuffer_, PEEL_BINDING_NODES},
        {&maskBuffer_, PEEL_BINDING_MASK},
        {&pyramidBuffer_, PEEL_BINDING_PYRAMID},
        {&recordsBuffer_, PEEL_BINDING_RECORDS},
        {&recordBoxesBuffer_, PEEL_BINDING_RECORD_BOXES},
        {&cellStartsBuffer_, PEEL_BINDING_CELL_STARTS},
        {&cellFillBuffer_, PEEL_BINDING_CELL_FILL},
        {&cellItemsBuffer_, PEEL_BINDING_CELL_ITEMS},
        {&pairTableBuffer_, PEEL_BINDING_PAIRS},
        {&hitsBuffer_, PEEL_BINDING_HITS},
        {&pairFlagsBuffer_, PEEL_BINDING_PAIR_FLAGS},
        {&output_.buffer(), PEEL_BINDING_OUTPUT},
    };
    for (const auto& [buffer, binding] : bindings) buffer->bindBase(GL_SHADER_STORAGE_BUFFER, binding);

    exact_.beginCall(common_.wantSegments);  // new vertices and poses: nothing speculated yet
    clock_.reset();
    stage_ = -1;
    const auto clusterCap = static_cast<std::uint32_t>(std::min<std::size_t>(cap_.clusterPairs, 0xFFFFFFFFu));
    fusedCall_ = fusedWalk_ && treeHeight_ <= kFusedLevels;
    stats.count("walk_fused", fusedCall_ ? 1.0 : 0.0);
    // Two halves (settings.overlap): the first half's pairs walked, paired, copied and fenced,
    // then the second's; the CPU tests the first list while the GPU makes the second.
    splitCall_ = fusedCall_ && direct_ && settings_.overlap && pairs_.size() >= 2;
    splitPairs_ = static_cast<std::uint32_t>(splitCall_ ? pairs_.size() / 2 : pairs_.size());
    stats.count("split", splitCall_ ? 1.0 : 0.0);
    // The vertices go after the walk only on the fused walk without rays in one piece.
    if (!(fusedCall_ && direct_ && !splitCall_)) syncScene();
    if (auto r = fusedCall_ ? fusedCull(clusterCap, 0) : levelsCull(clusterCap); !r) return r;
    syncScene();  // (no pairs: no walk)
    if (!direct_)
        if (auto r = imagePasses(candidates, buckets); !r) return r;
    // The counters and (the expected part of) the list into their mapped copies.
    const std::size_t copied = std::min(cap_.output, outputCopy_);
    if (!splitCall_ && timers_ != 0) clock_.stop();
    barrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    counters_.copyOut(PEEL_COUNTER_COUNT * sizeof(std::uint32_t));
    output_.copyOut(copied * sizeof(TrianglePairCandidate));
    const gl::Fence fenceA = gl::Fence::insert();
    if (spent_ != nullptr) spent_->clear();  // the last call's pairs freed while the GPU works (setSpent)
    gl::Fence fenceB;
    if (splitCall_) {
        if (auto r = fusedCull(clusterCap, 1); !r) return r;
        if (timers_ != 0) clock_.stop();
        barrier(GL_BUFFER_UPDATE_BARRIER_BIT);
        countersB_.copyFrom(counters_.buffer(), PEEL_COUNTER_COUNT * sizeof(std::uint32_t));
        outputB_.copyOut(copied * sizeof(TrianglePairCandidate));
        fenceB = gl::Fence::insert();
    }
    if (auto e = gl::checkError("after the peel scene passes"); !e) return e;

    // 8. The one wait of the call (of each half), then the counters and the list, in place.
    const auto tw = Clock::now();
    // (Diagnostic, since 2026-11-29's eleventh session: the CPU's time from the set-up's end to the
    // fence, the GL calls that start the GPU's part; 0.023-0.041 ms on the deforming pile, H200.)
    stats.count("cpu_issue_ms", std::chrono::duration<double, std::milli>(tw - tg).count());
    // The wait runs on this thread inside a parallel region: the exact test's worker threads,
    // asleep since the last call when the caller did other work in between (a physics step,
    // the deforming scene's update), wake up while the GPU works instead of after it (on the
    // H100 host their wake-up cost up to a few ms per call); they then spin, ready.
    // Not with software GL: there the spinning threads would take the cores it renders with.
    const int team = settings_.exactThreads > 0 ? settings_.exactThreads : omp_get_max_threads();
    // With `speculate` the other threads meanwhile test the last call's intersecting pairs
    // again (PeelExact::speculate) until the fence signals; the exact test below takes their
    // results. Test hook ISC_PEEL_SPECULATE_ALL: they test all of them whatever the fence (on
    // software GL, where the wait runs alone, after it), so tests see the reuse path.
    const bool speculate = settings_.speculate && (!softwareGl_ || speculateAll_);
    const std::atomic<bool> never{false};
    std::function<void(const std::atomic<bool>&)> whileWaiting;
    if (speculate)
        whileWaiting = [&](const std::atomic<bool>& signalled) {
            // One thread looks the candidates' groups up and makes the hash table of the last
            // call's pairs for the exact test meanwhile (PeelExact::prepare).
#pragma omp single nowait
            exact_.prepare(candidates, &signalled);
            exact_.speculate(scene, speculateAll_ ? never : signalled);
        };
    auto waitFor = [&](const gl::Fence& fence) {
        return gl::waitInTeam(fence, std::uint64_t(60) * 1000000000, softwareGl_ ? 1 : team, whileWaiting);
    };
    if (!waitFor(fenceA)) return fail("peel: the GPU did not finish the call's passes within 60 s");
    double waitMs = msSince(tw);
    auto tr = Clock::now();
    std::uint32_t counters[PEEL_COUNTER_COUNT];
    std::memcpy(counters, counters_.data(), sizeof counters);
    // A split call: the first half's list is tested now, while the GPU works on the second
    // (unless something overflowed: the call is redone then). Its pairs of parts come first
    // in candidate order, so out.pairs stays in candidate order.
    const std::size_t pairsBefore = out.pairs.size();
    double exactMs = 0, lateMs = 0, readMs = 0;
    std::uint32_t foundA = 0;
    // The list was copied as far as the last calls suggested: the rest of `found` now (a second
    // wait, counted; the next calls copy more).
    auto copyRest = [&](ReadbackBuffer& list, std::uint32_t found) -> Result<void> {
        if (found <= copied) return {};
        const auto tl = Clock::now();
        list.copyOut(std::size_t(found) * sizeof(TrianglePairCandidate));
        if (auto r = gl::waitForGpu("peel, copying the candidate list"); !r) return r;
        lateMs += msSince(tl);
        stats.count("late_copies", 1.0);
        return {};
    };
    if (splitCall_) {
        const bool overflowA = counters[PEEL_COUNTER_CLUSTER_PAIRS] > cap_.clusterPairs ||
                               counters[PEEL_COUNTER_OUTPUT] > cap_.output || counters[PEEL_COUNTER_WALK_CUT] > 0;
        if (!overflowA) {
            foundA = counters[PEEL_COUNTER_OUTPUT];
            if (auto r = copyRest(output_, foundA); !r) return r;
            readMs += msSince(tr);
            const auto te = Clock::now();
            exact_.run(scene, candidates,
                       std::span<const TrianglePairCandidate>(
                           static_cast<const TrianglePairCandidate*>(output_.data()), foundA),
                       common_.wantSegments, out, settings_.exactThreads);
            exactMs += msSince(te);
        }
        const auto tb = Clock::now();
        if (!waitFor(fenceB)) return fail("peel: the GPU did not finish the call's passes within 60 s");
        waitMs += msSince(tb);
        tr = Clock::now();
        std::memcpy(counters, countersB_.data(), sizeof counters);
    }
    // Overflows: grow what overflowed and redo; a list that cannot grow within one storage
    // block is an error naming the limit.
    std::string tooLarge;
    auto grow = [&](std::size_t& capacity, std::size_t needed, std::size_t bytesEach, const char* what) {
        if (needed <= capacity) return;
        const std::size_t most = limits_.maxStorageBlock / bytesEach;
        if (capacity >= most) {
            tooLarge = std::string(what) + " (" + std::to_string(needed) + " entries of " + std::to_string(bytesEach) +
                       " bytes)";
            return;
        }
        capacity = std::min(most, needed + needed / 2 + 1024);
        retry = true;
    };
    grow(cap_.items, counters[PEEL_COUNTER_ITEM_OVERFLOW] > 0 ? 2 * cap_.items : 0, sizeof(glm::uvec4),
         "the node pair lists");
    if (counters[PEEL_COUNTER_WALK_CUT] > 0) {
        // A fused walk's invocation ran out of stack or loop budget (docs/gl.md): this call is
        // redone, and every later one made, with the levels walk.
        fusedWalk_ = false;
        retry = true;
        stats.count("walk_cut", double(counters[PEEL_COUNTER_WALK_CUT]));
    }
    grow(cap_.clusterPairs, counters[PEEL_COUNTER_CLUSTER_PAIRS], recordBytes, "the cluster pairs");
    grow(cap_.records, counters[PEEL_COUNTER_RECORDS], sizeof(gl::PeelBox), "the records");
    grow(cap_.entries, counters[PEEL_COUNTER_CELL_ENTRIES], 4 * sizeof(std::uint32_t), "the pairing grid");
    grow(cap_.output, std::max(counters[PEEL_COUNTER_OUTPUT], counters[PEEL_COUNTER_OUTPUT_B]),
         3 * sizeof(std::uint32_t), "the candidate triangle pairs");
    if (!tooLarge.empty())
        return fail("peel: " + tooLarge + " do not fit this GL's GL_MAX_SHADER_STORAGE_BLOCK_SIZE (" +
                    std::to_string(limits_.maxStorageBlock) + " bytes); give fewer candidate pairs per call or use a "
                    "GPU with larger storage blocks");
    if (retry) {
        out.stats.readbackMs += waitMs + msSince(tr);
        // A first half tested before the overflow showed: its results go with the attempt.
        out.pairs.resize(pairsBefore);
        for (const char* name : {"exact_sort_ms", "exact_test_ms", "tri_tri_tests", "positive_tests"})
            stats.count(name, 0.0);
        return {};
    }
    // The (second half's) list.
    const std::uint32_t found = counters[splitCall_ ? PEEL_COUNTER_OUTPUT_B : PEEL_COUNTER_OUTPUT];
    ReadbackBuffer& listBuffer = splitCall_ ? outputB_ : output_;
    if (auto r = copyRest(listBuffer, found); !r) return r;
    outputCopy_ = std::size_t(std::max(found, foundA)) + std::max(found, foundA) / 4 + 4096;
    lastClusterPairs_ = counters[PEEL_COUNTER_CLUSTER_PAIRS];
    const std::span<const TrianglePairCandidate> list(static_cast<const TrianglePairCandidate*>(listBuffer.data()),
                                                      found);
    readMs += msSince(tr);
    // Clock indices: a stage s, or (gpuTimers "passes") kStageCount + pass x kStageCount + s.
    const std::vector<double> spans = clock_.totals(int(kStageCount) + int(kPassCount) * int(kStageCount));
    double gpuMs = 0;
    for (int s = 0; s < kStageCount && timers_ != 0; ++s) {
        double ms = spans[std::size_t(s)];
        for (int p = 0; p < kPassCount; ++p) ms += spans[std::size_t(kStageCount + p * kStageCount + s)];
        stats.count(kStageNames[s], ms);
        gpuMs += ms;
    }
    for (int p = 0; p < kPassCount && timers_ == 2; ++p) {
        double ms = 0;
        for (int s = 0; s < kStageCount; ++s) ms += spans[std::size_t(kStageCount + p * kStageCount + s)];
        stats.count(kPassNames[p], ms);
    }
    stats.gpuMs = gpuMs;
    stats.readbackMs += waitMs + readMs;
    stats.count("gpu_wait_ms", waitMs + lateMs);
    auto counter = [&](int k) { return double(counters[k]); };
    stats.count("pairs_culled", double(pairs_.size()) - counter(PEEL_COUNTER_PAIRS_WITH_CLUSTERS));
    stats.count("cluster_pairs", counter(PEEL_COUNTER_CLUSTER_PAIRS));
    if (clusterPairsHash_ && direct_ && walkRecords_) {
        // Test hook: the cluster pairs' records, sorted, hashed (FNV-1a, 64 bits in two counters).
        const std::size_t m = std::min<std::size_t>(counters[PEEL_COUNTER_CLUSTER_PAIRS], cap_.clusterPairs);
        // (The CPU walk's records with boxes are five uvec4 each: their first two are hashed.)
        const std::size_t stride = cpuWalkCall_ ? 4 * recordUvec4_ : 8;
        std::vector<std::uint32_t> words(m * stride);
        if (m > 0)
            glGetNamedBufferSubData(clusterPairsBuffer_.id(), 0,
                                    static_cast<GLsizeiptr>(words.size() * sizeof(std::uint32_t)), words.data());
        std::vector<std::array<std::uint32_t, 8>> records(m);
        for (std::size_t i = 0; i < m; ++i) std::copy_n(words.data() + i * stride, 8, records[i].data());
        std::sort(records.begin(), records.end());
        std::uint64_t h = 0xcbf29ce484222325ull;
        for (const auto& r : records)
            for (std::uint32_t w : r) h = (h ^ w) * 0x100000001b3ull;
        stats.count("cluster_pairs_hash_lo", double(h & 0xFFFFFFFFull));
        stats.count("cluster_pairs_hash_hi", double(h >> 32));
    }
    stats.count("triangles_kept", counter(PEEL_COUNTER_KEPT));
    stats.count("triangles_rasterized", counter(PEEL_COUNTER_RASTER_TRIANGLES));  // kept x tiles drawn into
    stats.count("fragments", counter(PEEL_COUNTER_FRAGMENTS));
    stats.count("collision_rays", counter(PEEL_COUNTER_COLLISION_RAYS));
    stats.count("overflow_rays", counter(PEEL_COUNTER_OVERFLOW_RAYS));
    stats.count("max_depth_complexity", counter(PEEL_COUNTER_MAX_DEPTH));
    stats.count("pairs_with_collision_rays", counter(PEEL_COUNTER_PAIRS_WITH_RAYS));
    stats.count("records", counter(PEEL_COUNTER_RECORDS));
    stats.count("grid_entries", counter(PEEL_COUNTER_CELL_ENTRIES));
    stats.count("screen_pairs", counter(PEEL_COUNTER_SCREEN_PAIRS));
    stats.count("filtered_pairs", double(found) + double(foundA));
    std::size_t pixels = 0;
    for (const Batch& b : batches_) pixels += std::size_t(b.width) * b.height;
    stats.count("pixels_sampled", double(pixels));

    // The exact test.
    const auto te = Clock::now();
    exact_.run(scene, candidates, list, common_.wantSegments, out, settings_.exactThreads);
    exactMs += msSince(te);
    stats.count("cpu_exact_ms", exactMs);
    // What the next call's wait tests again (both halves of a split call): every pair listed
    // this call (PeelExact::rememberCall); nothing where no wait speculates (software GL
    // without the test hook).
    const auto tm = Clock::now();
    if (speculate) exact_.rememberCall(std::span<const PairResult>(out.pairs).subspan(pairsBefore));
    stats.count("exact_remember_ms", msSince(tm));
    stats.cpuMs += msSince(tm);
    stats.cpuMs += exactMs;
    return {};
}

void PeelScenePass::syncScene() {
    if (synced_ || syncGpu_ == nullptr) return;
    DetectorStats& stats = *syncStats_;
    glFlush();  // what is recorded so far (the walk) starts now
    const auto tu = Clock::now();
    syncGpu_->sync(*syncScene_);
    syncGpu_->bind();  // a first sync (re)makes the scene's buffers
    const double ms = msSince(tu);
    stats.count("cpu_upload_ms", stats.counter("cpu_upload_ms") + ms);
    if (cpuBoxes_) stats.cpuMs += ms;  // after run()'s set-up window (the upload follows the walk)
    synced_ = true;
}

// The world vertices (with rays: the raster pass draws them) and the cluster boxes; then
// the fused walk in one dispatch; then the triangle pairs (no rays: a fixed grid of workgroups
// striding over the list, sized from the last call: no indirect-argument pass) or, with rays,
// the triangle cull. Four dispatches without rays (three: the refit and the triangle pairs
// read the local vertices), each after one barrier; nothing read back.
Result<void> PeelScenePass::fusedCull(std::uint32_t clusterCap, int half) {
    const auto pairCount = static_cast<std::uint32_t>(pairs_.size());
    if (half == 1)  // the second half of a split call: its pairs, its list
        return fusedWalkAndPairs(clusterCap, splitPairs_, pairCount - splitPairs_, 1);
    if (auto r = worldAndRefit(direct_); !r) return r;
    if (pairs_.empty()) return {};
    return fusedWalkAndPairs(clusterCap, 0, splitPairs_, 0);
}

Result<void> PeelScenePass::fusedWalkAndPairs(std::uint32_t clusterCap, std::uint32_t first, std::uint32_t count,
                                              int half) {
    // Without rays the walk writes records with all the triangle pairs need (walkRecords_).
    // (Slots are packed below 2^27 in the records: more triangles than that in the scene's
    // meshes take the other form.)
    const bool records = direct_ && walkRecords_ && clusters_.slots().size() < (std::size_t(1) << 27);
    if (!cpuWalkCall_) {  // else the CPU walked (run()): its records and count are copied in
        markPass(kPassWalk);
        gl::Program& walk = records ? walkRec_ : walk_;
        walk.setUniform("uPairBase", first);
        walk.setUniform("uPairCount", count);
        walk.setUniform("uClusterCapacity", clusterCap);
        walk.setUniform("uQueueLimit", walkQueue_);
        walk.setUniform("uStepBudget", walkBudget_);
        walk.use();
        if (auto r = dispatch1d(walk, count, 1, limits_, "the pair list (one workgroup each)"); !r) return r;
    }
    barrier();
    if (direct_) {
        syncScene();  // the vertices, while the GPU walks (refit "cpu"; else done already)
        markPass(kPassTriangles);
        // The second half starts where the first half's cluster pairs end, and appends to its
        // own list (the first one is being read by the CPU meanwhile).
        (half == 1 ? outputB_ : output_).buffer().bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_OUTPUT);
        gl::Program& tri = cpuWalkCall_ && recordUvec4_ == 5u ? triPairsBoxRecords_
                           : records                              ? triPairsRecords_
                                                                  : triPairsLocal_;
        tri.setUniform("uStartCounter", std::uint32_t(half == 1 ? PEEL_COUNTER_CLUSTER_SPLIT : PEEL_COUNTER_COUNT));
        tri.setUniform("uOutputCounter", std::uint32_t(half == 1 ? PEEL_COUNTER_OUTPUT_B : PEEL_COUNTER_OUTPUT));
        tri.setUniform("uClusterCapacity", clusterCap);
        tri.setUniform("uOutputCapacity", static_cast<std::uint32_t>(std::min<std::size_t>(cap_.output, 0xFFFFFFFFu)));
        tri.use();
        // As many workgroups as the last call's cluster pairs and a quarter more (each strides
        // over the list, so any count is served; a good guess makes it one cluster pair each).
        // With the CPU's walk the count is known: one workgroup per cluster pair.
        const std::size_t expected = splitCall_ ? lastClusterPairs_ / 2 : lastClusterPairs_;
        const std::size_t groups = cpuWalkCall_ ? cpuWalk_.records()
                                                : std::clamp<std::size_t>(expected + expected / 4 + 256, 256,
                                                                          std::max<std::size_t>(256, cap_.clusterPairs));
        if (groups > 0)
            if (auto r = dispatch1d(tri, groups, 1, limits_, "the triangle pairs"); !r) return r;
        barrier();
        if (splitCall_ && half == 0) {  // where the second half's cluster pairs will start
            barrier(GL_BUFFER_UPDATE_BARRIER_BIT);
            glCopyNamedBufferSubData(counters_.buffer().id(), counters_.buffer().id(),
                                     PEEL_COUNTER_CLUSTER_PAIRS * sizeof(std::uint32_t),
                                     PEEL_COUNTER_CLUSTER_SPLIT * sizeof(std::uint32_t), sizeof(std::uint32_t));
        }
    } else {
        if (auto r = writeArgs(kSlotTriangles, 1, PEEL_COUNTER_CLUSTER_PAIRS, 0, 0, cap_.clusterPairs, 1); !r) return r;
        markPass(kPassTriangleCull);
        cullTriangles_.setUniform("uClusterCapacity", clusterCap);
        dispatchIndirect(cullTriangles_, kSlotTriangles);
    }
    return {};
}

// The world vertices (unless `direct`: the refit then reads the local vertices and the poses)
// and the cluster boxes refitted from them, each after one barrier.
Result<void> PeelScenePass::worldAndRefit(bool direct) {
    const auto partCount = static_cast<std::uint32_t>(parts_.size());
    if (!direct) {
        markPass(kPassWorld);
        world_.setUniform("uPartCount", partCount);
        world_.setUniform("uItemCount", vertexTotal_);
        world_.use();
        if (auto r = dispatch1d(world_, vertexTotal_, 64, limits_, "the world vertices"); !r) return r;
        barrier();
    }
    if (direct && cpuBoxes_) return {};  // made on the CPU (refit "cpu"), copied in attempt()
    markPass(kPassRefit);
    gl::Program& refit = direct ? refitLocal_ : refit_;
    refit.setUniform("uPartCount", partCount);
    refit.setUniform("uItemCount", nodeTotal_);
    refit.use();
    if (auto r = dispatch1d(refit, std::size_t(nodeTotal_) * 32, 64, limits_, "the cluster refit"); !r) return r;
    barrier();
    return {};
}

// The walk before round e: world vertices, refit, the roots, one dispatch per level (each
// sized by an indirect-argument pass from the previous level's count), the depth-first rest,
// then the triangle pairs (or the triangle cull) sized the same way.
Result<void> PeelScenePass::levelsCull(std::uint32_t clusterCap) {
    // 1. World vertices; 2. cluster boxes, bottom-up.
    if (auto r = worldAndRefit(false); !r) return r;
    // 3. Cluster pairs: roots, levelSteps_ levels, then depth first.
    const auto itemCap = static_cast<std::uint32_t>(std::min<std::size_t>(cap_.items, 0xFFFFFFFFu));
    for (gl::Program* p : {&pairsInit_, &pairsStep_, &pairsStack_}) {
        p->setUniform("uItemCapacity", itemCap);
        p->setUniform("uClusterCapacity", clusterCap);
    }
    if (pairs_.empty()) return {};
    markPass(kPassRoots);
    itemsBuffer_[0].bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_ITEMS_OUT);
    pairsInit_.setUniform("uPairCount", static_cast<std::uint32_t>(pairs_.size()));
    pairsInit_.setUniform("uOutSlot", 0u);
    pairsInit_.use();
    if (auto r = dispatch1d(pairsInit_, pairs_.size(), 64, limits_, "the pair list"); !r) return r;
    barrier();
    if (auto r = writeArgs(0, 0, 0, 0, 0, cap_.items, 64); !r) return r;
    for (std::uint32_t s = 0; s <= levelSteps_; ++s) {
        const bool last = s == levelSteps_;
        itemsBuffer_[s % 2].bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_ITEMS_IN);
        itemsBuffer_[(s + 1) % 2].bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_ITEMS_OUT);
        gl::Program& p = last ? pairsStack_ : pairsStep_;
        p.setUniform("uInSlot", s);
        p.setUniform("uOutSlot", s + 1);
        markPass(last ? kPassStack : kPassLevel);
        dispatchIndirect(p, s);
        if (!last)
            if (auto r = writeArgs(s + 1, 0, 0, 0, 0, cap_.items, 64); !r) return r;
    }
    // 4. Triangles of the cluster pairs: kept for the raster pass, or (no rays) paired and filtered.
    if (auto r = writeArgs(kSlotTriangles, 1, PEEL_COUNTER_CLUSTER_PAIRS, 0, 0, cap_.clusterPairs, 1); !r) return r;
    if (direct_) {
        syncScene();  // (done before the levels walk already)
        markPass(kPassTriangles);
        triPairs_.setUniform("uStartCounter", std::uint32_t(PEEL_COUNTER_COUNT));
        triPairs_.setUniform("uOutputCounter", std::uint32_t(PEEL_COUNTER_OUTPUT));
        triPairs_.setUniform("uClusterCapacity", clusterCap);
        triPairs_.setUniform("uOutputCapacity",
                             static_cast<std::uint32_t>(std::min<std::size_t>(cap_.output, 0xFFFFFFFFu)));
        dispatchIndirect(triPairs_, kSlotTriangles);
    } else {
        markPass(kPassTriangleCull);
        cullTriangles_.setUniform("uClusterCapacity", clusterCap);
        dispatchIndirect(cullTriangles_, kSlotTriangles);
    }
    return {};
}

// Passes 5-7 (scene sampling with collision rays): kept lists, raster, rays, separation,
// pairing and the float filter.
Result<void> PeelScenePass::imagePasses(std::span<const ObjectPair> candidates, std::uint32_t buckets) {
    const auto partCount = static_cast<std::uint32_t>(parts_.size());
    // 5. Kept lists and draws.
    compact_.setUniform("uPartCount", partCount);
    compact_.setUniform("uItemCount", triangleTotal_);
    compact_.use();
    if (auto r = dispatch1d(compact_, triangleTotal_, 64, limits_, "the kept lists"); !r) return r;
    barrier();
    drawItems_.setUniform("uDrawCount", static_cast<std::uint32_t>(draws_.size()));
    drawItems_.use();
    drawItems_.dispatch(1);
    barrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_COMMAND_BARRIER_BIT | GL_ELEMENT_ARRAY_BARRIER_BIT);

    // 6. Per batch: raster, collision rays, ray merging, separation.
    vao_.setElementBuffer(keptIndicesBuffer_);
    const auto recordCap = static_cast<std::uint32_t>(std::min<std::size_t>(cap_.records, 0xFFFFFFFFu));
    for (const Batch& b : batches_) {
        markStage(kStageRaster);
        const std::uint32_t R = b.size, W = b.width, H = b.height;
        headsBuffer_.clearZero(0, std::size_t(W) * H * 4);
        maskBuffer_.clearZero(0, std::size_t(b.tileCount) * ((R * R + 31) / 32) * 4);
        glNamedFramebufferParameteri(framebuffer_.id(), GL_FRAMEBUFFER_DEFAULT_WIDTH, static_cast<GLint>(W));
        glNamedFramebufferParameteri(framebuffer_.id(), GL_FRAMEBUFFER_DEFAULT_HEIGHT, static_cast<GLint>(H));
        framebuffer_.bind();
        glViewport(0, 0, static_cast<GLsizei>(W), static_cast<GLsizei>(H));
        glDisable(GL_DEPTH_TEST);
        glDisable(GL_CULL_FACE);
        glDisable(GL_BLEND);
        glEnable(GL_DEPTH_CLAMP);  // the view volume fits the objects; clamping only guards round-off
        glFrontFace(GL_CCW);
        glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
        if (conservativeRaster_) glEnable(kConservativeRasterizationNv);
        raster_.setUniform("uTileSize", R);
        raster_.setUniform("uAtlasSize", glm::vec2(W, H));
        raster_.setUniform("uAtlasWidth", W);
        raster_.use();
        vao_.bind();
        commandsBuffer_.bind(GL_DRAW_INDIRECT_BUFFER);
        glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT,
                                    reinterpret_cast<const void*>(std::uintptr_t(b.firstDraw) *
                                                                  sizeof(gl::DrawElementsIndirectCommand)),
                                    static_cast<GLsizei>(b.endDraw - b.firstDraw), 0);
        glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
        if (conservativeRaster_) glDisable(kConservativeRasterizationNv);
        glDisable(GL_DEPTH_CLAMP);
        gl::Framebuffer::bindDefault();
        barrier();
        markStage(kStageRays);
        resolve_.setUniform("uFirstTile", b.firstTile);
        resolve_.setUniform("uCulled", cull_ ? 1u : 0u);
        // The cull keeps a band of kMarginPixels pixels: a nearest fragment farther than that in
        // depth may have culled surface between.
        resolve_.setUniform("uFarPixels", kMarginPixels);
        resolve_.setUniform("uTileFlagBase", static_cast<std::uint32_t>(candidates.size()) + b.firstTile);
        resolve_.setUniform("uPairMask", pairMask_);
        resolve_.setUniform("uTileSize", R);
        resolve_.setUniform("uAtlasWidth", W);
        resolve_.use();
        resolve_.dispatch((R + 7) / 8, (R + 7) / 8, b.tileCount);
        barrier();
        const int levels = std::countr_zero(R);
        std::uint32_t pyramidStride = 0;
        for (int l = 1; l <= levels; ++l) pyramidStride += (R >> l) * (R >> l);
        mip_.setUniform("uTileSize", R);
        mip_.setUniform("uPyramidStride", pyramidStride);
        mip_.use();
        std::uint32_t offset = 0, prevOffset = 0;
        for (int level = 1; level <= levels; ++level) {
            const std::uint32_t dim = R >> level;
            mip_.setUniform("uLevel", static_cast<std::uint32_t>(level));
            mip_.setUniform("uLevelOffset", offset);
            mip_.setUniform("uPrevOffset", prevOffset);
            mip_.dispatch((dim + 7) / 8, (dim + 7) / 8, b.tileCount);
            barrier();
            prevOffset = offset;
            offset += dim * dim;
        }
        if (auto r = writeArgs(kSlotSeparate, 2, 0, b.firstDraw, b.endDraw, 0xFFFFFFFFu, 64); !r) return r;
        separate_.setUniform("uTileSize", R);
        separate_.setUniform("uLevels", static_cast<std::uint32_t>(levels));
        separate_.setUniform("uPyramidStride", pyramidStride);
        separate_.setUniform("uDrawBegin", b.firstDraw);
        separate_.setUniform("uDrawEnd", b.endDraw);
        separate_.setUniform("uFirstTile", b.firstTile);
        separate_.setUniform("uRecordCapacity", recordCap);
        if (timers_ == 2) markStage(kStageRays);  // ends the arguments pass's span
        dispatchIndirect(separate_, kSlotSeparate);
    }

    // 7. Pairing and the float filter.
    markStage(kStageGrid);
    const auto entryCap = static_cast<std::uint32_t>(std::min<std::size_t>(cap_.entries, 0xFFFFFFFFu));
    if (auto r = writeArgs(kSlotRecords, 1, PEEL_COUNTER_RECORDS, 0, 0, cap_.records, 64); !r) return r;
    for (gl::Program* p : {&gridCount_, &gridFill_, &pairTest_}) {
        p->setUniform("uCellSize", cellSize_);
        p->setUniform("uGridLevels", gridLevels_);
        p->setUniform("uBucketMask", buckets - 1);
    }
    gridCount_.setUniform("uRecordCapacity", recordCap);
    if (timers_ == 2) markStage(kStageGrid);
    dispatchIndirect(gridCount_, kSlotRecords);
    cellStartsBuffer_.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_SCAN);
    scan_.setUniform("uScanCount", buckets);
    scan_.use();
    scan_.dispatch(1);
    barrier();
    scanBuffer_.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_SCAN);
    gridFill_.setUniform("uRecordCapacity", recordCap);
    gridFill_.setUniform("uEntryCapacity", entryCap);
    dispatchIndirect(gridFill_, kSlotRecords);
    markStage(kStageFilter);
    pairTest_.setUniform("uRecordCapacity", recordCap);
    pairTest_.setUniform("uEntryCapacity", entryCap);
    pairTest_.setUniform("uOutputCapacity", static_cast<std::uint32_t>(std::min<std::size_t>(cap_.output, 0xFFFFFFFFu)));
    pairTest_.setUniform("uPairMask", pairMask_);
    pairTest_.setUniform("uCandidateCount", static_cast<std::uint32_t>(candidates.size()));
    dispatchIndirect(pairTest_, kSlotRecords);
    return {};
}

std::vector<DetectorDebugView> PeelScenePass::debugViews() const {
    if (batches_.empty()) return {};
    const Batch& b = batches_.back();  // its buffers are what the last raster pass left
    const int w = static_cast<int>(b.width), h = static_cast<int>(b.height), r = static_cast<int>(b.size);
    return {{"fragments per pixel",
             "depth complexity of each ray of the last batch's atlas (section 4): fragments of the culled triangles",
             headsBuffer_.id(), 0, DetectorDebugView::Format::Counts, w, h},
            {"collision rays",
             "rays that enter one object while inside another (section 4), before ray merging (section 5)",
             maskBuffer_.id(), 0, DetectorDebugView::Format::TileBits, w, h, r, static_cast<int>(b.tileCount), w / r}};
}

}  // namespace isc::peel
