#include "isc/bullet/CollisionDispatcher.h"

#include "isc/core/Assert.h"
#include "isc/detect/Registry.h"
#include "isc/detectors/CpuDetector.h"

#include "MeshPairAlgorithm.h"
#include "SceneMirror.h"
#include "PatchContacts.h"

#include <BulletCollision/BroadphaseCollision/btOverlappingPairCache.h>
#include <BulletCollision/CollisionDispatch/btCollisionObject.h>
#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <BulletCollision/CollisionDispatch/btManifoldResult.h>
#include <BulletCollision/CollisionShapes/btCompoundShape.h>
#include <BulletCollision/Gimpact/btGImpactCollisionAlgorithm.h>
#include <LinearMath/btPoolAllocator.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <omp.h>
#include <sstream>
#include <unordered_map>

namespace isc::bullet {

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::uint64_t pairKey(ObjectId a, ObjectId b) { return (std::uint64_t(a) << 32) | b; }

std::string describe(const btCollisionObject* body) {
    std::ostringstream s;
    s << "body " << static_cast<const void*>(body) << " (" << body->getCollisionShape()->getName() << ")";
    return s.str();
}

// A marker in m_index1 of the manifold's cached points: the points that no new contact
// replaced this step still carry it and are removed (the patch is evaluated whole).
constexpr int kStale = -0x7ffffff0;

void markStale(btPersistentManifold* manifold) {
    for (int i = 0; i < manifold->getNumContacts(); ++i) manifold->getContactPoint(i).m_index1 = kStale;
}

void dropStale(btPersistentManifold* manifold) {
    for (int i = manifold->getNumContacts() - 1; i >= 0; --i)
        if (manifold->getContactPoint(i).m_index1 == kStale) manifold->removeContactPoint(i);
}

// Puts the reduced patch contacts into the manifold of `result`: each replaces the cached
// point nearest to it (Bullet's cache matching keeps its accumulated impulses, so warm
// starting works).
std::size_t emitPatch(btManifoldResult& result, std::span<const MeshContact> chosen) {
    for (const MeshContact& c : chosen) {
        result.setShapeIdentifiersA(c.partA, c.indexA);
        result.setShapeIdentifiersB(c.partB, c.indexB);
        result.addContactPoint(c.normalOnB, c.pointOnB, c.distance);
    }
    return chosen.size();
}

}  // namespace

btDefaultCollisionConstructionInfo collisionConstructionInfo() {
    btDefaultCollisionConstructionInfo ci;
    ci.m_customCollisionAlgorithmMaxElementSize =
        int(std::max(sizeof(MeshPairAlgorithm), sizeof(btGImpactCollisionAlgorithm)));
    return ci;
}

struct CollisionDispatcher::Batch {
    struct Entry {
        MeshPairAlgorithm* algorithm = nullptr;
        btCollisionObject* body0 = nullptr;
        btCollisionObject* body1 = nullptr;
        const MirroredBody* mirror0 = nullptr;
        const MirroredBody* mirror1 = nullptr;
        float pairMargin = 0.0f;
        float halfMargin0 = 0.0f, halfMargin1 = 0.0f;  // each mesh is swollen by this
        std::vector<std::uint32_t> results;  // indices into output.pairs
        bool dropped = false;                // pruned by a deferred pruning: left alone, leaves the cache
    };
    // The reduced patch of one entry, made in parallel before anything goes to Bullet.
    struct Patch {
        std::size_t candidates = 0;
        bool fromSamples = false;
        std::uint32_t count = 0;
        MeshContact chosen[4];
    };
    struct Candidate {
        std::uint32_t entry = 0;
        const MirroredPart* part0 = nullptr;  // of body 0
        const MirroredPart* part1 = nullptr;  // of body 1
        bool swapped = false;                 // candidates[i].a is part1's object
    };
    std::vector<Entry> entries;
    std::vector<ObjectPair> candidates;  // for the detector
    std::vector<ObjectPair> exact;       // for the exact path (see DispatchStats::fallbackPairs)
    std::vector<Candidate> info;
    std::unordered_map<std::uint64_t, std::uint32_t> index;
    DetectionOutput output;       // the detector's, then the exact path's pairs appended
    DetectionOutput exactOutput;  // the exact path's
    DetectionOutput lateOutput;   // the detector's on the pairs a deferred pruning added
    std::vector<std::uint32_t> candidateOf;  // per output pair: index into info
    std::vector<Patch> patches;              // per entry
    std::vector<PatchContacts> scratch;      // per OpenMP thread

