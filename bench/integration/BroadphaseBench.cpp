// isc_bench_broadphase: the bunny pile (demos/scenes/BunnyPile) stepped through RigidWorld
// with the "cpu" detector (or ISC_BENCH_BROADPHASE_DETECTOR=peel: peel at its defaults;
// =peel_128_1axis: peel at 128 px, 1 axis, scene sampling, as measured before), once with btDbvtBroadphase alone ("dbvt") and with
// isc::bullet::CullideBroadphase: "cullide" (defaults: the object pass over all mesh bodies
// at once), "cullide_clusterboxes" (that pass, then the cluster level per pair on the clusters'
// boxes), "cullide_clusters" (the cluster level on their triangles), same scene, same process;
// then a summary.
// Each run drops the pile and times the first ISC_BENCH_BROADPHASE_STEPS steps (default
// 180 at 100 bodies, 120 at 300, 60 at 1000; ISC_BENCH_BROADPHASE_STEPS_<bodies> for one size).
//
// Counters per step (means): step_ms, collision_ms (the dispatcher), passed_pairs (pairs in
// the cache the dispatcher walks), box_pairs (btDbvtBroadphase's pairs), mesh_pairs and
// kept_mesh_pairs (CULLIDE's candidates and what it kept), cullide_ms (mirroring, the PCS
// passes, the cache update, wall clock), dbvt_ms, gpu_ms (GL timestamps of the PCS passes),
// pcs_objects / pcs_clusters (after the levels); overlapped (steps whose pruning finished inside
// the dispatch, CullideBroadphaseSettings::overlap, the default with cpu in our dispatcher: then
// collision_ms holds the pruning's CPU time too, and overlap_ms is the dispatcher's work run while
// the GPU pass ran), added_late / dropped_late; in_team (steps whose pruning ran inside the cpu
// detector's OpenMP team, CullideBroadphaseSettings::inTeam, the default since broadphase-10:
// alongside_ms is then the pruning's time on the stepping thread inside the detector's call), the
// pruning's split (broadphase-10): bp_mirror_ms (poses mirrored), bp_pairs_ms (dbvt's pairs sorted),
// bp_cache_ms (the cache updated before the passes), bp_prune_ms (the passes: CPU set-up, GL issue,
// wait, read-back), bp_late_ms (the cache updated after them). Rows "*_before" turn the overlap off (the pruning
// finished before the dispatch, as before cullide-9); rows "*_after_issue" keep cullide-9's
// overlap (inTeam off: the detector runs after the pass is issued, on the stepping thread's team). (Rows "*_worker", the detector on a worker
// thread of the broadphase, measured slower in cullide-9 and were removed with the option.)
// "cullide_validate" runs the same steps with
// CullideBroadphase::setValidate(true): every pruned pair is tested exactly (cpu detector,
// the dispatcher's swollen meshes), lost_pairs is the total over all steps found touching
// (must be 0); its times include the check and are not the figure to quote.
//
// Environment: ISC_BENCH_BROADPHASE_LEVEL (the "cullide" rows' level: object (default),
// cluster or triangle), ISC_BENCH_BROADPHASE_OBJECT_PASS=0 (the object level per pair instead
// of over all bodies at once), ISC_CULLIDE_SET (options of the PCS passes,
// "clusterSize=32,clusterResolution=128"), ISC_BENCH_BROADPHASE_DETECTOR (cpu, peel, peel_128_1axis, or bullet-gimpact: stock
// Bullet in the dispatcher, btGImpactMeshShape and btGImpactCollisionAlgorithm, the broadphase growing
// each mesh by its shape margin).
// CullideBroadphase needs a headless GL context, made in main().
#include "BunnyPile.h"

#include "isc/bullet/CollisionDispatcher.h"
#include "isc/bullet/CullideBroadphase.h"
#include "isc/bullet/RigidWorld.h"
#include "isc/gl/Context.h"

#include <btBulletDynamicsCommon.h>

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>
#include <string>

