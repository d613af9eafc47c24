#pragma once
// The peel detector's cluster walk on the CPU (docs/detectors/peel.md, "Round 2026-11-28 (branch
// peel-walk-12)"): where the CPU makes the cluster boxes (refit "cpu" on mostly deformed calls),
// the trees of each pair of parts are walked there, in the same parallel region as the boxes
// (PeelClusters::walkPair: cluster_walk.glsl's test and margin), and the records the GPU walk
// would write (PEEL_WALK_RECORDS, with the two clusters' boxes when `withBoxes`) are appended to a
// persistently mapped staging buffer, copied to the cluster pairs' buffer after the region; the
// GPU then runs only the triangle pairs. PeelScenePass drives it; private to
// plugin/detectors/peel. Needs a current GL context for begin(), copyRecords() and copyCounts().
#include "PeelClusters.h"

#include "isc/gl/Buffer.h"

#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

namespace isc::peel {

class PeelCpuWalk {
public:
    /// One thread's scratch and tally in the region (its records of one pair, its stack, the
    /// node-pair box tests it made and its time in the walk).
    struct Scratch {
        std::vector<glm::uvec4> found;
        std::vector<glm::uvec2> stack;
        std::size_t tests = 0;
        std::int64_t ns = 0;
    };

    /// Before the region, on the GL thread: host memory for `nodeTotal` boxes, the staging buffer
    /// for at least `capacity` records of `recordUvec4` uvec4 each (made larger when it holds
    /// fewer), the counts cleared. `atBoxes` (the default form): each pair is walked by the thread
    /// that boxed the later of its two parts (partBoxed()); else after a barrier (walk()).
    /// `parts` and `pairs` must stay alive and unchanged until finish().
    void begin(std::span<const gl::PeelPart> parts, std::span<const gl::PeelPair> pairs, std::uint32_t nodeTotal,
               std::size_t capacity, std::uint32_t recordUvec4, bool atBoxes);
    /// Which walk (the same records either way): `branchless` (the default)
    /// PeelClusters::walkPairBranchless() with each part's and each pair's flag (partBoxed()) on
    /// its own 64 bytes and a pair's claim read before it is exchanged, so that the threads'
    /// flags share no cache line; else walkPair() with one byte a flag (before branch
    /// peel-region-14b). Test hook ISC_PEEL_WALK_FORM in PeelScenePass. Before begin().
    void setForm(bool branchless) {
        branchless_ = branchless;
        stride_ = branchless ? 64u : 1u;
    }
    /// The call's node boxes in host memory (part p's node n at [p.nodeBase + n]): the CPU's
    /// boxes are written here (PeelClusters::refit's `copy`) and the walk reads them.
    gl::PeelBox* hostBoxes() { return hostBoxes_.data(); }
    const gl::PeelBox* hostBoxes() const { return hostBoxes_.data(); }

    /// In the region, by the thread that has just boxed part `part` (the `atBoxes` form): marks
    /// it boxed, then walks each of its pairs whose other part is boxed too and that no other
    /// thread claimed. Both flags are stored before each loads the other's (sequentially
    /// consistent), so at least one of a pair's two parts sees the other boxed, and the claim
    /// makes it exactly one walk.
    void partBoxed(const PeelClusters& clusters, std::uint32_t part, Scratch& scratch);
    /// Parts boxed so far (partBoxed() calls; acquire: their boxes are visible).
    std::int64_t partsBoxed() const { return partsBoxed_.load(std::memory_order_acquire); }
    /// In the region, after a barrier behind every box (the other form): walks pair `pair`.
    void walk(const PeelClusters& clusters, std::size_t pair, Scratch& scratch);
    /// A thread's tally, once, at the end of its share of the region.
    void addTally(const Scratch& scratch);

    /// After the region: whether every record fitted the staging buffer; the records (this
    /// call's cluster pairs, until the next begin()) and pairs of parts with any.
    bool fitted() const { return count_.load() <= capacity_; }
    std::size_t records() const { return count_.load(); }
    std::uint32_t pairsWithClusters() const { return with_.load(); }
    std::size_t tests() const { return tests_.load(); }
    double threadMs() const { return 1e-6 * double(threadNs_.load()); }
    /// After the region, when fitted(), on the GL thread: records the GPU copy of the records
    /// into `target` (from its offset 0).
    void copyRecords(const gl::Buffer& target) const;
    /// Records the GPU copies of the two counts (records, pairs of parts with any) into
    /// `counters` at words `recordsWord` and `withWord`. A GPU copy from a mapped buffer,
    /// ordered after the caller's clear: workaround "nvidia-subdata-into-counters" in
    /// docs/gl.md (a glNamedBufferSubData there lost the value from the second call on).
    void copyCounts(const gl::Buffer& counters, std::uint32_t recordsWord, std::uint32_t withWord);
    /// copyCounts() and the counters' clear in one: every word of `counters` (its whole size)
    /// zero but the two counts, one GPU copy from a mapped buffer (the default; test hook ISC_PEEL_TRI_PAIRS=copy: copyCounts() after a clear).
    void copyCountersBlock(const gl::Buffer& counters, std::uint32_t recordsWord, std::uint32_t withWord);

private:
    void walkPair(const PeelClusters& clusters, std::size_t pair, Scratch& scratch);

    std::span<const gl::PeelPart> parts_;
    std::span<const gl::PeelPair> pairs_;
    std::uint32_t recordUvec4_ = 5;
    bool withBoxes_ = true;
    bool branchless_ = true;
    std::size_t stride_ = 1;  // flags' spacing in partBoxed_ and pairClaimed_ (64: padded)
    std::vector<gl::PeelBox> hostBoxes_;
    std::vector<std::uint32_t> partPairBegin_, partPairs_;  // per part, its pairs of parts (atBoxes)
    std::vector<std::atomic<std::uint8_t>> partBoxed_, pairClaimed_;
    std::atomic<std::int64_t> partsBoxed_{0};
    std::atomic<std::size_t> count_{0};    // records appended (some may not have fitted)
    std::atomic<std::uint32_t> with_{0};   // pairs of parts with records
    std::atomic<std::size_t> tests_{0};
    std::atomic<std::int64_t> threadNs_{0};
    std::size_t capacity_ = 0;             // records the staging buffer holds
    gl::Buffer staging_{"peel cluster pairs (staging)"};
    glm::uvec4* stagingData_ = nullptr;
    gl::Buffer counts_{"peel cpu walk counts (staging)"};
    std::uint32_t* countsData_ = nullptr;
    gl::Buffer block_{"peel counters' first values (staging)"};  // copyCountersBlock()
    std::uint32_t* blockData_ = nullptr;
};

}  // namespace isc::peel
