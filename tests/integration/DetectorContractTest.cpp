// What the dispatcher does with what a detector returns: pairs it returns unserved (or all
// of them when it fails) go to the exact path with the same contacts as `cpu`; a pair with
// contact samples gets its contacts from the samples alone.
#include "TestWorld.h"

#include "isc/detect/Detector.h"
#include "isc/detect/Registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

using namespace isc;

namespace {

std::shared_ptr<const Mesh> box() { return std::make_shared<const Mesh>(shapes::box(Vec3(0.5f))); }

// What a detector can do wrong or differently, on top of the cpu reference.
enum class Mode {
    Unserved,  ///< returns every candidate in DetectionOutput::unserved
    Fails,     ///< detect() returns an Error
    Samples,   ///< reports cpu's triangle pairs plus contact samples (see SamplingDetector)
};

// Contact samples for two unit boxes stacked along y, face on face: a 3 x 3 grid (x, z in
// {-0.5, 0, 0.5} about the upper box's centre) on B's facing face, normal from B toward A,
// saying the real surfaces are `realDepth` apart (negative: into each other). As a detector
// sees them: on the swollen meshes the dispatcher gives it (each box's faces moved out by half
// its body's margin, read here from the mesh's bounds), so the sample lies on B's swollen
// face and its depth is less by both half margins.
class SamplingDetector : public Detector {
public:
    SamplingDetector(Mode mode, float realDepth = 0.0f)
        : mode_(mode), realDepth_(realDepth), cpu_(std::move(*createDetector("cpu"))) {}
    std::string_view name() const override { return "test-sampling"; }
    bool usesGl() const override { return false; }
    bool reportsTrianglePairs() const override { return true; }
    bool needsClosedMeshes() const override { return false; }
    Result<void> detect(const Scene& scene, std::span<const ObjectPair> candidates, DetectionOutput& out) override {
        out.clear();
        calls += 1;
        if (mode_ == Mode::Fails) return fail("test-sampling: out of test memory");
        if (mode_ == Mode::Unserved) {
            out.unserved.assign(candidates.begin(), candidates.end());
            return {};
        }
        if (auto r = cpu_->detect(scene, candidates, out); !r) return r;
        for (PairResult& r : out.pairs) {
            const Vec3 a = scene.pose(r.pair.a).position, b = scene.pose(r.pair.b).position;
            const float up = a.y > b.y ? 1.0f : -1.0f;  // B toward A
            const float halfMarginA = scene.objectMesh(r.pair.a).localBounds().max.y - 0.5f;
            const float halfMarginB = scene.objectMesh(r.pair.b).localBounds().max.y - 0.5f;
            const float faceY = b.y + up * (0.5f + halfMarginB);
            const Vec3 upper = a.y > b.y ? a : b;
            for (int i = -1; i <= 1; ++i)
                for (int j = -1; j <= 1; ++j) {
                    ContactSample s;
                    s.pointOnB = Vec3(upper.x + 0.5f * float(i), faceY, upper.z + 0.5f * float(j));
                    s.normalOnB = Vec3(0.0f, up, 0.0f);
                    s.depth = realDepth_ - halfMarginA - halfMarginB;
                    r.samples.push_back(s);
                }
        }
        return {};
    }
    int calls = 0;

private:
    Mode mode_;
    float realDepth_;
    std::unique_ptr<Detector> cpu_;
};

struct Contact {
    btVector3 normalTowardUpper, onLower, onUpper;
    btScalar distance;
};

struct Step {
    std::vector<Contact> contacts;
    bullet::DispatchStats stats;
    std::vector<std::string> warnings;
    int calls = 0;
};

// Box meshes: `upperFirst` decides which is added first (Bullet's body order and the scene's
// object order follow it). The upper box sits 1 cm into the lower one; a second pair stands
// 10 m away the same way. Three collision passes; what the last one left. `remargin`: after
// the first pass, Bullet's body 0 of each pair gets a 6 cm margin (its mirror is remade with
// a new, higher object id: the scene pair then runs the other way round, body 1 first).
Step collide(std::unique_ptr<SamplingDetector> detector, bool upperFirst, bool remargin = false) {
    Step got;
    btDefaultCollisionConfiguration config(bullet::collisionConstructionInfo());
    bullet::DispatcherSettings settings;
    settings.onWarning = [&got](std::string_view w) { got.warnings.emplace_back(w); };
    SamplingDetector* seen = detector.get();
    auto* d = detector ? new bullet::CollisionDispatcher(&config, std::move(detector), settings)
                       : new bullet::CollisionDispatcher(&config, settings);  // cpu
    test::CollisionWorld world{std::unique_ptr<btCollisionDispatcher>(d)};
    std::vector<test::MeshShape> shapes;
    for (int i = 0; i < 4; ++i) shapes.push_back(test::makeGImpact(box()));
    std::vector<const btCollisionObject*> upper;
    for (float x : {0.0f, 10.0f}) {
        const btTransform up = test::at(x + 0.2f, 0.99f, 0.0f), down = test::at(x, 0.0f, 0.0f);
        btCollisionShape* s0 = shapes[x == 0.0f ? 0 : 2].shape.get();
        btCollisionShape* s1 = shapes[x == 0.0f ? 1 : 3].shape.get();
        if (upperFirst) {
            upper.push_back(world.add(s0, up));
            world.add(s1, down);
        } else {
            world.add(s1, down);
            upper.push_back(world.add(s0, up));
        }
    }
    for (int i = 0; i < 3; ++i) {
        world.world->performDiscreteCollisionDetection();
        if (i == 0 && remargin)
            for (int m = 0; m < d->getNumManifolds(); ++m)
                d->setMargin(static_cast<const btCollisionObject*>(d->getManifoldByIndexInternal(m)->getBody0()), 0.06f);
    }
    for (int m = 0; m < d->getNumManifolds(); ++m) {
        const btPersistentManifold* manifold = d->getManifoldByIndexInternal(m);
        const bool body0Upper = std::find(upper.begin(), upper.end(), manifold->getBody0()) != upper.end();
        for (int i = 0; i < manifold->getNumContacts(); ++i) {
            const btManifoldPoint& p = manifold->getContactPoint(i);
            Contact c;
            c.normalTowardUpper = body0Upper ? p.m_normalWorldOnB : -p.m_normalWorldOnB;
            c.onLower = body0Upper ? p.m_positionWorldOnB : p.m_positionWorldOnA;
            c.onUpper = body0Upper ? p.m_positionWorldOnA : p.m_positionWorldOnB;
            c.distance = p.getDistance();
            got.contacts.push_back(c);
        }
    }
    got.stats = d->lastStats();
    got.calls = seen ? seen->calls : 0;
    return got;
}

}  // namespace