    void clear() {
        entries.clear();
        candidates.clear();
        exact.clear();
        info.clear();
        index.clear();
    }
};

CollisionDispatcher::CollisionDispatcher(btCollisionConfiguration* config, DispatcherSettings settings)
    : btCollisionDispatcher(config), settings_(std::move(settings)) {
    DetectorSettings ds = settings_.detectorSettings;
    ds.wantSegments = ds.validate;
    Result<std::unique_ptr<Detector>> d = createDetector(settings_.detector, ds);
    if (d) {
        detector_ = std::move(*d);
        madeDetector_ = true;
    } else {
        detectorError_ = "CollisionDispatcher: detector '" + settings_.detector +
                         "' could not be created, mesh-mesh pairs get no contacts: " + d.error().message;
    }
    init();
}

CollisionDispatcher::CollisionDispatcher(btCollisionConfiguration* config, std::unique_ptr<Detector> detector,
                                         DispatcherSettings settings)
    : btCollisionDispatcher(config), settings_(std::move(settings)), detector_(std::move(detector)) {
    if (detector_) settings_.detector = std::string(detector_->name());
    else detectorError_ = "CollisionDispatcher: no detector given, mesh-mesh pairs get no contacts";
    init();
}

CollisionDispatcher::~CollisionDispatcher() = default;

Result<std::unique_ptr<CollisionDispatcher>> CollisionDispatcher::create(btCollisionConfiguration* config,
                                                                        DispatcherSettings settings) {
    DetectorSettings ds = settings.detectorSettings;
    ds.wantSegments = ds.validate;
    Result<std::unique_ptr<Detector>> d = createDetector(settings.detector, ds);
    if (!d) return fail("CollisionDispatcher::create(): " + d.error().message);
    auto made = std::make_unique<CollisionDispatcher>(config, std::move(*d), std::move(settings));
    made->madeDetector_ = true;  // made from the settings, as the other constructor does
    return made;
}

void CollisionDispatcher::setDetector(std::unique_ptr<Detector> detector) {
    ISC_ASSERT(detector != nullptr, "CollisionDispatcher::setDetector(): null detector");
    use(std::move(detector), false);
}

void CollisionDispatcher::use(std::unique_ptr<Detector> detector, bool made) {
    if (detector_ && madeDetector_) kept_.push_back(std::move(detector_));
    detector_ = std::move(detector);
    madeDetector_ = made;
    settings_.detector = std::string(detector_->name());
    detectorError_.clear();
    // The view depends on the detector (open meshes); algorithms and manifolds do not.
    batch_ = std::make_unique<Batch>();
    selectView();
}

void CollisionDispatcher::selectView() {
    const bool closed = detector_ && detector_->needsClosedMeshes();
    View& v = views_[closed ? 1 : 0];
    if (!v.mirror)
        v.mirror = std::make_unique<SceneMirror>(
            closed, 0.5f * settings_.maxTriangleDepth,
            [this](const std::string& key, const std::string& message) { warnOnce(key, message); });
    mirror_ = v.mirror.get();
}

Detector& CollisionDispatcher::exact() {
    View& v = views_[mirror_ == views_[1].mirror.get() ? 1 : 0];
    if (!v.exact) {
        DetectorSettings ds;
        ds.wantSegments = false;
        ds.selfCollision = settings_.detectorSettings.selfCollision;
        v.exact = std::make_unique<CpuDetector>(ds);
    }
    return *v.exact;
}

Result<void> CollisionDispatcher::switchDetector(std::string_view name) {
    if (detector_ && madeDetector_ && detector_->name() == name) return {};  // already in use
    // One made before: re-used as it is (the settings are the dispatcher's, unchanged).
    for (auto it = kept_.begin(); it != kept_.end(); ++it)
        if ((*it)->name() == name) {
            std::unique_ptr<Detector> d = std::move(*it);
            kept_.erase(it);
            use(std::move(d), true);
            return {};
        }
    DetectorSettings ds = settings_.detectorSettings;
    ds.wantSegments = ds.validate;
    Result<std::unique_ptr<Detector>> d = createDetector(name, ds);
    if (!d) return fail("CollisionDispatcher::switchDetector(): " + d.error().message);
    use(std::move(*d), true);
    return {};
}

void CollisionDispatcher::releaseKeptDetectors() { kept_.clear(); }

