// isc::particles::ParticleSystem against references: hand-worked motion (a bounce with its
// restitution, a slide with its friction), limits and bad input (counts beyond the driver's
// buffer limit, NaN particles), the exact CPU reference on the same particles, and the
// property the maps are built for: no particle ever ends a step inside a closed environment
// (bunnies on the bumpy terrain; the exact inside test on a sample of particles every step).
#include "GlTest.h"
#include "Terrain.h"

#include "isc/mesh/Shapes.h"
#include "isc/particles/ExactEnvironment.h"
#include "isc/particles/ParticleSystem.h"
#include "isc/scene/Scene.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

using namespace isc;
using namespace isc::particles;

namespace {

// A static ground box whose top is y = top.
Scene groundScene(float top = 0.0f) {
    Scene scene;
    const ObjectId g = scene.addObject(scene.addMesh(std::make_shared<const Mesh>(shapes::box(Vec3(5.0f, 0.5f, 5.0f)))),
                                       {Vec3(0.0f, top - 0.5f, 0.0f)});
    scene.setStatic(g, true);
    return scene;
}

ParticleSettings groundSettings() {
    ParticleSettings s;
    s.capacity = 4096;
    s.domain = {Vec3(-4.0f, -1.0f, -4.0f), Vec3(4.0f, 3.0f, 4.0f)};
    s.resolution = 256;
    return s;
}

ParticleSystem make(const ParticleSettings& s) {
    auto p = ParticleSystem::create(s);
    if (!p) {
        ADD_FAILURE() << p.error().message;
        std::abort();
    }
    return std::move(*p);
}

}  // namespace

class ParticlesTest : public GlTest {};

// Settings are checked; a capacity beyond the driver's storage-buffer limit is an error that
// names the limit; emitting beyond the capacity is an error and emits nothing.
TEST_F(ParticlesTest, LimitsAndSettingsAreChecked) {
    ParticleSettings s = groundSettings();
    s.capacity = ParticleSystem::maxCapacity() + 1;
    auto tooMany = ParticleSystem::create(s);
    ASSERT_FALSE(tooMany.has_value());
    EXPECT_NE(tooMany.error().message.find("GL_MAX_SHADER_STORAGE_BLOCK_SIZE"), std::string::npos)
        << tooMany.error().message;
    EXPECT_NE(tooMany.error().message.find(std::to_string(ParticleSystem::maxCapacity())), std::string::npos)
        << tooMany.error().message;
    auto bad = [](auto change) {
        ParticleSettings b = groundSettings();
        change(b);
        return !ParticleSystem::create(b).has_value();
    };
    EXPECT_TRUE(bad([](ParticleSettings& b) { b.domain = {}; }));
    EXPECT_TRUE(bad([](ParticleSettings& b) { b.resolution = 8; }));
    EXPECT_TRUE(bad([](ParticleSettings& b) { b.directions = 3; }));
    EXPECT_TRUE(bad([](ParticleSettings& b) { b.restitution = 1.5f; }));
    EXPECT_TRUE(bad([](ParticleSettings& b) { b.gravity.y = NAN; }));
    EXPECT_TRUE(bad([](ParticleSettings& b) { b.capacity = 0; }));

    s = groundSettings();
    s.capacity = 10;
    ParticleSystem ps = make(s);
    std::vector<Vec3> eleven(11, Vec3(0.0f, 1.0f, 0.0f));
    auto over = ps.emit(eleven, eleven);
    ASSERT_FALSE(over.has_value());
    EXPECT_NE(over.error().message.find("capacity"), std::string::npos) << over.error().message;
    EXPECT_EQ(ps.size(), 0u);
    EXPECT_FALSE(ps.emitBox(11, {Vec3(0.0f), Vec3(1.0f)}, Vec3(0.0f), 0.0f, 1).has_value());
    EXPECT_FALSE(ps.emit(std::span(eleven).first(2), std::span(eleven).first(3)).has_value());
    EXPECT_TRUE(ps.emit(std::span(eleven).first(10), std::span(eleven).first(10)).has_value());
    EXPECT_EQ(ps.size(), 10u);
    EXPECT_FALSE(ps.step(0.0f).has_value());
}

