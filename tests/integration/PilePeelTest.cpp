// A world through the GL depth-peeling detector: a bunny pile with "peel" in the dispatcher
// passes the stability checks of the cpu pile test (PileTest.cpp), side by side with "cpu"
// on the same scene so that a failure says whether the detector or the scene is at fault;
// then the same bunnies dropped on an open terrain (a btBvhTriangleMeshShape height field,
// as a Bullet app's level): peel needs closed meshes, so the dispatcher serves every
// bunny-terrain pair by its exact path, and the bunnies must rest on the terrain as with cpu.
//
// Size, chosen to run on llvmpipe in CI: 10 bunnies (two layers: bunnies land on bunnies),
// 300 steps (5 s, the settle time of the issue), peel at 64 pixels across the smallest object
// and 1 axis (docs/integration.md: at step 40 of the 30-bunny pile this setting finds 3916 of
// the reference's 3918 triangle pairs and all 31 colliding body pairs,
// bench/results/dev-2026-11-23-pile-physics.txt). The narrowphase is exact, so every reported pair is real;
// what a lower resolution can cost is recall, which the checks would show (bodies sinking
// into each other or the ground). Penetration and resting are measured from the poses alone
// (RigidWorld's PenetrationProbe, the exact reference), body by body: a detector that misses
// contacts reads deeper, never shallower.
#include "BunnyPile.h"
#include "BunnyWobble.h"
#include "GlTest.h"

#include "isc/bullet/CollisionDispatcher.h"
#include "isc/bullet/RigidWorld.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace isc;

namespace {

constexpr int kBodies = 10;
constexpr int kSteps = 300;  // 5 s of 1/60 s
constexpr double kMargin = 0.04;       // WorldSettings' default
constexpr double kRestingGap = 0.005;  // a body within this of something rests on it (PileTest.cpp)
constexpr double kRestingSpeed = 0.05; // m/s

struct PileCase {
    const char* name;
    const char* detector;
    int resolution;
    int axes;
};

enum class Ground { Box, OpenTerrain };

struct Dropped {
    double maxPenetration = INFINITY;  ///< metres, over all steps, measured from the poses
    int penetrationStep = -1;
    double lowest = -INFINITY;         ///< lowest vertex at the end, metres
    std::vector<double> gaps;          ///< per body at the end: clearance to anything, metres
    std::vector<double> speeds;        ///< per body at the end, m/s
    std::vector<std::string> warnings;
    std::size_t fallbackPairs = 0;     ///< summed over steps
    double meanStepMs = 0.0;
};

class PilePeelTest : public GlTest, public ::testing::WithParamInterface<PileCase> {};

// A height field over [-4, 4] m squared, 0.5 m cells (512 triangles), up to 0.12 m high:
// open (boundary edges all round), counter-clockwise seen from above (normals up).
std::shared_ptr<const Mesh> openTerrain() {
    const int n = 16;
    const float size = 8.0f;
    std::vector<Vec3> verts;
    std::vector<UVec3> tris;
    for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= n; ++j) {
            const float x = -0.5f * size + size * float(i) / n, z = -0.5f * size + size * float(j) / n;
            verts.emplace_back(x, 0.12f * std::sin(1.1f * x + 0.3f) * std::cos(0.9f * z), z);
        }
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            const std::uint32_t v = std::uint32_t(i * (n + 1) + j);
            tris.emplace_back(v, v + 1, v + n + 1);
            tris.emplace_back(v + 1, v + n + 2, v + n + 1);
        }
    auto m = Mesh::create("open terrain", std::move(verts), std::move(tris));
    EXPECT_TRUE(m.has_value());
    EXPECT_FALSE(m->isClosed());
    return std::make_shared<const Mesh>(std::move(*m));
}

