// The dispatcher alone: contacts of two box meshes against Bullet's own box-box result,
// the margin, persistence of cached impulses, contactPairTest.
#include "TestWorld.h"

#include "isc/bullet/RigidWorld.h"

#include <btBulletDynamicsCommon.h>
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>

using namespace isc;

namespace {

std::unique_ptr<btCollisionDispatcher> iscDispatcher(btCollisionConfiguration* config, float margin = 0.04f) {
    bullet::DispatcherSettings s;
    s.detector = "cpu";
    s.margin = margin;
    auto d = bullet::CollisionDispatcher::create(config, s);
    EXPECT_TRUE(d.has_value()) << (d ? "" : d.error().message);
    return std::move(*d);
}

// Normal (oriented from body1 toward body0) and distance of each contact point.
struct Found {
    int count = 0;
    btVector3 normalOnB{0, 0, 0};
    btScalar minDistance = BT_LARGE_FLOAT, maxDistance = -BT_LARGE_FLOAT;
    const btCollisionObject* body0 = nullptr;
};

Found contacts(btPersistentManifold* m) {
    Found f;
    if (!m) return f;
    f.count = m->getNumContacts();
    f.body0 = static_cast<const btCollisionObject*>(m->getBody0());
    for (int i = 0; i < f.count; ++i) {
        const btManifoldPoint& p = m->getContactPoint(i);
        f.normalOnB += p.m_normalWorldOnB;
        f.minDistance = std::min(f.minDistance, p.getDistance());
        f.maxDistance = std::max(f.maxDistance, p.getDistance());
    }
    if (f.count) f.normalOnB /= btScalar(f.count);
    return f;
}

// Box meshes of half extent 0.5: A above B, A's bottom at 0.5 - overlap.
struct BoxPair {
    std::shared_ptr<const Mesh> box = std::make_shared<const Mesh>(shapes::box(Vec3(0.5f)));
};

}  // namespace

// A box mesh resting on a box mesh, 1 cm into it: four contacts whose normal and depth
// match Bullet's own box-box algorithm on the same two boxes.
TEST(Dispatcher, BoxMeshOnBoxMeshMatchesBulletBoxBox) {
    const float overlap = 0.01f;
    // Bullet's reference: two btBoxShapes through the stock dispatcher.
    btDefaultCollisionConfiguration stockConfig;
    test::CollisionWorld stock(std::make_unique<btCollisionDispatcher>(&stockConfig));
    btBoxShape boxShape(btVector3(0.5f, 0.5f, 0.5f));
    btCollisionObject* refA = stock.add(&boxShape, test::at(0.0f, 1.0f - overlap, 0.0f));
    stock.add(&boxShape, test::at(0.0f, 0.0f, 0.0f));
    stock.world->performDiscreteCollisionDetection();
    const Found ref = contacts(stock.manifold());
    ASSERT_EQ(ref.count, 4);
    // Orient to "from B toward A" with A the upper box, whatever Bullet's body order.
    const btVector3 refNormal = ref.body0 == refA ? ref.normalOnB : -ref.normalOnB;
    EXPECT_NEAR(refNormal.y(), 1.0f, 1e-4f);
    EXPECT_NEAR(ref.minDistance, -overlap, 1e-4f);

    BoxPair pair;
    test::MeshShape a = test::makeGImpact(pair.box), b = test::makeGImpact(pair.box);
    btDefaultCollisionConfiguration config(bullet::collisionConstructionInfo());
    test::CollisionWorld ours(iscDispatcher(&config));
    btCollisionObject* oursA = ours.add(a.shape.get(), test::at(0.0f, 1.0f - overlap, 0.0f));
    ours.add(b.shape.get(), test::at(0.0f, 0.0f, 0.0f));
    ours.world->performDiscreteCollisionDetection();
    const Found got = contacts(ours.manifold());
    ASSERT_EQ(got.count, 4);
    const btVector3 gotNormal = got.body0 == oursA ? got.normalOnB : -got.normalOnB;
    EXPECT_GT(gotNormal.dot(refNormal), 0.999f);
    EXPECT_NEAR(got.minDistance, ref.minDistance, 1e-3f);
    EXPECT_NEAR(got.maxDistance, ref.maxDistance, 1e-3f);
    // The four points span the face (Bullet keeps the largest area): corners 1 m apart.
    btVector3 lo(1e9, 1e9, 1e9), hi(-1e9, -1e9, -1e9);
    for (int i = 0; i < got.count; ++i) {
        lo.setMin(ours.manifold()->getContactPoint(i).m_positionWorldOnB);
        hi.setMax(ours.manifold()->getContactPoint(i).m_positionWorldOnB);
    }
    EXPECT_NEAR(hi.x() - lo.x(), 1.0f, 1e-3f);
    EXPECT_NEAR(hi.z() - lo.z(), 1.0f, 1e-3f);
    // Triangle ids land in the index fields (a box has 12 triangles).
    const btManifoldPoint& p = ours.manifold()->getContactPoint(0);
    EXPECT_GE(p.m_index0, 0);
    EXPECT_LT(p.m_index0, 12);
    EXPECT_GE(p.m_index1, 0);
    EXPECT_LT(p.m_index1, 12);
}