void CollisionDispatcher::init() {
    batch_ = std::make_unique<Batch>();
    selectView();
    if (!detectorError_.empty()) warnOnce("detector", detectorError_);

    meshCreateFunc_ = std::make_unique<MeshPairAlgorithm::CreateFunc>();
    const int meshTypes[] = {GIMPACT_SHAPE_PROXYTYPE, TRIANGLE_MESH_SHAPE_PROXYTYPE,
                             CONVEX_TRIANGLEMESH_SHAPE_PROXYTYPE};
    for (int a : meshTypes) {
        for (int b : meshTypes) {
            registerCollisionCreateFunc(a, b, meshCreateFunc_.get());
            registerClosestPointsCreateFunc(a, b, meshCreateFunc_.get());
        }
        // A mesh against a box: the box is read as a 12-triangle mesh (see docs/integration.md).
        registerCollisionCreateFunc(a, BOX_SHAPE_PROXYTYPE, meshCreateFunc_.get());
        registerCollisionCreateFunc(BOX_SHAPE_PROXYTYPE, a, meshCreateFunc_.get());
        registerClosestPointsCreateFunc(a, BOX_SHAPE_PROXYTYPE, meshCreateFunc_.get());
        registerClosestPointsCreateFunc(BOX_SHAPE_PROXYTYPE, a, meshCreateFunc_.get());
    }
    // A GImpact mesh against a plane: Bullet's default pairs two concave shapes with the
    // empty algorithm, so GImpact's own algorithm handles it. Against convex shapes the
    // default convex-concave algorithm stays (its manifolds persist; GImpact's do not).
    gimpactCreateFunc_ = std::make_unique<btGImpactCollisionAlgorithm::CreateFunc>();
    registerCollisionCreateFunc(GIMPACT_SHAPE_PROXYTYPE, STATIC_PLANE_PROXYTYPE, gimpactCreateFunc_.get());
    registerCollisionCreateFunc(STATIC_PLANE_PROXYTYPE, GIMPACT_SHAPE_PROXYTYPE, gimpactCreateFunc_.get());
    registerClosestPointsCreateFunc(GIMPACT_SHAPE_PROXYTYPE, STATIC_PLANE_PROXYTYPE, gimpactCreateFunc_.get());
    registerClosestPointsCreateFunc(STATIC_PLANE_PROXYTYPE, GIMPACT_SHAPE_PROXYTYPE, gimpactCreateFunc_.get());
}

void CollisionDispatcher::pairMade(const btCollisionObject* body0, const btCollisionObject* body1) {
    ++pairsOf_[body0];
    ++pairsOf_[body1];
}

void CollisionDispatcher::pairGone(const btCollisionObject* body0, const btCollisionObject* body1) {
    for (const btCollisionObject* b : {body0, body1}) {
        auto it = pairsOf_.find(b);
        if (it == pairsOf_.end() || --it->second > 0) continue;
        // Its last mesh pair: out of the world (perhaps about to be deleted), or apart from
        // every mesh body. Its mirror goes; it is made again (re-using the scene objects) if
        // the body meets a mesh again.
        pairsOf_.erase(it);
        for (View& v : views_)
            if (v.mirror) v.mirror->release(b);
    }
}

CollisionDispatcher::Tables CollisionDispatcher::tables() const {
    Tables t;
    if (mirror_) {
        const MirrorTables m = mirror_->tables();
        t.bodies = m.bodies;
        t.meshes = m.meshes;
        t.sceneObjects = m.sceneObjects;
        t.sceneMeshes = m.sceneMeshes;
    }
    t.bodiesInPairs = pairsOf_.size();
    t.keptDetectors = kept_.size() + (detector_ ? 1 : 0);
    return t;
}

const DetectorStats& CollisionDispatcher::lastDetectorStats() const { return batch_->output.stats; }

void CollisionDispatcher::warnOnce(const std::string& key, const std::string& message) {
    if (std::find(warnedKeys_.begin(), warnedKeys_.end(), key) != warnedKeys_.end()) return;
    warnedKeys_.push_back(key);
    warnings_.push_back(message);
    if (settings_.onWarning) settings_.onWarning(message);
    else std::fprintf(stderr, "isc warning: %s\n", message.c_str());
}

void* CollisionDispatcher::allocateCollisionAlgorithm(int size) {
    btPoolAllocator* pool = m_collisionAlgorithmPoolAllocator;
    if (pool->getFreeCount() > 0 && size <= pool->getElementSize()) return pool->allocate(size);
    // Too big for the pool (Bullet checks this only in debug builds) or the pool is full.
    return btAlignedAlloc(std::size_t(size), 16);
}

void CollisionDispatcher::setMargin(const btCollisionObject* body, float margin) {
    margins_[body] = std::max(0.0f, margin);
}

