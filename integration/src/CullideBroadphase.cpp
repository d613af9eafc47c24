#include "isc/bullet/CullideBroadphase.h"

#include "isc/bullet/CollisionDispatcher.h"
#include "isc/detectors/CpuDetector.h"
#include "isc/scene/Scene.h"

#include "SceneMirror.h"
#include "ShapeMesh.h"

#include <BulletCollision/CollisionDispatch/btCollisionObject.h>
#include <BulletCollision/CollisionShapes/btCollisionShape.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <unordered_set>

namespace isc::bullet {

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

std::uint64_t key(const btBroadphaseProxy* a, const btBroadphaseProxy* b) {
    std::uint32_t x = static_cast<std::uint32_t>(a->m_uniqueId), y = static_cast<std::uint32_t>(b->m_uniqueId);
    if (x > y) std::swap(x, y);
    return (std::uint64_t(x) << 32) | y;
}

}  // namespace

// One mesh shape as tested: swollen by `swell` (the dispatcher's half margin) or as it is.
struct CullideBroadphase::MeshEntry {
    MeshId mesh = 0;
    bool usable = false;
};

// One body's object in scene_.
struct CullideBroadphase::Body {
    const btCollisionShape* shape = nullptr;
    float swell = -1.0f;
    float fatten = -1.0f;
    ObjectId object = 0;
    bool usable = false;
};

Result<std::unique_ptr<CullideBroadphase>> CullideBroadphase::create(CullideBroadphaseSettings settings) {
    auto detector = createCullideDetector({.wantSegments = false}, settings.cullide);
    if (!detector) return fail("CullideBroadphase::create(): " + detector.error().message);
    std::unique_ptr<CullideBroadphase> b(new CullideBroadphase());
    b->settings_ = std::move(settings);
    b->cullide_ = std::move(*detector);
    b->dbvt_ = std::make_unique<btDbvtBroadphase>();
    b->cache_ = std::make_unique<btHashedOverlappingPairCache>();
    b->scene_ = std::make_unique<Scene>();
    if (b->settings_.validate) b->exact_ = std::make_unique<CpuDetector>(DetectorSettings{.wantSegments = false});
    return b;
}

CullideBroadphase::~CullideBroadphase() = default;

void CullideBroadphase::setValidate(bool validate) {
    settings_.validate = validate;
    if (validate && !exact_) exact_ = std::make_unique<CpuDetector>(DetectorSettings{.wantSegments = false});
    if (!validate) exact_.reset();
}

bool CullideBroadphase::isMeshShape(const btCollisionShape* shape) {
    switch (shape->getShapeType()) {
        case GIMPACT_SHAPE_PROXYTYPE:
        case TRIANGLE_MESH_SHAPE_PROXYTYPE:
        case CONVEX_TRIANGLEMESH_SHAPE_PROXYTYPE:
            return true;
        default:
            return false;
    }
}

void CullideBroadphase::warnOnce(const std::string& key, const std::string& message) {
    if (std::find(warned_.begin(), warned_.end(), key) != warned_.end()) return;
    warned_.push_back(key);
    if (settings_.onWarning) settings_.onWarning(message);
    else std::fprintf(stderr, "isc warning: %s\n", message.c_str());
}

