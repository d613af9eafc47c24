#include "isc/detectors/PeelDetector.h"

#include "isc/detect/Registry.h"

#include "PeelNarrowphase.h"

#include "isc/core/Assert.h"
#include "isc/gl/Bindings.h"
#include "isc/gl/Buffer.h"
#include "isc/gl/Framebuffer.h"
#include "isc/gl/Gl.h"
#include "isc/gl/GpuScene.h"
#include "isc/gl/Query.h"
#include "isc/gl/Program.h"
#include "isc/gl/VertexArray.h"

#include "peel/bindings.h"  // shaders/: PeelTile, PeelDraw, PeelSegment, PeelRecord

#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

namespace isc {

static_assert(sizeof(gl::PeelTile) == 96, "PeelTile must match its std430 layout");
static_assert(sizeof(gl::PeelRecord) == 16, "PeelRecord must match its std430 layout");

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// Atlas pixels per raster pass: bounds the per-pixel slots (maxLayers x 4 bytes each).
constexpr std::size_t kMaxAtlasPixels = std::size_t(2048) * 2048;
// Side of the atlas in pixels (every GL 4.5 driver supports 16384).
constexpr int kMaxAtlasSide = 8192;
// GL_NV_conservative_raster's enable (GL_CONSERVATIVE_RASTERIZATION_NV).
constexpr GLenum kConservativeRasterizationNv = 0x9346;

bool hasGlExtension(std::string_view name) {
    GLint count = 0;
    glGetIntegerv(GL_NUM_EXTENSIONS, &count);
    for (GLint i = 0; i < count; ++i) {
        const auto* e = reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, static_cast<GLuint>(i)));
        if (e != nullptr && name == e) return true;
    }
    return false;
}

// Rows of the sparse record "texture" in packing mode.
constexpr std::uint32_t kPackRowWidth = 1024;

// DetectorStats::count sets; these add or keep the maximum over a call's batches.
void addCount(DetectorStats& stats, std::string_view name, double value) {
    stats.count(name, stats.counter(name) + value);
}
void maxCount(DetectorStats& stats, std::string_view name, double value) {
    stats.count(name, std::max(stats.counter(name), value));
}

// GPU time of a span through two GL_TIMESTAMP queries (glQueryCounter). Workaround, by name:
// on Mesa llvmpipe (LLVM 15) a GL_TIME_ELAPSED query around compute dispatches only
// returned the absolute timestamp (about the machine's uptime), not the span.
struct SpanTimer {
    gl::Query begin{"peel span begin", GL_TIMESTAMP};
    gl::Query end{"peel span end", GL_TIMESTAMP};
    void start() { glQueryCounter(begin.id(), GL_TIMESTAMP); }
    void stop() { glQueryCounter(end.id(), GL_TIMESTAMP); }
    double elapsedMs() const { return double(end.result() - begin.result()) * 1e-6; }
};

// Timestamps between the stages of one batch attempt: cull, raster, resolve + mipmap,
// separation (stage k spans marks k..k+1).
constexpr int kStages = 4;
constexpr const char* kStageCounters[kStages] = {"gpu_cull_ms", "gpu_raster_ms", "gpu_resolve_mip_ms",
                                                 "gpu_separate_ms"};
struct StageTimer {
    gl::Query marks[kStages + 1] = {{"peel stage", GL_TIMESTAMP}, {"peel stage", GL_TIMESTAMP},
                                    {"peel stage", GL_TIMESTAMP}, {"peel stage", GL_TIMESTAMP},
                                    {"peel stage", GL_TIMESTAMP}};
    void mark(int k) { glQueryCounter(marks[k].id(), GL_TIMESTAMP); }
    double stageMs(int k) const { return double(marks[k + 1].result() - marks[k].result()) * 1e-6; }
};

struct Tile {
    gl::PeelTile gpu{};
    std::uint32_t candidate = 0;  // pair tiles: index into the call's candidates
    int axis = 0;
    std::uint32_t size = 0;       // tile side in pixels (power of two)
    std::vector<ObjectId> objects;  // drawn into the tile: (a, b), (a) for self, or a view's objects (sorted)
    std::vector<char> whole;        // per object: entirely inside the tile window (drawn uncull'd, mesh order)
};

// One (tile, object) range of the triangles a batch culls, draws and separates; scene
// sampling names record owners by it.
struct SegmentRef {
    std::uint32_t tile;  // call-global tile index
    ObjectId object;
};

// Largest tile side of scene sampling (a larger view is cut into a grid of such tiles) and
// the largest view side before its pixels are made coarser.
constexpr std::uint32_t kMaxSceneTile = 2048;
constexpr float kMaxViewSide = 16384.0f;

float compMax(const Vec3& v) { return std::max(v.x, std::max(v.y, v.z)); }

// Union-find over object ids (clusters of candidate pairs).
struct Clusters {
    std::vector<ObjectId> parent;
    explicit Clusters(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), ObjectId(0)); }
    ObjectId find(ObjectId x) {
        while (parent[x] != x) x = parent[x] = parent[parent[x]];
        return x;
    }
    void unite(ObjectId a, ObjectId b) { parent[find(a)] = find(b); }
};

}  // namespace

struct PeelDetector::Impl {
    DetectorSettings common;  // selfCollision, wantSegments
    PeelSettings settings;
    bool packing = false;
    bool sceneSampling = true;  // settings.sampling "auto"/"scene"; false: "pairs" or "peeling"
    bool peeling = false;       // settings.sampling "peeling": pair tiles, multi-pass depth peeling
    bool conservativeRaster = false;  // settings.conservativeRaster and the driver has GL_NV_conservative_raster
    gl::Program cull, raster, resolve, mip, separate, packCount, packMove;
    gl::Program rasterCount, rasterPeel, depthMax, peelLayer;  // sampling "peeling"
    gl::GpuScene scene{"peel scene"};
    gl::VertexArray vao, vaoWhole;  // element buffer: the culled lists / the GpuScene's index buffer
    gl::Framebuffer framebuffer;
    gl::Buffer tiles{"peel tiles"}, draws{"peel draws"}, drawIds{"peel draw ids"},
        indirect{"peel indirect"}, wholeIndirect{"peel indirect (whole objects)"}, heads{"peel pixel counts"}, nodes{"peel pixel slots"}, counters{"peel counters"},
        mask{"peel mask"}, pyramid{"peel pyramid"}, segments{"peel segments"}, records{"peel records"},
        rowCounts{"peel row counts"}, rowOffsets{"peel row offsets"}, packed{"peel packed"},
        culled{"peel culled indices"}, pairTable{"peel candidate pair hash"}, hits{"peel pair hits"},
        peelState{"peel peeling state"}, peelLayers{"peel peeled layer"};
    std::uint32_t pairMask = 0;  // pairTable entries - 1
    std::size_t recordCapacity = 1 << 14;
    std::uint32_t drawIdCount = 0;
    std::vector<std::unique_ptr<SpanTimer>> timers;
    std::vector<std::unique_ptr<StageTimer>> stageTimers;  // pooled across calls
    std::size_t stageTimersUsed = 0;
    StageTimer& nextStageTimer() {
        if (stageTimersUsed == stageTimers.size()) stageTimers.push_back(std::make_unique<StageTimer>());
        return *stageTimers[stageTimersUsed++];
    }
    PeelNarrowphase narrowphase;
    // The atlas of the call's last batch, for debugViews() (0 tiles: none this call).
    struct LastAtlas {
        std::uint32_t width = 0, height = 0, tileSize = 0, tiles = 0, tilesPerRow = 0;
    } lastAtlas;

