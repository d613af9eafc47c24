#include "isc/detectors/SlicesDetector.h"

#include "isc/detect/Registry.h"

#include "SlicesExact.h"
#include "SlicesNormals.h"

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

#include "slices/bindings.h"  // shaders/: SlView, SlDraw, SlResult, SlSample

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <utility>

namespace isc {

static_assert(sizeof(gl::SlView) == 64, "SlView must match its std430 layout");
static_assert(sizeof(gl::SlDraw) == 16, "SlDraw must match its std430 layout");
static_assert(sizeof(gl::SlResult) == 48, "SlResult must match its std430 layout");
static_assert(sizeof(gl::SlSample) == 48, "SlSample must match its std430 layout");

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// Atlas pixels per batch: bounds the targets (16 or 32 bytes a pixel) and the per-pixel counts.
constexpr std::size_t kMaxAtlasPixels = std::size_t(1024) * 1024;

// The atlas of a full batch of R x R tiles (runBatch's layout): what the per-pixel buffers and
// targets can ever need.
std::pair<std::uint32_t, std::uint32_t> fullBatchAtlas(std::uint32_t R) { return gl::fullBatchAtlas(R, kMaxAtlasPixels); }
using gl::grownSide;
// Each vertex moves by offset / min(n_v . n_f): at most this many times the offset.
constexpr float kMaxOffsetScale = 4.0f;

void addCount(DetectorStats& stats, std::string_view name, double value) {
    stats.count(name, stats.counter(name) + value);
}

// One served pair through the rounds.
struct PairState {
    std::uint32_t candidate = 0;
    ObjectId a = 0, b = 0;
    float offsetA = 0.0f, offsetB = 0.0f;  // world units
    Aabb box;                              // this round's view volume
    bool alive = true;                     // collided in every round so far
    std::uint32_t voxels = 0;              // shared voxels of its last rendering
    Aabb region;                           // the collision volume of its last rendering (world)
    float voxelDiagonal = 0.0f;            // of its last rendering
    std::int64_t firstSample = -1;         // into the call's samples, last rendering
    std::uint32_t sampleCount = 0;
};

// The view of one pair in one round.
struct View {
    gl::SlView gpu{};
    std::uint32_t pair = 0;  // into the PairState list
};

// Makes `box` a usable view volume: each extent at least one pixel of the longest (a box of
// `fallbackSize` when every extent is zero). True when it had to be fattened.
bool fatten(Aabb& box, int resolution, float fallbackSize) {
    Vec3 e = box.extent();
    const float longest = std::max({e.x, e.y, e.z});
    const float least = longest > 0.0f ? longest / float(resolution) : fallbackSize;
    bool changed = false;
    for (int k = 0; k < 3; ++k) {
        if (!(e[k] >= least)) {
            const float c = 0.5f * (box.min[k] + box.max[k]);
            box.min[k] = c - 0.5f * least;
            box.max[k] = c + 0.5f * least;
            changed = true;
        }
    }
    return changed;
}

int smallestAxis(const Vec3& e) { return e.x <= e.y && e.x <= e.z ? 0 : (e.y <= e.z ? 1 : 2); }

float voxelDiagonalOf(const Aabb& box, int axis, int resolution, int slices) {
    const Vec3 e = box.extent();
    const float u = e[(axis + 1) % 3] / float(resolution), w = e[(axis + 2) % 3] / float(resolution);
    const float d = e[axis] / float(slices);
    return std::sqrt(u * u + w * w + d * d);
}

// GL_TIMESTAMP marks of one batch: start, after the raster passes, after the test pass.
struct BatchTimer {
    gl::Query marks[3] = {{"slices stage", GL_TIMESTAMP}, {"slices stage", GL_TIMESTAMP}, {"slices stage", GL_TIMESTAMP}};
    void mark(int k) { glQueryCounter(marks[k].id(), GL_TIMESTAMP); }
    double ms(int from, int to) const { return double(marks[to].result() - marks[from].result()) * 1e-6; }
};

}  // namespace

struct SlicesDetector::Impl {
    DetectorSettings common;
    SlicesSettings settings;
    int targets = 1;        // RGBA32UI targets (64 slices each)
    bool shaderOr = false;  // the shader-OR path
    std::string pathNote;   // why the shader-OR path, when it is used
    gl::Program fillRaster, surfaceRaster, test;
    gl::GpuScene scene{"slices scene"};
    gl::VertexArray vao;
    gl::Framebuffer framebuffer;
    gl::Texture target[2];
    int textureWidth = 0, textureHeight = 0;
    gl::Buffer views{"slices views"}, draws{"slices draws"}, drawIds{"slices draw ids"},
        indirect{"slices draws (indirect)"}, normals{"slices normals"}, bits{"slices bits"},
        results{"slices results"}, samples{"slices samples"}, counters{"slices counters"},
        pixelCounts{"slices pixel counts"}, culledIndices{"slices culled indices"};
    // settings.cull: this call's world box of every triangle of the objects taking part, and a
    // rounding allowance per object (its size x 1e-5).
    const Scene* sceneRef = nullptr;
    std::vector<std::vector<Aabb>> triangleBoxes;
    std::vector<float> cullEpsilon;
    std::vector<const Mesh*> syncedMeshes;
    detail::SlicesNormals normalData;
    detail::SlicesExact exact;
    int lastWidth = 0, lastHeight = 0;  // the last batch's atlas (debug views)
    // A call's read-back and index storage, kept across calls (cleared, never shrunk), so a
    // call does not allocate its tens of MB afresh (the soak, docs/robustness.md).
    std::vector<gl::SlSample> batchSamples, callSamples;
    std::vector<gl::SlResult> resultData;
    std::vector<std::uint32_t> indexData;
    // The batch's read-back: results, counters and samples copied on the GPU into one mapped
    // host buffer before one fence (glGetBufferSubData made NVIDIA's driver move the buffers
    // read that way to host memory, the shaders' atomics with them). Samples are copied as far
    // as the last batch found (`sampleCopy`); more take a second copy.
    gl::MappedCopy readback{"slices read-back"};
    std::size_t sampleCopy = 1024;

