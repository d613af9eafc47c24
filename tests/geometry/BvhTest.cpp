// BVH: refitted boxes contain their triangles (conservatively, in float), and the pair
// traversals report exactly the box-overlapping triangle pairs a double loop finds.
#include "isc/geometry/Bvh.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <utility>

using namespace isc;
using namespace isc::geometry;

namespace {

struct Soup {
    std::vector<Vec3> local;
    std::vector<UVec3> tris;
};

// Small random triangles scattered in a cube: many overlaps, many leaves.
Soup randomSoup(std::uint64_t seed, int count, float spread) {
    std::mt19937_64 rng(seed);
    auto uni = [&] { return static_cast<float>(static_cast<double>(rng() >> 11) * 0x1.0p-53) * 2.0f - 1.0f; };
    Soup s;
    for (int t = 0; t < count; ++t) {
        const Vec3 c(uni() * spread, uni() * spread, uni() * spread);
        for (int k = 0; k < 3; ++k) s.local.push_back(c + 0.1f * Vec3(uni(), uni(), uni()));
        s.tris.push_back(UVec3(3 * t, 3 * t + 1, 3 * t + 2));
    }
    return s;
}

std::vector<DVec3> posed(const Soup& s, const Pose& pose) {
    std::vector<DVec3> out;
    for (const Vec3& v : s.local) out.push_back(pose.applyDouble(v));
    return out;
}

bool contains(const Bvh::Box& b, const DVec3& p) {
    for (int k = 0; k < 3; ++k)
        if (!(double(b.min[k]) <= p[k] && p[k] <= double(b.max[k]))) return false;
    return true;
}

bool boxesTouch(const DVec3* a, const DVec3* b) {
    for (int k = 0; k < 3; ++k) {
        const double amin = std::min({a[0][k], a[1][k], a[2][k]}), amax = std::max({a[0][k], a[1][k], a[2][k]});
        const double bmin = std::min({b[0][k], b[1][k], b[2][k]}), bmax = std::max({b[0][k], b[1][k], b[2][k]});
        if (amin > bmax || bmin > amax) return false;
    }
    return true;
}

TEST(Bvh, RefitBoundsContainEveryTriangle) {
    const Soup s = randomSoup(1, 500, 1.0f);
    for (int leaf : {1, 2, 4, 8}) {
        Bvh bvh;
        bvh.build(s.local, s.tris, leaf);
        Pose pose;
        pose.position = Vec3(3.0f, -1.0f, 0.5f);
        pose.rotation = glm::normalize(Quat(0.3f, 0.5f, -0.7f, 0.2f));
        const std::vector<DVec3> w = posed(s, pose);
        bvh.refit(w);
        const auto nodes = bvh.nodes();
        const auto slots = bvh.slotTriangles();
        ASSERT_EQ(slots.size(), s.tris.size());
        std::vector<int> seen(s.tris.size(), 0);
        for (std::uint32_t t : slots) ++seen[t];
        EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; })) << "a permutation";
        std::vector<int> parentOf(nodes.size(), -1);
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            const Bvh::Node& n = nodes[i];
            if (n.isLeaf()) {
                EXPECT_LE(n.count, std::uint32_t(leaf));
                for (std::uint32_t k = n.first; k < n.first + n.count; ++k) {
                    const UVec3 t = s.tris[slots[k]];
                    for (int c = 0; c < 3; ++c) {
                        EXPECT_TRUE(contains(n.box, w[t[c]]));
                        EXPECT_TRUE(contains(bvh.slotBoxes()[k], w[t[c]]));
                    }
                }
            } else {
                ASSERT_GT(n.first, i) << "children after parents";
                for (std::uint32_t c = n.first; c < n.first + 2; ++c) {
                    parentOf[c] = int(i);
                    for (int k = 0; k < 3; ++k) {
                        EXPECT_LE(n.box.min[k], nodes[c].box.min[k]);
                        EXPECT_GE(n.box.max[k], nodes[c].box.max[k]);
                    }
                }
            }
        }
        for (std::size_t i = 1; i < nodes.size(); ++i) EXPECT_GE(parentOf[i], 0) << "node " << i << " unreachable";
        EXPECT_GE(bvh.depth(), 2);
    }
}