    Result<void> compile();
    Result<void> runBatch(std::span<const Tile> batch, std::uint32_t firstTile, std::uint32_t tileFlagBase,
                          std::vector<SegmentRef>& outSegments, std::vector<gl::PeelRecord>& outRecords,
                          DetectorStats& stats, double& readbackMs);
    // Scene sampling: views (one per axis and cluster of candidate pairs) cut into tiles.
    void makeSceneTiles(std::span<const ObjectPair> candidates, std::span<const char> state,
                        std::span<const Aabb> bounds, std::vector<Tile>& out, DetectorStats& stats) const;
    void uploadPairTable(std::span<const ObjectPair> candidates, std::span<const char> state);
};

Result<void> PeelDetector::Impl::compile() {
    const std::string layers = "#define MAX_LAYERS " + std::to_string(settings.maxLayers) + "\n" +
                               (sceneSampling ? "#define PEEL_SCENE 1\n" : "");
    auto k = gl::Program::create({{GL_COMPUTE_SHADER, "peel/cull.glsl"}}, {}, "peel cull");
    if (!k) return fail(k.error().message);
    cull = std::move(*k);
    if (!peeling) {
        auto r = gl::Program::create({{GL_VERTEX_SHADER, "peel/raster.vert.glsl"},
                                      {GL_FRAGMENT_SHADER, "peel/raster.frag.glsl"}},
                                     layers, "peel raster");
        if (!r) return fail(r.error().message);
        raster = std::move(*r);
    } else {
        auto rc = gl::Program::create({{GL_VERTEX_SHADER, "peel/raster.vert.glsl"},
                                       {GL_FRAGMENT_SHADER, "peel/raster.frag.glsl"}},
                                      layers + "#define PEEL_COUNT 1\n", "peel raster (counting pass)");
        if (!rc) return fail(rc.error().message);
        rasterCount = std::move(*rc);
        auto rp = gl::Program::create({{GL_VERTEX_SHADER, "peel/raster.vert.glsl"},
                                       {GL_FRAGMENT_SHADER, "peel/raster.frag.glsl"}},
                                      layers + "#define PEEL_PEEL 1\n", "peel raster (peeling pass)");
        if (!rp) return fail(rp.error().message);
        rasterPeel = std::move(*rp);
        auto dm = gl::Program::create({{GL_COMPUTE_SHADER, "peel/depth_max.glsl"}}, layers, "peel depth max");
        if (!dm) return fail(dm.error().message);
        depthMax = std::move(*dm);
        auto pl = gl::Program::create({{GL_COMPUTE_SHADER, "peel/layer.glsl"}}, layers, "peel layer");
        if (!pl) return fail(pl.error().message);
        peelLayer = std::move(*pl);
    }
    auto s = gl::Program::create({{GL_COMPUTE_SHADER, "peel/resolve.glsl"}}, layers, "peel resolve");
    if (!s) return fail(s.error().message);
    resolve = std::move(*s);
    auto m = gl::Program::create({{GL_COMPUTE_SHADER, "peel/mip.glsl"}}, {}, "peel mip");
    if (!m) return fail(m.error().message);
    mip = std::move(*m);
    auto p = gl::Program::create({{GL_COMPUTE_SHADER, "peel/separate.glsl"}},
                                 std::string(packing ? "#define COMPACT_PACKING 1\n" : "#define COMPACT_ATOMIC 1\n") +
                                     (sceneSampling ? "#define PEEL_SCENE 1\n" : ""),
                                 "peel separate");
    if (!p) return fail(p.error().message);
    separate = std::move(*p);
    if (packing) {
        auto c = gl::Program::create({{GL_COMPUTE_SHADER, "peel/pack_count.glsl"}}, {}, "peel pack count");
        if (!c) return fail(c.error().message);
        packCount = std::move(*c);
        auto v = gl::Program::create({{GL_COMPUTE_SHADER, "peel/pack_move.glsl"}}, {}, "peel pack move");
        if (!v) return fail(v.error().message);
        packMove = std::move(*v);
    }
    vao = gl::VertexArray("peel vao");
    vaoWhole = gl::VertexArray("peel vao (whole objects)");
    framebuffer = gl::Framebuffer("peel atlas (no attachments)");
    counters.allocate(PEEL_COUNTER_COUNT * sizeof(std::uint32_t));
    return {};
}

