// The BVH reference against brute force: exactly the same triangle pair sets on random
// close poses (box-box, torus-torus, bunny-bunny), identical poses (coplanar everywhere),
// self-intersections of meshes that pass through themselves, and segments on both triangles.
#include "isc/geometry/PoseSampler.h"
#include "isc/geometry/Reference.h"
#include "isc/geometry/TriangleTriangle.h"
#include "isc/mesh/MeshIo.h"
#include "isc/mesh/Shapes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <thread>

using namespace isc;
using namespace isc::geometry;

namespace {

struct Agreement {
    int poses = 0;
    int colliding = 0;
    std::size_t pairs = 0;
};

Agreement compareOnSampledPoses(const Mesh& a, const Mesh& b, int count, std::uint64_t seed) {
    Agreement out;
    PosedMesh pa(a), pb(b);
    std::vector<TrianglePair> fast, slow;
    for (const auto& [poseA, poseB] : sampleClosePoses(a, b, count, seed)) {
        pa.update(poseA);
        pb.update(poseB);
        intersect(pa, pb, fast);
        intersectBruteForce(pa, pb, slow);
        EXPECT_EQ(fast, slow) << a.name() << " vs " << b.name() << ", pose " << out.poses;
        if (fast != slow) break;
        ++out.poses;
        out.colliding += !fast.empty();
        out.pairs += fast.size();
    }
    return out;
}

TEST(Reference, BoxBoxMatchesBruteForce) {
    const Mesh a = shapes::box(Vec3(0.5f, 0.3f, 0.2f)), b = shapes::box(Vec3(0.4f));
    const Agreement r = compareOnSampledPoses(a, b, 4000, 11);
    EXPECT_EQ(r.poses, 4000);
    EXPECT_GT(r.colliding, 400);
}

TEST(Reference, TorusTorusMatchesBruteForce) {
    const Mesh t = shapes::torus(1.0f, 0.35f, 24, 12);
    const Agreement r = compareOnSampledPoses(t, t, 1000, 12);
    EXPECT_EQ(r.poses, 1000);
    EXPECT_GT(r.colliding, 100);
}

TEST(Reference, BunnyBunnyMatchesBruteForce) {
    const Result<Mesh> bunny = loadBunny(0.1f);
    ASSERT_TRUE(bunny.has_value()) << bunny.error().message;
    const Agreement r = compareOnSampledPoses(*bunny, *bunny, 150, 13);
    EXPECT_EQ(r.poses, 150);
    EXPECT_GT(r.colliding, 20);
    EXPECT_GT(r.pairs, 1000u);
}

TEST(Reference, IdenticalPosesAreCoplanarEverywhere) {
    // Every triangle meets itself (coplanar) and its neighbours: the hardest case for
    // exact tests and for box culling that must keep touching pairs.
    const Mesh t = shapes::torus(1.0f, 0.35f, 16, 8);
    PosedMesh a(t), b(t);
    Pose pose;
    pose.position = Vec3(0.1f, 0.2f, 0.3f);
    pose.rotation = glm::normalize(Quat(0.9f, 0.1f, 0.3f, -0.2f));
    a.update(pose);
    b.update(pose);
    std::vector<TrianglePair> fast, slow;
    intersect(a, b, fast);
    intersectBruteForce(a, b, slow);
    EXPECT_EQ(fast, slow);
    for (std::uint32_t i = 0; i < t.triangleCount(); ++i)
        EXPECT_TRUE(std::binary_search(fast.begin(), fast.end(), TrianglePair{i, i})) << i;
}

TEST(Reference, SegmentsLieOnBothTriangles) {
    const Mesh t = shapes::torus(1.0f, 0.35f, 24, 12);
    PosedMesh a(t), b(t);
    std::vector<TrianglePair> pairs;
    std::vector<Segment> segments;
    std::size_t checked = 0;
    for (const auto& [poseA, poseB] : sampleClosePoses(t, t, 40, 5)) {
        a.update(poseA);
        b.update(poseB);
        intersect(a, b, pairs, &segments);
        ASSERT_EQ(pairs.size(), segments.size());
        for (std::size_t k = 0; k < pairs.size(); ++k) {
            DVec3 ta[3], tb[3];
            a.triangle(pairs[k].a, ta);
            b.triangle(pairs[k].b, tb);
            for (const Vec3& s : {segments[k].p0, segments[k].p1}) {
                // Float segment ends: within float rounding of both triangles' planes.
                for (const DVec3* t3 : {ta, tb}) {
                    const DVec3 n = glm::normalize(glm::cross(t3[1] - t3[0], t3[2] - t3[0]));
                    EXPECT_LT(std::abs(glm::dot(DVec3(s) - t3[0], n)), 1e-5);
                }
            }
            ++checked;
        }
    }
    EXPECT_GT(checked, 100u);
}

TEST(Reference, RigidAndDeformedPathsGiveTheSameBits) {
    // The same pose through update(pose) (local trees, lazy vertices) and through
    // update(pose, vertices) (world vertices and refit at once): identical world vertices,
    // and identical pair sets for all four mixes, equal to brute force.
    const Mesh t = shapes::torus(1.0f, 0.35f, 24, 12);
    PosedMesh rigidA(t), rigidB(t), deformedA(t), deformedB(t);
    std::vector<TrianglePair> rr, rd, dr, dd, slow;
    int colliding = 0;
    for (const auto& [poseA, poseB] : sampleClosePoses(t, t, 60, 31)) {
        rigidA.update(poseA);
        rigidB.update(poseB);
        deformedA.update(poseA, t.vertices());
        deformedB.update(poseB, t.vertices());
        EXPECT_TRUE(rigidA.isRigid());
        EXPECT_FALSE(deformedA.isRigid());
        intersect(rigidA, rigidB, rr);
        intersect(rigidA, deformedB, rd);
        intersect(deformedA, rigidB, dr);
        intersect(deformedA, deformedB, dd);
        intersectBruteForce(deformedA, deformedB, slow);
        EXPECT_EQ(rr, slow);
        EXPECT_EQ(rd, slow);
        EXPECT_EQ(dr, slow);
        EXPECT_EQ(dd, slow);
        colliding += !slow.empty();
        // triangle() before and after the world vertices are materialised, and bvh().
        DVec3 before[3], after[3];
        rigidA.triangle(7, before);
        const auto wr = rigidA.worldVertices(), wd = deformedA.worldVertices();
        ASSERT_EQ(wr.size(), wd.size());
        EXPECT_TRUE(std::equal(wr.begin(), wr.end(), wd.begin())) << "bitwise";
        rigidA.triangle(7, after);
        for (int k = 0; k < 3; ++k) EXPECT_EQ(before[k], after[k]);
        const Aabb root = rigidA.bvh().bounds();
        for (const DVec3& v : wr)
            for (int k = 0; k < 3; ++k) EXPECT_TRUE(double(root.min[k]) <= v[k] && v[k] <= double(root.max[k]));
    }
    EXPECT_GT(colliding, 10);
}

TEST(Reference, CopyOfAnswersAsAFreshBuild) {
    // PosedMesh::copyOf (the cpu detector's copies of a mesh's shape, 2026-11-29): the same
    // trees, vertices and pairs as a PosedMesh built from the mesh, bit for bit, rigid and
    // deformed, whatever the shape it was copied from had been posed at (its lazy world state
    // is not copied: a copy starts at the identity, as a new one does).
    const Mesh t = shapes::torus(1.0f, 0.35f, 24, 12);
    PosedMesh shape(t);
    shape.update(Pose{Vec3(3.0f, -1.0f, 2.0f), glm::angleAxis(0.7f, Vec3(0, 1, 0))});
    (void)shape.bvh();  // its world state made, at another pose
    PosedMesh builtA(t), builtB(t);
    PosedMesh copyA = PosedMesh::copyOf(shape), copyB = PosedMesh::copyOf(shape);
    EXPECT_EQ(&copyA.mesh(), &t);
    EXPECT_EQ(copyA.localRadius(), builtA.localRadius());
    std::vector<TrianglePair> built, copied, slow;
    std::vector<Vec3> bent(t.vertices().begin(), t.vertices().end());
    int colliding = 0, pose = 0;
    for (const auto& [poseA, poseB] : sampleClosePoses(t, t, 40, 57)) {
        // Every other pose deformed on side A (a bend that moves every vertex).
        const bool deform = (pose++ % 2) == 1;
        for (std::size_t i = 0; i < bent.size(); ++i)
            bent[i] = t.vertices()[i] + Vec3(0.0f, 0.05f * t.vertices()[i].x * t.vertices()[i].x, 0.0f);
        for (PosedMesh* m : {&builtA, &copyA}) {
            if (deform) m->update(poseA, bent);
            else m->update(poseA);
        }
        builtB.update(poseB);
        copyB.update(poseB);
        intersect(builtA, builtB, built);
        intersect(copyA, copyB, copied);
        intersectBruteForce(builtA, builtB, slow);
        EXPECT_EQ(copied, built) << "pose " << pose;
        EXPECT_EQ(built, slow) << "pose " << pose;
        const auto wb = builtA.worldVertices(), wc = copyA.worldVertices();
        ASSERT_EQ(wb.size(), wc.size());
        EXPECT_TRUE(std::equal(wb.begin(), wb.end(), wc.begin())) << "bitwise, pose " << pose;
        const Aabb rb = builtA.bvh().bounds(), rc = copyA.bvh().bounds();
        EXPECT_EQ(rb.min, rc.min);
        EXPECT_EQ(rb.max, rc.max);
        colliding += !built.empty();
    }
    EXPECT_GT(colliding, 10);
}

TEST(Reference, TouchingEverywhereFarFromTheOrigin) {
    // A small torus against itself in the same pose, 1000 units out: every triangle touches
    // itself and its neighbours, and the world vertices carry rounding of 1000 * 2^-53
    // that the local-frame culling has to allow for.
    const Mesh t = shapes::torus(0.01f, 0.0035f, 16, 8);
    PosedMesh a(t), b(t);
    Pose pose;
    pose.position = Vec3(1000.5f, -2000.25f, 500.125f);
    pose.rotation = glm::normalize(Quat(0.3f, -0.5f, 0.7f, 0.2f));
    a.update(pose);
    b.update(pose);
    std::vector<TrianglePair> fast, slow;
    intersect(a, b, fast);
    intersectBruteForce(a, b, slow);
    EXPECT_EQ(fast, slow);
    for (std::uint32_t i = 0; i < t.triangleCount(); ++i)
        EXPECT_TRUE(std::binary_search(fast.begin(), fast.end(), TrianglePair{i, i})) << i;
    // And sampled close poses out there.
    int n = 0;
    for (auto [poseA, poseB] : sampleClosePoses(t, t, 200, 32)) {
        poseA.position += pose.position;
        poseB.position += pose.position;
        a.update(poseA);
        b.update(poseB);
        intersect(a, b, fast);
        intersectBruteForce(a, b, slow);
        EXPECT_EQ(fast, slow) << "pose " << n;
        ++n;
    }
}

TEST(Reference, QuaternionsThatAreNotUnit) {
    // Pose::rotation should be unit; one that is not still gets the brute-force answer:
    // slightly off (the margin grows with |q|^2 - 1), and zero (world-space fallback).
    const Mesh t = shapes::torus(1.0f, 0.35f, 24, 12);
    PosedMesh a(t), b(t);
    std::vector<TrianglePair> fast, slow;
    int colliding = 0;
    for (float scale : {1.001f, 0.98f, 0.0f}) {
        for (auto [poseA, poseB] : sampleClosePoses(t, t, 40, 33)) {
            poseB.rotation = poseB.rotation * scale;
            a.update(poseA);
            b.update(poseB);
            intersect(a, b, fast);
            intersectBruteForce(a, b, slow);
            EXPECT_EQ(fast, slow) << "scale " << scale;
            colliding += !fast.empty();
        }
    }
    EXPECT_GT(colliding, 20);
}

TEST(Reference, ConstCallsFromSeveralThreads) {
    // The detector intersects one mesh in several pairs at once: the lazy state (per-thread
    // vertex caches, world vertices and BVH materialised under a lock) must not race.
    const Mesh t = shapes::torus(1.0f, 0.35f, 24, 12);
    const auto poses = sampleClosePoses(t, t, 30, 34);
    PosedMesh a(t), b(t), c(t);
    std::vector<TrianglePair> expectAB, expectAC, expectSelf;
    for (const auto& [poseA, poseB] : poses) {
        a.update(poseA);
        b.update(poseB);
        c.update(poseB, t.vertices());
        intersectBruteForce(a, b, expectAB);
        expectAC = expectAB;
        c.update(poseA, t.vertices());  // world path, for an independent self answer
        intersectSelf(c, expectSelf);
        c.update(poseB, t.vertices());
        a.update(poseA);  // forget the world vertices again
        std::vector<std::vector<TrianglePair>> got(8);
        std::vector<std::thread> threads;
        for (int k = 0; k < 8; ++k)
            threads.emplace_back([&, k] {
                if (k % 4 == 0) intersect(a, b, got[k]);
                if (k % 4 == 1) intersect(a, c, got[k]);
                if (k % 4 == 2) intersectSelf(a, got[k]);
                if (k % 4 == 3) intersect(b, a, got[k]);
            });
        for (std::thread& th : threads) th.join();
        std::vector<TrianglePair> expectBA;
        for (const TrianglePair& p : expectAB) expectBA.push_back({p.b, p.a});
        std::sort(expectBA.begin(), expectBA.end());
        const std::vector<TrianglePair>* expected[4] = {&expectAB, &expectAC, &expectSelf, &expectBA};
        for (int k = 0; k < 8; ++k) EXPECT_EQ(got[k], *expected[k % 4]) << "thread " << k;
    }
}

void bruteForceSelf(const PosedMesh& m, std::vector<TrianglePair>& out) {
    out.clear();
    const auto tris = m.mesh().triangles();
    for (std::uint32_t i = 0; i < tris.size(); ++i)
        for (std::uint32_t j = i + 1; j < tris.size(); ++j) {
            bool shared = false;
            for (int x = 0; x < 3; ++x)
                for (int y = 0; y < 3; ++y) shared |= tris[i][x] == tris[j][y];
            if (shared) continue;
            DVec3 p[3], q[3];
            m.triangle(i, p);
            m.triangle(j, q);
            if (trianglesIntersect(p, q)) out.push_back({i, j});
        }
}

// A strip of n x 2 quads, x in [0, length], y in [0, width]: vertices then triangles.
void strip(int n, std::vector<Vec3>& v, std::vector<UVec3>& t, float length, float width) {
    const auto base = static_cast<std::uint32_t>(v.size());
    for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= 2; ++j) v.push_back(Vec3(length * float(i) / float(n), width * float(j) / 2.0f, 0.0f));
    for (std::uint32_t i = 0; i < std::uint32_t(n); ++i)
        for (std::uint32_t j = 0; j < 2; ++j) {
            const std::uint32_t a = base + i * 3 + j, b = a + 3, c = a + 1, d = b + 1;
            t.push_back(UVec3(a, b, d));
            t.push_back(UVec3(a, d, c));
        }
}

