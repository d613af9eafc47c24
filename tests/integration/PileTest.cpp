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
    double maxPenetration = INFINITY;  ///< metres, over all steps (RigidWorld's proxy)
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
        maxPenetration = std::max(maxPenetration, world.maxPenetration());
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

// Settled within 5 s: with RigidWorld's defaults (rolling friction 0.03, every penetration
// corrected by split impulse, deactivation after 1 s below Bullet's sleeping thresholds)
// the pile's island sleeps before 5 s with seeds 1-4 and 6-8 (seed 5: 4 bunnies still
// toppling at 5 s).
TEST(BunnyPile, ThirtyBunniesSettleWithin5s) {
    EXPECT_LT(dropThirty(300).finalMaxSpeed, 0.05);
}

// Penetration < 2 x margin over all steps (RigidWorld's proxy: the ground exactly, mesh
// pairs by their deepest manifold point): 0.077 m with seed 1, at step 27 (a second-layer
// bunny landing at ~4.4 m/s on a first-layer one: 7 cm per step, more than the margin);
// 0.023 m from step 30 on. Seeds 2-8 over all steps: 0.03-0.07 m, seed 7 0.1 m. Deep points are
// checked to lie inside the other body (a vertex under a face in a concave pocket is
// not a contact: those read up to the 0.1 m cap and made this 0.0994 m), and a sunk part
// is pushed out along its entry normal.
TEST(BunnyPile, ThirtyBunniesPenetrateLessThanTwoMargins) {
    EXPECT_LT(dropThirty(300).maxPenetration, 2.0 * 0.04);
}
