#pragma once
// The collision algorithm of a mesh–mesh body pair. It owns the pair's persistent manifold
// (kept across steps so Bullet's cache matching and warm starting work). In the batched
// path the dispatcher fills the manifold itself; processCollision is the one-pair path
// (contactTest, contactPairTest, compound children, custom near callbacks).
#include <BulletCollision/CollisionDispatch/btActivatingCollisionAlgorithm.h>
#include <BulletCollision/CollisionDispatch/btCollisionCreateFunc.h>

class btPersistentManifold;

namespace isc::bullet {

class CollisionDispatcher;

class MeshPairAlgorithm : public btActivatingCollisionAlgorithm {
public:
    MeshPairAlgorithm(const btCollisionAlgorithmConstructionInfo& ci,
                      const btCollisionObjectWrapper* body0, const btCollisionObjectWrapper* body1);
    ~MeshPairAlgorithm() override;

    void processCollision(const btCollisionObjectWrapper* body0, const btCollisionObjectWrapper* body1,
                          const btDispatcherInfo& info, btManifoldResult* result) override;
    btScalar calculateTimeOfImpact(btCollisionObject*, btCollisionObject*, const btDispatcherInfo&,
                                   btManifoldResult*) override {
        return 1.0f;
    }
    void getAllContactManifolds(btManifoldArray& manifolds) override;

    /// The pair's manifold, made on first use with (body0, body1) as Bullet's body order.
    btPersistentManifold* manifold(const btCollisionObject* body0, const btCollisionObject* body1);

    /// Creates MeshPairAlgorithm in the dispatcher's algorithm pool.
    struct CreateFunc : public btCollisionAlgorithmCreateFunc {
        btCollisionAlgorithm* CreateCollisionAlgorithm(btCollisionAlgorithmConstructionInfo& ci,
                                                       const btCollisionObjectWrapper* body0,
                                                       const btCollisionObjectWrapper* body1) override;
    };

private:
    btPersistentManifold* manifold_ = nullptr;
    // The pair's bodies, as keys only: the dispatcher counts the pairs of each body and
    // forgets a body's mirror when its last pair goes (taken out of the world, or apart).
    const btCollisionObject* body0_ = nullptr;
    const btCollisionObject* body1_ = nullptr;
};

}  // namespace isc::bullet
