#include "isc/bullet/CullideBroadphase.h"

#include "isc/bullet/CollisionDispatcher.h"
#include "isc/core/Assert.h"
#include "isc/detectors/CpuDetector.h"
#include "isc/scene/Scene.h"

#include "SceneMirror.h"
#include "ShapeMesh.h"

#include <BulletCollision/CollisionDispatch/btCollisionObject.h>
#include <BulletCollision/CollisionShapes/btCollisionShape.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <utility>

namespace isc::bullet {

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

}  // namespace

// One mesh shape as tested: swollen by `swell` (the dispatcher's half margin) or as it is.
struct CullideBroadphase::MeshEntry {
    const btCollisionShape* shape = nullptr;
    float swell = 0.0f;
    float margin = 0.0f;        // with our dispatcher: the body's margin (its mirror's key)
    MeshId mesh = 0;
    bool usable = false;
    bool offset = false;        // scene_'s mesh is the shape swollen by `swell` (else the shape as read)
    ShapeMesh real;             // the shape as read (deforming: read again, its topology kept)
    std::uint64_t readAt = 0;   // the shape's change count (meshVerticesChanged) when last read
    std::uint64_t changes = 0;  // queued: its change count this step
    std::uint64_t generation = 0;  // reads after the first that gave vertices
    std::vector<Vec3> vertices;    // generation > 0: its objects' local vertices (swollen if offset)
    bool queued = false;           // in rereads_ this step
};

// One body's object in scene_.
struct CullideBroadphase::Body {
    const btCollisionShape* shape = nullptr;
    float swell = -1.0f;
    float fatten = -1.0f;
    ObjectId object = 0;
    bool usable = false;
    MeshEntry* entry = nullptr;
    std::uint64_t generation = 0;  // the entry's generation its object's vertices are from
};

// settings.validate with a dispatcher other than ours: the pruned pairs tested on their meshes
// grown by each body's fatten (Bullet's contact distance), as that dispatcher sees them.
struct CullideBroadphase::GrownScene {
    Scene scene;
    std::map<std::pair<MeshId, float>, MeshId> meshes;  // (scene_ mesh, fatten) -> grown mesh
    std::vector<std::int64_t> objects;                  // per scene_ object: its object here, -1 none
    std::vector<std::pair<MeshId, float>> made;         // per scene_ object: what it was made from
    std::vector<std::uint64_t> vertexVersion;           // per scene_ object: its deformed vertices' version mirrored

    // The pairs, renumbered into this scene (objects made on demand, poses mirrored).
    std::vector<ObjectPair> mirror(const Scene& from, const std::vector<float>& fatten, std::span<const ObjectPair> pairs) {
        auto object = [&](ObjectId o) {
            const std::pair<MeshId, float> key{from.meshOf(o), fatten[o]};
            if (o >= objects.size())
                objects.resize(o + 1, -1), made.resize(o + 1, {0, -1.0f}), vertexVersion.resize(o + 1, 0);
            if (objects[o] < 0 || made[o] != key) {
                if (objects[o] >= 0) scene.setActive(ObjectId(objects[o]), false);
                auto [it, added] = meshes.try_emplace(key, 0);
                if (added) {
                    std::shared_ptr<const Mesh> mesh = from.meshPtr(key.first);
                    if (key.second > 0.0f) {
                        Mesh grown = swollen(*mesh, key.second);
                        if (grown.triangleCount() == mesh->triangleCount())
                            mesh = std::make_shared<const Mesh>(std::move(grown));
                    }
                    it->second = scene.addMesh(std::move(mesh));
                }
                objects[o] = scene.addObject(it->second);
                made[o] = key;
                vertexVersion[o] = 0;
            }
            // A deforming object: its vertices grown as its mesh was (the same rule).
            if (from.isDeformed(o) && vertexVersion[o] != from.vertexVersion(o)) {
                std::span<const Vec3> v = from.localVertices(o);
                Result<Mesh> deformed = from.mesh(key.first).withVertices(std::vector<Vec3>(v.begin(), v.end()));
                if (deformed) {
                    // (Grown unless growing it failed when the mesh was made: then it is shared.)
                    const bool grown = scene.meshPtr(scene.meshOf(ObjectId(objects[o]))) != from.meshPtr(key.first);
                    scene.setVertices(ObjectId(objects[o]), grown ? swollenVertices(*deformed, key.second)
                                                                  : std::vector<Vec3>(v.begin(), v.end()));
                }
                vertexVersion[o] = from.vertexVersion(o);
            }
            scene.setPose(ObjectId(objects[o]), from.pose(o));
            return ObjectId(objects[o]);
        };
        std::vector<ObjectPair> out;
        out.reserve(pairs.size());
        for (const ObjectPair& p : pairs) {
            const ObjectId a = object(p.a), b = object(p.b);
            out.push_back(a < b ? ObjectPair{a, b} : ObjectPair{b, a});
        }
        return out;
    }
};

