// isc_bench_reliability: the long run and the physics quality of the bunny pile (issue 14,
// docs/robustness.md and docs/integration.md).
//
//   isc_bench_reliability soak    [--bodies 100] [--steps 10000] [--switch-every 1000]
//                                 [--churn-every 250] [--churn 10] [--wall-limit S]
//                                 [--warmup N] [--detectors a,b,...]
//   isc_bench_reliability physics [--bodies 100] [--seed 1] [--seconds 6] [--penetration-every 1]
//                                 [--wall-limit S] [--trace N] [--world name=value ...]
//                                 [--detectors a,b,...]
//   isc_bench_reliability list    (the detectors `physics` runs by default, one a line)
//
// soak: the pile runs `--steps` steps of 1/60 s. Every `--churn-every` steps it alternately
// takes `--churn` bodies out of the world and puts them back above the pile (at rest, new
// broadphase proxies, new manifolds); every `--switch-every` steps the dispatcher switches
// (CollisionDispatcher::switchDetector) to the next detector of the list that can be made
// (default: every registered detector; GL ones when a headless context can be made), or
// earlier when one went past `--wall-limit` seconds in its period. `--warmup N`: first every
// detector of the list for N steps in turn (a warm-up round: each one's first use, its shaders
// and first buffers, before step `--switch-every`), then the first detector until step
// `--switch-every`. The dispatcher keeps the detectors it made and re-uses them when switched
// back to (CollisionDispatcher::switchDetector). Every 100 steps one row:
// resident memory (also after malloc_trim), GL buffer bytes bullet-isc holds
// (gl::bufferBytes), total energy of the bodies in the world (kinetic + potential above y = 0),
// bodies with a NaN/Inf position or velocity, contacts, the fastest body, bodies more than 1 m
// below the ground (then put back above the pile), the step's breakdown; the detector's own
// figures to stderr. After the warm-up a "#" line after a row names each GL buffer whose size
// changed since the last row (gl::bufferBytesByLabel; to stderr during the warm-up), and the
// end says each owner's GL bytes at the first row after the warm-up and at the end.
// bench/integration/soak_plot.sh plots the rows.
//
// physics: per detector (default: every registered detector, then stock Bullet GImpact) the
// pile for up to `--seconds` simulated seconds, stopping once every body sleeps, a body falls
// through the ground or 70 % of `--wall-limit` has passed: time to settle, max and mean
// penetration measured from the poses (PenetrationProbe), contacts, manifold persistence, then
// the tunnelling test (a bunny at 5 and at 20 m/s into a 2 cm thick static mesh wall, steps of
// 1/60 s). One row per detector; one that cannot be made gets a row saying why.
#include "isc/bullet/CollisionDispatcher.h"
#include "isc/bullet/RigidWorld.h"
#include "isc/detect/Registry.h"
#include "isc/gl/Buffer.h"
#include "isc/gl/Context.h"
#include "isc/mesh/MeshIo.h"
#include "isc/mesh/Shapes.h"

#include "BunnyPile.h"

#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>
#include <btBulletDynamicsCommon.h>

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace isc;

