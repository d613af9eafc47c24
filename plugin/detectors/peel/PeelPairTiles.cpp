#include "PeelPairTiles.h"

#include "isc/core/Assert.h"
#include "isc/gl/Bindings.h"
#include "isc/scene/Scene.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

namespace isc::peel {

namespace {

// Atlas pixels per raster pass: bounds the per-pixel slots (maxLayers x 4 bytes each).
constexpr std::size_t kMaxAtlasPixels = std::size_t(2048) * 2048;
// Side of the atlas in pixels (every GL 4.5 driver supports 16384).
constexpr int kMaxAtlasSide = 8192;
// GL_NV_conservative_raster's enable (GL_CONSERVATIVE_RASTERIZATION_NV).
constexpr GLenum kConservativeRasterizationNv = 0x9346;
// Rows of the sparse record array in packing mode.
constexpr std::uint32_t kPackRowWidth = 1024;
// Stages of the GPU clock.
enum Stage { kStageCull, kStageRaster, kStageRays, kStageSeparate, kStagePacking, kStageCount };
constexpr const char* kStageNames[kStageCount] = {"gpu_cull_ms", "gpu_raster_ms", "gpu_resolve_mip_ms",
                                                  "gpu_separate_ms", "gpu_packing_ms"};

// DetectorStats::count sets; these add or keep the maximum over a call's batches.
void addCount(DetectorStats& stats, std::string_view name, double value) {
    stats.count(name, stats.counter(name) + value);
}
void maxCount(DetectorStats& stats, std::string_view name, double value) {
    stats.count(name, std::max(stats.counter(name), value));
}

}  // namespace

Result<void> PeelPairTilePass::create(const PeelSettings& settings, const DetectorSettings& common,
                                      bool conservativeRaster) {
    settings_ = settings;
    common_ = common;
    packing_ = settings.compaction == "packing";
    peeling_ = settings.sampling == "peeling";
    conservativeRaster_ = conservativeRaster;
    const std::string layers = "#define MAX_LAYERS " + std::to_string(settings.maxLayers) + "\n";
    auto k = gl::Program::create({{GL_COMPUTE_SHADER, "peel/cull.glsl"}}, {}, "peel cull");
    if (!k) return fail(k.error().message);
    cull_ = std::move(*k);
    if (!peeling_) {
        auto r = gl::Program::create({{GL_VERTEX_SHADER, "peel/raster.vert.glsl"},
                                      {GL_FRAGMENT_SHADER, "peel/raster.frag.glsl"}},
                                     layers, "peel raster");
        if (!r) return fail(r.error().message);
        raster_ = std::move(*r);
    } else {
        auto rc = gl::Program::create({{GL_VERTEX_SHADER, "peel/raster.vert.glsl"},
                                       {GL_FRAGMENT_SHADER, "peel/raster.frag.glsl"}},
                                      layers + "#define PEEL_COUNT 1\n", "peel raster (counting pass)");
        if (!rc) return fail(rc.error().message);
        rasterCount_ = std::move(*rc);
        auto rp = gl::Program::create({{GL_VERTEX_SHADER, "peel/raster.vert.glsl"},
                                       {GL_FRAGMENT_SHADER, "peel/raster.frag.glsl"}},
                                      layers + "#define PEEL_PEEL 1\n", "peel raster (peeling pass)");
        if (!rp) return fail(rp.error().message);
        rasterPeel_ = std::move(*rp);
        auto dm = gl::Program::create({{GL_COMPUTE_SHADER, "peel/depth_max.glsl"}}, layers, "peel depth max");
        if (!dm) return fail(dm.error().message);
        depthMax_ = std::move(*dm);
        auto pl = gl::Program::create({{GL_COMPUTE_SHADER, "peel/layer.glsl"}}, layers, "peel layer");
        if (!pl) return fail(pl.error().message);
        peelLayer_ = std::move(*pl);
    }
    auto s = gl::Program::create({{GL_COMPUTE_SHADER, "peel/resolve.glsl"}}, layers, "peel resolve");
    if (!s) return fail(s.error().message);
    resolve_ = std::move(*s);
    auto m = gl::Program::create({{GL_COMPUTE_SHADER, "peel/mip.glsl"}}, {}, "peel mip");
    if (!m) return fail(m.error().message);
    mip_ = std::move(*m);
    auto p = gl::Program::create({{GL_COMPUTE_SHADER, "peel/separate.glsl"}},
                                 packing_ ? "#define COMPACT_PACKING 1\n" : "#define COMPACT_ATOMIC 1\n",
                                 "peel separate");
    if (!p) return fail(p.error().message);
    separate_ = std::move(*p);
    if (packing_) {
        auto c = gl::Program::create({{GL_COMPUTE_SHADER, "peel/pack_count.glsl"}}, {}, "peel pack count");
        if (!c) return fail(c.error().message);
        packCount_ = std::move(*c);
        auto v = gl::Program::create({{GL_COMPUTE_SHADER, "peel/pack_move.glsl"}}, {}, "peel pack move");
        if (!v) return fail(v.error().message);
        packMove_ = std::move(*v);
    }
    vao_ = gl::VertexArray("peel vao");
    framebuffer_ = gl::Framebuffer("peel atlas (no attachments)");
    counters_.allocate(PEEL_COUNTER_COUNT * sizeof(std::uint32_t));
    return {};
}

Result<void> PeelPairTilePass::run(const Scene& scene, gl::GpuScene& gpu, std::span<const ObjectPair> candidates,
                                   const CallObjects& objects, DetectionOutput& out) {
    DetectorStats& stats = out.stats;
    const auto tc = Clock::now();
    std::vector<Tile> tiles = makePairTiles(candidates, objects, settings_, common_.selfCollision);
    stats.count("tiles", double(tiles.size()));
    stats.cpuMs += msSince(tc);
    stats.count("cpu_setup_ms", msSince(tc));
    std::vector<gl::PeelRecord> records;
    double readbackMs = 0.0;
    if (!tiles.empty()) {
        const auto tu = Clock::now();
        gpu.sync(scene);
        stats.cpuMs += msSince(tu);
        stats.count("cpu_upload_ms", msSince(tu));
        clock_.reset();
        // Batches of equal-size tiles (largest first).
        std::stable_sort(tiles.begin(), tiles.end(), [](const Tile& x, const Tile& y) { return x.size > y.size; });
        for (std::size_t first = 0, count = 0; first < tiles.size(); first += count) {
            const std::size_t side = tiles[first].size;
            const std::size_t perBatch = std::max<std::size_t>(
                1, std::min(kMaxAtlasPixels / (side * side), (kMaxAtlasSide / side) * (kMaxAtlasSide / side)));
            count = 0;
            while (first + count < tiles.size() && count < perBatch && tiles[first + count].size == side) ++count;
            if (auto r = runBatch(gpu, std::span<const Tile>(tiles).subspan(first, count),
                                  static_cast<std::uint32_t>(first), records, stats, readbackMs);
                !r)
                return r;
        }
        const std::vector<double> stageMs = clock_.totals(kStageCount);
        double gpuMs = 0;
        for (int k = 0; k < kStageCount; ++k) {
            gpuMs += stageMs[std::size_t(k)];
            stats.count(kStageNames[k], stageMs[std::size_t(k)]);
        }
        stats.gpuMs = gpuMs;
        if (auto e = gl::checkError("after peel read-back"); !e) return e;
    }
    stats.readbackMs += readbackMs;
    // CPU narrowphase (section 7): each tile's two record lists swept against each other.
    const auto tn = Clock::now();
    std::vector<PeelNarrowphase::Work> work;
    const auto ownerCount = static_cast<std::uint32_t>(2 * tiles.size());
    for (std::uint32_t t = 0; t < tiles.size(); ++t)
        work.push_back({tiles[t].candidate, 2 * t, tiles[t].objects.size() == 1 ? 2 * t : 2 * t + 1});
    narrowphase_.run(scene, candidates, ownerCount, records, work, common_.wantSegments, out);
    stats.cpuMs += msSince(tn);
    stats.count("cpu_narrowphase_ms", msSince(tn));
    return {};
}

Result<void> PeelPairTilePass::runBatch(const gl::GpuScene& scene, std::span<const Tile> batch, std::uint32_t firstTile,
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

    // Tiles, draws (one per object per tile) and segments (triangle ranges for separation).
    std::vector<gl::PeelTile> tileData(n);
    std::vector<gl::PeelDraw> drawData;
    std::vector<gl::DrawElementsIndirectCommand> commands;
    std::vector<gl::PeelSegment> segmentData;
    std::uint32_t items = 0, indexRegion = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        tileData[i] = batch[i].gpu;
        tileData[i].originX = (i % tilesX) * R;
        tileData[i].originY = (i / tilesX) * R;
        for (std::uint32_t side = 0; side < batch[i].objects.size(); ++side) {
            const ObjectId o = batch[i].objects[side];
            const gl::ObjectRange& range = scene.object(o);
            const auto draw = static_cast<std::uint32_t>(drawData.size());
            // count is written by peel/cull.glsl; indices there are absolute (baseVertex 0).
            commands.push_back({0, 1, indexRegion, 0, draw});
            indexRegion += 3 * range.triangleCount;
            drawData.push_back({i, side, o, 0});
            segmentData.push_back({items, i, side, o});
            items += range.triangleCount;
        }
    }
    tiles_.assign(tileData);
    draws_.assign(drawData);
    indirect_.assign(commands);
    segments_.assign(segmentData);
    if (drawIds_.reserveSequence(static_cast<std::uint32_t>(drawData.size()))) {
        vao_.setVertexBuffer(0, drawIds_, 0, sizeof(std::uint32_t), 1);
        vao_.setIntegerAttribute(PEEL_ATTRIB_DRAW_ID, 0, 1, GL_UNSIGNED_INT);
    }
    culled_.reserve(std::size_t(std::max(indexRegion, 3u)) * sizeof(std::uint32_t));
    vao_.setElementBuffer(culled_);

