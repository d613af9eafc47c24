// isc demo bunny-pile: bunnies dropped on a ground through the isc dispatcher (or stock
// Bullet GImpact), timed and measured; a window, or --headless with the final frame as PNG.
// The runner (demos/viewer/) does the window, the detector and the pictures: this file is the
// scene and its summary line.
#include "Commands.h"
#include "MeshArg.h"

#include "BunnyPile.h"
#include "BunnyWobble.h"
#include "isc/bullet/CollisionDispatcher.h"
#include "isc/bullet/RigidWorld.h"
#include "viewer/Demo.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace isc::tool {
namespace {

struct PileOptions {
    std::string mesh = "bunny";  // the body mesh: a built-in name or an OBJ path
    std::string broadphase = "dbvt";  // or "cullide" (isc::bullet::CullideBroadphase)
    // Every body's vertices wobble each step (scenes::BunnyWobble, as the bench's deform/100):
    // each body has its own shape, moved in beforeStep through RigidWorld::setBodyVertices.
    bool deform = false;
};

class BunnyPileDemo final : public Demo {
public:
    explicit BunnyPileDemo(PileOptions o) : options_(std::move(o)) {}

    Result<std::unique_ptr<bullet::RigidWorld>> build(const DemoSetup& setup) override {
        auto pile = scenes::makeBunnyPile(setup.bodies, setup.seed);
        if (!pile) return fail(pile.error().message);
        if (options_.mesh != "bunny") {
            if (!mesh_) {  // loaded once: build() runs again on every reset and detector switch
                auto mesh = loadMeshArg(options_.mesh);
                if (!mesh) return fail("--mesh: " + mesh.error().message);
                mesh_ = std::make_shared<Mesh>(std::move(*mesh));
            }
            pile->bunny = mesh_;
        }
        bullet::WorldSettings ws = setup.world;
        ws.broadphase = options_.broadphase;
        auto created = bullet::RigidWorld::create(ws);
        if (!created) return fail(created.error().message);
        bullet::RigidWorld& world = **created;
        world.addGround(pile->groundHalfExtents);
        for (const Pose& p : pile->poses) {
            if (options_.deform) world.addDeformingMeshBody(pile->bunny, p, 1.0f);
            else world.addMeshBody(pile->bunny, p, 1.0f);
        }
        if (options_.deform) wobble_ = std::make_unique<scenes::BunnyWobble>(pile->bunny);
        // The render scene: object i is body i.
        scene_ = Scene();
        const MeshId mesh = scene_.addMesh(pile->bunny);
        for (const Pose& p : pile->poses) scene_.addObject(mesh, p);
        pile_ = std::move(*pile);
        return created;
    }

    Scene& scene() override { return scene_; }

    void beforeStep(bullet::RigidWorld& world, int step) override {
        if (!wobble_) return;
        const float t = float(step) / 60.0f;
        for (int i = 0; i < world.bodyCount(); ++i) {
            wobble_->vertices(std::uint32_t(i), t, vertices_);
            world.setBodyVertices(i, vertices_);
            scene_.setVertices(ObjectId(i), vertices_);  // drawn as detected
        }
    }

    void afterStep(bullet::RigidWorld& world, int step) override {
        if (step == 1) fallbackPairs_ = 0;
        if (world.dispatcher()) fallbackPairs_ += world.dispatcher()->lastStats().fallbackPairs;
    }

    render::Camera camera() const override {
        float extent = 0.0f;
        for (const Pose& p : pile_.poses) extent = std::max({extent, std::abs(p.position.x), std::abs(p.position.z)});
        render::Camera c;
        c.target = Vec3(0.0f, 0.6f, 0.0f);
        c.eye = Vec3(extent * 1.6f + 3.0f, extent * 1.1f + 2.5f, extent * 2.2f + 4.0f);
        return c;
    }

    std::string describe() const override {
        const Aabb& box = pile_.bunny->localBounds();
        char text[160];
        std::snprintf(text, sizeof text, "%zu %s (%zu triangles each, %.2f m tall)%s", pile_.poses.size(),
                      options_.mesh == "bunny" ? "bunnies" : options_.mesh.c_str(), pile_.bunny->triangleCount(),
                      double(box.max.y - box.min.y), options_.deform ? ", every vertex wobbling each step" : "");
        return text;
    }

    void printSummary(const DemoRun& run, bullet::RigidWorld& world) const override {
        std::printf("summary: detector=%s%s bodies=%d steps=%d mean_step_ms=%.3f mean_collision_ms=%.3f "
                    "max_penetration=%.4f settled_max_speed=%.4f contacts=%d fallback_pairs=%zu\n",
                    run.detector.c_str(), run.automatic ? " auto=yes" : "", run.bodies, run.steps, run.meanStepMs,
                    run.meanCollisionMs, run.maxPenetration, world.maxSpeed(), world.contactCount(), fallbackPairs_);
    }

private:
    PileOptions options_;
    std::shared_ptr<const Mesh> mesh_;  // --mesh, when not the bunny
    std::size_t fallbackPairs_ = 0;     // pairs served by the exact path, summed over the steps
    scenes::BunnyPile pile_;
    Scene scene_;
    std::unique_ptr<scenes::BunnyWobble> wobble_;  // --deform
    std::vector<Vec3> vertices_;                   // one body's, reused
};

}  // namespace

void addBunnyPileDemo(CLI::App& demo, int& exitCode) {
    auto options = std::make_shared<PileOptions>();
    CLI::App* pile = addDemoCommand(demo,
                                    {"bunny-pile", "Drop bunnies on a ground and let them settle", 30, 300,
                                     [options] { return std::make_unique<BunnyPileDemo>(*options); }},
                                    exitCode);
    pile->add_option("--mesh", options->mesh,
                     "the bodies' mesh: bunny (default), " + builtinMeshNames() +
                         " or an OBJ file (about 1 m across: the pile's spacing is 1.3 m)")
        ->capture_default_str();
    pile->add_option("--broadphase", options->broadphase, "dbvt (Bullet's) or cullide (GPU-pruned pairs)")
        ->capture_default_str();
    pile->add_flag("--deform", options->deform,
                   "every body's vertices wobble each step (2 % of its size; each body its own shape, "
                   "CollisionDispatcher::meshVerticesChanged)");
}

}  // namespace isc::tool
