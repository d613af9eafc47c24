// isc demo bunny-pile: bunnies dropped on a ground through the isc dispatcher (or stock
// Bullet GImpact), timed, measured, and the final frame written to a PNG.
#include "Commands.h"
#include "DetectorArgs.h"

#include "BunnyPile.h"
#include "isc/bullet/CollisionDispatcher.h"
#include "isc/bullet/RigidWorld.h"
#include "isc/detect/Detector.h"
#include "isc/detect/Registry.h"
#include "isc/gl/Context.h"
#include "isc/scene/Scene.h"
#include "render/SceneRenderer.h"

#include <CLI/CLI.hpp>
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

namespace isc::tool {
namespace {

struct PileOptions {
    int bodies = 30;
    int steps = 300;
    std::string detector = "cpu";
    bool headless = false;
    std::string out = "bunny-pile.png";
    std::uint32_t seed = 1;
    int width = 1280, height = 720;
    std::vector<std::string> sets;  // the detector's own settings, --set name=value
    bool detectorStats = false;
    std::string broadphase = "dbvt";  // or "cullide" (isc::bullet::CullideBroadphase)
};

bool hasDisplay() {
    const char* x = std::getenv("DISPLAY");
    const char* w = std::getenv("WAYLAND_DISPLAY");
    return (x && *x) || (w && *w);
}

// The dispatcher's split of the last step and the detector's own counters of its batch.
void printDetectorStats(const bullet::CollisionDispatcher& d) {
    const bullet::DispatchStats& ds = d.lastStats();
    const DetectorStats& st = d.lastDetectorStats();
    std::printf("  dispatch %.2f ms (mirror %.2f, detect %.2f, exact path %.2f, contacts %.2f, bullet %.2f), mesh pairs "
                "%zu, colliding %zu, triangle pairs %zu, fallback pairs %zu, sample pairs %zu\n",
                ds.totalMs, ds.mirrorMs, ds.detectMs, ds.fallbackMs, ds.contactsMs, ds.bulletMs, ds.meshPairs,
                ds.collidingPairs, ds.trianglePairs, ds.fallbackPairs, ds.samplePairs);
    std::printf("  detector total %.2f ms, gpu %.2f, readback %.2f, cpu %.2f:", st.totalMs, st.gpuMs, st.readbackMs,
                st.cpuMs);
    for (const auto& [name, value] : st.counters) std::printf(" %s=%.6g", name.c_str(), value);
    std::printf("\n");
}

int runBunnyPile(const PileOptions& o) {
    if (o.bodies < 1 || o.steps < 1) {
        std::fprintf(stderr, "bunny-pile: --bodies and --steps must be at least 1\n");
        return 2;
    }
    // The GL context comes first: GL detectors need it current when they are created.
    std::optional<gl::Context> context;
    if (!o.headless && hasDisplay()) {
        auto w = gl::Context::createWindow(o.width, o.height, "isc bunny pile");
        if (w) context.emplace(std::move(*w));
        else std::fprintf(stderr, "bunny-pile: no window (%s); going headless\n", w.error().message.c_str());
    }
    if (!context) {
        auto h = gl::Context::createHeadless();
        if (!h) {
            std::fprintf(stderr, "bunny-pile: no OpenGL context: %s\n", h.error().message.c_str());
            return 1;
        }
        context.emplace(std::move(*h));
    }

    auto pile = scenes::makeBunnyPile(o.bodies, o.seed);
    if (!pile) {
        std::fprintf(stderr, "bunny-pile: %s\n", pile.error().message.c_str());
        return 1;
    }
    bullet::WorldSettings ws;
    ws.detector = o.detector;
    ws.broadphase = o.broadphase;
    auto options = parseSets(o.sets);
    if (!options) {
        std::fprintf(stderr, "bunny-pile: %s\n", options.error().message.c_str());
        return 2;
    }
    ws.detectorSettings.options = *options;
    auto created = bullet::RigidWorld::create(ws);
    if (!created) {
        std::fprintf(stderr, "bunny-pile: %s\n", created.error().message.c_str());
        return 2;
    }
    bullet::RigidWorld& world = **created;
    world.addGround(pile->groundHalfExtents);
    for (const Pose& p : pile->poses) world.addMeshBody(pile->bunny, p, 1.0f);

    // The render scene mirrors the bodies' poses.
    Scene scene;
    const MeshId bunnyMesh = scene.addMesh(pile->bunny);
    for (const Pose& p : pile->poses) scene.addObject(bunnyMesh, p);
    auto renderer = render::SceneRenderer::create(o.width, o.height);
    if (!renderer) {
        std::fprintf(stderr, "bunny-pile: renderer: %s\n", renderer.error().message.c_str());
        return 1;
    }
    float extent = 0.0f, top = 0.0f;
    for (const Pose& p : pile->poses) {
        extent = std::max({extent, std::abs(p.position.x), std::abs(p.position.z)});
        top = std::max(top, p.position.y);
    }
    renderer->camera().target = Vec3(0.0f, 0.6f, 0.0f);
    renderer->camera().eye = Vec3(extent * 1.6f + 3.0f, extent * 1.1f + 2.5f, extent * 2.2f + 4.0f);
    auto draw = [&]() -> bool {
        for (int b = 0; b < world.bodyCount(); ++b) scene.setPose(ObjectId(b), world.pose(b));
        if (auto r = renderer->render(scene); !r) {
            std::fprintf(stderr, "bunny-pile: render: %s\n", r.error().message.c_str());
            return false;
        }
        if (context->window()) {
            const auto [fw, fh] = context->framebufferSize();
            renderer->present(fw, fh);
            context->swapBuffers();
            glfwPollEvents();
        }
        return true;
    };

    std::printf("bunny-pile: %d bunnies (%zu triangles each, 0.97 m tall), %d steps of 1/60 s, detector %s, %s\n",
                o.bodies, pile->bunny->triangleCount(), o.steps, o.detector.c_str(),
                context->info().renderer.c_str());
    if (findDetector(o.detector) != nullptr)
        std::printf("detector settings: %s\n", describeOptions(ws.detectorSettings.options).c_str());
    double sumStep = 0.0, sumCollision = 0.0, maxPenetration = 0.0;
    std::size_t fallbackPairs = 0;  // pairs served by the exact path, summed over steps
    const int every = std::max(1, o.steps / 10);
    for (int s = 1; s <= o.steps; ++s) {
        const bullet::StepTimes t = world.step(1.0f / 60.0f);
        sumStep += t.stepMs;
        sumCollision += t.collisionMs;
        maxPenetration = std::max(maxPenetration, world.maxPenetration());
        if (world.dispatcher()) fallbackPairs += world.dispatcher()->lastStats().fallbackPairs;
        if (world.hasNonFinite()) {
            std::fprintf(stderr, "bunny-pile: a body's state became NaN at step %d\n", s);
            return 1;
        }
        if (s % every == 0 || s == o.steps) {
            std::printf("step %4d/%d  %7.2f ms/step  collision %7.2f ms  max speed %.3f m/s  contacts %d\n", s,
                        o.steps, sumStep / s, sumCollision / s, world.maxSpeed(), world.contactCount());
            if (o.detectorStats && world.dispatcher()) printDetectorStats(*world.dispatcher());
        }
        if (context->window() && s % 2 == 0) {
            if (context->shouldClose()) break;
            if (!draw()) return 1;
        }
        std::fflush(stdout);
    }
    if (!draw()) return 1;
    if (!o.out.empty()) {
        if (auto r = renderer->writePng(o.out); !r) {
            std::fprintf(stderr, "bunny-pile: %s\n", r.error().message.c_str());
            return 1;
        }
        std::printf("wrote %s\n", o.out.c_str());
    }
    std::printf("summary: detector=%s bodies=%d steps=%d mean_step_ms=%.3f mean_collision_ms=%.3f "
                "max_penetration=%.4f settled_max_speed=%.4f contacts=%d fallback_pairs=%zu\n",
                o.detector.c_str(), o.bodies, o.steps, sumStep / o.steps, sumCollision / o.steps, maxPenetration,
                world.maxSpeed(), world.contactCount(), fallbackPairs);
    return 0;
}

}  // namespace

void addBunnyPileDemo(CLI::App& demo, int& exitCode) {
    static PileOptions options;
    CLI::App* pile = demo.add_subcommand("bunny-pile", "Drop bunnies on a ground and let them settle");
    pile->add_option("--bodies", options.bodies, "number of bunnies")->capture_default_str();
    pile->add_option("--steps", options.steps, "steps of 1/60 s")->capture_default_str();
    pile->add_option("--detector", options.detector,
                     "a detector (cpu, ...) or bullet-gimpact for stock Bullet GImpact")
        ->capture_default_str();
    pile->add_flag("--headless", options.headless, "no window even when a display exists");
    pile->add_option("--broadphase", options.broadphase, "dbvt (Bullet's) or cullide (GPU-pruned pairs)")->capture_default_str();
    pile->add_option("--out", options.out, "PNG of the final frame (empty: none)")->capture_default_str();
    pile->add_option("--seed", options.seed, "seed of the bunnies' turns and jitter")->capture_default_str();
    addSetOption(pile, options.sets);
    pile->add_flag("--detector-stats", options.detectorStats,
                   "print the dispatcher's split and the detector's counters with each progress line");
    pile->callback([&exitCode] { exitCode = runBunnyPile(options); });
}

}  // namespace isc::tool
