#pragma once
/// A GL buffer object (immutable storage through glNamedBufferStorage).
#include "isc/gl/Gl.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>
#include <string>
#include <string_view>
#include <utility>

namespace isc::gl {

/// Bytes of GL buffer storage that bullet-isc holds now: every gl::Buffer's storage, in all
/// contexts (the soak bench records it; docs/robustness.md). Needs no GL context.
std::size_t bufferBytes();
/// The largest bufferBytes() so far in this process.
std::size_t bufferBytesPeak();
/// bufferBytes() by buffer label (a detector's buffers are labelled with its name first:
/// "cinder hits", "cinder scene.vertices"), in label order; labels whose buffers hold no
/// storage now are left out. What the soak bench prints when a buffer grows. Needs no GL context.
std::vector<std::pair<std::string, std::size_t>> bufferBytesByLabel();
/// A budget for bufferBytes(), bytes; 0 (the default) is none. The environment variable
/// ISC_GL_BUFFER_LIMIT_MB sets it (mebibytes) at the first allocation. Allocations past it
/// still happen (GL has no partial failure that later calls could survive), but while
/// bufferBytes() is over the budget every checkError() fails with a message naming the
/// limit, so a detector's detect() returns that Error and the dispatcher serves its pairs
/// with the exact `cpu` detector. Also what turns a driver's GL_OUT_OF_MEMORY into a
/// message saying how much bullet-isc holds. Needs no GL context.
void setBufferByteLimit(std::size_t bytes);
/// The budget in force (0: none).
std::size_t bufferByteLimit();

/// Bytes to allocate for storage that must hold `bytes` now and whose need goes up and down:
/// half again, rounded up to a power of two (at least 256), then at most `most` when not 0
/// (never less than `bytes`). Needs no GL context.
std::size_t withHeadroom(std::size_t bytes, std::size_t most = 0);

/// A render target's side grown with headroom: `need` now, `have` already, half again over
/// `need` but at most `most`; never less than `need` or `have` (a target re-made at every new
/// high is device memory that creeps up). Needs no GL context.
int grownSide(int need, int have, std::uint32_t most);

/// The atlas (width, height in pixels) of a full batch of R x R tiles when a batch holds at
/// most `maxPixels` pixels, laid out as the tile detectors (heightmap, slices) lay out a
/// batch: ceil(sqrt(n)) tiles a row. What per-pixel buffers and targets can ever need.
std::pair<std::uint32_t, std::uint32_t> fullBatchAtlas(std::uint32_t R, std::size_t maxPixels);

/// Move-only RAII buffer: copy deleted, moves noexcept, a moved-from Buffer holds id 0.
/// Every member needs a current GL context.
class Buffer {
public:
    /// No GL object (id 0). Useful as a member to fill later.
    Buffer() noexcept = default;
    /// Creates a buffer name (glCreateBuffers) labelled `label`, no storage yet.
    explicit Buffer(std::string_view label);
    Buffer(Buffer&& other) noexcept;
    Buffer& operator=(Buffer&& other) noexcept;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer();

