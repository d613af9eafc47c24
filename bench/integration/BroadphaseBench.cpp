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
// pruning's split (broadphase-10): bp_mirror_ms (poses mirrored; deforming meshes: the changed shapes
// read, bp_meshes_read of them by the broadphase, bp_meshes_shared taken from the dispatcher's read), bp_pairs_ms (dbvt's pairs sorted),
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
// Pile rows' layouts: ISC_BENCH_BROADPHASE_SEED, ISC_BENCH_BROADPHASE_VARY_SEED=1 (see pileSeed).
// Deforming pile rows (BM_Deform*, 100 bodies): the pile with every bunny's vertices wobbling each
// step (see runPile's `deform`), dbvt, cullide_clusters and its validate row.
// Environment: ISC_BENCH_BROADPHASE_LEVEL (the "cullide" rows' level: object (default),
// cluster or triangle), ISC_BENCH_BROADPHASE_OBJECT_PASS=0 (the object level per pair instead
// of over all bodies at once), ISC_CULLIDE_SET (options of the PCS passes,
// "clusterSize=32,clusterResolution=128"), ISC_BENCH_BROADPHASE_DETECTOR (cpu, peel, peel_128_1axis, or bullet-gimpact: stock
// Bullet in the dispatcher, btGImpactMeshShape and btGImpactCollisionAlgorithm, the broadphase growing
// each mesh by its shape margin).
// Replay rows (BM_Replay*, BM_ReplayStep*; see runReplay): the recorded states of one dbvt pile, the
// same for every row; ISC_BENCH_BROADPHASE_WARM=0 leaves out their untimed first pass (on by default
// since 2026-11-29), ISC_BENCH_BROADPHASE_TRACE=1 prints one line a step of the whole-step rows and
// of the pile rows on stderr. The pile rows' averages hold the cpu detector's first posing of the objects (their first
// steps: since cpu's shape copies, one BVH build per mesh and a copy per object; docs/detectors/cullide.md, "The
// lead's round of 2026-11-29, twelfth session").
// CullideBroadphase needs a headless GL context, made in main().
#include "BunnyPile.h"
#include "BunnyWobble.h"

#include "isc/bullet/CollisionDispatcher.h"
#include "isc/bullet/CullideBroadphase.h"
#include "isc/bullet/RigidWorld.h"
#include "isc/gl/Context.h"

#include <btBulletDynamicsCommon.h>

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>
#include <string>

namespace {

std::optional<isc::gl::Context> g_context;
const bool g_warm = [] {
    const char* w = std::getenv("ISC_BENCH_BROADPHASE_WARM");
    return w == nullptr || std::string(w) != "0";
}();
const bool g_trace = [] {
    const char* t = std::getenv("ISC_BENCH_BROADPHASE_TRACE");
    return t != nullptr && std::string(t) == "1";
}();

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
    sum["bp_meshes_read"] += double(b.meshesRead);
    sum["bp_meshes_shared"] += double(b.meshesShared);
}

struct Measured {
    double stepMs = 0, collisionMs = 0, passed = 0, lost = -1, cullideMs = 0;
};
std::map<std::pair<std::string, int>, Measured> g_measured;

// ISC_BENCH_BROADPHASE_TRACE=1: one line a step on stderr (row, run, step, times, pairs; the pile
// rows and the whole-step replay rows alike: bench/gpu/trace_summary.py reads it).
void traceStep(const std::string& mode, int bodies, int run, int step, const isc::bullet::StepTimes& t,
               double detectMs, double passed, const isc::bullet::BroadphaseStats& b) {
    std::fprintf(stderr,
                 "trace %s/%d run %d step %d step_ms %.3f collision_ms %.3f detect_ms %.3f passed %.0f added_late %zu "
                 "dropped_late %zu prune_ms %.3f\n",
                 mode.c_str(), bodies, run, step, t.stepMs, t.collisionMs, detectMs, passed, b.addedLate, b.droppedLate,
                 b.pruneMs);
}

// The row's pile, or none with the row skipped: a cullide row without a GL context, or a pile
// that could not be made.
std::optional<isc::scenes::BunnyPile> rowPile(benchmark::State& state, int bodies, bool cullide,
                                              std::uint32_t seed = 1) {
    if (cullide && !g_context) {
        state.SkipWithError("no GL context");
        return std::nullopt;
    }
    auto pile = isc::scenes::makeBunnyPile(bodies, seed);
    if (!pile) {
        state.SkipWithError(pile.error().message.c_str());
        return std::nullopt;
    }
    return std::move(*pile);
}