Dropped drop(const PileCase& c, Ground ground) {
    auto pile = scenes::makeBunnyPile(kBodies, 1);
    EXPECT_TRUE(pile.has_value()) << pile.error().message;
    if (!pile) return {};
    bullet::WorldSettings ws;
    ws.detector = c.detector;
    if (std::string_view(c.detector) == "peel")
        ws.detectorSettings.options = {{"resolution", std::to_string(c.resolution)}, {"axes", std::to_string(c.axes)}};
    Dropped d;
    ws.onWarning = [&d](std::string_view w) { d.warnings.emplace_back(w); };
    auto created = bullet::RigidWorld::create(ws);
    EXPECT_TRUE(created.has_value()) << created.error().message;
    if (!created) return {};
    bullet::RigidWorld& world = **created;
    if (ground == Ground::Box) world.addGround(pile->groundHalfExtents);
    else world.addStaticMesh(openTerrain());
    for (Pose p : pile->poses) {
        if (ground == Ground::OpenTerrain) p.position.y += 0.15f;  // clear the bumps
        world.addMeshBody(pile->bunny, p, 1.0f);
    }

    d.maxPenetration = 0.0;
    double sumMs = 0.0;
    for (int i = 0; i < kSteps; ++i) {
        sumMs += world.step().stepMs;
        EXPECT_FALSE(world.hasNonFinite()) << "step " << i;
        if (world.hasNonFinite()) return {};
        d.fallbackPairs += world.dispatcher()->lastStats().fallbackPairs;
        const double pen = world.maxPenetration();
        if (pen > d.maxPenetration) d.maxPenetration = pen, d.penetrationStep = i;
    }
    for (int b = 0; b < world.bodyCount(); ++b)
        d.speeds.push_back(world.speed(b));
    d.gaps = world.bodyClearances(0.1);
    d.lowest = world.lowestPoint();
    d.meanStepMs = sumMs / kSteps;
    return d;
}

// Every body rests on something (ground, terrain or another body: within kRestingGap of it,
// measured from the poses) and has stopped (< kRestingSpeed); nothing is deeper than 2
// margins in anything over all steps.
void expectAllResting(const Dropped& d, const std::string& name) {
    ASSERT_EQ(d.gaps.size(), std::size_t(kBodies)) << name;
    for (int b = 0; b < kBodies; ++b) {
        EXPECT_LE(d.gaps[std::size_t(b)], kRestingGap) << name << ": body " << b << " rests on nothing";
        EXPECT_LT(d.speeds[std::size_t(b)], kRestingSpeed) << name << ": body " << b << " still moving";
    }
    EXPECT_LT(d.maxPenetration, 2.0 * kMargin) << name << " (step " << d.penetrationStep << ")";
}

}  // namespace

// No NaN, none below the ground (lowest vertex above -2 margins), penetration < 2 margins
// over all steps, every bunny rests on something and has stopped at 5 s: the checks of
// PileTest.cpp, at 10 bunnies. No warning (the swollen meshes the detector gets stay closed).
TEST_P(PilePeelTest, TenBunniesPileAndSettle) {
    const PileCase& c = GetParam();
    const Dropped d = drop(c, Ground::Box);
    RecordProperty("mean_step_ms", std::to_string(d.meanStepMs));
    RecordProperty("max_penetration", std::to_string(d.maxPenetration));
    EXPECT_GT(d.lowest, -2.0 * kMargin);
    expectAllResting(d, c.name);
    for (const std::string& w : d.warnings) ADD_FAILURE() << "warning: " << w;
    EXPECT_EQ(d.fallbackPairs, 0u);
    std::printf("[%s, box ground] mean step %.1f ms, max penetration %.4f m (step %d)\n", c.name, d.meanStepMs,
                d.maxPenetration, d.penetrationStep);
}