    /// Immutable storage of `bytes` bytes, filled from `data` when not null. Storage is
    /// immutable in GL, so calling it again deletes the name and creates a new one (same
    /// label): id() changes. `flags`: glBufferStorage flags (GL_DYNAMIC_STORAGE_BIT allows upload()).
    void allocate(std::size_t bytes, const void* data = nullptr, GLbitfield flags = GL_DYNAMIC_STORAGE_BIT);
    /// allocate() unless the current storage already has at least `bytes` bytes and the same
    /// flags. Returns true when the buffer was (re)created.
    bool reserve(std::size_t bytes, GLbitfield flags = GL_DYNAMIC_STORAGE_BIT);
    /// reserve() for storage whose need goes up and down from call to call (a pile's pairs,
    /// views, pixels): when the storage is too small, allocate(withHeadroom(bytes, most)), so a
    /// new high a little above the last does not re-create it (the soak, docs/robustness.md).
    /// `most`: what the caller can ever need (0: no bound); the headroom stops there.
    bool reserveWithHeadroom(std::size_t bytes, std::size_t most = 0, GLbitfield flags = GL_DYNAMIC_STORAGE_BIT);
    /// reserveWithHeadroom() for `values`, then upload() them at offset 0.
    template <class T>
    void assignWithHeadroom(const std::vector<T>& values) {
        reserveWithHeadroom(values.size() * sizeof(T));
        upload(0, values);
    }
    /// glNamedBufferSubData. Needs GL_DYNAMIC_STORAGE_BIT; offset + bytes <= size() (asserted).
    void upload(std::size_t offset, std::size_t bytes, const void* data);
    template <class T, std::size_t N>
    void upload(std::size_t offset, std::span<T, N> values) {
        upload(offset, values.size_bytes(), values.data());
    }
    template <class T>
    void upload(std::size_t offset, const std::vector<T>& values) {
        upload(offset, values.size() * sizeof(T), values.data());
    }
    /// reserve() for `values` (default flags), then upload() them at offset 0.
    template <class T>
    void assign(const std::vector<T>& values) {
        reserve(values.size() * sizeof(T));
        upload(0, values);
    }
    /// At least `count` uint32s holding 0, 1, 2, ...: a per-draw id stream read with divisor 1
    /// (GL 4.5 core has no gl_DrawID), grown to twice what is asked. Immutable storage. True when
    /// (re)created: vertex arrays that read it must be pointed at it again.
    bool reserveSequence(std::uint32_t count);
    /// glGetNamedBufferSubData: blocks until the GPU wrote it. offset + bytes <= size() (asserted).
    void read(std::size_t offset, std::size_t bytes, void* out) const;
    template <class T, std::size_t N>
    void read(std::size_t offset, std::span<T, N> out) const {
        read(offset, out.size_bytes(), out.data());
    }
    template <class T>
    void read(std::size_t offset, std::vector<T>& out) const {
        read(offset, out.size() * sizeof(T), out.data());
    }
    /// Sets every byte range to zero (glClearNamedBufferSubData with R32UI 0; bytes multiple of 4).
    void clearZero(std::size_t offset, std::size_t bytes);
    void clearZero() { clearZero(0, size_); }
    /// glBindBufferBase(target, index, id): GL_SHADER_STORAGE_BUFFER, GL_UNIFORM_BUFFER, ...
    void bindBase(GLenum target, GLuint index) const;
    /// glBindBufferRange(target, index, id, offset, bytes).
    void bindRange(GLenum target, GLuint index, std::size_t offset, std::size_t bytes) const;
    /// glBindBuffer(target, id): e.g. GL_DRAW_INDIRECT_BUFFER, GL_DISPATCH_INDIRECT_BUFFER.
    void bind(GLenum target) const;

    /// Maps the whole storage (glMapNamedBufferRange with `access`, which must include
    /// GL_MAP_PERSISTENT_BIT, as the storage flags must) and returns the pointer (null on
    /// failure). The mapping is counted (liveObjects(): mapped) and ends with unmap(), a new
    /// allocate() or the destructor, which unmap before deleting the name.
    void* mapPersistent(GLbitfield access);
    /// glUnmapNamedBuffer when mapped by mapPersistent(); nothing otherwise.
    void unmap();
    /// The pointer mapPersistent() returned, null when not mapped.
    void* mapped() const { return mapped_; }

    /// Bytes of storage (0 before allocate()).
    std::size_t size() const { return size_; }
    GLuint id() const { return id_; }
    const std::string& label() const { return label_; }
    /// Gives up ownership: returns the id and leaves this Buffer holding 0.
    GLuint release();

private:
    GLuint id_ = 0;
    std::size_t size_ = 0;
    GLbitfield flags_ = 0;
    void* mapped_ = nullptr;
    std::string label_;

    void deleteName();
};

}  // namespace isc::gl