    void syncScene(const Scene& sc) {
        bool same = sc.meshCount() >= syncedMeshes.size() && sc.objectCount() >= scene.objectCount();
        for (MeshId m = 0; same && m < syncedMeshes.size(); ++m) same = &sc.mesh(m) == syncedMeshes[m];
        for (ObjectId o = 0; same && o < scene.objectCount(); ++o) same = scene.object(o).mesh == sc.meshOf(o);
        if (!same) {
            scene = gl::GpuScene("slices scene");
            normalData = {};
        }
        syncedMeshes.resize(sc.meshCount());
        for (MeshId m = 0; m < sc.meshCount(); ++m) syncedMeshes[m] = &sc.mesh(m);
        scene.sync(sc);
        if (normalData.update(sc, scene)) {
            normals.reserve(normalData.data().size() * sizeof(Vec4) + sizeof(Vec4));
            normals.upload<Vec4>(0, normalData.data());
        }
    }

    Result<void> compile();
    Result<void> ensureTargets(int width, int height);
    Result<void> runBatch(std::span<const View> batch, std::vector<PairState>& pairs, bool emitSamples,
                          std::vector<gl::SlSample>& sampleOut, DetectionOutput& out, double& readbackMs);
};

Result<void> SlicesDetector::Impl::compile() {
    std::string defines = "#define SL_TARGETS " + std::to_string(targets) + "\n";
    if (shaderOr) defines += "#define SL_SHADER_OR 1\n";
    auto make = [&](gl::Program& to, std::initializer_list<gl::ShaderStage> stages, const std::string& d,
                    const char* label) -> Result<void> {
        auto p = gl::Program::create(stages, d, label);
        if (!p) return fail(p.error().message);
        to = std::move(*p);
        return {};
    };
    const gl::ShaderStage vert{GL_VERTEX_SHADER, "slices/raster.vert.glsl"};
    const gl::ShaderStage frag{GL_FRAGMENT_SHADER, "slices/raster.frag.glsl"};
    if (auto r = make(fillRaster, {vert, frag}, defines + "#define SL_FILL 1\n", "slices fill pass"); !r) return r;
    if (auto r = make(surfaceRaster, {vert, frag}, defines, "slices surface pass"); !r) return r;
    if (auto r = make(test, {{GL_COMPUTE_SHADER, "slices/test.glsl"}}, defines, "slices test pass"); !r) return r;
    vao = gl::VertexArray("slices vao");
    counters.allocate(SL_COUNTER_COUNT * sizeof(std::uint32_t));
    return {};
}

Result<void> SlicesDetector::Impl::ensureTargets(int width, int height) {
    if (width <= textureWidth && height <= textureHeight) return {};
    const auto [mostW, mostH] = fullBatchAtlas(std::uint32_t(settings.resolution));
    textureWidth = grownSide(width, textureWidth, mostW);
    textureHeight = grownSide(height, textureHeight, mostH);
    framebuffer = gl::Framebuffer("slices atlas");
    for (int t = 0; t < targets; ++t) {
        target[t] = gl::Texture::create2D(t == 0 ? "slices target 0" : "slices target 1", GL_RGBA32UI, textureWidth,
                                          textureHeight);
        framebuffer.attachTexture(GLenum(GL_COLOR_ATTACHMENT0 + t), target[t]);
    }
    if (targets == 2)
        framebuffer.setDrawBuffers({GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1});
    else
        framebuffer.setDrawBuffers({GL_COLOR_ATTACHMENT0});
    return framebuffer.checkComplete();
}

