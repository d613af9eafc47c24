#include "isc/scene/Scene.h"

#include "isc/core/Assert.h"

#include <algorithm>
#include <atomic>

namespace isc {

namespace {
std::uint64_t nextSceneUid() {
    static std::atomic<std::uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

Scene::Scene() : uid_(nextSceneUid()) {}
Scene::Scene(const Scene& other) : meshes_(other.meshes_), objects_(other.objects_), uid_(nextSceneUid()) {}
Scene& Scene::operator=(const Scene& other) {
    if (this != &other) {
        meshes_ = other.meshes_;
        objects_ = other.objects_;
        uid_ = nextSceneUid();
    }
    return *this;
}
Scene::Scene(Scene&& other) noexcept
    : meshes_(std::move(other.meshes_)), objects_(std::move(other.objects_)), uid_(other.uid_) {
    other.meshes_.clear();
    other.objects_.clear();
    other.uid_ = nextSceneUid();
}
Scene& Scene::operator=(Scene&& other) noexcept {
    if (this != &other) {
        meshes_ = std::move(other.meshes_);
        objects_ = std::move(other.objects_);
        uid_ = other.uid_;
        other.meshes_.clear();
        other.objects_.clear();
        other.uid_ = nextSceneUid();
    }
    return *this;
}

MeshId Scene::addMesh(std::shared_ptr<const Mesh> mesh) {
    ISC_ASSERT(mesh != nullptr, "Scene::addMesh(): null mesh");
    meshes_.push_back(std::move(mesh));
    return static_cast<MeshId>(meshes_.size() - 1);
}

ObjectId Scene::addObject(MeshId mesh, const Pose& pose) {
    ISC_ASSERT(mesh < meshes_.size(), "Scene::addObject(): mesh id out of range");
    Object o;
    o.mesh = mesh;
    o.pose = pose;
    o.localBounds = meshes_[mesh]->localBounds();
    objects_.push_back(std::move(o));
    return static_cast<ObjectId>(objects_.size() - 1);
}

void Scene::setPose(ObjectId object, const Pose& pose) {
    ISC_ASSERT(object < objects_.size(), "Scene::setPose(): object id out of range");
    objects_[object].pose = pose;
}

void Scene::setVertices(ObjectId object, std::vector<Vec3> localVertices) {
    ISC_ASSERT(object < objects_.size(), "Scene::setVertices(): object id out of range");
    Object& o = objects_[object];
    ISC_ASSERT(localVertices.size() == meshes_[o.mesh]->vertexCount(),
               "Scene::setVertices(): vertex count differs from the mesh's");
    Aabb b;
    for (const Vec3& v : localVertices) b.grow(v);
    o.localBounds = b;
    o.vertices = std::move(localVertices);
    ++o.vertexVersion;
}

void Scene::setActive(ObjectId object, bool active) {
    ISC_ASSERT(object < objects_.size(), "Scene::setActive(): object id out of range");
    objects_[object].active = active;
}

void Scene::setStatic(ObjectId object, bool isStatic) {
    ISC_ASSERT(object < objects_.size(), "Scene::setStatic(): object id out of range");
    objects_[object].isStatic = isStatic;
}

void Scene::retireMesh(MeshId mesh, std::shared_ptr<const Mesh> standIn) {
    ISC_ASSERT(mesh < meshes_.size(), "Scene::retireMesh(): mesh id out of range");
    ISC_ASSERT(standIn != nullptr, "Scene::retireMesh(): null stand-in");
    ISC_ASSERT(std::none_of(objects_.begin(), objects_.end(),
                            [&](const Object& o) { return o.mesh == mesh && o.active; }),
               "Scene::retireMesh(): an active object still uses the mesh");
    meshes_[mesh] = std::move(standIn);
    // Objects of a retired mesh keep ids and stay inactive; their bounds follow the stand-in.
    for (Object& o : objects_)
        if (o.mesh == mesh) {
            o.vertices.clear();
            o.localBounds = meshes_[mesh]->localBounds();
        }
}

std::span<const Vec3> Scene::localVertices(ObjectId object) const {
    const Object& o = objects_[object];
    if (!o.vertices.empty()) return o.vertices;
    return meshes_[o.mesh]->vertices();
}

Aabb Scene::worldBounds(ObjectId object) const {
    const Object& o = objects_[object];
    Aabb out;
    if (!o.pose.isFinite() || o.localBounds.isEmpty()) return out;
    // |R| * half-extent: the tight box of the rotated local box.
    const Mat3 r = glm::mat3_cast(o.pose.rotation);
    const Vec3 c = o.pose.apply(o.localBounds.center());
    const Vec3 h = 0.5f * o.localBounds.extent();
    Vec3 e(0.0f);
    for (int col = 0; col < 3; ++col) e += glm::abs(r[col]) * h[col];
    return {c - e, c + e};
}

std::vector<ObjectPair> Scene::overlappingPairs() const {
    std::vector<ObjectPair> pairs;
    std::vector<Aabb> boxes(objects_.size());
    for (ObjectId i = 0; i < objects_.size(); ++i) boxes[i] = worldBounds(i);
    for (ObjectId i = 0; i < objects_.size(); ++i) {
        if (!objects_[i].active || boxes[i].isEmpty()) continue;
        for (ObjectId j = i + 1; j < objects_.size(); ++j)
            if (objects_[j].active && boxes[i].overlaps(boxes[j])) pairs.push_back({i, j});
    }
    return pairs;
}

}  // namespace isc