    const std::uint32_t maskWords = (R * R + 31) / 32;
    heads_.reserve(std::size_t(W) * H * sizeof(std::uint32_t));
    mask_.reserve(std::size_t(n) * maskWords * sizeof(std::uint32_t));
    pyramid_.reserve(std::size_t(n) * pyramidStride * 8);

    scene.bind();
    tiles_.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_TILES);
    draws_.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_DRAWS);
    heads_.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_HEADS);
    counters_.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_COUNTERS);
    mask_.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_MASK);
    pyramid_.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_PYRAMID);
    segments_.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_SEGMENTS);

    // Passes of one batch. The counters are read once, after separation (one CPU-GPU sync
    // per batch on the atomic path); a record buffer that was too small is grown and the
    // batch redone (the next calls keep the larger buffer).
    std::uint32_t counterValues[PEEL_COUNTER_COUNT] = {};
    std::uint32_t recordCount = 0;
    separate_.setUniform("uTileSize", R);
    separate_.setUniform("uLevels", static_cast<std::uint32_t>(levels));
    separate_.setUniform("uPyramidStride", pyramidStride);
    separate_.setUniform("uSegmentCount", static_cast<std::uint32_t>(segmentData.size()));
    separate_.setUniform("uItemCount", items);
    for (;;) {
        if (!peeling_) {
            nodes_.reserve(std::size_t(W) * H * std::size_t(settings_.maxLayers) *
                          sizeof(std::uint32_t));
            nodes_.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_NODES);
        }
        if (!packing_) records_.reserve(recordCapacity_ * sizeof(gl::PeelRecord));
        else records_.reserve(std::size_t(items) * sizeof(gl::PeelRecord));
        records_.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_RECORDS);
        indirect_.upload<gl::DrawElementsIndirectCommand>(0, commands);  // counts back to 0
        mask_.clearZero(0, std::size_t(n) * maskWords * sizeof(std::uint32_t));
        heads_.clearZero(0, std::size_t(W) * H * sizeof(std::uint32_t));
        counters_.clearZero();

        clock_.mark(kStageCull);
        // Cull: per tile, only the triangles inside its window are drawn.
        culled_.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_CULLED);
        indirect_.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_COMMANDS);
        cull_.setUniform("uSegmentCount", static_cast<std::uint32_t>(segmentData.size()));
        cull_.setUniform("uItemCount", items);
        cull_.use();
        cull_.dispatch((items + 63) / 64);
        glMemoryBarrier(GL_COMMAND_BARRIER_BIT | GL_ELEMENT_ARRAY_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
        clock_.mark(kStageRaster);

        // Object sampling (section 4): one raster pass for every tile of the batch,
        // fragments appended to per-pixel lists (sampling "peeling": the counting pass and
        // the peeling passes, each one raster pass of the whole batch).
        auto drawBatch = [&] {
            vao_.bind();
            indirect_.bind(GL_DRAW_INDIRECT_BUFFER);
            glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT, nullptr, static_cast<GLsizei>(commands.size()), 0);
        };
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
        for (gl::Program* program : {&raster_, &rasterCount_, &rasterPeel_}) {
            if (program->id() == 0) continue;
            program->setUniform("uTileSize", R);
            program->setUniform("uAtlasSize", glm::vec2(W, H));
            program->setUniform("uAtlasWidth", W);
        }
        if (!peeling_) {
            raster_.use();
            drawBatch();
            glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
            addCount(stats, "raster_passes", 1);
        } else {
            // Section 4.1: counting pass, depth complexity by a GPU max-reduction, read by
            // the CPU (it sets the number of passes), then ceil(layers / 2) passes peeling
            // from the front and from the back at once (section 4.2), each followed by the
            // per-ray facing test. Layers beyond maxLayers are not peeled: their rays are
            // marked colliding (the paper's conservative cap).
            rasterCount_.use();
            drawBatch();
            glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
            addCount(stats, "raster_passes", 1);
            depthMax_.use();
            depthMax_.setUniform("uTileSize", R);
            depthMax_.setUniform("uAtlasWidth", W);
            depthMax_.dispatch((R + 7) / 8, (R + 7) / 8, n);
            glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
            std::uint32_t depth = 0;
            const auto tr = Clock::now();
            counters_.read(PEEL_COUNTER_MAX_DEPTH * sizeof(std::uint32_t), sizeof(depth), &depth);
            readbackMs += msSince(tr);
            const std::uint32_t layersToPeel = std::min<std::uint32_t>(depth, static_cast<std::uint32_t>(settings_.maxLayers));
            const std::uint32_t passes = (layersToPeel + 1) / 2;
            peelState_.reserve(std::size_t(W) * H * 4 * sizeof(std::uint32_t));
            peelLayers_.reserve(std::size_t(W) * H * 2 * sizeof(std::uint32_t));
            peelState_.clearZero(0, std::size_t(W) * H * 4 * sizeof(std::uint32_t));
            peelState_.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_PEEL_STATE);
            peelLayers_.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_PEEL_LAYER);
            peelLayer_.setUniform("uTileSize", R);
            peelLayer_.setUniform("uAtlasWidth", W);
            for (std::uint32_t pass = 0; pass < passes; ++pass) {
                peelLayers_.clearZero(0, std::size_t(W) * H * 2 * sizeof(std::uint32_t));
                framebuffer_.bind();
                rasterPeel_.use();
                drawBatch();
                glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
                addCount(stats, "raster_passes", 1);
                peelLayer_.use();
                peelLayer_.setUniform("uLastPass", pass + 1 == passes ? 1u : 0u);
                peelLayer_.dispatch((R + 7) / 8, (R + 7) / 8, n);
                glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
            }
            addCount(stats, "peeling_passes", passes);
        }
        glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
        if (conservativeRaster_) glDisable(kConservativeRasterizationNv);
        glDisable(GL_DEPTH_CLAMP);
        gl::Framebuffer::bindDefault();
        clock_.mark(kStageRays);

        // Collision rays (section 4, per-ray sort and sweep; "peeling" marked them per pass).
        if (!peeling_) {
            resolve_.use();
            resolve_.setUniform("uTileSize", R);
            resolve_.setUniform("uAtlasWidth", W);
            resolve_.dispatch((R + 7) / 8, (R + 7) / 8, n);
            glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
        }
        // Ray merging (section 5): levels 1..L of the bounding-box mipmap.
        mip_.use();
        mip_.setUniform("uTileSize", R);
        mip_.setUniform("uPyramidStride", pyramidStride);
        std::uint32_t offset = 0, prevOffset = 0;
        for (int level = 1; level <= levels; ++level) {
            const std::uint32_t dim = R >> level;
            mip_.setUniform("uLevel", static_cast<std::uint32_t>(level));
            mip_.setUniform("uLevelOffset", offset);
            mip_.setUniform("uPrevOffset", prevOffset);
            mip_.dispatch((dim + 7) / 8, (dim + 7) / 8, n);
            glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
            prevOffset = offset;
            offset += dim * dim;
        }
        clock_.mark(kStageSeparate);
        // Primitive separation (section 6), appended or into the sparse array.
        separate_.setUniform("uRecordCapacity", static_cast<std::uint32_t>(recordCapacity_));
        separate_.use();
        separate_.dispatch((items + 63) / 64);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
        clock_.stop();

        const auto tr = Clock::now();
        counters_.read(0, sizeof(counterValues), counterValues);
        readbackMs += msSince(tr);
        recordCount = counterValues[PEEL_COUNTER_RECORDS];
        if (!packing_ && recordCount > recordCapacity_) {
            recordCapacity_ = std::size_t(recordCount) * 5 / 4 + 1024;
            continue;
        }
        break;
    }
    addCount(stats, "fragments", counterValues[PEEL_COUNTER_FRAGMENTS]);

    // Compaction (sections 3, 7).
    if (!packing_) {
        const auto tr = Clock::now();
        const std::size_t old = outRecords.size();
        outRecords.resize(old + recordCount);
        if (recordCount > 0) records_.read(0, recordCount * sizeof(gl::PeelRecord), outRecords.data() + old);
        readbackMs += msSince(tr);
    } else {
        const std::uint32_t rows = (items + kPackRowWidth - 1) / kPackRowWidth;
        rowCounts_.reserve(std::size_t(rows) * 4);
        rowOffsets_.reserve(std::size_t(rows) * 4);
        rowCounts_.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_ROW_COUNTS);
        records_.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_RECORDS);
        clock_.mark(kStagePacking);
        packCount_.setUniform("uRowWidth", kPackRowWidth);
        packCount_.setUniform("uItemCount", items);
        packCount_.use();
        packCount_.dispatch((rows + 63) / 64);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
        clock_.stop();
        auto tr = Clock::now();
        std::vector<std::uint32_t> counts(rows);
        rowCounts_.read<std::uint32_t>(0, counts);
        readbackMs += msSince(tr);
        std::vector<std::uint32_t> offsets(rows);
        std::exclusive_scan(counts.begin(), counts.end(), offsets.begin(), 0u);
        [[maybe_unused]] const std::uint32_t packedCount = rows == 0 ? 0 : offsets.back() + counts.back();
        ISC_ASSERT(packedCount == recordCount, "PeelPairTilePass::runBatch(): packing lost records");
        if (recordCount > 0) {
            rowOffsets_.upload<std::uint32_t>(0, offsets);
            packed_.reserve(std::size_t(recordCount) * sizeof(gl::PeelRecord));
            rowOffsets_.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_ROW_OFFSETS);
            packed_.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_PACKED);
            clock_.mark(kStagePacking);
            packMove_.setUniform("uRowWidth", kPackRowWidth);
            packMove_.setUniform("uItemCount", items);
            packMove_.use();
            packMove_.dispatch((rows + 63) / 64);
            glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
            clock_.stop();
            tr = Clock::now();
            const std::size_t old = outRecords.size();
            outRecords.resize(old + recordCount);
            packed_.read(0, std::size_t(recordCount) * sizeof(gl::PeelRecord), outRecords.data() + old);
            readbackMs += msSince(tr);
        }
    }
    // Owners in the records are batch-local: make them call-global.
    const std::uint32_t shift = 2 * firstTile;
    for (std::size_t i = outRecords.size() - recordCount; i < outRecords.size(); ++i) outRecords[i].tileSide += shift;

    addCount(stats, "collision_rays", counterValues[PEEL_COUNTER_COLLISION_RAYS]);
    addCount(stats, "overflow_rays", counterValues[PEEL_COUNTER_OVERFLOW_RAYS]);
    maxCount(stats, "max_depth_complexity", counterValues[PEEL_COUNTER_MAX_DEPTH]);
    addCount(stats, "triangles_read_back", recordCount);
    addCount(stats, "triangles_rasterized", counterValues[PEEL_COUNTER_RASTER_TRIANGLES]);
    if (auto e = gl::checkError("after peel batch"); !e) return e;
    return {};
}


}  // namespace isc::peel
