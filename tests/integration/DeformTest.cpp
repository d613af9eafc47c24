// Deforming meshes through the dispatcher (CollisionDispatcher::meshVerticesChanged): a mesh
// whose vertices are changed in place in its Bullet vertex array gets the contacts of its new
// surface, exactly those of a shape made at the new vertices from the start; without the call
// the dispatcher keeps the vertices it read; a change it cannot use is warned and ignored.
#include "TestWorld.h"

#include "isc/bullet/RigidWorld.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace isc {
namespace {

// A subdivided box (0.5 m half extents) stretched downward and sheared: the top stays, the
// bottom moves down by `down` and sideways by half of it.
std::vector<Vec3> stretched(const Mesh& rest, float down) {
    std::vector<Vec3> v(rest.vertices().begin(), rest.vertices().end());
    for (Vec3& p : v) {
        const float s = 0.5f - p.y;  // 0 at the top, 1 at the bottom
        p += Vec3(0.5f * down * s, -down * s, 0.0f);
    }
    return v;
}

// A GImpact shape over its own, writable vertex array (as a Bullet app keeps a deforming mesh).
struct OwnShape {
    std::shared_ptr<const Mesh> mesh;
    std::vector<Vec3> vertices;
    std::unique_ptr<btTriangleIndexVertexArray> array;
    std::unique_ptr<btGImpactMeshShape> shape;