TEST(Bvh, PairTraversalFindsEveryOverlappingBoxPair) {
    const Soup a = randomSoup(2, 300, 1.0f), b = randomSoup(3, 200, 1.0f);
    Bvh ba, bb;
    ba.build(a.local, a.tris);
    bb.build(b.local, b.tris);
    std::mt19937_64 rng(9);
    for (int trial = 0; trial < 20; ++trial) {
        Pose pa, pb;
        pb.position = Vec3(float(trial % 5) * 0.3f, 0.1f * float(trial), 0.0f);
        pb.rotation = glm::normalize(Quat(1.0f, 0.1f * float(trial), 0.2f, -0.1f));
        const auto wa = posed(a, pa), wb = posed(b, pb);
        ba.refit(wa);
        bb.refit(wb);
        std::set<std::pair<std::uint32_t, std::uint32_t>> expected, got;
        for (std::uint32_t i = 0; i < a.tris.size(); ++i)
            for (std::uint32_t j = 0; j < b.tris.size(); ++j)
                if (boxesTouch(&wa[3 * i], &wb[3 * j])) expected.insert({i, j});
        std::size_t calls = 0;
        Bvh::forEachOverlap(ba, bb, [&](std::uint32_t i, std::uint32_t j) {
            ++calls;
            got.insert({i, j});
        });
        EXPECT_EQ(calls, got.size()) << "each pair once";
        // Float boxes are rounded outward, so they may add pairs but never lose one.
        for (const auto& p : expected) EXPECT_TRUE(got.count(p)) << p.first << ' ' << p.second;
        EXPECT_LE(got.size(), expected.size() + expected.size() / 100 + 2);
        EXPECT_FALSE(expected.empty());
    }
}

TEST(Bvh, SelfTraversalFindsEveryOverlappingBoxPairOnce) {
    const Soup s = randomSoup(4, 400, 1.0f);
    Bvh bvh;
    bvh.build(s.local, s.tris, 2);
    const auto w = posed(s, Pose{});
    bvh.refit(w);
    std::set<std::pair<std::uint32_t, std::uint32_t>> expected, got;
    for (std::uint32_t i = 0; i < s.tris.size(); ++i)
        for (std::uint32_t j = i + 1; j < s.tris.size(); ++j)
            if (boxesTouch(&w[3 * i], &w[3 * j])) expected.insert({i, j});
    std::size_t calls = 0;
    bvh.forEachSelfOverlap([&](std::uint32_t i, std::uint32_t j) {
        ++calls;
        EXPECT_NE(i, j);
        got.insert({std::min(i, j), std::max(i, j)});
    });
    EXPECT_EQ(calls, got.size());
    EXPECT_EQ(got, expected);
}

TEST(Bvh, EmptyAndSingleTriangle) {
    Bvh empty;
    empty.build({}, {});
    EXPECT_TRUE(empty.empty());
    EXPECT_TRUE(empty.bounds().isEmpty());
    const std::vector<Vec3> v = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    const std::vector<UVec3> t = {{0, 1, 2}};
    Bvh one;
    one.build(v, t);
    int calls = 0;
    Bvh::forEachOverlap(one, empty, [&](std::uint32_t, std::uint32_t) { ++calls; });
    Bvh::forEachOverlap(one, one, [&](std::uint32_t, std::uint32_t) { ++calls; });
    one.forEachSelfOverlap([&](std::uint32_t, std::uint32_t) { ++calls; });
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(one.bounds().max, Vec3(1, 1, 0));
}

}  // namespace