// Dropped from 1 m onto the ground (restitution 0.5, 1/240 s steps), a particle rises again
// to e^2 = 0.25 m (within 10%: the step's discretisation); sliding at 2 m/s with friction 0.5
// and no restitution, it stops after v^2 / (2 mu g) = 0.408 m (within 10%).
TEST_F(ParticlesTest, ADroppedParticleBouncesAndASlidingOneStops) {
    const Scene scene = groundScene();
    {
        ParticleSettings s = groundSettings();
        s.restitution = 0.5f;
        s.friction = 0.0f;
        ParticleSystem ps = make(s);
        ASSERT_TRUE(ps.setEnvironment(scene).has_value());
        const Vec3 p0(0.3f, 1.0f, -0.2f), v0(0.0f);
        ASSERT_TRUE(ps.emit(std::span(&p0, 1), std::span(&v0, 1)).has_value());
        std::vector<Vec4> pos, vel;
        bool bounced = false;
        float peak = 0.0f;
        for (int i = 0; i < 240 * 2; ++i) {
            ASSERT_TRUE(ps.step(1.0f / 240.0f).has_value());
            ASSERT_TRUE(ps.readParticles(&pos, &vel).has_value());
            ASSERT_GE(pos[0].y, 0.0f) << "step " << i;
            if (!bounced && vel[0].y > 0.0f) bounced = true;
            if (bounced) {
                if (vel[0].y < 0.0f) break;
                peak = std::max(peak, pos[0].y);
            }
        }
        EXPECT_TRUE(bounced);
        EXPECT_NEAR(peak, 0.25f, 0.025f);
    }
    {
        ParticleSettings s = groundSettings();
        s.restitution = 0.0f;
        s.friction = 0.5f;
        ParticleSystem ps = make(s);
        ASSERT_TRUE(ps.setEnvironment(scene).has_value());
        const Vec3 p0(-1.0f, 0.001f, 0.0f), v0(2.0f, 0.0f, 0.0f);
        ASSERT_TRUE(ps.emit(std::span(&p0, 1), std::span(&v0, 1)).has_value());
        std::vector<Vec4> pos, vel;
        for (int i = 0; i < 240; ++i) ASSERT_TRUE(ps.step(1.0f / 240.0f).has_value());
        ASSERT_TRUE(ps.readParticles(&pos, &vel).has_value());
        EXPECT_NEAR(pos[0].x - p0.x, 4.0f / (2.0f * 0.5f * 9.81f), 0.041f);
        EXPECT_NEAR(glm::length(Vec3(vel[0])), 0.0f, 1e-4f);
        EXPECT_GE(pos[0].y, 0.0f);
    }
}

// A particle whose state is NaN or Inf is removed and counted; the others move exactly as
// they do without it (nothing is shared between particles).
TEST_F(ParticlesTest, NanParticlesAreRemovedAndNotSpread) {
    const Scene scene = groundScene();
    const Aabb box{Vec3(-2.0f, 0.5f, -2.0f), Vec3(2.0f, 2.0f, 2.0f)};
    ParticleSystem clean = make(groundSettings()), dirty = make(groundSettings());
    for (ParticleSystem* ps : {&clean, &dirty}) {
        ASSERT_TRUE(ps->setEnvironment(scene).has_value());
        ASSERT_TRUE(ps->emitBox(1000, box, Vec3(0.0f, -1.0f, 0.0f), 2.0f, 5).has_value());
    }
    const float inf = std::numeric_limits<float>::infinity();
    const Vec3 badP[2] = {Vec3(0.0f, 1.0f, 0.0f), Vec3(inf, 1.0f, 0.0f)};
    const Vec3 badV[2] = {Vec3(NAN, 0.0f, 0.0f), Vec3(0.0f)};
    ASSERT_TRUE(dirty.emit(badP, badV).has_value());
    for (int i = 0; i < 60; ++i) {
        ASSERT_TRUE(clean.step(1.0f / 60.0f).has_value());
        ASSERT_TRUE(dirty.step(1.0f / 60.0f).has_value());
    }
    auto st = dirty.readStats();
    ASSERT_TRUE(st.has_value());
    EXPECT_EQ(st->nanRemoved, 2u);
    EXPECT_EQ(st->alive(), 1000u - st->leftDomain);
    std::vector<Vec4> a, b;
    ASSERT_TRUE(clean.readParticles(&a, nullptr).has_value());
    ASSERT_TRUE(dirty.readParticles(&b, nullptr).has_value());
    ASSERT_EQ(b.size(), 1002u);
    for (std::size_t i = 0; i < 1000; ++i) ASSERT_EQ(a[i], b[i]) << "particle " << i;
    EXPECT_EQ(b[1000].w, 0.0f);
    EXPECT_EQ(b[1001].w, 0.0f);
}

