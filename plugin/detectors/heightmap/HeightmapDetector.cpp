#include "isc/detectors/HeightmapDetector.h"

#include "isc/detect/Registry.h"

#include "StaticEnvironment.h"

#include "isc/core/Assert.h"
#include "isc/gl/Bindings.h"
#include "isc/gl/Buffer.h"
#include "isc/gl/Framebuffer.h"
#include "isc/gl/Gl.h"
#include "isc/gl/GpuScene.h"
#include "isc/gl/Program.h"
#include "isc/gl/Query.h"
#include "isc/gl/ReadbackBuffer.h"
#include "isc/gl/Texture.h"
#include "isc/gl/VertexArray.h"

#include "heightmap/bindings.h"  // shaders/: HmView, HmDraw, HmSample

#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <utility>
#include <unordered_map>

namespace isc {

static_assert(sizeof(gl::HmView) == 160, "HmView must match its std430 layout");
static_assert(sizeof(gl::HmDraw) == 16, "HmDraw must match its std430 layout");
static_assert(sizeof(gl::HmSample) == 48, "HmSample must match its std430 layout");

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// Atlas pixels per batch: bounds the per-pixel slots (maxLayers x 4 bytes each) and columns.
constexpr std::size_t kMaxAtlasPixels = std::size_t(1024) * 1024;

// The atlas of a full batch of R x R tiles (runBatch's layout): what the per-pixel buffers and
// targets can ever need.
std::pair<std::uint32_t, std::uint32_t> fullBatchAtlas(std::uint32_t R) { return gl::fullBatchAtlas(R, kMaxAtlasPixels); }
using gl::grownSide;

void addCount(DetectorStats& stats, std::string_view name, double value) {
    stats.count(name, stats.counter(name) + value);
}

// GL_TIMESTAMP marks between the stages of one batch: object + resolve, environment, samples.
constexpr int kStages = 3;
constexpr const char* kStageCounters[kStages] = {"gpu_object_ms", "gpu_environment_ms", "gpu_samples_ms"};
struct StageTimer {
    gl::Query marks[kStages + 1] = {{"heightmap stage", GL_TIMESTAMP},
                                    {"heightmap stage", GL_TIMESTAMP},
                                    {"heightmap stage", GL_TIMESTAMP},
                                    {"heightmap stage", GL_TIMESTAMP}};
    void mark(int k) { glQueryCounter(marks[k].id(), GL_TIMESTAMP); }
    double stageMs(int k) const { return double(marks[k + 1].result() - marks[k].result()) * 1e-6; }
};

// Parses "+y", "-z", "x" into a unit axis vector.
bool parseAxis(std::string_view text, Vec3& out) {
    float sign = 1.0f;
    if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
        sign = text[0] == '-' ? -1.0f : 1.0f;
        text.remove_prefix(1);
    }
    if (text.size() != 1 || text[0] < 'x' || text[0] > 'z') return false;
    out = Vec3(0.0f);
    out[text[0] - 'x'] = sign;
    return true;
}

int axisOf(const Vec3& d) { return std::abs(d.x) > 0.5f ? 0 : std::abs(d.y) > 0.5f ? 1 : 2; }

// One environment object's triangles drawn into one view: which candidate pair it serves.
struct EnvDraw {
    std::uint32_t candidate = 0;
    bool envIsB = false;
};

// One view: a moving object seen along one direction, with its environment partners.
struct View {
    gl::HmView gpu{};
    ObjectId object = 0;
    Aabb worldBox;  // the view volume, world space
    std::uint32_t firstPartner = 0, partnerCount = 0;  // into the call's partner list
};

struct Partner {
    std::uint32_t candidate = 0;
    ObjectId env = 0;
    bool envIsB = false;
};

}  // namespace

struct HeightmapDetector::Impl {
    DetectorSettings common;
    HeightmapSettings settings;
    std::vector<Vec3> directions;  // projection directions; the first points against `up`
    gl::Program objectRaster, envRaster, envAbove, resolve, emitAll, reduceDeepest, reduceExtremes, reduceWinner, emitReduced;
    gl::GpuScene scene{"heightmap scene"};
    gl::VertexArray vaoObject, vaoEnv;
    gl::Framebuffer framebuffer, framebufferAbove;
    gl::Texture depth, ids, depthAbove, idsAbove;
    int textureWidth = 0, textureHeight = 0;
    gl::Buffer views{"heightmap views"}, draws{"heightmap draws"}, drawIds{"heightmap draw ids"},
        objectIndirect{"heightmap object draws"}, envIndirect{"heightmap environment draws"},
        envIndices{"heightmap environment indices"}, triangleIds{"heightmap triangle ids"},
        counts{"heightmap counts"}, slots{"heightmap slots"}, columns{"heightmap columns"}, flags{"heightmap flags"},
        samples{"heightmap samples"}, counters{"heightmap counters"}, best{"heightmap reduction best"},
        winner{"heightmap reduction winner"};
    std::size_t sampleCapacity = 1 << 12;
    // The call's read-back: counters, flags and samples copied on the GPU into one mapped host
    // buffer before one fence (glGetBufferSubData made NVIDIA's driver move the buffers read
    // that way to host memory, the shaders' atomics with them). Samples are copied as far as
    // the last call found (`sampleCopy`); more take a second copy.
    gl::MappedCopy readback{"heightmap read-back"};
    std::size_t sampleCopy = 1024;
    // A call's read-back storage, kept across calls (cleared, never shrunk): a call does not
    // allocate it afresh (the soak, docs/robustness.md).
    std::vector<std::uint32_t> flagValues;
    std::vector<gl::HmSample> sampleData;
    detail::StaticEnvironment environment;
    std::vector<std::unique_ptr<StageTimer>> stageTimers;
    std::size_t stageTimersUsed = 0;
    std::vector<const Mesh*> syncedMeshes;  // the meshes the GpuScene mirrors, in MeshId order