    OwnShape(std::shared_ptr<const Mesh> m, std::vector<Vec3> v) : mesh(std::move(m)), vertices(std::move(v)) {
        array = std::make_unique<btTriangleIndexVertexArray>(
            int(mesh->triangleCount()), const_cast<int*>(reinterpret_cast<const int*>(mesh->triangles().data())),
            int(sizeof(UVec3)), int(vertices.size()), reinterpret_cast<btScalar*>(vertices.data()), int(sizeof(Vec3)));
        shape = std::make_unique<btGImpactMeshShape>(array.get());
        shape->updateBound();
    }
    void set(const std::vector<Vec3>& v) {
        vertices = v;  // same size: the array's pointer stays valid
        shape->postUpdate();
        shape->updateBound();
    }
};

struct Point {
    btVector3 a, b;
    btScalar distance;
};

std::vector<Point> contacts(btCollisionWorld& world) {
    std::vector<Point> out;
    btDispatcher* d = world.getDispatcher();
    for (int i = 0; i < d->getNumManifolds(); ++i) {
        const btPersistentManifold* m = d->getManifoldByIndexInternal(i);
        for (int k = 0; k < m->getNumContacts(); ++k) {
            const btManifoldPoint& p = m->getContactPoint(k);
            out.push_back({p.getPositionWorldOnA(), p.getPositionWorldOnB(), p.getDistance()});
        }
    }
    std::sort(out.begin(), out.end(), [](const Point& x, const Point& y) {
        for (int k = 0; k < 3; ++k)
            if (x.a[k] != y.a[k]) return x.a[k] < y.a[k];
        return x.distance < y.distance;
    });
    return out;
}

std::unique_ptr<btCollisionDispatcher> cpuDispatcher(btDefaultCollisionConfiguration& config) {
    return std::make_unique<bullet::CollisionDispatcher>(&config, bullet::DispatcherSettings{.detector = "cpu"});
}

TEST(DeformTest, ContactsFollowTheChangedVerticesExactly) {
    auto rest = std::make_shared<const Mesh>(shapes::subdivided(shapes::box(Vec3(0.5f)), 2));
    auto ground = test::makeGImpact(std::make_shared<const Mesh>(shapes::box(Vec3(3.0f, 0.5f, 3.0f))));
    const std::vector<Vec3> down = stretched(*rest, 0.13f);  // bottom from y = 0.1 to -0.03 (world)

    // The deforming body: 0.1 m above the ground at rest.
    OwnShape body(rest, std::vector<Vec3>(rest->vertices().begin(), rest->vertices().end()));
    btDefaultCollisionConfiguration config{bullet::collisionConstructionInfo()};
    auto dispatcher = cpuDispatcher(config);
    auto* iscDispatcher = static_cast<bullet::CollisionDispatcher*>(dispatcher.get());
    btDbvtBroadphase broadphase;
    btCollisionWorld world(dispatcher.get(), &broadphase, &config);
    btCollisionObject groundObject, bodyObject;
    groundObject.setCollisionShape(ground.shape.get());
    groundObject.setWorldTransform(test::at(0.0f, -0.5f, 0.0f));
    bodyObject.setCollisionShape(body.shape.get());
    bodyObject.setWorldTransform(test::at(0.0f, 0.6f, 0.0f));
    world.addCollisionObject(&groundObject);
    world.addCollisionObject(&bodyObject);

    world.performDiscreteCollisionDetection();
    EXPECT_TRUE(contacts(world).empty());  // 0.1 m apart, margin 0.04

    // Deformed in place but the dispatcher not told: it keeps the vertices it read.
    body.set(down);
    world.performDiscreteCollisionDetection();
    EXPECT_TRUE(contacts(world).empty());

    // Told: the contacts of the stretched body, 3 cm into the ground.
    iscDispatcher->meshVerticesChanged(body.shape.get());
    world.performDiscreteCollisionDetection();
    const std::vector<Point> deformed = contacts(world);
    EXPECT_TRUE(iscDispatcher->warnings().empty());
    ASSERT_FALSE(deformed.empty());
    for (const Point& p : deformed) {
        EXPECT_LT(p.distance, 0.0f);
        EXPECT_GT(p.a.y() + p.b.y(), -0.15f);  // near the ground's top (0) and the new bottom (-0.03)
        EXPECT_LT(p.a.y() + p.b.y(), 0.05f);
    }

    // The same contacts as a shape made at those vertices from the start.
    OwnShape fresh(rest, down);
    btDefaultCollisionConfiguration config2{bullet::collisionConstructionInfo()};
    auto dispatcher2 = cpuDispatcher(config2);
    btDbvtBroadphase broadphase2;
    btCollisionWorld world2(dispatcher2.get(), &broadphase2, &config2);
    btCollisionObject groundObject2, freshObject;
    groundObject2.setCollisionShape(ground.shape.get());
    groundObject2.setWorldTransform(test::at(0.0f, -0.5f, 0.0f));
    freshObject.setCollisionShape(fresh.shape.get());
    freshObject.setWorldTransform(test::at(0.0f, 0.6f, 0.0f));
    world2.addCollisionObject(&groundObject2);
    world2.addCollisionObject(&freshObject);
    world2.performDiscreteCollisionDetection();
    const std::vector<Point> reference = contacts(world2);
    ASSERT_EQ(deformed.size(), reference.size());
    for (std::size_t i = 0; i < deformed.size(); ++i) {
        EXPECT_EQ(deformed[i].a, reference[i].a) << i;
        EXPECT_EQ(deformed[i].b, reference[i].b) << i;
        EXPECT_EQ(deformed[i].distance, reference[i].distance) << i;
    }

    // Back to rest: no contacts again.
    body.set(std::vector<Vec3>(rest->vertices().begin(), rest->vertices().end()));
    iscDispatcher->meshVerticesChanged(body.shape.get());
    world.performDiscreteCollisionDetection();
    EXPECT_TRUE(contacts(world).empty());

    // A change that flattens the bottom layer of vertices onto the one above makes
    // degenerate triangles: warned, the previous (rest) vertices kept.
    std::vector<Vec3> flat(rest->vertices().begin(), rest->vertices().end());
    for (Vec3& p : flat) p.y = std::max(p.y, 0.0f);
    body.set(flat);
    iscDispatcher->meshVerticesChanged(body.shape.get());
    world.performDiscreteCollisionDetection();
    const auto& warnings = iscDispatcher->warnings();
    EXPECT_TRUE(std::any_of(warnings.begin(), warnings.end(), [](const std::string& s) {
        return s.find("changed vertices cannot be used") != std::string::npos;
    }));
    world.removeCollisionObject(&bodyObject);
    world.removeCollisionObject(&groundObject);
    world2.removeCollisionObject(&freshObject);
    world2.removeCollisionObject(&groundObject2);
}

// The contacts of a rigid box's vertices on a deforming one go through the deforming mesh's
// triangle grid, which the dispatcher keeps while the vertices stay within its slack
// (SceneMirror::kDeformingGridSlack) and builds again past it: at every change, the contacts
// are exactly those of a shape made at the new vertices from the start. The deforming box is
// moved within its own frame: up by 3 cm (contacts within the margin), 1.5 cm more (within the
// slack of the grid built at the first change), then 30 cm sideways (past it: a grid kept
// there would list the triangles where they were).
TEST(DeformTest, ContactsOnADeformingMeshFollowItWithinAndPastTheGridsSlack) {
    auto rest = std::make_shared<const Mesh>(shapes::subdivided(shapes::box(Vec3(0.5f)), 2));
    auto top = test::makeGImpact(std::make_shared<const Mesh>(shapes::subdivided(shapes::box(Vec3(0.5f)), 2)));
    const std::vector<Vec3> restVertices(rest->vertices().begin(), rest->vertices().end());
    auto moved = [&](Vec3 by) {
        std::vector<Vec3> v = restVertices;
        for (Vec3& p : v) p += by;
        return v;
    };
    // A world of the deforming box (at the origin, its top at y = 0.5 at rest) and the rigid
    // box above it (bottom at y = 0.56), with the deforming one's shape made at `vertices`.
    struct World {
        btDefaultCollisionConfiguration config{bullet::collisionConstructionInfo()};
        std::unique_ptr<btCollisionDispatcher> dispatcher = cpuDispatcher(config);
        btDbvtBroadphase broadphase;
        btCollisionWorld world{dispatcher.get(), &broadphase, &config};
        OwnShape shape;
        btCollisionObject deforming, rigid;
        World(std::shared_ptr<const Mesh> mesh, std::vector<Vec3> vertices, btCollisionShape* topShape)
            : shape(std::move(mesh), std::move(vertices)) {
            deforming.setCollisionShape(shape.shape.get());
            deforming.setWorldTransform(test::at(0.0f, 0.0f, 0.0f));
            rigid.setCollisionShape(topShape);
            rigid.setWorldTransform(test::at(0.0f, 1.06f, 0.0f));
            world.addCollisionObject(&deforming);
            world.addCollisionObject(&rigid);
        }
        ~World() {
            world.removeCollisionObject(&rigid);
            world.removeCollisionObject(&deforming);
        }
    };
    World changing(rest, restVertices, top.shape.get());
    auto* iscDispatcher = static_cast<bullet::CollisionDispatcher*>(changing.dispatcher.get());
    changing.world.performDiscreteCollisionDetection();
    EXPECT_TRUE(contacts(changing.world).empty());  // 6 cm apart, margin 4 cm

    for (const Vec3 by : {Vec3(0.0f, 0.03f, 0.0f), Vec3(0.0f, 0.045f, 0.0f), Vec3(0.3f, 0.045f, 0.0f)}) {
        changing.shape.set(moved(by));
        iscDispatcher->meshVerticesChanged(changing.shape.shape.get());
        // The last change's points forgotten: the fresh world's manifold starts empty.
        for (int i = 0; i < iscDispatcher->getNumManifolds(); ++i) iscDispatcher->getManifoldByIndexInternal(i)->clearManifold();
        changing.world.performDiscreteCollisionDetection();
        const std::vector<Point> got = contacts(changing.world);
        World fresh(rest, moved(by), top.shape.get());
        fresh.world.performDiscreteCollisionDetection();
        const std::vector<Point> reference = contacts(fresh.world);
        EXPECT_TRUE(iscDispatcher->warnings().empty());
        ASSERT_FALSE(reference.empty()) << "moved by " << by.x << ", " << by.y;
        ASSERT_EQ(got.size(), reference.size()) << "moved by " << by.x << ", " << by.y;
        for (std::size_t i = 0; i < got.size(); ++i) {
            EXPECT_EQ(got[i].a, reference[i].a) << i;
            EXPECT_EQ(got[i].b, reference[i].b) << i;
            EXPECT_EQ(got[i].distance, reference[i].distance) << i;
        }
    }
}

// RigidWorld's deforming bodies: the dispatcher is told on every setBodyVertices; a body
// stretched into the ground gets contacts at once (no gravity, nothing moves by itself).
TEST(DeformTest, RigidWorldBodiesDeformThroughTheDispatcher) {
    bullet::WorldSettings ws;
    ws.detector = "cpu";
    ws.gravity = Vec3(0.0f);
    auto made = bullet::RigidWorld::create(ws);
    ASSERT_TRUE(made) << made.error().message;
    bullet::RigidWorld& world = **made;
    world.addGround(Vec3(3.0f, 0.5f, 3.0f));
    auto rest = std::make_shared<const Mesh>(shapes::subdivided(shapes::box(Vec3(0.5f)), 1));
    const int body = world.addDeformingMeshBody(rest, Pose{Vec3(0.0f, 0.6f, 0.0f)});
    world.step();
    EXPECT_EQ(world.contactCount(), 0);
    world.setBodyVertices(body, stretched(*rest, 0.13f));
    world.step();
    EXPECT_GT(world.contactCount(), 0);
    EXPECT_GT(world.dispatcher()->lastStats().trianglePairs, 0u);
}

}  // namespace
}  // namespace isc
