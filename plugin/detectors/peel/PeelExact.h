#pragma once
// The peel detector's last step: the exact CPU test of the candidate triangle pairs the GPU
// could not prove apart (scene sampling). Duplicates (a pair found on several axes or tiles)
// are merged per candidate object pair, then every pair is tested with the reference's exact
// triangle–triangle test on vertices transformed exactly as the reference does
// (Pose::applyDouble): O(tests), no per-call work over all vertices. One parallel loop
// (OpenMP) over chunks of at most 256 entries of one candidate each: sort, merge, test.
// Speculation (setting `speculate`): the pairs the GPU listed in the last call are tested again
// with this call's vertices while the GPU works (speculate(), on the threads that wait for it;
// those that intersected first); run() then takes the result of every listed pair that was
// tested so instead of testing it again. The same test on the same doubles: the answer and the
// segments are bit for bit those of testing it in run(), and only pairs the GPU listed are
// reported. With speculated results in hand run() groups the list by candidate on every
// thread (a counting sort: per thread counts, offsets, scatter), then per candidate sorts its
// pairs and merges them with its sorted group of the last call's pairs: a pair speculate()
// tested is taken as it is, the rest (new ones, about a fifth on the deforming pile back to
// back) are tested (docs/detectors/peel.md, "Round 2026-11-28"). Before it
// (setMerge(false)): each listed pair looked up in a hash table prepare() makes during the wait
// (or a search of the candidate's group), the pairs not found grouped by one thread
// ("Round 2026-11-27 late night"). The merge is used for lists of up to kMergeMaxList entries
// (the 100-bunny piles list 8-10K): on the 1000-bunny pile (about 90K) it measured slower than
// the lookup in two of three processes on a loaded host (likely its four barriers, each waiting
// for the slowest of 16 threads; not shown) (peel.md, "The lead's check of 2026-11-28"), so
// longer lists take the lookup. The speculation and the merge are split by thread
// (setOwned, the default since branch peel-exact-13): each waiting thread speculates its own
// range of the last call's pairs, and after the wait handles the candidates whose groups were
// in that range ("Round 2026-11-28 (branch peel-exact-13)").
// Private to plugin/detectors/peel.
#include "isc/detect/Detector.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
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
    /// cores). Counters: tri_tri_tests (pairs tested or reused; a duplicate that two chunks of
    /// one candidate hold is tested twice on the grouped path), positive_tests (distinct
    /// intersecting pairs), exact_sort_ms (grouped path: grouping by candidate, serial; lookup:
    /// the lookups and the grouping of the fresh pairs), exact_test_ms (the rest), exact_hashed
    /// (lookup: 1 with the hash table).
    void run(const Scene& scene, std::span<const ObjectPair> candidates, std::span<const TrianglePairCandidate> found,
             bool wantSegments, DetectionOutput& out, int threads = 0);

    /// A new call (new vertices or poses): forgets what speculate() tested in the last one;
    /// speculate() makes segments when `wantSegments`. Counters of run(): exact_reused (listed
    /// pairs whose result speculate() had), exact_speculated (pairs speculate() tested this call),
    /// exact_speculate_ms (from the first speculating thread's start to the last one's end).
    void beginCall(bool wantSegments);
    /// Tests the pairs remember() kept, with `scene` as it is now. Called by every thread of a
    /// team at once (each takes 16 pairs at a time; setOwned(): from its own range first) until
    /// all are tested or `stop` is set; a thread that sees `stop` finishes its 16 first. Pairs whose objects or triangles `scene`
    /// does not have are skipped. Only between beginCall() and run() of one call.
    void speculate(const Scene& scene, const std::atomic<bool>& stop);
    /// Looks up each candidate's group of the last call's pairs for run() (which does it itself
    /// when not done for these candidates), then makes a hash table of the last call's pairs
    /// (once per remember; left unmade when `stop` is set meanwhile: run() then searches the
    /// groups). Call by one thread during the wait, between beginCall() and run(); `candidates`
    /// must stay as they are until run().
    void prepare(std::span<const ObjectPair> candidates, const std::atomic<bool>* stop = nullptr);
    /// Keeps `pairs` (the call's intersecting pairs: what run() added to out.pairs) for the
    /// next call's speculate().
    void remember(std::span<const PairResult> pairs);
    /// Keeps the call's pairs for the next call's speculate(): where every run() of the call
    /// looked the listed pairs up (speculated results in hand), every distinct pair the GPU
    /// listed with its result (the next speculate() tests the intersecting ones first); else
    /// remember(pairs).
    void rememberCall(std::span<const PairResult> pairs);
    /// Pairs remember() or rememberCall() kept.
    std::size_t remembered() const { return rememberedCount_; }
    /// Test hook: false makes run() group and sort the whole list as before 2026-11-27 late
    /// night even with speculated results (and rememberCall() keep the intersecting pairs only).
    void setLookup(bool on) { lookup_ = on; }
    /// Test hook: false makes run() search each listed pair in its group (binary search)
    /// instead of the hash table prepare() makes.
    void setHash(bool on) { useHash_ = on; }
    /// Test hook: false makes run() look each listed pair up one by one (the hash table, as
    /// on 2026-11-27 late night) instead of grouping the list by candidate on every thread
    /// and merging each candidate's sorted pairs with its sorted group of the last call's.
    void setMerge(bool on) { merge_ = on; }
    /// Test hook: false makes beginCall() drop the room of the next call's pairs, which the
    /// call's runs then make anew (zeroed, in the serial step before the tests) as before
    /// 2026-11-28 (branch peel-exact-12); true (default) keeps the last buffers and their
    /// length, only the used length reset.
    void setKeepRoom(bool on) { keepRoom_ = on; }
    /// Test hook: true (default) makes speculate() split the last call's pairs into one
    /// contiguous range per waiting thread (the team's threads but the first, which waits on
    /// the fence), each thread testing its own range first and then helping with the others',
    /// and makes runMerged() hand each candidate to the thread whose range held its group of
    /// the last call's pairs (the first thread: the candidates without one), each thread taking
    /// its own candidates first (the most entries first) and then the others' from the back; a
    /// candidate's results are written straight into its PairResult. So the speculated results
    /// and the last call's pairs are mostly in the cache of the core that reads them after the
    /// wait (docs/detectors/peel.md, "Round 2026-11-28 (branch peel-exact-13)"). false: one
    /// shared sweep during the wait, and after it the candidates sorted by entries (serially)
    /// and taken by any thread, as before. The same answer, counters and pairs kept.
    void setOwned(bool on) { owned_ = on; }
    /// The longest list run() merges (longer ones take the lookup); a test hook.
    void setMergeMaxList(std::size_t entries) { mergeMaxList_ = entries; }
    static constexpr std::size_t kMergeMaxList = 32768;