float CollisionDispatcher::margin(const btCollisionObject* body) const {
    auto it = margins_.find(body);
    return it == margins_.end() ? settings_.margin : it->second;
}

bool CollisionDispatcher::isMeshShape(const btCollisionShape* shape) {
    switch (shape->getShapeType()) {
        case GIMPACT_SHAPE_PROXYTYPE:
        case TRIANGLE_MESH_SHAPE_PROXYTYPE:
        case CONVEX_TRIANGLEMESH_SHAPE_PROXYTYPE:
            return true;
        case COMPOUND_SHAPE_PROXYTYPE: {
            const auto* c = static_cast<const btCompoundShape*>(shape);
            if (c->getNumChildShapes() == 0) return false;
            for (int i = 0; i < c->getNumChildShapes(); ++i) {
                const int t = c->getChildShape(i)->getShapeType();
                if (t != GIMPACT_SHAPE_PROXYTYPE && t != TRIANGLE_MESH_SHAPE_PROXYTYPE &&
                    t != CONVEX_TRIANGLEMESH_SHAPE_PROXYTYPE)
                    return false;
            }
            return true;
        }
        default:
            return false;
    }
}

bool CollisionDispatcher::isMeshPair(const btCollisionShape* a, const btCollisionShape* b) {
    const bool meshA = isMeshShape(a), meshB = isMeshShape(b);
    return (meshA && (meshB || b->getShapeType() == BOX_SHAPE_PROXYTYPE)) ||
           (meshB && a->getShapeType() == BOX_SHAPE_PROXYTYPE);
}

namespace {

struct PairWalk : public btOverlapCallback {
    std::function<bool(btBroadphasePair&)> visit;
    bool processOverlap(btBroadphasePair& pair) override { return visit(pair); }
};

}  // namespace

void CollisionDispatcher::dispatchAllCollisionPairs(btOverlappingPairCache* pairCache,
                                                    const btDispatcherInfo& info, btDispatcher* dispatcher) {
    const auto t0 = Clock::now();
    stats_ = {};
    DeferredPruning* const deferred = std::exchange(deferred_, nullptr);
    // A custom near callback (collision filtering) sees every pair as in Bullet; mesh pairs
    // then take the one-pair path of MeshPairAlgorithm.
    if (getNearCallback() != &btCollisionDispatcher::defaultNearCallback) {
        if (deferred) {  // the pruning first, with nothing to overlap
            DeferredPruning::ProxyPairs added, dropped;
            deferred->prune(this, {}, added, dropped);
            deferred->finish(this);
        }
        btCollisionDispatcher::dispatchAllCollisionPairs(pairCache, info, dispatcher);
        stats_.bulletMs = stats_.totalMs = msSince(t0);
        return;
    }

    applyVertexChanges();
    Batch& batch = *batch_;
    batch.clear();
    double bulletMs = 0.0;
    PairWalk walk;
    walk.visit = [&](btBroadphasePair& pair) {
        auto* body0 = static_cast<btCollisionObject*>(pair.m_pProxy0->m_clientObject);
        auto* body1 = static_cast<btCollisionObject*>(pair.m_pProxy1->m_clientObject);
        if (!needsCollision(body0, body1)) return false;
        if (isMeshPair(body0->getCollisionShape(), body1->getCollisionShape())) {
            if (!pair.m_algorithm) {
                btCollisionAlgorithmConstructionInfo ci(this, 0);
                const btCollisionObjectWrapper w0(nullptr, body0->getCollisionShape(), body0,
                                                  body0->getWorldTransform(), -1, -1);
                const btCollisionObjectWrapper w1(nullptr, body1->getCollisionShape(), body1,
                                                  body1->getWorldTransform(), -1, -1);
                pair.m_algorithm = new (allocateCollisionAlgorithm(sizeof(MeshPairAlgorithm)))
                    MeshPairAlgorithm(ci, &w0, &w1);
            }
            if (auto* algorithm = dynamic_cast<MeshPairAlgorithm*>(pair.m_algorithm)) {
                gather(batch, *algorithm, body0, body1);
                return false;
            }
        }
        const auto tb = Clock::now();
        (*getNearCallback())(pair, *this, info);
        bulletMs += msSince(tb);
        return false;
    };
    batch.output.clear();
    pairCache->processAllOverlappingPairs(&walk, dispatcher, info);
    stats_.mirrorMs = msSince(t0) - bulletMs;
    if (!deferred) {
        detectBatch(batch, 0, batch.output);
    } else {
        // The detector runs on the walked pairs while the broadphase prunes (after its GPU pass
        // is queued); then the pairs it kept that the cache lacked are detected, and those it
        // pruned are left alone: the same pairs detected, with the same answers, as when it
        // pruned before the dispatch.
        DeferredPruning::ProxyPairs added, dropped;
        auto* cpu = dynamic_cast<CpuDetector*>(detector_.get());
        if (cpu && deferred->pruneInTeam()) {
            // The pruning (GL: set-up, issue, read-back) on this thread as a member of the
            // detector's team, the team's other threads detecting meanwhile (no thread more
            // than the team, so none is starved: cullide-9's worker thread was).
            bool pruned = false;
            cpu->runAlongside([&] {
                deferred->prune(this, {}, added, dropped);
                pruned = true;
            });
            detectBatch(batch, 0, batch.output);
            if (!pruned) {  // no detect() call (no pairs): the pruning alone
                cpu->runAlongside({});
                deferred->prune(this, {}, added, dropped);
            }
        } else {
            deferred->prune(this, [&] { detectBatch(batch, 0, batch.output); }, added, dropped);
        }
        const std::size_t firstLate = batch.candidates.size();
        for (const auto& [p0, p1] : added)
            if (btBroadphasePair* pair = pairCache->findPair(p0, p1)) walk.visit(*pair);
        if (batch.candidates.size() > firstLate) {
            detectBatch(batch, firstLate, batch.lateOutput);
            for (PairResult& pr : batch.lateOutput.pairs) batch.output.pairs.push_back(std::move(pr));
        }
        if (!dropped.empty()) {
            auto key = [](const void* a, const void* b) { return a < b ? std::pair(a, b) : std::pair(b, a); };
            std::vector<std::pair<const void*, const void*>> gone;
            for (const auto& [p0, p1] : dropped) gone.push_back(key(p0->m_clientObject, p1->m_clientObject));
            std::sort(gone.begin(), gone.end());
            for (Batch::Entry& e : batch.entries)
                e.dropped = std::binary_search(gone.begin(), gone.end(), key(e.body0, e.body1));
        }
    }
    stats_.bulletMs = bulletMs;
    runBatch(batch);
    if (deferred) deferred->finish(this);
    stats_.totalMs = msSince(t0);
}