// The property the conservative maps give: 20,000 particles poured on 9 bunnies resting on
// the bumpy terrain for 1.5 s; every step, every 10th particle is checked with the exact
// inside test (ExactEnvironment: per object, ray parity by three rays): none is inside
// (2,000 x 90 checks). With the cube's 6 maps and with the single map along gravity.
TEST_F(ParticlesTest, NoParticleEndsAStepInsideAClosedEnvironment) {
    auto field = scenes::makeBunnyField(9, 4);
    ASSERT_TRUE(field.has_value()) << field.error().message;
    Scene scene;
    const ObjectId t = scene.addObject(scene.addMesh(field->terrain.mesh));
    scene.setStatic(t, true);
    const MeshId bunny = scene.addMesh(field->bunny);
    for (const Pose& p : field->poses) scene.setStatic(scene.addObject(bunny, p), true);
    const ExactEnvironment exact = ExactEnvironment::build(scene);
    // The oracle sees the environment: points 5 cm under the terrain's top are inside, 5 cm
    // over it outside (away from the bunnies), 100 of each.
    for (int k = 0; k < 100; ++k) {
        const float x = -2.5f + 0.05f * float(k), z = 2.9f - 0.031f * float(k);
        const float h = field->terrain.heightAt(x, z);
        ASSERT_TRUE(exact.inside(Vec3(x, h - 0.05f, z))) << x << ", " << z;
        bool nearBunny = false;
        for (const Pose& p : field->poses) nearBunny |= glm::length(Vec2(p.position.x - x, p.position.z - z)) < 0.7f;
        if (!nearBunny) {
            ASSERT_FALSE(exact.inside(Vec3(x, h + 0.05f, z))) << x << ", " << z;
        }
    }
    const float half = 0.5f * field->terrain.settings.size;
    for (int directions : {6, 1}) {
        SCOPED_TRACE(testing::Message() << directions << " maps");
        ParticleSettings s;
        s.capacity = 20000;
        s.domain = {Vec3(-half, -1.5f, -half), Vec3(half, 4.0f, half)};
        s.resolution = 512;
        s.directions = directions;
        s.restitution = 0.3f;
        s.friction = 0.5f;
        ParticleSystem ps = make(s);
        auto env = ps.setEnvironment(scene);
        ASSERT_TRUE(env.has_value()) << env.error().message;
        EXPECT_TRUE(env->refreshed);
        EXPECT_EQ(env->objects, 10u);
        ASSERT_TRUE(ps.emitBox(20000, {Vec3(-2.0f, 1.2f, -2.0f), Vec3(2.0f, 3.0f, 2.0f)}, Vec3(0.0f, -2.0f, 0.0f),
                               1.5f, 9)
                        .has_value());
        std::vector<Vec4> pos;
        std::size_t checked = 0, inside = 0, collisions = 0;
        for (int step = 0; step < 90; ++step) {
            ASSERT_TRUE(ps.step(1.0f / 60.0f).has_value());
            auto st = ps.readStats();
            ASSERT_TRUE(st.has_value());
            collisions += st->lastCollisions;
            ASSERT_TRUE(ps.readParticles(&pos, nullptr).has_value());
            for (std::size_t i = std::size_t(step % 10); i < pos.size(); i += 10) {
                if (pos[i].w == 0.0f) continue;
                ++checked;
                if (exact.inside(Vec3(pos[i]))) {
                    if (++inside <= 5) ADD_FAILURE() << "particle " << i << " inside at step " << step << ": " << pos[i].x
                                                     << ", " << pos[i].y << ", " << pos[i].z;
                }
            }
        }
        EXPECT_EQ(inside, 0u) << "of " << checked << " checked";
        EXPECT_GT(checked, 150000u);
        EXPECT_GT(collisions, 100000u);  // they did land (most rest on something by the end)
        auto st = ps.readStats();
        ASSERT_TRUE(st.has_value());
        EXPECT_EQ(st->nanRemoved, 0u);
        RecordProperty(directions == 6 ? "checked_6" : "checked_1", int(checked));
    }
}

// The environment moves (the ground rises 0.1 m): the maps are rasterised again (only then),
// and at the next step the particles resting on the old top are pushed out, none inside.
TEST_F(ParticlesTest, AMovedStaticBodyRefreshesTheMaps) {
    Scene scene = groundScene();
    ParticleSystem ps = make(groundSettings());
    ASSERT_TRUE(ps.setEnvironment(scene).has_value());
    ASSERT_TRUE(ps.emitBox(2000, {Vec3(-2.0f, 0.05f, -2.0f), Vec3(2.0f, 0.3f, 2.0f)}, Vec3(0.0f), 0.0f, 3).has_value());
    for (int i = 0; i < 40; ++i) ASSERT_TRUE(ps.step(1.0f / 60.0f).has_value());
    auto same = ps.setEnvironment(scene);
    ASSERT_TRUE(same.has_value());
    EXPECT_FALSE(same->refreshed);
    scene.setPose(0, {Vec3(0.0f, -0.4f, 0.0f)});
    auto moved = ps.setEnvironment(scene);
    ASSERT_TRUE(moved.has_value());
    EXPECT_TRUE(moved->refreshed);
    ASSERT_TRUE(ps.step(1.0f / 60.0f).has_value());
    const ExactEnvironment exact = ExactEnvironment::build(scene);
    std::vector<Vec4> pos;
    ASSERT_TRUE(ps.readParticles(&pos, nullptr).has_value());
    std::size_t alive = 0;
    for (const Vec4& p : pos) {
        if (p.w == 0.0f) continue;
        ++alive;
        EXPECT_GE(p.y, 0.1f);
        EXPECT_FALSE(exact.inside(Vec3(p)));
    }
    EXPECT_EQ(alive, 2000u);
}

