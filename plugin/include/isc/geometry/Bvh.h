#pragma once
/// Bounding-volume hierarchy of axis-aligned boxes over a mesh's triangles. The topology
/// is built once (binned SAH over the local-space triangle boxes); refit() recomputes the
/// boxes bottom-up from new vertex positions (world space, double) in O(n), so a rigid or
/// deforming mesh never rebuilds. Boxes are stored in float, padded outward by one float
/// ulp around the double vertices, so they are conservative: a triangle pair that touches is never
/// culled. No GL, no Bullet.
#include "isc/core/Math.h"

#include <cstdint>
#include <span>
#include <vector>

namespace isc::geometry {

class Bvh {
public:
    /// Float box, 24 bytes.
    struct Box {
        float min[3];
        float max[3];
    };
    /// 32 bytes. Leaf when count > 0: triangle slots [first, first + count). Otherwise an
    /// inner node whose children are nodes `first` and `first + 1` (children always have
    /// larger indices than their parent, so a reverse sweep refits bottom-up).
    struct Node {
        Box box;
        std::uint32_t first = 0;
        std::uint32_t count = 0;
        bool isLeaf() const { return count > 0; }
    };

    Bvh() = default;
    /// Builds the topology over `triangles` (indices into `vertices`, any space; usually
    /// the mesh's local frame) and fits the boxes to `vertices`. `maxLeafSize` in 1..16.
    void build(std::span<const Vec3> vertices, std::span<const UVec3> triangles, int maxLeafSize = 4);
    /// Refits every box to `vertices` (same indexing as at build, typically world space).
    void refit(std::span<const DVec3> vertices);

    bool empty() const { return nodes_.empty(); }
    std::span<const Node> nodes() const { return nodes_; }
    /// Mesh triangle index of each slot (leaf order).
    std::span<const std::uint32_t> slotTriangles() const { return slotTriangle_; }
    /// Box of each slot's triangle (leaf order), as of the last build/refit.
    std::span<const Box> slotBoxes() const { return slotBox_; }
    /// Root box (empty Aabb when there are no triangles).
    Aabb bounds() const;
    /// Depth of the deepest leaf (root = 1).
    int depth() const { return depth_; }

    /// Calls `f(triangleA, triangleB)` (mesh triangle indices) once for every pair of
    /// triangles, one from each tree, whose boxes overlap (touching included).
    template <class F>
    static void forEachOverlap(const Bvh& a, const Bvh& b, F&& f);
    /// Calls `f(i, j)` once for every unordered pair of distinct triangles of this tree
    /// whose boxes overlap (touching included); which of the two comes first is unspecified.
    template <class F>
    void forEachSelfOverlap(F&& f) const;

    static bool overlaps(const Box& a, const Box& b) {
        return a.min[0] <= b.max[0] && b.min[0] <= a.max[0] && a.min[1] <= b.max[1] &&
               b.min[1] <= a.max[1] && a.min[2] <= b.max[2] && b.min[2] <= a.max[2];
    }

private:
    static float area(const Box& b) {
        const float dx = b.max[0] - b.min[0], dy = b.max[1] - b.min[1], dz = b.max[2] - b.min[2];
        return dx * dy + dy * dz + dz * dx;
    }
    std::vector<Node> nodes_;
    std::vector<std::uint32_t> slotTriangle_;
    std::vector<UVec3> slotIndices_;  // the slot's triangle corners, for a cache-friendly refit
    std::vector<Box> slotBox_;
    int depth_ = 0;
    std::size_t vertexCount_ = 0;
};

template <class F>
void Bvh::forEachOverlap(const Bvh& a, const Bvh& b, F&& f) {
    if (a.empty() || b.empty()) return;
    struct Item {
        std::uint32_t a, b;
    };
    // One pop pushes at most two: the stack never holds more than the two depths added.
    std::vector<Item> stack;
    stack.reserve(static_cast<std::size_t>(a.depth_ + b.depth_) * 2 + 4);
    const Node* na = a.nodes_.data();
    const Node* nb = b.nodes_.data();
    const Box* ba = a.slotBox_.data();
    const Box* bb = b.slotBox_.data();
    if (!overlaps(na[0].box, nb[0].box)) return;
    stack.push_back({0, 0});
    while (!stack.empty()) {
        const Item it = stack.back();
        stack.pop_back();
        const Node& x = na[it.a];
        const Node& y = nb[it.b];
        if (x.isLeaf() && y.isLeaf()) {
            for (std::uint32_t i = x.first; i < x.first + x.count; ++i) {
                if (!overlaps(ba[i], y.box)) continue;
                for (std::uint32_t j = y.first; j < y.first + y.count; ++j) {
                    if (overlaps(ba[i], bb[j])) f(a.slotTriangle_[i], b.slotTriangle_[j]);
                }
            }
            continue;
        }
        // Descend the bigger node (or the only inner one).
        if (y.isLeaf() || (!x.isLeaf() && area(x.box) >= area(y.box))) {
            const std::uint32_t c = x.first;
            if (overlaps(na[c].box, y.box)) stack.push_back({c, it.b});
            if (overlaps(na[c + 1].box, y.box)) stack.push_back({c + 1, it.b});
        } else {
            const std::uint32_t c = y.first;
            if (overlaps(x.box, nb[c].box)) stack.push_back({it.a, c});
            if (overlaps(x.box, nb[c + 1].box)) stack.push_back({it.a, c + 1});
        }
    }
}

template <class F>
void Bvh::forEachSelfOverlap(F&& f) const {
    if (empty()) return;
    struct Item {
        std::uint32_t a, b;
    };
    std::vector<Item> stack;
    stack.reserve(static_cast<std::size_t>(depth_) * 4 + 4);
    const Node* n = nodes_.data();
    const Box* sb = slotBox_.data();
    stack.push_back({0, 0});
    while (!stack.empty()) {
        const Item it = stack.back();
        stack.pop_back();
        const Node& x = n[it.a];
        const Node& y = n[it.b];
        if (it.a == it.b) {
            if (x.isLeaf()) {
                for (std::uint32_t i = x.first; i < x.first + x.count; ++i)
                    for (std::uint32_t j = i + 1; j < x.first + x.count; ++j)
                        if (overlaps(sb[i], sb[j])) f(slotTriangle_[i], slotTriangle_[j]);
            } else {
                const std::uint32_t c = x.first;
                stack.push_back({c, c});
                stack.push_back({c + 1, c + 1});
                if (overlaps(n[c].box, n[c + 1].box)) stack.push_back({c, c + 1});
            }
            continue;
        }
        if (x.isLeaf() && y.isLeaf()) {
            for (std::uint32_t i = x.first; i < x.first + x.count; ++i) {
                if (!overlaps(sb[i], y.box)) continue;
                for (std::uint32_t j = y.first; j < y.first + y.count; ++j)
                    if (overlaps(sb[i], sb[j])) f(slotTriangle_[i], slotTriangle_[j]);
            }
            continue;
        }
        if (y.isLeaf() || (!x.isLeaf() && area(x.box) >= area(y.box))) {
            const std::uint32_t c = x.first;
            if (overlaps(n[c].box, y.box)) stack.push_back({c, it.b});
            if (overlaps(n[c + 1].box, y.box)) stack.push_back({c + 1, it.b});
        } else {
            const std::uint32_t c = y.first;
            if (overlaps(x.box, n[c].box)) stack.push_back({it.a, c});
            if (overlaps(x.box, n[c + 1].box)) stack.push_back({it.a, c + 1});
        }
    }
}

}  // namespace isc::geometry
