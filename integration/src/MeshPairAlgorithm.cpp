#include "MeshPairAlgorithm.h"

#include "isc/bullet/CollisionDispatcher.h"

#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <BulletCollision/CollisionDispatch/btManifoldResult.h>
#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>

namespace isc::bullet {

MeshPairAlgorithm::MeshPairAlgorithm(const btCollisionAlgorithmConstructionInfo& ci,
                                     const btCollisionObjectWrapper* body0,
                                     const btCollisionObjectWrapper* body1)
    : btActivatingCollisionAlgorithm(ci, body0, body1),
      body0_(body0->getCollisionObject()),
      body1_(body1->getCollisionObject()) {
    if (auto* d = dynamic_cast<CollisionDispatcher*>(m_dispatcher)) d->pairMade(body0_, body1_);
}

MeshPairAlgorithm::~MeshPairAlgorithm() {
    if (manifold_) m_dispatcher->releaseManifold(manifold_);
    if (auto* d = dynamic_cast<CollisionDispatcher*>(m_dispatcher)) d->pairGone(body0_, body1_);
}

btPersistentManifold* MeshPairAlgorithm::manifold(const btCollisionObject* body0,
                                                  const btCollisionObject* body1) {
    if (!manifold_) manifold_ = m_dispatcher->getNewManifold(body0, body1);
    return manifold_;
}

void MeshPairAlgorithm::processCollision(const btCollisionObjectWrapper* body0,
                                         const btCollisionObjectWrapper* body1,
                                         const btDispatcherInfo&, btManifoldResult* result) {
    // Only our dispatcher knows the detector; under another one the pair has no contacts.
    auto* dispatcher = dynamic_cast<CollisionDispatcher*>(m_dispatcher);
    if (!dispatcher) return;
    result->setPersistentManifold(manifold(body0->getCollisionObject(), body1->getCollisionObject()));
    dispatcher->collideOnePair(*this, body0, body1, *result);
}

void MeshPairAlgorithm::getAllContactManifolds(btManifoldArray& manifolds) {
    if (manifold_) manifolds.push_back(manifold_);
}

btCollisionAlgorithm* MeshPairAlgorithm::CreateFunc::CreateCollisionAlgorithm(
    btCollisionAlgorithmConstructionInfo& ci, const btCollisionObjectWrapper* body0,
    const btCollisionObjectWrapper* body1) {
    void* memory = ci.m_dispatcher1->allocateCollisionAlgorithm(sizeof(MeshPairAlgorithm));
    return new (memory) MeshPairAlgorithm(ci, body0, body1);
}

}  // namespace isc::bullet
