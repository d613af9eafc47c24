// isc accuracy: a detector against the exact CPU reference, pose by pose.
#include "Commands.h"
#include "DetectorArgs.h"
#include "DetectorChoice.h"
#include "MeshArg.h"
#include "Progress.h"

#include "isc/detectors/CpuDetector.h"
#include "isc/detect/AutoDetector.h"
#include "isc/detect/Detector.h"
#include "isc/detect/Registry.h"
#include "isc/geometry/PoseSampler.h"
#include "isc/gl/Context.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>

namespace isc::tool {
namespace {

struct AccuracyOptions {
    std::string detector = "auto";
    std::vector<std::string> meshes;
    int poses = 200;
    std::string posesFile;
    std::uint64_t seed = 1;
    std::vector<std::string> sets;  // --set name=value
    std::string verdicts;
    bool quiet = false;
};

std::string ratio(std::size_t num, std::size_t den) {
    if (den == 0) return "n/a";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f", double(num) / double(den));
    return buf;
}

const PairResult* findPair(const DetectionOutput& out) {
    for (const PairResult& r : out.pairs)
        if (r.pair.a == 0 && r.pair.b == 1) return &r;
    return nullptr;
}

int runAccuracy(const AccuracyOptions& o) {
    if (auto ok = checkDetectorName(o.detector, false); !ok) {
        std::fprintf(stderr, "error: %s\n", ok.error().message.c_str());
        return 2;
    }
    std::vector<std::string> meshArgs = o.meshes;
    if (meshArgs.empty()) meshArgs.push_back("bunny");
    if (meshArgs.size() == 1) meshArgs.push_back(meshArgs[0]);
    if (meshArgs.size() > 2) {
        std::fprintf(stderr, "error: --mesh takes at most two meshes (A and B)\n");
        return 2;
    }
    Scene scene;
    for (const std::string& arg : meshArgs) {
        auto mesh = loadMeshArg(arg);
        if (!mesh) {
            std::fprintf(stderr, "error: %s\n", mesh.error().message.c_str());
            return 1;
        }
        if (!mesh->report().closed() || mesh->report().degenerateDropped)
            std::fprintf(stderr, "warning: mesh '%s': %s\n", arg.c_str(), mesh->report().describe().c_str());
        scene.addObject(scene.addMesh(std::make_shared<Mesh>(std::move(*mesh))));
    }

    std::vector<std::pair<Pose, Pose>> poses;
    if (!o.posesFile.empty()) {
        auto read = geometry::readPosesFile(o.posesFile);
        if (!read) {
            std::fprintf(stderr, "error: %s\n", read.error().message.c_str());
            return 1;
        }
        poses = std::move(*read);
    } else {
        poses = geometry::sampleClosePoses(scene.mesh(0), scene.mesh(1), o.poses, o.seed);
    }

    // GL detectors need a current context before they are created; auto uses one where
    // there is one (and picks cpu where there is none).
    std::optional<gl::Context> context;
    if (o.detector == kAutoDetectorName) {
        if (auto ctx = gl::Context::createHeadless()) context.emplace(std::move(*ctx));
    } else if (detectorUsesGl(o.detector)) {
        auto ctx = gl::Context::createHeadless();
        if (!ctx) {
            std::fprintf(stderr, "error: detector '%s' needs OpenGL 4.5: %s\n", o.detector.c_str(),
                         ctx.error().message.c_str());
            return 1;
        }
        context.emplace(std::move(*ctx));
    }
    auto options = parseSets(o.sets);
    if (!options) {
        std::fprintf(stderr, "accuracy: %s\n", options.error().message.c_str());
        return 2;
    }
    auto detector = createDetector(o.detector, {.options = *options});
    if (!detector) {
        std::fprintf(stderr, "error: %s\n", detector.error().message.c_str());
        return 2;
    }
    CpuDetector reference;
    const auto* automatic = dynamic_cast<const AutoDetector*>(detector->get());
    if (automatic != nullptr) std::printf("detector: %s\n", automatic->describe().c_str());
    bool autoReported = automatic == nullptr || automatic->decided();

    std::ofstream verdicts;
    if (!o.verdicts.empty()) {
        verdicts.open(o.verdicts);
        if (!verdicts) {
            std::fprintf(stderr, "error: cannot write verdicts file '%s'\n", o.verdicts.c_str());
            return 1;
        }
        verdicts << "# index colliding(0|1) n_intersecting_triangle_pairs  (detector=" << o.detector << ")\n";
    }

    const ObjectPair pair{0, 1};
    std::size_t colliding = 0, tp = 0, fp = 0, fn = 0, truthTri = 0, foundTri = 0, reportedTri = 0;
    double detMs = 0.0, refMs = 0.0, gpuMs = 0.0;
    std::vector<std::string> warnings;
    DetectionOutput truth, got;
    const std::size_t n = poses.size();
    const std::size_t every = std::max<std::size_t>(1, n / 10);
    if (!o.quiet)
        std::printf("%8s %9s %6s %6s %6s %10s %10s\n", "poses", "colliding", "TP", "FP", "FN",
                    "tri_recall", "det_ms");
    Progress progress("poses", n);
    for (std::size_t i = 0; i < n; ++i) {
        scene.setPose(0, poses[i].first);
        scene.setPose(1, poses[i].second);
        if (auto r = reference.detect(scene, {&pair, 1}, truth); !r) {
            std::fprintf(stderr, "error: reference: %s\n", r.error().message.c_str());
            return 1;
        }
        if (auto r = (*detector)->detect(scene, {&pair, 1}, got); !r) {
            std::fprintf(stderr, "error: pose %zu: %s\n", i, r.error().message.c_str());
            return 1;
        }
        for (const std::string& w : got.stats.warnings)
            if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) {
                warnings.push_back(w);
                std::fprintf(stderr, "warning: %s\n", w.c_str());
            }
        refMs += truth.stats.totalMs;
        detMs += got.stats.totalMs;
        gpuMs += got.stats.gpuMs;
        const PairResult* t = findPair(truth);
        const PairResult* g = findPair(got);
        const bool isColliding = t != nullptr;
        const bool found = g != nullptr && (!g->triangles.empty() || !g->samples.empty());
        colliding += isColliding;
        tp += isColliding && found;
        fp += !isColliding && found;
        fn += isColliding && !found;
        if (t) truthTri += t->triangles.size();
        if (g) reportedTri += g->triangles.size();
        if (t && g) {  // both sorted: count the common triangle pairs
            std::vector<TrianglePair> common;
            std::set_intersection(t->triangles.begin(), t->triangles.end(), g->triangles.begin(),
                                  g->triangles.end(), std::back_inserter(common));
            foundTri += common.size();
        }
        if (verdicts) verdicts << i << ' ' << (found ? 1 : 0) << ' ' << (g ? g->triangles.size() : 0) << '\n';
        if (!autoReported && automatic->decided()) {
            progress.finish();
            std::printf("detector: %s\n", automatic->describe().c_str());
            autoReported = true;
        }
        if (!o.quiet && ((i + 1) % every == 0 || i + 1 == n)) {
            progress.finish();
            std::printf("%8zu %9zu %6zu %6zu %6zu %10s %10.3f\n", i + 1, colliding, tp, fp, fn,
                        (*detector)->reportsTrianglePairs() ? ratio(foundTri, truthTri).c_str() : "n/a",
                        detMs / double(i + 1));
        }
        std::fflush(stdout);
        progress.update(i + 1);
    }
    progress.finish();
    const bool tri = (*detector)->reportsTrianglePairs();
    std::printf("reference_ms_per_pose=%.3f detector_ms_per_pose=%.3f detector_gpu_ms_per_pose=%.3f "
                "tripair_precision=%s\n",
                n ? refMs / double(n) : 0.0, n ? detMs / double(n) : 0.0, n ? gpuMs / double(n) : 0.0,
                tri ? ratio(foundTri, reportedTri).c_str() : "n/a");
    // One line with everything a plot needs (bench/plots.sh reads meshes= and options=).
    std::string optionText;
    for (const auto& [k, v] : *options) optionText += (optionText.empty() ? "" : ",") + k + "=" + v;
    std::printf("accuracy: detector=%s poses=%zu colliding=%zu object_recall=%s object_precision=%s "
                "tripair_recall=%s false_negatives=%zu false_positives=%zu meshes=%s,%s options=%s\n",
                automatic ? std::string(automatic->current()).c_str() : o.detector.c_str(), n, colliding,
                ratio(tp, tp + fn).c_str(), ratio(tp, tp + fp).c_str(),
                tri ? ratio(foundTri, truthTri).c_str() : "n/a", fn, fp, meshArgs[0].c_str(), meshArgs[1].c_str(),
                optionText.empty() ? "defaults" : optionText.c_str());
    return 0;
}

}  // namespace

