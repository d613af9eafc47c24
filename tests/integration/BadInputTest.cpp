// Bad input: the step goes on, one clear warning, no crash, other pairs unaffected.
#include "TestWorld.h"

#include "isc/detect/Detector.h"
#include "isc/detect/Registry.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

using namespace isc;

namespace {

struct Warnings {
    std::vector<std::string> said;
    bullet::DispatcherSettings settings() {
        bullet::DispatcherSettings s;
        s.onWarning = [this](std::string_view w) { said.emplace_back(w); };
        return s;
    }
    int containing(const std::string& text) const {
        int n = 0;
        for (const std::string& w : said) n += w.find(text) != std::string::npos;
        return n;
    }
};

// The cpu reference, saying it needs closed meshes (like the volume-based detectors); it
// counts the candidate pairs it is given.
class ClosedOnlyDetector : public Detector {
public:
    ClosedOnlyDetector() : inner_(std::move(*createDetector("cpu"))) {}
    std::string_view name() const override { return "closed-only"; }
    bool usesGl() const override { return false; }
    bool reportsTrianglePairs() const override { return true; }
    bool needsClosedMeshes() const override { return true; }
    Result<void> detect(const Scene& s, std::span<const ObjectPair> c, DetectionOutput& out) override {
        given += c.size();
        return inner_->detect(s, c, out);
    }
    std::size_t given = 0;

private:
    std::unique_ptr<Detector> inner_;
};

std::shared_ptr<const Mesh> box() { return std::make_shared<const Mesh>(shapes::box(Vec3(0.5f))); }

}  // namespace

TEST(BadInput, NanTransformWarnsOnceAndOtherPairsGoOn) {
    Warnings w;
    btDefaultCollisionConfiguration config(bullet::collisionConstructionInfo());
    auto* d = new bullet::CollisionDispatcher(&config, w.settings());
    test::CollisionWorld world{std::unique_ptr<btCollisionDispatcher>(d)};
    test::MeshShape a = test::makeGImpact(box()), b = test::makeGImpact(box());
    world.add(a.shape.get(), test::at(0.0f, 0.99f, 0.0f));
    world.add(b.shape.get(), test::at(0.0f, 0.0f, 0.0f));
    // A second pair far away, one of them NaN once it has overlapped.
    test::MeshShape c = test::makeGImpact(box()), e = test::makeGImpact(box());
    btCollisionObject* bad = world.add(c.shape.get(), test::at(10.0f, 0.99f, 0.0f));
    world.add(e.shape.get(), test::at(10.0f, 0.0f, 0.0f));
    world.world->performDiscreteCollisionDetection();
    ASSERT_EQ(d->lastStats().meshPairs, 2u);

    const float nan = std::numeric_limits<float>::quiet_NaN();
    bad->setWorldTransform(test::at(nan, 0.99f, 0.0f));
    for (int i = 0; i < 3; ++i) world.world->performDiscreteCollisionDetection();
    EXPECT_EQ(w.containing("non-finite"), 1);
    // The good pair still has its four contacts.
    int good = 0;
    for (int i = 0; i < d->getNumManifolds(); ++i) good += d->getManifoldByIndexInternal(i)->getNumContacts();
    EXPECT_EQ(good, 4);
}

TEST(BadInput, ZeroTriangleMeshWarnsOnce) {
    Warnings w;
    btDefaultCollisionConfiguration config(bullet::collisionConstructionInfo());
    auto* d = new bullet::CollisionDispatcher(&config, w.settings());
    test::CollisionWorld world{std::unique_ptr<btCollisionDispatcher>(d)};
    // One triangle with three collinear corners: nothing usable is left.
    float verts[] = {0, 0, 0, 0.5f, 0, 0, 1, 0, 0};
    int tris[] = {0, 1, 2};
    btTriangleIndexVertexArray array(1, tris, 3 * sizeof(int), 3, verts, 3 * sizeof(float));
    btGImpactMeshShape flat(&array);
    flat.updateBound();
    test::MeshShape a = test::makeGImpact(box());
    world.add(&flat, test::at(0.0f, 0.5f, 0.0f));
    world.add(a.shape.get(), test::at(0.3f, 0.5f, 0.0f));
    for (int i = 0; i < 3; ++i) world.world->performDiscreteCollisionDetection();
    EXPECT_EQ(w.containing("no triangle left"), 1);
    EXPECT_EQ(d->lastStats().contactsAdded, 0u);
}

