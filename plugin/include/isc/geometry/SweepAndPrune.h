#pragma once
/// Sweep and prune between two sets of boxes (Cohen et al. 1995), as the depth-peeling
/// detector's CPU narrowphase uses it (Georgii, Krueger & Westermann, paper 003, section 7):
/// sort on x, sweep, test y, and look at z only when x and y overlap. No GL, no Bullet.
#include "isc/core/Math.h"
#include "isc/core/Types.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace isc::geometry {

/// Every pair (i, j) for which a[i] and b[j] overlap (touching included), sorted by
/// (i, j); `a` and `b` index the two input spans (triangle indices when the boxes are
/// triangles' boxes). Empty boxes overlap nothing. Any space, as long as both agree.
/// O((n + m) log(n + m) + pairs tested on x).
void sweepAndPrune(std::span<const Aabb> a, std::span<const Aabb> b, std::vector<TrianglePair>& out);

/// The same with the z test deferred to `zOverlaps(i, j)` (bool), which is called only for
/// pairs whose x and y extents overlap: for boxes whose z extent is costly to get (paper
/// 003 reads it from a texture). `a` and `b` give x and y in Aabb::min/max (z ignored).
/// Output sorted by (i, j).
template <class ZTest>
void sweepAndPruneLazyZ(std::span<const Aabb> a, std::span<const Aabb> b, std::vector<TrianglePair>& out,
                        ZTest&& zOverlaps) {
    out.clear();
    struct Entry {
        float minX;
        std::uint32_t index;  // high bit: from b
    };
    constexpr std::uint32_t kFromB = 0x80000000u;
    std::vector<Entry> order;
    order.reserve(a.size() + b.size());
    for (std::uint32_t i = 0; i < a.size(); ++i)
        if (!a[i].isEmpty()) order.push_back({a[i].min.x, i});
    for (std::uint32_t j = 0; j < b.size(); ++j)
        if (!b[j].isEmpty()) order.push_back({b[j].min.x, j | kFromB});
    std::sort(order.begin(), order.end(), [](const Entry& l, const Entry& r) {
        return l.minX < r.minX || (l.minX == r.minX && l.index < r.index);
    });
    std::vector<std::uint32_t> activeA, activeB;
    for (const Entry& e : order) {
        const bool fromB = (e.index & kFromB) != 0;
        const std::uint32_t idx = e.index & ~kFromB;
        const Aabb& box = fromB ? b[idx] : a[idx];
        std::vector<std::uint32_t>& other = fromB ? activeA : activeB;
        const std::span<const Aabb> otherBoxes = fromB ? a : b;
        // Drop the other set's boxes that end before this one starts, test the rest.
        std::size_t kept = 0;
        for (std::size_t k = 0; k < other.size(); ++k) {
            const std::uint32_t o = other[k];
            const Aabb& ob = otherBoxes[o];
            if (ob.max.x < box.min.x) continue;
            other[kept++] = o;
            if (ob.min.y <= box.max.y && box.min.y <= ob.max.y) {
                const std::uint32_t i = fromB ? o : idx, j = fromB ? idx : o;
                if (zOverlaps(i, j)) out.push_back({i, j});
            }
        }
        other.resize(kept);
        (fromB ? activeB : activeA).push_back(idx);
    }
    // Sorted by (i, j): a counting sort on i, then each i's few j sorted (a full sort of the
    // pairs cost cullide's exact stage several times more; callers then walk a's boxes in order).
    std::vector<std::uint32_t> start(a.size() + 1, 0);
    for (const TrianglePair& p : out) ++start[p.a + 1];
    for (std::size_t i = 0; i < a.size(); ++i) start[i + 1] += start[i];
    std::vector<TrianglePair> sorted(out.size());
    std::vector<std::uint32_t> next(start.begin(), start.end() - 1);
    for (const TrianglePair& p : out) sorted[next[p.a]++] = p;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (start[i + 1] - start[i] > 1) std::sort(sorted.begin() + start[i], sorted.begin() + start[i + 1]);
    out.swap(sorted);
}

}  // namespace isc::geometry
