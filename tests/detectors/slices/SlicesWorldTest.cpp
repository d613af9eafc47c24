// The slices detector through a Bullet world (isc::bullet::RigidWorld): a pile of bunnies on a
// box ground with "slices" in the dispatcher, side by side with "cpu" on the same scene.
// - slices (defaults): the exact check's triangle pairs make the contacts (vertex-face
//   patches, as cpu's): the pile must pass PileTest.cpp's checks (no NaN, nothing through the
//   ground, penetration under 2 margins over all steps, measured from the poses by the exact
//   PenetrationProbe, every bunny resting on something and stopped at the end, no fallback).
// - slices_samples (samples=true): every colliding pair carries contact samples (voxel centres
//   of the shared region, one fill-gradient normal per pair, the region's thickness as depth)
//   and the dispatcher makes its contacts from them alone. They must hold the pile up (the
//   same checks but resting); they do not let it rest: bodies hover about a margin apart and
//   keep jittering (docs/detectors/slices.md, "Contacts"), printed, not asserted.
// Small for llvmpipe: 8 bunnies, 300 steps.
#include "BunnyPile.h"
#include "GlTest.h"

#include "isc/bullet/CollisionDispatcher.h"
#include "isc/bullet/RigidWorld.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

using namespace isc;

namespace {

constexpr int kBodies = 8;
constexpr int kSteps = 300;            // 5 s of 1/60 s
constexpr double kMargin = 0.04;       // WorldSettings' default
constexpr double kRestingGap = 0.005;  // a body within this of something rests on it (PileTest.cpp)
constexpr double kRestingSpeed = 0.05; // m/s

struct WorldCase {
    const char* name;
    const char* detector;
    OptionList options;
    bool rests;  // every body must rest at the end
};

class SlicesWorldTest : public GlTest, public ::testing::WithParamInterface<WorldCase> {};

}  // namespace

TEST_P(SlicesWorldTest, BunniesPileUp) {
    const WorldCase& c = GetParam();
    auto pile = scenes::makeBunnyPile(kBodies, 1);
    ASSERT_TRUE(pile.has_value()) << pile.error().message;
    bullet::WorldSettings ws;
    ws.detector = c.detector;
    ws.detectorSettings.options = c.options;
    std::vector<std::string> warnings;
    ws.onWarning = [&warnings](std::string_view w) { warnings.emplace_back(w); };
    auto created = bullet::RigidWorld::create(ws);
    ASSERT_TRUE(created.has_value()) << created.error().message;
    bullet::RigidWorld& world = **created;
    world.addGround(pile->groundHalfExtents);
    for (const Pose& p : pile->poses) world.addMeshBody(pile->bunny, p, 1.0f);
    double maxPenetration = 0.0, samplePairs = 0.0;
    int penetrationStep = -1;
    std::size_t fallback = 0;
    for (int i = 0; i < kSteps; ++i) {
        world.step();
        ASSERT_FALSE(world.hasNonFinite()) << "step " << i;
        fallback += world.dispatcher()->lastStats().fallbackPairs;
        samplePairs += world.dispatcher()->lastStats().samplePairs;
        const double pen = world.maxPenetration();
        if (pen > maxPenetration) maxPenetration = pen, penetrationStep = i;
    }
    EXPECT_GT(world.lowestPoint(), -2.0 * kMargin);
    EXPECT_LT(maxPenetration, 2.0 * kMargin) << c.name << " (step " << penetrationStep << ")";
    const std::vector<double> gaps = world.bodyClearances(0.1);
    ASSERT_EQ(gaps.size(), std::size_t(kBodies));
    double widestGap = 0.0, fastest = 0.0;
    for (int b = 0; b < kBodies; ++b) {
        widestGap = std::max(widestGap, gaps[std::size_t(b)]);
        fastest = std::max(fastest, world.speed(b));
        if (!c.rests) continue;
        EXPECT_LE(gaps[std::size_t(b)], kRestingGap) << c.name << ": body " << b << " rests on nothing";
        EXPECT_LT(world.speed(b), kRestingSpeed) << c.name << ": body " << b << " still moving";
    }
    EXPECT_EQ(fallback, 0u);
    for (const std::string& w : warnings) ADD_FAILURE() << "warning: " << w;
    if (!c.rests) {
        EXPECT_GT(samplePairs, 0.0);  // contacts came from samples
    } else {
        EXPECT_EQ(samplePairs, 0.0);
    }
    std::printf("[%s] max penetration %.4f m (step %d), pair-steps with samples %.0f, at the end: widest gap %.4f m, "
                "fastest body %.3f m/s\n",
                c.name, maxPenetration, penetrationStep, samplePairs, widestGap, fastest);
}

INSTANTIATE_TEST_SUITE_P(Detectors, SlicesWorldTest,
                         ::testing::Values(WorldCase{"cpu", "cpu", {}, true}, WorldCase{"slices", "slices", {}, true},
                                           WorldCase{"slices_samples", "slices", {{"samples", "true"}}, false}),
                         [](const ::testing::TestParamInfo<WorldCase>& param) { return std::string(param.param.name); });