    // GpuScene::sync() adds what a scene gained since the last call; a different scene (a
    // caller that reuses the detector) whose meshes differ gets a fresh mirror.
    void syncScene(const Scene& sc) {
        bool same = sc.meshCount() >= syncedMeshes.size() && sc.objectCount() >= scene.objectCount();
        for (MeshId m = 0; same && m < syncedMeshes.size(); ++m) same = &sc.mesh(m) == syncedMeshes[m];
        for (ObjectId o = 0; same && o < scene.objectCount(); ++o) same = scene.object(o).mesh == sc.meshOf(o);
        if (!same) scene = gl::GpuScene("heightmap scene");
        syncedMeshes.resize(sc.meshCount());
        for (MeshId m = 0; m < sc.meshCount(); ++m) syncedMeshes[m] = &sc.mesh(m);
        scene.sync(sc);
    }

    Result<void> compile();
    Result<void> ensureTargets(int width, int height);
    Result<void> runBatch(std::span<const View> batch, std::span<const Partner> partners, const Scene& scene,
                          std::span<const ObjectPair> candidates, std::vector<std::int64_t>& resultOf,
                          std::vector<char>& flagged, DetectionOutput& out, double& readbackMs);
};

Result<void> HeightmapDetector::Impl::compile() {
    const std::string layers = "#define MAX_LAYERS " + std::to_string(settings.maxLayers) + "\n";
    auto make = [&](gl::Program& to, std::initializer_list<gl::ShaderStage> stages, const std::string& defines,
                    const char* label) -> Result<void> {
        auto p = gl::Program::create(stages, defines, label);
        if (!p) return fail(p.error().message);
        to = std::move(*p);
        return {};
    };
    const gl::ShaderStage vert{GL_VERTEX_SHADER, "heightmap/raster.vert.glsl"};
    if (auto r = make(objectRaster, {vert, {GL_FRAGMENT_SHADER, "heightmap/object.frag.glsl"}}, layers,
                      "heightmap object pass");
        !r)
        return r;
    if (auto r = make(envRaster, {vert, {GL_FRAGMENT_SHADER, "heightmap/env.frag.glsl"}},
                      layers + (settings.serveOverhangs ? "#define HM_SERVE_OVERHANGS 1\n" : ""),
                      "heightmap environment pass");
        !r)
        return r;
    if (auto r = make(envAbove, {vert, {GL_FRAGMENT_SHADER, "heightmap/env.frag.glsl"}}, layers + "#define HM_ABOVE 1\n",
                      "heightmap above pass");
        !r)
        return r;
    if (auto r = make(resolve, {{GL_COMPUTE_SHADER, "heightmap/resolve.glsl"}}, layers, "heightmap resolve"); !r)
        return r;
    const gl::ShaderStage samplesStage{GL_COMPUTE_SHADER, "heightmap/samples.glsl"};
    if (auto r = make(emitAll, {samplesStage}, layers + "#define HM_EMIT_ALL 1\n", "heightmap samples (all)"); !r) return r;
    if (auto r = make(reduceDeepest, {samplesStage}, layers + "#define HM_REDUCE_DEEPEST 1\n",
                      "heightmap reduce (deepest)");
        !r)
        return r;
    if (auto r = make(reduceExtremes, {samplesStage}, layers + "#define HM_REDUCE_EXTREMES 1\n",
                      "heightmap reduce (extremes)");
        !r)
        return r;
    if (auto r = make(reduceWinner, {samplesStage}, layers + "#define HM_REDUCE_WINNER 1\n", "heightmap reduce (winner)"); !r)
        return r;
    if (auto r = make(emitReduced, {samplesStage}, layers + "#define HM_EMIT_REDUCED 1\n", "heightmap samples (reduced)"); !r)
        return r;
    vaoObject = gl::VertexArray("heightmap object vao");
    vaoEnv = gl::VertexArray("heightmap environment vao");
    framebuffer = gl::Framebuffer("heightmap atlas");
    counters.allocate(HM_COUNTER_COUNT * sizeof(std::uint32_t));
    return {};
}