Result<void> PeelDetector::Impl::runBatch(std::span<const Tile> batch, std::uint32_t firstTile,
                                          std::uint32_t tileFlagBase, std::vector<SegmentRef>& outSegments,
                                          std::vector<gl::PeelRecord>& outRecords, DetectorStats& stats,
                                          double& readbackMs) {
    const std::uint32_t R = batch[0].size;  // every tile of a batch has the same size
    const int levels = std::countr_zero(R);
    std::uint32_t pyramidStride = 0;       // mipmap texels per tile (levels 1..L)
    for (int l = 1; l <= levels; ++l) pyramidStride += (R >> l) * (R >> l);
    const auto n = static_cast<std::uint32_t>(batch.size());
    const std::uint32_t tilesX = std::min<std::uint32_t>(
        n, std::max<std::uint32_t>(1, static_cast<std::uint32_t>(std::ceil(std::sqrt(double(n))))));
    const std::uint32_t tilesY = (n + tilesX - 1) / tilesX;
    const std::uint32_t W = tilesX * R, H = tilesY * R;

    const auto firstSegment = static_cast<std::uint32_t>(outSegments.size());
    // Tiles, draws (one per object per tile) and segments (triangle ranges for separation).
    std::vector<gl::PeelTile> tileData(n);
    std::vector<gl::PeelDraw> drawData;
    std::vector<gl::DrawElementsIndirectCommand> commands, wholeCommands;
    std::vector<gl::PeelSegment> segmentData;
    std::uint32_t items = 0, indexRegion = 0, wholeTriangles = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        tileData[i] = batch[i].gpu;
        tileData[i].originX = (i % tilesX) * R;
        tileData[i].originY = (i / tilesX) * R;
        for (std::uint32_t side = 0; side < batch[i].objects.size(); ++side) {
            const ObjectId o = batch[i].objects[side];
            const gl::ObjectRange& range = scene.object(o);
            outSegments.push_back({firstTile + i, o});
            const auto draw = static_cast<std::uint32_t>(drawData.size());
            const bool whole = !batch[i].whole.empty() && batch[i].whole[side] != 0;
            if (whole) {
                // Inside the tile: no cull, the mesh's own index order (post-transform vertex
                // reuse; the culled lists are in atomic-append order).
                commands.push_back({0, 1, indexRegion, 0, draw});  // stays empty
                wholeCommands.push_back({3 * range.triangleCount, 1, 3 * range.firstTriangle,
                                         static_cast<std::int32_t>(range.firstVertex), draw});
                wholeTriangles += range.triangleCount;
            } else {
                // count is written by peel_cull; indices there are absolute (baseVertex 0).
                commands.push_back({0, 1, indexRegion, 0, draw});
                indexRegion += 3 * range.triangleCount;
            }
            drawData.push_back({i, side, o, 0});
            segmentData.push_back({items, i, side | (whole ? PEEL_SEGMENT_WHOLE : 0u), o});
            items += range.triangleCount;
        }
    }
    tiles.reserve(tileData.size() * sizeof(gl::PeelTile));
    tiles.upload<gl::PeelTile>(0, tileData);
    draws.reserve(drawData.size() * sizeof(gl::PeelDraw));
    draws.upload<gl::PeelDraw>(0, drawData);
    indirect.reserve(commands.size() * sizeof(gl::DrawElementsIndirectCommand));
    indirect.upload<gl::DrawElementsIndirectCommand>(0, commands);
    segments.reserve(segmentData.size() * sizeof(gl::PeelSegment));
    segments.upload<gl::PeelSegment>(0, segmentData);
    if (drawIdCount < drawData.size()) {
        drawIdCount = std::max<std::uint32_t>(static_cast<std::uint32_t>(drawData.size()), 2 * drawIdCount);
        std::vector<std::uint32_t> ids(drawIdCount);
        std::iota(ids.begin(), ids.end(), 0u);
        drawIds.allocate(ids.size() * sizeof(std::uint32_t), ids.data(), 0);
        for (gl::VertexArray* v : {&vao, &vaoWhole}) {
            v->setVertexBuffer(0, drawIds, 0, sizeof(std::uint32_t), 1);
            v->setIntegerAttribute(PEEL_ATTRIB_DRAW_ID, 0, 1, GL_UNSIGNED_INT);
        }
    }
    if (!wholeCommands.empty()) {
        wholeIndirect.reserve(wholeCommands.size() * sizeof(gl::DrawElementsIndirectCommand));
        wholeIndirect.upload<gl::DrawElementsIndirectCommand>(0, wholeCommands);
        vaoWhole.setElementBuffer(scene.indexBuffer());  // re-set: sync() may have re-created it
    }
    culled.reserve(std::size_t(std::max(indexRegion, 3u)) * sizeof(std::uint32_t));
    vao.setElementBuffer(culled);

    const std::uint32_t maskWords = (R * R + 31) / 32;
    heads.reserve(std::size_t(W) * H * sizeof(std::uint32_t));
    mask.reserve(std::size_t(n) * maskWords * sizeof(std::uint32_t));
    pyramid.reserve(std::size_t(n) * pyramidStride * 8);

    scene.bind();
    tiles.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_TILES);
    draws.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_DRAWS);
    heads.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_HEADS);
    counters.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_COUNTERS);
    mask.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_MASK);
    pyramid.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_PYRAMID);
    segments.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_SEGMENTS);

    // Passes of one batch. The counters are read once, after separation (one CPU-GPU sync
    // per batch on the atomic path); a record buffer that was too small is grown and the
    // batch redone (the next calls keep the larger buffer).
    std::uint32_t counterValues[PEEL_COUNTER_COUNT] = {};
    std::uint32_t recordCount = 0;
    separate.setUniform("uTileSize", R);
    separate.setUniform("uLevels", static_cast<std::uint32_t>(levels));
    separate.setUniform("uPyramidStride", pyramidStride);
    separate.setUniform("uSegmentCount", static_cast<std::uint32_t>(segmentData.size()));
    separate.setUniform("uItemCount", items);
    for (;;) {
        if (!peeling) {
            nodes.reserve(std::size_t(W) * H * std::size_t(settings.maxLayers) *
                          (sceneSampling ? 2 * sizeof(std::uint32_t) : sizeof(std::uint32_t)));
            nodes.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_NODES);
        }
        if (!packing) records.reserve(recordCapacity * sizeof(gl::PeelRecord));
        else records.reserve(std::size_t(items) * sizeof(gl::PeelRecord));
        records.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_RECORDS);
        indirect.upload<gl::DrawElementsIndirectCommand>(0, commands);  // counts back to 0
        mask.clearZero(0, std::size_t(n) * maskWords * sizeof(std::uint32_t));
        heads.clearZero(0, std::size_t(W) * H * sizeof(std::uint32_t));
        counters.clearZero();

        StageTimer& stages = nextStageTimer();
        stages.mark(0);
        // Cull: per tile, only the triangles inside its window are drawn.
        culled.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_CULLED);
        indirect.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_COMMANDS);
        cull.setUniform("uSegmentCount", static_cast<std::uint32_t>(segmentData.size()));
        cull.setUniform("uItemCount", items);
        cull.use();
        cull.dispatch((items + 63) / 64);
        glMemoryBarrier(GL_COMMAND_BARRIER_BIT | GL_ELEMENT_ARRAY_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
        stages.mark(1);

        // Object sampling (section 4): one raster pass for every tile of the batch,
        // fragments appended to per-pixel lists (sampling "peeling": the counting pass and
        // the peeling passes, each one raster pass of the whole batch).
        auto drawBatch = [&] {
            vao.bind();
            indirect.bind(GL_DRAW_INDIRECT_BUFFER);
            glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT, nullptr, static_cast<GLsizei>(commands.size()), 0);
            if (!wholeCommands.empty()) {
                vaoWhole.bind();
                wholeIndirect.bind(GL_DRAW_INDIRECT_BUFFER);
                glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT, nullptr,
                                            static_cast<GLsizei>(wholeCommands.size()), 0);
            }
        };
        glNamedFramebufferParameteri(framebuffer.id(), GL_FRAMEBUFFER_DEFAULT_WIDTH, static_cast<GLint>(W));
        glNamedFramebufferParameteri(framebuffer.id(), GL_FRAMEBUFFER_DEFAULT_HEIGHT, static_cast<GLint>(H));
        framebuffer.bind();
        glViewport(0, 0, static_cast<GLsizei>(W), static_cast<GLsizei>(H));
        glDisable(GL_DEPTH_TEST);
        glDisable(GL_CULL_FACE);
        glDisable(GL_BLEND);
        glEnable(GL_DEPTH_CLAMP);  // the view volume fits the objects; clamping only guards round-off
        glFrontFace(GL_CCW);
        glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
        if (conservativeRaster) glEnable(kConservativeRasterizationNv);
        for (gl::Program* program : {&raster, &rasterCount, &rasterPeel}) {
            if (program->id() == 0) continue;
            program->setUniform("uTileSize", R);
            program->setUniform("uAtlasSize", glm::vec2(W, H));
            program->setUniform("uAtlasWidth", W);
        }
        if (!peeling) {
            raster.use();
            drawBatch();
            glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
            addCount(stats, "raster_passes", 1);
        } else {
            // Section 4.1: counting pass, depth complexity by a GPU max-reduction, read by
            // the CPU (it sets the number of passes), then ceil(layers / 2) passes peeling
            // from the front and from the back at once (section 4.2), each followed by the
            // per-ray facing test. Layers beyond maxLayers are not peeled: their rays are
            // marked colliding (the paper's conservative cap).
            rasterCount.use();
            drawBatch();
            glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
            addCount(stats, "raster_passes", 1);
            depthMax.use();
            depthMax.setUniform("uTileSize", R);
            depthMax.setUniform("uAtlasWidth", W);
            depthMax.dispatch((R + 7) / 8, (R + 7) / 8, n);
            glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
            std::uint32_t depth = 0;
            const auto tr = Clock::now();
            counters.read(PEEL_COUNTER_MAX_DEPTH * sizeof(std::uint32_t), sizeof(depth), &depth);
            readbackMs += msSince(tr);
            const std::uint32_t layersToPeel = std::min<std::uint32_t>(depth, static_cast<std::uint32_t>(settings.maxLayers));
            const std::uint32_t passes = (layersToPeel + 1) / 2;
            peelState.reserve(std::size_t(W) * H * 4 * sizeof(std::uint32_t));
            peelLayers.reserve(std::size_t(W) * H * 2 * sizeof(std::uint32_t));
            peelState.clearZero(0, std::size_t(W) * H * 4 * sizeof(std::uint32_t));
            peelState.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_PEEL_STATE);
            peelLayers.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_PEEL_LAYER);
            peelLayer.setUniform("uTileSize", R);
            peelLayer.setUniform("uAtlasWidth", W);
            for (std::uint32_t pass = 0; pass < passes; ++pass) {
                peelLayers.clearZero(0, std::size_t(W) * H * 2 * sizeof(std::uint32_t));
                framebuffer.bind();
                rasterPeel.use();
                drawBatch();
                glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
                addCount(stats, "raster_passes", 1);
                peelLayer.use();
                peelLayer.setUniform("uLastPass", pass + 1 == passes ? 1u : 0u);
                peelLayer.dispatch((R + 7) / 8, (R + 7) / 8, n);
                glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
            }
            addCount(stats, "peeling_passes", passes);
        }
        glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
        if (conservativeRaster) glDisable(kConservativeRasterizationNv);
        glDisable(GL_DEPTH_CLAMP);
        gl::Framebuffer::bindDefault();
        stages.mark(2);

        // Collision rays (section 4, per-ray sort and sweep; "peeling" marked them per pass).
        if (!peeling) {
            resolve.use();
            if (sceneSampling) {
                pairTable.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_PAIRS);
                hits.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_HITS);
                resolve.setUniform("uPairMask", pairMask);
                resolve.setUniform("uTileFlagBase", tileFlagBase);
            }
            resolve.setUniform("uTileSize", R);
            resolve.setUniform("uAtlasWidth", W);
            resolve.dispatch((R + 7) / 8, (R + 7) / 8, n);
            glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
        }
        // Ray merging (section 5): levels 1..L of the bounding-box mipmap.
        mip.use();
        mip.setUniform("uTileSize", R);
        mip.setUniform("uPyramidStride", pyramidStride);
        std::uint32_t offset = 0, prevOffset = 0;
        for (int level = 1; level <= levels; ++level) {
            const std::uint32_t dim = R >> level;
            mip.setUniform("uLevel", static_cast<std::uint32_t>(level));
            mip.setUniform("uLevelOffset", offset);
            mip.setUniform("uPrevOffset", prevOffset);
            mip.dispatch((dim + 7) / 8, (dim + 7) / 8, n);
            glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
            prevOffset = offset;
            offset += dim * dim;
        }
        stages.mark(3);
        // Primitive separation (section 6), appended or into the sparse array.
        separate.setUniform("uRecordCapacity", static_cast<std::uint32_t>(recordCapacity));
        separate.use();
        separate.dispatch((items + 63) / 64);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
        stages.mark(4);

        const auto tr = Clock::now();
        counters.read(0, sizeof(counterValues), counterValues);
        readbackMs += msSince(tr);
        recordCount = counterValues[PEEL_COUNTER_RECORDS];
        if (!packing && recordCount > recordCapacity) {
            recordCapacity = std::size_t(recordCount) * 5 / 4 + 1024;
            continue;
        }
        break;
    }
    addCount(stats, "fragments", counterValues[PEEL_COUNTER_FRAGMENTS]);
    lastAtlas = {W, H, R, n, tilesX};

    // Compaction (sections 3, 7).
    if (!packing) {
        const auto tr = Clock::now();
        const std::size_t old = outRecords.size();
        outRecords.resize(old + recordCount);
        if (recordCount > 0) records.read(0, recordCount * sizeof(gl::PeelRecord), outRecords.data() + old);
        readbackMs += msSince(tr);
    } else {
        const std::uint32_t rows = (items + kPackRowWidth - 1) / kPackRowWidth;
        rowCounts.reserve(std::size_t(rows) * 4);
        rowOffsets.reserve(std::size_t(rows) * 4);
        rowCounts.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_ROW_COUNTS);
        records.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_RECORDS);
        timers.push_back(std::make_unique<SpanTimer>());
        timers.back()->start();
        packCount.setUniform("uRowWidth", kPackRowWidth);
        packCount.setUniform("uItemCount", items);
        packCount.use();
        packCount.dispatch((rows + 63) / 64);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
        timers.back()->stop();
        auto tr = Clock::now();
        std::vector<std::uint32_t> counts(rows);
        rowCounts.read<std::uint32_t>(0, counts);
        readbackMs += msSince(tr);
        std::vector<std::uint32_t> offsets(rows);
        std::exclusive_scan(counts.begin(), counts.end(), offsets.begin(), 0u);
        [[maybe_unused]] const std::uint32_t packedCount = rows == 0 ? 0 : offsets.back() + counts.back();
        ISC_ASSERT(packedCount == recordCount, "PeelDetector::runBatch(): packing lost records");
        if (recordCount > 0) {
            rowOffsets.upload<std::uint32_t>(0, offsets);
            packed.reserve(std::size_t(recordCount) * sizeof(gl::PeelRecord));
            rowOffsets.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_ROW_OFFSETS);
            packed.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_PACKED);
            timers.push_back(std::make_unique<SpanTimer>());
            timers.back()->start();
            packMove.setUniform("uRowWidth", kPackRowWidth);
            packMove.setUniform("uItemCount", items);
            packMove.use();
            packMove.dispatch((rows + 63) / 64);
            glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
            timers.back()->stop();
            tr = Clock::now();
            const std::size_t old = outRecords.size();
            outRecords.resize(old + recordCount);
            packed.read(0, std::size_t(recordCount) * sizeof(gl::PeelRecord), outRecords.data() + old);
            readbackMs += msSince(tr);
        }
    }
    // Owners in the records are batch-local: make them call-global.
    const std::uint32_t shift = sceneSampling ? firstSegment : 2 * firstTile;
    for (std::size_t i = outRecords.size() - recordCount; i < outRecords.size(); ++i) outRecords[i].tileSide += shift;

    addCount(stats, "collision_rays", counterValues[PEEL_COUNTER_COLLISION_RAYS]);
    addCount(stats, "overflow_rays", counterValues[PEEL_COUNTER_OVERFLOW_RAYS]);
    maxCount(stats, "max_depth_complexity", counterValues[PEEL_COUNTER_MAX_DEPTH]);
    addCount(stats, "triangles_read_back", recordCount);
    addCount(stats, "triangles_rasterized", counterValues[PEEL_COUNTER_RASTER_TRIANGLES] + wholeTriangles);
    if (auto e = gl::checkError("after peel batch"); !e) return e;
    return {};
}