namespace {

std::optional<isc::gl::Context> g_context;

int stepsFor(int bodies) {
    const std::string own = "ISC_BENCH_BROADPHASE_STEPS_" + std::to_string(bodies);
    if (const char* s = std::getenv(own.c_str())) return std::max(1, std::atoi(s));
    if (const char* s = std::getenv("ISC_BENCH_BROADPHASE_STEPS")) return std::max(1, std::atoi(s));
    return bodies >= 1000 ? 60 : bodies >= 300 ? 120 : 180;
}

std::string detectorName() {
    const char* d = std::getenv("ISC_BENCH_BROADPHASE_DETECTOR");
    return d && *d ? d : "cpu";
}

isc::bullet::CullideBroadphaseSettings broadphaseSettings(const std::string& mode) {
    isc::bullet::CullideBroadphaseSettings s;
    if (const char* pass = std::getenv("ISC_BENCH_BROADPHASE_OBJECT_PASS")) s.objectPass = std::string(pass) != "0";
    if (mode.rfind("cullide_clusterboxes", 0) == 0) {
        s.level = isc::CullideLevel::Cluster;
        s.cullide.clusterBoxes = true;
    } else if (mode.rfind("cullide_clusters", 0) == 0) {
        s.level = isc::CullideLevel::Cluster;
    } else if (const char* level = std::getenv("ISC_BENCH_BROADPHASE_LEVEL")) {
        const std::string l = level;
        s.level = l == "object" ? isc::CullideLevel::Object
                  : l == "triangle" ? isc::CullideLevel::Triangle
                                    : isc::CullideLevel::Cluster;
    }
    // "_before": the pruning finished before the dispatch (overlap off), as before cullide-9.
    if (mode.find("_before") != std::string::npos) s.overlap = false;
    // "_after_issue": cullide-9's overlap (the detector after the pass is issued, not in its team).
    if (mode.find("_after_issue") != std::string::npos) s.inTeam = false;
    if (const char* env = std::getenv("ISC_CULLIDE_SET")) {
        isc::OptionList options;
        std::stringstream ss(env);
        std::string item;
        while (std::getline(ss, item, ','))
            if (auto o = isc::parseOption(item)) options.push_back(*o);
        if (auto r = isc::applyOptions(s.cullide, options, "ISC_CULLIDE_SET"); !r) {
            std::fprintf(stderr, "isc_bench_broadphase: %s\n", r.error().message.c_str());
            std::exit(2);
        }
    }
    return s;
}

// The pruning's time split and whether it ran in the detector's team (BroadphaseStats), added
// to a row's per-step sums.
void addPruningSplit(std::map<std::string, double>& sum, const isc::bullet::BroadphaseStats& b) {
    sum["in_team"] += b.inTeam ? 1.0 : 0.0;
    sum["bp_mirror_ms"] += b.mirrorMs;
    sum["bp_pairs_ms"] += b.pairsMs;
    sum["bp_cache_ms"] += b.cacheMs;
    sum["bp_prune_ms"] += b.pruneMs;
    sum["bp_late_ms"] += b.lateMs;
}

struct Measured {
    double stepMs = 0, collisionMs = 0, passed = 0, lost = -1, cullideMs = 0;
};
std::map<std::pair<std::string, int>, Measured> g_measured;

// The row's pile, or none with the row skipped: a cullide row without a GL context, or a pile
// that could not be made.
std::optional<isc::scenes::BunnyPile> rowPile(benchmark::State& state, int bodies, bool cullide) {
    if (cullide && !g_context) {
        state.SkipWithError("no GL context");
        return std::nullopt;
    }
    auto pile = isc::scenes::makeBunnyPile(bodies, 1);
    if (!pile) {
        state.SkipWithError(pile.error().message.c_str());
        return std::nullopt;
    }
    return std::move(*pile);
}

void runPile(benchmark::State& state, const std::string& mode) {
    const int bodies = int(state.range(0));
    const int steps = stepsFor(bodies);
    const bool cullide = mode != "dbvt";
    auto pile = rowPile(state, bodies, cullide);
    if (!pile) return;
    std::map<std::string, double> sum;
    double lost = 0;
    int runs = 0;
    for (auto _ : state) {
        state.PauseTiming();
        isc::bullet::WorldSettings ws;
        ws.detector = detectorName();
        // "peel": its defaults (the cluster-tree walk); "peel_128_1axis": the raster path of the
        // pile settings measured before (docs/detectors/cullide.md).
        if (ws.detector == "peel_128_1axis") {
            ws.detector = "peel";
            ws.detectorSettings.options = {{"resolution", "128"}, {"axes", "1"}, {"sampling", "scene"}};
        }
        ws.broadphase = "dbvt";
        auto world = isc::bullet::RigidWorld::create(ws);
        if (!world) {
            state.SkipWithError(world.error().message.c_str());
            return;
        }
        // The world's own broadphase swapped for ours, settings from the environment.
        std::unique_ptr<isc::bullet::CullideBroadphase> ours;
        btDiscreteDynamicsWorld& dw = (*world)->world();
        if (cullide) {
            auto b = isc::bullet::CullideBroadphase::create(broadphaseSettings(mode));
            if (!b) {
                state.SkipWithError(b.error().message.c_str());
                return;
            }
            ours = std::move(*b);
            ours->setValidate(mode.find("_validate") != std::string::npos);
            dw.setBroadphase(ours.get());
        }
        (*world)->addGround(pile->groundHalfExtents);
        for (const isc::Pose& p : pile->poses) (*world)->addMeshBody(pile->bunny, p);
        state.ResumeTiming();
        for (int s = 0; s < steps; ++s) {
            const isc::bullet::StepTimes t = (*world)->step();
            sum["step_ms"] += t.stepMs;
            sum["collision_ms"] += t.collisionMs;
            sum["passed_pairs"] += double(dw.getBroadphase()->getOverlappingPairCache()->getNumOverlappingPairs());
            if (ours) {
                const isc::bullet::BroadphaseStats& b = ours->lastStats();
                sum["box_pairs"] += double(b.boxPairs);
                sum["mesh_pairs"] += double(b.meshPairs);
                sum["kept_mesh_pairs"] += double(b.keptMeshPairs);
                sum["cullide_ms"] += b.cullideMs;
                sum["dbvt_ms"] += b.dbvtMs;
                sum["overlapped"] += b.overlapped ? 1.0 : 0.0;
                sum["overlap_ms"] += b.overlapMs;
                sum["added_late"] += double(b.addedLate);
                sum["dropped_late"] += double(b.droppedLate);
                addPruningSplit(sum, b);
                if (const auto* d = dynamic_cast<const isc::bullet::CollisionDispatcher*>(dw.getDispatcher())) {
                    sum["detect_ms"] += d->lastStats().detectMs;
                    sum["contacts_ms"] += d->lastStats().contactsMs;
                    sum["mirror_ms"] += d->lastStats().mirrorMs;
                    sum["alongside_ms"] += d->lastDetectorStats().counter("alongside_ms");
                }
                lost += double(b.lostPairs);
                const isc::DetectorStats& d = ours->lastDetectorStats();
                sum["gpu_ms"] += d.gpuMs;
                sum["readback_ms"] += d.readbackMs;
                for (const char* c : {"pcs_objects_in", "pcs_objects", "pcs_clusters_in", "pcs_clusters",
                                      "pcs_triangles_in", "pcs_triangles", "pairs_after_objects", "pairs_after_clusters",
                                      "gpu_object_ms", "gpu_cluster_ms", "cpu_object_setup_ms", "run_object_ms",
                                      "cpu_setup_ms", "cpu_chain_setup_ms", "run_chain_issue_ms", "gpu_pose_ms",
                                      "gpu_pair_ms"})
                    sum[c] += d.counter(c);
            } else {
                sum["box_pairs"] += double(dw.getBroadphase()->getOverlappingPairCache()->getNumOverlappingPairs());
                if (const auto* d = dynamic_cast<const isc::bullet::CollisionDispatcher*>(dw.getDispatcher())) {
                    sum["detect_ms"] += d->lastStats().detectMs;
                    sum["contacts_ms"] += d->lastStats().contactsMs;
                    sum["mirror_ms"] += d->lastStats().mirrorMs;
                }
            }
        }
        state.PauseTiming();
        sum["final_contacts"] += (*world)->contactCount();
        sum["final_penetration"] = std::max(sum["final_penetration"], (*world)->maxPenetration());
        ++runs;
        if (ours) {
            // Bodies out before the broadphase goes (the world still points at it).
            world->reset();
            ours.reset();
        }
        state.ResumeTiming();
    }
    const double n = double(runs) * steps;
    for (const auto& [name, value] : sum)
        state.counters[name] = name.rfind("final_", 0) == 0 ? value / (name == "final_contacts" ? runs : 1) : value / n;
    if (cullide) state.counters["lost_pairs"] = lost;
    Measured& m = g_measured[{mode, bodies}];
    m.stepMs = sum["step_ms"] / n;
    m.collisionMs = sum["collision_ms"] / n;
    m.passed = sum["passed_pairs"] / n;
    m.cullideMs = sum["cullide_ms"] / n;
    if (mode.find("_validate") != std::string::npos) m.lost = lost;
}

// Replay: the poses of one dropped pile (btDbvtBroadphase alone, the same steps) recorded once
// per size, then, for each broadphase, every step's poses set on a fresh world's bodies and only
// its collision detection timed (performDiscreteCollisionDetection: Bullet's box update, the
// broadphase with the cluster level alone, the dispatcher): every row sees the same poses, so the pile's chaos (the cache's
// order changes Bullet's solver order, and with it the pile) leaves the comparison.
// Counters: detection_ms (per step, wall), collision_ms, detect_ms (the dispatcher's detector call,
// the pruning inside it in_team), cullide_ms, passed_pairs, and the pruning's split (bp_*_ms,
// alongside_ms: see above).
std::map<int, std::vector<std::vector<btTransform>>> g_replay;  // bodies -> per step, per body

const std::vector<std::vector<btTransform>>* replayPoses(int bodies, const isc::scenes::BunnyPile& pile) {
    auto it = g_replay.find(bodies);
    if (it != g_replay.end()) return &it->second;
    isc::bullet::WorldSettings ws;
    ws.detector = detectorName();
    ws.broadphase = "dbvt";
    auto world = isc::bullet::RigidWorld::create(ws);
    if (!world) return nullptr;
    (*world)->addGround(pile.groundHalfExtents);
    for (const isc::Pose& p : pile.poses) (*world)->addMeshBody(pile.bunny, p);
    std::vector<std::vector<btTransform>> steps;
    btCollisionObjectArray& objects = (*world)->world().getCollisionObjectArray();
    for (int s = 0; s < stepsFor(bodies); ++s) {
        std::vector<btTransform> poses;
        for (int i = 0; i < objects.size(); ++i) poses.push_back(objects[i]->getWorldTransform());
        steps.push_back(std::move(poses));
        (*world)->step();
    }
    return &(g_replay[bodies] = std::move(steps));
}

void runReplay(benchmark::State& state, const std::string& mode) {
    const int bodies = int(state.range(0));
    const bool cullide = mode != "dbvt";
    auto pile = rowPile(state, bodies, cullide);
    if (!pile) return;
    const auto* steps = replayPoses(bodies, *pile);
    if (!steps) {
        state.SkipWithError("replay: no world");
        return;
    }
    std::map<std::string, double> sum;
    int runs = 0;
    for (auto _ : state) {
        state.PauseTiming();
        isc::bullet::WorldSettings ws;
        ws.detector = detectorName();
        ws.broadphase = "dbvt";
        auto world = isc::bullet::RigidWorld::create(ws);
        if (!world) {
            state.SkipWithError(world.error().message.c_str());
            return;
        }
        std::unique_ptr<isc::bullet::CullideBroadphase> ours;
        btDiscreteDynamicsWorld& dw = (*world)->world();
        if (cullide) {
            isc::bullet::CullideBroadphaseSettings settings = broadphaseSettings(mode);
            settings.objectPass = false;  // the cluster level alone
            auto b = isc::bullet::CullideBroadphase::create(settings);
            if (!b) {
                state.SkipWithError(b.error().message.c_str());
                return;
            }
            ours = std::move(*b);
            dw.setBroadphase(ours.get());
        }
        (*world)->addGround(pile->groundHalfExtents);
        for (const isc::Pose& p : pile->poses) (*world)->addMeshBody(pile->bunny, p);
        const auto* dispatcher = dynamic_cast<const isc::bullet::CollisionDispatcher*>(dw.getDispatcher());
        btCollisionObjectArray& objects = dw.getCollisionObjectArray();
        state.ResumeTiming();
        for (const std::vector<btTransform>& poses : *steps) {
            for (int i = 0; i < objects.size() && std::size_t(i) < poses.size(); ++i)
                objects[i]->setWorldTransform(poses[std::size_t(i)]);
            const auto t0 = std::chrono::steady_clock::now();
            dw.performDiscreteCollisionDetection();
            sum["detection_ms"] += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            if (dispatcher) {
                sum["collision_ms"] += dispatcher->lastStats().totalMs;
                sum["detect_ms"] += dispatcher->lastStats().detectMs;
                sum["alongside_ms"] += dispatcher->lastDetectorStats().counter("alongside_ms");
            }
            sum["passed_pairs"] += double(dw.getBroadphase()->getOverlappingPairCache()->getNumOverlappingPairs());
            if (ours) {
                const isc::bullet::BroadphaseStats& b = ours->lastStats();
                sum["cullide_ms"] += b.cullideMs;
                addPruningSplit(sum, b);
            }
        }
        state.PauseTiming();
        ++runs;
        if (ours) {
            world->reset();
            ours.reset();
        }
        state.ResumeTiming();
    }
    const double n = double(runs) * double(steps->size());
    for (const auto& [name, value] : sum) state.counters[name] = value / n;
}

void BM_ReplayDbvt(benchmark::State& state) { runReplay(state, "dbvt"); }
void BM_ReplayCullideClusters(benchmark::State& state) { runReplay(state, "cullide_clusters"); }
void BM_ReplayCullideClustersBefore(benchmark::State& state) { runReplay(state, "cullide_clusters_before"); }
void BM_ReplayCullideClustersAfterIssue(benchmark::State& state) { runReplay(state, "cullide_clusters_after_issue"); }

void BM_Dbvt(benchmark::State& state) { runPile(state, "dbvt"); }
void BM_Cullide(benchmark::State& state) { runPile(state, "cullide"); }
void BM_CullideClusters(benchmark::State& state) { runPile(state, "cullide_clusters"); }
void BM_CullideClusterBoxes(benchmark::State& state) { runPile(state, "cullide_clusterboxes"); }
void BM_CullideClusterBoxesValidate(benchmark::State& state) { runPile(state, "cullide_clusterboxes_validate"); }
void BM_CullideValidate(benchmark::State& state) { runPile(state, "cullide_validate"); }
void BM_CullideClustersValidate(benchmark::State& state) { runPile(state, "cullide_clusters_validate"); }
void BM_CullideBefore(benchmark::State& state) { runPile(state, "cullide_before"); }
void BM_CullideClustersBefore(benchmark::State& state) { runPile(state, "cullide_clusters_before"); }
void BM_CullideClustersAfterIssue(benchmark::State& state) { runPile(state, "cullide_clusters_after_issue"); }

}  // namespace

