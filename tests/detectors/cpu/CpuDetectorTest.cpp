// The "cpu" detector: the exact reference behind the Detector interface.
#include "isc/detectors/CpuDetector.h"
#include "isc/geometry/Reference.h"
#include "isc/mesh/Shapes.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cmath>
#include <limits>
#include <omp.h>
#include <thread>

namespace isc {
namespace {

class CpuDetectorTest : public ::testing::Test {
protected:
    void SetUp() override {
        const MeshId box = scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.5f))));
        const MeshId torus = scene.addMesh(std::make_shared<Mesh>(shapes::torus(0.5f, 0.2f)));
        scene.addObject(box, Pose{Vec3(0.0f)});                                   // 0
        scene.addObject(box, Pose{Vec3(0.7f, 0.3f, 0.1f), glm::angleAxis(0.4f, glm::normalize(Vec3(1, 2, 3)))});  // 1: overlaps 0
        scene.addObject(torus, Pose{Vec3(5.0f, 0.0f, 0.0f)});                    // 2: far away
        scene.addObject(torus, Pose{Vec3(5.6f, 0.1f, 0.0f), glm::angleAxis(1.5708f, Vec3(1, 0, 0))});  // 3: links 2
    }
    std::vector<TrianglePair> bruteForce(ObjectId a, ObjectId b) {
        geometry::PosedMesh pa(scene.objectMesh(a)), pb(scene.objectMesh(b));
        pa.update(scene.pose(a));
        pb.update(scene.pose(b));
        std::vector<TrianglePair> pairs;
        geometry::intersectBruteForce(pa, pb, pairs);
        return pairs;
    }
    Scene scene;
};

TEST_F(CpuDetectorTest, ReportsExactlyTheCollidingPairsWithBruteForceTriangles) {
    const std::vector<ObjectPair> candidates = {{0, 1}, {0, 2}, {1, 2}, {2, 3}};
    CpuDetector detector;
    DetectionOutput out;
    ASSERT_TRUE(detector.detect(scene, candidates, out));
    ASSERT_EQ(out.pairs.size(), 2u);
    EXPECT_EQ(out.pairs[0].pair, (ObjectPair{0, 1}));
    EXPECT_EQ(out.pairs[1].pair, (ObjectPair{2, 3}));
    for (const PairResult& r : out.pairs) {
        EXPECT_EQ(r.triangles, bruteForce(r.pair.a, r.pair.b));
        EXPECT_EQ(r.segments.size(), r.triangles.size());
    }
    EXPECT_TRUE(out.stats.warnings.empty());
    EXPECT_EQ(out.stats.counter("colliding_pairs"), 2.0);
}

TEST_F(CpuDetectorTest, RunAlongsideRunsTheWorkOnceOnTheCallingThreadWithTheSameAnswer) {
    const std::vector<ObjectPair> candidates = {{0, 1}, {0, 2}, {1, 2}, {2, 3}};
    CpuDetector detector;
    DetectionOutput plain;
    ASSERT_TRUE(detector.detect(scene, candidates, plain));
    // With the work: the same pairs and triangles, the work once, on this thread, inside the
    // team when one forms (omp_in_parallel).
    DetectionOutput along;
    int calls = 0;
    bool inTeam = false;
    const std::thread::id caller = std::this_thread::get_id();
    bool onCaller = false;
    detector.runAlongside([&] {
        ++calls;
        onCaller = std::this_thread::get_id() == caller;
        inTeam = omp_in_parallel() != 0;
    });
    ASSERT_TRUE(detector.detect(scene, candidates, along));
    EXPECT_EQ(calls, 1);
    EXPECT_TRUE(onCaller);
    EXPECT_EQ(inTeam, omp_get_max_threads() > 1);
    ASSERT_EQ(along.pairs.size(), plain.pairs.size());
    for (std::size_t i = 0; i < plain.pairs.size(); ++i) {
        EXPECT_EQ(along.pairs[i].pair, plain.pairs[i].pair);
        EXPECT_EQ(along.pairs[i].triangles, plain.pairs[i].triangles);
    }
    EXPECT_GE(along.stats.counter("alongside_ms"), 0.0);
    // Used up: the next call runs none.
    ASSERT_TRUE(detector.detect(scene, candidates, along));
    EXPECT_EQ(calls, 1);
    // No pairs, and a failing call: the work still runs, once each.
    detector.runAlongside([&] { ++calls; });
    ASSERT_TRUE(detector.detect(scene, {}, along));
    EXPECT_EQ(calls, 2);
    detector.runAlongside([&] { ++calls; });
    const ObjectPair missing{0, 99};
    EXPECT_FALSE(detector.detect(scene, {&missing, 1}, along));
    EXPECT_EQ(calls, 3);
}

