// The peel detector: settings, creation, and one detect() call's outline. The passes live in
// their own units: PeelSetup (CPU set-up: objects, boxes, tiles), PeelClusters (cluster
// trees), PeelScenePass (scene sampling: 3-D cull, image passes, GPU narrowphase),
// PeelExact (exact CPU test), PeelPairTiles and PeelNarrowphase (pair tiles, sampling
// "pairs" and "peeling").
#include "isc/detectors/PeelDetector.h"

#include "isc/detect/Registry.h"

#include "PeelGl.h"
#include "PeelPairTiles.h"
#include "PeelScenePass.h"
#include "PeelSetup.h"

#include "isc/gl/GpuScene.h"

#include <bit>
#include <cstdlib>
#include <optional>
#include <string>

namespace isc {

static_assert(sizeof(gl::PeelTile) == 96, "PeelTile must match its std430 layout");
static_assert(sizeof(gl::PeelRecord) == 16, "PeelRecord must match its std430 layout");
static_assert(sizeof(gl::PeelPart) == 48, "PeelPart must match its std430 layout");
static_assert(sizeof(gl::PeelClusterNode) == 32, "PeelClusterNode must match its std430 layout");
static_assert(sizeof(gl::PeelBox) == 32, "PeelBox must match its std430 layout");
static_assert(sizeof(gl::PeelPair) == 16, "PeelPair must match its std430 layout");
static_assert(sizeof(peel::TrianglePairCandidate) == 12, "TrianglePairCandidate must match the output layout");

struct PeelDetector::Impl {
    DetectorSettings common;
    PeelSettings settings;
    bool sceneSampling = true;
    bool conservativeRaster = false;  // asked for and the driver has GL_NV_conservative_raster
    gl::GpuScene gpu{"peel scene"};
    std::optional<peel::PeelScenePass> scenePass;
    std::optional<peel::PeelPairTilePass> pairPass;
    peel::CallObjects objects;
    // Before the call's work (2026-11-29, eleventh session): the last call's pairs freed while this
    // call's GPU part runs (DetectionOutput::clearInto, PeelScenePass::setSpent) and the objects
    // classed by object (classifyObjects' byObject). Test hook ISC_PEEL_PRE=0: the output cleared at
    // the call's start and the objects classed pair by pair, as before (0.024 against 0.015 ms of
    // the deforming pile's call before the scene pass on the development machine).
    std::vector<PairResult> spentPairs;
    bool leanStart = true;  // ISC_PEEL_PRE=0: false
    // The scene the pass's per-mesh trees (by MeshId) were made for: another scene handed to
    // the same detector starts them afresh (test
    // DetectorLifetime.ReusedOnAnotherSceneAnswersAsAFreshOne; the GpuScene follows by itself).
    // The same scene grown (new meshes and objects) or with retired meshes (no active object
    // uses them) keeps them.
    std::uint64_t mirroredScene = 0;

    Result<void> createPass() {
        if (sceneSampling) {
            scenePass.emplace();
            if (auto c = scenePass->create(settings, common, conservativeRaster); !c) return fail(c.error().message);
        } else {
            pairPass.emplace();
            if (auto c = pairPass->create(settings, common, conservativeRaster); !c) return fail(c.error().message);
        }
        return {};
    }

