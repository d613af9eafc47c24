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

#include <memory>
#include <string>
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

INSTANTIATE_TEST_SUITE_P(GlDetectors, DetectorLifetime, ::testing::ValuesIn(glDetectorNames()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });
