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
};

class SceneMirror {
public:
    using Warn = std::function<void(const std::string& key, const std::string& message)>;

    /// `needsClosed`: the detector needs closed meshes (open ones are still mirrored, marked
    /// MirroredMesh::exactOnly, with one warning per shape).
    /// `gridReach`: the least reach of each mesh's triangle grid, metres (the margin is used
    /// when larger).
    SceneMirror(bool needsClosed, float gridReach, Warn warn)
        : needsClosed_(needsClosed), gridReach_(gridReach), warn_(std::move(warn)) {}

    /// The body's mirror, made (or remade, when its shape or margin changed) on demand.
    /// Its objects are posed from `body`'s world transform.
    const MirroredBody& body(const btCollisionObject& body, float margin);
    /// A mesh shape at a margin (cached); null when it cannot be used (warned once).
    const MirroredMesh* mesh(const btCollisionShape& shape, float margin);
    /// The shapes' vertices changed (same triangles): every mirrored copy of one (one per margin)
    /// reads them again (rereadVertices), with its triangle grid and swollen detection
    /// vertices; the scene objects of it get them when their bodies are next mirrored. A
    /// shape not mirrored yet is read whole when first used. A read that fails (a
    /// degenerate triangle, a NaN) keeps the previous vertices, warned once per shape.
    /// Every shape of the list at once (in parallel over the mirrored copies).
    void verticesChanged(std::span<const btCollisionShape* const> shapes);

    Scene& scene() { return scene_; }
    const Scene& scene() const { return scene_; }

private:
    bool needsClosed_;
    float gridReach_;
    Warn warn_;
    Scene scene_;
    std::map<std::pair<const btCollisionShape*, float>, std::unique_ptr<MirroredMesh>> meshes_;
    std::map<std::pair<const btCollisionShape*, float>, bool> refused_;
    std::unordered_map<const btCollisionObject*, MirroredBody> bodies_;
};

/// isc::Pose of a Bullet transform.
Pose toPose(const btTransform& t);
/// True when every entry of the transform is finite.
bool isFinite(const btTransform& t);

}  // namespace isc::bullet
