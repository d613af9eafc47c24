#pragma once
// The peel detector's last step: the exact CPU test of the candidate triangle pairs the GPU
// could not prove apart (scene sampling). Duplicates (a pair found on several axes or tiles)
// are merged per candidate object pair, then every pair is tested with the reference's exact
// triangle–triangle test on vertices transformed exactly as the reference does
// (Pose::applyDouble): O(tests), no per-call work over all vertices. Parallel over chunks of
// tests (OpenMP). Private to plugin/detectors/peel.
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
    /// `wantSegments`). Counters: tri_tri_tests (distinct pairs tested), positive_tests.
    void run(const Scene& scene, std::span<const ObjectPair> candidates, std::span<const TrianglePairCandidate> found,
             bool wantSegments, DetectionOutput& out);

private:
    std::vector<std::uint32_t> start_;           // per candidate: first entry in sorted_
    std::vector<TrianglePair> sorted_;           // found, grouped by candidate, as (a's, b's) triangles
    std::vector<std::uint32_t> unique_, firstTest_;  // per candidate: distinct pairs, first test
    std::vector<std::uint8_t> hit_;              // per entry
    std::vector<Segment> segments_;              // per entry
};

}  // namespace isc::peel