Result<void> HeightmapDetector::Impl::ensureTargets(int width, int height) {
    if (width <= textureWidth && height <= textureHeight) return {};
    const auto [mostW, mostH] = fullBatchAtlas(std::uint32_t(settings.resolution));
    textureWidth = grownSide(width, textureWidth, mostW);
    textureHeight = grownSide(height, textureHeight, mostH);
    depth = gl::Texture::create2D("heightmap environment depth", GL_DEPTH_COMPONENT32F, textureWidth, textureHeight);
    ids = gl::Texture::create2D("heightmap environment ids", GL_RG32UI, textureWidth, textureHeight);
    framebuffer = gl::Framebuffer("heightmap atlas");
    framebuffer.attachTexture(GL_DEPTH_ATTACHMENT, depth);
    framebuffer.attachTexture(GL_COLOR_ATTACHMENT0, ids);
    framebuffer.setDrawBuffers({GL_COLOR_ATTACHMENT0});
    if (auto r = framebuffer.checkComplete(); !r) return r;
    depthAbove = gl::Texture::create2D("heightmap above depth", GL_DEPTH_COMPONENT32F, textureWidth, textureHeight);
    idsAbove = gl::Texture::create2D("heightmap above ids", GL_RG32UI, textureWidth, textureHeight);
    framebufferAbove = gl::Framebuffer("heightmap atlas (above)");
    framebufferAbove.attachTexture(GL_DEPTH_ATTACHMENT, depthAbove);
    framebufferAbove.attachTexture(GL_COLOR_ATTACHMENT0, idsAbove);
    framebufferAbove.setDrawBuffers({GL_COLOR_ATTACHMENT0});
    return framebufferAbove.checkComplete();
}

