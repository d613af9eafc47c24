// A world with the CULLIDE detector in the dispatcher: bunnies dropped on the pile's ground, a
// btBoxShape over 40 m across that the dispatcher reads as a 12-triangle mesh far larger than
// the bunnies. Before the fix of the ground bug (docs/detectors/cullide.md) every bunny of
// a pile of 6 or more fell through it: the ground's triangles cover more pixels than one shader
// loop may visit on llvmpipe (65535), so their fragments were cut short and the bunnies' bottom
// triangles were pruned as fully visible. Side by side with `cpu` on the same scene, so that a
// failure says whether the detector or the scene is at fault.
//
// Size, chosen for llvmpipe in CI: 10 bunnies (two layers), 240 steps (4 s of 1/60 s; the
// bunnies land after about 0.7 s), cullide at its defaults.
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
constexpr int kSteps = 240;
constexpr double kMargin = 0.04;        // WorldSettings' default
constexpr double kRestingGap = 0.005;   // a body within this of something rests on it (PileTest.cpp)
constexpr double kRestingSpeed = 0.05;  // m/s

struct Dropped {
    double maxPenetration = INFINITY;  // metres, over all steps, from the poses (exact reference)
    int penetrationStep = -1;
    double lowestEver = INFINITY;      // lowest vertex over all steps, metres
    std::vector<double> gaps;          // per body at the end: clearance to anything, metres
    std::vector<double> speeds;        // per body at the end, m/s
    std::vector<std::string> warnings;
    double meanStepMs = 0.0;
};

Dropped drop(const char* detector) {
    auto pile = scenes::makeBunnyPile(kBodies, 1);
    EXPECT_TRUE(pile.has_value()) << pile.error().message;
    if (!pile) return {};
    bullet::WorldSettings ws;
    ws.detector = detector;
    Dropped d;
    ws.onWarning = [&d](std::string_view w) { d.warnings.emplace_back(w); };
    auto created = bullet::RigidWorld::create(ws);
    EXPECT_TRUE(created.has_value()) << created.error().message;
    if (!created) return {};
    bullet::RigidWorld& world = **created;
    world.addGround(pile->groundHalfExtents);
    for (const Pose& p : pile->poses) world.addMeshBody(pile->bunny, p, 1.0f);
    d.maxPenetration = 0.0;
    double sumMs = 0.0;
    for (int i = 0; i < kSteps; ++i) {
        sumMs += world.step().stepMs;
        EXPECT_FALSE(world.hasNonFinite()) << "step " << i;
        if (world.hasNonFinite()) return {};
        const double pen = world.maxPenetration();
        if (pen > d.maxPenetration) d.maxPenetration = pen, d.penetrationStep = i;
        d.lowestEver = std::min(d.lowestEver, world.lowestPoint());
    }
    for (int b = 0; b < world.bodyCount(); ++b) d.speeds.push_back(world.speed(b));
    d.gaps = world.bodyClearances(0.1);
    d.meanStepMs = sumMs / kSteps;
    return d;
}

class PileCullideTest : public GlTest, public ::testing::WithParamInterface<const char*> {};

// No bunny ever sinks below the ground's top by 2 margins (falling through reads metres),
// penetration stays under 2 margins, and at the end every bunny rests on something and has
// stopped; no warning.
TEST_P(PileCullideTest, TenBunniesRestOnALargeBoxGround) {
    const char* detector = GetParam();
    const Dropped d = drop(detector);
    ASSERT_EQ(d.gaps.size(), std::size_t(kBodies));
    EXPECT_GT(d.lowestEver, -2.0 * kMargin) << detector;
    EXPECT_LT(d.maxPenetration, 2.0 * kMargin) << detector << " (step " << d.penetrationStep << ")";
    for (int b = 0; b < kBodies; ++b) {
        EXPECT_LE(d.gaps[std::size_t(b)], kRestingGap) << detector << ": body " << b << " rests on nothing";
        EXPECT_LT(d.speeds[std::size_t(b)], kRestingSpeed) << detector << ": body " << b << " still moving";
    }
    for (const std::string& w : d.warnings) ADD_FAILURE() << "warning: " << w;
    std::printf("[%s, box ground] mean step %.1f ms, max penetration %.4f m (step %d), lowest %.4f m\n", detector,
                d.meanStepMs, d.maxPenetration, d.penetrationStep, d.lowestEver);
}

INSTANTIATE_TEST_SUITE_P(Detectors, PileCullideTest, ::testing::Values("cpu", "cullide"),
                         [](const ::testing::TestParamInfo<const char*>& p) { return std::string(p.param); });

}  // namespace
