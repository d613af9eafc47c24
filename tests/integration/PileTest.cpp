// A world: 30 bunnies dropped on a ground settle within 5 s simulated, through the cpu detector.
#include "BunnyPile.h"

#include "isc/bullet/CollisionDispatcher.h"
#include "isc/bullet/RigidWorld.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

using namespace isc;

namespace {

struct Dropped {
    double finalMaxSpeed = INFINITY;  ///< m/s
    double maxPenetration = INFINITY;  ///< metres, from step 30 on (RigidWorld's proxy)
};

// Drops 30 bunnies, steps `steps` of 1/60 s and checks stability (no NaN, none below the
// ground, energy never grows after landing, everyone rests on something).
Dropped dropThirty(int steps) {
    auto pile = scenes::makeBunnyPile(30, 1);
    EXPECT_TRUE(pile.has_value()) << pile.error().message;
    if (!pile) return {};
    bullet::WorldSettings ws;
    ws.detector = "cpu";
    auto created = bullet::RigidWorld::create(ws);
    EXPECT_TRUE(created.has_value()) << created.error().message;
    if (!created) return {};
    bullet::RigidWorld& world = **created;
    world.addGround(pile->groundHalfExtents);
    for (const Pose& p : pile->poses) world.addMeshBody(pile->bunny, p, 1.0f);

    const float margin = ws.margin;
    // Energy after landing (2 s: the highest layer has fallen by then) never grows by more
    // than the solver's position correction can add: 2 mm of lift per body.
    const double tolerance = 30 * 1.0 * 9.81 * 0.002;
    double lowestEnergy = INFINITY;
    double maxPenetration = 0.0;
    for (int i = 0; i < steps; ++i) {
        world.step();
        EXPECT_FALSE(world.hasNonFinite()) << "step " << i;
        if (world.hasNonFinite()) return {};
        if (i >= 30) maxPenetration = std::max(maxPenetration, world.maxPenetration());
        if (i >= 120) {
            const double e = world.energy();
            EXPECT_LE(e, lowestEnergy + tolerance) << "energy grew at step " << i;
            lowestEnergy = std::min(lowestEnergy, e);
        }
    }
    EXPECT_GT(world.lowestPoint(), -2.0 * margin);
    for (int b = 0; b < world.bodyCount(); ++b) EXPECT_GT(world.pose(b).position.y, 0.0f) << "body " << b;
    EXPECT_GT(world.contactCount(), 30);  // every bunny rests on something
    EXPECT_TRUE(world.dispatcher()->warnings().empty());
    (void)margin;
    return {world.maxSpeed(), maxPenetration};
}

}  // namespace

// Stable: no NaN, none below the ground, energy never grows after landing.
TEST(BunnyPile, ThirtyBunniesStayStableWithTheCpuDetector) {
    const Dropped d = dropThirty(300);  // 5 s
    RecordProperty("final_max_speed", std::to_string(d.finalMaxSpeed));
    RecordProperty("max_penetration", std::to_string(d.maxPenetration));
}

// Settled (max speed < 0.05 m/s) within 10 s.
TEST(BunnyPile, ThirtyBunniesSettleWithin10s) {
    EXPECT_LT(dropThirty(600).finalMaxSpeed, 0.05);
}

// Settled within 5 s: with RigidWorld's defaults (rolling friction 0.03, deactivation after
// 1 s below Bullet's sleeping thresholds) the pile's island sleeps at about 4.2 s (seeds 1
// and 2).
TEST(BunnyPile, ThirtyBunniesSettleWithin5s) {
    EXPECT_LT(dropThirty(300).finalMaxSpeed, 0.05);
}

// Penetration < 2 x margin from step 30 on. KNOWN FAILURE (issue 3): about 0.097 m (seed 1,
// step 94). A sunk ear is now pushed out along the entry normal (it used to stay ~9 cm in
// for 20 steps), so after the landings the pile stays within 1-2 cm; the deep points are
// single-step impacts: landing at 3-6 m/s a bunny moves 5-10 cm per step, more than the
// 4 cm margin, and nothing makes contacts before the margin (no CCD; a velocity-aware
// speculative distance was tried and made the pile jitter).
TEST(BunnyPile, DISABLED_ThirtyBunniesPenetrateLessThanTwoMargins) {
    EXPECT_LT(dropThirty(300).maxPenetration, 2.0 * 0.04);
}