// Side by side with the CPU reference (segment casts through the exact mesh's BVH): 2,000
// particles dropped from 1 to 2.5 m straight down onto the ground (restitution 0.5, friction
// 0.3), 0.75 s: each lands once (0.45 to 0.71 s) and is on its way up again, and the two agree
// within 1 mm (on a flat top the maps are exact up to the clearance and the bound's 7 um
// slack). A particle ending a step within that slack of the clearance bounces on one side
// only (then they part; later, resting particles bounce ever lower and meet it often): at
// most 2 of 2,000 (~0.2 expected).
TEST_F(ParticlesTest, MatchesTheCpuReferenceOnTheGround) {
    const Scene scene = groundScene();
    ParticleSettings s = groundSettings();
    s.restitution = 0.5f;
    s.friction = 0.3f;
    ParticleSystem ps = make(s);
    ASSERT_TRUE(ps.setEnvironment(scene).has_value());
    ASSERT_TRUE(ps.emitBox(2000, {Vec3(-3.0f, 1.0f, -3.0f), Vec3(3.0f, 2.5f, 3.0f)}, Vec3(0.0f), 0.0f, 7).has_value());
    std::vector<Vec4> cpuPos, cpuVel, gpuPos;
    ASSERT_TRUE(ps.readParticles(&cpuPos, &cpuVel).has_value());
    const ExactEnvironment exact = ExactEnvironment::build(scene);
    std::size_t cpuCollisions = 0;
    for (int i = 0; i < 45; ++i) {
        ASSERT_TRUE(ps.step(1.0f / 60.0f).has_value());
        cpuCollisions += stepOnCpu(cpuPos, cpuVel, exact, s, 1.0f / 60.0f).collisions;
    }
    ASSERT_TRUE(ps.readParticles(&gpuPos, nullptr).has_value());
    std::size_t apart = 0;
    for (std::size_t i = 0; i < gpuPos.size(); ++i) apart += glm::length(Vec3(gpuPos[i] - cpuPos[i])) > 1e-3f ? 1 : 0;
    EXPECT_LE(apart, 2u) << apart << " of " << gpuPos.size() << " more than 1 mm apart";
    EXPECT_GE(cpuCollisions, 2000u);
}

// The ground's top triangles at 4096 pixels cover the whole 4096 x 4096 map: 16.8M pixels for
// the 64 lanes of one work group, 262K iterations a lane, where llvmpipe silently ends an
// invocation's loops after 65535 (docs/gl.md, "Loop bounds on llvmpipe"). Before the split
// of big[] items over groups, only the first quarter of the map got the ground and the
// particles over the rest fell through it on llvmpipe; now they match the CPU reference.
TEST_F(ParticlesTest, AGroundTriangleOverAFineMapIsRasterisedWhole) {
    const Scene scene = groundScene();
    ParticleSettings s = groundSettings();
    s.resolution = 4096;
    s.directions = 1;
    s.restitution = 0.0f;
    ParticleSystem ps = make(s);
    ASSERT_TRUE(ps.setEnvironment(scene).has_value());
    ASSERT_TRUE(ps.emitBox(500, {Vec3(-3.9f, 0.2f, -3.9f), Vec3(3.9f, 0.4f, 3.9f)}, Vec3(0.0f), 0.0f, 3).has_value());
    std::vector<Vec4> cpuPos, cpuVel, gpuPos;
    ASSERT_TRUE(ps.readParticles(&cpuPos, &cpuVel).has_value());
    const ExactEnvironment exact = ExactEnvironment::build(scene);
    for (int i = 0; i < 30; ++i) {
        ASSERT_TRUE(ps.step(1.0f / 60.0f).has_value());
        stepOnCpu(cpuPos, cpuVel, exact, s, 1.0f / 60.0f);
    }
    ASSERT_TRUE(ps.readParticles(&gpuPos, nullptr).has_value());
    std::size_t fell = 0, apart = 0;
    for (std::size_t i = 0; i < gpuPos.size(); ++i) {
        fell += gpuPos[i].w == 0.0f || gpuPos[i].y < -0.01f ? 1 : 0;
        apart += glm::length(Vec3(gpuPos[i] - cpuPos[i])) > 1e-3f ? 1 : 0;
    }
    EXPECT_EQ(fell, 0u) << fell << " of " << gpuPos.size() << " particles fell through the ground";
    EXPECT_LE(apart, 2u) << apart << " of " << gpuPos.size() << " more than 1 mm apart";
}
