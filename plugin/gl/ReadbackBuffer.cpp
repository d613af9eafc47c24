#include "isc/gl/ReadbackBuffer.h"

#include "isc/gl/Fence.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace isc::gl {

namespace {
constexpr GLbitfield kStorage = GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT | GL_CLIENT_STORAGE_BIT;
constexpr GLbitfield kAccess = GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
}  // namespace

Result<void> MappedCopy::reserve(std::size_t bytes, std::size_t most) {
    if (data_ != nullptr && staging_.size() >= bytes) return {};
    bytes = std::max<std::size_t>(bytes, 64);
    staging_.allocate(withHeadroom(bytes, most), nullptr, kStorage);
    data_ = staging_.mapPersistent(kAccess);
    if (data_ == nullptr)
        return fail("could not map a read-back buffer of " + std::to_string(staging_.size()) +
                    " bytes (glMapNamedBufferRange failed: out of host memory?); use fewer or smaller batches");
    return {};
}

void MappedCopy::copyFrom(const Buffer& source, std::size_t sourceOffset, std::size_t bytes, std::size_t offset) const {
    if (sourceOffset >= source.size() || offset >= size()) return;
    bytes = std::min({bytes, source.size() - sourceOffset, size() - offset});
    if (bytes > 0)
        glCopyNamedBufferSubData(source.id(), staging_.id(), static_cast<GLintptr>(sourceOffset),
                                 static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(bytes));
}

Result<void> waitForGpu(std::string_view what) {
    if (!Fence::insert().wait(std::uint64_t(60) * 1000000000))
        return fail(std::string(what) + ": the GPU did not finish within 60 s (a driver reset or a hung GPU?)");
    return {};
}

ReadbackBuffer::ReadbackBuffer(std::string_view label)
    : buffer_(label), copy_(std::string(label) + " (mapped copy)") {}

Result<void> ReadbackBuffer::reserve(std::size_t bytes) {
    if (buffer_.size() >= bytes && copy_.data() != nullptr) return {};
    buffer_.allocate(std::max<std::size_t>(bytes, 64));
    return copy_.reserve(buffer_.size(), buffer_.size());
}

}  // namespace isc::gl
