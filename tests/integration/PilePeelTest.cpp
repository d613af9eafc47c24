// A world through the GL depth-peeling detector: a bunny pile with "peel" in the dispatcher
// passes the stability checks of the cpu pile test (PileTest.cpp), side by side with "cpu"
// on the same scene so that a failure says whether the detector or the scene is at fault.
//
// Size, chosen to run on llvmpipe in CI: 10 bunnies (two layers: bunnies land on bunnies),
// 300 steps (5 s, the settle time of the issue), peel at 64 pixels across a bunny and 1 axis
// (~15 cm / 64 = 1.5 mm pixels; docs/integration.md: on the 30-bunny pile this setting finds
// 3914 of the reference's 3918 triangle pairs and every colliding body pair, at 1/50 of the
// default's time on llvmpipe). The narrowphase is exact, so every reported pair is real;
// what a lower resolution can cost is recall, which the stability checks would show
// (bodies sinking into each other or the ground).
#include "BunnyPile.h"
#include "GlTest.h"

#include "isc/bullet/CollisionDispatcher.h"
#include "isc/bullet/RigidWorld.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

using namespace isc;

namespace {

constexpr int kBodies = 10;
constexpr int kSteps = 300;  // 5 s of 1/60 s

struct PileCase {
    const char* name;
    const char* detector;
    int resolution;
    int axes;
};

struct Dropped {
    double finalMaxSpeed = INFINITY;   ///< m/s
    double maxPenetration = INFINITY;  ///< metres, over all steps (RigidWorld's proxy)
    double lowest = -INFINITY;         ///< lowest vertex at the end, metres
    int contacts = 0;
    double meanStepMs = 0.0;
};

class PilePeelTest : public GlTest, public ::testing::WithParamInterface<PileCase> {};

Dropped drop(const PileCase& c) {
    auto pile = scenes::makeBunnyPile(kBodies, 1);
    EXPECT_TRUE(pile.has_value()) << pile.error().message;
    if (!pile) return {};
    bullet::WorldSettings ws;
    ws.detector = c.detector;
    if (std::string_view(c.detector) == "peel")
        ws.detectorSettings.options = {{"resolution", std::to_string(c.resolution)}, {"axes", std::to_string(c.axes)}};
    auto created = bullet::RigidWorld::create(ws);
    EXPECT_TRUE(created.has_value()) << created.error().message;
    if (!created) return {};
    bullet::RigidWorld& world = **created;
    world.addGround(pile->groundHalfExtents);
    for (const Pose& p : pile->poses) world.addMeshBody(pile->bunny, p, 1.0f);

    Dropped d;
    d.maxPenetration = 0.0;
    double sumMs = 0.0;
    for (int i = 0; i < kSteps; ++i) {
        sumMs += world.step().stepMs;
        EXPECT_FALSE(world.hasNonFinite()) << "step " << i;
        if (world.hasNonFinite()) return {};
        d.maxPenetration = std::max(d.maxPenetration, world.maxPenetration());
    }
    // The dispatcher gives the detector meshes swollen by half the margin: they must stay
    // closed (peel needs closed meshes and warns about any other), and nothing else may warn.
    for (const std::string& w : world.dispatcher()->warnings()) ADD_FAILURE() << "warning: " << w;
    for (int b = 0; b < world.bodyCount(); ++b) EXPECT_GT(world.pose(b).position.y, 0.0f) << "body " << b;
    d.finalMaxSpeed = world.maxSpeed();
    d.lowest = world.lowestPoint();
    d.contacts = world.contactCount();
    d.meanStepMs = sumMs / kSteps;
    return d;
}

}  // namespace

// No NaN, none below the ground (lowest vertex above -2 margins), penetration < 2 margins
// over all steps, everyone rests on something, settled (< 0.05 m/s) at 5 s: the checks of
// PileTest.cpp, at 10 bunnies.
TEST_P(PilePeelTest, TenBunniesPileAndSettle) {
    const PileCase& c = GetParam();
    const Dropped d = drop(c);
    const double margin = bullet::WorldSettings{}.margin;
    RecordProperty("mean_step_ms", std::to_string(d.meanStepMs));
    RecordProperty("max_penetration", std::to_string(d.maxPenetration));
    RecordProperty("final_max_speed", std::to_string(d.finalMaxSpeed));
    EXPECT_GT(d.lowest, -2.0 * margin);
    EXPECT_LT(d.maxPenetration, 2.0 * margin);
    EXPECT_GE(d.contacts, kBodies);  // every bunny rests on something
    EXPECT_LT(d.finalMaxSpeed, 0.05);
    std::printf("[%s] mean step %.1f ms, max penetration %.4f m, final max speed %.4f m/s, contacts %d\n", c.name,
                d.meanStepMs, d.maxPenetration, d.finalMaxSpeed, d.contacts);
}

INSTANTIATE_TEST_SUITE_P(Detectors, PilePeelTest,
                         ::testing::Values(PileCase{"cpu", "cpu", 512, 3}, PileCase{"peel_64_1axis", "peel", 64, 1}),
                         [](const ::testing::TestParamInfo<PileCase>& param) { return std::string(param.param.name); });