void CollisionDispatcher::detectBatch(Batch& batch, std::size_t first, DetectionOutput& out) {
    out.clear();
    if (batch.candidates.size() <= first) return;
    const auto t0 = Clock::now();
    const std::span<const ObjectPair> candidates = std::span<const ObjectPair>(batch.candidates).subspan(first);
    Result<void> r = detector_->detect(mirror_->scene(), candidates, out);
    for (const std::string& w : out.stats.warnings) warnOnce("detector-warning:" + w, w);
    if (!r) {
        warnOnce("detect:" + r.error().message,
                 "detector '" + settings_.detector + "' failed this step: " + r.error().message +
                     "; its pairs go to the exact 'cpu' detector (DispatchStats::fallbackPairs)");
        out.pairs.clear();
        batch.exact.insert(batch.exact.end(), candidates.begin(), candidates.end());
    } else if (!out.unserved.empty()) {
        warnOnce("unserved", "detector '" + settings_.detector + "' returned " +
                                 std::to_string(out.unserved.size()) +
                                 " pairs unserved (DetectionOutput::unserved: an open mesh, an id "
                                 "overflow or a buffer limit; its warnings say which): they go to the "
                                 "exact 'cpu' detector (DispatchStats::fallbackPairs)");
        batch.exact.insert(batch.exact.end(), out.unserved.begin(), out.unserved.end());
    }
    stats_.detectMs += msSince(t0);
}

void CollisionDispatcher::meshVerticesChanged(const btCollisionShape* shape) {
    ISC_ASSERT(shape != nullptr, "CollisionDispatcher::meshVerticesChanged(): no shape");
    if (std::find(changedShapes_.begin(), changedShapes_.end(), shape) == changedShapes_.end())
        changedShapes_.push_back(shape);
    ++changeCounts_[shape];
    if (shape->getShapeType() == COMPOUND_SHAPE_PROXYTYPE) {
        const auto* c = static_cast<const btCompoundShape*>(shape);
        for (int i = 0; i < c->getNumChildShapes(); ++i) ++changeCounts_[c->getChildShape(i)];
    }
}

std::uint64_t CollisionDispatcher::meshVerticesChangedCount(const btCollisionShape* shape) const {
    if (changeCounts_.empty()) return 0;  // (asked per body and step: a rigid world pays no lookup)
    auto it = changeCounts_.find(shape);
    return it == changeCounts_.end() ? 0 : it->second;
}

