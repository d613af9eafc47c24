#pragma once
/// A drop-in btBroadphaseInterface that prunes Bullet's box pairs with CULLIDE's visibility
/// test on the GPU (Govindaraju et al.'s reducePCS; papers/001, docs/detectors/cullide.md).
/// It keeps a btDbvtBroadphase for the proxies, ray and box queries and the box overlaps;
/// each step, of the box pairs of two mesh bodies, only those CULLIDE cannot prove apart go
/// to the pair cache the dispatcher walks. Pairs with any other shape (boxes, spheres,
/// planes, compounds) pass through untouched. An app changes one line:
///
///     btBroadphaseInterface* broadphase = isc::bullet::CullideBroadphase::create().value().release();
///     // instead of: new btDbvtBroadphase();
///
/// Which pairs are "mesh pairs": both shapes btGImpactMeshShape, btBvhTriangleMeshShape (any
/// btTriangleMeshShape) or btConvexTriangleMeshShape. Each is tested as the dispatcher will
/// see it: with isc::bullet::CollisionDispatcher, swollen by half its margin exactly as the
/// dispatcher swells it (so a pair the dispatcher would find touching is never pruned); with
/// any other dispatcher, grown by its shape's own margin (Bullet's contact distance).
///
/// With isc::bullet::CollisionDispatcher (and a detector that uses no GL) the pruning finishes
/// inside the dispatch, its GPU pass overlapping the dispatcher's detector (settings.overlap):
/// the cache is final once the dispatch is done.
///
/// Needs a current GL 4.5 context when created and on the thread that calls stepSimulation.
#include "isc/bullet/CollisionDispatcher.h"
#include "isc/core/Result.h"
#include "isc/detect/Detector.h"
#include "isc/detectors/CullideDetector.h"

#include <BulletCollision/BroadphaseCollision/btBroadphaseInterface.h>
#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/BroadphaseCollision/btOverlappingPairCache.h>

#include <functional>
#include <map>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

class btCollisionObject;
class btCollisionShape;

namespace isc {
class Scene;
}

