#pragma once
// The peel detector's last step: the exact CPU test of the candidate triangle pairs the GPU
// could not prove apart (scene sampling). Duplicates (a pair found on several axes or tiles)
// are merged per candidate object pair, then every pair is tested with the reference's exact
// triangle–triangle test on vertices transformed exactly as the reference does
// (Pose::applyDouble): O(tests), no per-call work over all vertices. One parallel loop
// (OpenMP) over chunks of at most 256 entries of one candidate each: sort, merge, test.
// Private to plugin/detectors/peel.
#include "isc/detect/Detector.h"

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

private:
    std::vector<std::uint32_t> start_;           // per candidate: first entry in sorted_
    std::vector<TrianglePair> sorted_;           // found, grouped by candidate, as (a's, b's) triangles
    struct Item {  // a chunk of one candidate's entries
        std::uint32_t candidate, begin, end;
        std::uint32_t tests;  // distinct entries after the sort: [begin, begin + tests)
    };
    std::vector<Item> items_;
    std::vector<std::uint32_t> order_;           // merging a candidate of several items
    std::vector<std::uint8_t> hit_;              // per entry
    std::vector<Segment> segments_;              // per entry
};

}  // namespace isc::peel
