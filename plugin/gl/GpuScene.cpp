#include "isc/gl/GpuScene.h"

#include "isc/core/Assert.h"
#include "isc/gl/Fence.h"
#include "isc/scene/Scene.h"

#include <algorithm>
#include <cstdint>

#if defined(__SSE2__)
#include <xmmintrin.h>  // _mm_stream_ps, _mm_sfence (every x86-64)
#endif

namespace isc::gl {

namespace {
// Deformed vertices converted per sync from which the conversion runs on all cores (a
// parallel region costs a few microseconds; one bunny has 1.9K vertices).
constexpr std::size_t kParallelVertices = 16384;
// Buffers grow by half again so that adding objects one by one does not re-create them each time.
std::size_t grown(std::size_t bytes) { return std::max<std::size_t>(256, bytes + bytes / 2); }
}  // namespace

GpuScene::GpuScene(std::string_view label)
    : label_(label),
      vertices_(label_ + ".vertices"),
      indices_(label_ + ".indices"),
      objects_(label_ + ".objects"),
      objectIds_(label_ + ".objectIds"),
      vao_(label_ + ".vao"),
      staging_(label_ + ".vertex staging") {}

const ObjectRange& GpuScene::object(ObjectId id) const {
    ISC_ASSERT(id < ranges_.size(), "GpuScene::object(): object id out of range (was sync() called?)");
    return ranges_[id];
}

void GpuScene::rebuild(const Scene& scene) {
    // Layout: every mesh's vertices and triangles once, then one vertex range per deformed object.
    meshes_.resize(scene.meshCount());
    std::uint32_t v = 0, t = 0;
    for (MeshId m = 0; m < scene.meshCount(); ++m) {
        const Mesh& mesh = scene.mesh(m);
        meshes_[m] = {v, static_cast<std::uint32_t>(mesh.vertexCount()), t,
                      static_cast<std::uint32_t>(mesh.triangleCount())};
        v += meshes_[m].vertexCount;
        t += meshes_[m].triangleCount;
    }
    triangleCount_ = t;
    const std::size_t n = scene.objectCount();
    ranges_.resize(n);
    uploadedVersion_.assign(n, UINT64_MAX);
    totalTriangles_ = 0;
    for (ObjectId i = 0; i < n; ++i) {
        const MeshRange& m = meshes_[scene.meshOf(i)];
        ObjectRange& r = ranges_[i];
        r.mesh = scene.meshOf(i);
        r.deformed = scene.isDeformed(i);
        r.vertexCount = m.vertexCount;
        r.firstTriangle = m.firstTriangle;
        r.triangleCount = m.triangleCount;
        if (r.deformed) {
            r.firstVertex = v;
            v += m.vertexCount;
        } else {
            r.firstVertex = m.firstVertex;
        }
        totalTriangles_ += r.triangleCount;
    }
    vertexCount_ = v;

    // Storage: re-created only when too small (immutable storage cannot grow).
    bool renamed = false;
    const std::size_t vertexBytes = std::size_t(vertexCount_) * sizeof(Vec4);
    const std::size_t indexBytes = std::size_t(triangleCount_) * 3 * sizeof(std::uint32_t);
    if (vertices_.size() < vertexBytes || vertices_.size() == 0) {
        vertices_.allocate(grown(vertexBytes));
        renamed = true;
    }
    if (indices_.size() < indexBytes || indices_.size() == 0) {
        indices_.allocate(grown(indexBytes));
        renamed = true;
    }
    if (objects_.size() < n * sizeof(GpuObject) || objects_.size() == 0) objects_.allocate(grown(n * sizeof(GpuObject)));
    if (objectIds_.size() < n * sizeof(std::uint32_t) || objectIds_.size() == 0) {
        std::vector<std::uint32_t> ids(grown(n * sizeof(std::uint32_t)) / sizeof(std::uint32_t));
        for (std::uint32_t i = 0; i < ids.size(); ++i) ids[i] = i;
        objectIds_.allocate(ids.size() * sizeof(std::uint32_t), ids.data());
        renamed = true;
    }
    if (renamed || syncedMeshes_ == 0) {
        vao_.setElementBuffer(indices_);
        vao_.setVertexBuffer(0, objectIds_, 0, sizeof(std::uint32_t), 1);
        vao_.setIntegerAttribute(ISC_ATTRIB_OBJECT_ID, 0, 1, GL_UNSIGNED_INT);
    }

    // Upload every mesh (a rebuild happens only when meshes or objects were added or an
    // object started deforming: rare next to pose updates).
    std::vector<Vec4> verts;
    std::vector<std::uint32_t> idx;
    verts.reserve(vertexCount_);
    idx.reserve(std::size_t(triangleCount_) * 3);
    for (MeshId m = 0; m < scene.meshCount(); ++m) {
        const Mesh& mesh = scene.mesh(m);
        for (const Vec3& p : mesh.vertices()) verts.emplace_back(p, 1.0f);
        for (const UVec3& tri : mesh.triangles()) {
            idx.push_back(tri.x);
            idx.push_back(tri.y);
            idx.push_back(tri.z);
        }
    }
    if (!verts.empty()) vertices_.upload(0, verts.size() * sizeof(Vec4), verts.data());
    if (!idx.empty()) indices_.upload(0, idx.size() * sizeof(std::uint32_t), idx.data());
    syncedMeshes_ = scene.meshCount();
    sceneUid_ = scene.uid();
}

void GpuScene::sync(const Scene& scene) {
    const auto changed = beginSync(scene);
    // On all cores when there are many (a deforming pile: 190K vertices, about 0.7 ms on one
    // core of the H100 host).
    std::size_t total = 0;
    for (ObjectId i : changed) total += ranges_[i].vertexCount;
    const auto count = static_cast<std::int64_t>(changed.size());
#pragma omp parallel for schedule(dynamic, 1) if (total >= kParallelVertices && count > 1)
    for (std::int64_t k = 0; k < count; ++k) convert(scene, std::size_t(k));
    endSync();
}

std::span<const ObjectId> GpuScene::beginSync(const Scene& scene) {
    // Another scene (a detector handed a second one) is laid out afresh even with as many
    // meshes and objects: an object's ranges would otherwise be another mesh's.
    bool needRebuild = scene.uid() != sceneUid_ || scene.meshCount() != syncedMeshes_ ||
                       scene.objectCount() != ranges_.size() || (syncedMeshes_ == 0 && ranges_.empty());
    for (ObjectId i = 0; !needRebuild && i < ranges_.size(); ++i)
        if (ranges_[i].deformed != scene.isDeformed(i)) needRebuild = true;
    if (needRebuild) rebuild(scene);

    const std::size_t n = scene.objectCount();
    records_.resize(n);
    syncObjects_ = n;
    // Deformed vertices are written straight into a persistently mapped staging buffer and
    // go to the vertex buffer in one GPU copy per run of adjacent changed objects (a whole
    // deforming scene: one copy), not one glBufferSubData per object. The staging buffer is
    // reused once the GPU has passed the previous copies (their fence; normally long signalled).
    std::vector<ObjectId>& changed = stagingObjects_;
    changed.clear();
    stagingBase_ = nullptr;
    copiedChanged_ = 0;
    for (ObjectId i = 0; i < n; ++i) {
        ObjectRange& r = ranges_[i];
        const Pose& pose = scene.pose(i);
        r.active = scene.isActive(i) && pose.isFinite();
        GpuObject& g = records_[i];
        g.model = r.active ? pose.matrix() : Mat4(1.0f);
        g.firstVertex = r.firstVertex;
        g.firstTriangle = r.firstTriangle;
        g.triangleCount = r.triangleCount;
        g.meshId = r.mesh | (r.active ? 0u : ISC_OBJECT_INACTIVE);
        if (r.deformed && uploadedVersion_[i] != scene.vertexVersion(i)) {
            changed.push_back(i);
            uploadedVersion_[i] = scene.vertexVersion(i);
            ++deformedUploads_;
        }
    }
    if (!changed.empty()) {
        const std::size_t bytes = vertices_.size();
        if (staging_.size() != bytes || stagingData_ == nullptr) {
            const GLbitfield flags = GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
            staging_.allocate(bytes, nullptr, flags);
            stagingData_ = staging_.mapPersistent(flags);
            stagingFence_ = Fence();
        }
        if (stagingFence_.isValid()) (void)stagingFence_.wait();
        stagingBase_ = static_cast<Vec4*>(stagingData_);
    }
    return changed;
}

void GpuScene::convert(const Scene& scene, std::size_t changedIndex) const {
    ISC_ASSERT(changedIndex < stagingObjects_.size() && stagingBase_ != nullptr,
               "GpuScene::convert(): no such changed object (was beginSync() called?)");
    const ObjectId i = stagingObjects_[changedIndex];
    const auto local = scene.localVertices(i);
    Vec4* dst = stagingBase_ + ranges_[i].firstVertex;
    for (std::size_t v = 0; v < local.size(); ++v) dst[v] = Vec4(local[v], 1.0f);
}

void GpuScene::convertStreaming(const Scene& scene, std::size_t changedIndex) const {
    ISC_ASSERT(changedIndex < stagingObjects_.size() && stagingBase_ != nullptr,
               "GpuScene::convertStreaming(): no such changed object (was beginSync() called?)");
#if defined(__SSE2__)
    const ObjectId i = stagingObjects_[changedIndex];
    const auto local = scene.localVertices(i);
    Vec4* dst = stagingBase_ + ranges_[i].firstVertex;
    if ((reinterpret_cast<std::uintptr_t>(dst) & 15u) == 0) {  // (a mapping is aligned: always)
        float* out = &dst[0].x;
        for (std::size_t v = 0; v < local.size(); ++v)
            _mm_stream_ps(out + 4 * v, _mm_setr_ps(local[v].x, local[v].y, local[v].z, 1.0f));
        _mm_sfence();
        return;
    }
#endif
    convert(scene, changedIndex);  // ordinary stores
}

ConversionTeam::ConversionTeam(GpuScene& gpu, const Scene& scene, std::size_t changedCount, int pieces,
                               bool streaming, std::vector<std::uint8_t>& flags, std::function<void(std::size_t)> after)
    : gpu_(gpu), scene_(scene), count_(static_cast<std::int64_t>(changedCount)),
      piece_(pieces > 1 ? std::max<std::int64_t>(1, count_ / pieces) : 0), streaming_(streaming), flags_(flags),
      after_(std::move(after)) {
    flags_.assign(changedCount, 0);
}

bool ConversionTeam::convertNext() {
    const std::int64_t k = next_.fetch_add(1, std::memory_order_relaxed);
    if (k >= count_) return false;
    if (streaming_)
        gpu_.convertStreaming(scene_, std::size_t(k));
    else
        gpu_.convert(scene_, std::size_t(k));
    if (after_) after_(std::size_t(k));
    std::atomic_ref<std::uint8_t>(flags_[std::size_t(k)]).exchange(1, std::memory_order_acq_rel);
    return true;
}

std::int64_t ConversionTeam::convertAndCopy() {
    std::int64_t done = 0, copied = 0, copies = 0;
    for (;;) {  // converts while any are left, then spins until the others' are done
        (void)convertNext();
        while (done < count_ && std::atomic_ref<std::uint8_t>(flags_[std::size_t(done)]).load(std::memory_order_acquire) != 0)
            ++done;
        if (done == count_) break;
        if (piece_ > 0 && done - copied >= piece_) {
            gpu_.copyConverted(std::size_t(done));
            glFlush();
            copied = done;
            ++copies;
        }
    }
    return copies;
}

void GpuScene::copyConverted(std::size_t endChanged) {
    ISC_ASSERT(endChanged <= stagingObjects_.size(), "GpuScene::copyConverted(): no such changed object");
    auto copy = [&](std::size_t first, std::size_t end) {
        glCopyNamedBufferSubData(staging_.id(), vertices_.id(), static_cast<GLintptr>(first * sizeof(Vec4)),
                                 static_cast<GLintptr>(first * sizeof(Vec4)),
                                 static_cast<GLsizeiptr>((end - first) * sizeof(Vec4)));
    };
    std::size_t first = 0, end = 0;
    for (std::size_t k = copiedChanged_; k < endChanged; ++k) {
        const ObjectRange& r = ranges_[stagingObjects_[k]];
        if (end > first && r.firstVertex == end) {
            end += r.vertexCount;
            continue;
        }
        if (end > first) copy(first, end);
        first = r.firstVertex;
        end = first + r.vertexCount;
    }
    if (end > first) copy(first, end);
    copiedChanged_ = std::max(copiedChanged_, endChanged);
}

void GpuScene::endSync() {
    copyConverted(stagingObjects_.size());  // those copyConverted() has not recorded yet
    copiedChanged_ = 0;
    if (!stagingObjects_.empty()) stagingFence_ = Fence::insert();
    if (syncObjects_ > 0) objects_.upload(0, syncObjects_ * sizeof(GpuObject), records_.data());
}

void GpuScene::bind() const {
    vertices_.bindBase(GL_SHADER_STORAGE_BUFFER, ISC_BINDING_SCENE_VERTICES);
    indices_.bindBase(GL_SHADER_STORAGE_BUFFER, ISC_BINDING_SCENE_INDICES);
    objects_.bindBase(GL_SHADER_STORAGE_BUFFER, ISC_BINDING_SCENE_OBJECTS);
}

std::vector<DrawElementsIndirectCommand> GpuScene::drawCommands(std::span<const ObjectId> objects) const {
    std::vector<DrawElementsIndirectCommand> cmds;
    cmds.reserve(objects.size());
    for (ObjectId id : objects) {
        const ObjectRange& r = object(id);
        cmds.push_back({r.active ? r.triangleCount * 3 : 0u, 1u, r.firstTriangle * 3,
                        static_cast<std::int32_t>(r.firstVertex), id});
    }
    return cmds;
}

void GpuScene::writeDrawCommands(std::span<const ObjectId> objects, Buffer& indirect) const {
    const auto cmds = drawCommands(objects);
    const std::size_t bytes = cmds.size() * sizeof(DrawElementsIndirectCommand);
    if (indirect.size() < bytes || indirect.size() == 0) indirect.allocate(grown(bytes));
    if (bytes > 0) indirect.upload(0, bytes, cmds.data());
}

}  // namespace isc::gl