TEST(Reference, SelfIntersectionOfAStripFoldedOntoItself) {
    // A strip wound 1.3 times round a cylinder (radius 0.5) while drifting 0.4 along the axis per
    // turn: the second turn lies on the first one's surface, half a strip width along, so the
    // two layers' chords cross each other all along the overlap.
    std::vector<Vec3> v;
    std::vector<UVec3> t;
    const float length = 1.3f * 2.0f * std::numbers::pi_v<float> * 0.5f;
    strip(90, v, t, length, 0.8f);
    for (Vec3& p : v) {
        const float phi = p.x / 0.5f;
        const float drift = 0.4f * phi / (2.0f * std::numbers::pi_v<float>);
        p = Vec3(0.5f * std::cos(phi), p.y + drift, 0.5f * std::sin(phi));
    }
    const Result<Mesh> mesh = Mesh::create("wound strip", v, t);
    ASSERT_TRUE(mesh.has_value()) << mesh.error().message;
    PosedMesh m(*mesh);
    std::vector<TrianglePair> fast, slow;
    std::vector<Segment> segments;
    intersectSelf(m, fast, &segments);
    bruteForceSelf(m, slow);
    EXPECT_EQ(fast, slow);
    EXPECT_GT(fast.size(), 20u);
    EXPECT_EQ(segments.size(), fast.size());
    // Only the two layers meet: triangles whose strip positions differ by about a turn.
    for (const TrianglePair& p : fast) {
        const int quads = std::abs(int(p.a / 4) - int(p.b / 4));
        EXPECT_GT(quads, 50) << p.a << ' ' << p.b;
    }
}

