// Every GPU detector gives back every GL object it made when it is destroyed (issue 14, the
// soak: docs/robustness.md). gl::liveObjects() counts each kind the wrappers make (buffers,
// textures, renderbuffers, framebuffers, vertex arrays, queries, programs, sync objects,
// persistent mappings); after create, a few detect() calls on a small overlapping pile and
// destroy, every count must be what it was before, and so must gl::bufferBytes().
#include "GlTest.h"

#include "isc/detect/Registry.h"
#include "isc/gl/Buffer.h"
#include "isc/mesh/Shapes.h"
#include "isc/scene/Scene.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

using namespace isc;

namespace {

// Nine spheres and tori in a 3 x 3 grid, neighbours overlapping, on a static box.
Scene smallPile() {
    Scene s;
    const MeshId ground = s.addMesh(std::make_shared<const Mesh>(shapes::box(Vec3(3.0f, 0.25f, 3.0f))));
    const MeshId sphere = s.addMesh(std::make_shared<const Mesh>(shapes::uvSphere(0.5f, 16, 8)));
    const MeshId torus = s.addMesh(std::make_shared<const Mesh>(shapes::torus(0.45f, 0.15f, 24, 12)));
    s.addObject(ground, Pose{Vec3(0.0f, -0.2f, 0.0f)});
    s.setStatic(0, true);
    for (int i = 0; i < 9; ++i)
        s.addObject(i % 2 ? torus : sphere, Pose{Vec3(float(i % 3) * 0.9f - 0.9f, 0.45f, float(i / 3) * 0.9f - 0.9f)});
    return s;
}

class DetectorLifetime : public isc::test::GlTest, public ::testing::WithParamInterface<std::string> {};

std::vector<std::string> glDetectorNames() {
    std::vector<std::string> names;
    for (const DetectorInfo& d : registeredDetectors())
        if (d.usesGl) names.push_back(d.name);
    return names;
}

// The same answer: the same pairs, triangle pairs and (in any order) contact samples.
void expectSameAnswer(const DetectionOutput& x, const DetectionOutput& y) {
    ASSERT_EQ(x.pairs.size(), y.pairs.size());
    EXPECT_EQ(x.unserved, y.unserved);
    auto key = [](const ContactSample& c) {
        return std::make_tuple(c.depth, c.pointOnB.x, c.pointOnB.y, c.pointOnB.z, c.normalOnB.x, c.normalOnB.y,
                               c.normalOnB.z, c.triangleA, c.triangleB);
    };
    for (std::size_t i = 0; i < x.pairs.size(); ++i) {
        const PairResult &a = x.pairs[i], &b = y.pairs[i];
        SCOPED_TRACE("pair (" + std::to_string(a.pair.a) + ", " + std::to_string(a.pair.b) + ")");
        EXPECT_EQ(a.pair, b.pair);
        EXPECT_EQ(a.triangles, b.triangles);
        ASSERT_EQ(a.samples.size(), b.samples.size());
        std::vector<decltype(key(ContactSample{}))> ka, kb;
        for (const ContactSample& c : a.samples) ka.push_back(key(c));
        for (const ContactSample& c : b.samples) kb.push_back(key(c));
        std::sort(ka.begin(), ka.end());
        std::sort(kb.begin(), kb.end());
        EXPECT_EQ(ka, kb);
    }
}

}  // namespace

TEST_P(DetectorLifetime, DestroyGivesBackEveryGlObject) {
    Scene scene = smallPile();
    const std::vector<ObjectPair> candidates = scene.overlappingPairs();
    ASSERT_GT(candidates.size(), 8u);
    // Twice: what the first round leaves behind (a cache of ours) would show in the second.
    for (int round = 0; round < 2; ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        const gl::LiveObjects before = gl::liveObjects();
        const std::size_t bytesBefore = gl::bufferBytes();
        {
            auto d = createDetector(GetParam());
            ASSERT_TRUE(d.has_value()) << d.error().message;
            DetectionOutput out;
            for (int call = 0; call < 3; ++call) {
                scene.setPose(1, Pose{Vec3(-0.9f + 0.05f * float(call), 0.45f, -0.9f)});
                auto r = (*d)->detect(scene, candidates, out);
                ASSERT_TRUE(r.has_value()) << r.error().message;
            }
            EXPECT_FALSE(out.pairs.empty());
            EXPECT_GT(gl::liveObjects().total(), before.total());  // it did make some
        }
        const gl::LiveObjects after = gl::liveObjects();
        EXPECT_EQ(after.count, before.count) << "before: " << before.describe() << "\nafter:  " << after.describe();
        EXPECT_EQ(gl::bufferBytes(), bytesBefore);
    }
}

