#pragma once
/// Bounding-volume hierarchy of axis-aligned boxes over a mesh's triangles. The topology
/// is built once (binned SAH over the local-space triangle boxes); refit() recomputes the
/// boxes bottom-up from new vertex positions (world space, double) in O(n), so a rigid or
/// deforming mesh never rebuilds. Boxes are stored in float, padded outward by one float
/// ulp around the double vertices, so they are conservative: a triangle pair that touches is never
/// culled. A rigid mesh need not refit at all: forEachOverlap() with a RelativePose traverses
/// two trees in their own (local) frames, testing oriented boxes by separating axes. No GL,
/// no Bullet.
#include "isc/core/Math.h"

#include <cmath>
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
    /// Where tree b's frame sits in tree a's frame: a point p of b's frame is
    /// `rotation * p + translation` in a's. `margin` (length units, >= 0) widens every box
    /// test: boxes nearer than `margin` count as overlapping. It must cover whatever the
    /// caller's rotation and translation leave out (rounding, a quaternion that is not quite
    /// unit) for the culling to stay conservative.
    struct RelativePose {
        double rotation[3][3];     ///< row-major, orthonormal (to rounding)
        double absRotation[3][3];  ///< |rotation|, element-wise
        double translation[3];
        double margin;
    };
    /// Same as forEachOverlap(a, b, f), but `b`'s boxes are in the frame that `bInA` places
    /// in `a`'s: box pairs are tested as oriented boxes (overlapsFaceAxes(), each axis widened
    /// by `bInA.margin`). Lets rigid meshes keep their trees in local frames (no refit).
    template <class F>
    static void forEachOverlap(const Bvh& a, const Bvh& b, const RelativePose& bInA, F&& f);
    /// Calls `f(i, j)` once for every unordered pair of distinct triangles of this tree
    /// whose boxes overlap (touching included); which of the two comes first is unspecified.
    template <class F>
    void forEachSelfOverlap(F&& f) const {
        forEachSelfOverlapWith([](const Box& a, const Box& b) { return overlaps(a, b); }, f);
    }
    /// The same, with boxes nearer than `margin` (length units, >= 0; compared in double)
    /// counted as overlapping: for a rigid mesh's local tree, where the margin covers the
    /// rounding of the world transform.
    template <class F>
    void forEachSelfOverlap(double margin, F&& f) const {
        forEachSelfOverlapWith([margin](const Box& a, const Box& b) { return overlapsWithin(a, b, margin); }, f);
    }

    static bool overlapsWithin(const Box& a, const Box& b, double margin) {
        for (int k = 0; k < 3; ++k) {
            if (double(a.min[k]) > double(b.max[k]) + margin || double(b.min[k]) > double(a.max[k]) + margin)
                return false;
        }
        return true;
    }

    static bool overlaps(const Box& a, const Box& b) {
        return a.min[0] <= b.max[0] && b.min[0] <= a.max[0] && a.min[1] <= b.max[1] &&
               b.min[1] <= a.max[1] && a.min[2] <= b.max[2] && b.min[2] <= a.max[2];
    }

    /// True unless a separating axis shows `a` (in a's frame) and `b` (in b's frame, placed
    /// by `bInA`) more than `bInA.margin` apart: the exact oriented-box test (all 15 axes).
    /// Computed in double.
    static bool overlaps(const Box& a, const Box& b, const RelativePose& bInA) {
        return overlapsOriented<15>(a, b, bInA);
    }
    /// The same with the 6 face axes only (no edge-edge axes): looser, never separates boxes
    /// that overlaps() keeps, and cheaper. The local-frame traversal uses this one.
    static bool overlapsFaceAxes(const Box& a, const Box& b, const RelativePose& bInA) {
        return overlapsOriented<6>(a, b, bInA);
    }

private:
    template <class Test, class F>
    void forEachSelfOverlapWith(Test&& test, F&& f) const;
    /// The pair traversal of both forEachOverlap()s; `test` says whether two boxes may overlap.
    template <class Test, class F>
    static void forEachOverlapWith(const Bvh& a, const Bvh& b, Test&& test, F&& f);
    template <int kAxes>
    static bool overlapsOriented(const Box& a, const Box& b, const RelativePose& bInA);
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

template <class Test, class F>
void Bvh::forEachOverlapWith(const Bvh& a, const Bvh& b, Test&& test, F&& f) {
    if (a.empty() || b.empty()) return;
    struct Item {
        std::uint32_t a, b;
    };
    std::vector<Item> stack;
    stack.reserve(static_cast<std::size_t>(a.depth_ + b.depth_) * 2 + 4);
    const Node* na = a.nodes_.data();
    const Node* nb = b.nodes_.data();
    const Box* ba = a.slotBox_.data();
    const Box* bb = b.slotBox_.data();
    if (!test(na[0].box, nb[0].box)) return;
    stack.push_back({0, 0});
    while (!stack.empty()) {
        const Item it = stack.back();
        stack.pop_back();
        const Node& x = na[it.a];
        const Node& y = nb[it.b];
        if (x.isLeaf() && y.isLeaf()) {
            for (std::uint32_t i = x.first; i < x.first + x.count; ++i) {
                // A one-triangle leaf's box is that triangle's box: no prefilter needed.
                if (y.count > 1 && !test(ba[i], y.box)) continue;
                for (std::uint32_t j = y.first; j < y.first + y.count; ++j) {
                    if (test(ba[i], bb[j])) f(a.slotTriangle_[i], b.slotTriangle_[j]);
                }
            }
            continue;
        }
        // Descend the bigger node (or the only inner one); areas do not change under a rigid map.
        if (y.isLeaf() || (!x.isLeaf() && area(x.box) >= area(y.box))) {
            const std::uint32_t c = x.first;
            if (test(na[c].box, y.box)) stack.push_back({c, it.b});
            if (test(na[c + 1].box, y.box)) stack.push_back({c + 1, it.b});
        } else {
            const std::uint32_t c = y.first;
            if (test(x.box, nb[c].box)) stack.push_back({it.a, c});
            if (test(x.box, nb[c + 1].box)) stack.push_back({it.a, c + 1});
        }
    }
}

