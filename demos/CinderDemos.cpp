// isc demo stairs and isc demo snow-bunny: the two demos of the CInDeR paper (papers/000
// section 5) as Bullet worlds through the isc dispatcher, any detector (`--detector cinder`
// shows the paper's: contacts from its edge hits, encoded normals and depths). stairs: boxes and
// spheres tumbling down a staircase of closed boxes (static meshes: every body-step pair goes
// through the detector); snow-bunny: many small spheres falling on a static bunny and bouncing
// off it (restitution 0.4) along its normals. Both in a window or --headless to PNG, by the
// runner (demos/viewer/); the two share this file since only their scenes differ
// (demos/scenes/StairsAndSnow.h).
#include "Commands.h"

#include "StairsAndSnow.h"
#include "isc/bullet/CollisionDispatcher.h"
#include "isc/bullet/RigidWorld.h"
#include "viewer/Demo.h"

#include <btBulletDynamicsCommon.h>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <functional>
#include <string>

namespace isc::tool {
namespace {

class MeshSceneDemo final : public Demo {
public:
    using Maker = std::function<Result<scenes::MeshScene>(int, std::uint32_t)>;
    MeshSceneDemo(std::string what, Maker make, float restitution, render::Camera camera)
        : what_(std::move(what)), make_(std::move(make)), restitution_(restitution), camera_(camera) {}

    Result<std::unique_ptr<bullet::RigidWorld>> build(const DemoSetup& setup) override {
        auto made = make_(setup.bodies, setup.seed);
        if (!made) return fail(made.error().message);
        bullet::WorldSettings ws = setup.world;
        ws.restitution = restitution_;
        auto created = bullet::RigidWorld::create(ws);
        if (!created) return fail(created.error().message);
        bullet::RigidWorld& world = **created;
        world.addGround(made->groundHalfExtents);
        for (std::size_t i = 0; i < made->staticMeshes.size(); ++i)
            world.addStaticMesh(made->staticMeshes[i], made->staticPoses[i]);
        const btVector3 v(made->bodyVelocity.x, made->bodyVelocity.y, made->bodyVelocity.z);
        for (std::size_t i = 0; i < made->bodyMeshes.size(); ++i) {
            const int b = world.addMeshBody(made->bodyMeshes[i], made->bodyPoses[i], 1.0f);
            world.rigidBody(b)->setLinearVelocity(v);
        }
        // The render scene: object i is body i, the static pieces after them.
        scene_ = Scene();
        for (std::size_t i = 0; i < made->bodyMeshes.size(); ++i)
            scene_.addObject(scene_.addMesh(made->bodyMeshes[i]), made->bodyPoses[i]);
        for (std::size_t i = 0; i < made->staticMeshes.size(); ++i)
            scene_.addObject(scene_.addMesh(made->staticMeshes[i]), made->staticPoses[i]);
        triangles_ = 0;
        for (const auto& m : made->staticMeshes) triangles_ += m->triangleCount();
        scenery_ = made->staticMeshes.size();
        bodies_ = made->bodyMeshes.size();
        return created;
    }

    Scene& scene() override { return scene_; }

    void afterStep(bullet::RigidWorld& world, int step) override {
        if (step == 1) fallbackPairs_ = 0;
        if (world.dispatcher()) fallbackPairs_ += world.dispatcher()->lastStats().fallbackPairs;
    }

    render::Camera camera() const override { return camera_; }

    std::string describe() const override {
        char text[160];
        std::snprintf(text, sizeof text, "%zu bodies, %s (%zu static pieces, %zu triangles)", bodies_, what_.c_str(),
                      scenery_, triangles_);
        return text;
    }

    void printSummary(const DemoRun& run, bullet::RigidWorld& world) const override {
        std::printf("summary: detector=%s%s bodies=%d steps=%d mean_step_ms=%.3f mean_collision_ms=%.3f "
                    "max_penetration=%.4f max_speed=%.4f contacts=%d fallback_pairs=%zu\n",
                    run.detector.c_str(), run.automatic ? " auto=yes" : "", run.bodies, run.steps, run.meanStepMs,
                    run.meanCollisionMs, run.maxPenetration, world.maxSpeed(), world.contactCount(), fallbackPairs_);
    }

private:
    std::string what_;
    Maker make_;
    float restitution_;
    render::Camera camera_;
    Scene scene_;
    std::size_t triangles_ = 0, scenery_ = 0, bodies_ = 0, fallbackPairs_ = 0;
};

}  // namespace

void addStairsDemo(CLI::App& demo, int& exitCode) {
    render::Camera c;
    c.target = Vec3(2.2f, 1.0f, 0.0f);
    c.eye = Vec3(2.6f, 3.2f, 7.5f);
    addDemoCommand(demo,
                   {"stairs", "Boxes and spheres tumbling down a staircase (the CInDeR paper's demo)", 20, 300,
                    [c] { return std::make_unique<MeshSceneDemo>("on a staircase of 8 steps", scenes::makeStairs, 0.2f, c); }},
                   exitCode);
}

void addSnowBunnyDemo(CLI::App& demo, int& exitCode) {
    render::Camera c;
    c.target = Vec3(0.0f, 1.0f, 0.0f);
    c.eye = Vec3(2.8f, 3.0f, 4.2f);
    addDemoCommand(demo,
                   {"snow-bunny", "Small spheres falling on a bunny and bouncing off it (the CInDeR paper's demo)", 500,
                    240,
                    [c] { return std::make_unique<MeshSceneDemo>("falling on a bunny", scenes::makeSnowBunny, 0.4f, c); }},
                   exitCode);
}

}  // namespace isc::tool