// Within the margin (2 and 3.5 cm apart, margin 4 cm): speculative contacts at the real
// distance (a box's swollen copy must move its faces by the whole half margin, not only
// its corners: shapes::offset's corner normals moved them by 1.15 cm of the 2). Also with
// the upper box shifted sideways (its side faces then do not lie in the lower box's side
// planes). Farther than the margin (10 cm): none.
TEST(Dispatcher, MarginGivesContactsBeforeTouchingAndNoneBeyond) {
    BoxPair pair;
    test::MeshShape a = test::makeGImpact(pair.box), b = test::makeGImpact(pair.box);
    struct Case {
        float gap, shiftX, shiftZ;
    };
    for (const Case k : {Case{0.02f, 0.0f, 0.0f}, Case{0.02f, 0.2f, 0.0f}, Case{0.035f, 0.2f, 0.0f},
                         Case{0.1f, 0.0f, 0.0f}, Case{0.1f, 0.2f, 0.0f}}) {
        btDefaultCollisionConfiguration config(bullet::collisionConstructionInfo());
        test::CollisionWorld ours(iscDispatcher(&config, 0.04f));
        ours.add(a.shape.get(), test::at(k.shiftX, 1.0f + k.gap, k.shiftZ));
        ours.add(b.shape.get(), test::at(0.0f, 0.0f, 0.0f));
        ours.world->performDiscreteCollisionDetection();
        const Found got = contacts(ours.manifold());
        if (k.gap < 0.04f) {
            ASSERT_EQ(got.count, 4) << "gap " << k.gap << " shift " << k.shiftX;
            EXPECT_NEAR(got.minDistance, k.gap, 1e-3f);
            EXPECT_NEAR(got.maxDistance, k.gap, 1e-3f);
        } else {
            EXPECT_EQ(got.count, 0) << "gap " << k.gap << " shift " << k.shiftX;
        }
    }
}

// A dynamic box mesh resting on a static box mesh: the same manifold, its points living on
// (lifetime grows) with their accumulated impulses carried into the next step.
TEST(Dispatcher, ManifoldsKeepCachedImpulsesAcrossSteps) {
    auto world = bullet::RigidWorld::create({});
    ASSERT_TRUE(world.has_value()) << world.error().message;
    BoxPair pair;
    test::MeshShape ground = test::makeGImpact(std::make_shared<const Mesh>(shapes::box(Vec3(3.0f, 0.5f, 3.0f))));
    btRigidBody::btRigidBodyConstructionInfo gci(0.0f, nullptr, ground.shape.get());
    btRigidBody groundBody(gci);
    groundBody.setWorldTransform(test::at(0.0f, -0.5f, 0.0f));
    (*world)->world().addRigidBody(&groundBody);
    Pose start;
    start.position = Vec3(0.0f, 0.52f, 0.0f);
    (*world)->addMeshBody(pair.box, start, 1.0f);
    for (int i = 0; i < 60; ++i) (*world)->step();

    btDispatcher* d = (*world)->world().getDispatcher();
    ASSERT_EQ(d->getNumManifolds(), 1);
    btPersistentManifold* m = d->getManifoldByIndexInternal(0);
    ASSERT_EQ(m->getNumContacts(), 4);
    float impulse = 0.0f;
    int life = 1 << 30;
    for (int i = 0; i < 4; ++i) {
        impulse += m->getContactPoint(i).m_appliedImpulse;
        life = std::min(life, m->getContactPoint(i).m_lifeTime);
    }
    // Resting: the impulses carry the weight, m g dt = 9.81 / 60.
    EXPECT_NEAR(impulse, 9.81f / 60.0f, 0.02f);
    EXPECT_GT(life, 10);
    (*world)->step();
    ASSERT_EQ(d->getNumManifolds(), 1);
    EXPECT_EQ(d->getManifoldByIndexInternal(0), m);
    for (int i = 0; i < m->getNumContacts(); ++i) EXPECT_GT(m->getContactPoint(i).m_lifeTime, life);
    EXPECT_NEAR((*world)->pose(0).position.y, 0.5f, 0.01f);
    (*world)->world().removeRigidBody(&groundBody);
}

