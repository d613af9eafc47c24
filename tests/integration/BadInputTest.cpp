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

// The cpu reference, saying it needs closed meshes (like the volume-based detectors).
class ClosedOnlyDetector : public Detector {
public:
    ClosedOnlyDetector() : inner_(std::move(*createDetector("cpu"))) {}
    std::string_view name() const override { return "closed-only"; }
    bool usesGl() const override { return false; }
    bool reportsTrianglePairs() const override { return true; }
    bool needsClosedMeshes() const override { return true; }
    Result<void> detect(const Scene& s, std::span<const ObjectPair> c, DetectionOutput& out) override {
        return inner_->detect(s, c, out);
    }

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

TEST(BadInput, OpenMeshGivenToClosedOnlyDetectorWarnsOnce) {
    Warnings w;
    btDefaultCollisionConfiguration config(bullet::collisionConstructionInfo());
    auto* d = new bullet::CollisionDispatcher(&config, std::make_unique<ClosedOnlyDetector>(), w.settings());
    test::CollisionWorld world{std::unique_ptr<btCollisionDispatcher>(d)};
    const Mesh closed = shapes::box(Vec3(0.5f));
    std::vector<UVec3> tris(closed.triangles().begin(), closed.triangles().end() - 1);
    auto open = Mesh::create("open box", std::vector<Vec3>(closed.vertices().begin(), closed.vertices().end()),
                             std::move(tris));
    ASSERT_TRUE(open.has_value());
    ASSERT_FALSE(open->isClosed());
    test::MeshShape a = test::makeGImpact(std::make_shared<const Mesh>(std::move(*open)));
    test::MeshShape b = test::makeGImpact(box());
    world.add(a.shape.get(), test::at(0.0f, 0.99f, 0.0f));
    world.add(b.shape.get(), test::at(0.0f, 0.0f, 0.0f));
    for (int i = 0; i < 3; ++i) world.world->performDiscreteCollisionDetection();
    EXPECT_EQ(w.containing("not closed"), 1);
    EXPECT_EQ(d->lastStats().contactsAdded, 0u);
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