    Result<void> follow(const Scene& scene) {
        if (mirroredScene != 0 && mirroredScene != scene.uid())
            if (auto c = createPass(); !c) return c;
        mirroredScene = scene.uid();
        return {};
    }
};

PeelDetector::PeelDetector(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PeelDetector::~PeelDetector() = default;

bool PeelDetector::needsClosedMeshes() const { return !impl_->settings.openMeshes; }

std::vector<DetectorDebugView> PeelDetector::debugViews() const {
    return impl_->sceneSampling && impl_->scenePass ? impl_->scenePass->debugViews() : std::vector<DetectorDebugView>{};
}

Result<void> PeelDetector::detect(const Scene& scene, std::span<const ObjectPair> candidates, DetectionOutput& out) {
    const auto t0 = peel::Clock::now();
    Impl& im = *impl_;
    if (im.leanStart) out.clearInto(im.spentPairs);
    else out.clear();
    for (const ObjectPair& p : candidates)
        if (p.a >= scene.objectCount() || p.b >= scene.objectCount())
            return fail("PeelDetector::detect(): candidate pair (" + std::to_string(p.a) + ", " +
                        std::to_string(p.b) + ") names an object the scene does not have");
    if (auto f = im.follow(scene); !f) return f;
    const auto tc = peel::Clock::now();
    peel::classifyObjects(scene, candidates, im.common.selfCollision, im.settings.openMeshes, im.objects, out,
                          im.leanStart);
    out.stats.cpuMs += peel::msSince(tc);
    out.stats.count("conservative_raster", im.conservativeRaster ? 1.0 : 0.0);
    if (im.settings.conservativeRaster && !im.conservativeRaster)
        out.stats.warnings.push_back("conservativeRaster: the driver has no GL_NV_conservative_raster; rasterized normally");
    out.stats.count("axes", double(peel::effectiveAxes(im.settings)));
    // (Diagnostic, since 2026-11-29's eleventh session: the last call's output cleared, the checks and
    // the objects' classes; 0.031-0.051 ms on the deforming pile, H200.)
    out.stats.count("cpu_before_pass_ms", peel::msSince(t0));
    if (im.sceneSampling) im.scenePass->setSpent(&im.spentPairs);
    const Result<void> r = im.sceneSampling ? im.scenePass->run(scene, im.gpu, candidates, im.objects, out)
                                            : im.pairPass->run(scene, im.gpu, candidates, im.objects, out);
    im.spentPairs.clear();  // (freed already where the scene pass issued its GPU part)
    if (!r) return r;
    out.stats.totalMs = peel::msSince(t0);
    return {};
}

Result<std::unique_ptr<Detector>> createPeelDetector(const DetectorSettings& common, const PeelSettings& settings) {
    const int r = settings.resolution;
    if (r != 0 && (r < 16 || r > 4096 || !std::has_single_bit(static_cast<unsigned>(r))))
        return fail("createPeelDetector(): resolution " + std::to_string(r) +
                    " is not 0 (auto) or a power of two in [16, 4096]; use e.g. 0, 128 or 512");
    if (settings.axes != 0 && settings.axes != 1 && settings.axes != 3)
        return fail("createPeelDetector(): axes must be 0 (auto), 1 (z) or 3 (x, y, z), got " +
                    std::to_string(settings.axes));
    if (settings.compaction != "auto" && settings.compaction != "atomic" && settings.compaction != "packing")
        return fail("createPeelDetector(): compaction \"" + settings.compaction +
                    "\" is unknown; use \"auto\", \"atomic\" or \"packing\"");
    if (settings.sampling != "auto" && settings.sampling != "scene" && settings.sampling != "pairs" &&
        settings.sampling != "peeling")
        return fail("createPeelDetector(): sampling \"" + settings.sampling +
                    "\" is unknown; use \"auto\", \"scene\", \"pairs\" or \"peeling\"");
    const bool sceneSampling = settings.sampling == "auto" || settings.sampling == "scene";
    if (settings.sampling == "peeling" && settings.openMeshes)
        return fail("createPeelDetector(): sampling \"peeling\" needs closed meshes (its facing test is the "
                    "paper's section 4.1 rule); use sampling \"pairs\" or \"scene\" with openMeshes");
    if (sceneSampling && settings.compaction == "packing")
        return fail("createPeelDetector(): compaction \"packing\" (the paper's row packing, read back to the CPU) "
                    "runs with the pair tiles only; use sampling \"pairs\" or \"peeling\" with it, or compaction "
                    "\"auto\"");
    if (settings.rays != "auto" && settings.rays != "on" && settings.rays != "off")
        return fail("createPeelDetector(): rays \"" + settings.rays + "\" is unknown; use \"auto\", \"on\" or \"off\"");
    if (settings.rays == "off" && common.selfCollision)
        return fail("createPeelDetector(): rays \"off\" cannot serve self-collision (its facing rule needs the collision "
                    "rays); use rays \"auto\" or \"on\" with selfCollision");
    if (settings.rays == "off" && !sceneSampling)
        return fail("createPeelDetector(): rays \"off\" is a form of scene sampling; use sampling \"auto\" or "
                    "\"scene\" with it");
    if (settings.exactThreads < 0 || settings.exactThreads > 1024)
        return fail("createPeelDetector(): exactThreads " + std::to_string(settings.exactThreads) +
                    " is not 0 (every core) or 1..1024");
    if (settings.walk != "auto" && settings.walk != "fused" && settings.walk != "levels")
        return fail("createPeelDetector(): walk \"" + settings.walk + "\" is unknown; use \"auto\", \"fused\" or \"levels\"");
    if (settings.refit != "auto" && settings.refit != "cpu" && settings.refit != "gpu")
        return fail("createPeelDetector(): refit \"" + settings.refit + "\" is unknown; use \"auto\", \"cpu\" or \"gpu\"");
    if (settings.gpuTimers != "stages" && settings.gpuTimers != "passes" && settings.gpuTimers != "off")
        return fail("createPeelDetector(): gpuTimers \"" + settings.gpuTimers +
                    "\" is unknown; use \"stages\", \"passes\" or \"off\"");
    if (settings.maxLayers < 2 || settings.maxLayers > 128)
        return fail("createPeelDetector(): maxLayers " + std::to_string(settings.maxLayers) +
                    " is outside [2, 128]");
    if (glad_glCreateBuffers == nullptr)
        return fail("createPeelDetector(): no current GL context; create one with isc::gl::Context first");
    auto impl = std::make_unique<PeelDetector::Impl>();
    impl->common = common;
    impl->settings = settings;
    impl->sceneSampling = sceneSampling;
    if (const char* v = std::getenv("ISC_PEEL_PRE"); v != nullptr && *v == '0') impl->leanStart = false;
    impl->conservativeRaster = settings.conservativeRaster && peel::hasGlExtension("GL_NV_conservative_raster");
    if (auto c = impl->createPass(); !c) return fail(c.error().message);
    return std::unique_ptr<Detector>(new PeelDetector(std::move(impl)));
}

namespace detectors {

DetectorInfo peelInfo() {
    DetectorInfo d;
    d.name = "peel";
    d.summary = "depth peeling: 3-D cull, collision rays, ray-bundle mipmap, GPU filter, exact CPU test "
                "(Georgii, Krueger & Westermann)";
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