// A kept detector (the dispatcher keeps the ones it made and switches back to them) keeps its
// buffers and host storage across calls, sized with headroom: a repeat of the same call makes
// no GL storage and gives the same answer, and after a call on more pairs a call on fewer gives
// exactly what a fresh detector gives (nothing of the larger call is read again).
TEST_P(DetectorLifetime, KeptDetectorAnswersAsAFreshOneAndDoesNotGrowOnARepeat) {
    Scene scene = smallPile();
    const std::vector<ObjectPair> all = scene.overlappingPairs();
    ASSERT_GT(all.size(), 8u);
    auto kept = createDetector(GetParam());
    ASSERT_TRUE(kept.has_value()) << kept.error().message;
    DetectionOutput first, repeat;
    ASSERT_TRUE((*kept)->detect(scene, all, first).has_value());
    const std::size_t bytes = gl::bufferBytes();
    const auto labels = gl::bufferBytesByLabel();
    ASSERT_TRUE((*kept)->detect(scene, all, repeat).has_value());
    EXPECT_EQ(gl::bufferBytes(), bytes);
    EXPECT_EQ(gl::bufferBytesByLabel(), labels);
    expectSameAnswer(first, repeat);
    EXPECT_FALSE(first.pairs.empty());

    std::vector<ObjectPair> few;
    for (std::size_t i = 0; i < all.size(); i += 3) few.push_back(all[i]);
    DetectionOutput keptFew, freshFew;
    ASSERT_TRUE((*kept)->detect(scene, few, keptFew).has_value());
    auto fresh = createDetector(GetParam());
    ASSERT_TRUE(fresh.has_value()) << fresh.error().message;
    ASSERT_TRUE((*fresh)->detect(scene, few, freshFew).has_value());
    expectSameAnswer(keptFew, freshFew);
    EXPECT_FALSE(freshFew.pairs.empty());
}

// Detectors share the context (the dispatcher switches between them): one's answer must not
// depend on the write masks, scissor or dither another left. Found by the test above: after
// slices (which left the depth mask off) heightmap's first call cleared no depth and found no
// contact.
TEST_P(DetectorLifetime, AnswerDoesNotDependOnTheStateAnotherDetectorLeft) {
    Scene scene = smallPile();
    const std::vector<ObjectPair> candidates = scene.overlappingPairs();
    DetectionOutput clean, dirty;
    {
        auto d = createDetector(GetParam());
        ASSERT_TRUE(d.has_value()) << d.error().message;
        ASSERT_TRUE((*d)->detect(scene, candidates, clean).has_value());
    }
    glDepthMask(GL_FALSE);
    glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
    glEnable(GL_SCISSOR_TEST);
    glScissor(0, 0, 1, 1);
    glDisable(GL_DITHER);
    {
        auto d = createDetector(GetParam());
        ASSERT_TRUE(d.has_value()) << d.error().message;
        ASSERT_TRUE((*d)->detect(scene, candidates, dirty).has_value());
    }
    glDepthMask(GL_TRUE);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glDisable(GL_SCISSOR_TEST);
    glEnable(GL_DITHER);
    expectSameAnswer(clean, dirty);
    EXPECT_FALSE(clean.pairs.empty());
}

// An output reused from call to call, handed in holding another call's pairs, counters and
// warnings, comes back holding this call's answer alone, the one a fresh output gets (peel,
// cullide and cpu hand the old pairs over and free them while they work,
// DetectionOutput::clearInto; 2026-11-29, eleventh session). Three calls, the pile's bodies
// moved between them.
void reusedOutputAnswersAsAFreshOne(const std::string& name) {
    Scene scene = smallPile();
    auto reusedBy = createDetector(name);
    auto freshBy = createDetector(name);
    ASSERT_TRUE(reusedBy.has_value()) << reusedBy.error().message;
    ASSERT_TRUE(freshBy.has_value()) << freshBy.error().message;
    DetectionOutput reused;
    reused.pairs.push_back(PairResult{{1, 2}, {{5, 5}}, {}, {}});
    reused.stats.count("stale_counter", 1.0);
    reused.stats.warnings.push_back("a stale warning");
    for (int call = 0; call < 3; ++call) {
        SCOPED_TRACE("call " + std::to_string(call));
        for (ObjectId o = 1; o < scene.objectCount(); ++o) {
            Pose p = scene.pose(o);
            p.position += Vec3(0.01f * float(o % 3), -0.02f, 0.015f * float(o % 2));
            scene.setPose(o, p);
        }
        const std::vector<ObjectPair> candidates = scene.overlappingPairs();
        DetectionOutput fresh;
        ASSERT_TRUE((*freshBy)->detect(scene, candidates, fresh).has_value());
        ASSERT_TRUE((*reusedBy)->detect(scene, candidates, reused).has_value());
        expectSameAnswer(fresh, reused);
        EXPECT_FALSE(reused.pairs.empty());
        EXPECT_TRUE(std::none_of(reused.stats.counters.begin(), reused.stats.counters.end(),
                                 [](const auto& c) { return c.first == "stale_counter"; }));
        EXPECT_EQ(reused.stats.warnings, fresh.stats.warnings);
    }
}

