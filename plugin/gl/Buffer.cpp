#include "isc/gl/Buffer.h"

#include "isc/core/Assert.h"

#include <algorithm>
#include <cmath>
#include <atomic>
#include <bit>
#include <cstdlib>
#include <map>
#include <mutex>
#include <utility>
#include <vector>
#include <numeric>

namespace isc::gl {

namespace {

std::atomic<std::size_t> liveBytes{0};
std::atomic<std::size_t> peakBytes{0};

std::size_t limitFromEnvironment() {
    const char* mb = std::getenv("ISC_GL_BUFFER_LIMIT_MB");
    if (mb == nullptr || *mb == '\0') return 0;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(mb, &end, 10);
    return end != nullptr && *end == '\0' ? static_cast<std::size_t>(v) << 20 : 0;
}

std::atomic<std::size_t>& limitBytes() {
    static std::atomic<std::size_t> limit{limitFromEnvironment()};
    return limit;
}

// Live bytes per label (bufferBytesByLabel); storage changes are rare (allocate, destroy), so
// a lock is cheap here.
std::mutex labelMutex;
std::map<std::string, std::size_t, std::less<>>& labelBytes() {
    // Never destroyed: a Buffer destroyed during static destruction still finds it.
    static auto* bytes = new std::map<std::string, std::size_t, std::less<>>;
    return *bytes;
}

void trackLabel(std::string_view label, std::size_t freed, std::size_t added) {
    if (freed == added) return;
    const std::lock_guard lock(labelMutex);
    auto& bytes = labelBytes();
    auto it = bytes.find(label);
    if (it == bytes.end()) it = bytes.emplace(std::string(label), 0).first;
    it->second = it->second + added - freed;
    if (it->second == 0) bytes.erase(it);
}

void track(std::size_t freed, std::size_t added) {
    const std::size_t now = liveBytes.fetch_add(added) + added - freed;
    liveBytes.fetch_sub(freed);
    std::size_t peak = peakBytes.load();
    while (now > peak && !peakBytes.compare_exchange_weak(peak, now)) {
    }
}

}  // namespace

std::size_t bufferBytes() { return liveBytes.load(); }
std::size_t bufferBytesPeak() { return peakBytes.load(); }

std::vector<std::pair<std::string, std::size_t>> bufferBytesByLabel() {
    const std::lock_guard lock(labelMutex);
    return {labelBytes().begin(), labelBytes().end()};
}
void setBufferByteLimit(std::size_t bytes) { limitBytes().store(bytes); }
std::size_t bufferByteLimit() { return limitBytes().load(); }

Buffer::Buffer(std::string_view label) : label_(label) {
    glCreateBuffers(1, &id_);
    detail::countObject(ObjectKind::Buffer, 1);
    if (!label_.empty()) glObjectLabel(GL_BUFFER, id_, static_cast<GLsizei>(label_.size()), label_.data());
}

Buffer::Buffer(Buffer&& other) noexcept
    : id_(std::exchange(other.id_, 0)), size_(std::exchange(other.size_, 0)),
      flags_(std::exchange(other.flags_, 0)), mapped_(std::exchange(other.mapped_, nullptr)),
      label_(std::move(other.label_)) {}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
    if (this != &other) {
        std::swap(id_, other.id_);
        std::swap(size_, other.size_);
        std::swap(flags_, other.flags_);
        std::swap(mapped_, other.mapped_);
        std::swap(label_, other.label_);
    }
    return *this;
}

Buffer::~Buffer() {
    deleteName();
    track(size_, 0);
    trackLabel(label_, size_, 0);
}

void Buffer::deleteName() {
    if (id_ == 0) return;
    // Deleting a mapped buffer unmaps it (GL 4.5, 6.3.1), but say so: a driver that keeps the
    // mapping's pages until the name's last use is gone has no reason to here.
    unmap();
    glDeleteBuffers(1, &id_);
    detail::countObject(ObjectKind::Buffer, -1);
    id_ = 0;
}

void* Buffer::mapPersistent(GLbitfield access) {
    ISC_ASSERT(id_ != 0 && size_ != 0, "Buffer::mapPersistent(): no storage");
    ISC_ASSERT((flags_ & GL_MAP_PERSISTENT_BIT) != 0, "Buffer::mapPersistent(): storage lacks GL_MAP_PERSISTENT_BIT");
    unmap();
    mapped_ = glMapNamedBufferRange(id_, 0, static_cast<GLsizeiptr>(size_), access);
    if (mapped_ != nullptr) detail::countObject(ObjectKind::MappedBuffer, 1);
    return mapped_;
}

void Buffer::unmap() {
    if (mapped_ == nullptr) return;
    glUnmapNamedBuffer(id_);
    detail::countObject(ObjectKind::MappedBuffer, -1);
    mapped_ = nullptr;
}