Result<std::unique_ptr<CullideBroadphase>> CullideBroadphase::create(CullideBroadphaseSettings settings) {
    auto detector = createCullideDetector({.wantSegments = false}, settings.cullide);
    if (!detector) return fail("CullideBroadphase::create(): " + detector.error().message);
    // Test hook: the old path (pruning before the dispatch) and the new one side by side.
    if (const char* overlap = std::getenv("ISC_CULLIDE_BROADPHASE_OVERLAP"); overlap && *overlap)
        settings.overlap = std::string(overlap) != "0";
    if (const char* inTeam = std::getenv("ISC_CULLIDE_BROADPHASE_IN_TEAM"); inTeam && *inTeam)
        settings.inTeam = std::string(inTeam) != "0";
    std::unique_ptr<CullideBroadphase> b(new CullideBroadphase());
    // Test hook: deforming meshes read by the broadphase itself even where our dispatcher read them.
    if (const char* share = std::getenv("ISC_CULLIDE_BROADPHASE_SHARE_READS"); share && *share)
        b->shareReads_ = std::string(share) != "0";
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
            entry->shape = shape;
            entry->swell = swell;
            entry->margin = ours ? ours->margin(&body) : 0.0f;
            entry->readAt = entry->changes = changesOf(shape, ours);
            const std::string who = describeShape(*shape);
            Result<ShapeMesh> real = readShapeMesh(*shape);
            if (!real) {
                warnOnce("shape:" + who, "CullideBroadphase: " + who +
                                                   " cannot be read; its pairs pass unpruned: " + real.error().message);
            } else {
                std::shared_ptr<const Mesh> mesh = real->mesh;
                if (swell > 0.0f) {
                    // Exactly the dispatcher's offset (SceneMirror), so that both see one surface.
                    Mesh offset = swollen(*real->mesh, swell);
                    if (offset.triangleCount() == real->mesh->triangleCount()) {
                        mesh = std::make_shared<const Mesh>(std::move(offset));
                        entry->offset = true;
                    }
                }
                entry->mesh = scene_->addMesh(std::move(mesh));
                entry->real = std::move(*real);
                entry->usable = true;
            }
        }
        if (entry->usable) {
            b.object = scene_->addObject(entry->mesh);
            fatten_.resize(scene_->objectCount(), 0.0f);
            fatten_[b.object] = fatten;
            b.usable = true;
            b.entry = entry.get();
        }
    }
    if (!b.usable) return -1;
    scene_->setPose(b.object, toPose(body.getWorldTransform()));
    // A deforming mesh: read again once this step when its change count moved (own calls and
    // our dispatcher's); its bodies' objects take the vertices read (applyVertexChanges).
    MeshEntry& e = *b.entry;
    if (const std::uint64_t changes = changesOf(shape, ours); changes != e.readAt && !e.queued) {
        e.changes = changes;
        e.queued = true;
        rereads_.push_back(&e);
    }
    if (e.queued || b.generation != e.generation) deforming_.push_back({&b, &e});
    return b.object;
}

std::uint64_t CullideBroadphase::changesOf(const btCollisionShape* shape, const CollisionDispatcher* ours) const {
    auto it = changes_.empty() ? changes_.end() : changes_.find(shape);
    return (it == changes_.end() ? 0 : it->second) + (ours ? ours->meshVerticesChangedCount(shape) : 0);
}

void CullideBroadphase::meshVerticesChanged(const btCollisionShape* shape) {
    ISC_ASSERT(shape != nullptr, "CullideBroadphase::meshVerticesChanged(): no shape");
    ++changes_[shape];
}

