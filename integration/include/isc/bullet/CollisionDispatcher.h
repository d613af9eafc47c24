#pragma once
/// A drop-in btCollisionDispatcher: mesh–mesh pairs go to an isc::Detector once per step as
/// one batch; every other pair goes through Bullet's own algorithms unchanged. An app
/// changes one line:
///
///     btCollisionDispatcher* d = new isc::bullet::CollisionDispatcher(
///         config, isc::bullet::DispatcherSettings{.detector = "cpu"});
///
/// Mesh shapes: btGImpactMeshShape, btBvhTriangleMeshShape (static), btConvexTriangleMeshShape,
/// and btCompoundShape whose children are all of those. Contacts go into persistent
/// manifolds (getNewManifold) through btManifoldResult, so Bullet's point reduction, cache
/// matching (warm starting), friction/restitution combination and gContactAddedCallback all
/// apply. See docs/integration.md for the design and its choices.
///
/// No mesh pair is left without contacts: the pairs the chosen detector cannot serve (an
/// open mesh, such as a btBvhTriangleMeshShape level, given to a detector that needs closed
/// meshes; the pairs it returns in DetectionOutput::unserved; all its pairs when its detect()
/// fails) are detected by the exact `cpu` detector, which the dispatcher keeps for that.
/// DispatchStats::fallbackPairs counts them per step; each reason is said once (warnings()).
/// A pair whose PairResult carries contact samples gets its contacts from the samples alone
/// (reduced to four like a patch); a pair with triangle pairs only, from the patch walk.
///
/// Threads: the batch runs on the thread that calls stepSimulation (never on a worker), so GL
/// detectors are safe. Not thread-safe otherwise.
#include "isc/bullet/DispatchStats.h"
#include "isc/bullet/DispatcherSettings.h"
#include "isc/detect/Detector.h"

#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/CollisionDispatch/btDefaultCollisionConfiguration.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

class btBroadphaseProxy;
class btCollisionObject;
class btCollisionObjectWrapper;
class btManifoldResult;

namespace isc::bullet {

class MeshPairAlgorithm;
class SceneMirror;

/// A broadphase that finishes pruning its pair cache inside the dispatch, so that its GPU work
/// overlaps the dispatcher's detector (isc::bullet::CullideBroadphase hands itself to
/// CollisionDispatcher::deferPruning each step). Until prune() the cache holds the pairs the
/// broadphase expects to keep (those it kept last step that still overlap, and every other pair).
class DeferredPruning {
public:
    using ProxyPairs = std::vector<std::pair<btBroadphaseProxy*, btBroadphaseProxy*>>;
    virtual ~DeferredPruning() = default;
    /// Runs `work` exactly once, on this thread, while the pruning's GPU pass runs (it must
    /// touch nothing the pruning does, and no GL). Then adds to the cache the kept pairs it
    /// lacked (`added`) and lists the cache's pairs that were pruned (`dropped`: still in the
    /// cache until finish()).
    virtual void prune(btDispatcher* dispatcher, const std::function<void()>& work, ProxyPairs& added,
                       ProxyPairs& dropped) = 0;
    /// After the dispatch: the dropped pairs leave the cache.
    virtual void finish(btDispatcher* dispatcher) = 0;
    /// True: with a detector that can run work in its own OpenMP team (`cpu`,
    /// CpuDetector::runAlongside), the dispatcher calls prune() with no `work` from inside the
    /// detector's team, on this thread, while the team's other threads run the detector
    /// (broadphase-10); false: the detector runs as prune()'s `work`, after the GPU pass is
    /// issued (cullide-9).
    virtual bool pruneInTeam() const { return false; }
};

/// A btDefaultCollisionConstructionInfo whose algorithm pool elements are large enough for
/// the dispatcher's own algorithm (the dispatcher also copes with a smaller pool by
/// allocating from the heap, since Bullet's pool checks sizes only in debug builds).
btDefaultCollisionConstructionInfo collisionConstructionInfo();

class CollisionDispatcher : public btCollisionDispatcher {
public:
    /// Creates the detector named in `settings` with isc::createDetector. When that fails
    /// (unknown name, no GL context) the error goes to the warning sink once, detectorError()
    /// returns it, and mesh–mesh pairs get no contacts. Use create() to get the error instead.
    CollisionDispatcher(btCollisionConfiguration* config, DispatcherSettings settings = {});
    /// Uses `detector` (owned) instead of the registry; `settings.detector` is ignored.
    CollisionDispatcher(btCollisionConfiguration* config, std::unique_ptr<Detector> detector,
                        DispatcherSettings settings = {});
    ~CollisionDispatcher() override;
    CollisionDispatcher(const CollisionDispatcher&) = delete;
    CollisionDispatcher& operator=(const CollisionDispatcher&) = delete;

    /// Like the constructor, but a detector that cannot be created is an Error.
    [[nodiscard]] static Result<std::unique_ptr<CollisionDispatcher>> create(
        btCollisionConfiguration* config, DispatcherSettings settings = {});