Result<void> SlicesDetector::Impl::runBatch(std::span<const View> batch, std::vector<PairState>& pairs,
                                            bool emitSamples, std::vector<gl::SlSample>& sampleOut,
                                            DetectionOutput& out, double& readbackMs) {
    DetectorStats& stats = out.stats;
    const auto R = static_cast<std::uint32_t>(settings.resolution);
    const auto n = static_cast<std::uint32_t>(batch.size());
    const std::uint32_t tilesX = std::max<std::uint32_t>(1, std::uint32_t(std::ceil(std::sqrt(double(n)))));
    const std::uint32_t tilesY = (n + tilesX - 1) / tilesX;
    const std::uint32_t W = tilesX * R, H = tilesY * R;
    const std::size_t pixels = std::size_t(W) * H;
    if (auto r = ensureTargets(int(W), int(H)); !r) return r;
    lastWidth = int(W);
    lastHeight = int(H);

    std::vector<gl::SlView> viewData(n);
    std::vector<gl::SlDraw> drawData(2 * std::size_t(n));
    std::vector<gl::DrawElementsIndirectCommand> commands(2 * std::size_t(n));
    // settings.cull: per draw, the object's triangles that can reach the view (their world
    // boxes, widened by the swell, overlap the view across, and do not lie wholly beyond its far
    // face; with the fill, faces in front of the view stay: they count in the parity).
    std::vector<std::vector<std::uint32_t>> kept(settings.cull ? 2 * std::size_t(n) : 0);
    const auto nViews = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(dynamic, 4) if (settings.cull && n > 8)
    for (std::int64_t iv = 0; iv < nViews; ++iv) {
        const auto i = static_cast<std::uint32_t>(iv);
        viewData[i] = batch[i].gpu;
        viewData[i].originX = (i % tilesX) * R;
        viewData[i].originY = (i / tilesX) * R;
        const PairState& p = pairs[batch[i].pair];
        for (std::uint32_t side = 0; side < 2; ++side) {
            const ObjectId o = side == 0 ? p.a : p.b;
            const float offset = side == 0 ? p.offsetA : p.offsetB;
            const std::size_t d = 2 * std::size_t(i) + side;
            drawData[d] = {i, o, side, offset};
            if (!settings.cull) continue;
            const int a = int(batch[i].gpu.axis), u = (a + 1) % 3, w = (a + 2) % 3;
            const float pad = (offset > 0.0f ? kMaxOffsetScale * offset : 0.0f) + cullEpsilon[o];
            const Aabb& box = p.box;
            std::vector<std::uint32_t>& keep = kept[d];
            const std::vector<Aabb>& tris = triangleBoxes[o];
            for (std::uint32_t t = 0; t < tris.size(); ++t) {
                const Aabb& b = tris[t];
                if (b.max[u] + pad < box.min[u] || b.min[u] - pad > box.max[u] || b.max[w] + pad < box.min[w] ||
                    b.min[w] - pad > box.max[w] || b.min[a] - pad > box.max[a])
                    continue;
                if (!settings.fill && b.max[a] + pad < box.min[a]) continue;
                keep.push_back(t);
            }
        }
    }
    double triangles = 0;
    indexData.clear();
    for (std::uint32_t d = 0; d < 2 * n; ++d) {
        const gl::ObjectRange& range = scene.object(drawData[d].object);
        if (!settings.cull) {
            commands[d] = {3 * range.triangleCount, 1, 3 * range.firstTriangle,
                           static_cast<std::int32_t>(range.firstVertex), d};
            triangles += range.triangleCount;
            continue;
        }
        const auto faces = sceneRef->objectMesh(drawData[d].object).triangles();
        commands[d] = {3 * std::uint32_t(kept[d].size()), 1, std::uint32_t(indexData.size()),
                       static_cast<std::int32_t>(range.firstVertex), d};
        for (std::uint32_t t : kept[d]) indexData.insert(indexData.end(), {faces[t].x, faces[t].y, faces[t].z});
        triangles += double(kept[d].size());
    }
    if (settings.cull) {
        culledIndices.reserveWithHeadroom(std::max<std::size_t>(indexData.size(), 3) * sizeof(std::uint32_t));
        if (!indexData.empty()) culledIndices.upload<std::uint32_t>(0, indexData);
    }
    addCount(stats, "triangles_drawn", triangles * (settings.fill ? 2.0 : 1.0));
    addCount(stats, "batches", 1);
    const auto drawCount = static_cast<std::uint32_t>(drawData.size());
    // Buffers sized with headroom (per-pixel ones at most to a full batch's atlas): the pile's
    // pairs go up and down, and a buffer re-made at every new high is GL memory that creeps up.
    views.assignWithHeadroom(viewData);
    draws.assignWithHeadroom(drawData);
    indirect.assignWithHeadroom(commands);
    if (drawIds.reserveSequence(drawCount)) {
        vao.setVertexBuffer(0, drawIds, 0, sizeof(std::uint32_t), 1);
        vao.setIntegerAttribute(SL_ATTRIB_DRAW_ID, 0, 1, GL_UNSIGNED_INT);
    }
    // Re-set every batch: sync() may have re-created the scene's index buffer.
    vao.setElementBuffer(settings.cull ? culledIndices : scene.indexBuffer());

    // Per-view results: counts 0, the volume's minima at their largest.
    std::vector<gl::SlResult> resultInit(n, gl::SlResult{0, ~0u, ~0u, ~0u, 0, 0, 0, 0, 0, 0, 0, 0});
    results.reserveWithHeadroom(n * sizeof(gl::SlResult));
    results.upload<gl::SlResult>(0, resultInit);
    counters.clearZero();
    const auto [mostW, mostH] = fullBatchAtlas(R);
    const std::size_t mostPixels = std::max(pixels, std::size_t(mostW) * mostH);
    samples.reserveWithHeadroom(std::max<std::size_t>(pixels, 1) * sizeof(gl::SlSample), mostPixels * sizeof(gl::SlSample));
    pixelCounts.reserveWithHeadroom(2 * pixels * sizeof(std::uint32_t), 2 * mostPixels * sizeof(std::uint32_t));
    if (shaderOr) {
        bits.reserveWithHeadroom(pixels * std::size_t(targets) * 4 * sizeof(std::uint32_t),
                                 mostPixels * std::size_t(targets) * 4 * sizeof(std::uint32_t));
        bits.clearZero(0, pixels * std::size_t(targets) * 4 * sizeof(std::uint32_t));
    } else {
        const GLuint zero[4] = {0, 0, 0, 0};
        glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);  // clears obey the mask and the scissor
        glDisable(GL_SCISSOR_TEST);  // (another user of the context may have left either)
        for (int t = 0; t < targets; ++t) glClearNamedFramebufferuiv(framebuffer.id(), GL_COLOR, t, zero);
    }

    scene.bind();
    normals.bindBase(GL_SHADER_STORAGE_BUFFER, SL_BINDING_NORMALS);
    views.bindBase(GL_SHADER_STORAGE_BUFFER, SL_BINDING_VIEWS);
    draws.bindBase(GL_SHADER_STORAGE_BUFFER, SL_BINDING_DRAWS);
    if (shaderOr) bits.bindBase(GL_SHADER_STORAGE_BUFFER, SL_BINDING_BITS);
    results.bindBase(GL_SHADER_STORAGE_BUFFER, SL_BINDING_RESULTS);
    samples.bindBase(GL_SHADER_STORAGE_BUFFER, SL_BINDING_SAMPLES);
    counters.bindBase(GL_SHADER_STORAGE_BUFFER, SL_BINDING_COUNTERS);
    pixelCounts.bindBase(GL_SHADER_STORAGE_BUFFER, SL_BINDING_PIXELS);
    for (gl::Program* p : {&fillRaster, &surfaceRaster}) {
        p->setUniform("uTileSize", R);
        p->setUniform("uAtlasSize", glm::vec2(W, H));
        if (shaderOr) p->setUniform("uAtlasWidth", W);
    }

    BatchTimer timer;
    timer.mark(0);
    framebuffer.bind();
    glViewport(0, 0, GLsizei(W), GLsizei(H));
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    glDisable(GL_BLEND);
    glDisable(GL_DITHER);
    glDisable(GL_SCISSOR_TEST);
    glDepthMask(GL_FALSE);
    // Faces in front of or behind the view volume still count in the fill's parity.
    glEnable(GL_DEPTH_CLAMP);
    if (shaderOr) {
        glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
    } else {
        glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
        glEnable(GL_COLOR_LOGIC_OP);
    }
    vao.bind();
    indirect.bind(GL_DRAW_INDIRECT_BUFFER);
    if (settings.fill) {
        if (!shaderOr) glLogicOp(GL_XOR);
        fillRaster.use();
        glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT, nullptr, GLsizei(commands.size()), 0);
        if (shaderOr) glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    }
    if (!shaderOr) glLogicOp(GL_OR);
    surfaceRaster.use();
    glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT, nullptr, GLsizei(commands.size()), 0);
    if (!shaderOr) {
        glLogicOp(GL_COPY);
        glDisable(GL_COLOR_LOGIC_OP);
    }
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glDepthMask(GL_TRUE);  // GL's defaults back: the next detector's depth clears obey the mask
    glEnable(GL_DITHER);
    glDisable(GL_DEPTH_CLAMP);
    glBindVertexArray(0);
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, 0);
    gl::Framebuffer::bindDefault();
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT | GL_FRAMEBUFFER_BARRIER_BIT);
    timer.mark(1);

    // The test pass: every bit ANDed on the GPU; per view counts and volumes, samples.
    if (!shaderOr)
        for (int t = 0; t < targets; ++t) target[t].bindUnit(GLuint(SL_UNIT_TARGET0 + t));
    test.setUniform("uAtlasSize", glm::uvec2(W, H));
    test.setUniform("uTileSize", R);
    test.setUniform("uViewCount", n);
    test.setUniform("uEmitSamples", emitSamples ? 1u : 0u);
    test.setUniform("uPhase", 0u);
    test.use();
    test.dispatch((W + 7) / 8, (H + 7) / 8);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    if (emitSamples) {  // the samples, with each pair's normal summed by the first dispatch
        test.setUniform("uPhase", 1u);
        test.dispatch((W + 7) / 8, (H + 7) / 8);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    }
    timer.mark(2);

    // The mapping: counters, results (one per view), samples from the next 16 bytes.
    std::uint32_t counterValues[SL_COUNTER_COUNT] = {};
    const std::size_t countersBytes = sizeof(counterValues), resultsBytes = std::size_t(n) * sizeof(gl::SlResult);
    const std::size_t resultsAt = (countersBytes + 15) / 16 * 16;
    const std::size_t dataAt = (resultsAt + resultsBytes + 15) / 16 * 16;
    const std::size_t samplesCopied = emitSamples ? std::min(samples.size() / sizeof(gl::SlSample), sampleCopy) : 0;
    if (auto r = readback.reserve(dataAt + samplesCopied * sizeof(gl::SlSample)); !r) return r;
    readback.copyFrom(counters, 0, countersBytes, 0);
    readback.copyFrom(results, 0, resultsBytes, resultsAt);
    readback.copyFrom(samples, 0, samplesCopied * sizeof(gl::SlSample), dataAt);
    const auto tr = Clock::now();
    if (auto r = gl::waitForGpu("slices, a batch's passes"); !r) return r;
    std::memcpy(counterValues, readback.data(), countersBytes);
    const auto* resultsRead = readback.at<gl::SlResult>(resultsAt);
    resultData.assign(resultsRead, resultsRead + n);
    const std::uint32_t sampleCount = counterValues[SL_COUNTER_SAMPLES];
    if (sampleCount > samplesCopied) {  // more than the last batch: the rest in a second copy
        if (auto r = readback.reserve(dataAt + std::size_t(sampleCount) * sizeof(gl::SlSample)); !r) return r;
        readback.copyFrom(samples, 0, std::size_t(sampleCount) * sizeof(gl::SlSample), dataAt);
        if (auto r = gl::waitForGpu("slices, copying the samples"); !r) return r;
        addCount(stats, "late_copies", 1);
    }
    std::vector<gl::SlSample>& sampleData = batchSamples;
    const auto* samplesRead = readback.at<gl::SlSample>(dataAt);
    sampleData.assign(samplesRead, samplesRead + sampleCount);
    if (emitSamples) sampleCopy = std::size_t(sampleCount) + sampleCount / 4 + 256;
    readbackMs += msSince(tr);
    addCount(stats, "gpu_raster_ms", timer.ms(0, 1));
    addCount(stats, "gpu_test_ms", timer.ms(1, 2));

    // Each view's pair: its shared voxels and collision volume (world) for the next round.
    for (std::uint32_t i = 0; i < n; ++i) {
        PairState& p = pairs[batch[i].pair];
        const gl::SlResult& r = resultData[i];
        const gl::SlView& v = batch[i].gpu;
        p.voxels = r.voxels;
        p.alive = r.voxels > 0;
        const int axis = int(v.axis), au = (axis + 1) % 3, aw = (axis + 2) % 3;
        const float S = float(v.slices), Rf = float(R);
        p.voxelDiagonal = voxelDiagonalOf(p.box, axis, settings.resolution, int(v.slices));
        if (!p.alive) continue;
        Vec3 lo(0.0f), hi(0.0f);  // normalised view coordinates of the colliding voxels
        lo[au] = float(r.minX) / Rf;
        hi[au] = float(r.maxX + 1) / Rf;
        lo[aw] = float(r.minY) / Rf;
        hi[aw] = float(r.maxY + 1) / Rf;
        lo[axis] = float(r.minK) / S;
        hi[axis] = float(r.maxK + 1) / S;
        const Vec3 bmin(v.boxMin), bsize(v.boxSize);
        p.region = Aabb{bmin + lo * bsize, bmin + hi * bsize};
        p.firstSample = -1;
        p.sampleCount = 0;
    }
    if (emitSamples && sampleCount > 0) {
        // Group by view (the order of appends is the GPU's), then hand each pair its range.
        std::stable_sort(sampleData.begin(), sampleData.end(),
                         [](const gl::SlSample& x, const gl::SlSample& y) {
                             return x.view != y.view ? x.view < y.view : x.pixel < y.pixel;
                         });
        for (std::size_t s = 0; s < sampleData.size();) {
            std::size_t e = s;
            while (e < sampleData.size() && sampleData[e].view == sampleData[s].view) ++e;
            PairState& p = pairs[batch[sampleData[s].view].pair];
            p.firstSample = std::int64_t(sampleOut.size());
            p.sampleCount = std::uint32_t(e - s);
            sampleOut.insert(sampleOut.end(), sampleData.begin() + std::ptrdiff_t(s),
                             sampleData.begin() + std::ptrdiff_t(e));
            s = e;
        }
    }
    if (auto e = gl::checkError("after slices batch"); !e) return e;
    return {};
}