// A detector that returns every pair unserved, or fails: both pairs go to the exact path,
// counted per step, said once, with exactly the contacts the cpu detector gives.
TEST(DetectorContract, UnservedAndFailedPairsGoToTheExactPath) {
    for (bool upperFirst : {true, false}) {
        const Step ref = collide(nullptr, upperFirst);
        ASSERT_EQ(ref.contacts.size(), 8u);  // four per pair
        EXPECT_EQ(ref.stats.fallbackPairs, 0u);
        for (Mode mode : {Mode::Unserved, Mode::Fails}) {
            const Step got = collide(std::make_unique<SamplingDetector>(mode), upperFirst);
            const char* name = mode == Mode::Unserved ? "unserved" : "fails";
            EXPECT_EQ(got.calls, 3) << name;  // the detector was asked every step
            EXPECT_EQ(got.stats.fallbackPairs, 2u) << name;
            ASSERT_EQ(got.contacts.size(), ref.contacts.size()) << name;
            for (std::size_t i = 0; i < ref.contacts.size(); ++i) {
                EXPECT_NEAR(got.contacts[i].distance, ref.contacts[i].distance, 1e-6f) << name << " contact " << i;
                EXPECT_LT((got.contacts[i].onLower - ref.contacts[i].onLower).length(), 1e-6f) << name;
                EXPECT_GT(got.contacts[i].normalTowardUpper.dot(ref.contacts[i].normalTowardUpper), 0.9999f) << name;
            }
            ASSERT_EQ(got.warnings.size(), 1u) << name;  // one warning over three steps
            EXPECT_NE(got.warnings[0].find(mode == Mode::Unserved ? "unserved" : "failed"), std::string::npos)
                << got.warnings[0];
            EXPECT_NE(got.warnings[0].find("exact 'cpu' detector"), std::string::npos) << got.warnings[0];
        }
    }
}