namespace isc::bullet {

/// How CullideBroadphase prunes.
struct CullideBroadphaseSettings {
    /// The PCS passes' settings (resolutions, cluster size, axes, method).
    CullideSettings cullide{};
    /// How deep the PCS goes before a pair is dropped: Object (both objects in the object
    /// PCS, the default), Cluster (and overlapping surviving clusters) or Triangle.
    CullideLevel level = CullideLevel::Object;
    /// The object level as one pass over the objects of all mesh pairs at once
    /// (CullideDetector::beginObjectPcs with the pairs: cluster boxes posed on the GPU from the
    /// mirrored poses, each object queried where its box meets its partners'), true (default);
    /// false: the object level inside CullideDetector::prunePairs (boxes posed on the CPU) when
    /// `level` is Object or cullide.objectLevel is set; at a deeper level without it, no object
    /// level at all (the cluster level alone, chained on the GPU: one read-back per step).
    bool objectPass = true;
    /// With isc::bullet::CollisionDispatcher whose detector uses no GL (`cpu`): the pruning
    /// finishes inside the dispatch (CollisionDispatcher::deferPruning), its GPU pass running
    /// while the dispatcher walks the cache and runs its detector on the pairs the last step
    /// kept; then the pairs kept that the cache lacked are detected and those pruned left out,
    /// so the dispatcher detects the same pairs as with false, and the cache holds the same pairs
    /// after the step (true, the default). Between calculateOverlappingPairs and the dispatch the
    /// cache holds the pairs expected to be kept; a step without a dispatch (or a proxy removed
    /// in between) finishes the pruning at once. False, another dispatcher or a GL detector in
    /// it: the pruning finishes before calculateOverlappingPairs returns. The environment
    /// variable ISC_CULLIDE_BROADPHASE_OVERLAP=0/1, when set, overrides it in create().
    bool overlap = true;
    /// With the overlap and the `cpu` detector in our dispatcher: the pruning runs on the
    /// stepping thread as a member of the detector's OpenMP team (CpuDetector::runAlongside),
    /// while the team's other threads pose the objects and test the pairs, so its CPU set-up,
    /// issue and read-back cost the step only a team member's share (true, the default;
    /// broadphase-10). False: the detector runs after the GPU pass is issued, the stepping thread
    /// doing the pruning's set-up and issue before it (cullide-9). The environment variable
    /// ISC_CULLIDE_BROADPHASE_IN_TEAM=0/1, when set, overrides it in create().
    bool inTeam = true;
    /// Expensive check: every pruned pair is also tested exactly (the `cpu` detector on the
    /// surfaces the dispatcher tests: with isc::bullet::CollisionDispatcher its swollen meshes,
    /// with another dispatcher each mesh grown by its shape's margin, Bullet's contact
    /// distance); pairs it finds touching are counted in lostPairs (must stay 0).
    bool validate = false;
    /// Where warnings go (each said once). Empty: stderr.
    std::function<void(std::string_view)> onWarning;
};

/// What the last calculateOverlappingPairs did.
struct BroadphaseStats {
    std::size_t boxPairs = 0;        ///< pairs btDbvtBroadphase found (box overlaps)
    std::size_t meshPairs = 0;       ///< of them, pairs of two mesh bodies (CULLIDE's candidates)
    std::size_t keptMeshPairs = 0;   ///< mesh pairs CULLIDE kept
    std::size_t passedPairs = 0;     ///< pairs in the cache the dispatcher walks
    std::size_t lostPairs = 0;       ///< settings.validate: pruned pairs found touching (a bug if not 0)
    double dbvtMs = 0.0;             ///< btDbvtBroadphase's own update (wall clock)
    double cullideMs = 0.0;          ///< mirroring bodies, the PCS passes and the cache update, ms on this
                                     ///< thread (overlapped: in the dispatch too, the dispatcher's work left out)
    bool overlapped = false;         ///< settings.overlap took effect: the pruning finished in the dispatch
    double overlapMs = 0.0;          ///< overlapped: the dispatcher's work run while the GPU pass ran (not in cullideMs)
    std::size_t addedLate = 0;       ///< overlapped: kept pairs the cache lacked, detected after the others
    std::size_t droppedLate = 0;     ///< overlapped: pairs in the cache (kept last step) pruned, left out
    bool inTeam = false;             ///< overlapped: the pruning ran inside the detector's team (settings.inTeam)
    // The pruning's time split (ms, wall clock, on the thread that ran it; their sum is about cullideMs):
    double mirrorMs = 0.0;           ///< bodies' objects found and their poses mirrored
    double pairsMs = 0.0;            ///< btDbvtBroadphase's pairs sorted into mesh pairs and others
    double cacheMs = 0.0;            ///< the cache updated in calculateOverlappingPairs (passed pairs, stale ones out)
    double pruneMs = 0.0;            ///< the PCS passes: their CPU set-up, GL issue, wait and read-back (work left out)
    double lateMs = 0.0;             ///< overlapped: the cache updated after the passes (added, dropped, finish())
    /// Deforming meshes: changed shapes read again for this step's pass (meshesRead), and
    /// changed shapes whose vertices were taken from our dispatcher's read instead (meshesShared).
    std::size_t meshesRead = 0;
    std::size_t meshesShared = 0;
};

class CullideBroadphase : public btBroadphaseInterface, private DeferredPruning {
public:
    /// Creates the CULLIDE passes (compiles their shaders). Errors: no current GL context,
    /// settings out of range (the messages of isc::createCullideDetector).
    [[nodiscard]] static Result<std::unique_ptr<CullideBroadphase>> create(CullideBroadphaseSettings settings = {});
    ~CullideBroadphase() override;
    CullideBroadphase(const CullideBroadphase&) = delete;
    CullideBroadphase& operator=(const CullideBroadphase&) = delete;

    btBroadphaseProxy* createProxy(const btVector3& aabbMin, const btVector3& aabbMax, int shapeType, void* userPtr,
                                   int collisionFilterGroup, int collisionFilterMask, btDispatcher* dispatcher) override;
    void destroyProxy(btBroadphaseProxy* proxy, btDispatcher* dispatcher) override;
    void setAabb(btBroadphaseProxy* proxy, const btVector3& aabbMin, const btVector3& aabbMax,
                 btDispatcher* dispatcher) override;
    void getAabb(btBroadphaseProxy* proxy, btVector3& aabbMin, btVector3& aabbMax) const override;
    void rayTest(const btVector3& rayFrom, const btVector3& rayTo, btBroadphaseRayCallback& rayCallback,
                 const btVector3& aabbMin = btVector3(0, 0, 0), const btVector3& aabbMax = btVector3(0, 0, 0)) override;
    void aabbTest(const btVector3& aabbMin, const btVector3& aabbMax, btBroadphaseAabbCallback& callback) override;
    /// btDbvtBroadphase's update, then CULLIDE over its mesh pairs, then the pruned cache.
    void calculateOverlappingPairs(btDispatcher* dispatcher) override;
    /// The pruned cache (what the dispatcher walks; its pairs carry the algorithms).
    btOverlappingPairCache* getOverlappingPairCache() override { return cache_.get(); }
    const btOverlappingPairCache* getOverlappingPairCache() const override { return cache_.get(); }
    void getBroadphaseAabb(btVector3& aabbMin, btVector3& aabbMax) const override;
    void resetPool(btDispatcher* dispatcher) override;
    void printStats() override;

    /// The box broadphase inside (its cache holds every box pair).
    btDbvtBroadphase& dbvt() { return *dbvt_; }
    const BroadphaseStats& lastStats() const { return stats_; }
    /// The CULLIDE passes' counters of the last step (pcs_objects, pcs_clusters, gpu_ms, ...).
    const DetectorStats& lastDetectorStats() const { return detectorStats_; }
    const CullideBroadphaseSettings& settings() const { return settings_; }
    /// Turns settings.validate on or off (from the next step).
    void setValidate(bool validate);