void addAccuracyCommand(CLI::App& app, int& exitCode) {
    auto o = std::make_shared<AccuracyOptions>();
    CLI::App* cmd = app.add_subcommand("accuracy", "Measure a detector against the exact CPU reference");
    cmd->add_option("--detector", o->detector,
                    "Detector to measure: " + detectorChoiceList(false) + " (auto: the fastest exact one here)")
        ->capture_default_str();
    cmd->add_option("--mesh", o->meshes,
                    "Mesh A, then mesh B (default bunny; B defaults to A): an OBJ path or one of " +
                        builtinMeshNames())
        ->expected(1)
        ->take_all();
    cmd->add_option("--poses", o->poses, "Number of random close poses")->check(CLI::PositiveNumber);
    cmd->add_option("--poses-file", o->posesFile,
                    "Poses, one per line: tx ty tz qw qx qy qz of A, then of B")
        ->check(CLI::ExistingFile);
    cmd->add_option("--seed", o->seed, "Seed of the random poses");
    addSetOption(cmd, o->sets);
    cmd->add_option("--verdicts", o->verdicts,
                    "Write one line per pose: index colliding(0|1) n_intersecting_triangle_pairs");
    cmd->add_flag("--quiet", o->quiet, "Only the final lines");
    cmd->callback([o, &exitCode] { exitCode = runAccuracy(*o); });
}

}  // namespace isc::tool
