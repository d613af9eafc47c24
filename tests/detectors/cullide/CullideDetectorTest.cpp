// The "cullide" detector (papers/001: Govindaraju et al.'s reducePCS, Boldt & Meyer's
// self-intersections) against the exact CPU reference: precision exactly 1, object and
// triangle-pair recall exactly 1 (conservative rasterization: nothing may be pruned that
// collides), both methods (compute passes, the paper's occlusion queries), a query pool
// smaller than the PCS, several objects in one call, self-intersections (a folded sheet, a
// bunny pushed through itself), open meshes, deformed vertices, bad input, and the
// broadphase entry point prunePairs().
#include "isc/detectors/CullideDetector.h"
#include "isc/detect/Registry.h"
#include "isc/geometry/PoseSampler.h"
#include "isc/geometry/Reference.h"
#include "isc/mesh/MeshIo.h"
#include "isc/mesh/Shapes.h"

#include "GlTest.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <numbers>

namespace isc {
namespace {

std::unique_ptr<CullideDetector> makeCullide(const CullideSettings& s = {}, bool selfCollision = false) {
    auto d = createCullideDetector({.selfCollision = selfCollision}, s);
    EXPECT_TRUE(d.has_value()) << (d ? "" : d.error().message);
    return d ? std::move(*d) : nullptr;
}

CullideSettings settings(std::string method, int resolution = 64) {
    CullideSettings s;
    s.method = std::move(method);
    s.resolution = resolution;
    return s;
}

std::vector<TrianglePair> reference(const Scene& scene, ObjectId a, ObjectId b) {
    geometry::PosedMesh pa(scene.objectMesh(a)), pb(scene.objectMesh(b));
    pa.update(scene.pose(a), scene.isDeformed(a) ? scene.localVertices(a) : std::span<const Vec3>{});
    pb.update(scene.pose(b), scene.isDeformed(b) ? scene.localVertices(b) : std::span<const Vec3>{});
    std::vector<TrianglePair> pairs;
    if (a == b) geometry::intersectSelf(pa, pairs);
    else geometry::intersect(pa, pb, pairs);
    return pairs;
}

// Counts over many detect() calls, against the reference.
struct Tally {
    std::size_t refObjects = 0, foundObjects = 0, reported = 0, reportedExact = 0, falseObjects = 0;
    std::size_t refTriangles = 0, foundTriangles = 0;
    void add(const std::vector<TrianglePair>& ref, const PairResult* found) {
        if (!ref.empty()) ++refObjects;
        if (found) {
            if (ref.empty()) ++falseObjects;
            else ++foundObjects;
            for (const TrianglePair& p : found->triangles) {
                ++reported;
                reportedExact += std::binary_search(ref.begin(), ref.end(), p) ? 1 : 0;
            }
        }
        refTriangles += ref.size();
        if (found)
            for (const TrianglePair& p : ref)
                foundTriangles += std::binary_search(found->triangles.begin(), found->triangles.end(), p) ? 1 : 0;
    }
};

void checkWellFormed(const PairResult& r, bool segments = true) {
    EXPECT_TRUE(std::is_sorted(r.triangles.begin(), r.triangles.end()));
    EXPECT_EQ(std::adjacent_find(r.triangles.begin(), r.triangles.end()), r.triangles.end());
    if (segments) {
        EXPECT_EQ(r.segments.size(), r.triangles.size());
    }
}

std::shared_ptr<Mesh> bunnyMesh() {
    static std::shared_ptr<Mesh> b = [] {
        auto m = loadBunny(0.1f);
        EXPECT_TRUE(m.has_value()) << (m ? "" : m.error().message);
        return std::make_shared<Mesh>(std::move(*m));
    }();
    return b;
}

// Every candidate of `scene` against the reference: exact answer expected (recall and precision 1).
void expectExact(const Scene& scene, std::span<const ObjectPair> candidates, const DetectionOutput& out,
                 std::size_t* colliding = nullptr) {
    std::map<ObjectPair, const PairResult*> found;
    for (const PairResult& r : out.pairs) {
        found[r.pair] = &r;
        checkWellFormed(r);
    }
    std::size_t n = 0;
    for (const ObjectPair& c : candidates) {
        const auto ref = reference(scene, c.a, c.b);
        auto it = found.find(c);
        if (ref.empty()) {
            EXPECT_EQ(it, found.end()) << c.a << "-" << c.b;
        } else {
            ++n;
            ASSERT_NE(it, found.end()) << c.a << "-" << c.b;
            EXPECT_EQ(it->second->triangles, ref) << c.a << "-" << c.b;
        }
    }
    if (colliding) *colliding = n;
}

class CullideDetectorTest : public GlTest {};

TEST_F(CullideDetectorTest, RejectsBadSettingsWithAMessage) {
    struct Case {
        const char* word;
        CullideSettings s;
    };
    std::vector<Case> cases;
    cases.push_back({"method", {}});
    cases.back().s.method = "raytrace";
    cases.push_back({"axes", {}});
    cases.back().s.axes = 2;
    cases.push_back({"resolution", {}});
    cases.back().s.resolution = 4;
    cases.push_back({"clusterSize", {}});
    cases.back().s.clusterSize = 2;
    cases.push_back({"selfLayers", {}});
    cases.back().s.selfLayers = 100;
    cases.push_back({"queryPool", {}});
    cases.back().s.queryPool = 0;
    for (const Case& c : cases) {
        auto d = createCullideDetector({}, c.s);
        ASSERT_FALSE(d.has_value()) << c.word;
        EXPECT_NE(d.error().message.find(c.word), std::string::npos) << d.error().message;
    }
    // Through the registry by name, with an unknown option named.
    auto r = createDetector("cullide", {.options = {{"clusterSize", "oops"}}});
    ASSERT_FALSE(r.has_value());
    EXPECT_NE(r.error().message.find("clusterSize"), std::string::npos) << r.error().message;
}

TEST_F(CullideDetectorTest, UnknownObjectIsAnError) {
    Scene scene;
    scene.addObject(scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.5f)))));
    auto d = makeCullide();
    DetectionOutput out;
    const std::vector<ObjectPair> candidates = {{0, 7}};
    auto r = d->detect(scene, candidates, out);
    ASSERT_FALSE(r.has_value());
    EXPECT_NE(r.error().message.find("(0, 7)"), std::string::npos);
}