// The same bunnies on an open terrain (btBvhTriangleMeshShape): every bunny rests on the
// terrain or on another bunny, none below it (penetration < 2 margins, measured against the
// terrain's front side), as with cpu. With peel every bunny-terrain pair goes to the exact
// path (counted: DispatchStats::fallbackPairs > 0), said in one warning naming the open mesh.
TEST_P(PilePeelTest, TenBunniesRestOnAnOpenTerrain) {
    const PileCase& c = GetParam();
    const Dropped d = drop(c, Ground::OpenTerrain);
    expectAllResting(d, std::string(c.name) + " on the open terrain");
    if (std::string_view(c.detector) == "peel") {
        EXPECT_GT(d.fallbackPairs, std::size_t(kBodies));  // every bunny, on many steps
        ASSERT_EQ(d.warnings.size(), 1u);
        EXPECT_NE(d.warnings[0].find("not closed"), std::string::npos) << d.warnings[0];
        EXPECT_NE(d.warnings[0].find("exact 'cpu' detector"), std::string::npos) << d.warnings[0];
    } else {
        EXPECT_EQ(d.fallbackPairs, 0u);
        for (const std::string& w : d.warnings) ADD_FAILURE() << "warning: " << w;
    }
    std::printf("[%s, open terrain] mean step %.1f ms, max penetration %.4f m (step %d), fallback pairs %zu\n",
                c.name, d.meanStepMs, d.maxPenetration, d.penetrationStep, d.fallbackPairs);
}

INSTANTIATE_TEST_SUITE_P(Detectors, PilePeelTest,
                         ::testing::Values(PileCase{"cpu", "cpu", 512, 3}, PileCase{"peel_64_1axis", "peel", 64, 1}),
                         [](const ::testing::TestParamInfo<PileCase>& param) { return std::string(param.param.name); });

namespace {

// The deforming pile through peel in the dispatcher (the demo's `--deform`): each step every
// bunny's vertices wobble (scenes::BunnyWobble), RigidWorld::setBodyVertices tells the
// dispatcher; peel runs with `validate`, which runs cpu on the same scene every call and
// counts the triangle pairs peel missed or invented: none, on every step.
class DeformPilePeelTest : public isc::test::GlTest {};

TEST_F(DeformPilePeelTest, WobblingBunniesGiveTheReferencesPairsEveryStep) {
    auto pile = scenes::makeBunnyPile(6, 1);
    ASSERT_TRUE(pile) << pile.error().message;
    bullet::WorldSettings ws;
    ws.detector = "peel";
    ws.detectorSettings.validate = true;
    auto made = bullet::RigidWorld::create(ws);
    ASSERT_TRUE(made) << made.error().message;
    bullet::RigidWorld& world = **made;
    world.addGround(pile->groundHalfExtents);
    for (const Pose& p : pile->poses) world.addDeformingMeshBody(pile->bunny, p, 1.0f);
    const scenes::BunnyWobble wobble(pile->bunny);
    std::vector<Vec3> v;
    int stepsWithPairs = 0;
    std::size_t pairs = 0;
    for (int step = 1; step <= 90; ++step) {
        for (int i = 0; i < world.bodyCount(); ++i) {
            wobble.vertices(std::uint32_t(i), float(step) / 60.0f, v);
            world.setBodyVertices(i, v);
        }
        world.step();
        const DetectorStats& s = world.dispatcher()->lastDetectorStats();
        EXPECT_EQ(s.counter("validate_missed_pairs"), 0.0) << "step " << step;
        EXPECT_EQ(s.counter("validate_extra_pairs"), 0.0) << "step " << step;
        if (world.dispatcher()->lastStats().trianglePairs > 0) ++stepsWithPairs;
        pairs += world.dispatcher()->lastStats().trianglePairs;
    }
    EXPECT_GT(stepsWithPairs, 30) << pairs << " triangle pairs in all";
    EXPECT_TRUE(world.dispatcher()->warnings().empty()) << world.dispatcher()->warnings().front();
    EXPECT_FALSE(world.hasNonFinite());
}

}  // namespace