TEST(Reference, SelfIntersectionOfTwoCoincidentCopies) {
    // One mesh holding a small torus twice (separate vertex indices): every triangle touches
    // its twin (coplanar) and the twin's neighbours. Posed rigidly (local tree, margin) and
    // as deformed (world tree) at the origin and 1000 units out: both equal brute force.
    const Mesh torus = shapes::torus(0.01f, 0.0035f, 16, 8);
    std::vector<Vec3> v(torus.vertices().begin(), torus.vertices().end());
    std::vector<UVec3> t(torus.triangles().begin(), torus.triangles().end());
    const auto n = static_cast<std::uint32_t>(v.size());
    const auto tris = static_cast<std::uint32_t>(t.size());
    for (std::uint32_t k = 0; k < n; ++k) v.push_back(v[k]);
    for (std::uint32_t k = 0; k < tris; ++k) t.push_back(t[k] + UVec3(n));
    const Result<Mesh> mesh = Mesh::create("two coincident tori", v, t);
    ASSERT_TRUE(mesh.has_value()) << mesh.error().message;
    PosedMesh rigid(*mesh), deformed(*mesh);
    std::vector<TrianglePair> fromRigid, fromDeformed, slow;
    Pose pose;
    pose.rotation = glm::normalize(Quat(0.3f, -0.5f, 0.7f, 0.2f));
    for (const Vec3& at : {Vec3(0.0f), Vec3(1000.5f, -2000.25f, 500.125f)}) {
        pose.position = at;
        rigid.update(pose);
        deformed.update(pose, mesh->vertices());
        intersectSelf(rigid, fromRigid);
        intersectSelf(deformed, fromDeformed);
        bruteForceSelf(rigid, slow);
        EXPECT_EQ(fromRigid, slow) << at.x;
        EXPECT_EQ(fromDeformed, slow) << at.x;
        for (std::uint32_t i = 0; i < tris; ++i)
            EXPECT_TRUE(std::binary_search(slow.begin(), slow.end(), TrianglePair{i, i + tris})) << i;
    }
}