// contactPairTest runs the detector on that one pair, through the closest-points create-func.
TEST(Dispatcher, ContactPairTestWorks) {
    BoxPair pair;
    test::MeshShape a = test::makeGImpact(pair.box), b = test::makeGImpact(pair.box);
    btDefaultCollisionConfiguration config(bullet::collisionConstructionInfo());
    test::CollisionWorld ours(iscDispatcher(&config));
    btCollisionObject* oa = ours.add(a.shape.get(), test::at(0.0f, 0.99f, 0.0f));
    btCollisionObject* ob = ours.add(b.shape.get(), test::at(0.0f, 0.0f, 0.0f));

    struct Callback : btCollisionWorld::ContactResultCallback {
        const btCollisionObject* a = nullptr;
        int count = 0;
        btScalar minDistance = BT_LARGE_FLOAT;
        float normalTowardA = 0.0f;
        btScalar addSingleResult(btManifoldPoint& p, const btCollisionObjectWrapper* w0, int, int,
                                 const btCollisionObjectWrapper*, int, int) override {
            ++count;
            minDistance = std::min(minDistance, p.getDistance());
            normalTowardA = (w0->getCollisionObject() == a ? 1.0f : -1.0f) * p.m_normalWorldOnB.y();
            return 0;
        }
    } cb;
    cb.a = oa;
    ours.world->contactPairTest(oa, ob, cb);
    EXPECT_GT(cb.count, 0);
    EXPECT_NEAR(cb.minDistance, -0.01f, 1e-3f);
    EXPECT_NEAR(cb.normalTowardA, 1.0f, 1e-4f);

    // Apart by more than the margin: nothing.
    oa->setWorldTransform(test::at(0.0f, 1.2f, 0.0f));
    Callback far;
    far.a = oa;
    ours.world->contactPairTest(oa, ob, far);
    EXPECT_EQ(far.count, 0);
}

// A mesh on a btBoxShape (the ground) goes to the detector, the box read as 12 triangles:
// the mesh box 1 cm into the ground box gets its four bottom corners at depth 1 cm with the
// ground's normal, as Bullet's box-box gives.
TEST(Dispatcher, MeshOnBoxShapeGoesToTheDetector) {
    BoxPair pair;
    test::MeshShape a = test::makeGImpact(pair.box);
    btBoxShape ground(btVector3(5.0f, 0.5f, 5.0f));
    btDefaultCollisionConfiguration config(bullet::collisionConstructionInfo());
    test::CollisionWorld ours(iscDispatcher(&config));
    btCollisionObject* oa = ours.add(a.shape.get(), test::at(0.3f, 0.99f, 0.2f));
    ours.add(&ground, test::at(0.0f, 0.0f, 0.0f));
    ours.world->performDiscreteCollisionDetection();
    EXPECT_EQ(static_cast<bullet::CollisionDispatcher*>(ours.dispatcher.get())->lastStats().meshPairs, 1u);
    const Found got = contacts(ours.manifold());
    ASSERT_EQ(got.count, 4);
    const btVector3 normal = got.body0 == oa ? got.normalOnB : -got.normalOnB;
    EXPECT_NEAR(normal.y(), 1.0f, 1e-4f);
    EXPECT_NEAR(got.minDistance, -0.01f, 1e-4f);
    EXPECT_NEAR(got.maxDistance, -0.01f, 1e-4f);
    for (int i = 0; i < got.count; ++i) {
        const btVector3 p = ours.manifold()->getContactPoint(i).m_positionWorldOnB;
        // The corners of the mesh box: x = 0.3 +- 0.5, z = 0.2 +- 0.5 (on B, the lower body).
        EXPECT_NEAR(std::abs(p.x() - 0.3f), 0.5f, 1e-3f);
        EXPECT_NEAR(std::abs(p.z() - 0.2f), 0.5f, 1e-3f);
    }
}

