// The dispatcher's own tables (mirrored bodies, meshes, scene objects) under bodies that come
// and go: a Bullet app removes bodies and makes new ones for hours (the soak, issue 14), so
// what the dispatcher keeps per body and per shape must go with them, and a shape deleted
// and another made at its address must not get the old one's triangles.
#include "TestWorld.h"

#include "isc/detect/Registry.h"

#include <btBulletDynamicsCommon.h>
#include <gtest/gtest.h>

#include <cmath>
#include <new>

using namespace isc;

namespace {

std::unique_ptr<btCollisionDispatcher> cpuDispatcher(btCollisionConfiguration* config) {
    bullet::DispatcherSettings s;
    s.detector = "cpu";
    s.margin = 0.04f;
    auto d = bullet::CollisionDispatcher::create(config, s);
    EXPECT_TRUE(d.has_value()) << (d ? "" : d.error().message);
    return std::move(*d);
}

bullet::CollisionDispatcher& dispatcherOf(test::CollisionWorld& w) {
    return *static_cast<bullet::CollisionDispatcher*>(w.dispatcher.get());
}

int contactCount(btDispatcher& d) {
    int n = 0;
    for (int i = 0; i < d.getNumManifolds(); ++i) n += d.getManifoldByIndexInternal(i)->getNumContacts();
    return n;
}

// A new btCollisionObject (a new address each time: the old ones stay allocated) of `shape`
// at `t`, added to the world, one collision pass, then taken out. Returns its contacts.
int visit(test::CollisionWorld& w, std::vector<std::unique_ptr<btCollisionObject>>& gone,
          btCollisionShape* shape, const btTransform& t) {
    gone.push_back(std::make_unique<btCollisionObject>());
    btCollisionObject* o = gone.back().get();
    o->setCollisionShape(shape);
    o->setWorldTransform(t);
    w.world->addCollisionObject(o);
    w.world->performDiscreteCollisionDetection();
    const int n = contactCount(*w.dispatcher);
    w.world->removeCollisionObject(o);
    return n;
}

}  // namespace

// A new body of the same shape put on a ground and taken away 20 times: each time it has its
// contacts, and afterwards the dispatcher holds no more bodies, meshes or scene objects than
// after the first time (before, every new body added a mirrored body and a scene object
// that stayed: 20 bodies and 21 scene objects after 20 rounds).
TEST(DispatcherTables, BodiesThatComeAndGoLeaveTheTablesAsTheyWere) {
    btDefaultCollisionConfiguration config{bullet::collisionConstructionInfo()};
    test::CollisionWorld w(cpuDispatcher(&config));
    test::MeshShape ground = test::makeGImpact(std::make_shared<const Mesh>(shapes::box(Vec3(3.0f, 0.5f, 3.0f))));
    test::MeshShape box = test::makeGImpact(std::make_shared<const Mesh>(shapes::box(Vec3(0.5f))));
    w.add(ground.shape.get(), test::at(0, -0.5f, 0));  // top face at y = 0, stays
    bullet::CollisionDispatcher& d = dispatcherOf(w);
    std::vector<std::unique_ptr<btCollisionObject>> gone;
    bullet::CollisionDispatcher::Tables first;
    for (int round = 0; round < 20; ++round) {
        // 1 cm into the ground, moved along x so that every round is a fresh contact.
        const int contacts = visit(w, gone, box.shape.get(), test::at(0.05f * float(round), 0.49f, 0));
        EXPECT_EQ(contacts, 4) << "round " << round;
        const bullet::CollisionDispatcher::Tables t = d.tables();
        if (round == 0) {
            first = t;
            // Out of the world: no body has a mesh pair, so none is mirrored.
            EXPECT_EQ(t.bodies, 0u);
            EXPECT_EQ(t.bodiesInPairs, 0u);
            continue;
        }
        EXPECT_EQ(t.bodies, first.bodies) << "round " << round;
        EXPECT_EQ(t.meshes, first.meshes) << "round " << round;
        EXPECT_EQ(t.sceneObjects, first.sceneObjects) << "round " << round;
        EXPECT_EQ(t.sceneMeshes, first.sceneMeshes) << "round " << round;
        EXPECT_EQ(t.bodiesInPairs, 0u) << "round " << round;
    }
}

