// Sweep and prune against the obvious double loop, on random boxes with many ties.
#include "isc/geometry/SweepAndPrune.h"

#include <gtest/gtest.h>

#include <random>

using namespace isc;
using namespace isc::geometry;

namespace {

std::vector<Aabb> randomBoxes(std::mt19937_64& rng, int n, int grid) {
    std::vector<Aabb> out;
    for (int i = 0; i < n; ++i) {
        // Integer corners on a small grid: equal and touching extents are common.
        Vec3 lo(float(rng() % grid), float(rng() % grid), float(rng() % grid));
        Vec3 hi = lo + Vec3(float(rng() % 3), float(rng() % 3), float(rng() % 3));
        out.push_back({lo, hi});
    }
    return out;
}

std::vector<TrianglePair> brute(const std::vector<Aabb>& a, const std::vector<Aabb>& b) {
    std::vector<TrianglePair> out;
    for (std::uint32_t i = 0; i < a.size(); ++i)
        for (std::uint32_t j = 0; j < b.size(); ++j)
            if (!a[i].isEmpty() && !b[j].isEmpty() && a[i].overlaps(b[j])) out.push_back({i, j});
    return out;
}

TEST(SweepAndPrune, MatchesBruteForce) {
    std::mt19937_64 rng(3);
    std::size_t total = 0;
    for (int trial = 0; trial < 200; ++trial) {
        const int grid = 2 + trial % 20;
        std::vector<Aabb> a = randomBoxes(rng, int(rng() % 120), grid);
        std::vector<Aabb> b = randomBoxes(rng, int(rng() % 120), grid);
        if (!a.empty() && trial % 7 == 0) a[0] = Aabb{};  // an empty box overlaps nothing
        std::vector<TrianglePair> got;
        sweepAndPrune(a, b, got);
        const auto expected = brute(a, b);
        ASSERT_EQ(got, expected) << "trial " << trial;
        total += got.size();
    }
    EXPECT_GT(total, 10000u);
}

TEST(SweepAndPrune, LazyZIsAskedOnlyForXYOverlaps) {
    std::mt19937_64 rng(4);
    const std::vector<Aabb> a = randomBoxes(rng, 200, 12), b = randomBoxes(rng, 150, 12);
    std::vector<TrianglePair> got;
    std::size_t asked = 0;
    sweepAndPruneLazyZ(a, b, got, [&](std::uint32_t i, std::uint32_t j) {
        ++asked;
        EXPECT_TRUE(a[i].min.x <= b[j].max.x && b[j].min.x <= a[i].max.x);
        EXPECT_TRUE(a[i].min.y <= b[j].max.y && b[j].min.y <= a[i].max.y);
        return a[i].min.z <= b[j].max.z && b[j].min.z <= a[i].max.z;
    });
    EXPECT_EQ(got, brute(a, b));
    EXPECT_GT(asked, got.size());
    EXPECT_LT(asked, a.size() * b.size() / 4);
}

TEST(SweepAndPrune, EmptyInputs) {
    std::vector<TrianglePair> got = {{1, 2}};
    sweepAndPrune({}, {}, got);
    EXPECT_TRUE(got.empty());
}

}  // namespace