std::int64_t CullideBroadphase::objectOf(const btCollisionObject& body, btDispatcher* dispatcher) {
    const btCollisionShape* shape = body.getCollisionShape();
    if (!isMeshShape(shape) || !isFinite(body.getWorldTransform())) return -1;
    // As the dispatcher will test it: ours swells each mesh by half its margin (its contact
    // distance is the mean of the two margins); Bullet's own algorithms use each shape's
    // margin in full, so the raw mesh is grown by that much.
    const auto* ours = dynamic_cast<const CollisionDispatcher*>(dispatcher);
    const float swell = ours ? 0.5f * ours->margin(&body) : 0.0f;
    const float fatten = ours ? 0.0f : std::max(0.0f, float(shape->getMargin()));
    std::unique_ptr<Body>& slot = bodies_[&body];
    if (!slot) slot = std::make_unique<Body>();
    Body& b = *slot;
    if (b.shape != shape || b.swell != swell || b.fatten != fatten) {
        if (b.usable) scene_->setActive(b.object, false);  // the old object stays, inactive
        b = Body{};
        b.shape = shape;
        b.swell = swell;
        b.fatten = fatten;
        std::unique_ptr<MeshEntry>& entry = meshes_[{shape, swell}];
        if (!entry) {
            entry = std::make_unique<MeshEntry>();
            std::ostringstream who;
            who << "mesh shape " << shape->getName() << " at " << static_cast<const void*>(shape);
            Result<ShapeMesh> real = readShapeMesh(*shape);
            if (!real) {
                warnOnce("shape:" + who.str(), "CullideBroadphase: " + who.str() +
                                                   " cannot be read; its pairs pass unpruned: " + real.error().message);
            } else {
                std::shared_ptr<const Mesh> mesh = real->mesh;
                if (swell > 0.0f) {
                    // Exactly the dispatcher's offset (SceneMirror), so that both see one surface.
                    Mesh offset = swollen(*real->mesh, swell);
                    if (offset.triangleCount() == real->mesh->triangleCount())
                        mesh = std::make_shared<const Mesh>(std::move(offset));
                }
                entry->mesh = scene_->addMesh(std::move(mesh));
                entry->usable = true;
            }
        }
        if (entry->usable) {
            b.object = scene_->addObject(entry->mesh);
            fatten_.resize(scene_->objectCount(), 0.0f);
            fatten_[b.object] = fatten;
            b.usable = true;
        }
    }
    if (!b.usable) return -1;
    scene_->setPose(b.object, toPose(body.getWorldTransform()));
    return b.object;
}

btBroadphaseProxy* CullideBroadphase::createProxy(const btVector3& aabbMin, const btVector3& aabbMax, int shapeType,
                                                  void* userPtr, int collisionFilterGroup, int collisionFilterMask,
                                                  btDispatcher* dispatcher) {
    return dbvt_->createProxy(aabbMin, aabbMax, shapeType, userPtr, collisionFilterGroup, collisionFilterMask,
                              dispatcher);
}

void CullideBroadphase::destroyProxy(btBroadphaseProxy* proxy, btDispatcher* dispatcher) {
    cache_->removeOverlappingPairsContainingProxy(proxy, dispatcher);
    auto it = bodies_.find(static_cast<const btCollisionObject*>(proxy->m_clientObject));
    if (it != bodies_.end()) {
        if (it->second->usable) scene_->setActive(it->second->object, false);
        bodies_.erase(it);
    }
    dbvt_->destroyProxy(proxy, dispatcher);
}

void CullideBroadphase::setAabb(btBroadphaseProxy* proxy, const btVector3& aabbMin, const btVector3& aabbMax,
                                btDispatcher* dispatcher) {
    dbvt_->setAabb(proxy, aabbMin, aabbMax, dispatcher);
}

void CullideBroadphase::getAabb(btBroadphaseProxy* proxy, btVector3& aabbMin, btVector3& aabbMax) const {
    dbvt_->getAabb(proxy, aabbMin, aabbMax);
}

void CullideBroadphase::rayTest(const btVector3& rayFrom, const btVector3& rayTo, btBroadphaseRayCallback& rayCallback,
                                const btVector3& aabbMin, const btVector3& aabbMax) {
    dbvt_->rayTest(rayFrom, rayTo, rayCallback, aabbMin, aabbMax);
}

void CullideBroadphase::aabbTest(const btVector3& aabbMin, const btVector3& aabbMax,
                                 btBroadphaseAabbCallback& callback) {
    dbvt_->aabbTest(aabbMin, aabbMax, callback);
}

void CullideBroadphase::getBroadphaseAabb(btVector3& aabbMin, btVector3& aabbMax) const {
    dbvt_->getBroadphaseAabb(aabbMin, aabbMax);
}

void CullideBroadphase::resetPool(btDispatcher* dispatcher) { dbvt_->resetPool(dispatcher); }

void CullideBroadphase::printStats() { dbvt_->printStats(); }