template <class F>
void Bvh::forEachOverlap(const Bvh& a, const Bvh& b, F&& f) {
    forEachOverlapWith(a, b, [](const Box& x, const Box& y) { return overlaps(x, y); }, f);
}

template <class F>
void Bvh::forEachOverlap(const Bvh& a, const Bvh& b, const RelativePose& bInA, F&& f) {
    // Face axes only: on bunny-bunny the 9 edge axes cost more than the node pairs
    // they cut (mean time per pose about 25 % higher with all 15).
    forEachOverlapWith(a, b, [&bInA](const Box& x, const Box& y) { return overlapsFaceAxes(x, y, bInA); }, f);
}

template <int kAxes>
inline bool Bvh::overlapsOriented(const Box& a, const Box& b, const RelativePose& p) {
    static_assert(kAxes == 6 || kAxes == 15);
    // Ericson, Real-Time Collision Detection 4.4.1 (Gottschalk's OBB test), in double, with
    // every comparison widened by the margin. Each axis L has |L| <= 1, so a gap > margin
    // along L is a gap > margin in space; near-parallel edge axes (L ~ 0) can never separate
    // since margin > 0 is never below |T.L| - ra - rb ~ 0.
    double ca[3], ea[3], cb[3], eb[3];
    for (int k = 0; k < 3; ++k) {
        ca[k] = 0.5 * (double(a.min[k]) + double(a.max[k]));
        ea[k] = 0.5 * (double(a.max[k]) - double(a.min[k]));
        cb[k] = 0.5 * (double(b.min[k]) + double(b.max[k]));
        eb[k] = 0.5 * (double(b.max[k]) - double(b.min[k]));
    }
    const auto& R = p.rotation;
    const auto& Q = p.absRotation;
    const double m = p.margin;
    double T[3];
    for (int i = 0; i < 3; ++i) {
        T[i] = R[i][0] * cb[0] + R[i][1] * cb[1] + R[i][2] * cb[2] + p.translation[i] - ca[i];
        if (std::fabs(T[i]) > ea[i] + Q[i][0] * eb[0] + Q[i][1] * eb[1] + Q[i][2] * eb[2] + m) return false;
    }
    for (int j = 0; j < 3; ++j) {
        const double d = T[0] * R[0][j] + T[1] * R[1][j] + T[2] * R[2][j];
        if (std::fabs(d) > Q[0][j] * ea[0] + Q[1][j] * ea[1] + Q[2][j] * ea[2] + eb[j] + m) return false;
    }
    if constexpr (kAxes == 15) {
        for (int i = 0; i < 3; ++i) {
            const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
            for (int j = 0; j < 3; ++j) {
                const int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
                const double ra = ea[i1] * Q[i2][j] + ea[i2] * Q[i1][j];
                const double rb = eb[j1] * Q[i][j2] + eb[j2] * Q[i][j1];
                if (std::fabs(T[i2] * R[i1][j] - T[i1] * R[i2][j]) > ra + rb + m) return false;
            }
        }
    }
    return true;
}

template <class Test, class F>
void Bvh::forEachSelfOverlapWith(Test&& test, F&& f) const {
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
                        if (test(sb[i], sb[j])) f(slotTriangle_[i], slotTriangle_[j]);
            } else {
                const std::uint32_t c = x.first;
                stack.push_back({c, c});
                stack.push_back({c + 1, c + 1});
                if (test(n[c].box, n[c + 1].box)) stack.push_back({c, c + 1});
            }
            continue;
        }
        if (x.isLeaf() && y.isLeaf()) {
            for (std::uint32_t i = x.first; i < x.first + x.count; ++i) {
                if (!test(sb[i], y.box)) continue;
                for (std::uint32_t j = y.first; j < y.first + y.count; ++j)
                    if (test(sb[i], sb[j])) f(slotTriangle_[i], slotTriangle_[j]);
            }
            continue;
        }
        if (y.isLeaf() || (!x.isLeaf() && area(x.box) >= area(y.box))) {
            const std::uint32_t c = x.first;
            if (test(n[c].box, y.box)) stack.push_back({c, it.b});
            if (test(n[c + 1].box, y.box)) stack.push_back({c + 1, it.b});
        } else {
            const std::uint32_t c = y.first;
            if (test(x.box, n[c].box)) stack.push_back({it.a, c});
            if (test(x.box, n[c + 1].box)) stack.push_back({it.a, c + 1});
        }
    }
}

}  // namespace isc::geometry