// Two unit cubes, the second turned and pushed into the first, and a third far away: the
// exact reference set, with both methods; the far cube leaves at the object level.
TEST_F(CullideDetectorTest, TwoCubesGiveExactlyTheReferencePairs) {
    Scene scene;
    const MeshId box = scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.5f))));
    scene.addObject(box, Pose{Vec3(0.0f)});
    scene.addObject(box, Pose{Vec3(0.7f, 0.3f, 0.1f), glm::angleAxis(0.4f, glm::normalize(Vec3(1, 2, 3)))});
    scene.addObject(box, Pose{Vec3(3.0f, 0.0f, 0.0f)});  // touches nothing
    const std::vector<ObjectPair> candidates = {{0, 1}, {0, 2}, {1, 2}};
    for (const char* method : {"compute", "queries"}) {
        auto d = makeCullide(settings(method, 32));
        DetectionOutput out;
        ASSERT_TRUE(d->detect(scene, candidates, out));
        std::size_t colliding = 0;
        expectExact(scene, candidates, out, &colliding);
        EXPECT_EQ(colliding, 1u);
        EXPECT_EQ(out.pairs.size(), 1u);
        EXPECT_GT(out.stats.counter("pcs_objects_in"), 0.0);
        EXPECT_LE(out.stats.counter("pcs_objects"), out.stats.counter("pcs_objects_in"));
        EXPECT_GT(out.stats.counter("pcs_triangles_in"), 0.0);
        EXPECT_LE(out.stats.counter("tri_tri_tests"), 12.0 * 12.0);
        EXPECT_GT(out.stats.gpuMs, 0.0);
        if (std::string_view(method) == "queries") {
            EXPECT_GT(out.stats.counter("queries"), 0.0);
        } else {
            EXPECT_EQ(out.stats.counter("queries"), 0.0);
            EXPECT_GT(out.stats.counter("fragments"), 0.0);
        }
        std::printf("[ cullide ] two cubes, %s: objects %g -> %g, clusters %g -> %g, triangles %g -> %g, queries %g, "
                    "tri-tri tests %g, gpu %.2f ms, total %.2f ms\n",
                    method, out.stats.counter("pcs_objects_in"), out.stats.counter("pcs_objects"),
                    out.stats.counter("pcs_clusters_in"), out.stats.counter("pcs_clusters"),
                    out.stats.counter("pcs_triangles_in"), out.stats.counter("pcs_triangles"),
                    out.stats.counter("queries"), out.stats.counter("tri_tri_tests"), out.stats.gpuMs,
                    out.stats.totalMs);
    }
}

// A torus around a ball in its hole: boxes overlap, surfaces 0.15 apart. Visibility along the
// torus axis shows the ball whole: pruned before any exact test.
TEST_F(CullideDetectorTest, SeparatedButOverlappingBoxesArePruned) {
    Scene scene;
    scene.addObject(scene.addMesh(std::make_shared<Mesh>(shapes::torus(0.5f, 0.15f))));
    scene.addObject(scene.addMesh(std::make_shared<Mesh>(shapes::uvSphere(0.2f))));
    const std::vector<ObjectPair> candidates = {{0, 1}};
    for (const char* method : {"compute", "queries"}) {
        auto d = makeCullide(settings(method, 64));
        DetectionOutput out;
        ASSERT_TRUE(d->detect(scene, candidates, out));
        EXPECT_TRUE(out.pairs.empty());
        EXPECT_EQ(out.stats.counter("pcs_objects"), 0.0) << method;
        EXPECT_EQ(out.stats.counter("tri_tri_tests"), 0.0) << method;
    }
}

}  // namespace
}  // namespace isc
