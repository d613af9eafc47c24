#include "isc/geometry/Bvh.h"

#include "isc/core/Assert.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace isc::geometry {
namespace {

// Outward rounding of a double bound to float, branch-free: the nearest float is within
// half an ulp (2^-24 relative), so one ulp of padding (2^-23 relative, plus the smallest
// normal for values near zero) always contains the double. Boxes grow by about 1e-7.
inline float roundDown(double x) {
    const float f = static_cast<float>(x);
    return f - (std::fabs(f) * 0x1.0p-23f + 0x1.0p-126f);
}
inline float roundUp(double x) {
    const float f = static_cast<float>(x);
    return f + (std::fabs(f) * 0x1.0p-23f + 0x1.0p-126f);
}

inline Bvh::Box emptyBox() {
    constexpr float inf = std::numeric_limits<float>::infinity();
    return {{inf, inf, inf}, {-inf, -inf, -inf}};
}

inline void grow(Bvh::Box& b, const Bvh::Box& o) {
    for (int k = 0; k < 3; ++k) {
        b.min[k] = std::min(b.min[k], o.min[k]);
        b.max[k] = std::max(b.max[k], o.max[k]);
    }
}

inline float halfArea(const Bvh::Box& b) {
    if (b.min[0] > b.max[0]) return 0.0f;
    const float dx = b.max[0] - b.min[0], dy = b.max[1] - b.min[1], dz = b.max[2] - b.min[2];
    return dx * dy + dy * dz + dz * dx;
}

struct BuildTri {
    Bvh::Box box;
    float centroid[3];
    std::uint32_t index;
};

constexpr int kBins = 16;

struct Builder {
    std::vector<BuildTri>& tris;
    std::vector<Bvh::Node>& nodes;
    int maxLeaf;
    int depth = 0;

    // Splits tris[first, first + count) of node `ni`, recursively.
    void split(std::uint32_t ni, std::uint32_t first, std::uint32_t count, int level) {
        depth = std::max(depth, level);
        Bvh::Box box = emptyBox(), cbox = emptyBox();
        for (std::uint32_t i = first; i < first + count; ++i) {
            grow(box, tris[i].box);
            const Bvh::Box c{{tris[i].centroid[0], tris[i].centroid[1], tris[i].centroid[2]},
                             {tris[i].centroid[0], tris[i].centroid[1], tris[i].centroid[2]}};
            grow(cbox, c);
        }
        nodes[ni].box = box;
        if (static_cast<int>(count) <= maxLeaf / 2 || count <= 1) {
            makeLeaf(ni, first, count);
            return;
        }
        // Binned SAH on the widest centroid axis... tried on all three axes.
        float bestCost = std::numeric_limits<float>::infinity();
        int bestAxis = -1, bestBin = -1;
        for (int axis = 0; axis < 3; ++axis) {
            const float lo = cbox.min[axis], hi = cbox.max[axis];
            if (!(hi > lo)) continue;
            const float scale = kBins / (hi - lo);
            Bvh::Box bins[kBins];
            std::uint32_t counts[kBins] = {};
            for (auto& b : bins) b = emptyBox();
            for (std::uint32_t i = first; i < first + count; ++i) {
                const int b = std::min(kBins - 1, static_cast<int>((tris[i].centroid[axis] - lo) * scale));
                ++counts[b];
                grow(bins[b], tris[i].box);
            }
            float rightArea[kBins];
            std::uint32_t rightCount[kBins];
            Bvh::Box acc = emptyBox();
            std::uint32_t n = 0;
            for (int b = kBins - 1; b > 0; --b) {
                grow(acc, bins[b]);
                n += counts[b];
                rightArea[b] = halfArea(acc);
                rightCount[b] = n;
            }
            acc = emptyBox();
            n = 0;
            for (int b = 0; b < kBins - 1; ++b) {
                grow(acc, bins[b]);
                n += counts[b];
                if (n == 0 || rightCount[b + 1] == 0) continue;
                const float cost = halfArea(acc) * n + rightArea[b + 1] * rightCount[b + 1];
                if (cost < bestCost) {
                    bestCost = cost;
                    bestAxis = axis;
                    bestBin = b;
                }
            }
        }
        const float leafCost = halfArea(box) * count;
        // Traversal cost of about one triangle pair test per node visit.
        if (bestAxis < 0 || (static_cast<int>(count) <= maxLeaf && leafCost <= bestCost + halfArea(box))) {
            if (bestAxis < 0 && static_cast<int>(count) > maxLeaf) {
                // All centroids coincide: split by position in the list.
                splitAt(ni, first, count, count / 2, level);
                return;
            }
            makeLeaf(ni, first, count);
            return;
        }
        const float lo = cbox.min[bestAxis];
        const float scale = kBins / (cbox.max[bestAxis] - lo);
        auto mid = std::partition(tris.begin() + first, tris.begin() + first + count, [&](const BuildTri& t) {
            return std::min(kBins - 1, static_cast<int>((t.centroid[bestAxis] - lo) * scale)) <= bestBin;
        });
        std::uint32_t leftCount = static_cast<std::uint32_t>(mid - (tris.begin() + first));
        if (leftCount == 0 || leftCount == count) leftCount = count / 2;
        splitAt(ni, first, count, leftCount, level);
    }