TEST(Reference, LocalGapsThatWorldRoundingCloses) {
    // A floor triangle in z = 0 and 200 small upright triangles whose lowest corner sits
    // 1e-30 above it: apart in local coordinates (so are their local boxes), but posed
    // 1000 units out the gap is far below double rounding, and the world corners land on,
    // above or below the floor's plane. Whatever the rounding gives, intersectSelf (local
    // tree) and intersect (two such meshes, same pose) must match brute force on it.
    std::vector<Vec3> v = {{-1.0f, -1.0f, 0.0f}, {1.0f, -1.0f, 0.0f}, {0.0f, 1.0f, 0.0f}};
    std::vector<UVec3> t = {{0, 1, 2}};
    std::mt19937_64 rng(41);
    std::uniform_real_distribution<float> u(-0.4f, 0.4f);
    for (std::uint32_t k = 0; k < 200; ++k) {
        const float x = u(rng), y = u(rng);
        v.push_back({x, y, 1e-30f});
        v.push_back({x - 0.01f, y, 0.05f});
        v.push_back({x + 0.01f, y + 0.003f, 0.05f});
        t.push_back(UVec3(3 + 3 * k, 4 + 3 * k, 5 + 3 * k));
    }
    const Result<Mesh> mesh = Mesh::create("floor and tents", v, t);
    ASSERT_TRUE(mesh.has_value()) << mesh.error().message;
    PosedMesh m(*mesh), other(*mesh);
    std::vector<TrianglePair> fast, slow;
    std::size_t touching = 0;
    for (int p = 0; p < 10; ++p) {
        Pose pose;
        pose.position = Vec3(1000.5f, -2000.25f + float(p), 500.125f);
        pose.rotation = glm::normalize(Quat(0.3f + 0.1f * float(p), -0.5f, 0.7f, 0.2f));
        m.update(pose);
        intersectSelf(m, fast);
        bruteForceSelf(m, slow);
        EXPECT_EQ(fast, slow) << "pose " << p;
        touching += slow.size();
        other.update(pose);
        intersect(m, other, fast);
        intersectBruteForce(m, other, slow);
        EXPECT_EQ(fast, slow) << "pose " << p;
    }
    EXPECT_GT(touching, 0u) << "rounding never closed a gap: the test tests nothing";
}