SlicesDetector::SlicesDetector(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SlicesDetector::~SlicesDetector() = default;

bool SlicesDetector::reportsTrianglePairs() const { return impl_->settings.exact; }
bool SlicesDetector::needsClosedMeshes() const { return impl_->settings.fill; }
bool SlicesDetector::usesShaderOr() const { return impl_->shaderOr; }

std::vector<DetectorDebugView> SlicesDetector::debugViews() const {
    const Impl& im = *impl_;
    if (im.lastWidth == 0) return {};
    DetectorDebugView shared{"shared slices", "slices both objects occupy in a pixel (collision where > 0)",
                             im.pixelCounts.id(), 0, DetectorDebugView::Format::Counts, im.lastWidth, im.lastHeight};
    DetectorDebugView occupied{"occupied slices", "slices either object occupies in a pixel",
                               im.pixelCounts.id(),
                               std::size_t(im.lastWidth) * std::size_t(im.lastHeight) * sizeof(std::uint32_t),
                               DetectorDebugView::Format::Counts, im.lastWidth, im.lastHeight};
    return {shared, occupied};
}

Result<void> SlicesDetector::detect(const Scene& scene, std::span<const ObjectPair> candidates,
                                    DetectionOutput& out) {
    const auto t0 = Clock::now();
    out.clear();
    Impl& im = *impl_;
    const SlicesSettings& st = im.settings;
    DetectorStats& stats = out.stats;
    double readbackMs = 0.0;
    for (const ObjectPair& p : candidates)
        if (p.a >= scene.objectCount() || p.b >= scene.objectCount())
            return fail("SlicesDetector::detect(): candidate pair (" + std::to_string(p.a) + ", " +
                        std::to_string(p.b) + ") names an object the scene does not have");

    // Objects taking part: active, finite pose; their world boxes (computed once).
    std::vector<char> state(scene.objectCount(), 0);  // 0 unseen, 1 ok, 2 skipped
    std::vector<Aabb> boxes(scene.objectCount());
    std::vector<char> openWarned(scene.objectCount(), 0);
    auto usable = [&](ObjectId o) {
        if (state[o] == 0) {
            state[o] = 1;
            if (!scene.isActive(o)) {
                state[o] = 2;
            } else if (!scene.pose(o).isFinite()) {
                state[o] = 2;
                stats.warnings.push_back("object " + std::to_string(o) +
                                         " has a non-finite pose (NaN or Inf): skipped this step");
            } else {
                const Pose& pose = scene.pose(o);
                for (const Vec3& v : scene.localVertices(o)) boxes[o].grow(pose.apply(v));
                const Vec3 e = boxes[o].extent();
                boxes[o] = boxes[o].expanded(1e-6f * std::max({e.x, e.y, e.z}) + 1e-30f);
            }
        }
        return state[o] == 1;
    };

    const auto tc = Clock::now();
    std::vector<PairState> pairs;
    double fattened = 0, disjoint = 0, open = 0;
    const int R = st.resolution;
    const int lastSlices = st.lastSlices > 0 ? st.lastSlices : st.slices;
    for (std::uint32_t c = 0; c < candidates.size(); ++c) {
        const ObjectPair p = candidates[c];
        if (p.a == p.b) {
            if (im.common.selfCollision) out.unserved.push_back(p);  // one object against itself: not this method
            continue;
        }
        if (!usable(p.a) || !usable(p.b)) continue;
        if (st.fill) {
            bool closed = true;
            for (ObjectId o : {p.a, p.b}) {
                if (scene.objectMesh(o).isClosed()) continue;
                closed = false;
                if (!openWarned[o]) {
                    openWarned[o] = 1;
                    stats.warnings.push_back("object " + std::to_string(o) + " has an open mesh (" +
                                             scene.objectMesh(o).report().describe() +
                                             "): slices with fill=true needs closed meshes; its pairs are returned "
                                             "unserved (the dispatcher sends them to the exact path)");
                }
            }
            if (!closed) {
                out.unserved.push_back(p);
                open += 1;
                continue;
            }
        }
        Aabb boxA = boxes[p.a], boxB = boxes[p.b];
        Aabb overlap = boxA.intersection(boxB);
        if (overlap.isEmpty() && st.offset <= 0.0f) {
            disjoint += 1;  // boxes apart: the objects cannot touch
            continue;
        }
        const float size = std::min(glm::length(boxA.extent()), glm::length(boxB.extent()));
        PairState ps;
        ps.candidate = c;
        ps.a = p.a;
        ps.b = p.b;
        if (st.offset != 0.0f) {
            if (st.offsetUnit == "model") {
                ps.offsetA = st.offset * glm::length(scene.objectMesh(p.a).localBounds().extent());
                ps.offsetB = st.offset * glm::length(scene.objectMesh(p.b).localBounds().extent());
            } else {
                Aabb first = overlap;
                if (first.isEmpty()) first = Aabb{glm::min(overlap.min, overlap.max), glm::max(overlap.min, overlap.max)};
                fatten(first, R, 1e-3f * size);
                const float diag = voxelDiagonalOf(first, smallestAxis(first.extent()), R, st.slices);
                ps.offsetA = ps.offsetB = st.offset * diag;
            }
            // A swollen object reaches at most kMaxOffsetScale times its offset beyond its box.
            if (ps.offsetA > 0.0f) boxA = boxA.expanded(kMaxOffsetScale * ps.offsetA);
            if (ps.offsetB > 0.0f) boxB = boxB.expanded(kMaxOffsetScale * ps.offsetB);
            overlap = boxA.intersection(boxB);
            if (overlap.isEmpty()) {
                disjoint += 1;
                continue;
            }
        }
        if (fatten(overlap, R, 1e-3f * size)) fattened += 1;
        ps.box = overlap;
        pairs.push_back(ps);
    }
    stats.count("cpu_setup_ms", msSince(tc));

    // Rounds: the first rendering, then the refinements of the pairs that collided.
    double renderings = 0, gpuMs = 0;
    std::vector<gl::SlSample>& sampleData = im.callSamples;
    sampleData.clear();
    if (!pairs.empty()) {
        const auto tu = Clock::now();
        im.syncScene(scene);
        stats.count("cpu_upload_ms", msSince(tu));
    }
    im.sceneRef = &scene;
    if (st.cull && !pairs.empty()) {
        const auto tb = Clock::now();
        im.triangleBoxes.resize(scene.objectCount());
        im.cullEpsilon.assign(scene.objectCount(), 0.0f);
        std::vector<ObjectId> objects;
        std::vector<char> taking(scene.objectCount(), 0);
        for (const PairState& p : pairs)
            for (ObjectId o : {p.a, p.b})
                if (!taking[o]) taking[o] = 1, objects.push_back(o);
        const auto count = static_cast<std::int64_t>(objects.size());
#pragma omp parallel for schedule(dynamic, 1) if (count > 1)
        for (std::int64_t k = 0; k < count; ++k) {
            const ObjectId o = objects[std::size_t(k)];
            const Pose& pose = scene.pose(o);
            const std::span<const Vec3> v = scene.localVertices(o);
            std::vector<Vec3> world(v.size());
            for (std::size_t i = 0; i < v.size(); ++i) world[i] = pose.apply(v[i]);
            const auto faces = scene.objectMesh(o).triangles();
            std::vector<Aabb>& boxesOut = im.triangleBoxes[o];
            boxesOut.resize(faces.size());
            for (std::size_t t = 0; t < faces.size(); ++t) {
                Aabb b;
                b.grow(world[faces[t].x]);
                b.grow(world[faces[t].y]);
                b.grow(world[faces[t].z]);
                boxesOut[t] = b;
            }
            const Vec3 e = boxes[o].extent();
            im.cullEpsilon[o] = 1e-5f * std::max({e.x, e.y, e.z});
        }
        stats.count("cpu_cull_setup_ms", msSince(tb));
    }
    for (int round = 0; round <= st.refine; ++round) {
        const bool last = round == st.refine;
        const int S = last ? lastSlices : st.slices;
        std::vector<View> views;
        for (std::uint32_t i = 0; i < pairs.size(); ++i) {
            PairState& p = pairs[i];
            if (!p.alive) continue;
            if (round > 0) {
                // The collision volume, widened by one voxel, inside the last view volume.
                const Aabb widened = p.region.expanded(p.voxelDiagonal);
                p.box = widened.intersection(p.box);
                fatten(p.box, R, 1e-3f * p.voxelDiagonal);
            }
            View v;
            v.pair = i;
            const int axis = smallestAxis(p.box.extent());
            v.gpu.boxMin = Vec4(p.box.min, 0.0f);
            v.gpu.boxSize = Vec4(p.box.extent(), 0.0f);
            // Where the fill gradient vanishes (inside both, away from the region's sides):
            // the depth axis (the overlap's thinnest), pointing from B's box toward A's.
            Vec3 fallback(0.0f);
            fallback[axis] = boxes[p.a].center()[axis] >= boxes[p.b].center()[axis] ? 1.0f : -1.0f;
            v.gpu.fallback = Vec4(fallback, 0.0f);
            v.gpu.axis = std::uint32_t(axis);
            v.gpu.slices = std::uint32_t(S);
            views.push_back(v);
        }
        if (views.empty()) break;
        renderings += double(views.size());
        const std::size_t perBatch = std::max<std::size_t>(1, kMaxAtlasPixels / (std::size_t(R) * std::size_t(R)));
        for (std::size_t first = 0; first < views.size(); first += perBatch) {
            const std::size_t count = std::min(perBatch, views.size() - first);
            if (auto r = im.runBatch(std::span<const View>(views).subspan(first, count), pairs, last && st.samples,
                                     sampleData, out, readbackMs);
                !r)
                return r;
        }
    }
    gpuMs = stats.counter("gpu_raster_ms") + stats.counter("gpu_test_ms");

    // Results: pairs whose last rendering shares a voxel; with `exact`, only those whose
    // triangles inside the collision volume intersect.
    std::vector<std::uint32_t> colliding;
    double sharedVoxels = 0;
    for (std::uint32_t i = 0; i < pairs.size(); ++i) {
        if (!pairs[i].alive) continue;
        colliding.push_back(i);
        sharedVoxels += pairs[i].voxels;
    }
    std::vector<detail::SlicesExact::Query> queries;
    for (std::uint32_t i : colliding) {
        const PairState& p = pairs[i];
        queries.push_back({p.a, p.b, p.region.expanded(p.voxelDiagonal)});
    }
    std::vector<detail::SlicesExact::Found> found;
    if (st.exact) {
        const auto te = Clock::now();
        im.exact.run(scene, queries, im.common.wantSegments, found, stats);
        stats.count("cpu_exact_ms", msSince(te));
    }
    for (std::size_t k = 0; k < colliding.size(); ++k) {
        const PairState& p = pairs[colliding[k]];
        PairResult r;
        r.pair = candidates[p.candidate];
        if (st.exact) {
            if (found[k].triangles.empty()) continue;
            r.triangles = std::move(found[k].triangles);
            r.segments = std::move(found[k].segments);
        }
        if (st.samples && p.firstSample >= 0) {
            for (std::uint32_t s = 0; s < p.sampleCount; ++s) {
                const gl::SlSample& g = sampleData[std::size_t(p.firstSample) + s];
                ContactSample cs;
                cs.pointOnB = Vec3(g.point);
                cs.depth = g.point.w;
                cs.normalOnB = Vec3(g.normal);  // the pair's (test.glsl, phase 0)
                r.samples.push_back(cs);
            }
        }
        if (r.triangles.empty() && r.samples.empty()) continue;
        out.pairs.push_back(std::move(r));
    }
    std::sort(out.pairs.begin(), out.pairs.end(), [](const PairResult& x, const PairResult& y) { return x.pair < y.pair; });

    stats.count("candidate_pairs", double(candidates.size()));
    stats.count("served_pairs", double(pairs.size()));
    stats.count("unserved_pairs", double(out.unserved.size()));
    stats.count("open_object_pairs", open);
    stats.count("fattened_pairs", fattened);
    stats.count("disjoint_pairs", disjoint);
    stats.count("renderings", renderings);
    stats.count("shared_voxels", sharedVoxels);
    stats.count("voxel_colliding_pairs", double(colliding.size()));
    stats.count("samples", double(sampleData.size()));
    stats.count("colliding_pairs", double(out.pairs.size()));
    stats.count("shader_or", im.shaderOr ? 1.0 : 0.0);
    stats.gpuMs = gpuMs;
    stats.readbackMs = readbackMs;
    stats.totalMs = msSince(t0);
    stats.cpuMs = stats.totalMs - readbackMs;
    return {};
}

Result<bool> probeIntegerLogicOp() {
    if (glad_glCreateBuffers == nullptr) return fail("probeIntegerLogicOp(): no current GL context");
    auto program = gl::Program::create({{GL_VERTEX_SHADER, "slices/probe.vert.glsl"},
                                        {GL_FRAGMENT_SHADER, "slices/probe.frag.glsl"}},
                                       "", "slices logic-op probe");
    if (!program) return fail(program.error().message);
    gl::Texture texture = gl::Texture::create2D("slices probe target", GL_RGBA32UI, 1, 1);
    gl::Framebuffer fb("slices probe");
    fb.attachTexture(GL_COLOR_ATTACHMENT0, texture);
    if (auto r = fb.checkComplete(); !r) return fail(r.error().message);
    gl::VertexArray vao("slices probe vao");
    GLint viewport[4];
    glGetIntegerv(GL_VIEWPORT, viewport);
    fb.bind();
    glViewport(0, 0, 1, 1);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_BLEND);
    glEnable(GL_COLOR_LOGIC_OP);
    vao.bind();
    program->use();
    // XOR: 1 ^ 3 = 2 (a plain write would give 3); OR: 1 | 2 = 3 (a plain write: 2).
    const std::uint32_t cases[2][3] = {{GL_XOR, 3, 2}, {GL_OR, 2, 3}};
    bool ok = true;
    for (const auto& c : cases) {
        fb.clearColorUint(0, 1);
        glLogicOp(GLenum(c[0]));
        program->setUniform("uValue", c[1]);
        glDrawArrays(GL_TRIANGLES, 0, 3);
        GLuint texel[4] = {};
        glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT | GL_FRAMEBUFFER_BARRIER_BIT);
        texture.read(0, GL_RGBA_INTEGER, GL_UNSIGNED_INT, sizeof texel, texel);
        ok = ok && texel[0] == c[2];
    }
    glLogicOp(GL_COPY);
    glDisable(GL_COLOR_LOGIC_OP);
    glBindVertexArray(0);
    gl::Framebuffer::bindDefault();
    glViewport(viewport[0], viewport[1], viewport[2], viewport[3]);
    if (auto e = gl::checkError("after the slices logic-op probe"); !e) return fail(e.error().message);
    return ok;
}

