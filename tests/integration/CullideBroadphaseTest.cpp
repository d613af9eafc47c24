// isc::bullet::CullideBroadphase: btDbvtBroadphase's box pairs pruned by CULLIDE's PCS passes
// (papers/001). A ball in a torus's hole (boxes overlap, surfaces apart) never reaches the
// dispatcher, the same ball on the tube does and gets contacts; a box (not a mesh) passes
// untouched; in a falling pile of 10 bunnies, with validate on, no pruned pair is ever
// touching (the exact `cpu` test on the dispatcher's swollen meshes; with stock Bullet's
// dispatcher and GImpact, on the meshes grown by their margins) over 50 steps while pairs are
// pruned; a deforming mesh is tested as deformed once the change is told; RigidWorld's
// "cullide" setting builds it, an unknown name is an error.
#include "BunnyPile.h"
#include "GlTest.h"
#include "TestWorld.h"

#include "isc/bullet/CullideBroadphase.h"
#include "isc/bullet/RigidWorld.h"

#include <BulletCollision/Gimpact/btGImpactCollisionAlgorithm.h>
#include <btBulletDynamicsCommon.h>

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <map>
#include <set>

using namespace isc;

namespace {

class CullideBroadphaseTest : public GlTest {};

std::unique_ptr<bullet::CullideBroadphase> makeBroadphase(bool validate, CullideLevel level = CullideLevel::Object,
                                                          bool objectPass = true, bool clusterBoxes = false,
                                                          bool overlap = true) {
    bullet::CullideBroadphaseSettings s;
    s.overlap = overlap;
    s.cullide.clusterBoxes = clusterBoxes;
    s.validate = validate;
    s.level = level;
    s.objectPass = objectPass;
    s.cullide.objectResolution = 16;
    s.cullide.clusterResolution = 32;
    auto b = bullet::CullideBroadphase::create(s);
    EXPECT_TRUE(b.has_value()) << (b ? "" : b.error().message);
    return b ? std::move(*b) : nullptr;
}

// Our dispatcher (`cpu`) and stock Bullet's with GImpact's algorithm, over one configuration.
struct TwoDispatchers {
    btDefaultCollisionConfiguration config{bullet::collisionConstructionInfo()};
    std::unique_ptr<bullet::CollisionDispatcher> ours;
    btCollisionDispatcher stock{&config};
    TwoDispatchers() {
        auto made = bullet::CollisionDispatcher::create(&config, {.detector = "cpu"});
        EXPECT_TRUE(made.has_value()) << (made ? "" : made.error().message);
        if (made) ours = std::move(*made);
        btGImpactCollisionAlgorithm::registerAlgorithm(&stock);
    }
    btCollisionDispatcher* pick(bool useStock) { return useStock ? &stock : ours.get(); }
};

TEST_F(CullideBroadphaseTest, BoxPairsApartArePrunedTouchingOnesAndOtherShapesPass) {
    btDefaultCollisionConfiguration config{bullet::collisionConstructionInfo()};
    auto dispatcher = bullet::CollisionDispatcher::create(&config, {.detector = "cpu"});
    ASSERT_TRUE(dispatcher.has_value()) << dispatcher.error().message;
    // The ball in the hole is hidden by the torus's cluster boxes at the object level (their
    // corners reach into the hole); the cluster level, on the triangles, sees it whole.
    auto broadphase = makeBroadphase(true, CullideLevel::Cluster);
    btCollisionWorld world(dispatcher->get(), broadphase.get(), &config);
    test::MeshShape torus = test::makeGImpact(std::make_shared<Mesh>(shapes::torus(0.5f, 0.15f, 32, 16)));
    test::MeshShape ball = test::makeGImpact(std::make_shared<Mesh>(shapes::uvSphere(0.2f)));
    btBoxShape crate(btVector3(0.1f, 0.1f, 0.1f));
    btCollisionObject a, b, c;
    a.setCollisionShape(torus.shape.get());
    a.setWorldTransform(test::at(0, 0, 0));
    b.setCollisionShape(ball.shape.get());
    b.setWorldTransform(test::at(0, 0, 0));  // in the hole: 0.15 from the tube, boxes overlap
    c.setCollisionShape(&crate);
    c.setWorldTransform(test::at(0.5f, 0.2f, 0.0f));  // a box on the tube: not a mesh pair
    world.addCollisionObject(&a);
    world.addCollisionObject(&b);
    world.addCollisionObject(&c);

    world.performDiscreteCollisionDetection();
    const bullet::BroadphaseStats& s = broadphase->lastStats();
    EXPECT_EQ(s.boxPairs, 2u);  // torus-ball, torus-crate
    EXPECT_EQ(s.meshPairs, 1u);
    EXPECT_EQ(s.keptMeshPairs, 0u);
    EXPECT_EQ(s.passedPairs, 1u);
    EXPECT_EQ(s.lostPairs, 0u);
    EXPECT_EQ(broadphase->getOverlappingPairCache()->findPair(a.getBroadphaseHandle(), b.getBroadphaseHandle()),
              nullptr);
    EXPECT_NE(broadphase->getOverlappingPairCache()->findPair(a.getBroadphaseHandle(), c.getBroadphaseHandle()),
              nullptr);

    // The ball put on the tube: the pair passes and the dispatcher makes contacts.
    b.setWorldTransform(test::at(0.5f, 0.34f, 0.0f));  // resting on the tube, 0.01 into it
    world.updateAabbs();
    world.performDiscreteCollisionDetection();
    EXPECT_EQ(broadphase->lastStats().keptMeshPairs, 1u);
    const btBroadphasePair* pair =
        broadphase->getOverlappingPairCache()->findPair(a.getBroadphaseHandle(), b.getBroadphaseHandle());
    ASSERT_NE(pair, nullptr);
    int contacts = 0;
    for (int i = 0; i < world.getDispatcher()->getNumManifolds(); ++i) {
        const btPersistentManifold* m = world.getDispatcher()->getManifoldByIndexInternal(i);
        if ((m->getBody0() == &a && m->getBody1() == &b) || (m->getBody0() == &b && m->getBody1() == &a))
            contacts += m->getNumContacts();
    }
    EXPECT_GT(contacts, 0);
    // Back in the hole: the pair leaves the cache again (its algorithm and manifold freed).
    b.setWorldTransform(test::at(0, 0, 0));
    world.updateAabbs();
    world.performDiscreteCollisionDetection();
    EXPECT_EQ(broadphase->getOverlappingPairCache()->findPair(a.getBroadphaseHandle(), b.getBroadphaseHandle()),
              nullptr);
    world.removeCollisionObject(&c);
    world.removeCollisionObject(&b);
    world.removeCollisionObject(&a);
    EXPECT_EQ(broadphase->getOverlappingPairCache()->getNumOverlappingPairs(), 0);
}

// A deforming mesh (its vertices written in place, as a Bullet app deforms a GImpact mesh):
// the broadphase tests the surface as deformed, not the one it first read. A ball in a torus's
// hole (the hole's edge at 0.35 from its centre) first read at r 0.4, 5 cm into the tube: kept,
// with contacts. Shrunk in place to r 0.2, not told: kept still (both the dispatcher and the
// broadphase keep the surface they read); told (our dispatcher's meshVerticesChanged, which the
// broadphase reads; with another dispatcher the broadphase's own): pruned, and validate, testing
// the pruned pair on the deformed surfaces, finds it apart (on the surface first read it would
// count it lost). Grown back and told: kept, with contacts; shrunk again: pruned, the vertices
// taken from our dispatcher's read (it mirrors the ball). Grown and told while far from the
// torus (no box pair, so not read yet), then back in the hole: kept.
struct DeformCase {
    const char* name;
    bool stockDispatcher;
};
class CullideBroadphaseDeformTest : public CullideBroadphaseTest, public ::testing::WithParamInterface<DeformCase> {};

TEST_P(CullideBroadphaseDeformTest, DeformedMeshesArePrunedAsDeformed) {
    const DeformCase& c = GetParam();
    TwoDispatchers two;
    ASSERT_NE(two.ours, nullptr);
    btCollisionDispatcher* dispatcher = two.pick(c.stockDispatcher);
    auto broadphase = makeBroadphase(true, CullideLevel::Cluster);
    btCollisionWorld world(dispatcher, broadphase.get(), &two.config);
    test::MeshShape torus = test::makeGImpact(std::make_shared<Mesh>(shapes::torus(0.5f, 0.15f, 32, 16)));
    // The ball over its own writable vertex array.
    auto sphere = std::make_shared<const Mesh>(shapes::uvSphere(0.2f));
    std::vector<Vec3> vertices(sphere->vertices().begin(), sphere->vertices().end());
    btTriangleIndexVertexArray array(int(sphere->triangleCount()),
                                     const_cast<int*>(reinterpret_cast<const int*>(sphere->triangles().data())),
                                     int(sizeof(UVec3)), int(vertices.size()),
                                     reinterpret_cast<btScalar*>(vertices.data()), int(sizeof(Vec3)));
    btGImpactMeshShape ball(&array);
    auto scaleBall = [&](float s) {
        for (std::size_t v = 0; v < vertices.size(); ++v) vertices[v] = sphere->vertices()[v] * s;
        ball.postUpdate();
        ball.updateBound();
    };
    auto tell = [&] {
        if (c.stockDispatcher) broadphase->meshVerticesChanged(&ball);
        else two.ours->meshVerticesChanged(&ball);
    };
    scaleBall(2.0f);  // r 0.4, as first read
    // (Margins of 1 cm: with another dispatcher the broadphase grows each mesh by its margin,
    // and validate tests the pruned pairs on meshes grown so, in a scene of their own whose
    // deformed vertices it must mirror too.)
    ball.setMargin(0.01f);
    torus.shape->setMargin(0.01f);
    btCollisionObject a, b;
    a.setCollisionShape(torus.shape.get());
    a.setWorldTransform(test::at(0, 0, 0));
    b.setCollisionShape(&ball);
    b.setWorldTransform(test::at(0, 0, 0));
    world.addCollisionObject(&a);
    world.addCollisionObject(&b);
    auto kept = [&] {
        return broadphase->getOverlappingPairCache()->findPair(a.getBroadphaseHandle(), b.getBroadphaseHandle()) !=
               nullptr;
    };
    auto contacts = [&] {
        int n = 0;
        for (int i = 0; i < dispatcher->getNumManifolds(); ++i) {
            const btPersistentManifold* m = dispatcher->getManifoldByIndexInternal(i);
            if ((m->getBody0() == &a && m->getBody1() == &b) || (m->getBody0() == &b && m->getBody1() == &a))
                n += m->getNumContacts();
        }
        return n;
    };
    auto step = [&](float scale, bool told) {
        scaleBall(scale);
        if (told) tell();
        world.updateAabbs();
        world.performDiscreteCollisionDetection();
        EXPECT_EQ(broadphase->lastStats().meshPairs, 1u);
        EXPECT_EQ(broadphase->lastStats().lostPairs, 0u) << "scale " << scale;
    };

    world.performDiscreteCollisionDetection();
    EXPECT_EQ(broadphase->lastStats().meshPairs, 1u);
    EXPECT_TRUE(kept()) << "5 cm into the tube";
    EXPECT_GT(contacts(), 0);

    step(1.0f, false);  // shrunk, not told: the surface read first stays
    EXPECT_TRUE(kept());
    step(1.0f, true);  // told: apart
    EXPECT_FALSE(kept()) << "the shrunk ball is 0.15 from the tube";
    step(2.0f, true);  // grown into the tube
    EXPECT_TRUE(kept()) << "the grown ball reaches 0.05 into the tube";
    EXPECT_GT(contacts(), 0);
    step(2.1f, true);  // grown a little more: kept (our dispatcher, mirroring the ball, reads it)
    EXPECT_TRUE(kept());
    step(1.0f, true);  // and back: every change is read, not the first alone
    EXPECT_FALSE(kept());
    // The pair was kept, so our dispatcher mirrors the ball: the broadphase takes the vertices of
    // its read instead of reading the shape a second time.
    EXPECT_EQ(broadphase->lastStats().meshesShared, c.stockDispatcher ? 0u : 1u);
    EXPECT_EQ(broadphase->lastStats().meshesRead, c.stockDispatcher ? 1u : 0u);
    // Grown and told while far from the torus (no box pair: its mesh is read when it has one),
    // then back in the hole: tested as grown.
    b.setWorldTransform(test::at(5, 0, 0));
    scaleBall(2.0f);
    tell();
    world.updateAabbs();
    world.performDiscreteCollisionDetection();
    EXPECT_EQ(broadphase->lastStats().boxPairs, 0u);
    b.setWorldTransform(test::at(0, 0, 0));
    world.updateAabbs();
    world.performDiscreteCollisionDetection();
    EXPECT_TRUE(kept()) << "the change told while it had no pair";
    EXPECT_GT(contacts(), 0);
    world.removeCollisionObject(&b);
    world.removeCollisionObject(&a);
}

INSTANTIATE_TEST_SUITE_P(Dispatchers, CullideBroadphaseDeformTest,
                         ::testing::Values(DeformCase{"ours", false}, DeformCase{"stock_gimpact", true}),
                         [](const auto& p) { return std::string(p.param.name); });

// A falling pile: 10 bunnies, 50 steps (0.83 s: falling, the upper layer landing on the lower),
// the cpu detector in the dispatcher, or stock Bullet's (btCollisionDispatcher with
// btGImpactCollisionAlgorithm: the broadphase grows each mesh by its shape's margin). Every step
// the pruned pairs are tested exactly, as the dispatcher sees them (ours: its swollen meshes;
// stock: each mesh grown by its margin, Bullet's contact distance): none touches.
struct PileCase {
    const char* name;
    CullideLevel level;
    bool objectPass;
    bool clusterBoxes = false;
    bool stockDispatcher = false;
    bool overlap = true;  // (with our dispatcher: the pruning finished inside its dispatch)
};

class CullideBroadphasePileTest : public CullideBroadphaseTest, public ::testing::WithParamInterface<PileCase> {};

TEST_P(CullideBroadphasePileTest, PileLosesNoTouchingPair) {
    const PileCase& c = GetParam();
    auto pile = scenes::makeBunnyPile(10, 1);
    ASSERT_TRUE(pile.has_value()) << pile.error().message;
    TwoDispatchers two;
    ASSERT_NE(two.ours, nullptr);
    btCollisionDispatcher* dispatcher = two.pick(c.stockDispatcher);
    auto broadphase = makeBroadphase(true, c.level, c.objectPass, c.clusterBoxes, c.overlap);
    btSequentialImpulseConstraintSolver solver;
    btDiscreteDynamicsWorld world(dispatcher, broadphase.get(), &solver, &two.config);
    world.setGravity(btVector3(0, -9.81f, 0));
    test::MeshShape bunny = test::makeGImpact(pile->bunny);
    bunny.shape->setMargin(0.04f);
    btBoxShape groundShape(btVector3(pile->groundHalfExtents.x, pile->groundHalfExtents.y, pile->groundHalfExtents.z));
    std::vector<std::unique_ptr<btDefaultMotionState>> motion;
    std::vector<std::unique_ptr<btRigidBody>> bodies;
    auto add = [&](btCollisionShape* shape, const btTransform& t, float mass) {
        motion.push_back(std::make_unique<btDefaultMotionState>(t));
        btVector3 inertia(0, 0, 0);
        if (mass > 0) shape->calculateLocalInertia(mass, inertia);
        bodies.push_back(std::make_unique<btRigidBody>(mass, motion.back().get(), shape, inertia));
        world.addRigidBody(bodies.back().get());
    };
    add(&groundShape, test::at(0, -pile->groundHalfExtents.y, 0), 0.0f);
    for (const Pose& p : pile->poses) {
        btTransform t;
        t.setOrigin(btVector3(p.position.x, p.position.y, p.position.z));
        t.setRotation(btQuaternion(p.rotation.x, p.rotation.y, p.rotation.z, p.rotation.w));
        add(bunny.shape.get(), t, 1.0f);
    }
    std::size_t meshPairs = 0, kept = 0, lost = 0, maxKept = 0, contacts = 0, overlapped = 0;
    for (int step = 0; step < 50; ++step) {
        world.stepSimulation(1.0f / 60.0f, 1, 1.0f / 60.0f);
        const bullet::BroadphaseStats& s = broadphase->lastStats();
        meshPairs += s.meshPairs;
        kept += s.keptMeshPairs;
        lost += s.lostPairs;
        maxKept = std::max(maxKept, s.keptMeshPairs);
        overlapped += s.overlapped;
        for (int i = 0; i < dispatcher->getNumManifolds(); ++i)
            contacts += std::size_t(dispatcher->getManifoldByIndexInternal(i)->getNumContacts());
    }
    std::printf("[ cullide broadphase ] %s: 10 bunnies, 50 steps: %zu mesh box pairs, %zu kept (%.2f), %zu lost\n",
                c.name, meshPairs, kept, meshPairs ? double(kept) / double(meshPairs) : 0.0, lost);
    EXPECT_EQ(lost, 0u) << "a pruned pair was touching";
    EXPECT_GT(meshPairs, 50u) << "the bunnies should meet";
    EXPECT_GT(maxKept, 0u) << "and touch";
    EXPECT_LT(kept, meshPairs) << "some box pairs are apart";
    EXPECT_GT(contacts, 0u) << "the dispatcher made contacts for the kept pairs";
    if (!c.overlap || c.stockDispatcher) EXPECT_EQ(overlapped, 0u);
    else EXPECT_GT(overlapped, 0u) << "the pruning should have finished inside the dispatch";
    for (auto& b : bodies) {
        EXPECT_TRUE(std::isfinite(b->getWorldTransform().getOrigin().y()));
        world.removeRigidBody(b.get());
    }
}

INSTANTIATE_TEST_SUITE_P(Levels, CullideBroadphasePileTest,
                         ::testing::Values(PileCase{"object_pass", CullideLevel::Object, true},
                                           PileCase{"object_pass_then_clusters", CullideLevel::Cluster, true},
                                           PileCase{"object_pass_then_cluster_boxes", CullideLevel::Cluster, true, true},
                                           PileCase{"pairwise_object_level", CullideLevel::Object, false},
                                           PileCase{"pairwise_clusters", CullideLevel::Cluster, false},
                                           PileCase{"pairwise_clusters_before_dispatch", CullideLevel::Cluster, false,
                                                    false, false, false},
                                           PileCase{"object_pass_before_dispatch", CullideLevel::Object, true, false,
                                                    false, false},
                                           PileCase{"cluster_boxes_alone", CullideLevel::Cluster, false, true},
                                           PileCase{"stock_gimpact_object_pass", CullideLevel::Object, true, false, true},
                                           PileCase{"stock_gimpact_cluster_boxes", CullideLevel::Cluster, true, true, true},
                                           PileCase{"stock_gimpact_clusters_alone", CullideLevel::Cluster, false, false, true}),
                         [](const auto& p) { return std::string(p.param.name); });

// The pruning finished inside the dispatch (overlap, the default with our dispatcher) against
// the pruning before it, side by side in one process: collision worlds driven by the poses of a
// falling 20-bunny pile (120 steps; a dynamic world with btDbvtBroadphase alone), each step the
// same pairs in the cache the dispatcher walks, the same counts and the same contact points in
// each pair's manifold, bit for bit; the overlap path both adds kept pairs late and drops pairs kept the step before.
TEST_F(CullideBroadphaseTest, OverlapKeepsThePairsAndContactsOfThePruningBeforeTheDispatch) {
    auto pile = scenes::makeBunnyPile(20, 1);
    ASSERT_TRUE(pile.has_value()) << pile.error().message;
    btDefaultCollisionConfiguration config{bullet::collisionConstructionInfo()};
    test::MeshShape bunny = test::makeGImpact(pile->bunny);
    bunny.shape->setMargin(0.04f);
    btBoxShape groundShape(btVector3(pile->groundHalfExtents.x, pile->groundHalfExtents.y, pile->groundHalfExtents.z));
    const btTransform groundAt = test::at(0, -pile->groundHalfExtents.y, 0);

    // The poses: a dynamic world with Bullet's own broadphase.
    auto driver = bullet::CollisionDispatcher::create(&config, {.detector = "cpu"});
    ASSERT_TRUE(driver.has_value()) << driver.error().message;
    btDbvtBroadphase dbvt;
    btSequentialImpulseConstraintSolver solver;
    btDiscreteDynamicsWorld dynamic(driver->get(), &dbvt, &solver, &config);
    dynamic.setGravity(btVector3(0, -9.81f, 0));
    std::vector<std::unique_ptr<btDefaultMotionState>> motion;
    std::vector<std::unique_ptr<btRigidBody>> bodies;
    auto addBody = [&](btCollisionShape* shape, const btTransform& t, float mass) {
        motion.push_back(std::make_unique<btDefaultMotionState>(t));
        btVector3 inertia(0, 0, 0);
        if (mass > 0) shape->calculateLocalInertia(mass, inertia);
        bodies.push_back(std::make_unique<btRigidBody>(mass, motion.back().get(), shape, inertia));
        dynamic.addRigidBody(bodies.back().get());
    };
    addBody(&groundShape, groundAt, 0.0f);
    for (const Pose& p : pile->poses) {
        btTransform t;
        t.setOrigin(btVector3(p.position.x, p.position.y, p.position.z));
        t.setRotation(btQuaternion(p.rotation.x, p.rotation.y, p.rotation.z, p.rotation.w));
        addBody(bunny.shape.get(), t, 1.0f);
    }

    // Three collision worlds on those poses: [0] prunes before the dispatch, [1] inside it, in the
    // cpu detector's team (the default), [2] inside it, with the detector run after the GPU pass
    // is queued (cullide-9's overlap).
    struct Side {
        std::unique_ptr<bullet::CollisionDispatcher> dispatcher;
        std::unique_ptr<bullet::CullideBroadphase> broadphase;
        std::unique_ptr<btCollisionWorld> world;
        std::vector<std::unique_ptr<btCollisionObject>> objects;
    } sides[3];
    for (int k = 0; k < 3; ++k) {
        Side& side = sides[k];
        auto d = bullet::CollisionDispatcher::create(&config, {.detector = "cpu"});
        ASSERT_TRUE(d.has_value()) << d.error().message;
        side.dispatcher = std::move(*d);
        bullet::CullideBroadphaseSettings s;
        s.level = CullideLevel::Cluster;
        s.objectPass = false;
        s.cullide.clusterResolution = 32;
        s.overlap = k > 0;
        s.inTeam = k == 1;
        auto made = bullet::CullideBroadphase::create(s);
        ASSERT_TRUE(made.has_value()) << made.error().message;
        side.broadphase = std::move(*made);
        side.world = std::make_unique<btCollisionWorld>(side.dispatcher.get(), side.broadphase.get(), &config);
        for (const auto& b : bodies) {
            side.objects.push_back(std::make_unique<btCollisionObject>());
            side.objects.back()->setCollisionShape(b->getCollisionShape());
            side.objects.back()->setWorldTransform(b->getWorldTransform());
            side.world->addCollisionObject(side.objects.back().get());
        }
    }
    // Per body pair (by index): its manifold's points, as bits.
    using Points = std::vector<std::array<float, 7>>;
    auto contactsOf = [](Side& side) {
        std::map<std::pair<int, int>, Points> out;
        auto index = [&](const btCollisionObject* o) {
            for (std::size_t i = 0; i < side.objects.size(); ++i)
                if (side.objects[i].get() == o) return int(i);
            return -1;
        };
        for (int i = 0; i < side.dispatcher->getNumManifolds(); ++i) {
            const btPersistentManifold* m = side.dispatcher->getManifoldByIndexInternal(i);
            const int a = index(m->getBody0()), b = index(m->getBody1());
            Points& points = out[{std::min(a, b), std::max(a, b)}];
            for (int c = 0; c < m->getNumContacts(); ++c) {
                const btManifoldPoint& pt = m->getContactPoint(c);
                points.push_back({float(pt.m_positionWorldOnB.x()), float(pt.m_positionWorldOnB.y()),
                                  float(pt.m_positionWorldOnB.z()), float(pt.m_normalWorldOnB.x()),
                                  float(pt.m_normalWorldOnB.y()), float(pt.m_normalWorldOnB.z()),
                                  float(pt.getDistance())});
            }
            std::sort(points.begin(), points.end());
        }
        std::erase_if(out, [](const auto& e) { return e.second.empty(); });
        return out;
    };
    auto pairsOf = [](Side& side) {
        std::set<std::pair<int, int>> out;
        btOverlappingPairCache* cache = side.broadphase->getOverlappingPairCache();
        for (int i = 0; i < cache->getNumOverlappingPairs(); ++i) {
            const btBroadphasePair& p = cache->getOverlappingPairArrayPtr()[i];
            const int a = p.m_pProxy0->m_uniqueId, b = p.m_pProxy1->m_uniqueId;
            out.insert({std::min(a, b), std::max(a, b)});
        }
        return out;
    };
    std::size_t addedLate = 0, droppedLate = 0, kept = 0, contactPairs = 0;
    for (int step = 0; step < 120; ++step) {
        for (Side& side : sides) {
            for (std::size_t i = 0; i < bodies.size(); ++i)
                side.objects[i]->setWorldTransform(bodies[i]->getWorldTransform());
            side.world->updateAabbs();
            side.world->performDiscreteCollisionDetection();
        }
        const bullet::BroadphaseStats& before = sides[0].broadphase->lastStats();
        EXPECT_FALSE(before.overlapped);
        const auto pairs = pairsOf(sides[0]);
        const auto contacts = contactsOf(sides[0]);
        for (int k = 1; k < 3; ++k) {
            const bullet::BroadphaseStats& inside = sides[k].broadphase->lastStats();
            EXPECT_TRUE(inside.overlapped);
            EXPECT_EQ(inside.inTeam, k == 1);
            EXPECT_EQ(inside.boxPairs, before.boxPairs) << "side " << k << ", step " << step;
            EXPECT_EQ(inside.meshPairs, before.meshPairs) << "side " << k << ", step " << step;
            EXPECT_EQ(inside.keptMeshPairs, before.keptMeshPairs) << "side " << k << ", step " << step;
            EXPECT_EQ(inside.passedPairs, before.passedPairs) << "side " << k << ", step " << step;
            EXPECT_EQ(pairsOf(sides[k]), pairs) << "side " << k << ", step " << step;
            EXPECT_EQ(contactsOf(sides[k]), contacts) << "side " << k << ", step " << step;
        }
        const bullet::BroadphaseStats& inside = sides[1].broadphase->lastStats();
        EXPECT_EQ(inside.addedLate, sides[2].broadphase->lastStats().addedLate) << "step " << step;
        EXPECT_EQ(inside.droppedLate, sides[2].broadphase->lastStats().droppedLate) << "step " << step;
        addedLate += inside.addedLate;
        droppedLate += inside.droppedLate;
        kept += before.keptMeshPairs;
        contactPairs += contacts.size();
        dynamic.stepSimulation(1.0f / 60.0f, 1, 1.0f / 60.0f);
    }
    std::printf("[ cullide broadphase ] overlap: 20 bunnies, 120 steps, %zu kept mesh pairs, %zu pairs with contacts, %zu added "
                "late, %zu dropped late\n",
                kept, contactPairs, addedLate, droppedLate);
    EXPECT_GT(contactPairs, 0u);
    EXPECT_GT(addedLate, 0u) << "pairs should come in late";
    EXPECT_GT(droppedLate, 0u) << "pairs kept the step before should be pruned";
    for (Side& side : sides)
        for (auto& o : side.objects) side.world->removeCollisionObject(o.get());
    for (auto& b : bodies) dynamic.removeRigidBody(b.get());
}

TEST_F(CullideBroadphaseTest, RigidWorldSetting) {
    bullet::WorldSettings ws;
    ws.broadphase = "cullide";
    auto world = bullet::RigidWorld::create(ws);
    ASSERT_TRUE(world.has_value()) << world.error().message;
    EXPECT_NE(dynamic_cast<bullet::CullideBroadphase*>((*world)->world().getBroadphase()), nullptr);
    auto pile = scenes::makeBunnyPile(2, 1);
    ASSERT_TRUE(pile.has_value());
    (*world)->addGround(pile->groundHalfExtents);
    for (const Pose& p : pile->poses) (*world)->addMeshBody(pile->bunny, p);
    for (int i = 0; i < 5; ++i) (*world)->step();
    EXPECT_FALSE((*world)->hasNonFinite());
    ws.broadphase = "sweep";
    auto bad = bullet::RigidWorld::create(ws);
    ASSERT_FALSE(bad.has_value());
    EXPECT_NE(bad.error().message.find("sweep"), std::string::npos) << bad.error().message;
}

}  // namespace
