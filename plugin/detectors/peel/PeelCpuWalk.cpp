#include "PeelCpuWalk.h"

#include <chrono>
#include <cstring>

namespace isc::peel {

void PeelCpuWalk::begin(std::span<const gl::PeelPart> parts, std::span<const gl::PeelPair> pairs,
                        std::uint32_t nodeTotal, std::size_t capacity, std::uint32_t recordUvec4, bool atBoxes) {
    parts_ = parts;
    pairs_ = pairs;
    recordUvec4_ = recordUvec4;
    withBoxes_ = recordUvec4 == 5u;
    capacity_ = capacity;
    hostBoxes_.resize(nodeTotal);
    const std::size_t bytes = capacity * recordUvec4 * sizeof(glm::uvec4);
    if (staging_.size() < bytes || stagingData_ == nullptr) {
        const GLbitfield flags = GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
        staging_ = gl::Buffer("peel cluster pairs (staging)");
        staging_.allocate(bytes, nullptr, flags);
        stagingData_ = static_cast<glm::uvec4*>(staging_.mapPersistent(flags));
    }
    count_.store(0);
    with_.store(0);
    tests_.store(0);
    threadNs_.store(0);
    partsBoxed_.store(0);
    if (!atBoxes) return;
    // Per part, its pairs of parts (a counting sort).
    partPairBegin_.assign(parts.size() + 1, 0);
    for (const gl::PeelPair& pr : pairs) {
        ++partPairBegin_[pr.partA + 1];
        if (pr.partB != pr.partA) ++partPairBegin_[pr.partB + 1];
    }
    for (std::size_t i = 0; i < parts.size(); ++i) partPairBegin_[i + 1] += partPairBegin_[i];
    partPairs_.resize(partPairBegin_.back());
    std::vector<std::uint32_t> fill(partPairBegin_.begin(), partPairBegin_.end() - 1);
    for (std::uint32_t k = 0; k < pairs.size(); ++k) {
        partPairs_[fill[pairs[k].partA]++] = k;
        if (pairs[k].partB != pairs[k].partA) partPairs_[fill[pairs[k].partB]++] = k;
    }
    if (partBoxed_.size() < parts.size() * stride_)
        partBoxed_ = std::vector<std::atomic<std::uint8_t>>(parts.size() * stride_);
    if (pairClaimed_.size() < pairs.size() * stride_)
        pairClaimed_ = std::vector<std::atomic<std::uint8_t>>(pairs.size() * stride_);
    for (std::size_t i = 0; i < parts.size(); ++i) partBoxed_[i * stride_].store(0, std::memory_order_relaxed);
    for (std::size_t i = 0; i < pairs.size(); ++i) pairClaimed_[i * stride_].store(0, std::memory_order_relaxed);
}

// Walks pair k into the staging buffer (one atomic per pair of parts with cluster pairs; a list
// longer than the buffer is counted, not written: the caller sees !fitted()).
void PeelCpuWalk::walkPair(const PeelClusters& clusters, std::size_t k, Scratch& scratch) {
    const gl::PeelPair& pr = pairs_[k];
    scratch.found.clear();
    scratch.tests += branchless_ ? clusters.walkPairBranchless(parts_[pr.partA], parts_[pr.partB], pr, hostBoxes_.data(),
                                                               scratch.found, scratch.stack, withBoxes_)
                                 : clusters.walkPair(parts_[pr.partA], parts_[pr.partB], pr, hostBoxes_.data(),
                                                     scratch.found, scratch.stack, withBoxes_);
    if (scratch.found.empty()) return;
    const std::size_t m = scratch.found.size() / recordUvec4_;
    const std::size_t at = count_.fetch_add(m, std::memory_order_relaxed);
    with_.fetch_add(1, std::memory_order_relaxed);
    if (at + m <= capacity_)
        std::memcpy(stagingData_ + recordUvec4_ * at, scratch.found.data(), scratch.found.size() * sizeof(glm::uvec4));
}

void PeelCpuWalk::partBoxed(const PeelClusters& clusters, std::uint32_t part, Scratch& scratch) {
    const std::size_t st = stride_;
    partBoxed_[part * st].store(1);  // sequentially consistent (see the header)
    partsBoxed_.fetch_add(1);
    const auto t0 = std::chrono::steady_clock::now();
    for (std::uint32_t i = partPairBegin_[part]; i < partPairBegin_[part + 1]; ++i) {
        const std::uint32_t k = partPairs_[i];
        const gl::PeelPair& pr = pairs_[k];
        const std::uint32_t other = pr.partA == part ? pr.partB : pr.partA;
        if (partBoxed_[other * st].load() == 0) continue;
        // Padded: a claim seen taken is not exchanged (no locked write to a line another
        // thread holds); a claim seen free is still taken by the exchange alone.
        if (st > 1 && pairClaimed_[k * st].load(std::memory_order_relaxed) != 0) continue;
        if (pairClaimed_[k * st].exchange(1) == 0) walkPair(clusters, k, scratch);
    }
    scratch.ns +=
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
}

void PeelCpuWalk::walk(const PeelClusters& clusters, std::size_t pair, Scratch& scratch) {
    const auto t0 = std::chrono::steady_clock::now();
    walkPair(clusters, pair, scratch);
    scratch.ns +=
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
}

void PeelCpuWalk::addTally(const Scratch& scratch) {
    tests_.fetch_add(scratch.tests, std::memory_order_relaxed);
    threadNs_.fetch_add(scratch.ns, std::memory_order_relaxed);
}

void PeelCpuWalk::copyRecords(const gl::Buffer& target) const {
    const std::size_t n = count_.load();
    if (n == 0) return;
    glCopyNamedBufferSubData(staging_.id(), target.id(), 0, 0,
                             static_cast<GLsizeiptr>(n * recordUvec4_ * sizeof(glm::uvec4)));
}

void PeelCpuWalk::copyCounts(const gl::Buffer& counters, std::uint32_t recordsWord, std::uint32_t withWord) {
    if (countsData_ == nullptr) {
        const GLbitfield flags = GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
        counts_.allocate(4 * sizeof(std::uint32_t), nullptr, flags);
        countsData_ = static_cast<std::uint32_t*>(counts_.mapPersistent(flags));
    }
    // The last call's copies out of it are done: that call waited for its fence.
    countsData_[0] = static_cast<std::uint32_t>(count_.load());
    countsData_[1] = with_.load();
    glCopyNamedBufferSubData(counts_.id(), counters.id(), 0, recordsWord * sizeof(std::uint32_t),
                             sizeof(std::uint32_t));
    glCopyNamedBufferSubData(counts_.id(), counters.id(), sizeof(std::uint32_t), withWord * sizeof(std::uint32_t),
                             sizeof(std::uint32_t));
}

void PeelCpuWalk::copyCountersBlock(const gl::Buffer& counters, std::uint32_t recordsWord, std::uint32_t withWord) {
    const std::size_t bytes = counters.size();
    if (block_.size() < bytes || blockData_ == nullptr) {
        const GLbitfield flags = GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
        block_ = gl::Buffer("peel counters' first values (staging)");
        block_.allocate(bytes, nullptr, flags);
        blockData_ = static_cast<std::uint32_t*>(block_.mapPersistent(flags));
    }
    // The last copy out of it is done: its call (or attempt) waited for its fence.
    std::memset(blockData_, 0, bytes);
    blockData_[recordsWord] = static_cast<std::uint32_t>(count_.load());
    blockData_[withWord] = with_.load();
    glCopyNamedBufferSubData(block_.id(), counters.id(), 0, 0, static_cast<GLsizeiptr>(bytes));
}

}  // namespace isc::peel