Result<std::unique_ptr<Detector>> createSlicesDetector(const DetectorSettings& common, const SlicesSettings& settings) {
    auto range = [](int v, int lo, int hi) { return v >= lo && v <= hi; };
    if (!range(settings.resolution, 4, 512))
        return fail("createSlicesDetector(): resolution " + std::to_string(settings.resolution) +
                    " is outside [4, 512]; use e.g. 32");
    if (!range(settings.slices, 1, SL_MAX_SLICES))
        return fail("createSlicesDetector(): slices " + std::to_string(settings.slices) + " is outside [1, 128]");
    if (settings.lastSlices != 0 && !range(settings.lastSlices, 1, SL_MAX_SLICES))
        return fail("createSlicesDetector(): lastSlices " + std::to_string(settings.lastSlices) +
                    " is outside [1, 128] (0: the same as slices)");
    if (!range(settings.refine, 0, 8))
        return fail("createSlicesDetector(): refine " + std::to_string(settings.refine) + " is outside [0, 8]");
    if (settings.offsetUnit != "voxel" && settings.offsetUnit != "model")
        return fail("createSlicesDetector(): offsetUnit \"" + settings.offsetUnit + "\" is not voxel or model");
    if (glad_glCreateBuffers == nullptr)
        return fail("createSlicesDetector(): no current GL context; create one with isc::gl::Context first");
    auto impl = std::make_unique<SlicesDetector::Impl>();
    impl->common = common;
    impl->settings = settings;
    if (!settings.exact) impl->settings.samples = true;  // the samples carry the voxel verdict
    const int most = std::max(settings.slices, settings.lastSlices);
    impl->targets = (most + SL_SLICES_PER_TARGET - 1) / SL_SLICES_PER_TARGET;
    if (settings.logicOp) {
        auto probe = probeIntegerLogicOp();
        if (!probe) return fail(probe.error().message);
        impl->shaderOr = !*probe;
    } else {
        impl->shaderOr = true;
    }
    if (auto c = impl->compile(); !c) return fail(c.error().message);
    return std::unique_ptr<Detector>(new SlicesDetector(std::move(impl)));
}

namespace detectors {

DetectorInfo slicesInfo() {
    DetectorInfo d;
    d.name = "slices";
    d.summary = "colour-coded depth slices per pair, glLogicOp (Dinerstein & Egbert); samples, exact pairs";
    d.usesGl = true;
    d.needsClosedMeshes = true;
    // Not an exact detector for `auto`: its recall is 1 only with a conservative offset.
    d.reportsTrianglePairs = false;
    d.reportsContactSamples = true;
    d.settings = describeSettings<SlicesSettings>();
    d.describeGl = []() -> std::string {
        auto probe = probeIntegerLogicOp();
        if (!probe) return "logic-op probe failed (" + probe.error().message + "): shader-OR path";
        return *probe ? "glLogicOp(GL_OR, GL_XOR) works on RGBA32UI here: the logic-op path"
                      : "glLogicOp does not work on RGBA32UI here: the shader-OR path (storage-buffer atomics)";
    };
    d.create = [](const DetectorSettings& common) -> Result<std::unique_ptr<Detector>> {
        SlicesSettings settings;
        if (auto r = applyOptions(settings, common.options, "slices"); !r) return fail(r.error().message);
        return createSlicesDetector(common, settings);
    };
    return d;
}

}  // namespace detectors

}  // namespace isc