TEST_F(CpuDetectorTest, ObjectsMovedBetweenCallsAreDetectedWhereTheyAreNow) {
    // One detector across calls (it keeps rigid objects posed at an unchanged pose) against a
    // fresh one each time: the same triangles whether an object moved, came back or stayed.
    const std::vector<ObjectPair> candidates = {{0, 1}, {2, 3}};
    CpuDetector kept;
    const Pose start = scene.pose(1);
    const Pose moved{start.position + Vec3(0.15f, -0.05f, 0.0f), start.rotation};
    const Pose apart{start.position + Vec3(3.0f, 0.0f, 0.0f), start.rotation};
    for (const Pose& p : {start, start, moved, apart, start, moved, moved}) {
        scene.setPose(1, p);
        DetectionOutput a, b;
        ASSERT_TRUE(kept.detect(scene, candidates, a));
        CpuDetector fresh;
        ASSERT_TRUE(fresh.detect(scene, candidates, b));
        ASSERT_EQ(a.pairs.size(), b.pairs.size());
        for (std::size_t i = 0; i < a.pairs.size(); ++i) {
            EXPECT_EQ(a.pairs[i].pair, b.pairs[i].pair);
            EXPECT_EQ(a.pairs[i].triangles, b.pairs[i].triangles);
            if (a.pairs[i].pair == ObjectPair{0, 1}) {
                EXPECT_EQ(a.pairs[i].triangles, bruteForce(0, 1));
            }
        }
        EXPECT_EQ(a.pairs.size(), p.position == apart.position ? 1u : 2u);
    }
}

TEST_F(CpuDetectorTest, SegmentsLieOnBothTriangles) {
    CpuDetector detector;
    DetectionOutput out;
    const ObjectPair pair{0, 1};
    ASSERT_TRUE(detector.detect(scene, {&pair, 1}, out));
    ASSERT_EQ(out.pairs.size(), 1u);
    // Every segment end lies inside both boxes' closed volumes (within float tolerance):
    // box 0 is |x|,|y|,|z| <= 0.5; for box 1, map back to its local frame.
    const Pose p1 = scene.pose(1);
    for (const Segment& s : out.pairs[0].segments)
        for (const Vec3& p : {s.p0, s.p1}) {
            EXPECT_LE(glm::max(glm::max(std::abs(p.x), std::abs(p.y)), std::abs(p.z)), 0.5f + 1e-4f);
            const Vec3 l = glm::inverse(p1.rotation) * (p - p1.position);
            EXPECT_LE(glm::max(glm::max(std::abs(l.x), std::abs(l.y)), std::abs(l.z)), 0.5f + 1e-4f);
        }
}

TEST_F(CpuDetectorTest, SeparatedAndTouchingBoxes) {
    CpuDetector detector;
    DetectionOutput out;
    const ObjectPair pair{0, 1};
    // A gap of 1 mm: nothing.
    scene.setPose(1, Pose{Vec3(1.001f, 0.0f, 0.0f)});
    ASSERT_TRUE(detector.detect(scene, {&pair, 1}, out));
    EXPECT_TRUE(out.pairs.empty());
    // Face to face, touching exactly at x = 0.5: touching counts (the two +x / -x faces,
    // 2 triangles each, all coplanar and overlapping, plus the side faces' edges on the plane).
    scene.setPose(1, Pose{Vec3(1.0f, 0.0f, 0.0f)});
    ASSERT_TRUE(detector.detect(scene, {&pair, 1}, out));
    ASSERT_EQ(out.pairs.size(), 1u);
    EXPECT_EQ(out.pairs[0].triangles, bruteForce(0, 1));
    EXPECT_GE(out.pairs[0].triangles.size(), 4u);
}

TEST_F(CpuDetectorTest, NonFinitePoseIsSkippedWithAWarningAndOthersGoOn) {
    scene.setPose(1, Pose{Vec3(std::numeric_limits<float>::quiet_NaN(), 0.0f, 0.0f)});
    const std::vector<ObjectPair> candidates = {{0, 1}, {2, 3}};
    CpuDetector detector;
    DetectionOutput out;
    ASSERT_TRUE(detector.detect(scene, candidates, out));
    ASSERT_EQ(out.pairs.size(), 1u);
    EXPECT_EQ(out.pairs[0].pair, (ObjectPair{2, 3}));
    ASSERT_EQ(out.stats.warnings.size(), 1u);
    EXPECT_NE(out.stats.warnings[0].find("object 1"), std::string::npos);
}