void PeelDetector::Impl::uploadPairTable(std::span<const ObjectPair> candidates, std::span<const char> state) {
    // Open addressing, linear probing, at most half full; the hash matches peel_resolve.glsl.
    const std::size_t size = std::bit_ceil(std::max<std::size_t>(16, 2 * candidates.size()));
    std::vector<glm::uvec4> table(size, glm::uvec4(0xFFFFFFFFu, 0u, 0u, 0u));
    for (std::uint32_t c = 0; c < candidates.size(); ++c) {
        const ObjectPair p = candidates[c];
        if (state[p.a] != 1 || state[p.b] != 1 || (p.a == p.b && !common.selfCollision)) continue;
        const std::uint32_t lo = std::min(p.a, p.b), hi = std::max(p.a, p.b);
        std::uint32_t h = (lo * 0x9E3779B1u) ^ (hi * 0x85EBCA77u);
        h ^= h >> 15;
        for (std::uint32_t probe = 0;; ++probe) {
            glm::uvec4& e = table[(h + probe) & (size - 1)];
            if (e.x == 0xFFFFFFFFu) {
                e = glm::uvec4(lo, hi, c, 0u);
                break;
            }
            if (e.x == lo && e.y == hi) break;  // a repeated candidate: the first index wins
        }
    }
    pairMask = static_cast<std::uint32_t>(size - 1);
    pairTable.reserve(size * sizeof(glm::uvec4));
    pairTable.upload<glm::uvec4>(0, table);
}

