#pragma once
/// The GPU mirror of an isc::Scene: one vertex buffer, one index buffer, one object SSBO.
#include "isc/core/Types.h"
#include "isc/gl/Bindings.h"
#include "isc/gl/Buffer.h"
#include "isc/gl/Fence.h"
#include "isc/gl/VertexArray.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace isc {
class Scene;
}

namespace isc::gl {

/// Where one object's data lives in the GpuScene buffers.
struct ObjectRange {
    std::uint32_t firstVertex = 0;    ///< in vertexBuffer(), vec4 units
    std::uint32_t vertexCount = 0;
    std::uint32_t firstTriangle = 0;  ///< in indexBuffer(), triangles (3 uints each)
    std::uint32_t triangleCount = 0;
    MeshId mesh = 0;
    bool deformed = false;            ///< has its own vertex range (Scene::isDeformed)
    bool active = true;               ///< active and with a finite pose
};

/// One glMultiDrawElementsIndirect record (GL's layout).
struct DrawElementsIndirectCommand {
    std::uint32_t count;          ///< indices
    std::uint32_t instanceCount;
    std::uint32_t firstIndex;
    std::int32_t baseVertex;
    std::uint32_t baseInstance;   ///< = object id (reaches shaders through ISC_ATTRIB_OBJECT_ID)
};

/// Mirrors an isc::Scene on the GPU for the image-space detectors and the renderer.
///
/// Layout (see docs/gl.md): every mesh's local vertices once in vertexBuffer() (vec4, w = 1),
/// every mesh's triangles once in indexBuffer() (uint, relative to the mesh's first vertex);
/// each deformed object gets its own vertex range, re-uploaded only when the scene's
/// vertexVersion changes; objectBuffer() holds one GpuObject per object (model matrix and
/// ranges), rewritten on every sync(). Buffers grow (re-created) only when meshes or objects
/// are added; steps that only move or deform objects keep the same GL names.
/// Every member needs a current GL context.
class GpuScene {
public:
    /// Empty; buffers are made by the first sync(). `label` prefixes the buffer labels.
    explicit GpuScene(std::string_view label = "scene");
    GpuScene(GpuScene&&) noexcept = default;
    GpuScene& operator=(GpuScene&&) noexcept = default;
    GpuScene(const GpuScene&) = delete;
    GpuScene& operator=(const GpuScene&) = delete;

    /// Uploads meshes added since the last sync, the deformed vertices whose version changed,
    /// and all object records (poses, active flags). Another scene than the last one
    /// (Scene::uid()) is laid out afresh.
    void sync(const Scene& scene);
    /// sync() in three steps, for a caller that converts the changed vertices on its own
    /// threads beside other work: beginSync() does all of sync() but the conversion and the
    /// copies, and returns the objects whose vertices are to be converted (valid until the next
    /// sync); convert() converts one of them (by its index in that list) into the staging
    /// buffer, from any thread, each index once; endSync(), after every convert(), records the
    /// copies to the vertex buffer and the object records. Only beginSync() and endSync() need
    /// the GL context.
    std::span<const ObjectId> beginSync(const Scene& scene);
    void convert(const Scene& scene, std::size_t changedIndex) const;
    /// convert() with non-temporal stores (the same values; no read of the staging's lines
    /// before they are written) and a store fence at the end: for a caller that measured it
    /// faster (peel). An addition: convert() is unchanged.
    void convertStreaming(const Scene& scene, std::size_t changedIndex) const;
    /// Optional, between convert() and endSync(): records the copies of the changed objects
    /// [first not yet copied, endChanged) (indices into beginSync()'s list, each converted
    /// already and its stores made visible, e.g. by a locked atomic operation after them), so
    /// that the GPU copies them while the rest are converted; endSync() copies the rest.
    void copyConverted(std::size_t endChanged);
    void endSync();
    /// Binds the three SSBOs to ISC_BINDING_SCENE_VERTICES / _INDICES / _OBJECTS.
    void bind() const;

    const Buffer& vertexBuffer() const { return vertices_; }
    const Buffer& indexBuffer() const { return indices_; }
    const Buffer& objectBuffer() const { return objects_; }
    /// VAO with indexBuffer() as element buffer and the object id attribute
    /// (ISC_ATTRIB_OBJECT_ID, uint, divisor 1, value = instance + baseInstance). Draw with
    /// writeDrawCommands + glMultiDrawElementsIndirect; the vertex shader pulls positions
    /// from the vertex SSBO with gl_VertexID (= index + baseVertex).
    const VertexArray& vertexArray() const { return vao_; }

    /// Ranges of object `id` (< objectCount(), asserted).
    const ObjectRange& object(ObjectId id) const;
    std::size_t objectCount() const { return ranges_.size(); }
    /// Sum of triangleCount over all objects (active or not).
    std::uint32_t totalTriangles() const { return totalTriangles_; }
    /// Vertices in vertexBuffer() (meshes + deformed ranges).
    std::uint32_t totalVertices() const { return vertexCount_; }
    /// Times sync() uploaded deformed vertices (for tests and statistics).
    std::uint64_t deformedUploads() const { return deformedUploads_; }

    /// Fills `indirect` with one DrawElementsIndirectCommand per object of `objects`
    /// (instanceCount 1, baseInstance = object id; inactive objects get count 0), growing it
    /// when too small (storage GL_DYNAMIC_STORAGE_BIT). Bind it to GL_DRAW_INDIRECT_BUFFER
    /// and call glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT, 0, objects.size(), 0).
    void writeDrawCommands(std::span<const ObjectId> objects, Buffer& indirect) const;
    /// The commands writeDrawCommands would upload (CPU side).
    std::vector<DrawElementsIndirectCommand> drawCommands(std::span<const ObjectId> objects) const;

private:
    struct MeshRange {
        std::uint32_t firstVertex = 0, vertexCount = 0, firstTriangle = 0, triangleCount = 0;
    };
    void rebuild(const Scene& scene);

    std::string label_;
    Buffer vertices_, indices_, objects_, objectIds_;
    VertexArray vao_;
    std::vector<MeshRange> meshes_;
    std::vector<ObjectRange> ranges_;
    std::vector<std::uint64_t> uploadedVersion_;
    std::vector<GpuObject> records_;
    Buffer staging_;  // deformed vertices, persistently mapped for writing
    void* stagingData_ = nullptr;
    Fence stagingFence_;  // after the last copies out of staging_
    std::vector<ObjectId> stagingObjects_;                          // one sync's changed objects
    Vec4* stagingBase_ = nullptr;                                   // beginSync()'s staging map
    std::size_t syncObjects_ = 0;                                   // beginSync()'s object count
    std::size_t copiedChanged_ = 0;                                 // changed objects copyConverted() recorded
    std::uint32_t vertexCount_ = 0, triangleCount_ = 0, totalTriangles_ = 0;
    std::uint64_t deformedUploads_ = 0;
    std::size_t syncedMeshes_ = 0;
    std::uint64_t sceneUid_ = 0;  // Scene::uid() of the scene laid out (0: none yet)
};

/// The conversion of a GpuScene's changed objects shared by a team of threads, the copy
/// recorded in pieces (peel's and cullide's fused set-up): inside an OpenMP parallel region,
/// between GpuScene::beginSync() and endSync(), the thread with the GL context calls
/// convertAndCopy() and every other thread convertNext() until it returns false. Each changed
/// object is converted once, then `after(index)` runs on the same thread (its vertices still in
/// cache); a locked exchange then marks it converted (and drains the thread's write-combined
/// stores to the mapped staging buffer before it). endSync() stays the caller's.
class ConversionTeam {
public:
    /// `changedCount`: beginSync()'s list size; `pieces` > 1: the copy recorded (and flushed)
    /// each time another changedCount / pieces objects are converted, in order, so that the GPU
    /// copies them while the rest are converted; `flags`: one byte per changed object, the
    /// caller's (kept across calls), reset here; `streaming`: GpuScene::convertStreaming.
    ConversionTeam(GpuScene& gpu, const Scene& scene, std::size_t changedCount, int pieces, bool streaming,
                   std::vector<std::uint8_t>& flags, std::function<void(std::size_t)> after = {});
    /// Converts the next object not taken; false when none is left. Any thread.
    bool convertNext();
    /// The GL thread: converts while any is left, then waits for the others', recording the
    /// copies on the way; returns how many it recorded.
    std::int64_t convertAndCopy();

private:
    GpuScene& gpu_;
    const Scene& scene_;
    std::int64_t count_;
    std::int64_t piece_;
    bool streaming_;
    std::vector<std::uint8_t>& flags_;
    std::function<void(std::size_t)> after_;
    std::atomic<std::int64_t> next_{0};
};

}  // namespace isc::gl