// An open mesh given to a detector that needs closed ones: mirrored all the same, its pair
// served by the exact path (the detector never sees it), one warning naming the shape, and
// the same contacts as the cpu detector gives (an open box, one triangle of its 12 gone,
// 1 cm into a closed one).
TEST(BadInput, OpenMeshGivenToClosedOnlyDetectorGoesToTheExactPath) {
    const Mesh closed = shapes::box(Vec3(0.5f));
    std::vector<UVec3> tris(closed.triangles().begin(), closed.triangles().end() - 1);
    auto open = Mesh::create("open box", std::vector<Vec3>(closed.vertices().begin(), closed.vertices().end()),
                             std::move(tris));
    ASSERT_TRUE(open.has_value());
    ASSERT_FALSE(open->isClosed());
    const auto openMesh = std::make_shared<const Mesh>(std::move(*open));

    struct Got {
        int contacts = 0;
        btScalar minDistance = BT_LARGE_FLOAT, maxDistance = -BT_LARGE_FLOAT;
        std::size_t fallbackPairs = 0, given = 0;
        std::vector<std::string> warnings;
    };
    auto run = [&](bool closedOnly) {
        Got g;
        Warnings w;
        btDefaultCollisionConfiguration config(bullet::collisionConstructionInfo());
        auto detector = std::make_unique<ClosedOnlyDetector>();
        ClosedOnlyDetector* seen = detector.get();
        auto* d = closedOnly ? new bullet::CollisionDispatcher(&config, std::move(detector), w.settings())
                             : new bullet::CollisionDispatcher(&config, w.settings());
        test::CollisionWorld world{std::unique_ptr<btCollisionDispatcher>(d)};
        test::MeshShape a = test::makeGImpact(openMesh);
        test::MeshShape b = test::makeGImpact(box());
        world.add(a.shape.get(), test::at(0.0f, 0.99f, 0.0f));
        world.add(b.shape.get(), test::at(0.0f, 0.0f, 0.0f));
        for (int i = 0; i < 3; ++i) world.world->performDiscreteCollisionDetection();
        if (btPersistentManifold* m = world.manifold()) {
            g.contacts = m->getNumContacts();
            for (int i = 0; i < g.contacts; ++i) {
                g.minDistance = std::min(g.minDistance, m->getContactPoint(i).getDistance());
                g.maxDistance = std::max(g.maxDistance, m->getContactPoint(i).getDistance());
            }
        }
        g.fallbackPairs = d->lastStats().fallbackPairs;
        g.given = closedOnly ? seen->given : 0;
        g.warnings = w.said;
        return g;
    };
    const Got ref = run(false);  // the cpu detector, no fallback
    const Got got = run(true);
    ASSERT_GE(ref.contacts, 3);
    EXPECT_EQ(ref.fallbackPairs, 0u);
    EXPECT_TRUE(ref.warnings.empty());
    EXPECT_EQ(got.contacts, ref.contacts);
    EXPECT_NEAR(got.minDistance, ref.minDistance, 1e-6f);
    EXPECT_NEAR(got.maxDistance, ref.maxDistance, 1e-6f);
    EXPECT_NEAR(got.minDistance, -0.01f, 1e-3f);
    EXPECT_EQ(got.fallbackPairs, 1u);  // counted in the last step
    EXPECT_EQ(got.given, 0u);          // the detector never saw the pair
    ASSERT_EQ(got.warnings.size(), 1u);  // once, not once per step
    EXPECT_NE(got.warnings[0].find("not closed"), std::string::npos) << got.warnings[0];
    EXPECT_NE(got.warnings[0].find("exact 'cpu' detector"), std::string::npos) << got.warnings[0];
}

TEST(BadInput, UnknownDetectorIsAnErrorFromCreate) {
    btDefaultCollisionConfiguration config;
    bullet::DispatcherSettings s;
    s.detector = "no-such-detector";
    auto d = bullet::CollisionDispatcher::create(&config, s);
    ASSERT_FALSE(d.has_value());
    EXPECT_NE(d.error().message.find("no-such-detector"), std::string::npos);
    // The one-line constructor keeps going: the error is kept and said once.
    Warnings w;
    s.onWarning = w.settings().onWarning;
    bullet::CollisionDispatcher kept(&config, s);
    EXPECT_EQ(kept.detector(), nullptr);
    EXPECT_FALSE(kept.detectorError().empty());
    EXPECT_EQ(w.said.size(), 1u);
}