void PeelDetector::Impl::makeSceneTiles(std::span<const ObjectPair> candidates, std::span<const char> state,
                                        std::span<const Aabb> bounds, std::vector<Tile>& out,
                                        DetectorStats& stats) const {
    const PeelSettings& st = settings;
    // Clusters: connected components of the candidate pairs whose boxes meet (the others
    // cannot collide). One view per cluster and axis over the union of its objects' boxes:
    // a pile is one view, far-apart groups get their own (pixels would be wasted between them).
    Clusters clusters(bounds.size());
    std::vector<char> member(bounds.size(), 0);
    for (const ObjectPair& p : candidates) {
        if (p.a == p.b && !common.selfCollision) continue;
        if (state[p.a] != 1 || state[p.b] != 1) continue;
        const Aabb& A = bounds[p.a];
        const Aabb& B = bounds[p.b];
        const float margin = 1e-4f * std::max(compMax(A.extent()), compMax(B.extent())) + 1e-6f;
        if (p.a != p.b && A.expanded(margin).intersection(B.expanded(margin)).isEmpty()) continue;
        member[p.a] = member[p.b] = 1;
        clusters.unite(p.a, p.b);
    }
    std::vector<std::vector<ObjectId>> groups;
    {
        std::vector<std::int64_t> groupOf(bounds.size(), -1);
        for (ObjectId o = 0; o < bounds.size(); ++o) {
            if (!member[o]) continue;
            const ObjectId r = clusters.find(o);
            if (groupOf[r] < 0) {
                groupOf[r] = std::int64_t(groups.size());
                groups.emplace_back();
            }
            groups[std::size_t(groupOf[r])].push_back(o);  // ascending object ids
        }
    }
    // Across the rays a view only needs the union of its pairs' box intersections (nothing
    // else can collide): a large ground under a pile would otherwise widen every view and
    // coarsen its pixels. Along the rays it keeps the union of the objects' boxes, so every
    // ray still starts and ends outside all of them.
    std::vector<Aabb> lateral(groups.size());
    {
        std::vector<std::int64_t> groupOfRoot(bounds.size(), -1);
        for (std::size_t g = 0; g < groups.size(); ++g) groupOfRoot[clusters.find(groups[g][0])] = std::int64_t(g);
        for (const ObjectPair& p : candidates) {
            if (p.a == p.b && !common.selfCollision) continue;
            if (state[p.a] != 1 || state[p.b] != 1 || !member[p.a] || !member[p.b]) continue;
            const std::int64_t g = groupOfRoot[clusters.find(p.a)];
            if (g < 0) continue;
            const Aabb& A = bounds[p.a];
            const Aabb& B = bounds[p.b];
            const float margin = 1e-4f * std::max(compMax(A.extent()), compMax(B.extent())) + 1e-6f;
            const Aabb meet = p.a == p.b ? A : A.expanded(margin).intersection(B.expanded(margin));
            if (!meet.isEmpty()) lateral[std::size_t(g)].grow(meet);
        }
    }
    const int axisCount = st.axes == 3 ? 3 : 1;
    double coarsened = 0;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        const std::vector<ObjectId>& group = groups[g];
        Aabb box;
        float objectSize = std::numeric_limits<float>::max();
        for (ObjectId o : group) {
            box.grow(bounds[o]);
            objectSize = std::min(objectSize, std::max(compMax(bounds[o].extent()), 1e-20f));
        }
        const float size = compMax(box.extent());
        box = box.expanded(1e-4f * size + 1e-6f);
        const Aabb across = lateral[g].expanded(1e-4f * size + 1e-6f);
        for (int ai = 0; ai < axisCount; ++ai) {
            const int axis = axisCount == 1 ? 2 : ai;
            Vec3 dir(0.0f), up(0.0f);
            dir[axis] = 1.0f;
            up[(axis + 1) % 3] = 1.0f;
            const Vec3 centre = box.center();
            const Mat4 view = glm::lookAt(centre + dir, centre, up);
            auto eyeBox = [&](const Aabb& b) {
                Aabb e;
                for (int k = 0; k < 8; ++k)
                    e.grow(Vec3(view * Vec4(k & 1 ? b.max.x : b.min.x, k & 2 ? b.max.y : b.min.y,
                                            k & 4 ? b.max.z : b.min.z, 1.0f)));
                return e;
            };
            // x, y (across the rays) from the pairs' intersections; z (along) from all objects.
            const Aabb all = eyeBox(box);
            Aabb eye = eyeBox(across.isEmpty() ? box : across);
            eye.min.z = all.min.z;
            eye.max.z = all.max.z;
            // Pixel size: settings.resolution pixels across the smallest object of the view.
            float pixel = objectSize / float(st.resolution);
            const float longest = std::max(eye.extent().x, eye.extent().y);
            if (longest / pixel > kMaxViewSide) {
                pixel = longest / kMaxViewSide;
                coarsened += 1;
            }
            const auto wide = static_cast<std::uint32_t>(std::ceil(eye.extent().x / pixel));
            const auto high = static_cast<std::uint32_t>(std::ceil(eye.extent().y / pixel));
            // Square tiles as large as the view's shorter side (an elongated view becomes a
            // row of tiles, not one mostly empty square), at most kMaxSceneTile.
            // (At most about four tiles along the long side: a thin slab of intersection
            // boxes gets wider tiles, not many small ones that each draw the objects.)
            const std::uint32_t shortSide = std::max({std::min(wide, high), (std::max(wide, high) + 3u) / 4u, 1u});
            const std::uint32_t side = std::clamp<std::uint32_t>(std::bit_ceil(shortSide), 16u, kMaxSceneTile);
            const std::uint32_t gx = (wide + side - 1) / side, gy = (high + side - 1) / side;
            const float span = float(side) * pixel;
            // Depth range: the view box (every ray starts and ends outside all objects).
            const float zNear = -eye.max.z - 0.01f * size, zFar = -eye.min.z + 0.01f * size;
            std::vector<Aabb> objectEye(group.size());
            for (std::size_t i = 0; i < group.size(); ++i) objectEye[i] = eyeBox(bounds[group[i]]);
            for (std::uint32_t j = 0; j < std::max(gy, 1u); ++j)
                for (std::uint32_t i = 0; i < std::max(gx, 1u); ++i) {
                    const float x0 = eye.min.x + float(i) * span, y0 = eye.min.y + float(j) * span;
                    Tile t;
                    t.axis = axis;
                    t.size = side;
                    for (std::size_t k = 0; k < group.size(); ++k) {
                        const Aabb& e = objectEye[k];
                        if (e.max.x < x0 || e.min.x > x0 + span || e.max.y < y0 || e.min.y > y0 + span) continue;
                        t.objects.push_back(group[k]);
                        // A pixel of margin: the cull's round-off guard is not needed inside.
                        t.whole.push_back(e.min.x >= x0 + pixel && e.max.x <= x0 + span - pixel && e.min.y >= y0 + pixel &&
                                          e.max.y <= y0 + span - pixel);
                    }
                    if (t.objects.size() < 2 && !common.selfCollision) continue;
                    if (t.objects.empty()) continue;
                    const Mat4 proj = glm::ortho(x0, x0 + span, y0, y0 + span, zNear, zFar);
                    t.gpu.viewProj = proj * view;
                    t.gpu.objectA = t.gpu.objectB = 0xFFFFFFFFu;
                    t.gpu.flags = PEEL_TILE_SCENE | (st.openMeshes ? PEEL_TILE_OPEN : 0u) |
                                  (st.depthProximity ? PEEL_TILE_PROXIMITY : 0u);
                    t.gpu.depthEpsilon = (st.openMeshes ? 4.0f : 1.0f) * pixel / std::max(zFar - zNear, 1e-20f);
                    out.push_back(std::move(t));
                }
        }
    }
    stats.count("views", double(groups.size() * std::size_t(axisCount)));
    stats.count("coarsened_views", coarsened);
}

