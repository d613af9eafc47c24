#pragma once
/// Read-back without glGetBufferSubData: a GPU copy into a persistently mapped host buffer
/// before the call's fence, then the CPU reads the mapping in place.
///
/// Why: a buffer that shaders write and the CPU reads with glGetBufferSubData is moved by
/// NVIDIA's driver to host memory after a few calls ("Buffer performance warning ... copied/
/// moved from VIDEO memory to HOST memory"), and from then on every shader atomic and store on
/// it crosses PCIe (peel's counters cost tens of milliseconds a call that way on the H100;
/// docs/architecture.md). The shaders keep writing device buffers; only the copies touch host
/// memory. Every member needs a current GL context.
#include "isc/core/Result.h"
#include "isc/gl/Buffer.h"

#include <cstddef>
#include <string_view>

namespace isc::gl {

/// A persistently mapped, coherent host buffer that device buffers' ranges are copied into
/// (glCopyNamedBufferSubData). Read data() only after a fence inserted after the copies has
/// signalled. Storage grows, never shrinks; growing re-creates (and re-maps) it, so pointers
/// from data() are invalid after reserve().
class MappedCopy {
public:
    explicit MappedCopy(std::string_view label) : staging_(label) {}
    /// Storage for at least `bytes`; when it must grow, withHeadroom(bytes, most) (Buffer.h:
    /// `most` = `bytes` for exactly that). An Error when the driver cannot map it (out of host
    /// memory).
    [[nodiscard]] Result<void> reserve(std::size_t bytes, std::size_t most = 0);
    /// Records the copy of `bytes` of `source` from `sourceOffset` to `offset` of the mapping
    /// (clamped to both sizes). Put glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT) between the
    /// shaders that wrote `source` and this.
    void copyFrom(const Buffer& source, std::size_t sourceOffset, std::size_t bytes, std::size_t offset) const;
    const void* data() const { return data_; }
    /// The mapping at byte `offset`, as T (offset must be aligned for T).
    template <class T>
    const T* at(std::size_t offset) const {
        return reinterpret_cast<const T*>(static_cast<const std::byte*>(data_) + offset);
    }
    std::size_t size() const { return data_ != nullptr ? staging_.size() : 0; }

private:
    Buffer staging_;
    const void* data_ = nullptr;
};

/// Inserts a fence after the commands issued so far and waits for it (60 s at most): the wait
/// before reading a MappedCopy. An Error naming `what` when the GPU does not get there.
[[nodiscard]] Result<void> waitForGpu(std::string_view what);

/// A buffer the shaders write in device memory, and its MappedCopy of the same size. The
/// shaders use `buffer()` and the call ends with `copyOut(bytes)` (a GPU copy into the mapping,
/// before the fence); after the fence the CPU reads `data()` in place, with no
/// glGetBufferSubData and no second wait.
class ReadbackBuffer {
public:
    explicit ReadbackBuffer(std::string_view label);
    /// Storage for at least `bytes` (both re-created, the copy re-mapped, when larger is needed).
    [[nodiscard]] Result<void> reserve(std::size_t bytes);
    const Buffer& buffer() const { return buffer_; }
    Buffer& buffer() { return buffer_; }
    /// Records the copy of the first `bytes` into the mapped copy.
    void copyOut(std::size_t bytes) const { copy_.copyFrom(buffer_, 0, bytes, 0); }
    /// Records the copy of the first `bytes` of `source` (another buffer) into the mapped copy.
    void copyFrom(const Buffer& source, std::size_t bytes) const { copy_.copyFrom(source, 0, bytes, 0); }
    const void* data() const { return copy_.data(); }
    std::size_t size() const { return buffer_.size(); }

private:
    Buffer buffer_;
    MappedCopy copy_;
};

}  // namespace isc::gl
