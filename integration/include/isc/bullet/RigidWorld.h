#pragma once
/// A small Bullet rigid-body world of mesh bodies on a ground box, with the measurements
/// the demos, benchmarks and stability tests share (step and collision time, speed,
/// energy, penetration measured from the poses alone: PenetrationProbe). Collision goes either through isc::bullet::CollisionDispatcher
/// with a named detector, or through stock Bullet GImpact ("bullet-gimpact").
#include "isc/bullet/DispatchStats.h"
#include "isc/bullet/DispatcherSettings.h"
#include "isc/bullet/PenetrationProbe.h"
#include "isc/core/Math.h"
#include "isc/core/Result.h"
#include "isc/mesh/Mesh.h"

#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <string>
#include <vector>

class btDiscreteDynamicsWorld;
class btRigidBody;

namespace isc::bullet {

class CollisionDispatcher;

/// Name of the stock-Bullet path: btGImpactMeshShape + btGImpactCollisionAlgorithm through
/// a plain btCollisionDispatcher.
inline constexpr const char* kBulletGImpact = "bullet-gimpact";

struct WorldSettings {
    /// A detector name for isc::createDetector ("auto" by default: DispatcherSettings::detector),
    /// or kBulletGImpact.
    std::string detector = "auto";
    /// Options given to the detector (DispatcherSettings::detectorSettings); ignored on the
    /// stock GImpact path. For "peel" in a pile: docs/integration.md says which to use.
    DetectorSettings detectorSettings{};
    /// Collision margin of mesh bodies, metres: the dispatcher's margin, or the GImpact
    /// shapes' margin on the stock path (GImpact's own default is 0.1).
    float margin = 0.04f;
    Vec3 gravity{0.0f, -9.81f, 0.0f};
    float friction = 0.6f;
    float restitution = 0.0f;
    /// Rolling friction of every body (Bullet's btCollisionObject::setRollingFriction, a
    /// length: the lever of the resisting torque per unit of normal force, combined per
    /// contact as r0 f1 + f0 r1). Bullet's default is 0; 0.03 here: without any rolling
    /// resistance a rigid bunny rocking on its rounded back loses no energy (rolling
    /// contact does no work) and the pile rocks for seconds (see docs/integration.md).
    float rollingFriction = 0.03f;
    /// Spinning (torsional) friction of every body, a length like rollingFriction. 0: Bullet's default.
    float spinningFriction = 0.0f;
    /// Velocity damping of every dynamic body (btRigidBody::setDamping: the fraction of
    /// velocity lost per second). 0: Bullet's default.
    float linearDamping = 0.0f, angularDamping = 0.0f;
    /// Sleeping (btRigidBody::setSleepingThresholds, m/s and rad/s): a body below both for
    /// `deactivationTime` seconds may sleep, and an island sleeps when all its bodies may.
    float sleepLinear = 0.8f, sleepAngular = 1.0f;
    /// Seconds below the sleeping thresholds before a body may sleep. Bullet keeps this in
    /// the global gDeactivationTime (2 s by default): RigidWorld::create sets that global
    /// (for every world of the process). 1 s here (see docs/integration.md).
    float deactivationTime = 1.0f;
    /// Solver iterations per step (btContactSolverInfo::m_numIterations). 10: Bullet's default.
    int solverIterations = 10;
    /// Penetration deeper than this (metres, >= 0) is removed by split impulse (a separate
    /// position correction that adds no velocity); shallower by Baumgarte velocity (ERP),
    /// which does. Bullet's default is 0.04 (m_splitImpulsePenetrationThreshold = -0.04);
    /// 0 here: every correction is split, so pushing bodies apart never adds kinetic
    /// energy (with 0.04, 2 of 6 seeds of the 30-bunny pile still moved at 5 s).
    float splitImpulseThreshold = 0.0f;
    /// Bullet solver flags added to btContactSolverInfo::m_solverMode (SOLVER_* of
    /// btContactSolverInfo.h, e.g. SOLVER_USE_2_FRICTION_DIRECTIONS = 16); 0: Bullet's default mode.
    int solverModeFlags = 0;
    /// Where dispatcher warnings go (empty: stderr).
    std::function<void(std::string_view)> onWarning;
    /// "dbvt" (btDbvtBroadphase) or "cullide" (isc::bullet::CullideBroadphase with its default
    /// settings: box pairs of mesh bodies pruned on the GPU; needs a current GL context).
    std::string broadphase = "dbvt";
};

/// Timings of one step (wall clock, milliseconds).
struct StepTimes {
    double stepMs = 0.0;       ///< the whole stepSimulation call
    double collisionMs = 0.0;  ///< the dispatcher's dispatchAllCollisionPairs (narrow phase)
};

class RigidWorld {
public:
    /// Errors: a detector that cannot be created (its message).
    [[nodiscard]] static Result<std::unique_ptr<RigidWorld>> create(const WorldSettings& settings);
    ~RigidWorld();
    RigidWorld(const RigidWorld&) = delete;
    RigidWorld& operator=(const RigidWorld&) = delete;