namespace {

// --world name=value: WorldSettings changed from the defaults (experiments; the tables use none).
std::vector<std::pair<std::string, std::string>> worldOverrides;
const char* const kWorldKeys[] = {"iterations", "deactivation", "angularDamping", "linearDamping",
                                  "rollingFriction", "friction", "splitThreshold", "spinningFriction",
                                  "solverFlags", "sleepLinear", "sleepAngular", "restitution"};

struct Args {
    std::string mode;
    int bodies = 100;
    int steps = 10000;
    int switchEvery = 1000;
    int warmup = 0;
    int churnEvery = 250;
    int churn = 10;
    int penetrationEvery = 1;
    int trace = 0;
    int traceBody = -1;  // --trace-body: one body's contacts every step from --trace-from
    int traceFrom = 0;
    int seed = 1;
    double seconds = 6.0;
    /// Wall-clock seconds one detector may take (physics: its pile and tunnelling; soak: one
    /// switch period). 0: no limit.
    double wallLimit = 0.0;
    std::vector<std::string> world;  // --world name=value
    std::vector<std::string> detectors;
};

[[noreturn]] void usage(const char* why) {
    std::fprintf(stderr,
                 "isc_bench_reliability: %s\nusage: isc_bench_reliability soak|physics|list [--bodies N] [--steps N] "
                 "[--switch-every N] [--warmup N] [--churn-every N] [--churn N] [--seconds S] [--seed N] [--penetration-every N] "
                 "[--wall-limit S] [--trace N] [--world name=value] [--detectors a,b,...]\n",
                 why);
    std::exit(2);
}

Args parse(int argc, char** argv) {
    Args a;
    if (argc < 2) usage("no mode");
    a.mode = argv[1];
    if (a.mode != "soak" && a.mode != "physics" && a.mode != "list") usage("the mode is soak, physics or list");
    for (int i = 2; i < argc; ++i) {
        const std::string k = argv[i];
        if (i + 1 >= argc) usage(("no value after " + k).c_str());
        const char* v = argv[++i];
        if (k == "--bodies") a.bodies = std::atoi(v);
        else if (k == "--steps") a.steps = std::atoi(v);
        else if (k == "--switch-every") a.switchEvery = std::max(1, std::atoi(v));
        else if (k == "--warmup") a.warmup = std::max(0, std::atoi(v));
        else if (k == "--churn-every") a.churnEvery = std::max(1, std::atoi(v));
        else if (k == "--churn") a.churn = std::atoi(v);
        else if (k == "--seconds") a.seconds = std::atof(v);
        else if (k == "--penetration-every") a.penetrationEvery = std::max(1, std::atoi(v));
        else if (k == "--trace") a.trace = std::max(0, std::atoi(v));
        else if (k == "--trace-body") a.traceBody = std::atoi(v);
        else if (k == "--trace-from") a.traceFrom = std::max(0, std::atoi(v));
        else if (k == "--seed") a.seed = std::atoi(v);
        else if (k == "--wall-limit") a.wallLimit = std::max(0.0, std::atof(v));
        else if (k == "--world") a.world.push_back(v);
        else if (k == "--detectors") {
            std::string s = v;
            for (std::size_t at = 0; at <= s.size();) {
                const std::size_t comma = std::min(s.find(',', at), s.size());
                if (comma > at) a.detectors.push_back(s.substr(at, comma - at));
                at = comma + 1;
            }
        } else usage(("unknown option " + k).c_str());
    }
    if (a.bodies < 1 || a.steps < 1) usage("--bodies and --steps must be at least 1");
    for (const std::string& kv : a.world) {
        const std::size_t eq = kv.find('=');
        const std::string key = kv.substr(0, eq);
        if (eq == std::string::npos || std::find(std::begin(kWorldKeys), std::end(kWorldKeys), key) == std::end(kWorldKeys))
            usage(("--world takes name=value, name one of iterations, deactivation, angularDamping, linearDamping, "
                   "rollingFriction, friction, splitThreshold, spinningFriction, solverFlags, sleepLinear, "
                   "sleepAngular, restitution; not " + kv).c_str());
        worldOverrides.emplace_back(key, kv.substr(eq + 1));
    }
    return a;
}

double residentMiB() {
    std::ifstream statm("/proc/self/statm");
    long pages = 0, resident = 0;
    statm >> pages >> resident;
    return double(resident) * double(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

// Where the resident memory is (/proc/self/smaps, MiB): the malloc heap ([heap] and the
// allocator's in-use bytes, mallinfo2, which covers the main arena and its mmapped chunks),
// anonymous mappings (other arenas, mmapped chunks, a driver's own allocations), mappings of
// device files (/dev/dri, /dev/nvidia*: buffer memory a driver maps into the process) and
// every other file mapping (code, libraries).
struct MemoryParts {
    double heap = 0.0, anonymous = 0.0, device = 0.0, files = 0.0, mallocInUse = 0.0;
};

MemoryParts memoryParts() {
    MemoryParts m;
    std::ifstream smaps("/proc/self/smaps");
    std::string line, name;
    while (std::getline(smaps, line)) {
        if (line.empty()) continue;
        // A mapping's header: "start-end perms offset dev inode [name]"; its fields follow.
        if (std::isxdigit(static_cast<unsigned char>(line[0])) && line.find('-') < line.find(' ')) {
            std::size_t at = 0;
            for (int field = 0; field < 5 && at != std::string::npos; ++field) at = line.find(' ', at + 1);
            const std::size_t start = at == std::string::npos ? at : line.find_first_not_of(' ', at);
            name = start == std::string::npos ? std::string() : line.substr(start);
            continue;
        }
        if (line.rfind("Rss:", 0) != 0) continue;
        const double mib = std::atof(line.c_str() + 4) / 1024.0;  // kB
        if (name == "[heap]") m.heap += mib;
        else if (name.empty() || name[0] == '[') m.anonymous += mib;
        else if (name.rfind("/dev/", 0) == 0) m.device += mib;
        else m.files += mib;
    }
    const struct mallinfo2 mi = mallinfo2();
    m.mallocInUse = double(mi.uordblks + mi.hblkhd) / (1024.0 * 1024.0);
    return m;
}

bool inWorld(bullet::RigidWorld& w, int body) { return w.rigidBody(body)->isInWorld(); }

// Kinetic (linear + rotational) plus potential energy above y = 0 of the bodies in the world.
double energy(bullet::RigidWorld& w) {
    const double g = -double(w.world().getGravity().y());
    double e = 0.0;
    for (int i = 0; i < w.bodyCount(); ++i) {
        if (!inWorld(w, i)) continue;
        const btRigidBody* b = w.rigidBody(i);
        if (b->getInvMass() == 0) continue;
        const double m = 1.0 / b->getInvMass();
        const btVector3 v = b->getLinearVelocity();
        const btVector3 wl = b->getAngularVelocity() * b->getWorldTransform().getBasis();  // body frame
        const btVector3 inertia = b->getLocalInertia();
        e += 0.5 * m * double(v.length2()) + m * g * double(b->getWorldTransform().getOrigin().y());
        e += 0.5 * (double(inertia.x()) * wl.x() * wl.x() + double(inertia.y()) * wl.y() * wl.y() +
                    double(inertia.z()) * wl.z() * wl.z());
    }
    return e;
}

int nonFinite(bullet::RigidWorld& w) {
    int n = 0;
    for (int i = 0; i < w.bodyCount(); ++i) {
        const btRigidBody* b = w.rigidBody(i);
        const btVector3 p = b->getWorldTransform().getOrigin(), v = b->getLinearVelocity();
        bool ok = true;
        for (int k = 0; k < 3; ++k) ok = ok && std::isfinite(p[k]) && std::isfinite(v[k]);
        n += ok ? 0 : 1;
    }
    return n;
}

// Bodies in the world whose centre is more than 1 m below the ground's top (y = 0): fallen
// through the ground or off its edge.
int belowGround(bullet::RigidWorld& w) {
    int n = 0;
    for (int i = 0; i < w.bodyCount(); ++i)
        if (inWorld(w, i) && w.rigidBody(i)->getWorldTransform().getOrigin().y() < -1.0f) ++n;
    return n;
}

double maxSpeedInWorld(bullet::RigidWorld& w) {
    double s = 0.0;
    for (int i = 0; i < w.bodyCount(); ++i)
        if (inWorld(w, i)) s = std::max(s, double(w.rigidBody(i)->getLinearVelocity().length()));
    return s;
}

std::vector<std::string> defaultDetectors(bool withGl, bool withGImpact) {
    std::vector<std::string> names;
    for (const DetectorInfo& d : registeredDetectors())
        if (withGl || !d.usesGl) names.push_back(d.name);
    if (withGImpact) names.push_back(bullet::kBulletGImpact);
    return names;
}

bullet::WorldSettings worldSettings(const std::string& detector) {
    bullet::WorldSettings s;
    s.detector = detector;
    for (const auto& [k, v] : worldOverrides) {
        const float f = float(std::atof(v.c_str()));
        if (k == "iterations") s.solverIterations = int(f);
        else if (k == "deactivation") s.deactivationTime = f;
        else if (k == "angularDamping") s.angularDamping = f;
        else if (k == "linearDamping") s.linearDamping = f;
        else if (k == "rollingFriction") s.rollingFriction = f;
        else if (k == "friction") s.friction = f;
        else if (k == "splitThreshold") s.splitImpulseThreshold = f;
        else if (k == "spinningFriction") s.spinningFriction = f;
        else if (k == "solverFlags") s.solverModeFlags = int(f);
        else if (k == "sleepLinear") s.sleepLinear = f;
        else if (k == "sleepAngular") s.sleepAngular = f;
        else if (k == "restitution") s.restitution = f;
    }
    s.onWarning = [](std::string_view w) { std::fprintf(stderr, "warning: %.*s\n", int(w.size()), w.data()); };
    return s;
}

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The highest body centre in the world (0 when none is above the ground).
float pileTop(bullet::RigidWorld& w) {
    float top = 0.0f;
    for (int i = 0; i < w.bodyCount(); ++i)
        if (inWorld(w, i)) top = std::max(top, w.rigidBody(i)->getWorldTransform().getOrigin().y());
    return top;
}

// Puts `body` back into the pile from above, at rest: the k-th of a batch in a 4 x 4 grid 1.3 m
// apart (layers of 16, 1.2 m apart) from 1.5 m over `top`, turned about y at random.
void putBackOnTop(bullet::RigidWorld& w, int body, int k, float top, std::mt19937& rng) {
    std::uniform_real_distribution<float> jitter(-0.15f, 0.15f), angle(0.0f, 6.2831853f);
    const float x = (float(k % 4) - 1.5f) * 1.3f + jitter(rng), z = (float(k / 4 % 4) - 1.5f) * 1.3f + jitter(rng);
    btRigidBody* b = w.rigidBody(body);
    btTransform t(btQuaternion(btVector3(0, 1, 0), angle(rng)), btVector3(x, top + 1.5f + 1.2f * float(k / 16), z));
    b->setWorldTransform(t);
    b->setInterpolationWorldTransform(t);
    if (b->getMotionState() != nullptr) b->getMotionState()->setWorldTransform(t);
    b->setLinearVelocity(btVector3(0, 0, 0));
    b->setAngularVelocity(btVector3(0, 0, 0));
    b->clearForces();
}

int soak(const Args& a, bool haveGl) {
    std::vector<std::string> detectors = a.detectors.empty() ? defaultDetectors(haveGl, false) : a.detectors;
    auto pile = scenes::makeBunnyPile(a.bodies, 1);
    if (!pile) return std::fprintf(stderr, "%s\n", pile.error().message.c_str()), 1;
    // The first detector that can be made starts the run.
    std::unique_ptr<bullet::RigidWorld> made;
    std::size_t current = 0;
    for (; current < detectors.size(); ++current) {
        auto m = bullet::RigidWorld::create(worldSettings(detectors[current]));
        if (m) {
            made = std::move(*m);
            break;
        }
        std::printf("# %s cannot be made (%s): skipped\n", detectors[current].c_str(), m.error().message.c_str());
    }
    if (!made) return std::fprintf(stderr, "no detector of the list can be made\n"), 1;
    bullet::RigidWorld& w = *made;
    w.addGround(pile->groundHalfExtents);
    for (const Pose& p : pile->poses) w.addMeshBody(pile->bunny, p);
    std::printf("# soak: %d bunnies, %d steps of 1/60 s, detector switched every %d steps among", a.bodies, a.steps,
                a.switchEvery);
    for (const std::string& d : detectors) std::printf(" %s", d.c_str());
    std::printf("; every %d steps %d bodies alternately taken out / put back above the pile (a 4 x 4 grid, 1.5 m over the highest body); a body found 1 m below "
                "the ground at a row is put back on top after it (fell_total counts them)%s\n",
                a.churnEvery, a.churn,
                a.wallLimit > 0
                    ? ("; a detector that takes more than " + std::to_string(int(a.wallLimit)) +
                       " s of wall clock over one period hands over to the next early")
                          .c_str()
                    : "");
    if (a.warmup > 0)
        std::printf("# warm-up: every detector of the list for %d steps in turn from step 1 (its first use), then "
                    "the first one until step %d; the dispatcher keeps the detectors it made and re-uses them "
                    "when switched back to\n",
                    a.warmup, a.switchEvery);
    std::printf("# mirrored_bodies, scene_objects: the dispatcher's tables (CollisionDispatcher::tables()); "
                "kept_detectors: detectors it holds (the one in use too)\n");
    std::printf("# rss_mib: resident memory at the row; rss_trim_mib: the same after malloc_trim(0) (free heap "
                "pages handed back, so what the allocator keeps after a detector freed it does not count)\n");
    std::printf("# after malloc_trim, resident memory by kind (/proc/self/smaps): heap_mib the malloc heap, "
                "anon_mib anonymous mappings (other malloc arenas, large blocks, a driver's own), device_mib "
                "mappings of /dev files (a driver's buffer memory), files_mib code and other files; "
                "malloc_in_use_mib: bytes malloc has handed out (mallinfo2: main arena and large blocks)\n");
    std::printf("# per row: step_ms, collision_ms (the dispatcher), detect_ms (the detector's call), contacts_ms "
                "(patch contacts into the manifolds), mesh_pairs: means over the steps since the last row; "
                "awake: bodies awake now\n");
    std::printf("step\tdetector\tbodies_in_world\trss_mib\tgl_buffer_bytes\tenergy_j\tnan_bodies\tcontacts\t"
                "max_speed\tbelow_ground\tstep_ms\tcollision_ms\tdetect_ms\tcontacts_ms\tmesh_pairs\tfallback_pairs\t"
                "awake\tfell_total\trss_trim_mib\theap_mib\tanon_mib\tdevice_mib\tfiles_mib\tmalloc_in_use_mib\t"
                "mirrored_bodies\tscene_objects\tkept_detectors\n");
    std::fflush(stdout);
    std::mt19937 rng(7);
    std::vector<int> out;  // bodies taken out of the world
    double stepMsSum = 0.0, collisionSum = 0.0, detectSum = 0.0, contactsSum = 0.0, pairsSum = 0.0;
    std::size_t fallbackSum = 0;
    int stepsTimed = 0, worstNan = 0, fellTotal = 0;
    auto periodStart = Clock::now();
    // Per detector, (step, resident MiB, GL bytes) of the last row of each of its periods: the
    // same detector's memory compared across the run (what it holds differs by detector).
    struct Period {
        std::string detector;
        int lastStep = 0;
        double rss = 0.0, rssTrim = 0.0;
        std::size_t glBytes = 0;
    };
    std::vector<Period> periods;
    double energyMin = INFINITY, energyMax = -INFINITY;
    // GL buffer bytes by label at the last row (gl::bufferBytesByLabel), and by detector (the
    // label's first word) at the first row after the warm-up: what grew after it is printed.
    using LabelBytes = std::vector<std::pair<std::string, std::size_t>>;
    LabelBytes glLast;
    std::map<std::string, std::size_t> glByDetectorAtBase;
    int glBaseStep = 0;
    auto byDetector = [](const LabelBytes& labels) {
        std::map<std::string, std::size_t> m;
        for (const auto& [label, bytes] : labels) m[label.substr(0, label.find_first_of(" ."))] += bytes;
        return m;
    };
    // Switches to the next detector of the list that can be made; false when none can.
    auto switchDetector = [&](int step, const char* why) {
        for (std::size_t tries = 1; tries <= detectors.size(); ++tries) {
            const std::size_t next = (current + tries) % detectors.size();
            if (Result<void> r = w.dispatcher()->switchDetector(detectors[next]); !r) {
                std::printf("# step %d: %s cannot be made (%s): skipped\n", step, detectors[next].c_str(),
                            r.error().message.c_str());
                continue;
            }
            if (why != nullptr)
                std::printf("# step %d: %s %s; %s from here\n", step, detectors[current].c_str(), why,
                            detectors[next].c_str());
            current = next;
            periodStart = Clock::now();
            return true;
        }
        return false;
    };
    for (int step = 1; step <= a.steps; ++step) {
        if (detectors.size() > 1 && w.dispatcher() != nullptr) {
            const int warmupEnd = a.warmup * int(detectors.size());
            if (step < warmupEnd ? step % a.warmup == 0 : (step % a.switchEvery == 0 || step == warmupEnd))
                switchDetector(step, nullptr);
            else if (a.wallLimit > 0 && secondsSince(periodStart) > a.wallLimit)
                switchDetector(step, "went past its wall-clock limit");
        }
        if (step % a.churnEvery == 0) {
            if (out.empty()) {
                std::vector<int> in;
                for (int i = 0; i < w.bodyCount(); ++i) in.push_back(i);
                std::shuffle(in.begin(), in.end(), rng);
                for (int k = 0; k < std::min<int>(a.churn, int(in.size())); ++k) {
                    w.world().removeRigidBody(w.rigidBody(in[std::size_t(k)]));
                    out.push_back(in[std::size_t(k)]);
                }
            } else {
                const float top = pileTop(w);
                for (std::size_t k = 0; k < out.size(); ++k) {
                    putBackOnTop(w, out[k], int(k), top, rng);
                    btRigidBody* b = w.rigidBody(out[k]);
                    w.world().addRigidBody(b);
                    b->activate(true);
                }
                out.clear();
            }
        }
        const bullet::StepTimes t = w.step();
        stepMsSum += t.stepMs;
        collisionSum += t.collisionMs;
        if (const bullet::CollisionDispatcher* d = w.dispatcher()) {
            detectSum += d->lastStats().detectMs;
            contactsSum += d->lastStats().contactsMs;
            pairsSum += double(d->lastStats().meshPairs);
            fallbackSum += d->lastStats().fallbackPairs;
        }
        ++stepsTimed;
        if (step % 100 == 0 || step == 1) {
            const int nan = nonFinite(w);
            worstNan = std::max(worstNan, nan);
            int awake = 0;
            for (int i = 0; i < w.bodyCount(); ++i) awake += inWorld(w, i) && w.rigidBody(i)->isActive() ? 1 : 0;
            const int below = belowGround(w);
            const double n = double(stepsTimed);
            const double rss = residentMiB(), e = energy(w);
            energyMin = std::min(energyMin, e);
            energyMax = std::max(energyMax, e);
            if (periods.empty() || periods.back().detector != detectors[current]) periods.push_back({detectors[current]});
            periods.back().lastStep = step;
            // Resident memory again after handing free heap pages back (malloc_trim): what the
            // process still uses, without what the allocator keeps after a detector let it go.
            malloc_trim(0);
            const double rssTrim = residentMiB();
            periods.back().rss = rss;
            periods.back().rssTrim = rssTrim;
            periods.back().glBytes = gl::bufferBytes();
            const MemoryParts parts = memoryParts();
            const bullet::CollisionDispatcher::Tables tables =
                w.dispatcher() ? w.dispatcher()->tables() : bullet::CollisionDispatcher::Tables{};
            std::printf("%d\t%s\t%d\t%.2f\t%zu\t%.3f\t%d\t%d\t%.4f\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.1f\t%zu\t%d\t%d\t%.2f\t"
                        "%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%zu\t%zu\t%zu\n",
                        step, detectors[current].c_str(), w.bodyCount() - int(out.size()), rss,
                        gl::bufferBytes(), e, nan, w.contactCount(), maxSpeedInWorld(w), below,
                        stepMsSum / n, collisionSum / n, detectSum / n, contactsSum / n, pairsSum / n, fallbackSum,
                        awake, fellTotal + below, rssTrim, parts.heap, parts.anonymous, parts.device, parts.files,
                        parts.mallocInUse, tables.bodies, tables.sceneObjects, tables.keptDetectors);
            // Which GL buffers changed size since the last row (after the warm-up, to stdout as a
            // "#" line: GL memory should be flat there; during it, to stderr).
            {
                const LabelBytes now = gl::bufferBytesByLabel();
                std::string changes;
                std::size_t i = 0, j = 0;
                while (i < glLast.size() || j < now.size()) {
                    const bool takeOld = j == now.size() || (i < glLast.size() && glLast[i].first < now[j].first);
                    const bool takeNew = i == glLast.size() || (j < now.size() && now[j].first < glLast[i].first);
                    const std::string& label = takeOld ? glLast[i].first : now[j].first;
                    const std::size_t before = takeNew ? 0 : glLast[i].second, after = takeOld ? 0 : now[j].second;
                    if (before != after) {
                        char b[256];
                        std::snprintf(b, sizeof b, "%s%s %zu -> %zu (%+lld)", changes.empty() ? "" : "; ",
                                      label.c_str(), before, after, (long long)after - (long long)before);
                        changes += b;
                    }
                    if (!takeNew) ++i;
                    if (!takeOld) ++j;
                }
                const bool afterWarmup = step >= std::max(a.switchEvery, a.warmup * int(detectors.size()));
                if (!changes.empty())
                    std::fprintf(afterWarmup && glBaseStep != 0 ? stdout : stderr, "# step %d (%s): GL buffers changed: %s\n",
                                 step, detectors[current].c_str(), changes.c_str());
                if (afterWarmup && glBaseStep == 0) {
                    glBaseStep = step;
                    glByDetectorAtBase = byDetector(now);
                }
                glLast = now;
            }
            std::fflush(stdout);
            // The detector's own figures of this step's call, to stderr (the step breakdown).
            if (bullet::CollisionDispatcher* d = w.dispatcher()) {
                const DetectorStats& ds = d->lastDetectorStats();
                std::fprintf(stderr, "step %d %s: gpu %.3f readback %.3f cpu %.3f total %.3f ms", step,
                             detectors[current].c_str(), ds.gpuMs, ds.readbackMs, ds.cpuMs, ds.totalMs);
                for (const auto& [k, v] : ds.counters) std::fprintf(stderr, " %s=%g", k.c_str(), v);
                std::fprintf(stderr, "\n");
            }
            stepMsSum = collisionSum = detectSum = contactsSum = pairsSum = 0.0;
            fallbackSum = 0;
            stepsTimed = 0;
            // Fallen bodies (a detector that lost the ground) go back on top, so one detector's
            // loss does not leave the rest of the run with bodies falling forever.
            const float top = pileTop(w);
            for (int i = 0, k = 0; i < w.bodyCount(); ++i) {
                if (!inWorld(w, i) || w.rigidBody(i)->getWorldTransform().getOrigin().y() >= -1.0f) continue;
                putBackOnTop(w, i, k++, top, rng);
                w.rigidBody(i)->activate(true);
                ++fellTotal;
            }
        }
    }
    std::printf("# done: worst NaN count %d, GL buffer peak %zu bytes, %d bodies fell through the ground, energy "
                "%.1f..%.1f J over the rows\n",
                worstNan, gl::bufferBytesPeak(), fellTotal, energyMin, energyMax);
    std::printf("# memory at the last row of each detector's periods (step: resident MiB / after malloc_trim, GL "
                "buffer bytes):\n");
    for (const std::string& d : detectors) {
        std::string line;
        for (const Period& p : periods)
            if (p.detector == d) {
                char b[96];
                std::snprintf(b, sizeof b, "  %d: %.2f / %.2f MiB, %zu B", p.lastStep, p.rss, p.rssTrim, p.glBytes);
                line += b;
            }
        if (!line.empty()) std::printf("#   %s%s\n", d.c_str(), line.c_str());
    }
    if (glBaseStep != 0) {
        std::printf("# GL buffer bytes by owner (the label's first word) at step %d and at the end:", glBaseStep);
        std::map<std::string, std::size_t> end = byDetector(gl::bufferBytesByLabel());
        std::map<std::string, std::pair<std::size_t, std::size_t>> both;
        for (const auto& [k, v] : glByDetectorAtBase) both[k].first = v;
        for (const auto& [k, v] : end) both[k].second = v;
        for (const auto& [k, v] : both)
            std::printf(" %s %zu -> %zu (%+lld);", k.c_str(), v.first, v.second, (long long)v.second - (long long)v.first);
        std::printf("\n");
    }
    return worstNan == 0 ? 0 : 1;
}

// Contact points of manifolds with an awake body, and of them those kept from the previous
// step. Bullet keeps a point's m_lifeTime when a new contact matches it in the cache
// (replaceContactPoint: what carries the applied impulse for warm starting), starts a new one
// at 0, and adds 1 to every point in refreshContactPoints, once per step after the contacts
// are added: after a step a new point reads 1, a kept one 2 or more.
std::pair<long, long> keptPoints(btDiscreteDynamicsWorld& world) {
    long kept = 0, all = 0;
    btDispatcher* d = world.getDispatcher();
    for (int i = 0; i < d->getNumManifolds(); ++i) {
        const btPersistentManifold* m = d->getManifoldByIndexInternal(i);
        if (!m->getBody0()->isActive() && !m->getBody1()->isActive()) continue;
        for (int p = 0; p < m->getNumContacts(); ++p) {
            ++all;
            kept += m->getContactPoint(p).getLifeTime() >= 2 ? 1 : 0;
        }
    }
    return {kept, all};
}

// One line to stderr: awake bodies and the fastest one (the physics part's --trace N).
void traceBodies(bullet::RigidWorld& w, const std::string& name, int step) {
    int awake = 0, fastest = 0, moving = 0, aboveSleep = 0;
    for (int i = 0; i < w.bodyCount(); ++i) {
        const btRigidBody* b = w.rigidBody(i);
        awake += b->isActive() ? 1 : 0;
        moving += b->getLinearVelocity().length() >= 0.05f ? 1 : 0;
        aboveSleep += b->getLinearVelocity().length() > 0.8f || b->getAngularVelocity().length() > 1.0f ? 1 : 0;
        if (b->getLinearVelocity().length() > w.rigidBody(fastest)->getLinearVelocity().length()) fastest = i;
    }
    const btRigidBody* f = w.rigidBody(fastest);
    const btVector3 p = f->getWorldTransform().getOrigin();
    std::fprintf(stderr, "trace %s step %d moving %d above_sleep %d ke %.4f", name.c_str(), step, moving, aboveSleep,
                 w.energy() - [&] { double pe = 0; for (int i = 0; i < w.bodyCount(); ++i) pe += 9.81 * double(w.rigidBody(i)->getWorldTransform().getOrigin().y()); return pe; }());
    std::fprintf(stderr, " awake %d fastest %d v %.3f w %.3f at (%.2f %.2f %.2f) state %d island %d sleep_t %.2f\n",
                 awake, fastest, double(f->getLinearVelocity().length()),
                 double(f->getAngularVelocity().length()), double(p.x()), double(p.y()), double(p.z()),
                 f->getActivationState(), f->getIslandTag(), double(f->getDeactivationTime()));
}

// One body's state and every contact point of its manifolds, to stderr (--trace-body): the
// other body, the point relative to this body's centre, the normal pushing this body, the
// signed distance, the point's lifetime and its normal and friction impulses.
void traceBody(bullet::RigidWorld& w, int body, int step) {
    const btRigidBody* b = w.rigidBody(body);
    const btVector3 p = b->getWorldTransform().getOrigin(), v = b->getLinearVelocity(), av = b->getAngularVelocity();
    std::fprintf(stderr, "body %d step %d pos (%.3f %.3f %.3f) v (%.3f %.3f %.3f) |v| %.3f |w| %.3f state %d\n", body,
                 step, double(p.x()), double(p.y()), double(p.z()), double(v.x()), double(v.y()), double(v.z()),
                 double(v.length()), double(av.length()), b->getActivationState());
    btDispatcher* d = w.world().getDispatcher();
    for (int i = 0; i < d->getNumManifolds(); ++i) {
        const btPersistentManifold* m = d->getManifoldByIndexInternal(i);
        const bool is0 = m->getBody0() == b, is1 = m->getBody1() == b;
        if (!is0 && !is1) continue;
        const btCollisionObject* other = is0 ? m->getBody1() : m->getBody0();
        int otherId = -1;
        for (int k = 0; k < w.bodyCount(); ++k)
            if (w.rigidBody(k) == other) otherId = k;
        std::fprintf(stderr, "  with %d (%s): %d points\n", otherId, other->isStaticObject() ? "static" : "body",
                     m->getNumContacts());
        for (int k = 0; k < m->getNumContacts(); ++k) {
            const btManifoldPoint& c = m->getContactPoint(k);
            // Normal on B points from B toward A: toward this body when it is A.
            const btVector3 n = is0 ? c.m_normalWorldOnB : -c.m_normalWorldOnB;
            const btVector3 at = (is0 ? c.getPositionWorldOnA() : c.getPositionWorldOnB()) - p;
            std::fprintf(stderr, "    at (%.3f %.3f %.3f) n (%.3f %.3f %.3f) d %.4f life %d imp %.4f lat %.4f %.4f\n",
                         double(at.x()), double(at.y()), double(at.z()), double(n.x()), double(n.y()), double(n.z()),
                         double(c.getDistance()), c.getLifeTime(), double(c.getAppliedImpulse()),
                         double(c.m_appliedImpulseLateral1), double(c.m_appliedImpulseLateral2));
        }
    }
}

struct Tunnel {
    bool through = false;
    bool cut = false;  // stopped at the wall-clock limit
    double finalX = 0.0;
};

// A bunny at `speed` m/s along +x into a static mesh wall 2 cm thick (2 x 2 m, centred at x = 0,
// y = 1), one second of 1/60 s steps. Passed through: its centre ends beyond the wall.
Result<Tunnel> tunnel(const std::string& detector, float speed, Clock::time_point start, double wallLimit) {
    auto made = bullet::RigidWorld::create(worldSettings(detector));
    if (!made) return fail(made.error().message);
    bullet::RigidWorld& w = **made;
    auto bunny = loadBunny(0.1f);
    if (!bunny) return fail(bunny.error().message);
    w.addStaticMesh(std::make_shared<const Mesh>(shapes::box(Vec3(0.01f, 1.0f, 1.0f))), Pose{Vec3(0.0f, 1.0f, 0.0f)});
    const int b = w.addMeshBody(std::make_shared<const Mesh>(std::move(*bunny)), Pose{Vec3(-1.5f, 1.2f, 0.0f)});
    w.rigidBody(b)->setLinearVelocity(btVector3(speed, 0, 0));
    Tunnel t;
    for (int i = 0; i < 60 && !t.cut; ++i) {
        w.step();
        t.cut = wallLimit > 0 && secondsSince(start) > wallLimit;
    }
    t.finalX = w.pose(b).position.x;
    t.through = t.finalX > 0.0;
    return t;
}

int countBelowGround(bullet::RigidWorld& w) {
    int n = 0;
    for (int i = 0; i < w.bodyCount(); ++i) n += w.pose(i).position.y < -1.0f ? 1 : 0;
    return n;
}

bool allAsleep(bullet::RigidWorld& w) {
    for (int i = 0; i < w.bodyCount(); ++i)
        if (w.rigidBody(i)->isActive()) return false;
    return true;
}

int physics(const Args& a, bool haveGl) {
    std::vector<std::string> detectors = a.detectors.empty() ? defaultDetectors(haveGl, true) : a.detectors;
    const int steps = int(std::lround(a.seconds * 60.0));
    const double settledSpeed = 0.05;  // m/s: every body slower than this from then on
    const double restingSpeed = 0.2;   // m/s: persistence is measured on steps with every body slower
    std::printf("# physics: %d bunnies (seed %d), up to %d steps of 1/60 s, the same world settings for every "
                "detector; margin 0.04 m; penetration from the poses (PenetrationProbe) every %d steps and at the "
                "last; settled: every body below %.2f m/s from then on; the run stops early once every body "
                "sleeps (nothing wakes them here, so that is final: asleep_s) or a body is 1 m below the ground "
                "(fell); persistence: points kept from the previous step, manifolds with an awake body, steps "
                "with every body below %.1f m/s; tunnelling: a bunny into a 2 cm static mesh wall, 1/60 s "
                "steps; step_ms: mean over the steps run, without the probe (probe_ms: one probe)%s\n",
                a.bodies, a.seed, steps, a.penetrationEvery, settledSpeed, restingSpeed,
                a.wallLimit > 0 ? ("; wall-clock limit per detector " + std::to_string(int(a.wallLimit)) +
                                    " s (the pile stops at 70 % of it, the tunnelling runs at all of it)").c_str()
                                : "");
    for (const auto& [k, v] : worldOverrides) std::printf("# world setting changed: %s = %s\n", k.c_str(), v.c_str());
    std::printf("detector\tsettle_s\tmax_pen_m\tmean_pen_m\tcontacts_end\tpersistence\tpersist_points\t"
                "tunnel_5\ttunnel_20\tfallback_pairs\tstep_ms\tsteps_run\tasleep_s\tbelow_ground\tprobe_ms\twall_s\t"
                "note\n");
    std::fflush(stdout);
    int failures = 0;
    for (const std::string& name : detectors) {
        const auto start = Clock::now();
        auto pile = scenes::makeBunnyPile(a.bodies, std::uint32_t(a.seed));
        if (!pile) return std::fprintf(stderr, "%s\n", pile.error().message.c_str()), 1;
        auto made = bullet::RigidWorld::create(worldSettings(name));
        if (!made) {
            std::printf("%s\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t0\t-\t-\t-\t%.1f\tcannot be made: %s\n", name.c_str(),
                        secondsSince(start), made.error().message.c_str());
            std::fflush(stdout);
            ++failures;
            continue;
        }
        bullet::RigidWorld& w = **made;
        w.addGround(pile->groundHalfExtents);
        for (const Pose& p : pile->poses) w.addMeshBody(pile->bunny, p);
        int lastMoving = 0, run = 0, asleepAt = 0, below = 0;
        double maxPen = 0.0, sumPen = 0.0, stepMs = 0.0, probeMs = 0.0;
        int penSamples = 0;
        long kept = 0, all = 0;
        std::size_t fallback = 0;
        std::string note;
        auto probe = [&] {
            const bullet::PenetrationReport r = w.measurePenetration();
            maxPen = std::max(maxPen, r.maxDepth);
            sumPen += r.maxDepth;
            probeMs += r.ms;
            ++penSamples;
        };
        for (int s = 1; s <= steps; ++s) {
            stepMs += w.step().stepMs;
            run = s;
            if (w.maxSpeed() >= settledSpeed) lastMoving = s;
            if (w.dispatcher() != nullptr) fallback += w.dispatcher()->lastStats().fallbackPairs;
            if (a.trace > 0 && s % a.trace == 0) traceBodies(w, name, s);
            if (a.traceBody >= 0 && a.traceBody < w.bodyCount() && s >= a.traceFrom) traceBody(w, a.traceBody, s);
            const bool last = s == steps;
            if (w.maxSpeed() < restingSpeed) {  // settled or nearly: resting contact, where warm starting counts
                const auto [k, n] = keptPoints(w.world());
                kept += k;
                all += n;
            }
            if ((below = countBelowGround(w)) > 0) {
                note = "stopped: " + std::to_string(below) + " bodies fell through the ground by step " + std::to_string(s);
                probe();
                break;
            }
            if (allAsleep(w)) {
                asleepAt = s;
                probe();
                break;
            }
            // The pile gets 70 % of the limit, so the tunnelling runs (2 bodies) still have time.
            if (a.wallLimit > 0 && secondsSince(start) > 0.7 * a.wallLimit) {
                note = "stopped at the wall-clock limit at step " + std::to_string(s);
                probe();
                break;
            }
            if (s % a.penetrationEvery == 0 || last) probe();
        }
        // Settled: asleep (final), or every body below settledSpeed over the last steps of the run.
        const bool settled = below == 0 && (asleepAt > 0 || (run == steps && lastMoving < steps));
        char settle[48];
        if (settled) std::snprintf(settle, sizeof settle, "%.3f", lastMoving / 60.0);
        else if (below > 0) std::snprintf(settle, sizeof settle, "no(fell)");
        else if (run < steps) std::snprintf(settle, sizeof settle, "no(cut at %.2f)", run / 60.0);
        else std::snprintf(settle, sizeof settle, "no(>%.0f)", a.seconds);
        char asleep[32];
        if (asleepAt > 0) std::snprintf(asleep, sizeof asleep, "%.3f", asleepAt / 60.0);
        else std::snprintf(asleep, sizeof asleep, "no");
        auto say = [](const Result<Tunnel>& t) {
            if (!t) return std::string("error");
            char b[48];
            std::snprintf(b, sizeof b, "%s(x=%.2f)", t->cut ? "cut" : t->through ? "through" : "stopped", t->finalX);
            return std::string(b);
        };
        const std::string t5 = say(tunnel(name, 5.0f, start, a.wallLimit));
        const std::string t20 = say(tunnel(name, 20.0f, start, a.wallLimit));
        if (!settled) ++failures;
        std::printf("%s\t%s\t%.4f\t%.4f\t%d\t%s\t%ld\t%s\t%s\t%zu\t%.2f\t%d\t%s\t%d\t%.2f\t%.1f\t%s\n", name.c_str(),
                    settle, maxPen, penSamples ? sumPen / penSamples : 0.0, w.contactCount(),
                    all ? std::to_string(double(kept) / double(all)).substr(0, 5).c_str() : "n/a", all, t5.c_str(),
                    t20.c_str(), fallback, stepMs / std::max(1, run), run, asleep, below,
                    penSamples ? probeMs / penSamples : 0.0, secondsSince(start), note.empty() ? "-" : note.c_str());
        std::fflush(stdout);
    }
    return failures == 0 ? 0 : 1;
}

// The names `physics` runs by default, one a line (GL ones when a context can be made).
int list(bool haveGl) {
    for (const std::string& n : defaultDetectors(haveGl, true)) std::printf("%s\n", n.c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const Args a = parse(argc, argv);
    // GL detectors need a current context; without one (no GPU, no llvmpipe) only the CPU ones run.
    std::optional<gl::Context> context;
    if (auto c = gl::Context::createHeadless()) context.emplace(std::move(*c));
    else std::fprintf(stderr, "no GL context (%s): CPU detectors only\n", c.error().message.c_str());
    if (context && a.mode != "list") std::printf("# GL: %s\n", context->info().renderer.c_str());
    if (a.mode == "list") return list(context.has_value());
    return a.mode == "soak" ? soak(a, context.has_value()) : physics(a, context.has_value());
}
