#include "PeelExact.h"

#include "isc/geometry/TriangleTriangle.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <limits>
#include <numeric>

#include <omp.h>

namespace isc::peel {

namespace {
// Entries per unit of parallel work, and the least work worth a parallel region (a region
// costs a few microseconds of fork and join).
constexpr std::size_t kChunk = 256;
constexpr std::size_t kParallelFrom = 2048;
// Pairs a speculating thread takes at a time: after the fence it finishes at most these
// (about 10 us).
constexpr std::uint32_t kSpeculateChunk = 16;

// One object of a pair as the exact test reads it.
struct Side {
    const Mesh& mesh;
    std::span<const Vec3> vertices;
    const Pose& pose;
    Side(const Scene& scene, ObjectId o) : mesh(scene.objectMesh(o)), vertices(scene.localVertices(o)), pose(scene.pose(o)) {}
};

// The first of the sorted [first, last) not below p: a binary search without branches on the
// comparisons (the listed pairs come in random order; a branching search mispredicts about
// half its steps).
template <class T>
inline const T* lowerBound(const T* first, const T* last, TrianglePair p) {
    const std::uint64_t key = (std::uint64_t(p.a) << 32) | p.b;
    auto keyOf = [](const T& x) { return (std::uint64_t(x.triangles.a) << 32) | x.triangles.b; };
    std::size_t n = std::size_t(last - first);
    while (n > 1) {
        const std::size_t half = n / 2;
        first = keyOf(first[half - 1]) < key ? first + half : first;
        n -= half;
    }
    return n == 1 && keyOf(*first) < key ? first + 1 : first;
}

// The exact test of one pair, on vertices transformed exactly as the reference does
// (Pose::applyDouble); run() and speculate() both call this, so a speculated result is the one
// run() would compute. True when they intersect (then `segment` is set when wantSegments).
inline bool testPair(const Side& a, const Side& b, TrianglePair p, bool wantSegments, Segment& segment) {
    const UVec3 fa = a.mesh.triangles()[p.a];
    const UVec3 fb = b.mesh.triangles()[p.b];
    const auto& va = a.vertices;
    const auto& vb = b.vertices;
    const DVec3 P[3] = {a.pose.applyDouble(va[fa.x]), a.pose.applyDouble(va[fa.y]), a.pose.applyDouble(va[fa.z])};
    const DVec3 Q[3] = {b.pose.applyDouble(vb[fb.x]), b.pose.applyDouble(vb[fb.y]), b.pose.applyDouble(vb[fb.z])};
    if (!wantSegments) return geometry::trianglesIntersect(P, Q);  // the same decision, no segment
    DVec3 p0, p1;
    if (geometry::triangleIntersection(P, Q, p0, p1) == geometry::TriangleContact::None) return false;
    segment = {Vec3(p0), Vec3(p1)};
    return true;
}
inline std::int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
}  // namespace

// exact_speculate_ms: from the first speculating thread's start to the last one's end (0 when
// nothing was speculated this call).
void PeelExact::countSpeculationSpan(DetectionOutput& out) const {
    const std::int64_t first = specFirstNs_.load(std::memory_order_relaxed);
    const std::int64_t last = specLastNs_.load(std::memory_order_relaxed);
    out.stats.count("exact_speculate_ms", last > first ? double(last - first) * 1e-6 : 0.0);
}

void PeelExact::beginCall(bool wantSegments) {
    priorSegmentsMade_ = wantSegments;
    priorState_.assign(priorPairs_.size(), 0);
    priorSegments_.resize(priorPairs_.size());
    for (auto& cursor : priorCursor_) cursor.store(0, std::memory_order_relaxed);
    speculated_.store(0, std::memory_order_relaxed);
    specFirstNs_.store(std::numeric_limits<std::int64_t>::max(), std::memory_order_relaxed);
    specLastNs_.store(0, std::memory_order_relaxed);
    // setOwned(): a range per waiting thread of the largest team this process makes.
    if (const auto most = static_cast<std::size_t>(std::max(1, omp_get_max_threads())); rangeCursorCount_ < most) {
        rangeCursors_ = std::make_unique<RangeCursor[]>(most);
        rangeCursorCount_ = most;
    }
    for (std::size_t r = 0; r < rangeCursorCount_; ++r)
        for (auto& next : rangeCursors_[r].next) next.store(0, std::memory_order_relaxed);
    specTeam_.store(0, std::memory_order_relaxed);
    // The room of the next call's pairs: made anew (zeroed) as the call's runs need it, or (keep
    // room) the last buffers kept as they are, only their used length reset: every place a run
    // uses is written, the rest never read (kind 0 is set where a run leaves room unused).
    if (!keepRoom_) {
        nextGroups_.clear();
        nextPairs_.clear();
        nextKind_.clear();
    }
    nextGroupsUsed_ = 0;
    nextPairsUsed_ = 0;
    nextCount_ = 0;
    nextValid_ = lookup_;
    preparedFor_ = nullptr;
}

void PeelExact::speculate(const Scene& scene, const std::atomic<bool>& stop) {
    const std::int64_t startNs = nowNs();
    const int team = omp_get_num_threads();
    if (owned_ && static_cast<std::size_t>(team > 1 ? team - 1 : 1) <= rangeCursorCount_) {
        noteSpeculation(startNs, speculateOwned(scene, stop));
        return;
    }
    const bool wantSegments = priorSegmentsMade_;
    const auto total = static_cast<std::uint32_t>(priorPairs_.size());
    std::uint32_t tested = 0;
    // Two sweeps: the pairs that intersected last call (most are listed again), then those
    // listed and apart. Each thread takes kSpeculateChunk entries of a sweep at a time.
    for (int sweep = 0; sweep < 2; ++sweep) {
        const std::uint8_t kind = sweep == 0 ? 2 : 1;
        std::atomic<std::uint32_t>& cursor = priorCursor_[sweep];
        while (!stop.load(std::memory_order_relaxed)) {
            const std::uint32_t first = cursor.fetch_add(kSpeculateChunk, std::memory_order_relaxed);
            if (first >= total) break;
            tested += speculateChunk(scene, first, std::min(total, first + kSpeculateChunk), kind, wantSegments);
        }
    }
    noteSpeculation(startNs, tested);
}

// A speculating thread's tests and its time (only threads that tested: the team's first thread
// gets here after the fence), for the counters.
void PeelExact::noteSpeculation(std::int64_t startNs, std::uint32_t tested) {
    if (tested == 0) return;
    speculated_.fetch_add(tested, std::memory_order_relaxed);
    std::int64_t first = specFirstNs_.load(std::memory_order_relaxed);
    while (startNs < first && !specFirstNs_.compare_exchange_weak(first, startNs, std::memory_order_relaxed)) {
    }
    const std::int64_t endNs = nowNs();
    std::int64_t last = specLastNs_.load(std::memory_order_relaxed);
    while (endNs > last && !specLastNs_.compare_exchange_weak(last, endNs, std::memory_order_relaxed)) {
    }
}

// setOwned(): the last call's pairs in one contiguous range per waiting thread (a team's
// threads but the first, which waits on the fence; all of a team of one). Each thread sweeps
// its own range first, then the others' (the ranges' cursors are shared, so a thread that is
// late, e.g. the one that runs prepare(), is helped). Same two sweeps as speculate().
std::uint32_t PeelExact::speculateOwned(const Scene& scene, const std::atomic<bool>& stop) {
    const bool wantSegments = priorSegmentsMade_;
    const std::uint64_t total = priorPairs_.size();
    const int team = omp_get_num_threads(), me = omp_get_thread_num();
    const std::size_t ranges = team > 1 ? std::size_t(team - 1) : 1;
    specTeam_.store(static_cast<std::uint32_t>(team), std::memory_order_relaxed);
    const std::size_t own = team > 1 && me > 0 ? std::size_t(me - 1) : 0;
    std::uint32_t tested = 0;
    for (int sweep = 0; sweep < 2; ++sweep) {
        const std::uint8_t kind = sweep == 0 ? 2 : 1;
        for (std::size_t i = 0; i < ranges && !stop.load(std::memory_order_relaxed); ++i) {
            const std::size_t r = (own + i) % ranges;
            const auto begin = static_cast<std::uint32_t>(total * r / ranges);
            const auto end = static_cast<std::uint32_t>(total * (r + 1) / ranges);
            std::atomic<std::uint32_t>& cursor = rangeCursors_[r].next[sweep];
            while (!stop.load(std::memory_order_relaxed)) {
                const std::uint32_t offset = cursor.fetch_add(kSpeculateChunk, std::memory_order_relaxed);
                if (offset >= end - begin) break;
                const std::uint32_t first = begin + offset;
                tested += speculateChunk(scene, first, std::min(end, first + kSpeculateChunk), kind, wantSegments);
            }
        }
    }
    return tested;
}

// The pairs [first, last) of the last call's of kind `kind`, tested with `scene` as it is now.
std::uint32_t PeelExact::speculateChunk(const Scene& scene, std::uint32_t first, std::uint32_t last,
                                        std::uint8_t kind, bool wantSegments) {
    const std::size_t n = scene.objectCount();
    std::uint32_t tested = 0;
    for (std::uint32_t i = first; i < last;) {
        if (priorKind_[i] != kind) {
            ++i;
            continue;
        }
        // The run of one object pair in this chunk.
        const PriorGroup& g = priorGroups_[priorPairs_[i].group];
        const std::uint32_t end = std::min(last, g.end);
        if (g.pair.a >= n || g.pair.b >= n) {  // not this scene's: left untested
            i = end;
            continue;
        }
        const Side a(scene, g.pair.a), b(scene, g.pair.b);
        const std::size_t ta = a.mesh.triangleCount(), tb = b.mesh.triangleCount();
        for (; i < end; ++i) {
            if (priorKind_[i] != kind) continue;
            const TrianglePair p = priorPairs_[i].triangles;
            if (p.a >= ta || p.b >= tb) continue;
            priorState_[i] = testPair(a, b, p, wantSegments, priorSegments_[i]) ? 2 : 1;
            ++tested;
        }
    }
    return tested;
}

std::uint32_t PeelExact::findGroup(ObjectPair pair) const {
    const auto g = std::lower_bound(groupsByPair_.begin(), groupsByPair_.end(), pair,
                                    [&](std::uint32_t x, const ObjectPair& y) { return priorGroups_[x].pair < y; });
    return g != groupsByPair_.end() && priorGroups_[*g].pair == pair ? *g
                                                                      : static_cast<std::uint32_t>(priorGroups_.size());
}

void PeelExact::indexGroups() {
    groupsByPair_.resize(priorGroups_.size());
    std::iota(groupsByPair_.begin(), groupsByPair_.end(), 0u);
    // Candidates come sorted from a broadphase, mostly: then the index is made sorted already.
    const auto byPair = [&](std::uint32_t x, std::uint32_t y) { return priorGroups_[x].pair < priorGroups_[y].pair; };
    if (!std::is_sorted(groupsByPair_.begin(), groupsByPair_.end(), byPair))
        std::sort(groupsByPair_.begin(), groupsByPair_.end(), byPair);
}

void PeelExact::remember(std::span<const PairResult> pairs) {
    priorGroups_.clear();
    priorPairs_.clear();
    for (const PairResult& r : pairs) {
        if (r.triangles.empty()) continue;
        const auto g = static_cast<std::uint32_t>(priorGroups_.size());
        const auto begin = static_cast<std::uint32_t>(priorPairs_.size());
        for (const TrianglePair& t : r.triangles) priorPairs_.push_back({g, t});
        priorGroups_.push_back({r.pair, begin, static_cast<std::uint32_t>(priorPairs_.size())});
    }
    priorKind_.assign(priorPairs_.size(), 2);
    rememberedCount_ = priorPairs_.size();
    hashReady_ = false;
    indexGroups();
    priorState_.assign(priorPairs_.size(), 0);  // nothing speculated for the next call yet
}

void PeelExact::rememberCall(std::span<const PairResult> pairs) {
    if (!nextValid_) {
        remember(pairs);
        return;
    }
    std::swap(priorGroups_, nextGroups_);
    std::swap(priorPairs_, nextPairs_);
    std::swap(priorKind_, nextKind_);
    // Kept room: the used part only (shrinking frees nothing, so the next call reuses the rest).
    priorGroups_.resize(nextGroupsUsed_);
    priorPairs_.resize(nextPairsUsed_);
    priorKind_.resize(nextPairsUsed_);
    rememberedCount_ = nextCount_;
    hashReady_ = false;
    indexGroups();
    priorState_.assign(priorPairs_.size(), 0);
    nextValid_ = false;
}

void PeelExact::run(const Scene& scene, std::span<const ObjectPair> candidates,
                    std::span<const TrianglePairCandidate> found, bool wantSegments, DetectionOutput& out,
                    int threads) {
    const bool parallel = found.size() >= kParallelFrom;
    const int team = threads > 0 ? threads : omp_get_max_threads();
    // Speculated results are usable when made with segments where segments are wanted.
    const bool useSpeculation = !priorPairs_.empty() && priorState_.size() == priorPairs_.size() &&
                                (priorSegmentsMade_ || !wantSegments) &&
                                speculated_.load(std::memory_order_relaxed) > 0;
    if (useSpeculation && lookup_ && merge_ && found.size() <= mergeMaxList_) {
        runMerged(scene, candidates, found, wantSegments, out, parallel, team);
    } else if (useSpeculation && lookup_) {
        runListed(scene, candidates, found, wantSegments, out, parallel, team);
    } else {
        nextValid_ = false;  // rememberCall() keeps the intersecting pairs
        runGrouped(scene, candidates, found, wantSegments, out, useSpeculation, parallel, team);
    }
}

namespace {
constexpr std::uint32_t kNoSlot = 0xFFFFFFFFu;
inline std::uint32_t hashOf(std::uint32_t group, TrianglePair p, std::uint32_t mask) {
    std::uint64_t h = (std::uint64_t(p.a) << 32 | p.b) ^ (std::uint64_t(group) * 0x9E3779B97F4A7C15ull);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return static_cast<std::uint32_t>(h) & mask;
}
}  // namespace

void PeelExact::prepare(std::span<const ObjectPair> candidates, const std::atomic<bool>* stop) {
    constexpr std::uint32_t kNone = 0xFFFFFFFFu;
    const std::size_t nc = candidates.size();
    const std::size_t ng = priorGroups_.size();
    candGroup_.assign(nc, kNone);
    groupOwner_.assign(ng, 0);
    for (std::size_t c = 0; c < nc; ++c) {
        const std::uint32_t g = findGroup(candidates[c]);
        // A second candidate of the same object pair gets none (the listed flags are per
        // group): its pairs are all tested.
        if (g >= ng || groupOwner_[g] != 0) continue;
        groupOwner_[g] = 1;
        candGroup_[c] = g;
    }
    preparedFor_ = candidates.data();
    preparedCount_ = nc;
    // runMerged() needs no hash table; the list is about as long as the last call's.
    if (hashReady_ || !useHash_ || (merge_ && rememberedCount_ <= mergeMaxList_)) return;
    const auto size = std::bit_ceil(std::max<std::size_t>(64, 2 * rememberedCount_));
    hash_.assign(size, HashSlot{0, 0, 0, kNoSlot});
    hashMask_ = static_cast<std::uint32_t>(size - 1);
    for (std::size_t i = 0; i < priorPairs_.size(); ++i) {
        if ((i & 1023) == 0 && stop != nullptr && stop->load(std::memory_order_relaxed)) return;  // left unmade
        if (priorKind_[i] == 0) continue;
        const PriorPair& q = priorPairs_[i];
        std::uint32_t h = hashOf(q.group, q.triangles, hashMask_);
        while (hash_[h].index != kNoSlot) h = (h + 1) & hashMask_;
        hash_[h] = {q.group, q.triangles.a, q.triangles.b, static_cast<std::uint32_t>(i)};
    }
    hashReady_ = true;
}

// With speculated results in hand: each listed pair is looked up in its candidate's group of
// the last call's pairs (sorted); one that speculate() tested is taken as it is (and flagged
// listed), the rest (fresh: not listed last call, or not reached by speculate()) are grouped by
// candidate. Then per candidate (the most fresh pairs first) its fresh pairs are sorted, made
// unique and tested, and merged in order with its flagged pairs (both sorted, and disjoint: a
// pair is either found tested or fresh); the intersecting ones are its result. One parallel
// region, two barriers; the whole list is never sorted. Every distinct listed pair and its
// result go to the next call's pairs (rememberCall()).
void PeelExact::runListed(const Scene& scene, std::span<const ObjectPair> candidates,
                          std::span<const TrianglePairCandidate> found, bool wantSegments, DetectionOutput& out,
                          bool parallel, int team) {
    const auto t0 = std::chrono::steady_clock::now();
    constexpr std::uint32_t kNone = 0xFFFFFFFFu;
    const std::size_t nc = candidates.size();
    // The candidates' groups: made during the wait (prepare()) or here.
    if (preparedFor_ != candidates.data() || preparedCount_ != nc || candGroup_.size() != nc) prepare(candidates);
    const int threads = parallel ? team : 1;
    const bool hashed = hashReady_ && useHash_;
    candListed_.assign(nc, 0);
    listed_.assign(priorPairs_.size(), 0);
    if (freshLocal_.size() < std::size_t(threads)) freshLocal_.resize(std::size_t(threads));
    for (auto& local : freshLocal_) local.clear();
    const std::size_t base = out.pairs.size();
    const auto groupBase = static_cast<std::uint32_t>(nextGroupsUsed_);
    const std::size_t pairBase = nextPairsUsed_;
    double sortMs = 0;
    double tests = 0, positives = 0, reused = 0;
    const auto oriented = [&](const TrianglePairCandidate& f) {
        const ObjectPair p = candidates[f.candidate];
        return p.a <= p.b ? TrianglePair{f.low, f.high} : TrianglePair{f.high, f.low};
    };
#pragma omp parallel num_threads(threads) if (parallel) reduction(+ : tests, positives, reused)
    {
        // 1. Every entry looked up.
        std::vector<std::uint32_t>& mine = freshLocal_[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(static)
        for (std::int64_t k = 0; k < std::int64_t(found.size()); ++k) {
            const TrianglePairCandidate& f = found[std::size_t(k)];
            std::atomic_ref<std::uint8_t> has(candListed_[f.candidate]);
            if (has.load(std::memory_order_relaxed) == 0) has.store(1, std::memory_order_relaxed);
            if (const std::uint32_t g = candGroup_[f.candidate]; g != kNone) {
                const TrianglePair p = oriented(f);
                std::size_t i = kNoSlot;
                if (hashed) {
                    for (std::uint32_t h = hashOf(g, p, hashMask_);; h = (h + 1) & hashMask_) {
                        const HashSlot& slot = hash_[h];
                        if (slot.index == kNoSlot) break;
                        if (slot.group == g && slot.a == p.a && slot.b == p.b) {
                            i = slot.index;
                            break;
                        }
                    }
                } else {
                    const PriorPair* first = priorPairs_.data() + priorGroups_[g].begin;
                    const PriorPair* last = priorPairs_.data() + priorGroups_[g].end;
                    const PriorPair* at = lowerBound(first, last, p);
                    if (at != last && at->triangles == p) i = std::size_t(at - priorPairs_.data());
                }
                if (i != kNoSlot) {
                    if (priorState_[i] != 0) {
                        std::atomic_ref<std::uint8_t> flag(listed_[i]);
                        if (flag.load(std::memory_order_relaxed) == 0) flag.store(1, std::memory_order_relaxed);
                        continue;
                    }
                }
            }
            mine.push_back(static_cast<std::uint32_t>(k));
        }
        // 2. The fresh entries grouped by candidate (counting sort); one result per candidate
        //    with entries, in candidate order; room for the next call's pairs.
#pragma omp single
        {
            freshStart_.assign(nc + 1, 0);
            for (const auto& local : freshLocal_)
                for (std::uint32_t k : local) ++freshStart_[found[k].candidate + 1];
            for (std::size_t c = 0; c < nc; ++c) freshStart_[c + 1] += freshStart_[c];
            fresh_.resize(freshStart_[nc]);
            cursor_.assign(freshStart_.begin(), freshStart_.end() - 1);
            for (const auto& local : freshLocal_)
                for (std::uint32_t k : local) fresh_[cursor_[found[k].candidate]++] = oriented(found[k]);
            freshCands_.clear();
            slotOf_.resize(nc);
            nextBase_.resize(nc);
            out.pairs.reserve(base + nc);
            std::size_t room = pairBase;
            for (std::size_t c = 0; c < nc; ++c) {
                if (candListed_[c] == 0) continue;
                freshCands_.push_back(static_cast<std::uint32_t>(c));
                slotOf_[c] = static_cast<std::uint32_t>(out.pairs.size());
                out.pairs.emplace_back().pair = candidates[c];
                nextBase_[c] = static_cast<std::uint32_t>(room);
                room += freshStart_[c + 1] - freshStart_[c];
                if (candGroup_[c] != kNone) room += priorGroups_[candGroup_[c]].end - priorGroups_[candGroup_[c]].begin;
            }
            // The candidates with the most to test first (dynamic schedule: the longest start early).
            prepareRoom(freshCands_, freshStart_, groupBase + (out.pairs.size() - base), pairBase, room,
                        fresh_.size(), wantSegments);
            sortMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        }
        // 3. Per candidate with entries: its fresh pairs sorted, made unique and tested; merged
        //    in order with its flagged ones; the intersecting ones are its result, all of them
        //    the next call's pairs.
#pragma omp for schedule(dynamic, 1)
        for (std::int64_t k = 0; k < std::int64_t(freshCands_.size()); ++k) {
            const std::uint32_t c = freshCands_[std::size_t(k)];
            const ObjectPair pair = candidates[c];
            std::uint32_t j = freshStart_[c];
            const auto first = fresh_.begin() + j;
            std::sort(first, fresh_.begin() + freshStart_[c + 1]);
            const std::uint32_t jEnd =
                j + static_cast<std::uint32_t>(std::unique(first, fresh_.begin() + freshStart_[c + 1]) - first);
            if (j < jEnd) {
                const Side sa(scene, pair.a), sb(scene, pair.b);
                for (std::uint32_t x = j; x < jEnd; ++x) {
                    Segment segment;
                    const bool hit = testPair(sa, sb, fresh_[x], wantSegments, segment);
                    freshHit_[x] = hit ? 1 : 0;
                    if (hit && wantSegments) freshSegments_[x] = segment;
                }
            }
            PairResult& r = out.pairs[slotOf_[c]];
            const std::uint32_t g = candGroup_[c];
            std::uint32_t i = g != kNone ? priorGroups_[g].begin : 0;
            const std::uint32_t iEnd = g != kNone ? priorGroups_[g].end : 0;
            const std::uint32_t group = groupBase + (slotOf_[c] - static_cast<std::uint32_t>(base));
            std::uint32_t at = nextBase_[c];
            for (;;) {
                while (i < iEnd && listed_[i] == 0) ++i;
                bool prior;
                if (i < iEnd && j < jEnd) prior = priorPairs_[i].triangles < fresh_[j];
                else if (i < iEnd || j < jEnd) prior = i < iEnd;
                else break;
                TrianglePair p;
                bool hit;
                const Segment* segment = nullptr;
                if (prior) {
                    p = priorPairs_[i].triangles;
                    hit = priorState_[i] == 2;
                    if (wantSegments) segment = &priorSegments_[i];
                    reused += 1;
                    ++i;
                } else {
                    p = fresh_[j];
                    hit = freshHit_[j] != 0;
                    if (wantSegments) segment = &freshSegments_[j];
                    ++j;
                }
                tests += 1;
                nextPairs_[at] = {group, p};
                nextKind_[at] = hit ? 2 : 1;
                ++at;
                if (!hit) continue;
                positives += 1;
                r.triangles.push_back(p);
                if (wantSegments) r.segments.push_back(*segment);
            }
            nextGroups_[group] = {pair, nextBase_[c], at};
        }
    }
    finishListed(out, base, {t0, sortMs, tests, positives, reused}, hashed, false);
}

// With speculated results in hand: the list grouped by candidate on every thread (each thread
// counts its share of the entries per candidate; the offsets per candidate and thread; each
// scatters its share), then per candidate (the most entries first) its pairs sorted and made
// unique and merged with its group of the last call's pairs (sorted too): a pair speculate()
// tested is taken as it is, the others tested; the intersecting ones are its result, every
// distinct pair with its result the next call's (rememberCall()). No hash table, no lookup of
// single pairs in shared tables, no serial pass over the entries. The answer, the counters
// and the pairs kept are runListed()'s.
void PeelExact::runMerged(const Scene& scene, std::span<const ObjectPair> candidates,
                          std::span<const TrianglePairCandidate> found, bool wantSegments, DetectionOutput& out,
                          bool parallel, int team) {
    const auto t0 = std::chrono::steady_clock::now();
    constexpr std::uint32_t kNone = 0xFFFFFFFFu;
    const std::size_t nc = candidates.size();
    // The candidates' groups: made during the wait (prepare()) or here.
    if (preparedFor_ != candidates.data() || preparedCount_ != nc || candGroup_.size() != nc) prepare(candidates);
    const int threads = parallel ? team : 1;
    if (mergeCounts_.size() < std::size_t(threads) * nc) mergeCounts_.resize(std::size_t(threads) * nc);
    mergeStart_.resize(nc + 1);
    merged_.resize(found.size());
    const std::size_t base = out.pairs.size();
    const auto groupBase = static_cast<std::uint32_t>(nextGroupsUsed_);
    const std::size_t pairBase = nextPairsUsed_;
    double sortMs = 0;
    double tests = 0, positives = 0, reused = 0;
    const std::size_t total = found.size();
#pragma omp parallel num_threads(threads) if (parallel) reduction(+ : tests, positives, reused)
    {
        // 1. Each thread counts its share of the entries per candidate (its own row).
        const auto t = std::size_t(omp_get_thread_num());
        const auto tn = std::size_t(omp_get_num_threads());
        const std::size_t lo = total * t / tn, hi = total * (t + 1) / tn;
        std::uint32_t* row = mergeCounts_.data() + t * nc;
        std::fill(row, row + nc, 0u);
        for (std::size_t k = lo; k < hi; ++k) ++row[found[k].candidate];
#pragma omp barrier
        // 2. Per candidate: each thread's first place among the candidate's entries (in the
        //    rows), the candidate's count (in mergeStart_, shifted by one).
#pragma omp for schedule(static)
        for (std::int64_t c = 0; c < std::int64_t(nc); ++c) {
            std::uint32_t running = 0;
            for (std::size_t u = 0; u < tn; ++u) {
                std::uint32_t& x = mergeCounts_[u * nc + std::size_t(c)];
                const std::uint32_t n = x;
                x = running;
                running += n;
            }
            mergeStart_[std::size_t(c) + 1] = running;
        }
        // 3. The candidates' first entries; one result per candidate with entries, in
        //    candidate order; room for the next call's pairs. setOwned(): each candidate to
        //    the queue of the thread whose speculation range held its group of the last call's
        //    pairs (the first thread's: those without one).
#pragma omp single
        {
            mergeStart_[0] = 0;
            for (std::size_t c = 0; c < nc; ++c) mergeStart_[c + 1] += mergeStart_[c];
            mergeCands_.clear();
            slotOf_.resize(nc);
            nextBase_.resize(nc);
            out.pairs.reserve(base + nc);
            if (owned_) {
                if (queues_.size() < tn) queues_.resize(tn);
                for (std::size_t q = 0; q < tn; ++q) queues_[q].clear();
                if (queueCursorCount_ < tn) {
                    queueCursors_ = std::make_unique<QueueCursor[]>(tn);
                    queueCursorCount_ = tn;
                }
            }
            // The speculating team's ranges (speculateOwned()): as this team's when none.
            const std::uint32_t specTeam = specTeam_.load(std::memory_order_relaxed);
            const std::size_t specThreads = specTeam > 0 ? specTeam : tn;
            const std::size_t ranges = specThreads > 1 ? specThreads - 1 : 1;
            const std::uint64_t priorTotal = priorPairs_.size();
            std::size_t room = pairBase;
            for (std::size_t c = 0; c < nc; ++c) {
                if (mergeStart_[c + 1] == mergeStart_[c]) continue;
                if (owned_) {
                    std::size_t owner = 0;
                    if (const std::uint32_t g = candGroup_[c]; g != kNone && priorTotal > 0) {
                        const std::uint64_t mid = (std::uint64_t(priorGroups_[g].begin) + priorGroups_[g].end) / 2;
                        const std::size_t r = std::min<std::size_t>(ranges - 1, std::size_t(mid * ranges / priorTotal));
                        owner = (specThreads > 1 ? r + 1 : 0) % tn;
                    }
                    queues_[owner].push_back(static_cast<std::uint32_t>(c));
                } else {
                    mergeCands_.push_back(static_cast<std::uint32_t>(c));
                }
                slotOf_[c] = static_cast<std::uint32_t>(out.pairs.size());
                out.pairs.emplace_back().pair = candidates[c];
                nextBase_[c] = static_cast<std::uint32_t>(room);
                room += mergeStart_[c + 1] - mergeStart_[c];
            }
            // The candidates with the most entries first (dynamic schedule: the longest start
            // early); setOwned(): each thread sorts its own queue below.
            prepareRoom(mergeCands_, mergeStart_, groupBase + (out.pairs.size() - base), pairBase, room, total,
                        wantSegments);
        }
        const auto entriesOf = [&](std::uint32_t c) { return mergeStart_[c + 1] - mergeStart_[c]; };
        if (owned_) {
            std::vector<std::uint32_t>& queue = queues_[t];
            std::sort(queue.begin(), queue.end(), [&](std::uint32_t x, std::uint32_t y) {
                return entriesOf(x) != entriesOf(y) ? entriesOf(x) > entriesOf(y) : x < y;
            });
            queueCursors_[t].frontBack.store(std::uint64_t(queue.size()) << 32, std::memory_order_relaxed);
        }
        // 4. Each thread scatters its share, oriented as (a's triangle, b's triangle).
        for (std::size_t k = lo; k < hi; ++k) {
            const TrianglePairCandidate& f = found[k];
            const ObjectPair p = candidates[f.candidate];
            merged_[mergeStart_[f.candidate] + row[f.candidate]++] =
                p.a <= p.b ? TrianglePair{f.low, f.high} : TrianglePair{f.high, f.low};
        }
#pragma omp barrier
#pragma omp master
        sortMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        // 5. Per candidate with entries: sorted, made unique, merged with its group of the last
        //    call's pairs; what speculate() tested is taken, the rest tested. setOwned(): the
        //    intersecting pairs straight into the result (room for all its entries), else
        //    flagged first and copied in a second pass (room for the hits only).
        const auto handle = [&](std::uint32_t c) {
            const ObjectPair pair = candidates[c];
            const auto first = merged_.begin() + mergeStart_[c];
            std::sort(first, merged_.begin() + mergeStart_[c + 1]);
            const std::uint32_t jEnd =
                mergeStart_[c] +
                static_cast<std::uint32_t>(std::unique(first, merged_.begin() + mergeStart_[c + 1]) - first);
            const Side sa(scene, pair.a), sb(scene, pair.b);
            const std::uint32_t g = candGroup_[c];
            const PriorPair* prior = g != kNone ? priorPairs_.data() + priorGroups_[g].begin : nullptr;
            const PriorPair* priorEnd = g != kNone ? priorPairs_.data() + priorGroups_[g].end : nullptr;
            PairResult& r = out.pairs[slotOf_[c]];
            const std::uint32_t group = groupBase + (slotOf_[c] - static_cast<std::uint32_t>(base));
            std::uint32_t at = nextBase_[c];
            std::uint32_t hits = 0;
            if (owned_) {
                r.triangles.reserve(jEnd - mergeStart_[c]);
                if (wantSegments) r.segments.reserve(jEnd - mergeStart_[c]);
            }
            for (std::uint32_t j = mergeStart_[c]; j < jEnd; ++j) {
                const TrianglePair p = merged_[j];
                while (prior != priorEnd && prior->triangles < p) ++prior;
                bool hit;
                Segment segment;
                if (prior != priorEnd && prior->triangles == p && priorState_[std::size_t(prior - priorPairs_.data())] != 0) {
                    const std::size_t i = std::size_t(prior - priorPairs_.data());
                    hit = priorState_[i] == 2;
                    if (hit && wantSegments) segment = priorSegments_[i];
                    reused += 1;
                } else {
                    hit = testPair(sa, sb, p, wantSegments, segment);
                }
                if (owned_) {
                    if (hit) {
                        r.triangles.push_back(p);
                        if (wantSegments) r.segments.push_back(segment);
                    }
                } else {
                    if (hit && wantSegments) freshSegments_[j] = segment;
                    freshHit_[j] = hit ? 1 : 0;
                }
                hits += hit ? 1u : 0u;
                nextPairs_[at] = {group, p};
                nextKind_[at] = hit ? 2 : 1;
                ++at;
            }
            tests += double(jEnd - mergeStart_[c]);
            positives += double(hits);
            nextGroups_[group] = {pair, nextBase_[c], at};
            if (owned_ || hits == 0) return;
            r.triangles.reserve(hits);
            if (wantSegments) r.segments.reserve(hits);
            for (std::uint32_t j = mergeStart_[c]; j < jEnd; ++j) {
                if (freshHit_[j] == 0) continue;
                r.triangles.push_back(merged_[j]);
                if (wantSegments) r.segments.push_back(freshSegments_[j]);
            }
        };
        if (owned_) {
            // Its own queue from the front (the most entries first), then the others' from the
            // back (the fewest), one candidate at a time.
            const auto take = [&](std::size_t q, bool front, std::uint32_t& c) {
                std::atomic<std::uint64_t>& cursor = queueCursors_[q].frontBack;
                std::uint64_t fb = cursor.load(std::memory_order_relaxed);
                for (;;) {
                    const auto f = static_cast<std::uint32_t>(fb), b = static_cast<std::uint32_t>(fb >> 32);
                    if (f >= b) return false;
                    const std::uint64_t next = front ? fb + 1 : (std::uint64_t(b - 1) << 32 | f);
                    if (cursor.compare_exchange_weak(fb, next, std::memory_order_relaxed)) {
                        c = queues_[q][front ? f : b - 1];
                        return true;
                    }
                }
            };
            std::uint32_t c;
            while (take(t, true, c)) handle(c);
            for (std::size_t i = 1; i < tn; ++i)
                while (take((t + i) % tn, false, c)) handle(c);
        } else {
#pragma omp for schedule(dynamic, 1) nowait
            for (std::int64_t k = 0; k < std::int64_t(mergeCands_.size()); ++k) handle(mergeCands_[std::size_t(k)]);
        }
    }
    finishListed(out, base, {t0, sortMs, tests, positives, reused}, false, true);
}

// runListed() and runMerged(), once the call's room is counted: the candidates in `order` sorted
// by their entries (start[c + 1] - start[c]) longest first, the next call's groups and pairs
// [pairBase, room) sized and their kinds zeroed (unused room, duplicates, stays kind 0), room for
// `tests` fresh results.
void PeelExact::prepareRoom(std::vector<std::uint32_t>& order, const std::vector<std::uint32_t>& start,
                            std::size_t groupsUsed, std::size_t pairBase, std::size_t room, std::size_t tests,
                            bool wantSegments) {
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
        return start[x + 1] - start[x] > start[y + 1] - start[y];
    });
    nextGroupsUsed_ = groupsUsed;
    nextPairsUsed_ = room;
    if (nextGroups_.size() < nextGroupsUsed_) nextGroups_.resize(nextGroupsUsed_);
    if (nextPairs_.size() < room) nextPairs_.resize(room);
    if (nextKind_.size() < room) nextKind_.resize(room);
    std::fill(nextKind_.begin() + std::ptrdiff_t(pairBase), nextKind_.begin() + std::ptrdiff_t(room), std::uint8_t(0));
    freshHit_.resize(tests);
    if (wantSegments) freshSegments_.resize(tests);
}