// The pile rows' layout seed (makeBunnyPile): ISC_BENCH_BROADPHASE_SEED (default 1); with
// ISC_BENCH_BROADPHASE_VARY_SEED=1, the k-th call of a row in the process (its k-th repetition,
// k from 0) drops the pile of seed + k, so that every row meets the same piles, one a repetition.
// A pile is deterministic: without it every repetition of a row repeats one trajectory, and two
// rows compare two piles (the cache's order changes Bullet's solver order, so each row's pile is its
// own), whatever the repetitions.
std::uint32_t pileSeed(const std::string& mode, int bodies) {
    static std::map<std::pair<std::string, int>, std::uint32_t> calls;
    const char* base = std::getenv("ISC_BENCH_BROADPHASE_SEED");
    const char* vary = std::getenv("ISC_BENCH_BROADPHASE_VARY_SEED");
    const std::uint32_t seed = base ? std::uint32_t(std::strtoul(base, nullptr, 10)) : 1u;
    const std::uint32_t k = calls[{mode, bodies}]++;
    return vary && std::string(vary) == "1" ? seed + k : seed;
}

// `deform` (rows BM_Deform*): every body a deforming mesh (RigidWorld::addDeformingMeshBody),
// its vertices wobbling each step (scenes::BunnyWobble, as isc_bench_peel's deform/100 and the
// demo's --deform), set before each step, untimed (RigidWorld::setBodyVertices: the shape's
// vertex array, GImpact's refit, the dispatcher told; CullideBroadphase reads the dispatcher's
// count and reads the changed shapes again in its step).
void runPile(benchmark::State& state, const std::string& mode, bool deform = false) {
    const int bodies = int(state.range(0));
    const int steps = stepsFor(bodies);
    const bool cullide = mode != "dbvt";
    const std::uint32_t seed = pileSeed(mode, bodies);
    auto pile = rowPile(state, bodies, cullide, seed);
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
        for (const isc::Pose& p : pile->poses) {
            if (deform) (*world)->addDeformingMeshBody(pile->bunny, p);
            else (*world)->addMeshBody(pile->bunny, p);
        }
        std::optional<isc::scenes::BunnyWobble> wobble;
        std::vector<isc::Vec3> vertices;
        if (deform) wobble.emplace(pile->bunny);
        state.ResumeTiming();
        for (int s = 0; s < steps; ++s) {
            if (wobble) {
                state.PauseTiming();
                for (int i = 0; i < (*world)->bodyCount(); ++i) {
                    wobble->vertices(std::uint32_t(i), float(s + 1) / 60.0f, vertices);
                    (*world)->setBodyVertices(i, vertices);
                }
                state.ResumeTiming();
            }
            const isc::bullet::StepTimes t = (*world)->step();
            sum["step_ms"] += t.stepMs;
            sum["collision_ms"] += t.collisionMs;
            sum["passed_pairs"] += double(dw.getBroadphase()->getOverlappingPairCache()->getNumOverlappingPairs());
            // (The first steps hold the world's and the broadphase's first use: each run makes both.)
            if (g_trace) {
                const auto* d = dynamic_cast<const isc::bullet::CollisionDispatcher*>(dw.getDispatcher());
                traceStep(mode, bodies, runs, s, t, d ? d->lastStats().detectMs : 0.0,
                          double(dw.getBroadphase()->getOverlappingPairCache()->getNumOverlappingPairs()),
                          ours ? ours->lastStats() : isc::bullet::BroadphaseStats{});
            }
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
    state.counters["seed"] = double(seed);
    Measured& m = g_measured[{deform ? "deform_" + mode : mode, bodies}];
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
// Counters: detection_ms (per step, wall), dispatch_ms (the part of it in
// dispatchAllCollisionPairs: the narrowphase, for any dispatcher; the pruning is in it only with our
// dispatcher and the overlap, otherwise it ran in the broadphase before), collision_ms, detect_ms (the dispatcher's detector call,
// the pruning inside it in_team), cullide_ms, passed_pairs, and the pruning's split (bp_*_ms,
// alongside_ms: see above).
// What a body's collision detection depends on in one step: its world transform and the
// velocities Bullet predicts its interpolation transform from (predictUnconstraintMotion: the
// box Bullet gives the broadphase spans both transforms, btCollisionWorld::updateSingleAabb with
// m_useContinuous, Bullet's default). Before 2026-11-29 (twelfth session) the replay set the world
// transforms alone, so each body's box also spanned its spawn pose (the interpolation transform
// it was made with): 818 box pairs a step at 100 bodies where the dropped pile has 608.
struct ReplayBody {
    btTransform world;
    btVector3 linear, angular;
};
std::map<int, std::vector<std::vector<ReplayBody>>> g_replay;  // bodies -> per step, per body
constexpr float kReplayDt = 1.0f / 60.0f;                          // RigidWorld::step()'s default

const std::vector<std::vector<ReplayBody>>* replayPoses(int bodies, const isc::scenes::BunnyPile& pile) {
    auto it = g_replay.find(bodies);
    if (it != g_replay.end()) return &it->second;
    isc::bullet::WorldSettings ws;
    ws.detector = detectorName();
    ws.broadphase = "dbvt";
    auto world = isc::bullet::RigidWorld::create(ws);
    if (!world) return nullptr;
    (*world)->addGround(pile.groundHalfExtents);
    for (const isc::Pose& p : pile.poses) (*world)->addMeshBody(pile.bunny, p);
    // Recorded where Bullet predicts the motion (the pre-tick callback runs just before
    // predictUnconstraintMotion, in the step's only substep).
    struct Recorder {
        std::vector<std::vector<ReplayBody>> steps;
    } recorder;
    btDiscreteDynamicsWorld& dw = (*world)->world();
    dw.setInternalTickCallback(
        [](btDynamicsWorld* w, btScalar) {
            auto* r = static_cast<Recorder*>(w->getWorldUserInfo());
            std::vector<ReplayBody> poses;
            btCollisionObjectArray& objects = w->getCollisionObjectArray();
            for (int i = 0; i < objects.size(); ++i) {
                const btRigidBody* b = btRigidBody::upcast(objects[i]);
                poses.push_back({objects[i]->getWorldTransform(), b ? b->getLinearVelocity() : btVector3(0, 0, 0),
                                 b ? b->getAngularVelocity() : btVector3(0, 0, 0)});
            }
            r->steps.push_back(std::move(poses));
        },
        &recorder, true);
    for (int s = 0; s < stepsFor(bodies); ++s) (*world)->step(kReplayDt);
    dw.setInternalTickCallback(nullptr, nullptr, true);
    std::vector<std::vector<ReplayBody>> steps = std::move(recorder.steps);
    return &(g_replay[bodies] = std::move(steps));
}

// `wholeStep` (rows BM_ReplayStep*): each recorded state (transforms and velocities) set, then
// the world's whole step timed (RigidWorld::step: Bullet's prediction, collision detection,
// islands, solver, integration), so that every row steps from the same states (the pile rows drop
// a pile of their own each, whose chaos scatters their steps by +-10 %). Counters as the pile
// rows': step_ms, collision_ms, passed_pairs.
void runReplay(benchmark::State& state, const std::string& mode, bool wholeStep = false) {
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
        // One untimed pass over the recorded states first (ISC_BENCH_BROADPHASE_WARM=0: none), so
        // that the timed pass meets a detector that has posed (built the BVHs of) every object it
        // will meet, as an app's steps do after its first: without it, dbvt's rows paid the cpu
        // detector's first posing of every object in their first step (1.8 s at 1000 bodies on an
        // H200, 0.2 s at 100) and the cullide rows only for the objects of kept pairs, when they
        // first met them (2026-11-29, twelfth session: the 1000-body rows' 0.55x was mostly that).
        auto pass = [&](std::map<std::string, double>& into, bool trace) {
            for (const std::vector<ReplayBody>& poses : *steps) {
                if (wholeStep) {
                    for (int i = 0; i < objects.size() && std::size_t(i) < poses.size(); ++i) {
                        const ReplayBody& r = poses[std::size_t(i)];
                        objects[i]->setWorldTransform(r.world);
                        objects[i]->setInterpolationWorldTransform(r.world);
                        if (btRigidBody* b = btRigidBody::upcast(objects[i]); b && !b->isStaticOrKinematicObject()) {
                            b->setLinearVelocity(r.linear);
                            b->setAngularVelocity(r.angular);
                            b->setInterpolationLinearVelocity(r.linear);
                            b->setInterpolationAngularVelocity(r.angular);
                        }
                    }
                    const isc::bullet::StepTimes t = (*world)->step(kReplayDt);
                    const double passed = double(dw.getBroadphase()->getOverlappingPairCache()->getNumOverlappingPairs());
                    into["step_ms"] += t.stepMs;
                    into["collision_ms"] += t.collisionMs;
                    into["passed_pairs"] += passed;
                    double detectMs = 0.0;
                    if (dispatcher) {
                        detectMs = dispatcher->lastStats().detectMs;
                        into["detect_ms"] += detectMs;
                        into["contacts_ms"] += dispatcher->lastStats().contactsMs;
                    }
                    isc::bullet::BroadphaseStats b;
                    if (ours) {
                        b = ours->lastStats();
                        into["cullide_ms"] += b.cullideMs;
                        into["added_late"] += double(b.addedLate);
                        into["dropped_late"] += double(b.droppedLate);
                        addPruningSplit(into, b);
                    }
                    if (trace) traceStep(mode, bodies, runs, int(&poses - steps->data()), t, detectMs, passed, b);
                    continue;
                }
                for (int i = 0; i < objects.size() && std::size_t(i) < poses.size(); ++i) {
                    const ReplayBody& r = poses[std::size_t(i)];
                    objects[i]->setWorldTransform(r.world);
                    objects[i]->setInterpolationWorldTransform(r.world);
                    // Bullet's predictUnconstraintMotion on the recorded velocities (untimed: the
                    // world's own step does it before its collision detection).
                    btRigidBody* b = btRigidBody::upcast(objects[i]);
                    if (b && !b->isStaticOrKinematicObject()) {
                        b->setLinearVelocity(r.linear);
                        b->setAngularVelocity(r.angular);
                        b->applyDamping(kReplayDt);
                        b->predictIntegratedTransform(kReplayDt, b->getInterpolationWorldTransform());
                    }
                }
                // performDiscreteCollisionDetection() in its three steps (as Bullet 3.24 runs them),
                // so that the dispatch (the narrowphase; with our dispatcher and the overlap, the
                // pruning inside it too) is timed apart from the box update and the broadphase.
                const auto t0 = std::chrono::steady_clock::now();
                dw.updateAabbs();
                dw.computeOverlappingPairs();
                const auto t1 = std::chrono::steady_clock::now();
                if (btDispatcher* d = dw.getDispatcher())
                    d->dispatchAllCollisionPairs(dw.getBroadphase()->getOverlappingPairCache(), dw.getDispatchInfo(), d);
                const auto t2 = std::chrono::steady_clock::now();
                into["detection_ms"] += std::chrono::duration<double, std::milli>(t2 - t0).count();
                into["dispatch_ms"] += std::chrono::duration<double, std::milli>(t2 - t1).count();
                if (dispatcher) {
                    into["collision_ms"] += dispatcher->lastStats().totalMs;
                    into["detect_ms"] += dispatcher->lastStats().detectMs;
                    into["alongside_ms"] += dispatcher->lastDetectorStats().counter("alongside_ms");
                }
                into["passed_pairs"] += double(dw.getBroadphase()->getOverlappingPairCache()->getNumOverlappingPairs());
                if (ours) {
                    const isc::bullet::BroadphaseStats& b = ours->lastStats();
                    into["cullide_ms"] += b.cullideMs;
                    addPruningSplit(into, b);
                }
            }
        };
        if (g_warm) {
            std::map<std::string, double> warm;
            pass(warm, false);
        }
        state.ResumeTiming();
        pass(sum, g_trace);
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
void BM_ReplayStepDbvt(benchmark::State& state) { runReplay(state, "dbvt", true); }
void BM_ReplayStepCullideClusters(benchmark::State& state) { runReplay(state, "cullide_clusters", true); }

void BM_Dbvt(benchmark::State& state) { runPile(state, "dbvt"); }
void BM_DeformDbvt(benchmark::State& state) { runPile(state, "dbvt", true); }
void BM_DeformCullideClusters(benchmark::State& state) { runPile(state, "cullide_clusters", true); }
void BM_DeformCullideClustersValidate(benchmark::State& state) { runPile(state, "cullide_clusters_validate", true); }
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
BENCHMARK(BM_ReplayStepDbvt)->Arg(100)->Arg(1000)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReplayStepCullideClusters)->Arg(100)->Arg(1000)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Dbvt)->Arg(100)->Arg(300)->Arg(1000)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DeformDbvt)->Arg(100)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DeformCullideClusters)->Arg(100)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DeformCullideClustersValidate)->Arg(100)->Iterations(1)->Unit(benchmark::kMillisecond);
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
    // The rigid pile's rows, then the deforming pile's ("deform_"), each against its dbvt row.
    for (const std::string prefix : {"", "deform_"})
        for (int bodies : {100, 300, 1000}) {
            auto d = g_measured.find({prefix + "dbvt", bodies});
            if (d == g_measured.end()) continue;
            for (const char* base : {"dbvt", "cullide", "cullide_before", "cullide_clusterboxes", "cullide_clusters",
                                     "cullide_clusters_before", "cullide_clusters_after_issue"}) {
                const std::string mode = prefix + base;
                auto c = g_measured.find({mode, bodies});
                if (c == g_measured.end()) continue;
                auto v = g_measured.find({mode + "_validate", bodies});
                std::printf("| %d | %s | %.1f | %.3f | %.2f | %.3f | %.2f | %.2f | %s |\n", bodies, mode.c_str(),
                            c->second.passed, c->second.passed / std::max(d->second.passed, 1e-9), c->second.stepMs,
                            c->second.stepMs / std::max(d->second.stepMs, 1e-9), c->second.collisionMs,
                            c->second.cullideMs,
                            std::string(base) == "dbvt" ? "-"
                            : v == g_measured.end()     ? "not run"
                                                        : std::to_string(int(v->second.lost)).c_str());
            }
        }
    g_context.reset();  // before static destruction (see bench/detectors/PeelBench.cpp)
    return 0;
}