    /// A static box whose top face is the plane y = top.
    void addGround(Vec3 halfExtents, float top = 0.0f);
    /// A static triangle mesh at `pose` as a Bullet app adds its level geometry: a
    /// btBvhTriangleMeshShape (open meshes welcome: a terrain). Kept alive by the world.
    void addStaticMesh(std::shared_ptr<const Mesh> mesh, const Pose& pose = {});
    /// A dynamic body of `mesh` (kept alive by the world; shapes are shared per mesh) at
    /// `pose`, `mass` kg. Returns its index. A mesh with no triangle is a programmer error.
    int addMeshBody(std::shared_ptr<const Mesh> mesh, const Pose& pose, float mass = 1.0f);
    /// A dynamic body like addMeshBody, but with its own btGImpactMeshShape over its own copy
    /// of the vertices, so that setBodyVertices can deform it (mass properties: the rest shape's).
    int addDeformingMeshBody(std::shared_ptr<const Mesh> mesh, const Pose& pose, float mass = 1.0f);
    /// New local vertices (as many as the mesh has, same triangles) of a body made by
    /// addDeformingMeshBody, as a Bullet app deforms a GImpact mesh: written into the shape's
    /// vertex array, `postUpdate()` and `updateBound()` (the broadphase box follows), and
    /// CollisionDispatcher::meshVerticesChanged. Takes effect on the next step. The
    /// measurements from poses (maxPenetration, lowestPoint, bodyClearances) still use the
    /// rest mesh.
    void setBodyVertices(int body, std::span<const Vec3> vertices);
    /// Advances one fixed step of `dt` seconds.
    StepTimes step(float dt = 1.0f / 60.0f);

    int bodyCount() const { return int(bodies_.size()); }
    Pose pose(int body) const;
    btRigidBody* rigidBody(int body) { return bodies_[std::size_t(body)].rigid; }
    btDiscreteDynamicsWorld& world() { return *world_; }
    /// The isc dispatcher, or null on the stock GImpact path.
    CollisionDispatcher* dispatcher() { return iscDispatcher_; }
    const WorldSettings& settings() const { return settings_; }

    /// Linear speed of one body, m/s.
    double speed(int body) const;
    /// Largest linear speed of any body, m/s.
    double maxSpeed() const;
    /// Kinetic (linear + rotational) plus potential energy (above y = 0), joules.
    double energy() const;
    /// True when a position or velocity is NaN or Inf.
    bool hasNonFinite() const;
    /// Lowest world y over every vertex of every body (exact, O(vertices)).
    double lowestPoint() const;
    /// Penetration now, metres, measured from the bodies' poses alone (PenetrationProbe: the
    /// deepest vertex of any body inside another body, the ground or a static mesh, as its
    /// distance to that surface). The same measurement for every detector and for stock
    /// GImpact; costs about one exact detection of the world (sample it every few steps in
    /// benchmarks).
    double maxPenetration() const { return measurePenetration().maxDepth; }
    /// The whole measurement behind maxPenetration().
    PenetrationReport measurePenetration() const;
    /// Per body (addMeshBody order): the least gap to any other body, the ground or a static
    /// mesh (PenetrationProbe::clearances), at most `limit` metres; negative: into it.
    std::vector<double> bodyClearances(double limit) const;
    /// The deepest contact point in the dispatcher's (or GImpact's) manifolds, as real surface
    /// distance (GImpact's distances are to surfaces swollen by both margins: added back).
    /// What the solver is told, not what is: a missed contact reads as none. For comparison
    /// with maxPenetration().
    double deepestContact() const;
    /// Contact points in all manifolds now.
    int contactCount() const;

private:
    RigidWorld() = default;
    struct Body {
        btRigidBody* rigid = nullptr;
        std::shared_ptr<const Mesh> mesh;
        int deforming = -1;  ///< index of its own shape (addDeformingMeshBody), else -1
    };
    struct Shared;
    WorldSettings settings_;
    std::unique_ptr<Shared> shared_;
    btDiscreteDynamicsWorld* world_ = nullptr;
    CollisionDispatcher* iscDispatcher_ = nullptr;
    std::vector<Body> bodies_;
    mutable PenetrationProbe probe_;
};

}  // namespace isc::bullet
