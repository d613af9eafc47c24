// A minimal Bullet app using the installed package: one line differs from stock Bullet
// (the dispatcher). A box mesh falls onto a static box mesh and must come to rest on it.
#include <isc/bullet/CollisionDispatcher.h>

#include <BulletCollision/Gimpact/btGImpactShape.h>
#include <btBulletDynamicsCommon.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

static btGImpactMeshShape* boxMesh(btTriangleMesh& tris, float h) {
    const btVector3 v[8] = {{-h, -h, -h}, {h, -h, -h}, {h, h, -h}, {-h, h, -h},
                            {-h, -h, h},  {h, -h, h},  {h, h, h},  {-h, h, h}};
    const int f[12][3] = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
                          {3, 7, 6}, {3, 6, 2}, {0, 4, 7}, {0, 7, 3}, {1, 2, 6}, {1, 6, 5}};
    for (const auto& t : f) tris.addTriangle(v[t[0]], v[t[1]], v[t[2]]);
    auto* shape = new btGImpactMeshShape(&tris);
    shape->updateBound();
    return shape;
}

int main() {
    btDefaultCollisionConfiguration config;
    isc::bullet::CollisionDispatcher dispatcher(&config, {.detector = "cpu"});  // the one line
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &config);
    world.setGravity({0, -9.81f, 0});

    btTriangleMesh groundTris, boxTris;
    std::unique_ptr<btGImpactMeshShape> groundShape(boxMesh(groundTris, 1.0f));
    std::unique_ptr<btGImpactMeshShape> boxShape(boxMesh(boxTris, 0.25f));
    btDefaultMotionState groundMotion(btTransform(btQuaternion::getIdentity(), {0, -1, 0}));
    btRigidBody ground(0.0f, &groundMotion, groundShape.get());
    btVector3 inertia;
    boxShape->calculateLocalInertia(1.0f, inertia);
    btDefaultMotionState boxMotion(btTransform(btQuaternion::getIdentity(), {0, 0.5f, 0}));
    btRigidBody box(1.0f, &boxMotion, boxShape.get(), inertia);
    world.addRigidBody(&ground);
    world.addRigidBody(&box);
    for (int i = 0; i < 180; ++i) {
        world.stepSimulation(1.0f / 60.0f, 0);
        if (std::getenv("ISC_CONSUMER_TRACE")) {
            int points = 0;
            for (int m = 0; m < dispatcher.getNumManifolds(); ++m)
                points += dispatcher.getManifoldByIndexInternal(m)->getNumContacts();
            const auto& st = dispatcher.lastStats();
            std::printf("step %d y=%.4f pairs=%d manifolds=%d points=%d mesh_pairs=%zu colliding=%zu tri=%zu cand=%zu added=%zu\n", i,
                        box.getWorldTransform().getOrigin().y(),
                        world.getPairCache()->getNumOverlappingPairs(), dispatcher.getNumManifolds(), points,
                        st.meshPairs, st.collidingPairs, st.trianglePairs, st.candidates, st.contactsAdded);
        }
    }
    const float y = box.getWorldTransform().getOrigin().y();
    std::printf("box centre y=%.4f (resting: 0.25), manifolds=%d\n", y, dispatcher.getNumManifolds());
    for (const std::string& w : dispatcher.warnings()) std::printf("warning: %s\n", w.c_str());
    world.removeRigidBody(&box);
    world.removeRigidBody(&ground);
    return (y > 0.15f && y < 0.35f) ? 0 : 1;
}
