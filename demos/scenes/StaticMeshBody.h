#pragma once
/// A static mesh body (an environment such as scenes::Terrain) in an isc::bullet::RigidWorld:
/// a btBvhTriangleMeshShape over the isc::Mesh's arrays (read in place), mass 0, the world's
/// surface material. Header-only so that isc_scenes stays free of Bullet; users link isc::isc.
#include "isc/bullet/RigidWorld.h"
#include "isc/mesh/Mesh.h"

#include <btBulletDynamicsCommon.h>

#include <memory>

namespace isc::scenes {

/// Owns the shape and the body; removes the body from the world when destroyed (destroy it
/// before the RigidWorld).
class StaticMeshBody {
public:
    StaticMeshBody(bullet::RigidWorld& world, std::shared_ptr<const Mesh> mesh, const Pose& pose = {})
        : world_(&world), mesh_(std::move(mesh)) {
        array_ = std::make_unique<btTriangleIndexVertexArray>(
            int(mesh_->triangleCount()), const_cast<int*>(reinterpret_cast<const int*>(mesh_->triangles().data())),
            int(sizeof(UVec3)), int(mesh_->vertexCount()),
            const_cast<btScalar*>(reinterpret_cast<const btScalar*>(mesh_->vertices().data())), int(sizeof(Vec3)));
        shape_ = std::make_unique<btBvhTriangleMeshShape>(array_.get(), true);
        btTransform t;
        t.setOrigin(btVector3(pose.position.x, pose.position.y, pose.position.z));
        t.setRotation(btQuaternion(pose.rotation.x, pose.rotation.y, pose.rotation.z, pose.rotation.w));
        btRigidBody::btRigidBodyConstructionInfo ci(0.0f, nullptr, shape_.get());
        ci.m_startWorldTransform = t;
        const bullet::WorldSettings& s = world.settings();
        ci.m_friction = s.friction;
        ci.m_restitution = s.restitution;
        ci.m_rollingFriction = s.rollingFriction;
        ci.m_spinningFriction = s.spinningFriction;
        body_ = std::make_unique<btRigidBody>(ci);
        world.world().addRigidBody(body_.get());
    }
    ~StaticMeshBody() { world_->world().removeRigidBody(body_.get()); }
    StaticMeshBody(const StaticMeshBody&) = delete;
    StaticMeshBody& operator=(const StaticMeshBody&) = delete;

    btRigidBody* body() { return body_.get(); }

private:
    bullet::RigidWorld* world_;
    std::shared_ptr<const Mesh> mesh_;
    std::unique_ptr<btTriangleIndexVertexArray> array_;
    std::unique_ptr<btBvhTriangleMeshShape> shape_;
    std::unique_ptr<btRigidBody> body_;
};

}  // namespace isc::scenes