TEST(Reference, SelfIntersectionOfTwoCrossingSheets) {
    // One mesh of two strips: one in z = 0, one stood up in the plane x = 0.55 crossing it.
    std::vector<Vec3> v;
    std::vector<UVec3> t;
    strip(10, v, t, 1.0f, 1.0f);
    const std::size_t second = v.size();
    const std::size_t firstTris = t.size();
    strip(10, v, t, 1.0f, 1.0f);
    for (std::size_t i = second; i < v.size(); ++i) v[i] = Vec3(0.55f, v[i].y, v[i].x - 0.5f);
    const Result<Mesh> mesh = Mesh::create("crossed sheets", v, t);
    ASSERT_TRUE(mesh.has_value()) << mesh.error().message;
    PosedMesh m(*mesh);
    std::vector<TrianglePair> fast, slow;
    intersectSelf(m, fast);
    bruteForceSelf(m, slow);
    EXPECT_EQ(fast, slow);
    // The line x = 0.55, z = 0 crosses quad column 5 of the flat strip (4 triangles, but only the
    // ones it passes through) and the standing strip's middle quad row; every pair is across sheets.
    ASSERT_FALSE(fast.empty());
    for (const TrianglePair& p : fast) {
        EXPECT_LT(p.a, firstTris);
        EXPECT_GE(p.b, firstTris);
    }
}

}  // namespace