PeelDetector::PeelDetector(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PeelDetector::~PeelDetector() = default;

bool PeelDetector::needsClosedMeshes() const { return !impl_->settings.openMeshes; }

std::vector<DetectorDebugView> PeelDetector::debugViews() const {
    const Impl::LastAtlas& a = impl_->lastAtlas;
    if (a.tiles == 0) return {};
    const int w = static_cast<int>(a.width), h = static_cast<int>(a.height);
    std::vector<DetectorDebugView> views;
    if (!impl_->peeling)  // "peeling" reuses the counts buffer per pass
        views.push_back({"fragments per pixel",
                         "depth complexity of each ray of the last batch's atlas (section 4): fragments of every "
                         "object drawn into the tile",
                         impl_->heads.id(), 0, DetectorDebugView::Format::Counts, w, h});
    views.push_back({"collision rays",
                     "rays that enter one object while inside another (section 4), before ray merging (section 5)",
                     impl_->mask.id(), 0, DetectorDebugView::Format::TileBits, w, h, static_cast<int>(a.tileSize),
                     static_cast<int>(a.tiles), static_cast<int>(a.tilesPerRow)});
    return views;
}

Result<void> PeelDetector::detect(const Scene& scene, std::span<const ObjectPair> candidates,
                                  DetectionOutput& out) {
    const auto t0 = Clock::now();
    out.clear();
    Impl& im = *impl_;
    im.lastAtlas = {};
    const PeelSettings& st = im.settings;
    DetectorStats& stats = out.stats;
    double cpuMs = 0.0, readbackMs = 0.0, gpuMs = 0.0;

    for (const ObjectPair& p : candidates)
        if (p.a >= scene.objectCount() || p.b >= scene.objectCount())
            return fail("PeelDetector::detect(): candidate pair (" + std::to_string(p.a) + ", " +
                        std::to_string(p.b) + ") names an object the scene does not have");

    // Objects taking part: exact world boxes (float, from the vertices), skip bad ones.
    const auto tc = Clock::now();
    std::vector<char> state(scene.objectCount(), 0);  // 0 unused, 1 ok, 2 skipped
    std::vector<Aabb> bounds(scene.objectCount());
    for (const ObjectPair& p : candidates) {
        if (p.a == p.b && !im.common.selfCollision) continue;
        for (ObjectId o : {p.a, p.b}) {
            if (state[o] != 0) continue;
            state[o] = 1;
            if (!scene.isActive(o)) {
                state[o] = 2;
            } else if (!scene.pose(o).isFinite()) {
                state[o] = 2;
                stats.warnings.push_back("object " + std::to_string(o) +
                                         " has a non-finite pose (NaN or Inf): skipped this step");
            } else if (!st.openMeshes && !scene.objectMesh(o).isClosed()) {
                state[o] = 3;
                stats.warnings.push_back("object " + std::to_string(o) + " has an open mesh (" +
                                         scene.objectMesh(o).report().describe() +
                                         "): peel needs closed meshes unless openMeshes is set; its pairs are "
                                         "returned unserved (the dispatcher sends them to the exact path)");
            }
        }
    }
    for (const ObjectPair& p : candidates)
        if ((p.a != p.b || im.common.selfCollision) && (state[p.a] == 3 || state[p.b] == 3)) out.unserved.push_back(p);
    stats.count("unserved_pairs", double(out.unserved.size()));
    {
        std::vector<ObjectId> live;
        for (ObjectId o = 0; o < scene.objectCount(); ++o)
            if (state[o] == 1) live.push_back(o);
#pragma omp parallel for schedule(dynamic, 4)
        for (std::size_t i = 0; i < live.size(); ++i) {
            const Pose& pose = scene.pose(live[i]);
            for (const Vec3& v : scene.localVertices(live[i])) bounds[live[i]].grow(pose.apply(v));
        }
    }

    // Tiles: scene sampling (views per axis and cluster, cut into tiles) or one per
    // (candidate pair, axis).
    std::vector<Tile> tiles;
    const int axisCount = st.axes == 3 ? 3 : 1;
    if (im.sceneSampling) im.makeSceneTiles(candidates, state, bounds, tiles, stats);
    for (std::uint32_t c = 0; c < (im.sceneSampling ? 0u : candidates.size()); ++c) {
        const ObjectPair p = candidates[c];
        if (p.a == p.b && !im.common.selfCollision) continue;
        if (state[p.a] != 1 || state[p.b] != 1) continue;
        const Aabb& A = bounds[p.a];
        const Aabb& B = bounds[p.b];
        const Vec3 ext = glm::max(A.extent(), B.extent());
        const float size = std::max(ext.x, std::max(ext.y, ext.z));
        auto longest = [](const Aabb& b) { return std::max(b.extent().x, std::max(b.extent().y, b.extent().z)); };
        const float objectSize = std::max(std::min(longest(A), longest(B)), 1e-20f);
        const float margin = 1e-4f * size + 1e-6f;
        const Aabb across = p.a == p.b ? A.expanded(margin) : A.expanded(margin).intersection(B.expanded(margin));
        if (across.isEmpty()) continue;
        Aabb along = A;
        along.grow(B);
        along = along.expanded(margin + 0.01f * size);
        for (int ai = 0; ai < axisCount; ++ai) {
            const int axis = axisCount == 1 ? 2 : ai;
            // View along -axis; screen axes as glm::lookAt makes them (right-handed, so GL's
            // CCW front faces are the meshes' outward faces).
            Vec3 dir(0.0f), up(0.0f);
            dir[axis] = 1.0f;
            up[(axis + 1) % 3] = 1.0f;
            Aabb box = across;
            box.min[axis] = along.min[axis];
            box.max[axis] = along.max[axis];
            const Vec3 centre = box.center();
            const Mat4 view = glm::lookAt(centre + dir, centre, up);
            Aabb eye;
            for (int k = 0; k < 8; ++k)
                eye.grow(Vec3(view * Vec4(k & 1 ? box.max.x : box.min.x, k & 2 ? box.max.y : box.min.y,
                                          k & 4 ? box.max.z : box.min.z, 1.0f)));
            const Mat4 proj = glm::ortho(eye.min.x, eye.max.x, eye.min.y, eye.max.y, -eye.max.z, -eye.min.z);
            Tile t;
            t.candidate = c;
            t.axis = axis;
            t.gpu.viewProj = proj * view;
            t.gpu.objectA = p.a;
            t.gpu.objectB = p.b;
            t.objects = p.a == p.b ? std::vector<ObjectId>{p.a} : std::vector<ObjectId>{p.a, p.b};
            t.gpu.flags = (p.a == p.b ? PEEL_TILE_SELF : 0u) | (st.openMeshes ? PEEL_TILE_OPEN : 0u) |
                          (st.depthProximity ? PEEL_TILE_PROXIMITY : 0u);
            // Tile side: settings.resolution pixels across the smaller object, so a small
            // window (shallow contact) gets a small tile with the same pixel size.
            const float window = std::max(eye.extent().x, eye.extent().y);
            const float wanted = std::ceil(float(st.resolution) * window / objectSize);
            t.size = std::clamp<std::uint32_t>(std::bit_ceil(static_cast<std::uint32_t>(std::min(wanted, 1e6f))),
                                               std::min(16, st.resolution), static_cast<std::uint32_t>(st.resolution));
            // Proximity: one pixel (the larger side), or four for open meshes, in depth units.
            const float pixel = window / float(t.size);
            t.gpu.depthEpsilon = (st.openMeshes ? 4.0f : 1.0f) * pixel / std::max(eye.extent().z, 1e-20f);
            tiles.push_back(t);
        }
    }
    cpuMs += msSince(tc);
    stats.count("cpu_setup_ms", msSince(tc));
    stats.count("tiles", double(tiles.size()));
    stats.count("conservative_raster", im.conservativeRaster ? 1.0 : 0.0);
    if (st.conservativeRaster && !im.conservativeRaster)
        stats.warnings.push_back("conservativeRaster: the driver has no GL_NV_conservative_raster; rasterized normally");

    std::vector<gl::PeelRecord> records;
    std::vector<SegmentRef> segments;
    std::vector<std::uint32_t> hitFlags;  // scene sampling: per candidate, then per tile
    if (!tiles.empty()) {
        const auto tu = Clock::now();
        im.scene.sync(scene);
        if (im.sceneSampling) {
            im.uploadPairTable(candidates, state);
            im.hits.reserve((candidates.size() + tiles.size()) * sizeof(std::uint32_t));
            im.hits.clearZero(0, (candidates.size() + tiles.size()) * sizeof(std::uint32_t));
        }
        cpuMs += msSince(tu);
        stats.count("cpu_upload_ms", msSince(tu));
        im.timers.clear();
        im.stageTimersUsed = 0;
        // Batches of equal-size tiles (largest first).
        std::stable_sort(tiles.begin(), tiles.end(), [](const Tile& x, const Tile& y) { return x.size > y.size; });
        const std::size_t atlasPixels = kMaxAtlasPixels;
        for (std::size_t first = 0, count = 0; first < tiles.size(); first += count) {
            const std::size_t side = tiles[first].size;
            const std::size_t perBatch = std::max<std::size_t>(
                1, std::min(atlasPixels / (side * side), (kMaxAtlasSide / side) * (kMaxAtlasSide / side)));
            count = 0;
            while (first + count < tiles.size() && count < perBatch && tiles[first + count].size == side) ++count;
            if (auto r = im.runBatch(std::span<const Tile>(tiles).subspan(first, count),
                                     static_cast<std::uint32_t>(first),
                                     static_cast<std::uint32_t>(candidates.size() + first), segments, records, stats,
                                     readbackMs);
                !r)
                return r;
        }
        if (im.sceneSampling) {
            const auto tr = Clock::now();
            hitFlags.resize(candidates.size() + tiles.size());
            im.hits.read<std::uint32_t>(0, hitFlags);
            readbackMs += msSince(tr);
        }
        for (const auto& t : im.timers) gpuMs += t->elapsedMs();
        double stageMs[kStages] = {};
        for (std::size_t i = 0; i < im.stageTimersUsed; ++i)
            for (int k = 0; k < kStages; ++k) stageMs[k] += im.stageTimers[i]->stageMs(k);
        for (int k = 0; k < kStages; ++k) {
            gpuMs += stageMs[k];
            stats.count(kStageCounters[k], stageMs[k]);
        }
        if (auto e = gl::checkError("after peel read-back"); !e) return e;
    }

    // CPU narrowphase (section 7): which record lists are swept against which.
    const auto tn = Clock::now();
    std::vector<PeelNarrowphase::Work> work;
    std::uint32_t ownerCount = 0;
    if (!im.sceneSampling) {
        ownerCount = static_cast<std::uint32_t>(2 * tiles.size());
        for (std::uint32_t t = 0; t < tiles.size(); ++t)
            work.push_back({tiles[t].candidate, 2 * t, tiles[t].objects.size() == 1 ? 2 * t : 2 * t + 1});
    } else if (!tiles.empty()) {
        // Per tile, its segments are contiguous and sorted by object: find (tile, object).
        ownerCount = static_cast<std::uint32_t>(segments.size());
        std::vector<std::uint32_t> tileFirst(tiles.size() + 1, 0);
        for (const SegmentRef& sg : segments) ++tileFirst[sg.tile + 1];
        for (std::size_t t = 0; t < tiles.size(); ++t) tileFirst[t + 1] += tileFirst[t];
        auto segmentOf = [&](std::uint32_t t, ObjectId o) -> std::int64_t {
            const auto b = segments.begin() + tileFirst[t], e = segments.begin() + tileFirst[t + 1];
            const auto it = std::lower_bound(b, e, o, [](const SegmentRef& x, ObjectId v) { return x.object < v; });
            return it != e && it->object == o ? std::int64_t(it - segments.begin()) : -1;
        };
        // Tiles of each object (ascending), to meet the pair's common tiles.
        std::vector<std::vector<std::uint32_t>> tilesOfObject(scene.objectCount());
        for (const SegmentRef& sg : segments) tilesOfObject[sg.object].push_back(sg.tile);
        double hitPairs = 0;
        for (std::uint32_t c = 0; c < candidates.size(); ++c) {
            const ObjectPair p = candidates[c];
            hitPairs += hitFlags[c] ? 1 : 0;
            const auto& ta = tilesOfObject[p.a];
            const auto& tb = tilesOfObject[p.b];
            for (std::size_t i = 0, j = 0; i < ta.size() && j < tb.size();) {
                if (ta[i] < tb[j]) { ++i; continue; }
                if (tb[j] < ta[i]) { ++j; continue; }
                const std::uint32_t t = ta[i];
                ++i, ++j;
                // Only pairs with a collision ray, or any pair of a tile whose rays overflowed the cap.
                if (!hitFlags[c] && !hitFlags[candidates.size() + t]) continue;
                const std::int64_t sa = segmentOf(t, p.a), sb = segmentOf(t, p.b);
                if (sa >= 0 && sb >= 0) work.push_back({c, std::uint32_t(sa), std::uint32_t(sb)});
            }
        }
        stats.count("pairs_with_collision_rays", hitPairs);
    }
    im.narrowphase.run(scene, candidates, ownerCount, records, work, im.common.wantSegments, out);
    cpuMs += msSince(tn);
    stats.count("cpu_narrowphase_ms", msSince(tn));

    stats.gpuMs = gpuMs;
    stats.readbackMs = readbackMs;
    stats.cpuMs = cpuMs;
    stats.totalMs = msSince(t0);
    return {};
}

Result<std::unique_ptr<Detector>> createPeelDetector(const DetectorSettings& common, const PeelSettings& settings) {
    const int r = settings.resolution;
    if (r < 16 || r > 4096 || !std::has_single_bit(static_cast<unsigned>(r)))
        return fail("createPeelDetector(): resolution " + std::to_string(r) +
                    " is not a power of two in [16, 4096]; use e.g. 256 or 512");
    if (settings.axes != 1 && settings.axes != 3)
        return fail("createPeelDetector(): axes must be 1 (z) or 3 (x, y, z), got " + std::to_string(settings.axes));
    if (settings.compaction != "auto" && settings.compaction != "atomic" && settings.compaction != "packing")
        return fail("createPeelDetector(): compaction \"" + settings.compaction +
                    "\" is unknown; use \"auto\", \"atomic\" or \"packing\"");
    if (settings.sampling != "auto" && settings.sampling != "scene" && settings.sampling != "pairs" &&
        settings.sampling != "peeling")
        return fail("createPeelDetector(): sampling \"" + settings.sampling +
                    "\" is unknown; use \"auto\", \"scene\", \"pairs\" or \"peeling\"");
    if (settings.sampling == "peeling" && settings.openMeshes)
        return fail("createPeelDetector(): sampling \"peeling\" needs closed meshes (its facing test is the "
                    "paper's section 4.1 rule); use sampling \"pairs\" or \"scene\" with openMeshes");
    if (settings.maxLayers < 2 || settings.maxLayers > 128)
        return fail("createPeelDetector(): maxLayers " + std::to_string(settings.maxLayers) +
                    " is outside [2, 128]");
    if (glad_glCreateBuffers == nullptr)
        return fail("createPeelDetector(): no current GL context; create one with isc::gl::Context first");
    auto impl = std::make_unique<PeelDetector::Impl>();
    impl->common = common;
    impl->settings = settings;
    impl->packing = settings.compaction == "packing";
    impl->sceneSampling = settings.sampling != "pairs" && settings.sampling != "peeling";
    impl->peeling = settings.sampling == "peeling";
    impl->conservativeRaster = settings.conservativeRaster && hasGlExtension("GL_NV_conservative_raster");
    if (auto c = impl->compile(); !c) return fail(c.error().message);
    return std::unique_ptr<Detector>(new PeelDetector(std::move(impl)));
}

namespace detectors {

DetectorInfo peelInfo() {
    DetectorInfo d;
    d.name = "peel";
    d.summary = "depth peeling: collision rays, ray-bundle mipmap, exact CPU narrowphase (Georgii, Krueger & Westermann)";
    d.usesGl = true;
    d.needsClosedMeshes = !PeelSettings{}.openMeshes;
    d.reportsTrianglePairs = true;
    d.settings = describeSettings<PeelSettings>();
    d.extensions = {{"GL_NV_conservative_raster", "conservativeRaster=true: every pixel a triangle touches is sampled"}};
    d.create = [](const DetectorSettings& common) -> Result<std::unique_ptr<Detector>> {
        PeelSettings settings;
        if (auto r = applyOptions(settings, common.options, "peel"); !r) return fail(r.error().message);
        return createPeelDetector(common, settings);
    };
    return d;
}

}  // namespace detectors

}  // namespace isc
