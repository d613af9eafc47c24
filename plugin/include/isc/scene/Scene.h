#pragma once
/// The CPU side of what detectors see: meshes (shared, immutable) and objects (a mesh, a
/// pose, optionally deformed local vertices). GL detectors mirror it into a GpuScene.
#include "isc/core/Types.h"
#include "isc/mesh/Mesh.h"

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace isc {

class Scene {
public:
    Scene();
    /// A copy is another scene: it gets its own uid(). A move hands the uid over (the
    /// moved-from scene gets a new one).
    Scene(const Scene& other);
    Scene& operator=(const Scene& other);
    Scene(Scene&& other) noexcept;
    Scene& operator=(Scene&& other) noexcept;
    ~Scene() = default;

    /// A number no other scene of this process has had: a detector that mirrors a scene
    /// (meshes on the GPU, per-mesh trees by MeshId) tells another scene handed to it from
    /// this one grown or changed through its own members.
    std::uint64_t uid() const { return uid_; }

    /// Adds a mesh (shared: many objects may use one). Returns its id.
    MeshId addMesh(std::shared_ptr<const Mesh> mesh);
    /// Adds an object using mesh `mesh` at `pose`. Returns its id (ids are dense, never reused).
    ObjectId addObject(MeshId mesh, const Pose& pose = {});
    /// Moves an object. A pose that is not finite is kept, and detectors skip the object
    /// with a warning (they never crash on it).
    void setPose(ObjectId object, const Pose& pose);
    /// Deforming objects: new local-space vertex positions, as many as the mesh has.
    void setVertices(ObjectId object, std::vector<Vec3> localVertices);
    /// Inactive objects are skipped by detectors (removed bodies keep their id).
    void setActive(ObjectId object, bool active);
    /// Static objects are the environment: they do not move on their own (Bullet's static
    /// bodies; the dispatcher sets this from btCollisionObject::isStaticObject()). Detectors
    /// that test objects against the environment (heightmap) read it. New objects are not static.
    void setStatic(ObjectId object, bool isStatic);
    /// Frees mesh `mesh`, which no active object uses any more and none will again (its
    /// objects stay inactive), by putting `standIn` in its place: the id stays valid and is
    /// never reused, so a detector that keeps something per mesh id or per mesh address never
    /// mistakes a later mesh for it. `standIn` is small and shared by the retired ids (the
    /// Bullet dispatcher retires the meshes of shapes no body uses any more).
    void retireMesh(MeshId mesh, std::shared_ptr<const Mesh> standIn);

    std::size_t meshCount() const { return meshes_.size(); }
    std::size_t objectCount() const { return objects_.size(); }
    const Mesh& mesh(MeshId id) const { return *meshes_[id]; }
    const std::shared_ptr<const Mesh>& meshPtr(MeshId id) const { return meshes_[id]; }
    MeshId meshOf(ObjectId object) const { return objects_[object].mesh; }
    const Mesh& objectMesh(ObjectId object) const { return *meshes_[objects_[object].mesh]; }
    const Pose& pose(ObjectId object) const { return objects_[object].pose; }
    bool isActive(ObjectId object) const { return objects_[object].active; }
    bool isStatic(ObjectId object) const { return objects_[object].isStatic; }
    bool isDeformed(ObjectId object) const { return !objects_[object].vertices.empty(); }
    /// Local-space vertices: the deformed ones if set, else the mesh's.
    std::span<const Vec3> localVertices(ObjectId object) const;
    /// Increases each time setVertices is called on the object (GPU mirrors compare it).
    std::uint64_t vertexVersion(ObjectId object) const { return objects_[object].vertexVersion; }
    /// Conservative world bounds (the local bounds' corners transformed).
    Aabb worldBounds(ObjectId object) const;
    /// Every pair (a < b) of active objects whose world bounds overlap (brute force; tools and tests).
    std::vector<ObjectPair> overlappingPairs() const;

private:
    struct Object {
        MeshId mesh = 0;
        Pose pose;
        std::vector<Vec3> vertices;  // empty unless deformed
        Aabb localBounds;
        std::uint64_t vertexVersion = 0;
        bool active = true;
        bool isStatic = false;
    };
    std::vector<std::shared_ptr<const Mesh>> meshes_;
    std::vector<Object> objects_;
    std::uint64_t uid_;
};

}  // namespace isc