namespace {

// What a Bullet app writes: a btTriangleMesh filled triangle by triangle (each triangle its
// own three vertices, nothing welded), a box of half extent `h` centred at the origin.
void addBoxTriangles(btTriangleMesh& tris, btVector3 h) {
    const btVector3 v[8] = {{-h.x(), -h.y(), -h.z()}, {h.x(), -h.y(), -h.z()}, {h.x(), h.y(), -h.z()},
                            {-h.x(), h.y(), -h.z()},  {-h.x(), -h.y(), h.z()}, {h.x(), -h.y(), h.z()},
                            {h.x(), h.y(), h.z()},    {-h.x(), h.y(), h.z()}};
    const int f[12][3] = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
                          {3, 7, 6}, {3, 6, 2}, {0, 4, 7}, {0, 7, 3}, {1, 2, 6}, {1, 6, 5}};
    for (const auto& t : f) tris.addTriangle(v[t[0]], v[t[1]], v[t[2]]);
}

enum class Ground { GImpactBox, BvhTwoTriangles, BvhBigBox };

struct GroundCase {
    const char* name;
    Ground ground;
    friend void PrintTo(const GroundCase& c, std::ostream* os) { *os << c.name; }
};

class SmallBoxOnStaticMesh : public ::testing::TestWithParam<GroundCase> {};

}  // namespace

// A 0.5 m box mesh (unwelded btTriangleMesh, GImpact) dropped from 0.25 m onto a static
// mesh ground whose top is y = 0: a GImpact box of 2 m, a btBvhTriangleMeshShape of two
// 40 m triangles, or a 40 m BVH box. It must come to rest with its real bottom face on the
// ground (centre at 0.25 m within 5 mm: contacts carry real distances) on four contacts
// (its four bottom corners), not fall through.
TEST_P(SmallBoxOnStaticMesh, ComesToRestOnFourContacts) {
    btDefaultCollisionConfiguration config;  // default pool: the dispatcher copes
    bullet::CollisionDispatcher dispatcher(&config, {.detector = "cpu"});
    ASSERT_TRUE(dispatcher.detectorError().empty()) << dispatcher.detectorError();
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &config);
    world.setGravity({0, -9.81f, 0});

    btTriangleMesh groundTris, boxTris;
    std::unique_ptr<btCollisionShape> groundShape;
    btTransform groundPose = btTransform::getIdentity();
    switch (GetParam().ground) {
        case Ground::GImpactBox: {
            addBoxTriangles(groundTris, btVector3(1, 1, 1));
            auto* g = new btGImpactMeshShape(&groundTris);
            g->updateBound();
            groundShape.reset(g);
            groundPose.setOrigin({0, -1, 0});
            break;
        }
        case Ground::BvhTwoTriangles:
            groundTris.addTriangle({-20, 0, -20}, {-20, 0, 20}, {20, 0, 20});
            groundTris.addTriangle({-20, 0, -20}, {20, 0, 20}, {20, 0, -20});
            groundShape = std::make_unique<btBvhTriangleMeshShape>(&groundTris, true);
            break;
        case Ground::BvhBigBox:
            addBoxTriangles(groundTris, btVector3(20, 0.5f, 20));
            groundShape = std::make_unique<btBvhTriangleMeshShape>(&groundTris, true);
            groundPose.setOrigin({0, -0.5f, 0});
            break;
    }
    addBoxTriangles(boxTris, btVector3(0.25f, 0.25f, 0.25f));
    btGImpactMeshShape boxShape(&boxTris);
    boxShape.updateBound();
    btDefaultMotionState groundMotion(groundPose);
    btRigidBody ground(0.0f, &groundMotion, groundShape.get());
    btVector3 inertia;
    boxShape.calculateLocalInertia(1.0f, inertia);
    btDefaultMotionState boxMotion(btTransform(btQuaternion::getIdentity(), {0.3f, 0.5f, -0.2f}));
    btRigidBody box(1.0f, &boxMotion, &boxShape, inertia);
    world.addRigidBody(&ground);
    world.addRigidBody(&box);
    for (int i = 0; i < 120; ++i) world.stepSimulation(1.0f / 60.0f, 0);

    EXPECT_NEAR(box.getWorldTransform().getOrigin().y(), 0.25f, 0.005f);
    EXPECT_LT(box.getLinearVelocity().length(), 0.01f);
    ASSERT_EQ(dispatcher.getNumManifolds(), 1);
    const btPersistentManifold* m = dispatcher.getManifoldByIndexInternal(0);
    ASSERT_EQ(m->getNumContacts(), 4);
    const bool boxIsBody0 = m->getBody0() == &box;
    for (int i = 0; i < 4; ++i) {
        const btManifoldPoint& p = m->getContactPoint(i);
        EXPECT_NEAR((boxIsBody0 ? 1.0f : -1.0f) * p.m_normalWorldOnB.y(), 1.0f, 1e-3f);
        EXPECT_NEAR(p.getDistance(), 0.0f, 0.005f);
        // The box's bottom corners: 0.25 m from its centre in x and z.
        const btVector3 q = boxIsBody0 ? p.m_positionWorldOnA : p.m_positionWorldOnB;
        EXPECT_NEAR(std::abs(q.x() - box.getWorldTransform().getOrigin().x()), 0.25f, 0.01f);
        EXPECT_NEAR(std::abs(q.z() - box.getWorldTransform().getOrigin().z()), 0.25f, 0.01f);
    }
    EXPECT_TRUE(dispatcher.warnings().empty());
    world.removeRigidBody(&box);
    world.removeRigidBody(&ground);
}

