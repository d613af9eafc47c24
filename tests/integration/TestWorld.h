#pragma once
// A bare btCollisionWorld (no dynamics) with either our dispatcher or Bullet's, and mesh
// shapes made from isc meshes, for the dispatcher-level tests.
#include "isc/bullet/CollisionDispatcher.h"
#include "isc/mesh/Shapes.h"

#include <BulletCollision/Gimpact/btGImpactShape.h>
#include <btBulletCollisionCommon.h>

#include <memory>
#include <vector>

namespace isc::test {

struct MeshShape {
    std::shared_ptr<const Mesh> mesh;
    std::unique_ptr<btTriangleIndexVertexArray> array;
    std::unique_ptr<btGImpactMeshShape> shape;
};

inline MeshShape makeGImpact(std::shared_ptr<const Mesh> mesh) {
    MeshShape m;
    m.mesh = std::move(mesh);
    m.array = std::make_unique<btTriangleIndexVertexArray>(
        int(m.mesh->triangleCount()), const_cast<int*>(reinterpret_cast<const int*>(m.mesh->triangles().data())),
        int(sizeof(UVec3)), int(m.mesh->vertexCount()),
        const_cast<btScalar*>(reinterpret_cast<const btScalar*>(m.mesh->vertices().data())), int(sizeof(Vec3)));
    m.shape = std::make_unique<btGImpactMeshShape>(m.array.get());
    m.shape->updateBound();
    return m;
}

inline btTransform at(float x, float y, float z) {
    btTransform t = btTransform::getIdentity();
    t.setOrigin(btVector3(x, y, z));
    return t;
}

// A collision world; `iscDispatcher` false gives a stock btCollisionDispatcher.
struct CollisionWorld {
    btDefaultCollisionConfiguration config{bullet::collisionConstructionInfo()};
    std::unique_ptr<btCollisionDispatcher> dispatcher;
    btDbvtBroadphase broadphase;
    std::unique_ptr<btCollisionWorld> world;
    std::vector<std::unique_ptr<btCollisionObject>> objects;

    explicit CollisionWorld(std::unique_ptr<btCollisionDispatcher> d) : dispatcher(std::move(d)) {
        world = std::make_unique<btCollisionWorld>(dispatcher.get(), &broadphase, &config);
    }
    ~CollisionWorld() {
        for (auto& o : objects) world->removeCollisionObject(o.get());
        world.reset();
    }
    btCollisionObject* add(btCollisionShape* shape, const btTransform& t) {
        objects.push_back(std::make_unique<btCollisionObject>());
        objects.back()->setCollisionShape(shape);
        objects.back()->setWorldTransform(t);
        world->addCollisionObject(objects.back().get());
        return objects.back().get();
    }
    // The one manifold between two objects (nullptr when none), in Bullet's body order.
    btPersistentManifold* manifold() {
        return dispatcher->getNumManifolds() > 0 ? dispatcher->getManifoldByIndexInternal(0) : nullptr;
    }
};

}  // namespace isc::test