// A body's shape deleted and another made at the same address (as an allocator does): the
// new shape's triangles are used, not the old one's. A box of half extent 0.5 rests 1 cm in
// the ground, is taken out and its shape deleted; a box of half extent 0.3 is made in the
// same storage and put 1 cm in the ground: its contacts are at |x|, |z| <= 0.3 and 1 cm
// deep (with the old mesh, cached by its address, it got none: 21 cm deep, past what a
// patch takes).
TEST(DispatcherTables, NewShapeAtADeletedShapesAddressIsReadAnew) {
    btDefaultCollisionConfiguration config{bullet::collisionConstructionInfo()};
    test::CollisionWorld w(cpuDispatcher(&config));
    test::MeshShape ground = test::makeGImpact(std::make_shared<const Mesh>(shapes::box(Vec3(3.0f, 0.5f, 3.0f))));
    w.add(ground.shape.get(), test::at(0, -0.5f, 0));
    std::vector<std::unique_ptr<btCollisionObject>> gone;

    alignas(16) unsigned char storage[sizeof(btGImpactMeshShape)];
    auto make = [&](const test::MeshShape& from) {
        auto* s = new (storage) btGImpactMeshShape(from.array.get());
        s->updateBound();
        return s;
    };
    test::MeshShape big = test::makeGImpact(std::make_shared<const Mesh>(shapes::box(Vec3(0.5f))));
    test::MeshShape small = test::makeGImpact(std::make_shared<const Mesh>(shapes::box(Vec3(0.3f))));

    btGImpactMeshShape* shape = make(big);
    EXPECT_EQ(visit(w, gone, shape, test::at(0, 0.49f, 0)), 4);
    shape->~btGImpactMeshShape();

    shape = make(small);
    ASSERT_EQ(static_cast<void*>(shape), static_cast<void*>(storage));
    gone.push_back(std::make_unique<btCollisionObject>());
    btCollisionObject* o = gone.back().get();
    o->setCollisionShape(shape);
    o->setWorldTransform(test::at(0, 0.29f, 0));
    w.world->addCollisionObject(o);
    w.world->performDiscreteCollisionDetection();
    int points = 0;
    for (int i = 0; i < w.dispatcher->getNumManifolds(); ++i) {
        const btPersistentManifold* m = w.dispatcher->getManifoldByIndexInternal(i);
        for (int k = 0; k < m->getNumContacts(); ++k, ++points) {
            const btManifoldPoint& p = m->getContactPoint(k);
            const btVector3 onBox = m->getBody0() == o ? p.getPositionWorldOnA() : p.getPositionWorldOnB();
            EXPECT_LE(std::abs(onBox.x()), 0.31f);
            EXPECT_LE(std::abs(onBox.z()), 0.31f);
            EXPECT_NEAR(p.getDistance(), -0.01f, 0.005f);
        }
    }
    EXPECT_EQ(points, 4);
    w.world->removeCollisionObject(o);
    shape->~btGImpactMeshShape();
}

// switchDetector() keeps the detectors the dispatcher made and re-uses one when switched back
// to it (a GL detector made again costs its shaders and memory the driver keeps:
// docs/robustness.md); one the caller gave with setDetector() is destroyed when replaced.
TEST(DispatcherTables, SwitchingBackReusesTheDetectorTheDispatcherMade) {
    btDefaultCollisionConfiguration config{bullet::collisionConstructionInfo()};
    test::CollisionWorld w(cpuDispatcher(&config));
    bullet::CollisionDispatcher& d = dispatcherOf(w);
    Detector* first = d.detector();
    ASSERT_NE(first, nullptr);
    ASSERT_TRUE(d.switchDetector("cpu").has_value());
    EXPECT_EQ(d.detector(), first);  // already in use: nothing made
    EXPECT_EQ(d.tables().keptDetectors, 1u);

    DetectorSettings ds;
    ds.wantSegments = false;
    auto given = createDetector("cpu", ds);
    ASSERT_TRUE(given.has_value());
    Detector* mine = given->get();
    d.setDetector(std::move(*given));
    EXPECT_EQ(d.detector(), mine);
    EXPECT_EQ(d.tables().keptDetectors, 2u);  // the dispatcher's first one is kept

    ASSERT_TRUE(d.switchDetector("cpu").has_value());
    EXPECT_EQ(d.detector(), first);            // re-used, not made again
    EXPECT_EQ(d.tables().keptDetectors, 1u);   // the caller's one was destroyed

    // It still works: a box resting 1 cm in a ground has its four contacts.
    test::MeshShape ground = test::makeGImpact(std::make_shared<const Mesh>(shapes::box(Vec3(3.0f, 0.5f, 3.0f))));
    test::MeshShape box = test::makeGImpact(std::make_shared<const Mesh>(shapes::box(Vec3(0.5f))));
    w.add(ground.shape.get(), test::at(0, -0.5f, 0));
    std::vector<std::unique_ptr<btCollisionObject>> gone;
    EXPECT_EQ(visit(w, gone, box.shape.get(), test::at(0, 0.49f, 0)), 4);

    d.releaseKeptDetectors();
    EXPECT_EQ(d.tables().keptDetectors, 1u);
    EXPECT_EQ(d.detector(), first);
}