CollisionDispatcher::ChangedVertices CollisionDispatcher::changedDetectVertices(const btCollisionShape* shape,
                                                                              float margin) const {
    const MirroredMesh* m = mirror_ ? mirror_->inUse(shape, margin) : nullptr;
    if (!m || m->version == 0) return {};
    return {m->detectVertices, m->offset};
}

void CollisionDispatcher::applyVertexChanges() {
    if (changedShapes_.empty() || !mirror_) return;
    // Compound shapes: their children are the mirrored meshes.
    std::vector<const btCollisionShape*> meshes;
    for (const btCollisionShape* shape : changedShapes_) {
        if (shape->getShapeType() == COMPOUND_SHAPE_PROXYTYPE) {
            const auto* c = static_cast<const btCompoundShape*>(shape);
            for (int i = 0; i < c->getNumChildShapes(); ++i) meshes.push_back(c->getChildShape(i));
        } else {
            meshes.push_back(shape);
        }
    }
    for (View& v : views_)
        if (v.mirror) v.mirror->verticesChanged(meshes);
    changedShapes_.clear();
}

void CollisionDispatcher::gather(Batch& batch, MeshPairAlgorithm& algorithm, btCollisionObject* body0,
                                 btCollisionObject* body1) {
    btPersistentManifold* manifold = algorithm.manifold(body0, body1);
    for (const btCollisionObject* b : {body0, body1}) {
        if (!isFinite(b->getWorldTransform())) {
            warnOnce("nan:" + describe(b),
                     describe(b) + " has a non-finite world transform (NaN or Inf): it gets no "
                                   "mesh contacts until its transform is finite");
            clearManifold(manifold);
            return;
        }
    }
    const float margin0 = margin(body0), margin1 = margin(body1);
    const MirroredBody& m0 = mirror_->body(*body0, margin0);
    const MirroredBody& m1 = mirror_->body(*body1, margin1);
    if (!m0.usable || !m1.usable || !detector_) {
        clearManifold(manifold);
        return;
    }
    Batch::Entry e;
    e.algorithm = &algorithm;
    e.body0 = body0;
    e.body1 = body1;
    e.mirror0 = &m0;
    e.mirror1 = &m1;
    e.pairMargin = 0.5f * (margin0 + margin1);
    e.halfMargin0 = 0.5f * margin0;
    e.halfMargin1 = 0.5f * margin1;
    if (manifold->getContactBreakingThreshold() < e.pairMargin)
        manifold->setContactBreakingThreshold(e.pairMargin);
    const auto entry = std::uint32_t(batch.entries.size());
    batch.entries.push_back(std::move(e));
    for (const MirroredPart& p0 : m0.parts) {
        for (const MirroredPart& p1 : m1.parts) {
            // Skip child pairs whose swollen bounds are apart (compounds).
            if (m0.parts.size() * m1.parts.size() > 1 &&
                !mirror_->scene().worldBounds(p0.object).overlaps(mirror_->scene().worldBounds(p1.object)))
                continue;
            Batch::Candidate c;
            c.entry = entry;
            c.part0 = &p0;
            c.part1 = &p1;
            c.swapped = p1.object < p0.object;
            const ObjectPair op = c.swapped ? ObjectPair{p1.object, p0.object} : ObjectPair{p0.object, p1.object};
            batch.index[pairKey(op.a, op.b)] = std::uint32_t(batch.info.size());
            // A mesh the detector cannot take (open, for one that needs closed meshes): the
            // pair goes to the exact path, never dropped.
            if (p0.mesh->exactOnly || p1.mesh->exactOnly) batch.exact.push_back(op);
            else batch.candidates.push_back(op);
            batch.info.push_back(c);
        }
    }
}

