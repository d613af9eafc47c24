#include "viewer/DemoSession.h"

#include "DetectorArgs.h"
#include "DetectorChoice.h"

#include "isc/bullet/CollisionDispatcher.h"
#include "isc/detect/AutoDetector.h"

#include <btBulletDynamicsCommon.h>

#include <algorithm>

namespace isc::tool {

namespace {

// A body's dynamic state, carried from one world to the next on a detector switch.
struct BodyState {
    btTransform transform;
    btVector3 linear, angular;
    int activation = ACTIVE_TAG;
    btScalar deactivationTime = 0;
};

std::vector<BodyState> saveBodies(bullet::RigidWorld& w) {
    std::vector<BodyState> out;
    for (int b = 0; b < w.bodyCount(); ++b) {
        const btRigidBody* r = w.rigidBody(b);
        out.push_back({r->getWorldTransform(), r->getLinearVelocity(), r->getAngularVelocity(),
                       r->getActivationState(), r->getDeactivationTime()});
    }
    return out;
}

void restoreBodies(bullet::RigidWorld& w, const std::vector<BodyState>& states) {
    const int n = std::min(w.bodyCount(), int(states.size()));
    for (int b = 0; b < n; ++b) {
        btRigidBody* r = w.rigidBody(b);
        const BodyState& s = states[std::size_t(b)];
        r->setWorldTransform(s.transform);
        r->setInterpolationWorldTransform(s.transform);
        if (r->getMotionState() != nullptr) r->getMotionState()->setWorldTransform(s.transform);
        r->setLinearVelocity(s.linear);
        r->setAngularVelocity(s.angular);
        r->setInterpolationLinearVelocity(s.linear);
        r->setInterpolationAngularVelocity(s.angular);
        r->forceActivationState(s.activation);
        r->setDeactivationTime(s.deactivationTime);
    }
    // The broadphase sees the new boxes before the next step.
    w.world().updateAabbs();
}

const AutoDetector* findAuto(bullet::RigidWorld& w) {
    bullet::CollisionDispatcher* d = w.dispatcher();
    return d != nullptr ? dynamic_cast<const AutoDetector*>(d->detector()) : nullptr;
}

}  // namespace

Result<std::unique_ptr<DemoSession>> DemoSession::create(Demo& demo, std::string detector, OptionList options,
                                                         int bodies, std::uint32_t seed) {
    std::unique_ptr<DemoSession> s(new DemoSession(demo, std::move(detector), std::move(options), bodies, seed));
    auto world = s->build(s->detector_);
    if (!world) return fail(world.error().message);
    s->world_ = std::move(*world);
    return s;
}

Result<std::unique_ptr<bullet::RigidWorld>> DemoSession::build(const std::string& detector) const {
    DemoSetup setup;
    setup.world.detector = detector;
    setup.world.detectorSettings.options = optionsFor(detector, options_);
    setup.bodies = bodies_;
    setup.seed = seed_;
    return demo_.build(setup);
}

Result<void> DemoSession::step() {
    ++steps_;
    demo_.beforeStep(*world_, steps_);
    const bullet::StepTimes t = world_->step(1.0f / 60.0f);
    if (world_->hasNonFinite()) return fail("a body's state became NaN at step " + std::to_string(steps_));
    demo_.afterStep(*world_, steps_);
    sumStepMs_ += t.stepMs;
    sumCollisionMs_ += t.collisionMs;
    maxPenetration_ = std::max(maxPenetration_, world_->maxPenetration());
    StepSample s;
    s.step = steps_;
    s.stepMs = t.stepMs;
    s.collisionMs = t.collisionMs;
    if (const bullet::CollisionDispatcher* d = world_->dispatcher()) {
        s.detectMs = d->lastStats().detectMs;
        s.contactsMs = d->lastStats().contactsMs;
        s.mirrorMs = d->lastStats().mirrorMs;
        s.gpuMs = d->lastDetectorStats().gpuMs;
    }
    s.contacts = world_->contactCount();
    history_.push_back(s);
    while (history_.size() > kHistory) history_.pop_front();
    return {};
}

Result<void> DemoSession::switchDetector(const std::string& detector) {
    if (auto ok = checkDetectorName(detector, true); !ok) return ok;
    const std::vector<BodyState> states = saveBodies(*world_);
    auto world = build(detector);
    if (!world) return fail(world.error().message);
    world_ = std::move(*world);
    restoreBodies(*world_, states);
    detector_ = detector;
    autoReportedRound_ = 0;
    return {};
}

Result<void> DemoSession::reset(int bodies) {
    const int old = bodies_;
    bodies_ = std::max(1, bodies);
    auto world = build(detector_);
    if (!world) {
        bodies_ = old;
        return fail(world.error().message);
    }
    world_ = std::move(*world);
    steps_ = 0;
    sumStepMs_ = sumCollisionMs_ = maxPenetration_ = 0.0;
    history_.clear();
    autoReportedRound_ = 0;
    return {};
}

void DemoSession::syncScene() {
    Scene& scene = demo_.scene();
    const int n = std::min(world_->bodyCount(), int(scene.objectCount()));
    for (int b = 0; b < n; ++b) scene.setPose(ObjectId(b), world_->pose(b));
}

std::vector<render::LineVertex> DemoSession::contactLines(float normalLength) const {
    std::vector<render::LineVertex> v;
    btDispatcher* d = world_->world().getDispatcher();
    const Vec4 pointColor(1.0f, 1.0f, 0.3f, 1.0f), normalColor(0.2f, 1.0f, 0.9f, 1.0f);
    const float c = 0.25f * normalLength;  // half size of the cross
    for (int i = 0; i < d->getNumManifolds(); ++i) {
        const btPersistentManifold* m = d->getManifoldByIndexInternal(i);
        for (int k = 0; k < m->getNumContacts(); ++k) {
            const btManifoldPoint& p = m->getContactPoint(k);
            const btVector3& b = p.getPositionWorldOnB();
            const Vec3 at(float(b.x()), float(b.y()), float(b.z()));
            const Vec3 n(float(p.m_normalWorldOnB.x()), float(p.m_normalWorldOnB.y()), float(p.m_normalWorldOnB.z()));
            for (const Vec3& axis : {Vec3(c, 0, 0), Vec3(0, c, 0), Vec3(0, 0, c)}) {
                v.push_back({Vec4(at - axis, 1.0f), pointColor});
                v.push_back({Vec4(at + axis, 1.0f), pointColor});
            }
            v.push_back({Vec4(at, 1.0f), normalColor});
            v.push_back({Vec4(at + n * normalLength, 1.0f), normalColor});
        }
    }
    return v;
}

std::string DemoSession::runningDetector() const {
    if (const AutoDetector* a = findAuto(*world_)) return std::string(a->current());
    return detector_;
}

std::string DemoSession::detectorLine() const {
    if (const AutoDetector* a = findAuto(*world_)) return a->describe();
    const OptionList own = optionsFor(detector_, options_);
    return own.empty() ? detector_ : detector_ + " (" + describeOptions(own) + ")";
}

void DemoSession::reportDetector(std::FILE* out) {
    std::fprintf(out, "detector: %s\n", detectorLine().c_str());
    std::fflush(out);
    const AutoDetector* a = findAuto(*world_);
    autoReportedRound_ = a != nullptr && a->decided() ? a->rounds() : 0;
}

bool DemoSession::autoChoicePending() const {
    const AutoDetector* a = findAuto(*world_);
    return a != nullptr && a->decided() && a->rounds() != autoReportedRound_;
}

void DemoSession::reportAutoChoice(std::FILE* out) {
    if (!autoChoicePending()) return;
    const AutoDetector* a = findAuto(*world_);
    std::fprintf(out, "detector: %s\n", a->describe().c_str());
    std::fflush(out);
    autoReportedRound_ = a->rounds();
}

std::vector<DetectorDebugView> DemoSession::debugViews() {
    bullet::CollisionDispatcher* d = world_->dispatcher();
    return d != nullptr && d->detector() != nullptr ? d->detector()->debugViews() : std::vector<DetectorDebugView>{};
}

DemoRun DemoSession::run() const {
    DemoRun r;
    r.detector = runningDetector();
    r.automatic = findAuto(*world_) != nullptr;
    r.bodies = bodies_;
    r.steps = steps_;
    r.meanStepMs = steps_ > 0 ? sumStepMs_ / steps_ : 0.0;
    r.meanCollisionMs = steps_ > 0 ? sumCollisionMs_ / steps_ : 0.0;
    r.maxPenetration = maxPenetration_;
    return r;
}

}  // namespace isc::tool
