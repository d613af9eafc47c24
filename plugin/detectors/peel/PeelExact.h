#pragma once
// The peel detector's last step: the exact CPU test of the candidate triangle pairs the GPU
// could not prove apart (scene sampling). Duplicates (a pair found on several axes or tiles)
// are merged per candidate object pair, then every pair is tested with the reference's exact
// triangle–triangle test on vertices transformed exactly as the reference does
// (Pose::applyDouble): O(tests), no per-call work over all vertices. One parallel loop
// (OpenMP) over chunks of at most 256 entries of one candidate each: sort, merge, test.
// Speculation (setting `speculate`): the last call's intersecting pairs are tested again with
// this call's vertices while the GPU works (speculate(), on the threads that wait for it);
// run() then takes the result of every listed pair that was tested so instead of testing it
// again. The same test on the same doubles: the answer and the segments are bit for bit those
// of testing it in run(), and only pairs the GPU listed are reported.
// Private to plugin/detectors/peel.
#include "isc/detect/Detector.h"

#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

namespace isc::peel {

/// One candidate triangle pair: `candidate` indexes the call's candidates; `low` is a
/// triangle of the candidate's lower object id, `high` of the higher (the same object for a
/// self pair, low < high).
struct TrianglePairCandidate {
    std::uint32_t candidate;
    std::uint32_t low;
    std::uint32_t high;
};

class PeelExact {
public:
    /// Tests `found` (any order, duplicates allowed) and appends the intersecting pairs to
    /// out.pairs in candidate order, triangles sorted and unique (with segments when
    /// `wantSegments`). `threads`: the parallel loop's threads, 0 = OpenMP's default (all
    /// cores). Counters: tri_tri_tests (pairs tested; a duplicate that two chunks of one
    /// candidate hold is tested twice), positive_tests (distinct intersecting pairs),
    /// exact_sort_ms (grouping by candidate, serial), exact_test_ms (the parallel loop).
    void run(const Scene& scene, std::span<const ObjectPair> candidates, std::span<const TrianglePairCandidate> found,
             bool wantSegments, DetectionOutput& out, int threads = 0);

    /// A new call (new vertices or poses): forgets what speculate() tested in the last one;
    /// speculate() makes segments when `wantSegments`. Counters of run(): exact_reused (listed
    /// pairs whose result speculate() had), exact_speculated (pairs speculate() tested this call).
    void beginCall(bool wantSegments);
    /// Tests the pairs remember() kept, with `scene` as it is now. Called by every thread of a
    /// team at once (each takes 16 pairs at a time) until all are tested or `stop` is set; a
    /// thread that sees `stop` finishes its 16 first. Pairs whose objects or triangles `scene`
    /// does not have are skipped. Only between beginCall() and run() of one call.
    void speculate(const Scene& scene, const std::atomic<bool>& stop);
    /// Keeps the call's intersecting pairs (what run() added to out.pairs) for the next call's
    /// speculate().
    void remember(std::span<const PairResult> pairs);
    /// Pairs remember() kept.
    std::size_t remembered() const { return priorPairs_.size(); }

private:
    std::vector<std::uint32_t> start_;           // per candidate: first entry in sorted_
    std::vector<std::uint32_t> cursor_;          // the counting sort's
    std::vector<TrianglePair> sorted_;           // found, grouped by candidate, as (a's, b's) triangles
    struct Item {  // a chunk of one candidate's entries
        std::uint32_t candidate, begin, end;
        std::uint32_t tests;   // distinct entries after the sort: [begin, begin + tests)
        std::uint32_t reused;  // of them, taken from speculate()
    };
    std::vector<Item> items_;
    std::vector<std::uint32_t> order_;           // merging a candidate of several items
    std::vector<std::uint32_t> slotOf_;          // per candidate with entries: its result in out.pairs
    std::vector<std::uint8_t> hit_;              // per entry
    std::vector<Segment> segments_;              // per entry
    // Speculation: the last call's intersecting pairs, grouped by object pair (sorted), and
    // what speculate() found for each this call.
    struct PriorGroup {
        ObjectPair pair;
        std::uint32_t begin, end;  // in priorPairs_, sorted
    };
    struct PriorPair {
        std::uint32_t group;
        TrianglePair triangles;
    };
    std::vector<PriorGroup> priorGroups_;
    std::vector<PriorPair> priorPairs_;
    std::vector<std::uint8_t> priorState_;  // 0 not tested this call, 1 apart, 2 intersecting
    std::vector<Segment> priorSegments_;
    std::atomic<std::uint32_t> priorCursor_{0};
    std::atomic<std::uint32_t> speculated_{0};
    bool priorSegmentsMade_ = false;
};

}  // namespace isc::peel