void CollisionDispatcher::runBatch(Batch& batch) {
    stats_.meshPairs = std::size_t(std::count_if(batch.entries.begin(), batch.entries.end(),
                                                 [](const Batch::Entry& e) { return !e.dropped; }));
    if (batch.entries.empty()) return;
    auto t0 = Clock::now();
    if (!batch.exact.empty()) {
        t0 = Clock::now();
        stats_.fallbackPairs = batch.exact.size();
        Result<void> r = exact().detect(mirror_->scene(), batch.exact, batch.exactOutput);
        for (const std::string& w : batch.exactOutput.stats.warnings) warnOnce("detector-warning:" + w, w);
        if (!r) warnOnce("exact:" + r.error().message, "the exact 'cpu' detector failed this step: " + r.error().message);
        for (PairResult& pr : batch.exactOutput.pairs) batch.output.pairs.push_back(std::move(pr));
        stats_.fallbackMs = msSince(t0);
    }
    t0 = Clock::now();

    batch.candidateOf.assign(batch.output.pairs.size(), 0);
    for (std::uint32_t i = 0; i < batch.output.pairs.size(); ++i) {
        const PairResult& r = batch.output.pairs[i];
        auto it = batch.index.find(pairKey(r.pair.a, r.pair.b));
        if (it == batch.index.end()) continue;
        batch.candidateOf[i] = it->second;
        batch.entries[batch.info[it->second].entry].results.push_back(i);
        stats_.trianglePairs += r.triangles.size();
    }
    // The two meshes of output pair `ri` of entry `e`, posed this step; returns its candidate.
    auto posed = [&](const Batch::Entry& e, std::uint32_t ri, PosedMesh& s0,
                     PosedMesh& s1) -> const Batch::Candidate& {
        const Batch::Candidate& c = batch.info[batch.candidateOf[ri]];
        s0 = {&c.part0->mesh->real, &c.part0->mesh->grid, e.body0->getWorldTransform() * c.part0->local,
              c.part0->childIndex};
        s1 = {&c.part1->mesh->real, &c.part1->mesh->grid, e.body1->getWorldTransform() * c.part1->local,
              c.part1->childIndex};
        return c;
    };

    // The patch walks and their reduction, in parallel over body pairs: they only read the
    // meshes, grids, poses and detector output, each thread with its own PatchContacts.
    const int entryCount = int(batch.entries.size());
    batch.patches.assign(batch.entries.size(), Batch::Patch{});
    if (batch.scratch.size() < std::size_t(omp_get_max_threads())) batch.scratch.resize(omp_get_max_threads());
#pragma omp parallel for schedule(dynamic) if (entryCount > 1)
    for (int i = 0; i < entryCount; ++i) {
        const Batch::Entry& e = batch.entries[std::size_t(i)];
        if (e.results.empty() || e.dropped) continue;
        PatchContacts& patch = batch.scratch[std::size_t(omp_get_thread_num())];
        patch.begin(e.pairMargin, settings_.maxTriangleDepth);
        Batch::Patch& out = batch.patches[std::size_t(i)];
        for (std::uint32_t ri : e.results) {
            PosedMesh s0, s1;
            const Batch::Candidate& c = posed(e, ri, s0, s1);
            const PairResult& r = batch.output.pairs[ri];
            // A pair with contact samples gets its contacts from them alone.
            if (!r.samples.empty()) {
                patch.addSamples(s0, s1, r.samples, c.swapped, e.halfMargin0, e.halfMargin1);
                out.fromSamples = true;
            } else {
                patch.add(s0, s1, r.triangles, c.swapped);
            }
        }
        out.candidates = patch.candidates().size();
        const std::span<const MeshContact> chosen = patch.reduce();
        out.count = std::uint32_t(chosen.size());
        std::copy(chosen.begin(), chosen.end(), out.chosen);
    }

    // Into Bullet, on this thread in pair order (addContactPoint, the contact-added callback
    // and refreshContactPoints are not thread-safe): each pair's samples, then its patch.
    for (std::size_t i = 0; i < batch.entries.size(); ++i) {
        const Batch::Entry& e = batch.entries[i];
        if (e.dropped) continue;  // leaves the cache with its manifold (DeferredPruning::finish)
        btPersistentManifold* manifold = e.algorithm->manifold(e.body0, e.body1);
        if (e.results.empty()) {
            clearManifold(manifold);
            continue;
        }
        ++stats_.collidingPairs;
        const btCollisionObjectWrapper w0(nullptr, e.body0->getCollisionShape(), e.body0,
                                          e.body0->getWorldTransform(), -1, -1);
        const btCollisionObjectWrapper w1(nullptr, e.body1->getCollisionShape(), e.body1,
                                          e.body1->getWorldTransform(), -1, -1);
        btManifoldResult result(&w0, &w1);
        result.setPersistentManifold(manifold);
        markStale(manifold);
        const Batch::Patch& p = batch.patches[i];
        stats_.candidates += p.candidates;
        stats_.samplePairs += p.fromSamples;
        const std::size_t added = emitPatch(result, std::span<const MeshContact>(p.chosen, p.count));
        dropStale(manifold);
        stats_.contactsAdded += added;
        if (added == 0) clearManifold(manifold);
        else result.refreshContactPoints();
    }
    stats_.contactsMs = msSince(t0);
}