TEST_F(CpuDetectorTest, CandidateOutsideTheSceneIsAnError) {
    const ObjectPair pair{0, 9};
    CpuDetector detector;
    DetectionOutput out;
    const auto r = detector.detect(scene, {&pair, 1}, out);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("(0, 9)"), std::string::npos);
}

TEST_F(CpuDetectorTest, DeformedVerticesAreUsed) {
    // Shrink box 1 to a point-sized box far inside nothing: it no longer touches box 0.
    std::vector<Vec3> v(scene.localVertices(1).begin(), scene.localVertices(1).end());
    for (Vec3& p : v) p *= 0.01f;
    scene.setPose(1, Pose{Vec3(0.9f, 0.0f, 0.0f)});
    CpuDetector detector;
    DetectionOutput out;
    const ObjectPair pair{0, 1};
    ASSERT_TRUE(detector.detect(scene, {&pair, 1}, out));
    ASSERT_EQ(out.pairs.size(), 1u);  // undeformed: x from 0.4 to 1.4 overlaps box 0
    scene.setVertices(1, v);
    ASSERT_TRUE(detector.detect(scene, {&pair, 1}, out));
    EXPECT_TRUE(out.pairs.empty());   // deformed: x from 0.895 to 0.905
}

// 2026-11-29 (twelfth session): an object without a posed copy gets one copied from its mesh's
// shape (PosedMesh::copyOf), made in the team; before, each was built on one thread (1.8 s on a
// 1000-bunny pile's first call, and again for every body back in the pairs after a call without
// any). Over five calls with objects moving, one deformed, one inactive for a call and back, and
// a mesh retired: the answer (pairs, triangles, segments, bit for bit) equals a fresh detector's
// each call and the build hook's (ISC_CPU_COPY_SHAPES=0), and the counters say what was made.
TEST_F(CpuDetectorTest, CopiesOfTheMeshShapeAnswerAsFreshBuilds) {
    const MeshId torus = 1;
    const ObjectId extra = scene.addObject(torus, Pose{Vec3(5.3f, 0.5f, 0.2f), glm::angleAxis(0.9f, Vec3(0, 0, 1))});  // 4: links 2, 3
    const std::vector<ObjectPair> candidates = {{0, 1}, {2, 3}, {2, extra}, {3, extra}};
    CpuDetector copying;
    setenv("ISC_CPU_COPY_SHAPES", "0", 1);
    CpuDetector building;
    unsetenv("ISC_CPU_COPY_SHAPES");
    auto same = [](const DetectionOutput& x, const DetectionOutput& y, int call) {
        ASSERT_EQ(x.pairs.size(), y.pairs.size()) << "call " << call;
        for (std::size_t i = 0; i < x.pairs.size(); ++i) {
            EXPECT_EQ(x.pairs[i].pair, y.pairs[i].pair) << "call " << call;
            EXPECT_EQ(x.pairs[i].triangles, y.pairs[i].triangles) << "call " << call;
            ASSERT_EQ(x.pairs[i].segments.size(), y.pairs[i].segments.size()) << "call " << call;
            for (std::size_t k = 0; k < x.pairs[i].segments.size(); ++k) {
                EXPECT_EQ(x.pairs[i].segments[k].p0, y.pairs[i].segments[k].p0) << "call " << call;
                EXPECT_EQ(x.pairs[i].segments[k].p1, y.pairs[i].segments[k].p1) << "call " << call;
            }
        }
    };
    const std::vector<Vec3> torusVertices(scene.objectMesh(2).vertices().begin(), scene.objectMesh(2).vertices().end());
    std::size_t found = 0;
    for (int call = 0; call < 5; ++call) {
        if (call > 0) {  // everything moves a little; object 3 deformed from call 2 on
            for (ObjectId o = 0; o < scene.objectCount(); ++o) {
                Pose p = scene.pose(o);
                p.position += Vec3(0.01f * float(call), -0.005f * float(o), 0.0f);
                p.rotation = glm::normalize(glm::angleAxis(0.03f * float(call + o), Vec3(0, 1, 0)) * p.rotation);
                scene.setPose(o, p);
            }
        }
        if (call >= 2) {
            std::vector<Vec3> v = torusVertices;
            for (Vec3& x : v) x.y += 0.04f * float(call) * x.x;
            scene.setVertices(3, v);
        }
        scene.setActive(extra, call != 3);  // inactive on call 3 (its posed copy given back), back on 4
        std::vector<ObjectPair> live = call == 3 ? std::vector<ObjectPair>{{0, 1}, {2, 3}} : candidates;
        if (call == 4) {  // the boxes' bodies gone and their mesh retired; a new box mesh, two objects
            scene.setActive(0, false);
            scene.setActive(1, false);
            scene.retireMesh(0, std::make_shared<Mesh>(shapes::box(Vec3(1e-3f))));
            const MeshId box = scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.5f))));
            const ObjectId a = scene.addObject(box, scene.pose(0)), b = scene.addObject(box, scene.pose(1));
            live[0] = {a, b};
        }
        CpuDetector fresh;
        DetectionOutput a, b, c;
        ASSERT_TRUE(copying.detect(scene, live, a));
        ASSERT_TRUE(building.detect(scene, live, b));
        ASSERT_TRUE(fresh.detect(scene, live, c));
        same(a, c, call);
        same(b, c, call);
        for (const PairResult& r : a.pairs) found += r.triangles.size();
        // What was made: call 0 builds the two shapes and copies all five objects; call 3 none
        // (object 4 inactive: its copy given back); call 4 copies object 4 again (no build) and
        // builds the new box mesh's shape and copies its two objects.
        const double builtNow = a.stats.counter("posed_built"), copiedNow = a.stats.counter("posed_copied");
        const double expectBuilt[] = {2, 0, 0, 0, 1}, expectCopied[] = {5, 0, 0, 0, 3};
        EXPECT_EQ(builtNow, expectBuilt[call]) << "call " << call;
        EXPECT_EQ(copiedNow, expectCopied[call]) << "call " << call;
        const double buildHook[] = {5, 0, 0, 0, 3};
        EXPECT_EQ(b.stats.counter("posed_built"), buildHook[call]) << "call " << call;
        EXPECT_EQ(b.stats.counter("posed_copied"), 0.0) << "call " << call;
    }
    EXPECT_GT(found, 100u);  // the pairs touch throughout
    // Then a scene with fewer meshes (one) than this one's three: the answer of a fresh detector
    // (the shapes of meshes the scene does not have are not read; the sanitizer build caught that).
    Scene other;
    const MeshId torusOnly = other.addMesh(std::make_shared<Mesh>(shapes::torus(0.5f, 0.2f)));
    other.addObject(torusOnly, Pose{Vec3(0.0f)});
    other.addObject(torusOnly, Pose{Vec3(0.6f, 0.1f, 0.0f), glm::angleAxis(1.5708f, Vec3(1, 0, 0))});
    const std::vector<ObjectPair> otherPairs = {{0, 1}};
    CpuDetector fresh;
    DetectionOutput a, c;
    ASSERT_TRUE(copying.detect(other, otherPairs, a));
    ASSERT_TRUE(fresh.detect(other, otherPairs, c));
    same(a, c, 5);
    ASSERT_EQ(a.pairs.size(), 1u);
    EXPECT_EQ(a.stats.counter("posed_built"), 1.0);
    EXPECT_EQ(a.stats.counter("posed_copied"), 2.0);
}

TEST_F(CpuDetectorTest, SelfCollisionOnlyWhenAsked) {
    // A box with its (+,+,+) corner pushed through the bottom face: the top-face triangle
    // at that corner shares no vertex with the bottom face and crosses it.
    std::vector<Vec3> v(scene.localVertices(0).begin(), scene.localVertices(0).end());
    for (Vec3& p : v)
        if (p.x > 0 && p.y > 0 && p.z > 0) p = Vec3(-0.2f, -1.0f, -0.1f);
    scene.setVertices(0, v);
    const ObjectPair self{0, 0};
    DetectionOutput out;
    CpuDetector plain;
    ASSERT_TRUE(plain.detect(scene, {&self, 1}, out));
    EXPECT_TRUE(out.pairs.empty());
    DetectorSettings settings;
    settings.selfCollision = true;
    CpuDetector withSelf(settings);
    ASSERT_TRUE(withSelf.detect(scene, {&self, 1}, out));
    ASSERT_EQ(out.pairs.size(), 1u);
    EXPECT_FALSE(out.pairs[0].triangles.empty());
}

}  // namespace
}  // namespace isc