    /// Walks the overlapping pairs: mesh–mesh pairs are gathered and detected in one batch,
    /// the others go to the near callback. Runs everything on the calling thread.
    void dispatchAllCollisionPairs(btOverlappingPairCache* pairCache, const btDispatcherInfo& info,
                                   btDispatcher* dispatcher) override;
    /// The next dispatchAllCollisionPairs walks the cache, runs the detector on its mesh pairs
    /// inside `pruning->prune()` (only with a detector that uses no GL), or, when
    /// `pruning->pruneInTeam()` and the detector is `cpu`, prune() inside the detector's OpenMP
    /// team on this thread; then detects the pairs prune() added, leaves out those it dropped, and calls
    /// `pruning->finish()`: the same pairs detected as when the pruning finished before the
    /// dispatch (CullideBroadphase). Null: none (the default).
    void deferPruning(DeferredPruning* pruning) { deferred_ = pruning; }
    /// Falls back to the heap when the pool's elements are too small for `size`.
    void* allocateCollisionAlgorithm(int size) override;

    /// Collision margin of one mesh body, metres (>= 0). Takes effect on the next step.
    void setMargin(const btCollisionObject* body, float margin);
    /// The margin of `body`: its own, or the settings' default.
    float margin(const btCollisionObject* body) const;

    /// A deforming mesh: the vertices of `shape` (a mesh shape of a body in the world) were
    /// changed in place, as Bullet's own deforming meshes are (write the shape's
    /// btStridingMeshInterface vertex data, then for GImpact `postUpdate()` and
    /// `updateBound()`); the triangles and the vertex count stay. The dispatcher reads the
    /// vertices again before its next batch (its contact data, triangle grid and swollen
    /// detection copy; the detector gets them as the scene objects' vertices: `cpu` refits
    /// its trees, GPU detectors upload them). Call after each change, between steps. A shape
    /// shared by several bodies deforms them all: give each deforming body its own shape.
    /// A change that cannot be used (a triangle gone degenerate, a NaN) keeps the previous
    /// vertices, with a warning. docs/integration.md, "Deforming meshes".
    void meshVerticesChanged(const btCollisionShape* shape);
    /// How many times meshVerticesChanged() named `shape` (or a compound shape holding it as a
    /// child) in this dispatcher's life: a broadphase that keeps its own copy of the meshes
    /// (CullideBroadphase) reads its vertices again when the count moves.
    std::uint64_t meshVerticesChangedCount(const btCollisionShape* shape) const;
    /// Applies the vertex changes told so far (meshVerticesChanged), as the next dispatch does
    /// first. For a broadphase that keeps its own copy of the meshes (CullideBroadphase): called
    /// before its pass, so that a changed shape is read once a step, not twice, and
    /// changedDetectVertices() then answers without reading any shape.
    void applyVertexChanges();
    /// The detection vertices of `shape` at `margin` (swollen by half the margin when
    /// `offset`) as the dispatcher read them after its last change, for a body of it the
    /// dispatcher mirrors now; empty when there is none or the dispatcher has not read it
    /// changed. Reads nothing: safe from several threads while nothing else calls the dispatcher.
    struct ChangedVertices {
        std::span<const Vec3> vertices;
        bool offset = false;
    };
    ChangedVertices changedDetectVertices(const btCollisionShape* shape, float margin) const;

    /// The detector in use; null when it could not be created.
    Detector* detector() { return detector_.get(); }
    /// Switches to `detector` (owned; not null) from the next step on. The scene mirror is
    /// rebuilt on demand (meshes validated again); Bullet's manifolds and their contact
    /// points stay, so warm starting goes on. Call between steps. The detector is used as
    /// made: the dispatcher reads only triangle pairs, so make it with
    /// DetectorSettings::wantSegments off (unless validating) or it computes intersection
    /// segments for nothing; switchDetector() does that. The detector in use before is kept
    /// for switchDetector() when the dispatcher made it, else destroyed.
    void setDetector(std::unique_ptr<Detector> detector);
    /// Switches to the registered detector `name` from the next step on, made as the
    /// constructor makes it: the settings' detectorSettings with segments off unless
    /// `validate` (e.g. another detector mid-run: the soak bench does every 1,000 steps).
    /// The detectors the dispatcher made are kept when switched away from, and switching
    /// back to one re-uses it: no shaders compiled again, no GPU memory allocated again
    /// (a GL driver keeps much of what a destroyed detector used: docs/robustness.md), at the
    /// cost of what each kept detector holds until releaseKeptDetectors().
    /// Errors: createDetector's (an unknown name, no GL context); the detector in use stays.
    [[nodiscard]] Result<void> switchDetector(std::string_view name);
    /// Destroys the detectors kept for switchDetector() (not the one in use), with the memory
    /// they hold. Needs the GL context they were made in to be current, as their use did.
    void releaseKeptDetectors();
    /// Why the detector could not be created; empty when it was.
    const std::string& detectorError() const { return detectorError_; }
    const DispatcherSettings& settings() const { return settings_; }
    /// What the last dispatchAllCollisionPairs did.
    const DispatchStats& lastStats() const { return stats_; }
    /// The detector's own timings and counters of the last batch (DetectionOutput::stats;
    /// e.g. gpuMs, "fragments", "tiles" for peel). Empty when the last step sent no batch.
    const DetectorStats& lastDetectorStats() const;
    /// Every warning said so far, in order (each also went to the warning sink).
    const std::vector<std::string>& warnings() const { return warnings_; }