void CullideBroadphase::applyVertexChanges(CollisionDispatcher* ours) {
    // Only the meshes of objects in this step's mesh pairs: the others' objects are not tested
    // this step, and stay queued (read when they are).
    std::vector<char> need(scene_->objectCount(), 0);
    for (const ObjectPair& p : candidates_) need[p.a] = need[p.b] = 1;
    for (MeshEntry* e : rereads_) e->queued = false;  // marked again below where needed
    for (auto [b, e] : deforming_)
        if (need[b->object] && e->changes != e->readAt) e->queued = true;
    std::vector<MeshEntry*> jobs;
    for (MeshEntry* e : rereads_)
        if (e->queued) jobs.push_back(e);
    // Our dispatcher reads the changed shapes of the bodies it mirrors in any case (before its
    // batch): it does that now, and those reads are shared (the same vertices, swollen alike).
    if (!shareReads_) ours = nullptr;
    if (ours && !jobs.empty()) ours->applyVertexChanges();
    // Each mesh read on its own (a deforming pile changes every body's shape every step).
    std::vector<std::string> errors(jobs.size());
    std::vector<char> shared(jobs.size(), 0);
    const auto count = static_cast<std::int64_t>(jobs.size());
#pragma omp parallel for schedule(dynamic, 1) if (count > 1)
    for (std::int64_t k = 0; k < count; ++k) {
        MeshEntry& e = *jobs[std::size_t(k)];
        // (A shape also told to this broadphase may have changed after our dispatcher's read.)
        if (ours && !changes_.contains(e.shape)) {
            const CollisionDispatcher::ChangedVertices v = ours->changedDetectVertices(e.shape, e.margin);
            if (v.offset == e.offset && v.vertices.size() == scene_->mesh(e.mesh).vertexCount()) {
                e.vertices.assign(v.vertices.begin(), v.vertices.end());
                ++e.generation;
                shared[std::size_t(k)] = 1;
                continue;
            }
        }
        Result<std::vector<Vec3>> v = rereadDetectVertices(e.real, *e.shape, e.swell, e.offset);
        if (!v) {
            errors[std::size_t(k)] = v.error().message;
            continue;
        }
        e.vertices = std::move(*v);
        ++e.generation;
    }
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        ++(shared[k] ? stats_.meshesShared : stats_.meshesRead);
        jobs[k]->queued = false;
        jobs[k]->readAt = jobs[k]->changes;  // (a change that cannot be used is not tried again)
        if (errors[k].empty()) continue;
        const std::string who = describeShape(*jobs[k]->shape);
        warnOnce("reread:" + who, "CullideBroadphase: " + who +
                                      ": its changed vertices cannot be used, it keeps the previous ones: " + errors[k]);
    }
    for (auto [b, e] : deforming_)
        if (need[b->object] && b->generation != e->generation) {
            scene_->setVertices(b->object, e->vertices);
            b->generation = e->generation;
        }
    rereads_.clear();
    deforming_.clear();
}

btBroadphaseProxy* CullideBroadphase::createProxy(const btVector3& aabbMin, const btVector3& aabbMax, int shapeType,
                                                  void* userPtr, int collisionFilterGroup, int collisionFilterMask,
                                                  btDispatcher* dispatcher) {
    btBroadphaseProxy* proxy = dbvt_->createProxy(aabbMin, aabbMax, shapeType, userPtr, collisionFilterGroup,
                                                  collisionFilterMask, dispatcher);
    // Bullet passes the collision object as the user pointer (btCollisionWorld::addCollisionObject).
    if (userPtr) proxied_.push_back(static_cast<const btCollisionObject*>(userPtr));
    return proxy;
}