private:
    void runGrouped(const Scene& scene, std::span<const ObjectPair> candidates,
                    std::span<const TrianglePairCandidate> found, bool wantSegments, DetectionOutput& out,
                    bool useSpeculation, bool parallel, int team);
    struct ListedTally {
        std::chrono::steady_clock::time_point start;
        double sortMs, tests, positives, reused;
    };
    void finishListed(DetectionOutput& out, std::size_t base, const ListedTally& tally, bool hashed, bool merged);
    void prepareRoom(std::vector<std::uint32_t>& order, const std::vector<std::uint32_t>& start, std::size_t groupsUsed,
                     std::size_t pairBase, std::size_t room, std::size_t tests, bool wantSegments);
    void runListed(const Scene& scene, std::span<const ObjectPair> candidates,
                   std::span<const TrianglePairCandidate> found, bool wantSegments, DetectionOutput& out,
                   bool parallel, int team);
    void runMerged(const Scene& scene, std::span<const ObjectPair> candidates,
                   std::span<const TrianglePairCandidate> found, bool wantSegments, DetectionOutput& out,
                   bool parallel, int team);

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
    // Speculation: the last call's pairs, grouped by object pair, and what speculate() found
    // for each this call. A group's pairs are sorted and unique; between groups there may be
    // unused entries (kind 0).
    struct PriorGroup {
        ObjectPair pair;
        std::uint32_t begin, end;  // in priorPairs_, sorted
    };
    struct PriorPair {
        std::uint32_t group;
        TrianglePair triangles;
    };
    // The group of the last call's pairs of object pair `pair`, or priorGroups_.size().
    std::uint32_t findGroup(ObjectPair pair) const;
    void indexGroups();  // groupsByPair_ from priorGroups_
    std::vector<PriorGroup> priorGroups_;
    std::vector<std::uint32_t> groupsByPair_;  // priorGroups_' indices, sorted by pair
    std::vector<PriorPair> priorPairs_;
    std::vector<std::uint8_t> priorKind_;   // 0 unused, 1 apart last call, 2 intersecting last call
    std::vector<std::uint8_t> priorState_;  // 0 not tested this call, 1 apart, 2 intersecting
    std::vector<Segment> priorSegments_;
    std::size_t rememberedCount_ = 0;
    std::atomic<std::uint32_t> priorCursor_[2] = {0, 0};  // speculate()'s sweeps: kind 2, then kind 1
    std::atomic<std::uint32_t> speculated_{0};
    // The call's speculation: the first testing thread's start, the last one's end (steady
    // clock, ns).
    std::atomic<std::int64_t> specFirstNs_{0}, specLastNs_{0};
    void noteSpeculation(std::int64_t startNs, std::uint32_t tested);
    void countSpeculationSpan(DetectionOutput& out) const;
    bool priorSegmentsMade_ = false;
    bool lookup_ = true;
    // runListed(): per candidate its group and whether it has entries; per prior pair whether
    // it is listed this run; the pairs not found (fresh), grouped by candidate.
    // The last call's pairs by (group, triangles): open addressing, linear probing; `index`
    // into priorPairs_, empty slots kNoSlot.
    struct HashSlot {
        std::uint32_t group, a, b, index;
    };
    std::vector<HashSlot> hash_;
    std::uint32_t hashMask_ = 0;
    bool hashReady_ = false;
    bool useHash_ = true;
    std::vector<std::uint32_t> candGroup_, groupOwner_;
    const ObjectPair* preparedFor_ = nullptr;
    std::size_t preparedCount_ = 0;
    std::vector<std::uint8_t> candListed_, listed_;
    std::vector<std::vector<std::uint32_t>> freshLocal_;  // per thread: indices into found
    std::vector<std::uint32_t> freshStart_, freshCands_, nextBase_;
    std::vector<TrianglePair> fresh_;
    std::vector<std::uint8_t> freshHit_;
    std::vector<Segment> freshSegments_;
    // runMerged(): per thread and candidate its count of entries, then its first place in
    // merged_ (rows of candidates.size()); per candidate the first entry in merged_ (with one
    // past the end); the candidates with entries, the most first.
    std::vector<std::uint32_t> mergeCounts_, mergeStart_, mergeCands_;
    // setOwned(): speculate()'s ranges (per range and sweep, the next offset in it; padded to a
    // cache line); runMerged()'s queue of candidates per thread and its (front, back) cursor.
    struct alignas(64) RangeCursor {
        std::atomic<std::uint32_t> next[2];
    };
    struct alignas(64) QueueCursor {
        std::atomic<std::uint64_t> frontBack;
    };
    std::unique_ptr<RangeCursor[]> rangeCursors_;
    std::size_t rangeCursorCount_ = 0;
    std::atomic<std::uint32_t> specTeam_{0};  // the team that speculated (0: none, or not setOwned())
    std::vector<std::vector<std::uint32_t>> queues_;
    std::unique_ptr<QueueCursor[]> queueCursors_;
    std::size_t queueCursorCount_ = 0;
    bool owned_ = true;
    std::uint32_t speculateOwned(const Scene& scene, const std::atomic<bool>& stop);  // pairs tested
    std::uint32_t speculateChunk(const Scene& scene, std::uint32_t first, std::uint32_t last, std::uint8_t kind,
                                 bool wantSegments);
    std::vector<TrianglePair> merged_;  // the list grouped by candidate, as (a's, b's) triangles
    bool merge_ = true;
    std::size_t mergeMaxList_ = kMergeMaxList;
    // What rememberCall() keeps when every run() of the call was runListed() or runMerged()
    // (nextValid_).
    std::vector<PriorGroup> nextGroups_;
    std::vector<PriorPair> nextPairs_;
    std::vector<std::uint8_t> nextKind_;
    std::size_t nextCount_ = 0;
    // Their used lengths (the vectors may be longer: kept room).
    std::size_t nextGroupsUsed_ = 0, nextPairsUsed_ = 0;
    bool keepRoom_ = true;
    bool nextValid_ = false;
};

}  // namespace isc::peel