// (Replay rows: filtered in by name, e.g. --benchmark_filter=Replay; they run before the others.)
BENCHMARK(BM_ReplayDbvt)->Arg(100)->Arg(1000)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReplayCullideClusters)->Arg(100)->Arg(1000)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReplayCullideClustersBefore)->Arg(100)->Arg(1000)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReplayCullideClustersAfterIssue)->Arg(100)->Arg(1000)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Dbvt)->Arg(100)->Arg(300)->Arg(1000)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Cullide)->Arg(100)->Arg(300)->Arg(1000)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CullideClusters)->Arg(100)->Arg(300)->Arg(1000)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CullideClusterBoxes)->Arg(100)->Arg(300)->Arg(1000)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CullideClusterBoxesValidate)->Arg(100)->Arg(300)->Arg(1000)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CullideValidate)->Arg(100)->Arg(300)->Arg(1000)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CullideClustersValidate)->Arg(100)->Arg(300)->Arg(1000)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CullideBefore)->Arg(100)->Arg(300)->Arg(1000)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CullideClustersBefore)->Arg(100)->Arg(300)->Arg(1000)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CullideClustersAfterIssue)->Arg(100)->Arg(300)->Arg(1000)->Iterations(1)->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
    if (auto ctx = isc::gl::Context::createHeadless()) {
        g_context.emplace(std::move(*ctx));
        std::fprintf(stderr, "GL: %s\n", g_context->info().renderer.c_str());
    } else {
        std::fprintf(stderr, "isc_bench_broadphase: no GL context (cullide rows skipped): %s\n",
                     ctx.error().message.c_str());
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    std::printf("\n# isc_bench_broadphase summary (means per step; detector in the dispatcher: %s)\n",
                detectorName().c_str());
    std::printf("| bodies | broadphase | pairs passed | / dbvt | step ms | / dbvt | collision ms | cullide ms | "
                "lost pairs (validate) |\n|---|---|---|---|---|---|---|---|---|\n");
    for (int bodies : {100, 300, 1000}) {
        auto d = g_measured.find({"dbvt", bodies});
        if (d == g_measured.end()) continue;
        for (const char* mode : {"dbvt", "cullide", "cullide_before", "cullide_clusterboxes", "cullide_clusters",
                                 "cullide_clusters_before", "cullide_clusters_after_issue"}) {
            auto c = g_measured.find({mode, bodies});
            if (c == g_measured.end()) continue;
            auto v = g_measured.find({std::string(mode) + "_validate", bodies});
            std::printf("| %d | %s | %.1f | %.3f | %.2f | %.3f | %.2f | %.2f | %s |\n", bodies, mode, c->second.passed,
                        c->second.passed / std::max(d->second.passed, 1e-9), c->second.stepMs,
                        c->second.stepMs / std::max(d->second.stepMs, 1e-9), c->second.collisionMs,
                        c->second.cullideMs,
                        std::string(mode) == "dbvt" ? "-"
                        : v == g_measured.end()     ? "not run"
                                                    : std::to_string(int(v->second.lost)).c_str());
        }
    }
    g_context.reset();  // before static destruction (see bench/detectors/PeelBench.cpp)
    return 0;
}