    /// True when `shape` takes part in the pruning (see the class comment).
    static bool isMeshShape(const btCollisionShape* shape);

    /// A deforming mesh: the vertices of `shape` (a mesh shape of a body in the world) were
    /// changed in place (docs/integration.md, "Deforming meshes"). With
    /// isc::bullet::CollisionDispatcher there is no need: the broadphase reads its
    /// meshVerticesChanged() calls. With another dispatcher call this after each change,
    /// between steps. The next step reads the shape's vertices again and tests the deformed
    /// surface (swollen or grown as before); until told, the broadphase tests the surface it
    /// read, which may prune a pair the deformed surfaces make touch. A change that cannot be
    /// used (a triangle gone degenerate, a NaN) keeps the previous vertices, with a warning.
    void meshVerticesChanged(const btCollisionShape* shape);

private:
    CullideBroadphase() = default;
    struct Body;
    struct MeshEntry;
    void warnOnce(const std::string& key, const std::string& message);
    // keep_ from candidates_ (the object pass, the deeper levels); `work` (may be empty) runs
    // exactly once, while the first GPU pass runs.
    void computeKeep(const std::function<void()>& work);
    // settings.validate: the pruned candidates tested exactly (stats_.lostPairs).
    void validatePruned();
    // DeferredPruning (settings.overlap with our dispatcher).
    void prune(btDispatcher* dispatcher, const std::function<void()>& work, ProxyPairs& added,
               ProxyPairs& dropped) override;
    void finish(btDispatcher* dispatcher) override;
    bool pruneInTeam() const override { return settings_.inTeam; }
    void finishNow(btDispatcher* dispatcher);  // a pending pruning, with nothing to overlap
    // The body's object in scene_ (made or remade on demand), or -1 when it cannot take part.
    // A mesh whose vertices changed since it was read goes to rereads_.
    std::int64_t objectOf(const btCollisionObject& body, btDispatcher* dispatcher);
    // The meshes in rereads_ of this step's mesh pairs read again (in parallel; taken from
    // `ours`'s read where it has one), then their bodies' objects given the vertices.
    void applyVertexChanges(CollisionDispatcher* ours);
    // The change count of `shape`: meshVerticesChanged() calls here and in `ours` (may be null).
    std::uint64_t changesOf(const btCollisionShape* shape, const CollisionDispatcher* ours) const;

    CullideBroadphaseSettings settings_;
    std::unique_ptr<btDbvtBroadphase> dbvt_;
    std::unique_ptr<btHashedOverlappingPairCache> cache_;
    std::unique_ptr<CullideDetector> cullide_;
    std::unique_ptr<Detector> exact_;  // settings.validate
    // settings.validate with another dispatcher: the pruned pairs' meshes grown by their fatten_.
    struct GrownScene;
    std::unique_ptr<GrownScene> grown_;
    std::unique_ptr<Scene> scene_;
    std::map<std::pair<const btCollisionShape*, float>, std::unique_ptr<MeshEntry>> meshes_;
    std::unordered_map<const btCollisionObject*, std::unique_ptr<Body>> bodies_;
    std::unordered_map<const btCollisionShape*, std::uint64_t> changes_;  // meshVerticesChanged calls per shape
    std::vector<MeshEntry*> rereads_;                                     // this step: meshes to read again
    std::vector<std::pair<Body*, MeshEntry*>> deforming_;                 // this step: bodies of changed meshes
    bool shareReads_ = true;  // our dispatcher's reads of changed shapes taken (hook ISC_CULLIDE_BROADPHASE_SHARE_READS=0: not)
    std::vector<float> fatten_;  // per scene object
    std::vector<const btCollisionObject*> proxied_;  // every body with a proxy
    std::vector<std::int64_t> objectByProxy_;        // this step: object per proxy m_uniqueId (-1: none)
    int stamp_ = 0;                                  // steps, stamped on the cache's pairs (m_internalTmpValue)
    // Per-step scratch, kept to reuse its storage.
    std::vector<std::pair<btBroadphaseProxy*, btBroadphaseProxy*>> passed_, meshProxies_, stale_;
    std::vector<ObjectPair> candidates_;
    std::vector<char> keep_;
    std::vector<char> inCache_;     // overlap: per candidate, in the cache before the pruning finished
    bool pending_ = false;          // overlap: calculateOverlappingPairs left the pruning to the dispatch
    ProxyPairs dropped_;            // overlap: pruned pairs to leave the cache in finish()
    CollisionDispatcher* deferredTo_ = nullptr;  // overlap: the dispatcher told to call prune()
    std::vector<std::string> warned_;
    BroadphaseStats stats_;
    DetectorStats detectorStats_;
};

}  // namespace isc::bullet