Result<void> HeightmapDetector::Impl::runBatch(std::span<const View> batch, std::span<const Partner> partners,
                                               const Scene& sc, std::span<const ObjectPair> candidates,
                                               std::vector<std::int64_t>& resultOf, std::vector<char>& flagged,
                                               DetectionOutput& out, double& readbackMs) {
    DetectorStats& stats = out.stats;
    const auto R = static_cast<std::uint32_t>(settings.resolution);
    const auto n = static_cast<std::uint32_t>(batch.size());
    const std::uint32_t tilesX = std::max<std::uint32_t>(1, std::uint32_t(std::ceil(std::sqrt(double(n)))));
    const std::uint32_t tilesY = (n + tilesX - 1) / tilesX;
    const std::uint32_t W = tilesX * R, H = tilesY * R;
    if (auto r = ensureTargets(int(W), int(H)); !r) return r;

    // Views, draws (the objects first, then the environment's culled triangles).
    std::vector<gl::HmView> viewData(n);
    std::vector<gl::HmDraw> drawData;
    std::vector<EnvDraw> envInfo;  // per environment draw (draw index - n)
    std::vector<gl::DrawElementsIndirectCommand> objectCommands, envCommands;
    std::vector<std::uint32_t> indices, triIds, culled;
    double objectTriangles = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        viewData[i] = batch[i].gpu;
        viewData[i].originX = (i % tilesX) * R;
        viewData[i].originY = (i / tilesX) * R;
        const gl::ObjectRange& range = scene.object(batch[i].object);
        objectCommands.push_back({3 * range.triangleCount, 1, 3 * range.firstTriangle,
                                  static_cast<std::int32_t>(range.firstVertex), i});
        drawData.push_back({i, batch[i].object, 0, 0});
        objectTriangles += range.triangleCount;
    }
    for (std::uint32_t i = 0; i < n; ++i) {
        for (std::uint32_t k = 0; k < batch[i].partnerCount; ++k) {
            const Partner& p = partners[batch[i].firstPartner + k];
            culled.clear();
            environment.query(p.env, batch[i].worldBox, culled);
            if (culled.empty()) continue;
            const gl::ObjectRange& range = scene.object(p.env);
            const auto draw = static_cast<std::uint32_t>(drawData.size());
            envCommands.push_back({3 * std::uint32_t(culled.size()), 1, std::uint32_t(indices.size()),
                                   static_cast<std::int32_t>(range.firstVertex), draw});
            drawData.push_back({i, p.env, std::uint32_t(triIds.size()), 1});
            envInfo.push_back({p.candidate, p.envIsB});
            const auto tris = sc.objectMesh(p.env).triangles();
            for (std::uint32_t t : culled) {
                indices.insert(indices.end(), {tris[t].x, tris[t].y, tris[t].z});
                triIds.push_back(t);
            }
        }
    }
    addCount(stats, "object_triangles_drawn", objectTriangles);
    addCount(stats, "environment_triangles_drawn", double(triIds.size()));
    addCount(stats, "batches", 1);
    if (envCommands.empty()) return {};  // no environment triangle near any view: no contact

    const auto drawCount = static_cast<std::uint32_t>(drawData.size());
    // Buffers sized with headroom (per-pixel ones at most to a full batch's atlas): the pile's
    // views go up and down, and a buffer re-made at every new high is GL memory that creeps up.
    views.assignWithHeadroom(viewData);
    draws.assignWithHeadroom(drawData);
    objectIndirect.assignWithHeadroom(objectCommands);
    envIndirect.assignWithHeadroom(envCommands);
    envIndices.assignWithHeadroom(indices);
    triangleIds.assignWithHeadroom(triIds);
    if (drawIds.reserveSequence(drawCount)) {
        for (gl::VertexArray* v : {&vaoObject, &vaoEnv}) {
            v->setVertexBuffer(0, drawIds, 0, sizeof(std::uint32_t), 1);
            v->setIntegerAttribute(HM_ATTRIB_DRAW_ID, 0, 1, GL_UNSIGNED_INT);
        }
    }
    vaoObject.setElementBuffer(scene.indexBuffer());  // re-set: sync() may have re-created it
    vaoEnv.setElementBuffer(envIndices);

    const std::size_t pixels = std::size_t(W) * H;
    const auto K = static_cast<std::size_t>(settings.maxLayers);
    const auto [mostW, mostH] = fullBatchAtlas(R);
    const std::size_t mostPixels = std::max(pixels, std::size_t(mostW) * mostH);
    counts.reserveWithHeadroom(pixels * sizeof(std::uint32_t), mostPixels * sizeof(std::uint32_t));
    slots.reserveWithHeadroom(pixels * K * sizeof(std::uint32_t), mostPixels * K * sizeof(std::uint32_t));
    columns.reserveWithHeadroom(pixels * 4 * sizeof(std::uint32_t), mostPixels * 4 * sizeof(std::uint32_t));
    flags.reserveWithHeadroom(std::size_t(drawCount) * sizeof(std::uint32_t));
    best.reserveWithHeadroom(std::size_t(drawCount) * HM_CRITERIA * sizeof(std::uint32_t));
    winner.reserveWithHeadroom(std::size_t(drawCount) * HM_CRITERIA * sizeof(std::uint32_t));
    counts.clearZero(0, pixels * sizeof(std::uint32_t));
    flags.clearZero(0, std::size_t(drawCount) * sizeof(std::uint32_t));
    counters.clearZero();
    if (settings.reduce) {
        best.clearZero(0, std::size_t(drawCount) * HM_CRITERIA * sizeof(std::uint32_t));
        const std::uint32_t none = 0xFFFFFFFFu;
        glClearNamedBufferSubData(winner.id(), GL_R32UI, 0, GLsizeiptr(std::size_t(drawCount) * HM_CRITERIA * 4),
                                  GL_RED_INTEGER, GL_UNSIGNED_INT, &none);
    }
    const float farDepth = 1.0f;
    const GLuint noId[4] = {0, 0, 0, 0};
    // Clears obey the write masks and the scissor: set them, not trust what the last user of the
    // context left (slices left the depth mask off, and this call's depth clear did nothing).
    glDepthMask(GL_TRUE);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glDisable(GL_SCISSOR_TEST);
    glClearNamedFramebufferfv(framebuffer.id(), GL_DEPTH, 0, &farDepth);
    glClearNamedFramebufferuiv(framebuffer.id(), GL_COLOR, 0, noId);
    if (settings.immersed) {
        const float nearDepth = 0.0f;
        glClearNamedFramebufferfv(framebufferAbove.id(), GL_DEPTH, 0, &nearDepth);
        glClearNamedFramebufferuiv(framebufferAbove.id(), GL_COLOR, 0, noId);
    }

    scene.bind();
    views.bindBase(GL_SHADER_STORAGE_BUFFER, HM_BINDING_VIEWS);
    draws.bindBase(GL_SHADER_STORAGE_BUFFER, HM_BINDING_DRAWS);
    counts.bindBase(GL_SHADER_STORAGE_BUFFER, HM_BINDING_COUNTS);
    slots.bindBase(GL_SHADER_STORAGE_BUFFER, HM_BINDING_SLOTS);
    columns.bindBase(GL_SHADER_STORAGE_BUFFER, HM_BINDING_COLUMNS);
    flags.bindBase(GL_SHADER_STORAGE_BUFFER, HM_BINDING_FLAGS);
    triangleIds.bindBase(GL_SHADER_STORAGE_BUFFER, HM_BINDING_TRIANGLE_IDS);
    counters.bindBase(GL_SHADER_STORAGE_BUFFER, HM_BINDING_COUNTERS);
    best.bindBase(GL_SHADER_STORAGE_BUFFER, HM_BINDING_BEST);
    winner.bindBase(GL_SHADER_STORAGE_BUFFER, HM_BINDING_WINNER);
    for (gl::Program* p : {&objectRaster, &envRaster, &envAbove}) {
        p->setUniform("uTileSize", R);
        p->setUniform("uAtlasSize", glm::vec2(W, H));
        p->setUniform("uAtlasWidth", W);
    }

    if (stageTimersUsed == stageTimers.size()) stageTimers.push_back(std::make_unique<StageTimer>());
    StageTimer& timer = *stageTimers[stageTimersUsed++];
    timer.mark(0);
    // Object pass: every fragment of the moving objects into the slots (no depth test, no culling).
    framebuffer.bind();
    glViewport(0, 0, GLsizei(W), GLsizei(H));
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    glDisable(GL_BLEND);
    glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
    glDepthMask(GL_FALSE);
    objectRaster.use();
    vaoObject.bind();
    objectIndirect.bind(GL_DRAW_INDIRECT_BUFFER);
    glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT, nullptr, GLsizei(objectCommands.size()), 0);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    // The columns: the object's crossings per pixel, sorted.
    resolve.setUniform("uAtlasSize", glm::uvec2(W, H));
    resolve.use();
    resolve.dispatch((W + 7) / 8, (H + 7) / 8);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    timer.mark(1);
    // Environment pass: the paper's regular depth test and back-face culling, restricted
    // per pixel to the object's lowest solid interval; ids of the nearest surface kept.
    framebuffer.bind();
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDepthMask(GL_TRUE);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glEnable(GL_CULL_FACE);
    glCullFace(GL_BACK);
    glFrontFace(GL_CCW);
    envRaster.use();
    vaoEnv.bind();
    envIndirect.bind(GL_DRAW_INDIRECT_BUFFER);
    glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT, nullptr, GLsizei(envCommands.size()), 0);
    glDisable(GL_CULL_FACE);
    if (settings.immersed) {
        // The above pass: the environment surface nearest above each column, either facing.
        framebufferAbove.bind();
        glDepthFunc(GL_GREATER);
        envAbove.use();
        glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT, nullptr, GLsizei(envCommands.size()), 0);
        glDepthFunc(GL_LESS);
    }
    glDisable(GL_DEPTH_TEST);
    glBindVertexArray(0);
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, 0);
    gl::Framebuffer::bindDefault();
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT | GL_FRAMEBUFFER_BARRIER_BIT);
    timer.mark(2);

    // Samples, all or reduced on the GPU.
    depth.bindUnit(HM_UNIT_DEPTH);
    ids.bindUnit(HM_UNIT_IDS);
    depthAbove.bindUnit(HM_UNIT_DEPTH_ABOVE);
    idsAbove.bindUnit(HM_UNIT_IDS_ABOVE);
    const auto pixelGroups = static_cast<GLuint>((pixels + 63) / 64);
    for (gl::Program* p : {&emitAll, &reduceDeepest, &reduceExtremes, &reduceWinner, &emitReduced}) {
        p->setUniform("uTileSize", R);
        p->setUniform("uAtlasSize", glm::uvec2(W, H));
        p->setUniform("uDrawCount", drawCount);
        p->setUniform("uImmersed", settings.immersed ? 1u : 0u);
    }
    if (settings.reduce) {
        reduceDeepest.use();
        reduceDeepest.dispatch(pixelGroups);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
        reduceExtremes.use();
        reduceExtremes.dispatch(pixelGroups);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
        reduceWinner.use();
        reduceWinner.dispatch(pixelGroups);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    }
    gl::Program& emit = settings.reduce ? emitReduced : emitAll;
    const GLuint emitGroups = settings.reduce ? (drawCount * HM_CRITERIA + 63) / 64 : pixelGroups;
    std::uint32_t counterValues[HM_COUNTER_COUNT] = {};
    // The mapping: counters, flags (a word per draw), samples from the next 16 bytes.
    const std::size_t countersBytes = sizeof(counterValues);
    const std::size_t flagsBytes = std::size_t(drawCount) * sizeof(std::uint32_t);
    const std::size_t dataAt = (countersBytes + flagsBytes + 15) / 16 * 16;
    std::size_t samplesCopied = 0;
    for (;;) {
        samples.reserve(sampleCapacity * sizeof(gl::HmSample));
        samples.bindBase(GL_SHADER_STORAGE_BUFFER, HM_BINDING_SAMPLES);
        emit.setUniform("uSampleCapacity", static_cast<std::uint32_t>(sampleCapacity));
        emit.use();
        emit.dispatch(emitGroups);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
        samplesCopied = std::min(sampleCapacity, sampleCopy);
        if (auto r = readback.reserve(dataAt + samplesCopied * sizeof(gl::HmSample)); !r) return r;
        readback.copyFrom(counters, 0, countersBytes, 0);
        readback.copyFrom(flags, 0, flagsBytes, countersBytes);
        readback.copyFrom(samples, 0, samplesCopied * sizeof(gl::HmSample), dataAt);
        const auto tr = Clock::now();
        if (auto r = gl::waitForGpu("heightmap, the call's passes"); !r) return r;
        readbackMs += msSince(tr);
        std::memcpy(counterValues, readback.data(), countersBytes);
        if (counterValues[HM_COUNTER_SAMPLES] <= sampleCapacity) break;
        // Too many: grow (kept for later calls) and emit again.
        sampleCapacity =
            gl::withHeadroom(std::size_t(counterValues[HM_COUNTER_SAMPLES]) * sizeof(gl::HmSample)) / sizeof(gl::HmSample);
        const std::uint32_t zero = 0;
        counters.upload(HM_COUNTER_SAMPLES * sizeof(std::uint32_t), sizeof(zero), &zero);
        if (!settings.reduce) {
            counters.upload(HM_COUNTER_CONTACT_PIXELS * sizeof(std::uint32_t), sizeof(zero), &zero);
            counters.upload(HM_COUNTER_UPPER_PIXELS * sizeof(std::uint32_t), sizeof(zero), &zero);
            counters.upload(HM_COUNTER_IMMERSED_PIXELS * sizeof(std::uint32_t), sizeof(zero), &zero);
        }
    }
    timer.mark(3);
    const std::uint32_t sampleCount = counterValues[HM_COUNTER_SAMPLES];
    const auto* flagsRead = readback.at<std::uint32_t>(countersBytes);
    flagValues.assign(flagsRead, flagsRead + drawCount);
    if (sampleCount > samplesCopied) {  // more than the last call: the rest in a second copy
        const auto tr = Clock::now();
        if (auto r = readback.reserve(dataAt + std::size_t(sampleCount) * sizeof(gl::HmSample)); !r) return r;
        readback.copyFrom(samples, 0, std::size_t(sampleCount) * sizeof(gl::HmSample), dataAt);
        if (auto r = gl::waitForGpu("heightmap, copying the samples"); !r) return r;
        readbackMs += msSince(tr);
        addCount(stats, "late_copies", 1);
    }
    const auto* samplesRead = readback.at<gl::HmSample>(dataAt);
    sampleData.assign(samplesRead, samplesRead + sampleCount);
    sampleCopy = std::size_t(sampleCount) + sampleCount / 4 + 256;
    addCount(stats, "contact_pixels", counterValues[HM_COUNTER_CONTACT_PIXELS]);
    addCount(stats, "overhang_contact_pixels", counterValues[HM_COUNTER_UPPER_PIXELS]);
    addCount(stats, "immersed_contact_pixels", counterValues[HM_COUNTER_IMMERSED_PIXELS]);
    addCount(stats, "samples", sampleCount);

    // Flags: a pair any of whose draws reached what the method cannot tell is not served.
    for (std::uint32_t d = n; d < drawCount; ++d) {
        const EnvDraw& e = envInfo[d - n];
        if (flagValues[d] == 0) continue;
        if (!flagged[e.candidate]) {
            flagged[e.candidate] = char(flagValues[d]);
        } else {
            flagged[e.candidate] = char(flagged[e.candidate] | char(flagValues[d]));
        }
    }
    for (const gl::HmSample& s : sampleData) {
        if (s.draw < n || s.draw >= drawCount) continue;
        const EnvDraw& e = envInfo[s.draw - n];
        std::int64_t& index = resultOf[e.candidate];
        if (index < 0) {
            index = std::int64_t(out.pairs.size());
            out.pairs.push_back({});
            out.pairs.back().pair = candidates[e.candidate];
        }
        const Vec3 point(s.point.x, s.point.y, s.point.z), normal(s.normal.x, s.normal.y, s.normal.z);
        const float distance = s.point.w;
        ContactSample cs;
        cs.depth = distance;
        if (e.envIsB) {
            cs.pointOnB = point;
            cs.normalOnB = normal;
            cs.triangleB = s.triangle;
        } else {
            cs.pointOnB = point + normal * distance;  // the moving object's extreme point
            cs.normalOnB = -normal;
            cs.triangleA = s.triangle;
        }
        out.pairs[std::size_t(index)].samples.push_back(cs);
    }
    if (auto e = gl::checkError("after heightmap batch"); !e) return e;
    return {};
}