void Buffer::allocate(std::size_t bytes, const void* data, GLbitfield flags) {
    ISC_ASSERT(bytes > 0, "Buffer::allocate(): zero bytes (GL refuses empty storage)");
    // Immutable storage cannot be resized: a new name, same label.
    if (id_ != 0 && size_ != 0) deleteName();
    if (id_ == 0) {
        glCreateBuffers(1, &id_);
        detail::countObject(ObjectKind::Buffer, 1);
        if (!label_.empty()) glObjectLabel(GL_BUFFER, id_, static_cast<GLsizei>(label_.size()), label_.data());
    }
    glNamedBufferStorage(id_, static_cast<GLsizeiptr>(bytes), data, flags);
    track(size_, bytes);
    trackLabel(label_, size_, bytes);
    size_ = bytes;
    flags_ = flags;
}

bool Buffer::reserve(std::size_t bytes, GLbitfield flags) {
    if (id_ != 0 && size_ >= bytes && flags_ == flags && size_ != 0) return false;
    allocate(bytes == 0 ? 4 : bytes, nullptr, flags);
    return true;
}

std::size_t withHeadroom(std::size_t bytes, std::size_t most) {
    std::size_t grown = std::bit_ceil(std::max<std::size_t>(256, bytes + bytes / 2));
    if (most != 0) grown = std::min(grown, most);
    return std::max(grown, bytes);
}

int grownSide(int need, int have, std::uint32_t most) {
    return std::max({need, have, std::min(need + need / 2, int(most))});
}

std::pair<std::uint32_t, std::uint32_t> fullBatchAtlas(std::uint32_t R, std::size_t maxPixels) {
    const auto n = static_cast<std::uint32_t>(std::max<std::size_t>(1, maxPixels / (std::size_t(R) * R)));
    const std::uint32_t tilesX = std::max<std::uint32_t>(1, std::uint32_t(std::ceil(std::sqrt(double(n)))));
    return {tilesX * R, (n + tilesX - 1) / tilesX * R};
}

bool Buffer::reserveWithHeadroom(std::size_t bytes, std::size_t most, GLbitfield flags) {
    if (id_ != 0 && size_ >= bytes && flags_ == flags && size_ != 0) return false;
    allocate(withHeadroom(std::max<std::size_t>(bytes, 4), most), nullptr, flags);
    return true;
}

bool Buffer::reserveSequence(std::uint32_t count) {
    const std::size_t have = size_ / sizeof(std::uint32_t);
    if (have >= count) return false;
    std::vector<std::uint32_t> ids(std::max<std::size_t>(count, 2 * have));
    std::iota(ids.begin(), ids.end(), 0u);
    allocate(ids.size() * sizeof(std::uint32_t), ids.data(), 0);
    return true;
}

void Buffer::upload(std::size_t offset, std::size_t bytes, const void* data) {
    ISC_ASSERT(offset + bytes <= size_, "Buffer::upload(): range past the end of the buffer");
    ISC_ASSERT((flags_ & GL_DYNAMIC_STORAGE_BIT) != 0, "Buffer::upload(): storage lacks GL_DYNAMIC_STORAGE_BIT");
    if (bytes == 0) return;
    glNamedBufferSubData(id_, static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(bytes), data);
}

void Buffer::read(std::size_t offset, std::size_t bytes, void* out) const {
    ISC_ASSERT(offset + bytes <= size_, "Buffer::read(): range past the end of the buffer");
    if (bytes == 0) return;
    glGetNamedBufferSubData(id_, static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(bytes), out);
}

void Buffer::clearZero(std::size_t offset, std::size_t bytes) {
    ISC_ASSERT(offset + bytes <= size_, "Buffer::clearZero(): range past the end of the buffer");
    ISC_ASSERT(offset % 4 == 0 && bytes % 4 == 0, "Buffer::clearZero(): offset and size must be multiples of 4");
    if (bytes == 0) return;
    const GLuint zero = 0;
    glClearNamedBufferSubData(id_, GL_R32UI, static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(bytes),
                              GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
}

void Buffer::bindBase(GLenum target, GLuint index) const { glBindBufferBase(target, index, id_); }

void Buffer::bindRange(GLenum target, GLuint index, std::size_t offset, std::size_t bytes) const {
    glBindBufferRange(target, index, id_, static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(bytes));
}

void Buffer::bind(GLenum target) const { glBindBuffer(target, id_); }

GLuint Buffer::release() {
    track(size_, 0);  // the caller owns it now (mapped or not)
    trackLabel(label_, size_, 0);
    if (id_ != 0) detail::countObject(ObjectKind::Buffer, -1);
    if (mapped_ != nullptr) detail::countObject(ObjectKind::MappedBuffer, -1);
    mapped_ = nullptr;
    size_ = 0;
    flags_ = 0;
    return std::exchange(id_, 0);
}

}  // namespace isc::gl