void CullideBroadphase::destroyProxy(btBroadphaseProxy* proxy, btDispatcher* dispatcher) {
    if (pending_) finishNow(dispatcher);  // its candidates name this proxy
    cache_->removeOverlappingPairsContainingProxy(proxy, dispatcher);
    const auto* client = static_cast<const btCollisionObject*>(proxy->m_clientObject);
    if (auto p = std::find(proxied_.begin(), proxied_.end(), client); p != proxied_.end()) {
        *p = proxied_.back();
        proxied_.pop_back();
    }
    if (std::size_t(proxy->m_uniqueId) < objectByProxy_.size()) objectByProxy_[std::size_t(proxy->m_uniqueId)] = -1;
    auto it = bodies_.find(client);
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
    if (pending_) finishNow(dispatcher);  // the last step's dispatch never came
    const auto t0 = Clock::now();
    stats_ = {};
    detectorStats_ = {};
    // Every body's object (pose mirrored), found once per step by its proxy's id.
    std::fill(objectByProxy_.begin(), objectByProxy_.end(), -1);
    for (const btCollisionObject* body : proxied_) {
        const btBroadphaseProxy* proxy = body->getBroadphaseHandle();
        if (!proxy) continue;
        const std::size_t id = std::size_t(proxy->m_uniqueId);
        if (id >= objectByProxy_.size()) objectByProxy_.resize(id + 1, -1);
        objectByProxy_[id] = objectOf(*body, dispatcher);
    }
    fatten_.resize(scene_->objectCount(), 0.0f);
    const double mirrorMs = msSince(t0);
    stats_.mirrorMs = mirrorMs;
    const auto t1 = Clock::now();
    dbvt_->calculateOverlappingPairs(dispatcher);
    stats_.dbvtMs = msSince(t1);
    const auto t2 = Clock::now();

    // The box pairs: mesh pairs become CULLIDE's candidates, the others pass as they are.
    btOverlappingPairCache* boxes = dbvt_->getOverlappingPairCache();
    const int n = boxes->getNumOverlappingPairs();
    const btBroadphasePair* all = boxes->getOverlappingPairArrayPtr();
    stats_.boxPairs = std::size_t(n);
    passed_.clear();
    meshProxies_.clear();
    candidates_.clear();
    auto object = [&](const btBroadphaseProxy* proxy) -> std::int64_t {
        const std::size_t id = std::size_t(proxy->m_uniqueId);
        return id < objectByProxy_.size() ? objectByProxy_[id] : -1;
    };
    for (int i = 0; i < n; ++i) {
        btBroadphaseProxy* p0 = all[i].m_pProxy0;
        btBroadphaseProxy* p1 = all[i].m_pProxy1;
        const std::int64_t o0 = object(p0), o1 = object(p1);
        if (o0 < 0 || o1 < 0 || o0 == o1) {
            passed_.push_back({p0, p1});
            continue;
        }
        candidates_.push_back(o0 < o1 ? ObjectPair{ObjectId(o0), ObjectId(o1)} : ObjectPair{ObjectId(o1), ObjectId(o0)});
        meshProxies_.push_back({p0, p1});
    }
    stats_.meshPairs = candidates_.size();
    stats_.pairsMs = msSince(t2);
    // Deforming meshes: the objects of this step's mesh pairs take their changed vertices
    // (counted in the mirroring's time).
    if (!rereads_.empty() || !deforming_.empty()) {
        const auto tv = Clock::now();
        applyVertexChanges(dynamic_cast<CollisionDispatcher*>(dispatcher));
        stats_.mirrorMs += msSince(tv);
    }

    // settings.overlap: the pruning finishes inside our dispatcher's dispatch (prune()), whose
    // detector then runs while the GPU pass does. Its detector must not use GL (it would run in
    // the middle of the pass, on the same context).
    auto* ours = dynamic_cast<CollisionDispatcher*>(dispatcher);
    const bool overlap = settings_.overlap && ours && !candidates_.empty() &&
                         (!ours->detector() || !ours->detector()->usesGl());
    if (!overlap) computeKeep({});
    const auto tc = Clock::now();

    // The dispatcher's cache: add what passed (existing pairs keep their algorithm and
    // manifold) stamped with this step, then remove what carries an older stamp. With the
    // overlap, of the mesh pairs only those already in the cache (kept last step) stay for now.
    ++stamp_;
    for (const auto& [p0, p1] : passed_)
        if (btBroadphasePair* pair = cache_->addOverlappingPair(p0, p1)) pair->m_internalTmpValue = stamp_;
    if (overlap) {
        inCache_.assign(candidates_.size(), 0);
        for (std::size_t i = 0; i < candidates_.size(); ++i)
            if (btBroadphasePair* pair = cache_->findPair(meshProxies_[i].first, meshProxies_[i].second)) {
                pair->m_internalTmpValue = stamp_;
                inCache_[i] = 1;
            }
    } else {
        for (std::size_t i = 0; i < candidates_.size(); ++i)
            if (keep_[i])
                if (btBroadphasePair* pair = cache_->addOverlappingPair(meshProxies_[i].first, meshProxies_[i].second))
                    pair->m_internalTmpValue = stamp_;
    }
    stale_.clear();
    const btBroadphasePair* mine = cache_->getOverlappingPairArrayPtr();
    for (int i = 0; i < cache_->getNumOverlappingPairs(); ++i)
        if (mine[i].m_internalTmpValue != stamp_) stale_.push_back({mine[i].m_pProxy0, mine[i].m_pProxy1});
    for (const auto& [p0, p1] : stale_) cache_->removeOverlappingPair(p0, p1, dispatcher);
    stats_.passedPairs = std::size_t(cache_->getNumOverlappingPairs());
    stats_.cacheMs = msSince(tc);
    stats_.cullideMs = mirrorMs + msSince(t2);
    if (overlap) {
        pending_ = true;
        stats_.overlapped = true;
        stats_.inTeam = settings_.inTeam && dynamic_cast<CpuDetector*>(ours->detector()) != nullptr;
        deferredTo_ = ours;
        ours->deferPruning(this);
    }
}