INSTANTIATE_TEST_SUITE_P(Grounds, SmallBoxOnStaticMesh,
                         ::testing::Values(GroundCase{"GImpactBox", Ground::GImpactBox},
                                           GroundCase{"BvhTwoTriangles", Ground::BvhTwoTriangles},
                                           GroundCase{"BvhBigBox", Ground::BvhBigBox}),
                         [](const auto& param) { return std::string(param.param.name); });

// switchDetector() makes the detector as the constructor does (segments off: the dispatcher
// reads triangle pairs only) and keeps the one in use when the name is unknown; a box resting
// on the ground goes on resting across the switch (manifolds stay).
TEST(Dispatcher, SwitchDetectorMakesItLikeTheConstructor) {
    bullet::WorldSettings settings;
    settings.detector = "cpu";
    auto world = bullet::RigidWorld::create(settings);
    ASSERT_TRUE(world.has_value()) << world.error().message;
    bullet::CollisionDispatcher* d = (*world)->dispatcher();
    ASSERT_NE(d, nullptr);
    (*world)->addGround(Vec3(3.0f, 0.5f, 3.0f));
    BoxPair pair;
    Pose start;
    start.position = Vec3(0.0f, 0.52f, 0.0f);
    (*world)->addMeshBody(pair.box, start, 1.0f);
    for (int i = 0; i < 30; ++i) (*world)->step();

    ASSERT_TRUE(d->switchDetector("cpu").has_value());
    Detector* switched = d->detector();
    ASSERT_NE(switched, nullptr);
    EXPECT_EQ(switched->name(), "cpu");
    // The new detector on two crossing boxes: triangle pairs, no segments.
    Scene scene;
    const MeshId box = scene.addMesh(pair.box);
    scene.addObject(box, Pose{Vec3(0.0f)});
    scene.addObject(box, Pose{Vec3(0.5f, 0.3f, 0.2f)});
    const ObjectPair both{0, 1};
    DetectionOutput out;
    ASSERT_TRUE(switched->detect(scene, {&both, 1}, out).has_value());
    ASSERT_EQ(out.pairs.size(), 1u);
    EXPECT_FALSE(out.pairs[0].triangles.empty());
    EXPECT_TRUE(out.pairs[0].segments.empty());

    const Result<void> bad = d->switchDetector("no-such-detector");
    ASSERT_FALSE(bad.has_value());
    EXPECT_NE(bad.error().message.find("no-such-detector"), std::string::npos) << bad.error().message;
    EXPECT_EQ(d->detector(), switched);

    for (int i = 0; i < 30; ++i) (*world)->step();
    EXPECT_NEAR((*world)->pose(0).position.y, 0.5f, 0.01f);
    EXPECT_EQ((*world)->contactCount(), 4);
}