// The end of runListed() and runMerged(): the candidates without intersecting pairs dropped
// from the output, the counters.
void PeelExact::finishListed(DetectionOutput& out, std::size_t base, const ListedTally& tally, bool hashed,
                             bool merged) {
    preparedFor_ = nullptr;  // a second run() of the call (the other half) prepares afresh
    nextCount_ += std::size_t(tally.tests);
    out.pairs.erase(std::remove_if(out.pairs.begin() + std::ptrdiff_t(base), out.pairs.end(),
                                   [](const PairResult& r) { return r.triangles.empty(); }),
                    out.pairs.end());
    const double totalMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - tally.start).count();
    out.stats.count("exact_sort_ms", out.stats.counter("exact_sort_ms") + tally.sortMs);
    out.stats.count("exact_test_ms", out.stats.counter("exact_test_ms") + (totalMs - tally.sortMs));
    out.stats.count("tri_tri_tests", out.stats.counter("tri_tri_tests") + tally.tests);
    out.stats.count("positive_tests", out.stats.counter("positive_tests") + tally.positives);
    out.stats.count("exact_reused", out.stats.counter("exact_reused") + tally.reused);
    out.stats.count("exact_speculated", double(speculated_.load(std::memory_order_relaxed)));
    countSpeculationSpan(out);
    out.stats.count("exact_hashed", hashed ? 1.0 : 0.0);
    out.stats.count("exact_merged", merged ? 1.0 : 0.0);
}