void CullideBroadphase::computeKeep(const std::function<void()>& work) {
    const auto tk = Clock::now();
    const double overlapBefore = stats_.overlapMs;
    std::function<void()> todo = work;  // run exactly once, while the first GPU pass runs
    auto runWork = [&] {
        if (!todo) return;
        const auto t = Clock::now();
        std::exchange(todo, {})();
        stats_.overlapMs += msSince(t);
    };
    keep_.assign(candidates_.size(), 1);
    // The object pass over the objects of the mesh pairs, each queried where its box meets
    // its partners': a pair with an object out of the PCS touches nothing.
    bool objectPass = settings_.objectPass && !candidates_.empty();
    if (objectPass) {
        if (auto r = cullide_->beginObjectPcs(*scene_, fatten_, candidates_); !r) {
            warnOnce("begin:" + r.error().message,
                     "CullideBroadphase: the object pass failed, no pair pruned by it: " + r.error().message);
            objectPass = false;
        }
    }
    if (objectPass) {
        runWork();
        std::vector<std::uint8_t> inPcs;
        if (auto r = cullide_->endObjectPcs(inPcs, detectorStats_); !r) {
            warnOnce("end:" + r.error().message,
                     "CullideBroadphase: the object pass failed, no pair pruned by it: " + r.error().message);
        } else {
            for (std::size_t i = 0; i < candidates_.size(); ++i)
                keep_[i] = inPcs[candidates_[i].a] && inPcs[candidates_[i].b];
            for (const std::string& w : detectorStats_.warnings) warnOnce("warning:" + w, "CullideBroadphase: " + w);
        }
        std::size_t left = 0;
        for (char k : keep_) left += k != 0;
        detectorStats_.count("pairs_after_objects", double(left));
    }
    // Deeper levels (clusters, triangles) on the pairs left: the PCS passes per pair.
    if ((settings_.level != CullideLevel::Object || !objectPass) && !candidates_.empty()) {
        std::vector<ObjectPair> left, kept;
        std::vector<std::uint32_t> leftIndex;
        for (std::size_t i = 0; i < candidates_.size(); ++i)
            if (keep_[i]) left.push_back(candidates_[i]), leftIndex.push_back(std::uint32_t(i));
        if (!left.empty()) {
            DetectorStats deeper;
            // Without the object pass, the object level only where it is the level asked for or
            // the settings ask for it (it prunes whole objects only; the cluster level repeats
            // its work per cluster, and each level is one more GPU round trip).
            const bool objectLevel =
                !objectPass && (settings_.level == CullideLevel::Object || settings_.cullide.objectLevel);
            std::function<void()> during;
            if (todo) during = [&] { runWork(); };
            if (auto r = cullide_->prunePairs(*scene_, left, settings_.level, kept, deeper, fatten_, objectLevel, during);
                !r) {
                warnOnce("prune:" + r.error().message,
                         "CullideBroadphase: the PCS passes failed, no pair pruned by them: " + r.error().message);
            } else {
                // `kept` is a subsequence of `left`.
                std::size_t k = 0;
                for (std::size_t j = 0; j < left.size(); ++j) {
                    const bool stays = k < kept.size() && kept[k] == left[j];
                    if (stays) ++k;
                    keep_[leftIndex[j]] = stays;
                }
                for (const std::string& w : deeper.warnings) warnOnce("warning:" + w, "CullideBroadphase: " + w);
                for (const auto& [name, value] : deeper.counters)
                    if (!objectPass || name.rfind("pcs_objects", 0) != 0)
                        detectorStats_.count(name, detectorStats_.counter(name) + value);
                detectorStats_.gpuMs += deeper.gpuMs;
                detectorStats_.readbackMs += deeper.readbackMs;
            }
        }
    }
    runWork();
    stats_.keptMeshPairs = std::size_t(std::count(keep_.begin(), keep_.end(), char(1)));
    stats_.pruneMs = msSince(tk) - (stats_.overlapMs - overlapBefore);
    // (Inside the detector's team, nested parallel regions run on one thread: the check waits
    // for finish(), outside the team.)
    if (exact_ && !stats_.inTeam) validatePruned();
}