    /// True when `shape` is handled as a mesh (see the class comment).
    static bool isMeshShape(const btCollisionShape* shape);
    /// True when the pair goes to the detector: two meshes, or a mesh and a btBoxShape (read
    /// as a 12-triangle mesh).
    static bool isMeshPair(const btCollisionShape* a, const btCollisionShape* b);

    /// Sizes of the dispatcher's tables of bodies, meshes and scene objects. A body's entries
    /// go when its last mesh pair goes (Bullet frees the pair's algorithm when the body is
    /// taken out of the world or its box leaves every other mesh body's), a mesh's when no
    /// body uses it; so bodies that come and go, even new ones each time, leave them the same
    /// size (tests; the soak bench prints them).
    struct Tables {
        std::size_t bodies = 0;        ///< mirrored bodies
        std::size_t meshes = 0;        ///< mirrored (shape, margin) meshes
        std::size_t sceneObjects = 0;  ///< objects in the detector's scene (inactive ones too)
        std::size_t sceneMeshes = 0;   ///< mesh ids in the detector's scene (retired ones too)
        std::size_t bodiesInPairs = 0; ///< bodies with at least one mesh pair
        std::size_t keptDetectors = 0; ///< detectors kept for switchDetector (the one in use too)
    };
    Tables tables() const;

    /// Used by MeshPairAlgorithm::processCollision: detects one pair now (contactTest,
    /// contactPairTest, a compound's child pair, a custom near callback).
    void collideOnePair(MeshPairAlgorithm& algorithm, const btCollisionObjectWrapper* body0,
                        const btCollisionObjectWrapper* body1, btManifoldResult& result);

private:
    friend class MeshPairAlgorithm;
    // MeshPairAlgorithm's constructor and destructor: the mesh pairs of each body.
    void pairMade(const btCollisionObject* body0, const btCollisionObject* body1);
    void pairGone(const btCollisionObject* body0, const btCollisionObject* body1);

    struct Batch;
    void init();
    void use(std::unique_ptr<Detector> detector, bool made);
    void warnOnce(const std::string& key, const std::string& message);
    void gather(Batch& batch, MeshPairAlgorithm& algorithm, btCollisionObject* body0,
                btCollisionObject* body1);
    // The detector (from candidate `first` on) into `out`; unserved and failed pairs to batch.exact.
    void detectBatch(Batch& batch, std::size_t first, DetectionOutput& out);
    void runBatch(Batch& batch);

    DispatcherSettings settings_;
    std::unique_ptr<Detector> detector_;
    bool madeDetector_ = false;  ///< detector_ was made by the dispatcher (createDetector)
    /// Detectors the dispatcher made, not in use: re-used by switchDetector().
    std::vector<std::unique_ptr<Detector>> kept_;
    std::string detectorError_;
    /// The scene the detectors see, one per kind of detector (those that need closed meshes
    /// send open ones to the exact path; the others do not): one Scene for the life of the
    /// dispatcher, so a detector switched away from and back to finds the scene it knew
    /// (detectors keep what they uploaded per object and mesh id), and the exact path:
    /// `cpu`, made on first use, for the pairs the detector cannot serve, one per scene.
    struct View {
        std::unique_ptr<SceneMirror> mirror;
        std::unique_ptr<Detector> exact;
    };
    View views_[2];
    SceneMirror* mirror_ = nullptr;  ///< the current detector's view's mirror
    Detector& exact();               ///< the current view's exact path (made on first use)
    void selectView();               ///< mirror_ for detector_
    std::unique_ptr<btCollisionAlgorithmCreateFunc> meshCreateFunc_;
    std::unique_ptr<btCollisionAlgorithmCreateFunc> gimpactCreateFunc_;
    DispatchStats stats_;
    std::vector<std::string> warnings_;
    std::vector<std::string> warnedKeys_;
    std::unique_ptr<Batch> batch_;
    DeferredPruning* deferred_ = nullptr;  // deferPruning(), for the next dispatch
    std::unordered_map<const btCollisionObject*, float> margins_;
    std::vector<const btCollisionShape*> changedShapes_;  // meshVerticesChanged since the last batch
    std::unordered_map<const btCollisionShape*, std::uint64_t> changeCounts_;  // meshVerticesChangedCount
    std::unordered_map<const btCollisionObject*, int> pairsOf_;  // live MeshPairAlgorithms per body
};

}  // namespace isc::bullet