// Contact samples make the contacts, reduced to four, and the triangle pairs reported beside
// them are not walked: the samples say 2 cm deep while the boxes overlap by 1 cm (what the
// patch walk reads, checked too), so every contact must read 2 cm. Each box pair: four
// contacts at the corners of the sample grid (the reduction keeps the largest area), normal
// toward the upper box, the two points 2 cm apart along it, one of them on the real face of
// the box the detector put the samples on (the lower's top at y = 0.5, or the upper's bottom
// at 0.49). Both body orders, each with equal margins and with body 0's margin raised to 6 cm
// after the first pass (then the scene's pair runs body 1 first: the swapped path, and the
// two half margins differ).
TEST(DetectorContract, ContactSamplesMakeTheContacts) {
    const float realDepth = -0.02f;
    for (bool upperFirst : {true, false}) {
        const Step walked = collide(nullptr, upperFirst);
        ASSERT_EQ(walked.contacts.size(), 8u);
        for (const Contact& c : walked.contacts) EXPECT_NEAR(c.distance, -0.01f, 1e-4f);

        for (bool remargin : {false, true}) {
            const Step got =
                collide(std::make_unique<SamplingDetector>(Mode::Samples, realDepth), upperFirst, remargin);
            const std::string name =
                std::string(upperFirst ? "upper first" : "lower first") + (remargin ? ", remargined" : "");
            EXPECT_EQ(got.stats.samplePairs, 2u) << name;
            EXPECT_EQ(got.stats.fallbackPairs, 0u) << name;
            EXPECT_TRUE(got.warnings.empty()) << name;
            ASSERT_EQ(got.contacts.size(), 8u) << name;
            int corners[2][4] = {};
            for (const Contact& c : got.contacts) {
                EXPECT_NEAR(c.distance, realDepth, 1e-5f) << name;
                EXPECT_NEAR(c.normalTowardUpper.y(), 1.0f, 1e-6f) << name;
                EXPECT_NEAR(c.onUpper.y() - c.onLower.y(), realDepth, 1e-5f) << name;
                EXPECT_TRUE(std::abs(c.onLower.y() - 0.5f) < 1e-5f || std::abs(c.onUpper.y() - 0.49f) < 1e-5f)
                    << name << ": lower at " << c.onLower.y() << ", upper at " << c.onUpper.y();
                // Corners of the grid about the upper box's centre (x + 0.2, z).
                const int pair = c.onLower.x() > 5.0f ? 1 : 0;
                const float dx = c.onLower.x() - (pair ? 10.2f : 0.2f), dz = c.onLower.z();
                EXPECT_NEAR(std::abs(dx), 0.5f, 1e-5f) << name;
                EXPECT_NEAR(std::abs(dz), 0.5f, 1e-5f) << name;
                corners[pair][(dx > 0 ? 1 : 0) + (dz > 0 ? 2 : 0)] += 1;
            }
            for (int pair = 0; pair < 2; ++pair)
                for (int k = 0; k < 4; ++k)
                    EXPECT_EQ(corners[pair][k], 1) << name << ": pair " << pair << " corner " << k;
        }
    }
}
