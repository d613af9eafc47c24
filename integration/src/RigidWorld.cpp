#include "isc/bullet/RigidWorld.h"

#include "isc/bullet/CollisionDispatcher.h"
#include "isc/bullet/CullideBroadphase.h"
#include "isc/core/Assert.h"

#include <BulletCollision/Gimpact/btGImpactCollisionAlgorithm.h>
#include <BulletCollision/Gimpact/btGImpactShape.h>
#include <btBulletDynamicsCommon.h>

#include <chrono>
#include <cmath>
#include <map>

namespace isc::bullet {

namespace {

using Clock = std::chrono::steady_clock;

// The stock dispatcher, timed like ours (only its narrow phase).
class TimedDispatcher : public btCollisionDispatcher {
public:
    using btCollisionDispatcher::btCollisionDispatcher;
    void dispatchAllCollisionPairs(btOverlappingPairCache* cache, const btDispatcherInfo& info,
                                   btDispatcher* dispatcher) override {
        const auto t0 = Clock::now();
        btCollisionDispatcher::dispatchAllCollisionPairs(cache, info, dispatcher);
        lastMs = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    }
    double lastMs = 0.0;
};

}  // namespace

struct RigidWorld::Shared {
    std::unique_ptr<btDefaultCollisionConfiguration> config;
    std::unique_ptr<btCollisionDispatcher> dispatcher;
    TimedDispatcher* stock = nullptr;
    std::unique_ptr<btBroadphaseInterface> broadphase;
    std::unique_ptr<btSequentialImpulseConstraintSolver> solver;
    std::unique_ptr<btDiscreteDynamicsWorld> world;
    struct MeshShape {
        std::unique_ptr<btTriangleIndexVertexArray> array;
        std::unique_ptr<btGImpactMeshShape> shape;
        btVector3 inertiaPerKg;
    };
    std::map<const Mesh*, MeshShape> shapes;
    struct DeformingShape {  // one per deforming body: its own vertices
        std::vector<Vec3> vertices;
        std::unique_ptr<btTriangleIndexVertexArray> array;
        std::unique_ptr<btGImpactMeshShape> shape;
    };
    std::vector<std::unique_ptr<DeformingShape>> deforming;
    std::unique_ptr<btBoxShape> groundShape;
    struct StaticMesh {
        std::shared_ptr<const Mesh> mesh;
        std::unique_ptr<btTriangleIndexVertexArray> array;
        std::unique_ptr<btBvhTriangleMeshShape> shape;
    };
    std::vector<StaticMesh> staticMeshes;
    std::vector<std::unique_ptr<btMotionState>> motion;
    std::vector<std::unique_ptr<btRigidBody>> rigid;
};

Result<std::unique_ptr<RigidWorld>> RigidWorld::create(const WorldSettings& settings) {
    std::unique_ptr<RigidWorld> w(new RigidWorld());
    w->settings_ = settings;
    w->shared_ = std::make_unique<Shared>();
    Shared& s = *w->shared_;
    s.config = std::make_unique<btDefaultCollisionConfiguration>(collisionConstructionInfo());
    if (settings.detector == kBulletGImpact) {
        auto d = std::make_unique<TimedDispatcher>(s.config.get());
        s.stock = d.get();
        btGImpactCollisionAlgorithm::registerAlgorithm(d.get());
        s.dispatcher = std::move(d);
    } else {
        DispatcherSettings ds;
        ds.detector = settings.detector;
        ds.detectorSettings = settings.detectorSettings;
        ds.margin = settings.margin;
        ds.onWarning = settings.onWarning;
        Result<std::unique_ptr<CollisionDispatcher>> d = CollisionDispatcher::create(s.config.get(), ds);
        if (!d) return fail("RigidWorld::create(): " + d.error().message);
        w->iscDispatcher_ = d->get();
        s.dispatcher = std::move(*d);
    }
    if (settings.broadphase == "cullide") {
        CullideBroadphaseSettings bs;  // named, not a designated temporary: GCC 12's -Wmaybe-uninitialized misfires on that
        bs.onWarning = settings.onWarning;
        auto b = CullideBroadphase::create(std::move(bs));
        if (!b) return fail("RigidWorld::create(): " + b.error().message);
        s.broadphase = std::move(*b);
    } else if (settings.broadphase == "dbvt") {
        s.broadphase = std::make_unique<btDbvtBroadphase>();
    } else {
        return fail("RigidWorld::create(): broadphase \"" + settings.broadphase + "\" is unknown; use \"dbvt\" or \"cullide\"");
    }
    s.solver = std::make_unique<btSequentialImpulseConstraintSolver>();
    s.world = std::make_unique<btDiscreteDynamicsWorld>(s.dispatcher.get(), s.broadphase.get(),
                                                        s.solver.get(), s.config.get());
    s.world->setGravity(btVector3(settings.gravity.x, settings.gravity.y, settings.gravity.z));
    btContactSolverInfo& solverInfo = s.world->getSolverInfo();
    solverInfo.m_numIterations = std::max(1, settings.solverIterations);
    solverInfo.m_splitImpulse = true;
    solverInfo.m_splitImpulsePenetrationThreshold = -std::max(0.0f, settings.splitImpulseThreshold);
    solverInfo.m_solverMode |= settings.solverModeFlags;
    gDeactivationTime = settings.deactivationTime;
    w->world_ = s.world.get();
    return w;
}

RigidWorld::~RigidWorld() {
    if (!shared_) return;
    for (auto& r : shared_->rigid) shared_->world->removeRigidBody(r.get());
    shared_->world.reset();  // before the dispatcher, the shapes and the bodies
}

namespace {

// Every body of the world, ground included, gets the same surface material.
void applyMaterial(btRigidBody::btRigidBodyConstructionInfo& ci, const WorldSettings& settings) {
    ci.m_friction = settings.friction;
    ci.m_restitution = settings.restitution;
    ci.m_rollingFriction = settings.rollingFriction;
    ci.m_spinningFriction = settings.spinningFriction;
}

// Dynamic bodies (mesh bodies, rigid or deforming) add damping and sleeping to the material.
void applyDynamics(btRigidBody::btRigidBodyConstructionInfo& ci, const WorldSettings& settings) {
    applyMaterial(ci, settings);
    ci.m_linearDamping = settings.linearDamping;
    ci.m_angularDamping = settings.angularDamping;
    ci.m_linearSleepingThreshold = settings.sleepLinear;
    ci.m_angularSleepingThreshold = settings.sleepAngular;
}

}  // namespace

void RigidWorld::addGround(Vec3 halfExtents, float top) {
    Shared& s = *shared_;
    s.groundShape = std::make_unique<btBoxShape>(btVector3(halfExtents.x, halfExtents.y, halfExtents.z));
    btTransform t = btTransform::getIdentity();
    t.setOrigin(btVector3(0, top - halfExtents.y, 0));
    s.motion.push_back(std::make_unique<btDefaultMotionState>(t));
    btRigidBody::btRigidBodyConstructionInfo ci(0.0f, s.motion.back().get(), s.groundShape.get());
    applyMaterial(ci, settings_);
    s.rigid.push_back(std::make_unique<btRigidBody>(ci));
    s.world->addRigidBody(s.rigid.back().get());
}

void RigidWorld::addStaticMesh(std::shared_ptr<const Mesh> mesh, const Pose& pose) {
    ISC_ASSERT(mesh && mesh->triangleCount() > 0, "RigidWorld::addStaticMesh(): mesh must have triangles");
    Shared& s = *shared_;
    Shared::StaticMesh sm;
    sm.array = std::make_unique<btTriangleIndexVertexArray>(
        int(mesh->triangleCount()), const_cast<int*>(reinterpret_cast<const int*>(mesh->triangles().data())),
        int(sizeof(UVec3)), int(mesh->vertexCount()),
        const_cast<btScalar*>(reinterpret_cast<const btScalar*>(mesh->vertices().data())), int(sizeof(Vec3)));
    sm.shape = std::make_unique<btBvhTriangleMeshShape>(sm.array.get(), true);
    sm.mesh = std::move(mesh);
    btTransform t;
    t.setOrigin(btVector3(pose.position.x, pose.position.y, pose.position.z));
    t.setRotation(btQuaternion(pose.rotation.x, pose.rotation.y, pose.rotation.z, pose.rotation.w));
    s.motion.push_back(std::make_unique<btDefaultMotionState>(t));
    btRigidBody::btRigidBodyConstructionInfo ci(0.0f, s.motion.back().get(), sm.shape.get());
    applyMaterial(ci, settings_);
    s.staticMeshes.push_back(std::move(sm));
    s.rigid.push_back(std::make_unique<btRigidBody>(ci));
    s.world->addRigidBody(s.rigid.back().get());
}

int RigidWorld::addMeshBody(std::shared_ptr<const Mesh> mesh, const Pose& pose, float mass) {
    ISC_ASSERT(mesh && mesh->triangleCount() > 0, "RigidWorld::addMeshBody(): mesh must have triangles");
    Shared& s = *shared_;
    auto it = s.shapes.find(mesh.get());
    if (it == s.shapes.end()) {
        Shared::MeshShape ms;
        // Bullet reads the isc::Mesh arrays in place (Vec3 and UVec3 are packed 3 x 32 bit).
        ms.array = std::make_unique<btTriangleIndexVertexArray>(
            int(mesh->triangleCount()),
            const_cast<int*>(reinterpret_cast<const int*>(mesh->triangles().data())), int(sizeof(UVec3)),
            int(mesh->vertexCount()),
            const_cast<btScalar*>(reinterpret_cast<const btScalar*>(mesh->vertices().data())),
            int(sizeof(Vec3)));
        ms.shape = std::make_unique<btGImpactMeshShape>(ms.array.get());
        ms.shape->setMargin(settings_.margin);
        ms.shape->updateBound();
        ms.shape->calculateLocalInertia(1.0f, ms.inertiaPerKg);
        it = s.shapes.emplace(mesh.get(), std::move(ms)).first;
    }
    btTransform t;
    t.setOrigin(btVector3(pose.position.x, pose.position.y, pose.position.z));
    t.setRotation(btQuaternion(pose.rotation.x, pose.rotation.y, pose.rotation.z, pose.rotation.w));
    s.motion.push_back(std::make_unique<btDefaultMotionState>(t));
    btRigidBody::btRigidBodyConstructionInfo ci(mass, s.motion.back().get(), it->second.shape.get(),
                                                it->second.inertiaPerKg * mass);
    applyDynamics(ci, settings_);
    s.rigid.push_back(std::make_unique<btRigidBody>(ci));
    s.world->addRigidBody(s.rigid.back().get());
    bodies_.push_back({s.rigid.back().get(), std::move(mesh)});
    return int(bodies_.size()) - 1;
}

int RigidWorld::addDeformingMeshBody(std::shared_ptr<const Mesh> mesh, const Pose& pose, float mass) {
    ISC_ASSERT(mesh && mesh->triangleCount() > 0, "RigidWorld::addDeformingMeshBody(): mesh must have triangles");
    Shared& s = *shared_;
    auto d = std::make_unique<Shared::DeformingShape>();
    d->vertices.assign(mesh->vertices().begin(), mesh->vertices().end());
    d->array = std::make_unique<btTriangleIndexVertexArray>(
        int(mesh->triangleCount()), const_cast<int*>(reinterpret_cast<const int*>(mesh->triangles().data())),
        int(sizeof(UVec3)), int(d->vertices.size()), reinterpret_cast<btScalar*>(d->vertices.data()), int(sizeof(Vec3)));
    d->shape = std::make_unique<btGImpactMeshShape>(d->array.get());
    d->shape->setMargin(settings_.margin);
    d->shape->updateBound();
    btVector3 inertiaPerKg;
    d->shape->calculateLocalInertia(1.0f, inertiaPerKg);
    btTransform t;
    t.setOrigin(btVector3(pose.position.x, pose.position.y, pose.position.z));
    t.setRotation(btQuaternion(pose.rotation.x, pose.rotation.y, pose.rotation.z, pose.rotation.w));
    s.motion.push_back(std::make_unique<btDefaultMotionState>(t));
    btRigidBody::btRigidBodyConstructionInfo ci(mass, s.motion.back().get(), d->shape.get(), inertiaPerKg * mass);
    applyDynamics(ci, settings_);
    s.rigid.push_back(std::make_unique<btRigidBody>(ci));
    // A deforming body never sleeps: its surface moves even when the body rests, and a
    // sleeping pair would not be detected.
    s.rigid.back()->setActivationState(DISABLE_DEACTIVATION);
    s.world->addRigidBody(s.rigid.back().get());
    s.deforming.push_back(std::move(d));
    bodies_.push_back({s.rigid.back().get(), std::move(mesh), int(s.deforming.size()) - 1});
    return int(bodies_.size()) - 1;
}

void RigidWorld::setBodyVertices(int body, std::span<const Vec3> vertices) {
    ISC_ASSERT(body >= 0 && std::size_t(body) < bodies_.size(), "RigidWorld::setBodyVertices(): no such body");
    const Body& b = bodies_[std::size_t(body)];
    ISC_ASSERT(b.deforming >= 0, "RigidWorld::setBodyVertices(): the body was not made by addDeformingMeshBody");
    Shared::DeformingShape& d = *shared_->deforming[std::size_t(b.deforming)];
    ISC_ASSERT(vertices.size() == d.vertices.size(), "RigidWorld::setBodyVertices(): vertex count differs from the mesh's");
    std::copy(vertices.begin(), vertices.end(), d.vertices.begin());
    d.shape->postUpdate();
    d.shape->updateBound();
    if (iscDispatcher_) iscDispatcher_->meshVerticesChanged(d.shape.get());
}

StepTimes RigidWorld::step(float dt) {
    const auto t0 = Clock::now();
    shared_->world->stepSimulation(dt, 1, dt);
    StepTimes times;
    times.stepMs = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    times.collisionMs = iscDispatcher_ ? iscDispatcher_->lastStats().totalMs : shared_->stock->lastMs;
    return times;
}

Pose RigidWorld::pose(int body) const {
    const btTransform& t = bodies_[std::size_t(body)].rigid->getWorldTransform();
    const btQuaternion q = t.getRotation();
    Pose p;
    p.position = Vec3(float(t.getOrigin().x()), float(t.getOrigin().y()), float(t.getOrigin().z()));
    p.rotation = Quat(float(q.w()), float(q.x()), float(q.y()), float(q.z()));
    return p;
}

double RigidWorld::speed(int body) const {
    return double(bodies_[std::size_t(body)].rigid->getLinearVelocity().length());
}

double RigidWorld::maxSpeed() const {
    double m = 0.0;
    for (const Body& b : bodies_) m = std::max(m, double(b.rigid->getLinearVelocity().length()));
    return m;
}

double RigidWorld::energy() const {
    double e = 0.0;
    const double g = -double(settings_.gravity.y);
    for (const Body& b : bodies_) {
        const btRigidBody& r = *b.rigid;
        if (r.getInvMass() == 0) continue;
        const double m = 1.0 / double(r.getInvMass());
        const btVector3 v = r.getLinearVelocity();
        const btVector3 wLocal = r.getWorldTransform().getBasis().transpose() * r.getAngularVelocity();
        const btVector3 inv = r.getInvInertiaDiagLocal();
        double rot = 0.0;
        for (int i = 0; i < 3; ++i)
            if (inv[i] > 0) rot += double(wLocal[i] * wLocal[i]) / double(inv[i]);
        e += 0.5 * m * double(v.length2()) + 0.5 * rot + m * g * double(r.getWorldTransform().getOrigin().y());
    }
    return e;
}

bool RigidWorld::hasNonFinite() const {
    for (const Body& b : bodies_) {
        const btVector3 p = b.rigid->getWorldTransform().getOrigin(), v = b.rigid->getLinearVelocity(),
                        w = b.rigid->getAngularVelocity();
        for (int i = 0; i < 3; ++i)
            if (!std::isfinite(p[i]) || !std::isfinite(v[i]) || !std::isfinite(w[i])) return true;
    }
    return false;
}

double RigidWorld::lowestPoint() const {
    double low = INFINITY;
    for (const Body& b : bodies_) {
        const btTransform& t = b.rigid->getWorldTransform();
        const btVector3 row = t.getBasis().getRow(1);
        const double oy = t.getOrigin().y();
        for (const Vec3& v : b.mesh->vertices())
            low = std::min(low, oy + double(row.x() * v.x + row.y() * v.y + row.z() * v.z));
    }
    return low;
}

PenetrationReport RigidWorld::measurePenetration() const { return probe_.measure(*world_); }

std::vector<double> RigidWorld::bodyClearances(double limit) const {
    const std::vector<double> all = probe_.clearances(*world_, limit);
    const btCollisionObjectArray& objects = world_->getCollisionObjectArray();
    std::vector<double> out;
    out.reserve(bodies_.size());
    for (const Body& b : bodies_) {
        const int i = objects.findLinearSearch(b.rigid);
        out.push_back(i < objects.size() ? all[std::size_t(i)] : std::nan(""));
    }
    return out;
}

double RigidWorld::deepestContact() const {
    double pen = 0.0;
    const bool stock = iscDispatcher_ == nullptr;
    btDispatcher* d = shared_->world->getDispatcher();
    for (int i = 0; i < d->getNumManifolds(); ++i) {
        const btPersistentManifold* m = d->getManifoldByIndexInternal(i);
        const auto* a = static_cast<const btCollisionObject*>(m->getBody0());
        const auto* b = static_cast<const btCollisionObject*>(m->getBody1());
        // GImpact swells its meshes by their margins (a box's margin lies inside its extents).
        auto swell = [stock](const btCollisionObject* o) {
            const btCollisionShape* s = o->getCollisionShape();
            return stock && s->getShapeType() == GIMPACT_SHAPE_PROXYTYPE ? double(s->getMargin()) : 0.0;
        };
        const double inflation = swell(a) + swell(b);
        for (int k = 0; k < m->getNumContacts(); ++k)
            pen = std::max(pen, -(double(m->getContactPoint(k).getDistance()) + inflation));
    }
    return pen;
}

int RigidWorld::contactCount() const {
    int n = 0;
    btDispatcher* d = shared_->world->getDispatcher();
    for (int i = 0; i < d->getNumManifolds(); ++i) n += d->getManifoldByIndexInternal(i)->getNumContacts();
    return n;
}

}  // namespace isc::bullet
