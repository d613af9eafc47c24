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
    // Draws in a fixed order (z, y, x: the order GCC evaluated the former Vec3(uni(), uni(),
    // uni()) in), so every compiler makes the same soup; argument order is unspecified.
    auto uni3 = [&] {
        const float z = uni(), y = uni(), x = uni();
        return Vec3(x, y, z);
    };
    Soup s;
    for (int t = 0; t < count; ++t) {
        const Vec3 c = uni3() * spread;
        for (int k = 0; k < 3; ++k) s.local.push_back(c + 0.1f * uni3());
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

// B's frame in A's from two poses, exactly as a rigid traversal wants it (no margin).
Bvh::RelativePose relative(const Pose& pa, const Pose& pb, double margin) {
    const glm::dmat3 ra = glm::mat3_cast(glm::dquat(pa.rotation)), rb = glm::mat3_cast(glm::dquat(pb.rotation));
    const glm::dmat3 r = glm::transpose(ra) * rb;
    const DVec3 t = glm::transpose(ra) * (DVec3(pb.position) - DVec3(pa.position));
    Bvh::RelativePose p{};
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            p.rotation[i][j] = r[j][i];  // glm is column-major
            p.absRotation[i][j] = std::abs(r[j][i]);
        }
        p.translation[i] = t[i];
    }
    p.margin = margin;
    return p;
}

Bvh::Box cube(float h) { return {{-h, -h, -h}, {h, h, h}}; }

TEST(Bvh, OrientedBoxTestHandWorked) {
    // B, a cube of half-size 1 turned 45 degrees about z, reaches sqrt(2) along x; A, the
    // same cube unturned, reaches 1. Centres 1 + sqrt(2) + gap apart along x.
    Pose pa, pb;
    pb.rotation = glm::angleAxis(glm::radians(45.0f), Vec3(0, 0, 1));
    for (double gap : {-0.01, 0.01}) {
        pb.position = Vec3(float(1.0 + std::sqrt(2.0) + gap), 0.0f, 0.0f);
        EXPECT_EQ(Bvh::overlaps(cube(1), cube(1), relative(pa, pb, 0.0)), gap < 0) << gap;
        // The margin widens the test: a gap of 0.01 is an overlap with margin 0.02.
        EXPECT_TRUE(Bvh::overlaps(cube(1), cube(1), relative(pa, pb, 0.02))) << gap;
    }
    // Centres at (d, d, 0): along B's face axis (1, 1, 0) / sqrt(2) they are d sqrt(2) apart,
    // A reaches sqrt(2) (its corner) and B 1 (its face), so d > 1 + 1 / sqrt(2) = 1.707
    // separates there, while A's own axes need d > 1 + sqrt(2).
    pb.position = Vec3(1.75f, 1.75f, 0.0f);
    EXPECT_FALSE(Bvh::overlaps(cube(1), cube(1), relative(pa, pb, 0.0)));
    pb.position = Vec3(1.65f, 1.65f, 0.0f);
    EXPECT_TRUE(Bvh::overlaps(cube(1), cube(1), relative(pa, pb, 0.0)));
}

TEST(Bvh, OrientedBoxTestNeverSeparatesBoxesThatShareAPoint) {
    // Random box pairs in random poses: whenever the test says "separated", no sampled point
    // of A lies in B. The edge-edge axes must have cut some pairs the face axes kept.
    std::mt19937_64 rng(21);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    int separated = 0, overlapping = 0, edgeOnly = 0;
    for (int trial = 0; trial < 4000; ++trial) {
        Bvh::Box a{}, b{};
        for (int k = 0; k < 3; ++k) {
            a.min[k] = u(rng) * 0.5f - 0.6f;
            a.max[k] = a.min[k] + 0.1f + std::abs(u(rng));
            b.min[k] = u(rng) * 0.5f - 0.6f;
            b.max[k] = b.min[k] + 0.1f + std::abs(u(rng));
        }
        Pose pa, pb;
        pa.rotation = glm::normalize(Quat(u(rng), u(rng), u(rng), u(rng)));
        pb.rotation = glm::normalize(Quat(u(rng), u(rng), u(rng), u(rng)));
        pa.position = Vec3(u(rng), u(rng), u(rng));
        pb.position = Vec3(u(rng), u(rng), u(rng));
        const Bvh::RelativePose rel = relative(pa, pb, 0.0);
        const bool hit = Bvh::overlaps(a, b, rel);
        (hit ? overlapping : separated)++;
        // Faces only (A's and B's), by hand: looser, so it must keep every pair the full
        // test keeps.
        const Bvh::RelativePose& faces = rel;
        bool faceHit = true;
        {
            double ca[3], ea[3], cb[3], eb[3], T[3];
            for (int k = 0; k < 3; ++k) {
                ca[k] = 0.5 * (double(a.min[k]) + a.max[k]);
                ea[k] = 0.5 * (double(a.max[k]) - a.min[k]);
                cb[k] = 0.5 * (double(b.min[k]) + b.max[k]);
                eb[k] = 0.5 * (double(b.max[k]) - b.min[k]);
            }
            for (int i = 0; i < 3; ++i) {
                T[i] = faces.translation[i] - ca[i];
                for (int j = 0; j < 3; ++j) T[i] += faces.rotation[i][j] * cb[j];
            }
            for (int i = 0; i < 3; ++i) {
                double rb = 0.0;
                for (int j = 0; j < 3; ++j) rb += faces.absRotation[i][j] * eb[j];
                faceHit &= std::abs(T[i]) <= ea[i] + rb;
            }
            for (int j = 0; j < 3; ++j) {
                double d = 0.0, ra = 0.0;
                for (int i = 0; i < 3; ++i) {
                    d += T[i] * faces.rotation[i][j];
                    ra += faces.absRotation[i][j] * ea[i];
                }
                faceHit &= std::abs(d) <= ra + eb[j];
            }
        }
        EXPECT_EQ(Bvh::overlapsFaceAxes(a, b, rel), faceHit) << trial;
        if (hit) {
            EXPECT_TRUE(faceHit) << trial;
            continue;
        }
        edgeOnly += faceHit;
        // Points of A (corners and random interior points) posed into B's frame.
        const glm::dmat3 ra = glm::mat3_cast(glm::dquat(pa.rotation)), rb = glm::mat3_cast(glm::dquat(pb.rotation));
        for (int s = 0; s < 200; ++s) {
            DVec3 p;
            for (int k = 0; k < 3; ++k) {
                const double f = s < 8 ? double((s >> k) & 1) : 0.5 + 0.5 * double(u(rng));
                p[k] = a.min[k] + f * (double(a.max[k]) - a.min[k]);
            }
            const DVec3 inB = glm::transpose(rb) * (ra * p + DVec3(pa.position) - DVec3(pb.position));
            bool inside = true;
            for (int k = 0; k < 3; ++k) inside &= inB[k] >= b.min[k] && inB[k] <= b.max[k];
            ASSERT_FALSE(inside) << "trial " << trial << ": separated boxes share a point";
        }
    }
    EXPECT_GT(separated, 500);
    EXPECT_GT(overlapping, 300);
    EXPECT_GT(edgeOnly, 0) << "no pair needed an edge-edge axis";
}