void PeelExact::runGrouped(const Scene& scene, std::span<const ObjectPair> candidates,
                           std::span<const TrianglePairCandidate> found, bool wantSegments, DetectionOutput& out,
                           bool useSpeculation, bool parallel, int team) {
    const auto t0 = std::chrono::steady_clock::now();
    // Group by candidate (counting sort), as (triangle of a, triangle of b).
    const std::size_t nc = candidates.size();
    start_.assign(nc + 1, 0);
    for (const TrianglePairCandidate& f : found) ++start_[f.candidate + 1];
    for (std::size_t c = 0; c < nc; ++c) start_[c + 1] += start_[c];
    sorted_.resize(found.size());
    {
        cursor_.assign(start_.begin(), start_.end() - 1);
        for (const TrianglePairCandidate& f : found) {
            const ObjectPair p = candidates[f.candidate];
            sorted_[cursor_[f.candidate]++] = p.a <= p.b ? TrianglePair{f.low, f.high} : TrianglePair{f.high, f.low};
        }
    }
    // Work items: each candidate's entries cut into chunks of at most kChunk (a pile has a few
    // dozen entries per candidate: one chunk each; one pair with thousands still spreads).
    items_.clear();
    for (std::size_t c = 0; c < nc; ++c)
        for (std::uint32_t b = start_[c]; b < start_[c + 1]; b += kChunk)
            items_.push_back({static_cast<std::uint32_t>(c), b,
                              std::min<std::uint32_t>(start_[c + 1], b + static_cast<std::uint32_t>(kChunk)), 0, 0});
    hit_.assign(found.size(), 0);
    if (wantSegments) segments_.resize(found.size());
    // One result per candidate with entries, made here so that the loop's threads fill those of
    // one item (nearly all) in place; the empty ones are dropped after.
    const std::size_t base = out.pairs.size();
    slotOf_.resize(nc);
    out.pairs.reserve(base + nc);
    for (std::size_t c = 0; c < nc; ++c) {
        if (start_[c + 1] == start_[c]) continue;
        slotOf_[c] = static_cast<std::uint32_t>(out.pairs.size());
        out.pairs.emplace_back().pair = candidates[c];
    }
    const auto t1 = std::chrono::steady_clock::now();
    // One parallel loop, one join: each item sorts its entries, merges their duplicates (one
    // per axis and tile that found the pair, with rays) and tests what is left. No barrier in
    // between: a thread the OS parks for a while (a VM's vCPU, the GL driver's thread on the
    // same core) delays only its own items, not a phase of every thread.
    const auto count = static_cast<std::int64_t>(items_.size());
#pragma omp parallel for schedule(dynamic, 1) if (parallel) num_threads(team)
    for (std::int64_t k = 0; k < count; ++k) {
        Item& item = items_[std::size_t(k)];
        const auto first = sorted_.begin() + item.begin, last = sorted_.begin() + item.end;
        std::sort(first, last);
        item.tests = static_cast<std::uint32_t>(std::unique(first, last) - first);
        const ObjectPair pair = candidates[item.candidate];
        const Side sa(scene, pair.a), sb(scene, pair.b);
        // What speculate() tested of this object pair this call (sorted, as the entries are).
        const PriorPair *prior = nullptr, *priorEnd = nullptr;
        if (useSpeculation) {
            if (const std::uint32_t g = findGroup(pair); g < priorGroups_.size()) {
                prior = priorPairs_.data() + priorGroups_[g].begin;
                priorEnd = priorPairs_.data() + priorGroups_[g].end;
            }
        }
        std::uint32_t reused = 0;
        for (std::uint32_t i = item.begin; i < item.begin + item.tests; ++i) {
            const TrianglePair p = sorted_[i];
            prior = std::lower_bound(prior, priorEnd, p,
                                     [](const PriorPair& x, const TrianglePair& y) { return x.triangles < y; });
            if (prior != priorEnd && prior->triangles == p) {
                const std::size_t at = std::size_t(prior - priorPairs_.data());
                if (const std::uint8_t state = priorState_[at]; state != 0) {
                    hit_[i] = state == 2 ? 1 : 0;
                    if (state == 2 && wantSegments) segments_[i] = priorSegments_[at];
                    ++reused;
                    continue;
                }
            }
            Segment segment;
            if (!testPair(sa, sb, p, wantSegments, segment)) continue;
            hit_[i] = 1;
            if (wantSegments) segments_[i] = segment;
        }
        item.reused = reused;
        if (item.end - item.begin == start_[item.candidate + 1] - start_[item.candidate]) {
            // The candidate's only item: its result, sorted and unique already.
            std::uint32_t n = 0;
            for (std::uint32_t i = item.begin; i < item.begin + item.tests; ++i) n += hit_[i];
            if (n == 0) continue;
            PairResult& r = out.pairs[slotOf_[item.candidate]];
            r.triangles.reserve(n);
            if (wantSegments) r.segments.reserve(n);
            for (std::uint32_t i = item.begin; i < item.begin + item.tests; ++i) {
                if (!hit_[i]) continue;
                r.triangles.push_back(sorted_[i]);
                if (wantSegments) r.segments.push_back(segments_[i]);
            }
        }
    }
    const auto t2 = std::chrono::steady_clock::now();
    // Added to what the call has (a split call runs the test once per half).
    out.stats.count("exact_sort_ms",
                    out.stats.counter("exact_sort_ms") + std::chrono::duration<double, std::milli>(t1 - t0).count());
    out.stats.count("exact_test_ms",
                    out.stats.counter("exact_test_ms") + std::chrono::duration<double, std::milli>(t2 - t1).count());
    // The results, per candidate in candidate order. A candidate of one item has its result
    // (sorted and unique) from the loop; one of several is merged here (sorted, and unique
    // across its items). Then the candidates without an intersecting pair are dropped.
    double tests = 0, positives = 0, reused = 0;
    std::size_t k = 0;
    for (std::size_t c = 0; c < nc; ++c) {
        const std::size_t first = k;
        for (; k < items_.size() && items_[k].candidate == c; ++k) {
            tests += double(items_[k].tests);
            reused += double(items_[k].reused);
        }
        if (k - first <= 1) continue;
        PairResult& r = out.pairs[slotOf_[c]];
        for (std::size_t j = first; j < k; ++j)
            for (std::uint32_t i = items_[j].begin; i < items_[j].begin + items_[j].tests; ++i) {
                if (!hit_[i]) continue;
                r.triangles.push_back(sorted_[i]);
                if (wantSegments) r.segments.push_back(segments_[i]);
            }
        order_.resize(r.triangles.size());
        std::iota(order_.begin(), order_.end(), 0u);
        std::stable_sort(order_.begin(), order_.end(),
                         [&](std::uint32_t x, std::uint32_t y) { return r.triangles[x] < r.triangles[y]; });
        std::vector<TrianglePair> tris;
        std::vector<Segment> segs;
        tris.reserve(order_.size());
        for (std::uint32_t x : order_) {
            if (!tris.empty() && tris.back() == r.triangles[x]) continue;  // found in two items
            tris.push_back(r.triangles[x]);
            if (wantSegments) segs.push_back(r.segments[x]);
        }
        r.triangles = std::move(tris);
        if (wantSegments) r.segments = std::move(segs);
    }
    out.pairs.erase(std::remove_if(out.pairs.begin() + std::ptrdiff_t(base), out.pairs.end(),
                                   [](const PairResult& r) { return r.triangles.empty(); }),
                    out.pairs.end());
    for (std::size_t i = base; i < out.pairs.size(); ++i) positives += double(out.pairs[i].triangles.size());
    out.stats.count("tri_tri_tests", out.stats.counter("tri_tri_tests") + tests);
    out.stats.count("positive_tests", out.stats.counter("positive_tests") + positives);
    out.stats.count("exact_reused", out.stats.counter("exact_reused") + reused);
    out.stats.count("exact_speculated", double(speculated_.load(std::memory_order_relaxed)));
    countSpeculationSpan(out);
}

}  // namespace isc::peel
