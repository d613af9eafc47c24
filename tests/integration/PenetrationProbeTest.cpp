// PenetrationProbe: penetration of a Bullet world from the poses alone, for every shape kind
// it reads (GImpact, BVH triangle mesh, btBoxShape), the same whichever dispatcher runs.
#include "TestWorld.h"

#include "isc/bullet/PenetrationProbe.h"
#include "isc/bullet/RigidWorld.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace isc;

namespace {

std::shared_ptr<const Mesh> box(float h) { return std::make_shared<const Mesh>(shapes::box(Vec3(h))); }

}  // namespace

// Hand-worked depths: a GImpact box mesh 1 cm into a btBoxShape, a second one 3 cm into a
// btBvhTriangleMeshShape box, a sphere shape (not measured) beside them; and nothing between
// two static objects.
TEST(PenetrationProbe, ReadsEachShapeKindByHand) {
    btDefaultCollisionConfiguration config;
    test::CollisionWorld world(std::make_unique<btCollisionDispatcher>(&config));
    test::MeshShape a = test::makeGImpact(box(0.5f)), b = test::makeGImpact(box(0.5f));
    btBoxShape ground(btVector3(5.0f, 0.5f, 5.0f));
    const Mesh level = shapes::box(Vec3(1.0f, 0.5f, 1.0f));
    btTriangleIndexVertexArray array(int(level.triangleCount()),
                                     const_cast<int*>(reinterpret_cast<const int*>(level.triangles().data())),
                                     int(sizeof(UVec3)), int(level.vertexCount()),
                                     const_cast<btScalar*>(reinterpret_cast<const btScalar*>(level.vertices().data())),
                                     int(sizeof(Vec3)));
    btBvhTriangleMeshShape bvh(&array, true);
    btSphereShape sphere(0.3f);

    btCollisionObject* ga = world.add(a.shape.get(), test::at(0.0f, 0.99f, 0.0f));  // ground top at 0.5
    world.add(&ground, test::at(0.0f, 0.0f, 0.0f));
    world.add(&bvh, test::at(20.0f, 0.0f, 0.0f));                     // top at 0.5
    btCollisionObject* gb = world.add(b.shape.get(), test::at(20.0f, 0.97f, 0.0f));
    world.add(&sphere, test::at(-3.0f, 0.7f, 0.0f));
    for (auto& o : world.objects) o->setCollisionFlags(o->getCollisionFlags() & ~btCollisionObject::CF_STATIC_OBJECT);
    world.objects[1]->setCollisionFlags(btCollisionObject::CF_STATIC_OBJECT);
    world.objects[2]->setCollisionFlags(btCollisionObject::CF_STATIC_OBJECT);

    bullet::PenetrationProbe probe;
    bullet::PenetrationReport r = probe.measure(*world.world);
    EXPECT_NEAR(r.maxDepth, 0.03, 1e-6);
    EXPECT_EQ(r.deepestA == gb || r.deepestB == gb, true);
    EXPECT_EQ(r.pairsPenetrating, 2u);
    EXPECT_EQ(r.skippedObjects, 1u);  // the sphere
    // Move the second box out: the first one's 1 cm is left.
    gb->setWorldTransform(test::at(20.0f, 1.2f, 0.0f));
    r = probe.measure(*world.world);
    EXPECT_NEAR(r.maxDepth, 0.01, 1e-6);
    EXPECT_TRUE(r.deepestA == ga || r.deepestB == ga);
    // Clearances: the first box is 1 cm in, the second 20 cm above its ground (capped at 0.1),
    // the sphere not measured.
    const std::vector<double> gaps = probe.clearances(*world.world, 0.1);
    ASSERT_EQ(gaps.size(), 5u);
    EXPECT_NEAR(gaps[0], -0.01, 1e-6);
    EXPECT_NEAR(gaps[3], 0.1, 1e-12);
    EXPECT_TRUE(std::isnan(gaps[4]));
}

// RigidWorld measures stock GImpact like its own dispatcher: a box body placed 2 cm into the
// ground reads 0.02 before any step, on both paths.
TEST(PenetrationProbe, RigidWorldMeasuresGImpactAndCpuAlike) {
    for (const char* detector : {"cpu", bullet::kBulletGImpact}) {
        bullet::WorldSettings ws;
        ws.detector = detector;
        auto world = bullet::RigidWorld::create(ws);
        ASSERT_TRUE(world.has_value()) << world.error().message;
        (*world)->addGround(Vec3(5.0f, 0.5f, 5.0f));
        Pose p;
        p.position = Vec3(0.3f, 0.48f, 0.0f);
        (*world)->addMeshBody(box(0.5f), p);
        EXPECT_NEAR((*world)->maxPenetration(), 0.02, 1e-6) << detector;
    }
}