    void splitAt(std::uint32_t ni, std::uint32_t first, std::uint32_t count, std::uint32_t leftCount, int level) {
        const auto c = static_cast<std::uint32_t>(nodes.size());
        nodes.emplace_back();
        nodes.emplace_back();
        nodes[ni].first = c;
        nodes[ni].count = 0;
        split(c, first, leftCount, level + 1);
        split(c + 1, first + leftCount, count - leftCount, level + 1);
    }

    void makeLeaf(std::uint32_t ni, std::uint32_t first, std::uint32_t count) {
        nodes[ni].first = first;
        nodes[ni].count = count;
    }
};

}  // namespace

void Bvh::build(std::span<const Vec3> vertices, std::span<const UVec3> triangles, int maxLeafSize) {
    ISC_ASSERT(maxLeafSize >= 1 && maxLeafSize <= 16, "Bvh::build(): maxLeafSize must be in 1..16");
    nodes_.clear();
    slotTriangle_.clear();
    slotIndices_.clear();
    slotBox_.clear();
    depth_ = 0;
    vertexCount_ = vertices.size();
    if (triangles.empty()) return;
    std::vector<BuildTri> tris(triangles.size());
    for (std::size_t t = 0; t < triangles.size(); ++t) {
        const UVec3& tri = triangles[t];
        ISC_ASSERT(tri.x < vertices.size() && tri.y < vertices.size() && tri.z < vertices.size(),
                   "Bvh::build(): triangle index out of range");
        Box b = emptyBox();
        for (int k = 0; k < 3; ++k) {
            const Vec3& v = vertices[tri[k]];
            const Box p{{v.x, v.y, v.z}, {v.x, v.y, v.z}};
            grow(b, p);
        }
        tris[t].box = b;
        for (int k = 0; k < 3; ++k) tris[t].centroid[k] = 0.5f * (b.min[k] + b.max[k]);
        tris[t].index = static_cast<std::uint32_t>(t);
    }
    nodes_.reserve(2 * triangles.size());
    nodes_.emplace_back();
    Builder builder{tris, nodes_, maxLeafSize};
    builder.split(0, 0, static_cast<std::uint32_t>(tris.size()), 1);
    depth_ = builder.depth;
    slotTriangle_.resize(tris.size());
    slotIndices_.resize(tris.size());
    slotBox_.resize(tris.size());
    for (std::size_t s = 0; s < tris.size(); ++s) {
        slotTriangle_[s] = tris[s].index;
        slotIndices_[s] = triangles[tris[s].index];
        slotBox_[s] = tris[s].box;
    }
}

void Bvh::refit(std::span<const DVec3> vertices) {
    const std::size_t n = slotIndices_.size();
    ISC_ASSERT(vertices.size() >= vertexCount_, "Bvh::refit(): fewer vertices than at build");
    for (std::size_t s = 0; s < n; ++s) {
        const UVec3 t = slotIndices_[s];
        const DVec3& a = vertices[t.x];
        const DVec3& b = vertices[t.y];
        const DVec3& c = vertices[t.z];
        Box& box = slotBox_[s];
        box.min[0] = roundDown(std::min(a.x, std::min(b.x, c.x)));
        box.min[1] = roundDown(std::min(a.y, std::min(b.y, c.y)));
        box.min[2] = roundDown(std::min(a.z, std::min(b.z, c.z)));
        box.max[0] = roundUp(std::max(a.x, std::max(b.x, c.x)));
        box.max[1] = roundUp(std::max(a.y, std::max(b.y, c.y)));
        box.max[2] = roundUp(std::max(a.z, std::max(b.z, c.z)));
    }
    for (std::size_t i = nodes_.size(); i-- > 0;) {
        Node& node = nodes_[i];
        Box box = emptyBox();
        if (node.isLeaf()) {
            for (std::uint32_t s = node.first; s < node.first + node.count; ++s) grow(box, slotBox_[s]);
        } else {
            box = nodes_[node.first].box;
            grow(box, nodes_[node.first + 1].box);
        }
        node.box = box;
    }
}

Aabb Bvh::bounds() const {
    if (nodes_.empty()) return {};
    const Box& b = nodes_[0].box;
    return {Vec3(b.min[0], b.min[1], b.min[2]), Vec3(b.max[0], b.max[1], b.max[2])};
}

}  // namespace isc::geometry