TEST_P(DetectorLifetime, AnOutputReusedFromCallToCallAnswersAsAFreshOne) { reusedOutputAnswersAsAFreshOne(GetParam()); }

class CpuOutputReuse : public isc::test::GlTest {};
TEST_F(CpuOutputReuse, AnOutputReusedFromCallToCallAnswersAsAFreshOne) { reusedOutputAnswersAsAFreshOne("cpu"); }

INSTANTIATE_TEST_SUITE_P(GlDetectors, DetectorLifetime, ::testing::ValuesIn(glDetectorNames()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

// One detector handed several scenes in turn (a caller that reuses it) answers each as a
// fresh detector of its kind would: nothing it mirrored of an earlier scene (meshes on the
// GPU, per-mesh trees, cached items) is used for a later one with as many meshes and objects.
// Scene b gives the same meshes to other objects; scene c has other meshes, placed as in a.
namespace {

struct PileMeshes {
    std::shared_ptr<const Mesh> ground, first, second;
};

Scene pileOf(const PileMeshes& m, bool swapped) {
    Scene s;
    const MeshId ground = s.addMesh(m.ground);
    const MeshId first = s.addMesh(m.first);
    const MeshId second = s.addMesh(m.second);
    s.addObject(ground, Pose{Vec3(0.0f, -0.2f, 0.0f)});
    s.setStatic(0, true);
    for (int i = 0; i < 9; ++i)
        s.addObject((i % 2 == 1) != swapped ? second : first,
                    Pose{Vec3(float(i % 3) * 0.9f - 0.9f, 0.45f, float(i / 3) * 0.9f - 0.9f)});
    return s;
}

std::vector<std::pair<ObjectPair, std::vector<TrianglePair>>> answer(const DetectionOutput& out) {
    std::vector<std::pair<ObjectPair, std::vector<TrianglePair>>> a;
    for (const PairResult& r : out.pairs) {
        std::vector<TrianglePair> t = r.triangles;
        std::sort(t.begin(), t.end());
        a.emplace_back(r.pair, std::move(t));
    }
    std::sort(a.begin(), a.end());
    return a;
}

}  // namespace

TEST_P(DetectorLifetime, ReusedOnAnotherSceneAnswersAsAFreshOne) {
    const PileMeshes one{std::make_shared<const Mesh>(shapes::box(Vec3(3.0f, 0.25f, 3.0f))),
                         std::make_shared<const Mesh>(shapes::uvSphere(0.5f, 16, 8)),
                         std::make_shared<const Mesh>(shapes::torus(0.45f, 0.15f, 24, 12))};
    const PileMeshes other{std::make_shared<const Mesh>(shapes::box(Vec3(3.0f, 0.3f, 3.0f))),
                           std::make_shared<const Mesh>(shapes::torus(0.5f, 0.12f, 20, 10)),
                           std::make_shared<const Mesh>(shapes::uvSphere(0.42f, 12, 8))};
    const Scene scenes[] = {pileOf(one, false), pileOf(one, true), pileOf(other, false), pileOf(one, false)};
    auto reused = createDetector(GetParam());
    ASSERT_TRUE(reused.has_value()) << reused.error().message;
    for (int k = 0; k < 4; ++k) {
        SCOPED_TRACE("scene " + std::to_string(k));
        const std::vector<ObjectPair> candidates = scenes[k].overlappingPairs();
        ASSERT_GT(candidates.size(), 8u);
        DetectionOutput got, want;
        auto r = (*reused)->detect(scenes[k], candidates, got);
        ASSERT_TRUE(r.has_value()) << r.error().message;
        auto fresh = createDetector(GetParam());
        ASSERT_TRUE(fresh.has_value()) << fresh.error().message;
        r = (*fresh)->detect(scenes[k], candidates, want);
        ASSERT_TRUE(r.has_value()) << r.error().message;
        EXPECT_FALSE(want.pairs.empty());
        EXPECT_EQ(answer(got), answer(want));
    }
}