TEST(Bvh, LocalFramePairTraversalFindsEveryOrientedBoxPair) {
    // Two trees in their own frames, never refitted: the traversal reports exactly the
    // triangle pairs whose local boxes pass the (face-axis) oriented box test, each once.
    const Soup a = randomSoup(5, 300, 1.0f), b = randomSoup(6, 200, 1.0f);
    Bvh ba, bb;
    ba.build(a.local, a.tris);
    bb.build(b.local, b.tris);
    for (int trial = 0; trial < 20; ++trial) {
        Pose pa, pb;
        pa.rotation = glm::normalize(Quat(0.7f, 0.2f * float(trial), -0.3f, 0.1f));
        pb.position = Vec3(float(trial % 5) * 0.3f, 0.1f * float(trial), 0.0f);
        pb.rotation = glm::normalize(Quat(1.0f, 0.1f * float(trial), 0.2f, -0.1f));
        const Bvh::RelativePose rel = relative(pa, pb, 1e-6);
        std::set<std::pair<std::uint32_t, std::uint32_t>> expected, got;
        const auto sa = ba.slotBoxes(), sb = bb.slotBoxes();
        for (std::uint32_t i = 0; i < sa.size(); ++i)
            for (std::uint32_t j = 0; j < sb.size(); ++j)
                if (Bvh::overlapsFaceAxes(sa[i], sb[j], rel)) expected.insert({ba.slotTriangles()[i], bb.slotTriangles()[j]});
        std::size_t calls = 0;
        Bvh::forEachOverlap(ba, bb, rel, [&](std::uint32_t i, std::uint32_t j) {
            ++calls;
            got.insert({i, j});
        });
        EXPECT_EQ(calls, got.size()) << "each pair once";
        EXPECT_EQ(got, expected);
        EXPECT_FALSE(expected.empty());
    }
}

TEST(Bvh, SelfTraversalWithAMarginFindsEveryNearPairOnce) {
    // Local boxes, no refit: pairs nearer than the margin count; a margin of 0 is the plain
    // self traversal on the build boxes.
    const Soup s = randomSoup(7, 400, 1.0f);
    Bvh bvh;
    bvh.build(s.local, s.tris, 2);
    for (double margin : {0.0, 0.003, 0.05}) {
        std::set<std::pair<std::uint32_t, std::uint32_t>> expected, got;
        const auto boxes = bvh.slotBoxes();
        const auto slots = bvh.slotTriangles();
        for (std::uint32_t i = 0; i < boxes.size(); ++i)
            for (std::uint32_t j = i + 1; j < boxes.size(); ++j)
                if (Bvh::overlapsWithin(boxes[i], boxes[j], margin))
                    expected.insert({std::min(slots[i], slots[j]), std::max(slots[i], slots[j])});
        std::size_t calls = 0;
        bvh.forEachSelfOverlap(margin, [&](std::uint32_t i, std::uint32_t j) {
            ++calls;
            got.insert({std::min(i, j), std::max(i, j)});
        });
        EXPECT_EQ(calls, got.size()) << margin;
        EXPECT_EQ(got, expected) << margin;
    }
    // By hand: unit boxes 0.01 apart along x.
    const Bvh::Box a{{0, 0, 0}, {1, 1, 1}}, b{{1.01f, 0, 0}, {2, 1, 1}};
    EXPECT_FALSE(Bvh::overlapsWithin(a, b, 0.005));
    EXPECT_TRUE(Bvh::overlapsWithin(a, b, 0.011));
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