HeightmapDetector::HeightmapDetector(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HeightmapDetector::~HeightmapDetector() = default;

Result<void> HeightmapDetector::detect(const Scene& scene, std::span<const ObjectPair> candidates,
                                       DetectionOutput& out) {
    const auto t0 = Clock::now();
    out.clear();
    Impl& im = *impl_;
    DetectorStats& stats = out.stats;
    double readbackMs = 0.0;
    for (const ObjectPair& p : candidates)
        if (p.a >= scene.objectCount() || p.b >= scene.objectCount())
            return fail("HeightmapDetector::detect(): candidate pair (" + std::to_string(p.a) + ", " +
                        std::to_string(p.b) + ") names an object the scene does not have");

    // Objects taking part; pairs this method serves (one static, one moving with a closed mesh).
    std::vector<char> state(scene.objectCount(), 0);  // 0 unseen, 1 ok, 2 skipped
    auto usable = [&](ObjectId o) {
        if (state[o] == 0) {
            state[o] = 1;
            if (!scene.isActive(o)) {
                state[o] = 2;
            } else if (!scene.pose(o).isFinite()) {
                state[o] = 2;
                stats.warnings.push_back("object " + std::to_string(o) +
                                         " has a non-finite pose (NaN or Inf): skipped this step");
            }
        }
        return state[o] == 1;
    };
    std::vector<std::vector<Partner>> partnersOf(scene.objectCount());
    double moving = 0, open = 0;
    std::vector<char> openWarned(scene.objectCount(), 0);
    for (std::uint32_t c = 0; c < candidates.size(); ++c) {
        const ObjectPair p = candidates[c];
        if (p.a == p.b) {
            if (im.common.selfCollision) out.unserved.push_back(p);
            continue;
        }
        if (!usable(p.a) || !usable(p.b)) continue;
        const bool sa = scene.isStatic(p.a), sb = scene.isStatic(p.b);
        if (sa == sb) {  // two moving objects (or two static ones): not an object against its environment
            out.unserved.push_back(p);
            moving += sa ? 0 : 1;
            continue;
        }
        const ObjectId m = sa ? p.b : p.a, e = sa ? p.a : p.b;
        if (!scene.objectMesh(m).isClosed()) {
            out.unserved.push_back(p);
            open += 1;
            if (!openWarned[m]) {
                openWarned[m] = 1;
                stats.warnings.push_back("object " + std::to_string(m) + " has an open mesh (" +
                                         scene.objectMesh(m).report().describe() +
                                         "): heightmap needs closed moving objects; its pairs are returned "
                                         "unserved (the dispatcher sends them to the exact path)");
            }
            continue;
        }
        partnersOf[m].push_back({c, e, e == p.b});
    }

    // The environment's BVHs (rebuilt only when a static object moved or changed).
    const auto tc = Clock::now();
    double builds = 0;
    std::vector<char> envSeen(scene.objectCount(), 0);
    for (const auto& list : partnersOf)
        for (const Partner& p : list)
            if (!envSeen[p.env]) {
                envSeen[p.env] = 1;
                builds += im.environment.update(scene, p.env) ? 1 : 0;
            }

    // Views: per moving object and direction, its box (across: where the environment is).
    std::vector<View> views;
    std::vector<Partner> partners;
    const float R = float(im.settings.resolution);
    for (ObjectId m = 0; m < scene.objectCount(); ++m) {
        if (partnersOf[m].empty()) continue;
        Aabb box;
        const Pose& pose = scene.pose(m);
        for (const Vec3& v : scene.localVertices(m)) box.grow(pose.apply(v));
        Aabb env;
        for (const Partner& p : partnersOf[m]) env.grow(im.environment.bounds(p.env));
        const auto firstPartner = std::uint32_t(partners.size());
        partners.insert(partners.end(), partnersOf[m].begin(), partnersOf[m].end());
        const float size = std::max({box.extent().x, box.extent().y, box.extent().z, 1e-6f});
        for (const Vec3& d : im.directions) {
            const int axis = axisOf(d);
            const int u = (axis + 1) % 3, w = (axis + 2) % 3;
            // Across the view: the object's box where the environment is.
            Aabb across = box.intersection(env);
            float lo[2] = {across.min[u], across.min[w]}, hi[2] = {across.max[u], across.max[w]};
            if (hi[0] < lo[0] || hi[1] < lo[1]) continue;
            const float side = std::max({hi[0] - lo[0], hi[1] - lo[1], 1e-6f}) * (1.0f + 2.0f / R) + 1e-5f * size;
            Vec3 centre = box.center();
            centre[u] = 0.5f * (lo[0] + hi[0]);
            centre[w] = 0.5f * (lo[1] + hi[1]);
            // Along: the object's box, a little wider (its extreme points stay inside).
            const float pad = 1e-3f * size + 1e-6f;
            const float alongLo = std::min(glm::dot(box.min, d), glm::dot(box.max, d)) - pad;
            const float alongHi = std::max(glm::dot(box.min, d), glm::dot(box.max, d)) + pad;
            const float centreAlong = glm::dot(centre, d);
            Vec3 upVector(0.0f);
            upVector[u] = 1.0f;
            const Mat4 viewMatrix = glm::lookAt(centre - d, centre, upVector);
            const float zNear = 1.0f + (alongLo - centreAlong), zFar = 1.0f + (alongHi - centreAlong);
            const Mat4 proj = glm::ortho(-0.5f * side, 0.5f * side, -0.5f * side, 0.5f * side, zNear, zFar);
            View v;
            v.object = m;
            v.gpu.viewProj = proj * viewMatrix;
            v.gpu.invViewProj = glm::inverse(v.gpu.viewProj);
            v.gpu.direction = Vec4(d, alongHi - alongLo);
            v.gpu.object = m;
            v.worldBox = box;
            v.worldBox.min[u] = centre[u] - 0.5f * side;
            v.worldBox.max[u] = centre[u] + 0.5f * side;
            v.worldBox.min[w] = centre[w] - 0.5f * side;
            v.worldBox.max[w] = centre[w] + 0.5f * side;
            v.worldBox = v.worldBox.expanded(pad);
            v.firstPartner = firstPartner;
            v.partnerCount = std::uint32_t(partnersOf[m].size());
            views.push_back(v);
        }
    }
    stats.count("cpu_setup_ms", msSince(tc));

    // Batches of views (one atlas each).
    std::vector<std::int64_t> resultOf(candidates.size(), -1);
    std::vector<char> flagged(candidates.size(), 0);
    double gpuMs = 0.0;
    if (!views.empty()) {
        const auto tu = Clock::now();
        im.syncScene(scene);
        stats.count("cpu_upload_ms", msSince(tu));
        im.stageTimersUsed = 0;
        const std::size_t perBatch =
            std::max<std::size_t>(1, kMaxAtlasPixels / (std::size_t(im.settings.resolution) * im.settings.resolution));
        for (std::size_t first = 0; first < views.size(); first += perBatch) {
            const std::size_t count = std::min(perBatch, views.size() - first);
            if (auto r = im.runBatch(std::span<const View>(views).subspan(first, count), partners, scene, candidates,
                                     resultOf, flagged, out, readbackMs);
                !r)
                return r;
        }
        double stageMs[kStages] = {};
        for (std::size_t i = 0; i < im.stageTimersUsed; ++i)
            for (int k = 0; k < kStages; ++k) stageMs[k] += im.stageTimers[i]->stageMs(k);
        for (int k = 0; k < kStages; ++k) {
            gpuMs += stageMs[k];
            stats.count(kStageCounters[k], stageMs[k]);
        }
    }

    // Pairs the method could not tell: unserved, their samples dropped.
    double overhang = 0, overflow = 0, odd = 0, refused = 0;
    std::vector<char> drop(out.pairs.size(), 0);
    for (std::uint32_t c = 0; c < candidates.size(); ++c) {
        if (!flagged[c]) continue;
        overhang += (flagged[c] & HM_FLAG_OVERHANG) ? 1 : 0;
        overflow += (flagged[c] & HM_FLAG_OVERFLOW) ? 1 : 0;
        odd += (flagged[c] & HM_FLAG_ODD) ? 1 : 0;
        if (!(flagged[c] & HM_FLAG_OVERFLOW) && (im.settings.serveOverhangs || !(flagged[c] & HM_FLAG_OVERHANG)))
            continue;
        refused += 1;
        out.unserved.push_back(candidates[c]);
        if (resultOf[c] >= 0) drop[std::size_t(resultOf[c])] = 1;
    }
    if (refused > 0) {
        std::size_t k = 0;
        for (std::size_t i = 0; i < out.pairs.size(); ++i)
            if (!drop[i]) out.pairs[k++] = std::move(out.pairs[i]);
        out.pairs.resize(k);
    }
    std::sort(out.pairs.begin(), out.pairs.end(), [](const PairResult& x, const PairResult& y) { return x.pair < y.pair; });

    stats.count("candidate_pairs", double(candidates.size()));
    stats.count("served_pairs", double(partners.size()) - refused);
    stats.count("unserved_pairs", double(out.unserved.size()));
    stats.count("moving_pairs", moving);
    stats.count("overhang_pairs", overhang);
    stats.count("overflow_pairs", overflow);
    stats.count("odd_column_pairs", odd);
    stats.count("open_object_pairs", open);
    stats.count("views", double(views.size()));
    stats.count("environment_bvh_builds", builds);
    stats.count("colliding_pairs", double(out.pairs.size()));
    stats.gpuMs = gpuMs;
    stats.readbackMs = readbackMs;
    stats.totalMs = msSince(t0);
    stats.cpuMs = stats.totalMs - readbackMs;
    return {};
}

Result<std::unique_ptr<Detector>> createHeightmapDetector(const DetectorSettings& common,
                                                          const HeightmapSettings& settings) {
    if (settings.resolution < 8 || settings.resolution > 1024)
        return fail("createHeightmapDetector(): resolution " + std::to_string(settings.resolution) +
                    " is outside [8, 1024]; use e.g. 64");
    if (settings.directions != 1 && settings.directions != 2 && settings.directions != 6)
        return fail("createHeightmapDetector(): directions must be 1 (down), 2 (down and up) or 6 (cube), got " +
                    std::to_string(settings.directions));
    Vec3 up;
    if (!parseAxis(settings.up, up))
        return fail("createHeightmapDetector(): up \"" + settings.up + "\" is not one of +x, -x, +y, -y, +z, -z");
    if (settings.maxLayers < 2 || settings.maxLayers > 32)
        return fail("createHeightmapDetector(): maxLayers " + std::to_string(settings.maxLayers) +
                    " is outside [2, 32]");
    if (glad_glCreateBuffers == nullptr)
        return fail("createHeightmapDetector(): no current GL context; create one with isc::gl::Context first");
    auto impl = std::make_unique<HeightmapDetector::Impl>();
    impl->common = common;
    impl->settings = settings;
    impl->directions.push_back(-up);
    if (settings.directions >= 2) impl->directions.push_back(up);
    if (settings.directions == 6) {
        const int a = axisOf(up);
        for (int k = 1; k <= 2; ++k) {
            Vec3 e(0.0f);
            e[(a + k) % 3] = 1.0f;
            impl->directions.push_back(e);
            impl->directions.push_back(-e);
        }
    }
    if (auto c = impl->compile(); !c) return fail(c.error().message);
    return std::unique_ptr<Detector>(new HeightmapDetector(std::move(impl)));
}

namespace detectors {

DetectorInfo heightmapInfo() {
    DetectorInfo d;
    d.name = "heightmap";
    d.summary = "height maps: objects against the static environment, contact samples (Fabrizio)";
    d.usesGl = true;
    d.needsClosedMeshes = false;
    d.reportsContactSamples = true;
    d.settings = describeSettings<HeightmapSettings>();
    d.create = [](const DetectorSettings& common) -> Result<std::unique_ptr<Detector>> {
        HeightmapSettings settings;
        if (auto r = applyOptions(settings, common.options, "heightmap"); !r) return fail(r.error().message);
        return createHeightmapDetector(common, settings);
    };
    return d;
}

}  // namespace detectors

}  // namespace isc