void CollisionDispatcher::collideOnePair(MeshPairAlgorithm&, const btCollisionObjectWrapper* body0,
                                         const btCollisionObjectWrapper* body1, btManifoldResult& result) {
    btPersistentManifold* manifold = result.getPersistentManifold();
    if (!detector_) return;
    const btCollisionObject* objects[2] = {body0->getCollisionObject(), body1->getCollisionObject()};
    for (const btCollisionObjectWrapper* w : {body0, body1}) {
        if (!isFinite(w->getWorldTransform())) {
            warnOnce("nan:" + describe(w->getCollisionObject()),
                     describe(w->getCollisionObject()) + " has a non-finite world transform (NaN or "
                                                         "Inf): it gets no mesh contacts until its transform is finite");
            if (manifold) clearManifold(manifold);
            return;
        }
    }
    const float margin0 = margin(objects[0]), margin1 = margin(objects[1]);
    applyVertexChanges();
    const MirroredMesh* m0 = mirror_->mesh(*body0->getCollisionShape(), margin0);
    const MirroredMesh* m1 = mirror_->mesh(*body1->getCollisionShape(), margin1);
    if (!m0 || !m1) {
        if (manifold) clearManifold(manifold);
        return;
    }
    const float pairMargin = 0.5f * (margin0 + margin1);
    if (manifold && manifold->getContactBreakingThreshold() < pairMargin)
        manifold->setContactBreakingThreshold(pairMargin);

    // A scene of just this pair: the batch's scene may not have these shapes posed this way
    // (compound children, queries between steps).
    Scene one;
    one.addObject(one.addMesh(mirror_->scene().meshPtr(m0->detectMesh)), toPose(body0->getWorldTransform()));
    one.addObject(one.addMesh(mirror_->scene().meshPtr(m1->detectMesh)), toPose(body1->getWorldTransform()));
    // Static bodies are the environment for detectors that serve object-vs-environment pairs.
    if (m0->version > 0) one.setVertices(0, m0->detectVertices);  // deforming shapes
    if (m1->version > 0) one.setVertices(1, m1->detectVertices);
    one.setStatic(0, objects[0]->isStaticObject());
    one.setStatic(1, objects[1]->isStaticObject());
    const ObjectPair pair{0, 1};
    DetectionOutput out;
    // An open mesh for a detector that needs closed ones, or a pair it returns unserved, or
    // one it fails on: the exact path, as in the batch.
    bool toExact = m0->exactOnly || m1->exactOnly;
    if (!toExact) {
        Result<void> r = detector_->detect(one, std::span<const ObjectPair>(&pair, 1), out);
        for (const std::string& w : out.stats.warnings) warnOnce("detector-warning:" + w, w);
        if (!r) {
            warnOnce("detect:" + r.error().message, "detector '" + settings_.detector + "' failed on one pair: " +
                                                        r.error().message + "; it goes to the exact 'cpu' detector");
            toExact = true;
        } else if (!out.unserved.empty()) {
            warnOnce("unserved", "detector '" + settings_.detector +
                                     "' returned a pair unserved (DetectionOutput::unserved): it goes to the "
                                     "exact 'cpu' detector (DispatchStats::fallbackPairs)");
            toExact = true;
        }
    }
    if (toExact) {
        if (Result<void> r = exact().detect(one, std::span<const ObjectPair>(&pair, 1), out); !r) {
            warnOnce("exact:" + r.error().message, "the exact 'cpu' detector failed on one pair: " + r.error().message);
            return;
        }
    }
    // A compound's child wrapper carries the child index in m_index.
    const PosedMesh s0{&m0->real, &m0->grid, body0->getWorldTransform(), body0->m_parent ? body0->m_index : -1};
    const PosedMesh s1{&m1->real, &m1->grid, body1->getWorldTransform(), body1->m_parent ? body1->m_index : -1};
    if (manifold) markStale(manifold);
    PatchContacts patch;
    patch.begin(pairMargin, settings_.maxTriangleDepth);
    for (const PairResult& pr : out.pairs) {
        if (!pr.samples.empty()) patch.addSamples(s0, s1, pr.samples, false, 0.5f * margin0, 0.5f * margin1);
        else patch.add(s0, s1, pr.triangles, false);
    }
    const std::size_t added = emitPatch(result, patch.reduce());
    if (!manifold) return;
    dropStale(manifold);
    if (added == 0) clearManifold(manifold);
    else result.refreshContactPoints();
}

}  // namespace isc::bullet