void CullideBroadphase::validatePruned() {
    std::vector<ObjectPair> pruned;
    for (std::size_t i = 0; i < candidates_.size(); ++i)
        if (!keep_[i]) pruned.push_back(candidates_[i]);
    if (pruned.empty()) return;
    DetectionOutput out;
    bool grownBy = false;  // another dispatcher: its contact distance is the shapes' margins
    for (const ObjectPair& p : pruned) grownBy = grownBy || fatten_[p.a] > 0.0f || fatten_[p.b] > 0.0f;
    if (grownBy) {
        if (!grown_) grown_ = std::make_unique<GrownScene>();
        const std::vector<ObjectPair> pairs = grown_->mirror(*scene_, fatten_, pruned);
        if (auto r = exact_->detect(grown_->scene, pairs, out); r) stats_.lostPairs = out.pairs.size();
    } else if (auto r = exact_->detect(*scene_, pruned, out); r) {
        stats_.lostPairs = out.pairs.size();
    }
    if (stats_.lostPairs > 0)
        warnOnce("lost", "CullideBroadphase: validate: " + std::to_string(stats_.lostPairs) +
                             " pruned pair(s) are touching (a bug: please report the scene)");
}

void CullideBroadphase::prune(btDispatcher* /*dispatcher*/, const std::function<void()>& work, ProxyPairs& added,
                              ProxyPairs& dropped) {
    added.clear();
    dropped.clear();
    if (!pending_) {  // finished already (finishNow): only the dispatcher's work
        if (work) work();
        return;
    }
    const auto t0 = Clock::now();
    computeKeep(work);
    const double waited = stats_.overlapMs;  // the dispatcher's work, not this pruning's time
    const auto tl = Clock::now();
    // The kept pairs the cache lacked come in (stamped with this step); the cache's pairs that
    // were pruned leave it in finish(), after the dispatch.
    dropped_.clear();
    for (std::size_t i = 0; i < candidates_.size(); ++i) {
        if (keep_[i] && !inCache_[i]) {
            if (btBroadphasePair* pair = cache_->addOverlappingPair(meshProxies_[i].first, meshProxies_[i].second)) {
                pair->m_internalTmpValue = stamp_;
                added.push_back(meshProxies_[i]);
            }
        } else if (!keep_[i] && inCache_[i]) {
            dropped_.push_back(meshProxies_[i]);
        }
    }
    dropped = dropped_;
    stats_.addedLate = added.size();
    stats_.droppedLate = dropped_.size();
    stats_.passedPairs = std::size_t(cache_->getNumOverlappingPairs()) - dropped_.size();
    stats_.lateMs = msSince(tl);
    stats_.cullideMs += msSince(t0) - waited;
}

void CullideBroadphase::finish(btDispatcher* dispatcher) {
    if (!pending_) return;
    if (exact_ && stats_.inTeam) validatePruned();
    const auto t0 = Clock::now();
    for (const auto& [p0, p1] : dropped_) cache_->removeOverlappingPair(p0, p1, dispatcher);
    dropped_.clear();
    pending_ = false;
    deferredTo_ = nullptr;
    stats_.lateMs += msSince(t0);
    stats_.cullideMs += msSince(t0);
}

void CullideBroadphase::finishNow(btDispatcher* dispatcher) {
    if (deferredTo_) deferredTo_->deferPruning(nullptr);  // (alive: it was handed to us this step)
    deferredTo_ = nullptr;
    ProxyPairs added, dropped;
    prune(dispatcher, {}, added, dropped);
    finish(dispatcher);
}

}  // namespace isc::bullet