void CullideBroadphase::calculateOverlappingPairs(btDispatcher* dispatcher) {
    const auto t0 = Clock::now();
    dbvt_->calculateOverlappingPairs(dispatcher);
    stats_ = {};
    stats_.dbvtMs = msSince(t0);
    const auto t1 = Clock::now();

    // The box pairs: mesh pairs become CULLIDE's candidates, the others pass as they are.
    btOverlappingPairCache* boxes = dbvt_->getOverlappingPairCache();
    const int n = boxes->getNumOverlappingPairs();
    const btBroadphasePair* all = boxes->getOverlappingPairArrayPtr();
    stats_.boxPairs = std::size_t(n);
    std::vector<std::pair<btBroadphaseProxy*, btBroadphaseProxy*>> passed;
    std::vector<std::pair<btBroadphaseProxy*, btBroadphaseProxy*>> meshProxies;
    std::vector<ObjectPair> candidates;
    std::unordered_map<const btCollisionObject*, std::int64_t> objectThisStep;
    auto object = [&](btBroadphaseProxy* proxy) {
        const auto* body = static_cast<const btCollisionObject*>(proxy->m_clientObject);
        auto it = objectThisStep.find(body);
        if (it != objectThisStep.end()) return it->second;
        const std::int64_t o = body ? objectOf(*body, dispatcher) : -1;
        objectThisStep.emplace(body, o);
        return o;
    };
    for (int i = 0; i < n; ++i) {
        btBroadphaseProxy* p0 = all[i].m_pProxy0;
        btBroadphaseProxy* p1 = all[i].m_pProxy1;
        const std::int64_t o0 = object(p0), o1 = object(p1);
        if (o0 < 0 || o1 < 0 || o0 == o1) {
            passed.push_back({p0, p1});
            continue;
        }
        candidates.push_back(o0 < o1 ? ObjectPair{ObjectId(o0), ObjectId(o1)} : ObjectPair{ObjectId(o1), ObjectId(o0)});
        meshProxies.push_back({p0, p1});
    }
    stats_.meshPairs = candidates.size();

    // CULLIDE's PCS passes; on failure nothing is pruned this step.
    std::vector<ObjectPair> kept;
    std::vector<char> keep(candidates.size(), 1);
    if (!candidates.empty()) {
        fatten_.resize(scene_->objectCount(), 0.0f);
        if (auto r = cullide_->prunePairs(*scene_, candidates, settings_.level, kept, detectorStats_, fatten_); !r) {
            warnOnce("prune:" + r.error().message,
                     "CullideBroadphase: the PCS passes failed, no pair pruned: " + r.error().message);
        } else {
            // `kept` is a subsequence of `candidates`.
            std::size_t k = 0;
            for (std::size_t i = 0; i < candidates.size(); ++i) {
                keep[i] = k < kept.size() && kept[k] == candidates[i];
                if (keep[i]) ++k;
            }
            for (const std::string& w : detectorStats_.warnings) warnOnce("warning:" + w, "CullideBroadphase: " + w);
        }
    } else {
        detectorStats_ = {};
    }
    std::vector<ObjectPair> pruned;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        if (keep[i]) {
            passed.push_back(meshProxies[i]);
            ++stats_.keptMeshPairs;
        } else {
            pruned.push_back(candidates[i]);
        }
    }
    if (exact_ && !pruned.empty()) {
        DetectionOutput out;
        if (auto r = exact_->detect(*scene_, pruned, out); r) stats_.lostPairs = out.pairs.size();
        if (stats_.lostPairs > 0)
            warnOnce("lost", "CullideBroadphase: validate: " + std::to_string(stats_.lostPairs) +
                                 " pruned pair(s) are touching (a bug: please report the scene)");
    }

    // The dispatcher's cache: add what passed (existing pairs keep their algorithm and
    // manifold), remove what no longer does.
    std::unordered_set<std::uint64_t> wanted;
    wanted.reserve(passed.size() * 2);
    for (const auto& [p0, p1] : passed) {
        wanted.insert(key(p0, p1));
        cache_->addOverlappingPair(p0, p1);
    }
    std::vector<std::pair<btBroadphaseProxy*, btBroadphaseProxy*>> stale;
    const btBroadphasePair* mine = cache_->getOverlappingPairArrayPtr();
    for (int i = 0; i < cache_->getNumOverlappingPairs(); ++i)
        if (!wanted.contains(key(mine[i].m_pProxy0, mine[i].m_pProxy1)))
            stale.push_back({mine[i].m_pProxy0, mine[i].m_pProxy1});
    for (const auto& [p0, p1] : stale) cache_->removeOverlappingPair(p0, p1, dispatcher);
    stats_.passedPairs = std::size_t(cache_->getNumOverlappingPairs());
    stats_.cullideMs = msSince(t1);
}

}  // namespace isc::bullet
