#pragma once
// Mirrors the mesh bodies of a Bullet world into an isc::Scene: one scene object per mesh
// (a compound body has one per child). The scene holds each mesh swollen by half the
// body's margin (shapes::offset); contacts are clipped on the real triangles, kept here.
#include "ShapeMesh.h"
#include "TriangleGrid.h"

#include "isc/scene/Scene.h"

#include <LinearMath/btTransform.h>

#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <cstdint>
#include <vector>

class btCollisionObject;
class btCollisionShape;

namespace isc::bullet {

/// One mesh shape at one margin: the real surface and its offset in the scene.
struct MirroredMesh {
    ShapeMesh real;
    TriangleGrid grid;      ///< over the real triangles, reach: the margin (or the grid reach)
    MeshId detectMesh = 0;  ///< the offset mesh, in the mirror's scene
    /// The detector cannot take this mesh (it needs closed meshes and this one is open):
    /// pairs with it go to the dispatcher's exact path (the `cpu` detector) instead.
    bool exactOnly = false;
    bool offset = false;  ///< detectMesh is `real` swollen by half the margin
    /// A deforming shape (SceneMirror::verticesChanged): the detection vertices of its latest
    /// read (as many as detectMesh has), given to every scene object of this mesh; `version`
    /// counts the reads (0: never deformed, the objects use detectMesh's own vertices).
    std::vector<Vec3> detectVertices;
    std::uint64_t version = 0;
    /// The cache key (shape, margin) and how many mirrored body parts use this mesh. At 0 it
    /// is idle: kept for the next body of the shape (the signature of the shape, read again,
    /// must match: a shape may have been deleted and another made at its address), and
    /// retired when more than SceneMirror::kIdleMeshes are idle (the longest idle first).
    std::pair<const btCollisionShape*, float> key{nullptr, 0.0f};
    int users = 0;
    std::uint64_t signature = 0;  ///< shapeSignature() when read
};

/// A scene object: one mesh of one body.
struct MirroredPart {
    ObjectId object = 0;
    int childIndex = -1;            ///< index in the body's compound, -1 when not a compound
    btTransform local;              ///< child transform in the body (identity when not a compound)
    const MirroredMesh* mesh = nullptr;
    std::uint64_t version = 0;      ///< mesh->version whose vertices the scene object has
};

/// A mesh body. `usable` is false when one of its meshes could not be read.
struct MirroredBody {
    const btCollisionShape* shape = nullptr;
    float margin = 0.0f;
    bool usable = false;
    std::vector<MirroredPart> parts;
    /// Meshes of this body that could not be used (forgotten with the body, so that a new
    /// shape made at the same address is tried again).
    std::vector<std::pair<const btCollisionShape*, float>> refused;
};

/// Sizes of the mirror's tables (tests and the soak: they must not grow with bodies that
/// come and go).
struct MirrorTables {
    std::size_t bodies = 0;        ///< mirrored bodies
    std::size_t meshes = 0;        ///< mirrored (shape, margin) meshes
    std::size_t refused = 0;       ///< shapes that could not be used
    std::size_t sceneObjects = 0;  ///< objects in the scene (active or not)
    std::size_t sceneMeshes = 0;   ///< mesh ids in the scene (retired ones included)
    std::size_t freeObjects = 0;   ///< inactive scene objects waiting to be re-used
    std::size_t idleMeshes = 0;    ///< mirrored meshes no body uses (kept for re-use)
};

class SceneMirror {
public:
    using Warn = std::function<void(const std::string& key, const std::string& message)>;

    /// `needsClosed`: the detector needs closed meshes (open ones are still mirrored, marked
    /// MirroredMesh::exactOnly, with one warning per shape).
    /// `gridReach`: the least reach of each mesh's triangle grid, metres (the margin is used
    /// when larger).
    SceneMirror(bool needsClosed, float gridReach, Warn warn);

    /// The body's mirror, made (or remade, when its shape or margin changed) on demand.
    /// Its objects are posed from `body`'s world transform.
    const MirroredBody& body(const btCollisionObject& body, float margin);
    /// A mesh shape at a margin (cached); null when it cannot be used (warned once).
    const MirroredMesh* mesh(const btCollisionShape& shape, float margin);
    /// The mirrored mesh of `shape` at `margin` that a mirrored body uses, or null (none, or
    /// only an idle one). Reads nothing; safe from several threads while nothing changes the mirror.
    const MirroredMesh* inUse(const btCollisionShape* shape, float margin) const;
    /// The shapes' vertices changed (same triangles): every mirrored copy of one (one per margin)
    /// reads them again (rereadDetectVertices: the contacts' surface and the swollen detection
    /// vertices) and builds its triangle grid again once a vertex has left the grid's slack
    /// (kDeformingGridSlack); the scene objects of it get them when their bodies are next mirrored. A
    /// shape not mirrored yet is read whole when first used. A read that fails (a
    /// degenerate triangle, a NaN) keeps the previous vertices, warned once per shape.
    /// Every shape of the list at once (in parallel over the mirrored copies).
    void verticesChanged(std::span<const btCollisionShape* const> shapes);
    /// Forgets `body` (it is in no mesh pair any more: taken out of the world, or apart from
    /// every mesh): its scene objects become inactive and wait to be re-used by the next
    /// body of the same mesh; a mesh no body uses any more becomes idle (kept, at most
    /// kIdleMeshes, then retired: Scene::retireMesh). `body` is only a key here: it may already be deleted. Nothing
    /// happens for a body not mirrored.
    void release(const btCollisionObject* body);
    MirrorTables tables() const;

    /// Meshes that no body uses kept for re-use, at most (the longest idle is retired first).
    static constexpr std::size_t kIdleMeshes = 16;
    /// A deforming mesh's triangle grid is built with this fraction of its reach as slack
    /// (TriangleGrid::covers) and kept until a vertex has moved further than that.
    static constexpr float kDeformingGridSlack = 0.5f;

    Scene& scene() { return scene_; }
    const Scene& scene() const { return scene_; }

private:
    MirroredMesh* entry(const btCollisionShape& shape, float margin);
    void releaseParts(MirroredBody& b);
    void retire(MirroredMesh& m);

    bool needsClosed_;
    float gridReach_;
    float gridSlack_ = kDeformingGridSlack;  ///< test hook ISC_DEFORM_GRID_SLACK=0: rebuilt every change
    Warn warn_;
    Scene scene_;
    std::map<std::pair<const btCollisionShape*, float>, std::unique_ptr<MirroredMesh>> meshes_;
    std::map<std::pair<const btCollisionShape*, float>, bool> refused_;
    std::unordered_map<const btCollisionObject*, MirroredBody> bodies_;
    /// Inactive scene objects of released moving bodies, per mesh id: the next body of that
    /// mesh takes one instead of adding an object (the scene does not grow with bodies that
    /// come and go).
    std::unordered_map<MeshId, std::vector<ObjectId>> freeObjects_;
    std::vector<std::pair<const btCollisionShape*, float>> idle_;  ///< idle meshes, longest idle first
    std::shared_ptr<const Mesh> standIn_;  ///< what a retired mesh id holds (made on first use)
};

/// isc::Pose of a Bullet transform.
Pose toPose(const btTransform& t);
/// True when every entry of the transform is finite.
bool isFinite(const btTransform& t);

}  // namespace isc::bullet
