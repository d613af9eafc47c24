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
#include <cstdlib>
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

// `resolution` is the triangle level's: its visibility passes on (off by default since the
// evening of 2026-11-27; the defaults are tested as they are by the recall cases and the filter
// tests).
CullideSettings settings(std::string method, int resolution = 64) {
    CullideSettings s;
    s.method = std::move(method);
    s.resolution = resolution;
    s.triangleLevel = true;
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

// Sets environment variables while alive (the detector's hooks are read when it is made).
struct ScopedEnv {
    std::vector<std::string> names;
    explicit ScopedEnv(std::initializer_list<std::pair<const char*, const char*>> vars) {
        for (const auto& [name, value] : vars) {
            setenv(name, value, 1);
            names.emplace_back(name);
        }
    }
    ~ScopedEnv() {
        for (const std::string& name : names) unsetenv(name.c_str());
    }
};

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
    cases.push_back({"clusterAxes", {}});
    cases.back().s.clusterAxes = 2;
    cases.push_back({"resolution", {}});
    cases.back().s.resolution = 4;
    cases.push_back({"clusterSize", {}});
    cases.back().s.clusterSize = 2;
    cases.push_back({"selfLayers", {}});
    cases.back().s.selfLayers = 100;
    cases.push_back({"queryPool", {}});
    cases.back().s.queryPool = 0;
    cases.push_back({"filterList", {}});
    cases.back().s.filterList = 8;
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
    // Both methods with the object level, then the defaults (clusters first, all axes at once)
    // and the paper's successive axes.
    for (const char* method : {"compute", "queries", "default", "sequential"}) {
        const std::string_view m = method;
        CullideSettings s = settings(m == "queries" ? "queries" : "compute", 32);
        s.objectLevel = m == "compute" || m == "queries";
        s.viewsAtOnce = m != "sequential";
        auto d = makeCullide(s);
        DetectionOutput out;
        ASSERT_TRUE(d->detect(scene, candidates, out));
        std::size_t colliding = 0;
        expectExact(scene, candidates, out, &colliding);
        EXPECT_EQ(colliding, 1u);
        EXPECT_EQ(out.pairs.size(), 1u);
        if (s.objectLevel) {
            EXPECT_GT(out.stats.counter("pcs_objects_in"), 0.0) << method;
        } else {
            EXPECT_EQ(out.stats.counter("pcs_objects_in"), 0.0) << method << ": the object level is off";
            EXPECT_GT(out.stats.counter("pcs_clusters_in"), 0.0) << method;
        }
        EXPECT_LE(out.stats.counter("pcs_objects"), out.stats.counter("pcs_objects_in"));
        EXPECT_GT(out.stats.counter("pcs_triangles_in"), 0.0);
        EXPECT_LE(out.stats.counter("tri_tri_tests"), 12.0 * 12.0);
        EXPECT_GT(out.stats.gpuMs, 0.0);
        if (m == "queries") {
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
// torus axis shows the ball whole: with the objects drawn as their triangles (the paper's
// object level, and method "queries") it leaves the PCS at the object level; drawn as their
// clusters' boxes (the default), at the cluster level. Never an exact test.
TEST_F(CullideDetectorTest, SeparatedButOverlappingBoxesArePruned) {
    Scene scene;
    scene.addObject(scene.addMesh(std::make_shared<Mesh>(shapes::torus(0.5f, 0.15f))));
    scene.addObject(scene.addMesh(std::make_shared<Mesh>(shapes::uvSphere(0.2f))));
    const std::vector<ObjectPair> candidates = {{0, 1}};
    for (const char* method : {"compute", "triangles", "queries"}) {
        CullideSettings s = settings(std::string_view(method) == "queries" ? "queries" : "compute", 64);
        s.objectBoxes = std::string_view(method) == "compute";
        s.objectLevel = !s.objectBoxes;  // the paper's object level on the triangles
        auto d = makeCullide(s);
        DetectionOutput out;
        ASSERT_TRUE(d->detect(scene, candidates, out));
        EXPECT_TRUE(out.pairs.empty());
        if (s.objectBoxes) {
            EXPECT_EQ(out.stats.counter("pairs_after_clusters"), 0.0) << method;
        } else {
            EXPECT_EQ(out.stats.counter("pcs_objects"), 0.0) << method;
        }
        EXPECT_EQ(out.stats.counter("tri_tri_tests"), 0.0) << method;
    }
}

struct RecallCase {
    const char* name;
    const char* a;
    const char* b;
    const char* method;
    int resolution;
    int poses;
    int clusterSize = 64;
    bool objectLevel = false;  // CullideSettings::objectLevel
    bool viewsAtOnce = true;   // CullideSettings::viewsAtOnce
    bool contactClip = true;   // CullideSettings::contactClip
    bool clusterBoxes = false; // CullideSettings::clusterBoxes
    bool clusterPass = true;   // CullideSettings::clusterPass
    bool chain = true;         // CullideSettings::chain
    bool triangleLevel = true; // CullideSettings::triangleLevel
};

std::shared_ptr<Mesh> namedMesh(const std::string& name) {
    if (name == "bunny") return bunnyMesh();
    if (name == "torus") return std::make_shared<Mesh>(shapes::torus(0.5f, 0.15f, 32, 16));
    return std::make_shared<Mesh>(shapes::box(Vec3(0.3f, 0.2f, 0.4f)));
}

class CullideRecallTest : public CullideDetectorTest, public ::testing::WithParamInterface<RecallCase> {};

// Recall and precision must both be exactly 1: nothing that collides may be pruned
// (conservative fragments), and only exact-tested pairs are reported.
TEST_P(CullideRecallTest, MatchesTheReferenceExactly) {
    const RecallCase& c = GetParam();
    auto ma = namedMesh(c.a), mb = namedMesh(c.b);
    Scene scene;
    const ObjectId oa = scene.addObject(scene.addMesh(ma)), ob = scene.addObject(scene.addMesh(mb));
    CullideSettings s = settings(c.method, c.resolution);
    s.clusterSize = c.clusterSize;
    s.objectLevel = c.objectLevel;
    s.viewsAtOnce = c.viewsAtOnce;
    s.contactClip = c.contactClip;
    s.clusterBoxes = c.clusterBoxes;
    s.clusterPass = c.clusterPass;
    s.chain = c.chain;
    s.triangleLevel = c.triangleLevel;
    auto d = makeCullide(s);
    Tally tally;
    double objectsOut = 0, trianglesIn = 0, trianglesOut = 0, tests = 0;
    const std::vector<ObjectPair> candidates = {{oa, ob}};
    for (auto [pa, pb] : geometry::sampleClosePoses(*ma, *mb, c.poses, 11)) {
        // Pulled 40% closer: most sampled pairs then interpenetrate.
        pb.position = pa.position + 0.6f * (pb.position - pa.position);
        scene.setPose(oa, pa);
        scene.setPose(ob, pb);
        DetectionOutput out;
        ASSERT_TRUE(d->detect(scene, candidates, out));
        ASSERT_LE(out.pairs.size(), 1u);
        if (!out.pairs.empty()) checkWellFormed(out.pairs[0]);
        tally.add(reference(scene, oa, ob), out.pairs.empty() ? nullptr : &out.pairs[0]);
        objectsOut += out.stats.counter("pcs_objects");
        trianglesIn += out.stats.counter("pcs_triangles_in");
        trianglesOut += out.stats.counter("pcs_triangles");
        tests += out.stats.counter("tri_tri_tests");
    }
    std::printf("[ cullide ] %s: %d poses, %zu colliding, triangle pairs %zu / %zu found, reported %zu; per pose "
                "objects left %.2f, triangles %.0f -> %.0f, tri-tri tests %.0f\n",
                c.name, c.poses, tally.refObjects, tally.foundTriangles, tally.refTriangles, tally.reported,
                objectsOut / c.poses, trianglesIn / c.poses, trianglesOut / c.poses, tests / c.poses);
    EXPECT_GT(tally.refObjects, std::size_t(c.poses) / 4) << "the sampled poses should include collisions";
    EXPECT_EQ(tally.falseObjects, 0u);
    EXPECT_EQ(tally.foundObjects, tally.refObjects) << "object recall must be 1";
    EXPECT_EQ(tally.foundTriangles, tally.refTriangles) << "triangle-pair recall must be 1";
    EXPECT_EQ(tally.reportedExact, tally.reported) << "precision must be 1";
}

INSTANTIATE_TEST_SUITE_P(
    Meshes, CullideRecallTest,
    ::testing::Values(RecallCase{"bunny_bunny_defaults", "bunny", "bunny", "compute", CullideSettings{}.resolution, 60,
                                 64, false, true, true, false, true, true, CullideSettings{}.triangleLevel},
                      RecallCase{"bunny_bunny_triangle_level", "bunny", "bunny", "compute", CullideSettings{}.resolution,
                                 30},
                      RecallCase{"bunny_bunny_coarse_16px", "bunny", "bunny", "compute", 16, 20},
                      RecallCase{"torus_torus_64", "torus", "torus", "compute", 64, 20},
                      RecallCase{"box_bunny_64", "box", "bunny", "compute", 64, 16},
                      RecallCase{"bunny_bunny_no_clusters_64", "bunny", "bunny", "compute", 64, 16, 0},
                      RecallCase{"bunny_bunny_object_level_sequential_axes_64", "bunny", "bunny", "compute", 64, 16,
                                 64, true, false},
                      RecallCase{"torus_torus_object_level_32", "torus", "torus", "compute", 32, 12, 64, true, true},
                      RecallCase{"bunny_bunny_no_contact_clip_64", "bunny", "bunny", "compute", 64, 12, 64, true, true,
                                 false},
                      RecallCase{"bunny_bunny_cluster_boxes_64", "bunny", "bunny", "compute", 64, 16, 64, false, true,
                                 true, true},
                      RecallCase{"torus_torus_cluster_boxes_32", "torus", "torus", "compute", 32, 12, 32, false, false,
                                 true, true},
                      RecallCase{"bunny_bunny_no_cluster_pass_64", "bunny", "bunny", "compute", 64, 16, 64, false, true,
                                 true, false, false},
                      RecallCase{"bunny_bunny_unchained_64", "bunny", "bunny", "compute", 64, 16, 64, false, true,
                                 true, false, true, false},
                      RecallCase{"torus_torus_unchained_cluster_boxes_32", "torus", "torus", "compute", 32, 12, 32,
                                 false, true, true, true, true, false},
                      RecallCase{"bunny_bunny_no_triangle_level", "bunny", "bunny", "compute",
                                 CullideSettings{}.resolution, 30, 64, false, true, true, false, true, true, false},
                      RecallCase{"torus_torus_no_triangle_level_cluster_boxes_32", "torus", "torus", "compute", 32, 12,
                                 32, false, true, true, true, true, true, false},
                      RecallCase{"queries_bunny_bunny_32", "bunny", "bunny", "queries", 32, 6, 64, true},
                      RecallCase{"queries_torus_torus_32", "torus", "torus", "queries", 32, 6, 64, true}),
    [](const ::testing::TestParamInfo<RecallCase>& p) { return std::string(p.param.name); });

Scene bunnyHeap(int count) {
    Scene scene;
    const MeshId ib = scene.addMesh(bunnyMesh());
    for (int i = 0; i < count; ++i)
        scene.addObject(ib, Pose{Vec3(0.55f * float(i % 3), 0.45f * float((i / 3) % 2), 0.5f * float(i / 6)),
                                 glm::angleAxis(0.7f * float(i), glm::normalize(Vec3(1, float(i), 2)))});
    return scene;
}

// Deforms object `o` of `scene`: its mesh stretched by s across y and squashed by 1/s along it
// about its box centre (its own vertices from then on).
void squash(Scene& scene, ObjectId o, float s) {
    std::vector<Vec3> v(scene.objectMesh(o).vertices().begin(), scene.objectMesh(o).vertices().end());
    const Vec3 c = scene.objectMesh(o).localBounds().center();
    for (Vec3& x : v) x = c + Vec3(s, 1.0f / s, s) * (x - c);
    scene.setVertices(o, v);
}

// Detectors x and y on `candidates` (their answers into a and b), each the reference's answer;
// returns how many pairs collide.
std::size_t detectBoth(const Scene& scene, std::span<const ObjectPair> candidates, CullideDetector& x,
                       CullideDetector& y, DetectionOutput& a, DetectionOutput& b) {
    EXPECT_TRUE(x.detect(scene, candidates, a));
    EXPECT_TRUE(y.detect(scene, candidates, b));
    std::size_t colliding = 0;
    expectExact(scene, candidates, a, &colliding);
    expectExact(scene, candidates, b);
    return colliding;
}

// A cullide detector with `settings`, made with the environment hooks `hooks` set while it is made
// (they are read then); null (and a failure) when it cannot be made.
std::unique_ptr<CullideDetector> cullideWithHooks(const DetectorSettings& common,
                                                  std::initializer_list<std::pair<const char*, const char*>> hooks,
                                                  const CullideSettings& settings = {}) {
    ScopedEnv env(hooks);
    auto d = createCullideDetector(common, settings);
    EXPECT_TRUE(d) << d.error().message;
    return d ? std::move(*d) : nullptr;
}

// The hook tests' A/B pattern: for each of `settingsList`, two detectors made with the hooks `on`
// and `off`, `calls` calls on `scene` (bunnies 2 and 5 squashed before call 1, bunny 7 before
// call 3; call 2 repeats call 1's poses), both answers checked against the reference
// (detectBoth); then check(settings, call, output with `on`, output with `off`, colliding pairs).
template <class Check>
void hookPairCalls(Scene& scene, std::initializer_list<CullideSettings> settingsList,
                   std::initializer_list<std::pair<const char*, const char*>> on,
                   std::initializer_list<std::pair<const char*, const char*>> off, int calls, Check check) {
    const DetectorSettings common{.wantSegments = true};
    for (const CullideSettings& settings : settingsList) {
        auto a = cullideWithHooks(common, on, settings);
        auto b = cullideWithHooks(common, off, settings);
        ASSERT_NE(a, nullptr);
        ASSERT_NE(b, nullptr);
        for (int call = 0; call < calls; ++call) {
            if (call == 1) {
                squash(scene, 2, 1.08f);
                squash(scene, 5, 0.92f);
            } else if (call == 3) {
                squash(scene, 7, 1.05f);
            }
            const std::vector<ObjectPair> candidates = scene.overlappingPairs();
            DetectionOutput outA, outB;
            const std::size_t colliding = detectBoth(scene, candidates, *a, *b, outA, outB);
            check(settings, call, outA, outB, colliding);
        }
    }
}

// The same cluster level in both outputs: the clusters seeded and left, and the pairs kept.
void expectSameClusterLevel(const DetectionOutput& a, const DetectionOutput& b) {
    EXPECT_EQ(a.stats.counter("pcs_clusters_in"), b.stats.counter("pcs_clusters_in")) << "the same clusters seeded";
    EXPECT_EQ(a.stats.counter("pcs_clusters"), b.stats.counter("pcs_clusters")) << "the same clusters left";
    EXPECT_EQ(a.stats.counter("pairs_after_clusters"), b.stats.counter("pairs_after_clusters"));
}

// Bit for bit the same answer: the same pairs in the same order, their triangle pairs and segments.
void expectSameAnswer(const DetectionOutput& a, const DetectionOutput& b) {
    ASSERT_EQ(a.pairs.size(), b.pairs.size());
    for (std::size_t i = 0; i < a.pairs.size(); ++i) {
        EXPECT_EQ(a.pairs[i].pair, b.pairs[i].pair);
        EXPECT_EQ(a.pairs[i].triangles, b.pairs[i].triangles);
        ASSERT_EQ(a.pairs[i].segments.size(), b.pairs[i].segments.size());
        for (std::size_t k = 0; k < a.pairs[i].segments.size(); ++k) {
            EXPECT_EQ(a.pairs[i].segments[k].p0, b.pairs[i].segments[k].p0);
            EXPECT_EQ(a.pairs[i].segments[k].p1, b.pairs[i].segments[k].p1);
        }
    }
}

// Several bodies, every overlapping pair in one call: exactly the reference, and each level
// prunes.
TEST_F(CullideDetectorTest, ManyObjectsInOneCall) {
    const Scene scene = bunnyHeap(8);
    const std::vector<ObjectPair> candidates = scene.overlappingPairs();
    ASSERT_GE(candidates.size(), 8u);
    auto compute = makeCullide(settings("compute", 64));
    DetectionOutput out;
    ASSERT_TRUE(compute->detect(scene, candidates, out));
    std::size_t colliding = 0;
    expectExact(scene, candidates, out, &colliding);
    EXPECT_GE(colliding, 4u);
    std::printf("[ cullide ] 8 bunnies, %zu candidate pairs, %zu colliding: objects %g -> %g, pairs %g / %g / %g after "
                "the object / cluster / triangle levels, clusters %g -> %g, triangles %g -> %g\n",
                candidates.size(), colliding, out.stats.counter("pcs_objects_in"), out.stats.counter("pcs_objects"),
                out.stats.counter("pairs_after_objects"), out.stats.counter("pairs_after_clusters"),
                out.stats.counter("pairs_after_triangles"), out.stats.counter("pcs_clusters_in"),
                out.stats.counter("pcs_clusters"), out.stats.counter("pcs_triangles_in"),
                out.stats.counter("pcs_triangles"));
    EXPECT_LT(out.stats.counter("pcs_clusters"), out.stats.counter("pcs_clusters_in"));
    EXPECT_LT(out.stats.counter("pcs_triangles"), out.stats.counter("pcs_triangles_in"));
}

// The chain (cluster level, per-pair cluster overlap and triangle level on the GPU, one
// read-back) against the levels read back one by one: the same cluster survivors, the same
// pairs after the cluster level and the same clusters sent on (the pair pass on the GPU is
// the CPU's per-pair overlap), and both exactly the reference; on the clusters' triangles and
// on their boxes.
TEST_F(CullideDetectorTest, ChainedLevelsMatchTheLevelsReadBackOneByOne) {
    const Scene scene = bunnyHeap(8);
    const std::vector<ObjectPair> candidates = scene.overlappingPairs();
    for (bool boxes : {false, true}) {
        CullideSettings s = settings("compute", 64);
        s.clusterBoxes = boxes;
        s.chain = true;
        // (The pair pass's oriented-box cut off: it keeps fewer pairs than the CPU's per-pair
        // overlap; OrientedBoxPairsKeepTheListedPairsAndTheAnswer tests it.)
        std::unique_ptr<CullideDetector> chained;
        {
            ScopedEnv env({{"ISC_CULLIDE_OBB_PAIRS", "0"}});
            chained = makeCullide(s);
        }
        s.chain = false;
        auto oneByOne = makeCullide(s);
        DetectionOutput a, b;
        ASSERT_TRUE(chained->detect(scene, candidates, a));
        ASSERT_TRUE(oneByOne->detect(scene, candidates, b));
        std::size_t colliding = 0;
        expectExact(scene, candidates, a, &colliding);
        EXPECT_GE(colliding, 4u);
        expectExact(scene, candidates, b);
        std::printf("[ cullide ] chain, 8 bunnies, %s: clusters %g -> %g, pairs %g -> %g, triangles %g -> %g "
                    "(one by one: %g -> %g, pairs %g, triangles %g -> %g)\n",
                    boxes ? "cluster boxes" : "cluster triangles", a.stats.counter("pcs_clusters_in"),
                    a.stats.counter("pcs_clusters"), double(candidates.size()), a.stats.counter("pairs_after_clusters"),
                    a.stats.counter("pcs_triangles_in"), a.stats.counter("pcs_triangles"),
                    b.stats.counter("pcs_clusters_in"), b.stats.counter("pcs_clusters"),
                    b.stats.counter("pairs_after_clusters"), b.stats.counter("pcs_triangles_in"),
                    b.stats.counter("pcs_triangles"));
        EXPECT_GT(a.stats.counter("run_chain_ms"), 0.0) << "the chain ran";
        EXPECT_EQ(b.stats.counter("run_chain_ms"), 0.0);
        EXPECT_EQ(a.stats.counter("pcs_clusters_in"), b.stats.counter("pcs_clusters_in"));
        EXPECT_EQ(a.stats.counter("pcs_clusters"), b.stats.counter("pcs_clusters"));
        EXPECT_EQ(a.stats.counter("pairs_after_clusters"), b.stats.counter("pairs_after_clusters"));
        EXPECT_LT(a.stats.counter("pairs_after_clusters"), double(candidates.size())) << "the pair pass prunes";
        EXPECT_EQ(a.stats.counter("pcs_triangles_in"), b.stats.counter("pcs_triangles_in"));
        EXPECT_LT(a.stats.counter("pcs_triangles"), a.stats.counter("pcs_triangles_in"));
        EXPECT_EQ(a.pairs.size(), b.pairs.size());
    }
}

// gpuItems (default): the cluster items' world boxes posed (rigid) or refit from the uploaded
// vertices (deformed) on the GPU and cut to the partners' boxes there, against the same chain
// with the boxes and the cut on the CPU: the same clusters enter the cluster level, the same
// survive, the same pairs go on, and both give exactly the reference's answer; on a heap with
// three deformed bunnies, over two calls (the second reuses the uploaded items), and with the
// deformed ones moved between calls.
TEST_F(CullideDetectorTest, GpuItemsMatchTheItemsBuiltOnTheCpu) {
    Scene scene = bunnyHeap(12);
    auto deform = [&](ObjectId o, float s) { squash(scene, o, s); };
    deform(2, 1.08f);
    deform(5, 0.9f);
    deform(7, 1.12f);
    CullideSettings s = settings("compute", 64);
    std::unique_ptr<CullideDetector> onGpu;
    {
        ScopedEnv env({{"ISC_CULLIDE_OBB_PAIRS", "0"}});  // (as the CPU items' pair cut: the same pairs on)
        onGpu = makeCullide(s);
    }
    s.gpuItems = false;
    auto onCpu = makeCullide(s);
    for (int call = 0; call < 3; ++call) {
        if (call == 2) deform(5, 1.1f);
        const std::vector<ObjectPair> candidates = scene.overlappingPairs();
        DetectionOutput a, b;
        const std::size_t colliding = detectBoth(scene, candidates, *onGpu, *onCpu, a, b);
        EXPECT_GE(colliding, 5u);
        std::printf("[ cullide ] gpu items, 12 bunnies (3 deformed), call %d: clusters %g -> %g, pairs %g -> %g "
                    "(cpu items: %g -> %g, pairs %g); cpu boxes %.3f / %.3f ms\n",
                    call, a.stats.counter("pcs_clusters_in"), a.stats.counter("pcs_clusters"),
                    double(candidates.size()), a.stats.counter("pairs_after_clusters"),
                    b.stats.counter("pcs_clusters_in"), b.stats.counter("pcs_clusters"),
                    b.stats.counter("pairs_after_clusters"), a.stats.counter("cpu_boxes_ms"),
                    b.stats.counter("cpu_boxes_ms"));
        EXPECT_EQ(a.stats.counter("cpu_boxes_ms"), 0.0) << "no cluster boxes on the CPU";
        EXPECT_GT(b.stats.counter("cpu_boxes_ms"), 0.0);
        EXPECT_GT(a.stats.counter("pcs_clusters_in"), 0.0);
        EXPECT_EQ(a.stats.counter("pcs_clusters_in"), b.stats.counter("pcs_clusters_in"));
        EXPECT_EQ(a.stats.counter("pcs_clusters"), b.stats.counter("pcs_clusters"));
        EXPECT_EQ(a.stats.counter("pairs_after_clusters"), b.stats.counter("pairs_after_clusters"));
        EXPECT_EQ(a.stats.counter("filtered_pairs"), b.stats.counter("filtered_pairs"));
        EXPECT_EQ(a.pairs.size(), b.pairs.size());
    }
}

// The cluster level along one axis (clusterAxes 1, the default) or three: the same answer (the
// reference's pairs, and the same triangle pairs bit for bit), over calls that deform and move
// bunnies; three views hide a cluster only where all three do, so they leave no more clusters
// than the one along z. clusterAxes never exceeds axes.
TEST_F(CullideDetectorTest, ClusterLevelAlongOneOrThreeAxesKeepsTheAnswer) {
    Scene scene = bunnyHeap(12);
    auto deform = [&](ObjectId o, float s) { squash(scene, o, s); };
    DetectorSettings common{.wantSegments = true};
    std::vector<std::unique_ptr<CullideDetector>> detectors;
    for (int k = 0; k < 3; ++k) {
        CullideSettings s;
        s.clusterAxes = k == 0 ? 1 : 3;
        if (k == 2) s.axes = 1;  // clusterAxes 3 but axes 1: one axis
        auto d = createCullideDetector(common, s);
        ASSERT_TRUE(d) << d.error().message;
        detectors.push_back(std::move(*d));
    }
    for (int call = 0; call < 3; ++call) {
        deform(ObjectId(call % 12), 1.06f + 0.02f * float(call));
        deform(ObjectId((call + 5) % 12), 0.93f);
        Pose p = scene.pose(3);
        p.position += Vec3(0.002f * float(call), 0.0f, -0.001f);
        scene.setPose(3, p);
        const std::vector<ObjectPair> candidates = scene.overlappingPairs();
        std::vector<DetectionOutput> outs(detectors.size());
        for (std::size_t k = 0; k < detectors.size(); ++k) ASSERT_TRUE(detectors[k]->detect(scene, candidates, outs[k]));
        std::size_t colliding = 0;
        expectExact(scene, candidates, outs[0], &colliding);
        expectExact(scene, candidates, outs[1]);
        EXPECT_GE(colliding, 5u);
        ASSERT_EQ(outs[1].pairs.size(), outs[0].pairs.size());
        for (std::size_t i = 0; i < outs[0].pairs.size(); ++i) {
            EXPECT_EQ(outs[1].pairs[i].pair, outs[0].pairs[i].pair);
            EXPECT_EQ(outs[1].pairs[i].triangles, outs[0].pairs[i].triangles);
        }
        // (views counts every level's: the triangle level's are made too, along axes.)
        EXPECT_EQ(outs[1].stats.counter("views") - outs[0].stats.counter("views"), 2.0)
            << "one view at the cluster level instead of three";
        EXPECT_EQ(outs[0].stats.counter("views") - outs[2].stats.counter("views"), 2.0)
            << "clusterAxes is capped by axes (and axes 1 makes the triangle level's one view)";
        EXPECT_EQ(outs[0].stats.counter("pcs_clusters_in"), outs[1].stats.counter("pcs_clusters_in"));
        EXPECT_LE(outs[1].stats.counter("pcs_clusters"), outs[0].stats.counter("pcs_clusters"));
        EXPECT_LT(outs[0].stats.counter("pcs_clusters"), outs[0].stats.counter("pcs_clusters_in"))
            << "one axis still prunes";
        EXPECT_EQ(outs[2].stats.counter("pcs_clusters"), outs[0].stats.counter("pcs_clusters"));
        std::printf("[ cullide ] cluster level, 12 bunnies, call %d: clusters %g -> %g (1 axis) / %g (3 axes), "
                    "exact tests %g / %g\n",
                    call, outs[0].stats.counter("pcs_clusters_in"), outs[0].stats.counter("pcs_clusters"),
                    outs[1].stats.counter("pcs_clusters"), outs[0].stats.counter("filtered_pairs"),
                    outs[1].stats.counter("filtered_pairs"));
    }
}

// The listed tests' exact stage (peel's PeelExact: grouped by pair, a pair of more than one
// chunk of 256 included; the last call's listed pairs speculated, test hook
// ISC_CULLIDE_SPECULATE_ALL: all of them, after the wait on software GL; their results looked
// up), against every hook off (the flat loop, no speculation): over calls that deform and move
// bunnies, leave the scene unchanged, and hand the detector a smaller scene (remembered pairs
// naming objects it does not have), with and without segments, both give exactly the
// reference's pairs and bit for bit the same triangle pairs and segments; on the unchanged call
// every listed pair is taken from speculation.
TEST_F(CullideDetectorTest, SpeculatedAndFusedExactTestsKeepTheAnswer) {
    Scene scene = bunnyHeap(12);
    // A 13th bunny almost where bunny 0 is: thousands of listed tests for that one pair (more
    // than one chunk of 256).
    {
        Pose p = scene.pose(0);
        p.rotation = glm::normalize(p.rotation * glm::angleAxis(0.15f, glm::normalize(Vec3(0.3f, 1.0f, 0.2f))));
        p.position += Vec3(0.004f, -0.003f, 0.002f);
        scene.addObject(scene.meshOf(0), p);
    }
    ASSERT_GT(reference(scene, 0, 12).size(), 256u) << "a pair of several chunks";
    Scene small = bunnyHeap(6);
    for (bool segments : {false, true}) {
        DetectorSettings common{.wantSegments = segments};
        std::unique_ptr<CullideDetector> next, old;
        {
            ScopedEnv env({{"ISC_CULLIDE_SPECULATE_ALL", "1"}});
            auto d = createCullideDetector(common, {});
            ASSERT_TRUE(d) << d.error().message;
            next = std::move(*d);
        }
        {
            ScopedEnv env({{"ISC_CULLIDE_FUSED", "0"},
                           {"ISC_CULLIDE_SPECULATE", "0"},
                           {"ISC_CULLIDE_TEAM_WAIT", "0"}});
            auto d = createCullideDetector(common, {});
            ASSERT_TRUE(d) << d.error().message;
            old = std::move(*d);
        }
        double lastTests = 0.0;
        for (int call = 0; call < 5; ++call) {
            if (call == 1 || call == 3) {
                squash(scene, ObjectId(call), 1.05f);
                squash(scene, 12, call == 1 ? 0.96f : 1.03f);
                Pose p = scene.pose(4);
                p.position += Vec3(0.003f, -0.002f, 0.001f);
                scene.setPose(4, p);
            }
            const Scene& sc = call == 4 ? small : scene;  // call 2: unchanged
            const std::vector<ObjectPair> candidates = sc.overlappingPairs();
            DetectionOutput a, b;
            ASSERT_TRUE(next->detect(sc, candidates, a));
            ASSERT_TRUE(old->detect(sc, candidates, b));
            std::size_t colliding = 0;
            if (segments) {
                expectExact(sc, candidates, a, &colliding);
            } else {
                // (expectExact wants segments.)
                for (const ObjectPair& c : candidates) {
                    const auto ref = reference(sc, c.a, c.b);
                    const auto it = std::find_if(a.pairs.begin(), a.pairs.end(), [&](const PairResult& r) { return r.pair == c; });
                    colliding += ref.empty() ? 0 : 1;
                    if (ref.empty()) {
                        EXPECT_EQ(it, a.pairs.end()) << c.a << "-" << c.b;
                    } else {
                        ASSERT_NE(it, a.pairs.end()) << c.a << "-" << c.b;
                        EXPECT_EQ(it->triangles, ref) << c.a << "-" << c.b;
                        EXPECT_TRUE(it->segments.empty());
                    }
                }
            }
            EXPECT_GE(colliding, 4u);
            EXPECT_GT(a.stats.counter("filtered_pairs"), 0.0) << "the listed path";
            EXPECT_EQ(a.stats.counter("filtered_pairs"), b.stats.counter("filtered_pairs"));
            expectSameAnswer(a, b);
            const double reused = a.stats.counter("exact_reused"), positives = a.stats.counter("positive_tests");
            std::printf("[ cullide ] speculation, %s, call %d: %g listed tests, %g intersecting, %g speculated, %g "
                        "reused\n",
                        segments ? "segments" : "no segments", call, a.stats.counter("filtered_pairs"), positives,
                        a.stats.counter("exact_speculated"), reused);
            EXPECT_EQ(b.stats.counter("exact_reused"), 0.0);
            if (call == 0) {
                EXPECT_EQ(reused, 0.0) << "nothing to speculate on the first call";
            } else if (call == 2) {
                // Call 1 looked its listed pairs up and kept every distinct one (intersecting
                // or apart); an unchanged scene lists them all again.
                EXPECT_EQ(a.stats.counter("exact_speculated"), lastTests);
                EXPECT_EQ(reused, lastTests) << "an unchanged scene: every remembered pair listed again";
                EXPECT_EQ(a.stats.counter("tri_tri_tests"), lastTests);
            } else if (call != 4) {
                EXPECT_GT(reused, 0.0);
            }
            lastTests = a.stats.counter("tri_tri_tests");
        }
    }
}

// Cullide-10's set-up, pair pass and filter against the paths they replace (hooks
// ISC_CULLIDE_FUSED_SETUP=0, ISC_CULLIDE_PAIR_SPLIT=1, ISC_CULLIDE_WIDE_FILTER=0): the deformed boxes
// and the vertex conversion in one parallel region, the copy in pieces; the pair pass with 8
// threads per (pair, cluster of A), each walking a share of B's clusters; the filter's 128
// invocations per cluster pair.
// Over calls that deform bunnies (one far from the others: converted, no box), leave them
// unchanged (boxes, no conversion), and move the far one, deformed in an earlier call, into the
// heap (its vertices as uploaded then): the reference's answer, and bit for bit the same pairs,
// triangle pairs and segments, the same listed tests and pairs kept as the old paths; the new
// set-up ran (vertex copies counted) only where vertices changed.
TEST_F(CullideDetectorTest, FusedSetupAndSplitPairPassKeepTheAnswer) {
    Scene scene = bunnyHeap(12);
    const ObjectId far = scene.addObject(scene.meshOf(0), Pose{Vec3(20.0f, 0.0f, 0.0f), glm::angleAxis(0.3f, Vec3(0, 1, 0))});
    squash(scene, 2, 1.08f);
    squash(scene, 7, 0.92f);
    squash(scene, far, 1.1f);
    DetectorSettings common{.wantSegments = true};
    std::unique_ptr<CullideDetector> next = cullideWithHooks(common, {});
    std::unique_ptr<CullideDetector> old = cullideWithHooks(
        common, {{"ISC_CULLIDE_FUSED_SETUP", "0"}, {"ISC_CULLIDE_PAIR_SPLIT", "1"}, {"ISC_CULLIDE_WIDE_FILTER", "0"}});
    ASSERT_NE(next, nullptr);
    ASSERT_NE(old, nullptr);
    for (int call = 0; call < 5; ++call) {
        bool changed = call == 0;
        if (call == 1) {
            squash(scene, 2, 0.95f);
            squash(scene, 5, 1.06f);
            squash(scene, far, 0.9f);  // out of every pair: converted, no box
            changed = true;
        } else if (call == 3) {
            // The far bunny, deformed in call 1, onto bunny 0 (no new vertices: its box only).
            Pose p = scene.pose(0);
            p.position += Vec3(0.02f, 0.01f, -0.01f);
            scene.setPose(far, p);
        } else if (call == 4) {
            squash(scene, far, 1.04f);
            Pose p = scene.pose(7);
            p.position += Vec3(0.003f, -0.002f, 0.001f);
            scene.setPose(7, p);
            changed = true;
        }  // call 2: unchanged
        const std::vector<ObjectPair> candidates = scene.overlappingPairs();
        DetectionOutput a, b;
        const std::size_t colliding = detectBoth(scene, candidates, *next, *old, a, b);
        EXPECT_GE(colliding, 5u);
        if (call >= 3) {
            const bool farPaired = std::any_of(a.pairs.begin(), a.pairs.end(), [&](const PairResult& r) {
                return r.pair.a == far || r.pair.b == far;
            });
            EXPECT_TRUE(farPaired) << "the far bunny collides once moved onto bunny 0";
        }
        std::printf("[ cullide ] fused set-up, split pair pass, call %d: %zu colliding, %g listed tests, vertex copies %g, set-up %.3f ms "
                    "(old %.3f)\n",
                    call, colliding, a.stats.counter("filtered_pairs"), a.stats.counter("vertex_copies"),
                    a.stats.counter("cpu_setup_ms"), b.stats.counter("cpu_setup_ms"));
        EXPECT_EQ(a.stats.counter("filtered_pairs"), b.stats.counter("filtered_pairs"));
        EXPECT_EQ(a.stats.counter("pairs_after_clusters"), b.stats.counter("pairs_after_clusters"));
        EXPECT_EQ(a.stats.counter("filter_cluster_pairs"), b.stats.counter("filter_cluster_pairs"));
        EXPECT_EQ(a.stats.counter("filter_box_pairs"), b.stats.counter("filter_box_pairs"));
        EXPECT_EQ(a.stats.counter("pcs_triangles"), b.stats.counter("pcs_triangles")) << "the same clusters wanted";
        EXPECT_EQ(b.stats.counter("vertex_copies"), 0.0) << "the old set-up";
        if (changed) {
            EXPECT_GE(a.stats.counter("vertex_copies"), 1.0) << "the fused set-up converted and copied";
        } else {
            EXPECT_EQ(a.stats.counter("vertex_copies"), 0.0) << "no vertices changed";
        }
        expectSameAnswer(a, b);
    }
}

// Cullide-12: the filter loads each slot's corner indices and triangle in one load (the default)
// instead of the slot's triangle, then its indices (hook ISC_CULLIDE_SLOT_CORNERS=0, main's path):
// over calls on a rigid heap, then with bunnies deformed (their vertices, the mesh's indices),
// then moved: the reference's answer, the same listed triangle pairs as a set (count and
// order-free checksum, hook ISC_CULLIDE_FILTER_CHECKSUM), the same box and cluster pairs, and bit
// for bit the same pairs, triangle pairs and segments. (The round's other filter shapes, measured
// slower and taken out, had their variants here: cullide.md, "cullide-12".)
TEST_F(CullideDetectorTest, SlotCornersKeepTheListedPairsAndTheAnswer) {
    Scene scene = bunnyHeap(12);
    DetectorSettings common{.wantSegments = true};
    std::unique_ptr<CullideDetector> next = cullideWithHooks(common, {{"ISC_CULLIDE_FILTER_CHECKSUM", "1"}});
    std::unique_ptr<CullideDetector> old =
        cullideWithHooks(common, {{"ISC_CULLIDE_FILTER_CHECKSUM", "1"}, {"ISC_CULLIDE_SLOT_CORNERS", "0"}});
    ASSERT_NE(next, nullptr);
    ASSERT_NE(old, nullptr);
    for (int call = 0; call < 4; ++call) {
        if (call == 2) {
            squash(scene, 2, 1.08f);
            squash(scene, 5, 0.92f);
            squash(scene, 7, 1.05f);
        } else if (call == 3) {
            squash(scene, 5, 1.04f);
            Pose p = scene.pose(7);
            p.position += Vec3(0.003f, -0.002f, 0.001f);
            scene.setPose(7, p);
        }
        const std::vector<ObjectPair> candidates = scene.overlappingPairs();
        DetectionOutput a, b;
        const std::size_t colliding = detectBoth(scene, candidates, *next, *old, a, b);
        EXPECT_GE(colliding, 5u);
        std::printf("[ cullide ] slot corners, call %d: %zu colliding, listed %g (old %g), box pairs %g (old %g), "
                    "cluster pairs %g\n",
                    call, colliding, a.stats.counter("filtered_pairs"), b.stats.counter("filtered_pairs"),
                    a.stats.counter("filter_box_pairs"), b.stats.counter("filter_box_pairs"),
                    a.stats.counter("filter_cluster_pairs"));
        EXPECT_EQ(a.stats.counter("filter_overflows"), 0.0);
        EXPECT_GT(a.stats.counter("filtered_pairs"), 0.0) << "the filter ran";
        EXPECT_EQ(a.stats.counter("filtered_pairs"), b.stats.counter("filtered_pairs"));
        EXPECT_EQ(a.stats.counter("filter_list_checksum"), b.stats.counter("filter_list_checksum"))
            << "the same triangle pairs listed";
        EXPECT_EQ(a.stats.counter("filter_box_pairs"), b.stats.counter("filter_box_pairs"));
        EXPECT_EQ(a.stats.counter("filter_cluster_pairs"), b.stats.counter("filter_cluster_pairs"));
        expectSameAnswer(a, b);
    }
}

// Cullide-13: the chain's pose pass queued and flushed as soon as the object boxes and partners
// are made (Passes::startChain, the default), with the GL clock read around the chain
// (ISC_CULLIDE_TIMELINE=1), against the pose pass queued with the cluster level's splats
// (ISC_CULLIDE_EARLY_START=0, the path before): over calls on a rigid
// heap, with bunnies deformed (one workgroup per item in the pose pass), with one bunny moved out
// of every pair (the items laid out again) and back: the reference's answer, the same clusters
// seeded by the pose pass and left by the cluster level, the same triangles wanted (their count,
// pcs_triangles_in), the same pairs kept, cluster pairs, box
// pairs and listed triangle pairs (a set: count and checksum), and bit for bit the same pairs,
// triangle pairs and segments.
TEST_F(CullideDetectorTest, EarlyStartKeepsTheSeedsAndTheAnswer) {
    Scene scene = bunnyHeap(12);
    DetectorSettings common{.wantSegments = true};
    // (The pair pass after the cluster level in both: early pairs list more cluster pairs, and
    // need the early start; EarlyPairsKeepTheListedPairsAndTheAnswer tests them.)
    std::unique_ptr<CullideDetector> next = cullideWithHooks(
        common, {{"ISC_CULLIDE_FILTER_CHECKSUM", "1"}, {"ISC_CULLIDE_TIMELINE", "1"}, {"ISC_CULLIDE_EARLY_PAIRS", "0"}});
    std::unique_ptr<CullideDetector> old = cullideWithHooks(
        common, {{"ISC_CULLIDE_FILTER_CHECKSUM", "1"}, {"ISC_CULLIDE_EARLY_START", "0"}, {"ISC_CULLIDE_EARLY_PAIRS", "0"}});
    ASSERT_NE(next, nullptr);
    ASSERT_NE(old, nullptr);
    const Pose away{Vec3(30.0f, 0.0f, 0.0f), glm::quat(1.0f, 0.0f, 0.0f, 0.0f)};
    const Pose home = scene.pose(4);
    for (int call = 0; call < 6; ++call) {
        if (call == 2) {
            squash(scene, 2, 1.08f);
            squash(scene, 5, 0.92f);
        } else if (call == 3) {
            scene.setPose(4, away);  // out of every pair: the items laid out again
        } else if (call == 4) {
            scene.setPose(4, home);
            squash(scene, 5, 1.04f);
        }  // call 1: the same poses; call 5: the same again
        const std::vector<ObjectPair> candidates = scene.overlappingPairs();
        DetectionOutput a, b;
        const std::size_t colliding = detectBoth(scene, candidates, *next, *old, a, b);
        EXPECT_GE(colliding, 5u);
        std::printf("[ cullide ] early start, call %d: %zu colliding, seeded %g (old %g), clusters left %g (old %g), "
                    "listed %g (old %g); before the GPU %.3f ms (old %.3f), GPU start lag %.3f, span %.3f, "
                    "wake lag %.3f\n",
                    call, colliding, a.stats.counter("pcs_clusters_in"), b.stats.counter("pcs_clusters_in"),
                    a.stats.counter("pcs_clusters"), b.stats.counter("pcs_clusters"), a.stats.counter("filtered_pairs"),
                    b.stats.counter("filtered_pairs"), a.stats.counter("cpu_before_gpu_ms"),
                    b.stats.counter("cpu_before_gpu_ms"), a.stats.counter("gpu_start_lag_ms"),
                    a.stats.counter("gpu_span_ms"), a.stats.counter("gpu_wake_lag_ms"));
        EXPECT_GT(a.stats.counter("pcs_clusters_in"), 0.0) << "the pose pass seeded clusters";
        expectSameClusterLevel(a, b);
        EXPECT_GT(a.stats.counter("pcs_triangles_in"), 0.0);
        EXPECT_EQ(a.stats.counter("pcs_triangles_in"), b.stats.counter("pcs_triangles_in"))
            << "the wanted clusters' triangles, summed with and without a branch";
        EXPECT_EQ(a.stats.counter("pcs_triangles"), b.stats.counter("pcs_triangles"));
        EXPECT_EQ(a.stats.counter("filter_overflows"), 0.0);
        EXPECT_GT(a.stats.counter("filtered_pairs"), 0.0) << "the filter ran";
        EXPECT_EQ(a.stats.counter("filtered_pairs"), b.stats.counter("filtered_pairs"));
        EXPECT_EQ(a.stats.counter("filter_list_checksum"), b.stats.counter("filter_list_checksum"))
            << "the same triangle pairs listed";
        EXPECT_EQ(a.stats.counter("filter_box_pairs"), b.stats.counter("filter_box_pairs"));
        EXPECT_EQ(a.stats.counter("filter_cluster_pairs"), b.stats.counter("filter_cluster_pairs"));
        EXPECT_GT(a.stats.counter("cpu_before_gpu_ms"), 0.0);
        EXPECT_GT(a.stats.counter("cpu_after_wait_ms"), 0.0);
        EXPECT_GT(a.stats.counter("gpu_span_ms"), 0.0) << "the timeline hook read the GL clock";
        EXPECT_TRUE(std::none_of(b.stats.counters.begin(), b.stats.counters.end(),
                                 [](const auto& c) { return c.first == "gpu_span_ms"; }))
            << "no timeline without its hook";
        expectSameAnswer(a, b);
    }
}

// The pair pass's oriented-box test (two rigid clusters whose world boxes meet are kept only when
// their posed local boxes meet too; hook ISC_CULLIDE_OBB_PAIRS=0: the world boxes alone): fewer
// cluster pairs reach the filter, the same triangle pairs are listed and the answer is the same
// (and the reference's), over rigid moves and deformed objects (which keep the world-box test).
// With the boxes shrunk by a tenth in the test it lost pairs (the answer differed from the
// reference and from the world boxes alone) and failed.
TEST_F(CullideDetectorTest, OrientedBoxPairsKeepTheListedPairsAndTheAnswer) {
    Scene scene = bunnyHeap(12);
    DetectorSettings common{.wantSegments = true};
    std::unique_ptr<CullideDetector> next = cullideWithHooks(common, {{"ISC_CULLIDE_FILTER_CHECKSUM", "1"}});
    std::unique_ptr<CullideDetector> old =
        cullideWithHooks(common, {{"ISC_CULLIDE_FILTER_CHECKSUM", "1"}, {"ISC_CULLIDE_OBB_PAIRS", "0"}});
    ASSERT_NE(next, nullptr);
    ASSERT_NE(old, nullptr);
    for (int call = 0; call < 4; ++call) {
        if (call == 1) {
            squash(scene, 2, 1.08f);  // deformed: world boxes only
            squash(scene, 5, 0.92f);
        } else if (call == 3) {
            Pose p = scene.pose(7);
            p.rotation = glm::normalize(p.rotation * glm::angleAxis(0.3f, glm::normalize(Vec3(1.0f, 2.0f, 0.5f))));
            scene.setPose(7, p);
        }
        const std::vector<ObjectPair> candidates = scene.overlappingPairs();
        DetectionOutput a, b;
        const std::size_t colliding = detectBoth(scene, candidates, *next, *old, a, b);
        EXPECT_GE(colliding, 5u);
        std::printf("[ cullide ] oriented-box pairs, call %d: %zu colliding, cluster pairs %g (world boxes alone %g), "
                    "listed %g\n",
                    call, colliding, a.stats.counter("filter_cluster_pairs"), b.stats.counter("filter_cluster_pairs"),
                    a.stats.counter("filtered_pairs"));
        EXPECT_LT(a.stats.counter("filter_cluster_pairs"), 0.8 * b.stats.counter("filter_cluster_pairs"))
            << "the oriented boxes cut cluster pairs";
        EXPECT_EQ(a.stats.counter("filtered_pairs"), b.stats.counter("filtered_pairs"));
        EXPECT_EQ(a.stats.counter("filter_list_checksum"), b.stats.counter("filter_list_checksum"))
            << "the same triangle pairs listed";
        expectSameAnswer(a, b);
    }
}

// The diagnostic hook ISC_CULLIDE_FILTER_SUBCOUNT=1 (the filter counts the cluster pairs in which
// no triangle boxes met, and those in which no 16-slot sub-boxes met): the same listed pairs and
// answer as without it, and the counts consistent: a sub-box holds its triangles' boxes, so a
// pair whose sub-boxes meet nowhere has no triangle boxes meeting either (no_subbox <= empty <=
// cluster pairs; sub-boxes made too small would break it), and likewise a cluster's tight world box
// holds its sub-boxes (no_tight <= no_subbox).
TEST_F(CullideDetectorTest, FilterSubCountKeepsTheAnswer) {
    Scene scene = bunnyHeap(12);
    DetectorSettings common{.wantSegments = true};
    std::unique_ptr<CullideDetector> counting =
        cullideWithHooks(common, {{"ISC_CULLIDE_FILTER_CHECKSUM", "1"}, {"ISC_CULLIDE_FILTER_SUBCOUNT", "1"}});
    std::unique_ptr<CullideDetector> plain = cullideWithHooks(common, {{"ISC_CULLIDE_FILTER_CHECKSUM", "1"}});
    ASSERT_NE(counting, nullptr);
    ASSERT_NE(plain, nullptr);
    for (int call = 0; call < 3; ++call) {
        if (call == 1) squash(scene, 2, 1.08f);
        const std::vector<ObjectPair> candidates = scene.overlappingPairs();
        DetectionOutput a, b;
        EXPECT_GE(detectBoth(scene, candidates, *counting, *plain, a, b), 5u);
        const double clusterPairs = a.stats.counter("filter_cluster_pairs");
        const double empty = a.stats.counter("filter_empty_cluster_pairs");
        const double noSub = a.stats.counter("filter_no_subbox_cluster_pairs");
        const double noTight = a.stats.counter("filter_no_tight_cluster_pairs");
        std::printf("[ cullide ] filter sub-box counts, call %d: %g cluster pairs, %g with no triangle boxes met, "
                    "%g with no sub-boxes met, %g whose tight boxes do not meet\n",
                    call, clusterPairs, empty, noSub, noTight);
        EXPECT_GT(clusterPairs, 0.0);
        EXPECT_LE(noTight, noSub) << "a cluster's tight box holds its sub-boxes";
        EXPECT_LE(noSub, empty);
        EXPECT_LE(empty, clusterPairs);
        EXPECT_EQ(a.stats.counter("filter_list_checksum"), b.stats.counter("filter_list_checksum"));
        EXPECT_TRUE(std::none_of(b.stats.counters.begin(), b.stats.counters.end(),
                                 [](const auto& c) { return c.first == "filter_empty_cluster_pairs"; }))
            << "no counts without the hook";
        expectSameAnswer(a, b);
    }
}

// The pair pass queued right after the pose pass (the default since 2026-11-29; hook
// ISC_CULLIDE_EARLY_PAIRS=1: it lists the
// cluster pairs of every seeded cluster while the GPU would wait for the CPU, and the filter skips
// a pair unless both clusters survived the cluster level, setting the kept-pair and wanted flags
// itself; 0: the pair pass after the cluster level): the same clusters left, pairs kept, listed
// triangle pairs (checksum) and answer (the reference's) at one and at three cluster views, a few
// more cluster pairs listed (the filter's skipped ones); not taken with the triangle level's
// passes. With a cluster pair list of 16 the first call overflows: every pair is kept and every
// cluster wanted, its survivors tested on the CPU (the reference's answer), and the next call
// lists them. With the filter's survival check left out, or the overflow's flags left as the
// filter set them, this fails.
TEST_F(CullideDetectorTest, EarlyPairsKeepTheListedPairsAndTheAnswer) {
    Scene scene = bunnyHeap(12);
    DetectorSettings common{.wantSegments = true};
    CullideSettings threeViews;
    threeViews.clusterAxes = 3;
    CullideSettings triangles;
    triangles.triangleLevel = true;
    hookPairCalls(
        scene, {CullideSettings{}, threeViews, triangles},
        // (Both with the pose pass's seeds: the early pair pass's own seeds give another cluster
        // level, PairSeedsKeepTheAnswerWithFewerClusters.)
        {{"ISC_CULLIDE_FILTER_CHECKSUM", "1"}, {"ISC_CULLIDE_EARLY_PAIRS", "1"}, {"ISC_CULLIDE_PAIR_SEEDS", "0"}},
        {{"ISC_CULLIDE_FILTER_CHECKSUM", "1"}, {"ISC_CULLIDE_EARLY_PAIRS", "0"}, {"ISC_CULLIDE_PAIR_SEEDS", "0"}}, 3,
        [](const CullideSettings& st, int call, const DetectionOutput& a, const DetectionOutput& b, std::size_t colliding) {
            EXPECT_GE(colliding, 5u);
            std::printf("[ cullide ] early pairs (%d cluster axes, triangle level %d), call %d: %zu colliding, "
                        "clusters %g -> %g, cluster pairs listed %g (late %g), triangle pairs %g\n",
                        st.clusterAxes, int(st.triangleLevel), call, colliding, a.stats.counter("pcs_clusters_in"),
                        a.stats.counter("pcs_clusters"), a.stats.counter("filter_cluster_pairs"),
                        b.stats.counter("filter_cluster_pairs"), a.stats.counter("filtered_pairs"));
            EXPECT_EQ(a.stats.counter("pairs_early"), st.triangleLevel ? 0.0 : 1.0);
            EXPECT_EQ(b.stats.counter("pairs_early"), 0.0);
            EXPECT_GT(a.stats.counter("pcs_clusters_in"), a.stats.counter("pcs_clusters")) << "the clusters are pruned";
            expectSameClusterLevel(a, b);
            EXPECT_EQ(a.stats.counter("pcs_triangles_in"), b.stats.counter("pcs_triangles_in")) << "the same clusters wanted";
            EXPECT_GT(a.stats.counter("filtered_pairs"), 0.0);
            EXPECT_EQ(a.stats.counter("filtered_pairs"), b.stats.counter("filtered_pairs"));
            EXPECT_EQ(a.stats.counter("filter_list_checksum"), b.stats.counter("filter_list_checksum"))
                << "the same triangle pairs listed";
            EXPECT_GE(a.stats.counter("filter_cluster_pairs"), b.stats.counter("filter_cluster_pairs"));
            expectSameAnswer(a, b);
        });
    // The cluster pair list overflowed on the first call.
    auto small = cullideWithHooks(common, {{"ISC_CULLIDE_EARLY_PAIRS", "1"}, {"ISC_CULLIDE_CLUSTER_PAIR_LIST", "16"}});
    ASSERT_NE(small, nullptr);
    const std::vector<ObjectPair> candidates = scene.overlappingPairs();
    DetectionOutput first, second;
    ASSERT_TRUE(small->detect(scene, candidates, first));
    ASSERT_TRUE(small->detect(scene, candidates, second));
    std::size_t colliding = 0;
    expectExact(scene, candidates, first, &colliding);
    expectExact(scene, candidates, second);
    EXPECT_GE(colliding, 5u);
    EXPECT_EQ(first.stats.counter("pairs_early"), 1.0);
    EXPECT_EQ(first.stats.counter("filter_overflows"), 1.0) << "16 cluster pairs cannot hold the heap's list";
    EXPECT_GT(first.stats.counter("filter_cluster_pairs"), 16.0);
    EXPECT_EQ(second.stats.counter("filter_overflows"), 0.0) << "the list grew after the overflow";
    EXPECT_GT(second.stats.counter("filtered_pairs"), 0.0);
    EXPECT_GE(first.stats.counter("pairs_after_clusters"), second.stats.counter("pairs_after_clusters"))
        << "every pair kept on the overflow";
    expectSameAnswer(first, second);
}

// The A/B pattern of the pair pass's forms (2026-11-29, ninth session): hookPairCalls on the
// 12-bunny heap with the early and the late pair pass, at one and three cluster views, the form
// on (the default) against `hook` = 0; both give the same cluster level, cluster pairs, listed
// triangle pairs (checksum) and answer (the reference's); then check(output on, off).
template <class Check>
void pairPassFormCalls(const char* hook, int calls, Check check) {
    Scene scene = bunnyHeap(12);
    CullideSettings threeViews;
    threeViews.clusterAxes = 3;
    for (const char* early : {"1", "0"}) {
        hookPairCalls(
            scene, {CullideSettings{}, threeViews}, {{"ISC_CULLIDE_FILTER_CHECKSUM", "1"}, {"ISC_CULLIDE_EARLY_PAIRS", early}},
            {{"ISC_CULLIDE_FILTER_CHECKSUM", "1"}, {"ISC_CULLIDE_EARLY_PAIRS", early}, {hook, "0"}}, calls,
            [&](const CullideSettings& st, int call, const DetectionOutput& a, const DetectionOutput& b,
                std::size_t colliding) {
                EXPECT_GE(colliding, 5u);
                std::printf("[ cullide ] %s (early %s, %d cluster axes), call %d: %zu colliding, cluster pairs listed "
                            "%g, triangle pairs %g\n",
                            hook, early, st.clusterAxes, call, colliding, a.stats.counter("filter_cluster_pairs"),
                            a.stats.counter("filtered_pairs"));
                EXPECT_EQ(a.stats.counter("pairs_early"), early[0] == '1' ? 1.0 : 0.0);
                expectSameClusterLevel(a, b);
                EXPECT_GT(a.stats.counter("filter_cluster_pairs"), 0.0);
                EXPECT_EQ(a.stats.counter("filter_cluster_pairs"), b.stats.counter("filter_cluster_pairs"));
                EXPECT_GT(a.stats.counter("filtered_pairs"), 0.0);
                EXPECT_EQ(a.stats.counter("filtered_pairs"), b.stats.counter("filtered_pairs"));
                EXPECT_EQ(a.stats.counter("filter_list_checksum"), b.stats.counter("filter_list_checksum"))
                    << "the same triangle pairs listed";
                expectSameAnswer(a, b);
                check(a, b);
            });
    }
}

// The pair pass's object cut (the default since 2026-11-29, ninth session; hook
// ISC_CULLIDE_PAIR_OBJECT_CUT=0: every cluster of side A walks side B's clusters): a cluster whose
// box does not reach the other object's box walks none of its clusters. It saves the walk, not
// pairs: a cluster of B lies in B's box, so the clusters it skips meet none (pairPassFormCalls'
// checks, over rigid and deformed calls). With the object boxes shrunk by a tenth in the shader
// it lost cluster pairs and failed.
TEST_F(CullideDetectorTest, PairObjectCutKeepsTheListedPairsAndTheAnswer) {
    pairPassFormCalls("ISC_CULLIDE_PAIR_OBJECT_CUT", 3, [](const DetectionOutput&, const DetectionOutput&) {});
}

// The pair pass as a row of workgroups per pair (the default since 2026-11-29, ninth session;
// hook ISC_CULLIDE_PAIR_ROWS=0: one flat range, each thread searching for its pair): taken on the
// heap (its pairs are alike), with pairPassFormCalls' checks. With a row's threads started one pair
// too far on (threadStart of the next pair) it lost cluster pairs and failed.
TEST_F(CullideDetectorTest, PairRowsKeepTheListedPairsAndTheAnswer) {
    pairPassFormCalls("ISC_CULLIDE_PAIR_ROWS", 2, [](const DetectionOutput& a, const DetectionOutput& b) {
        EXPECT_EQ(a.stats.counter("pair_rows"), 1.0) << "the heap's pairs are alike: rows";
        EXPECT_EQ(b.stats.counter("pair_rows"), 0.0);
    });
}

// The A/B pattern of the pose pass's forms (2026-11-29, tenth session): on the 12-bunny heap with
// two, then three bunnies squashed (hookPairCalls, one and three cluster views), then with every
// bunny squashed, the form on (the default) against `hook` = 0: the same pose boxes bit for bit
// (test hook ISC_CULLIDE_POSE_CHECKSUM: the boxes read back and summed), clusters seeded and left,
// pairs kept, listed triangle pairs (checksum) and answer (the reference's).
void poseFormCalls(const char* hook) {
    Scene scene = bunnyHeap(12);
    CullideSettings threeViews;
    threeViews.clusterAxes = 3;
    auto check = [&](const CullideSettings& st, int call, const DetectionOutput& a, const DetectionOutput& b,
                     std::size_t colliding) {
        EXPECT_GE(colliding, 5u);
        std::printf("[ cullide ] %s (%d cluster axes), call %d: %zu colliding, clusters %g -> %g, box checksum %.0f "
                    "(off %.0f)\n",
                    hook, st.clusterAxes, call, colliding, a.stats.counter("pcs_clusters_in"),
                    a.stats.counter("pcs_clusters"), a.stats.counter("pose_box_checksum"),
                    b.stats.counter("pose_box_checksum"));
        EXPECT_NE(a.stats.counter("pose_box_checksum"), 0.0);
        EXPECT_EQ(a.stats.counter("pose_box_checksum"), b.stats.counter("pose_box_checksum")) << "the same boxes";
        expectSameClusterLevel(a, b);
        EXPECT_GT(a.stats.counter("filtered_pairs"), 0.0);
        EXPECT_EQ(a.stats.counter("filter_list_checksum"), b.stats.counter("filter_list_checksum"))
            << "the same triangle pairs listed";
        expectSameAnswer(a, b);
    };
    const std::initializer_list<std::pair<const char*, const char*>> on = {
        {"ISC_CULLIDE_FILTER_CHECKSUM", "1"}, {"ISC_CULLIDE_POSE_CHECKSUM", "1"}, {hook, "1"}};
    const std::initializer_list<std::pair<const char*, const char*>> off = {
        {"ISC_CULLIDE_FILTER_CHECKSUM", "1"}, {"ISC_CULLIDE_POSE_CHECKSUM", "1"}, {hook, "0"}};
    hookPairCalls(scene, {CullideSettings{}, threeViews}, on, off, 4, check);
    // Every bunny deformed (the deforming pile's case).
    auto a = cullideWithHooks(DetectorSettings{.wantSegments = true}, on);
    auto b = cullideWithHooks(DetectorSettings{.wantSegments = true}, off);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    for (int call = 0; call < 2; ++call) {
        for (ObjectId o = 0; o < scene.objectCount(); ++o) squash(scene, o, call == 0 ? 1.03f : 0.98f);
        const std::vector<ObjectPair> candidates = scene.overlappingPairs();
        DetectionOutput outA, outB;
        const std::size_t colliding = detectBoth(scene, candidates, *a, *b, outA, outB);
        check(CullideSettings{}, 10 + call, outA, outB, colliding);
    }
}

// The pose pass boxing a deformed cluster over its distinct corners (the default since 2026-11-29,
// tenth session; hook ISC_CULLIDE_POSE_CORNERS=0: over its triangles' corners, each vertex loaded
// about 4.7 times on the bunny): the same vertices through the same expression, so
// poseFormCalls' checks hold. With each cluster's last corner left out it failed.
TEST_F(CullideDetectorTest, PoseCornersKeepTheBoxesAndTheAnswer) { poseFormCalls("ISC_CULLIDE_POSE_CORNERS"); }

// The pose pass testing an item's partners over its workgroup's invocations (the default since
// 2026-11-29, tenth session; hook ISC_CULLIDE_POSE_PARTNERS=0: the first invocation tests them one
// after the other), with poseFormCalls' checks. With each invocation starting one partner too far
// on (the first partner of every group skipped) it failed.
TEST_F(CullideDetectorTest, PosePartnersKeepTheSeedsAndTheAnswer) { poseFormCalls("ISC_CULLIDE_POSE_PARTNERS"); }

// The pair pass loading four clusters' boxes of side B before testing them (the default since
// 2026-11-29, tenth session; hook ISC_CULLIDE_PAIR_LOADS=0: one at a time), with pairPassFormCalls'
// checks (the same cluster level, cluster pairs, listed triangle pairs and answer). With each
// cluster of B tested against the next loaded one's box it failed.
TEST_F(CullideDetectorTest, PairLoadsKeepTheListedPairsAndTheAnswer) {
    pairPassFormCalls("ISC_CULLIDE_PAIR_LOADS", 2, [](const DetectionOutput&, const DetectionOutput&) {});
}

// The pair pass's oriented boxes loaded as the pose pass wrote them (the default since 2026-11-29,
// eleventh session; hook ISC_CULLIDE_OBB_POSED=0: posed from the local boxes and model matrices in
// the pair pass), with pairPassFormCalls' checks over rigid and deformed calls: the same cluster
// pairs and listed triangle pairs, so the same oriented-box test. It failed with the second half
// edge written as the first's (a box that is too thin: cluster pairs lost).
TEST_F(CullideDetectorTest, PosedObbsKeepTheListedPairsAndTheAnswer) {
    pairPassFormCalls("ISC_CULLIDE_OBB_POSED", 2, [](const DetectionOutput&, const DetectionOutput&) {});
}

// The early pair pass seeding the cluster level's PCS (the default since 2026-11-29, eleventh
// session; hook ISC_CULLIDE_PAIR_SEEDS=0: the pose pass's partner cut seeds it): on the 12-bunny
// heap, rigid, then with bunnies squashed (deformed), at one and three cluster views: the clusters
// seeded are those paired, fewer than the partner cut's and at least those left after the
// cluster level, the triangle pairs listed no more, and the answer the same bit for bit (the
// reference's: detectBoth). It failed with only side B's clusters seeded (side A's flag not set).
TEST_F(CullideDetectorTest, PairSeedsKeepTheAnswerWithFewerClusters) {
    Scene scene = bunnyHeap(12);
    CullideSettings threeViews;
    threeViews.clusterAxes = 3;
    hookPairCalls(scene, {CullideSettings{}, threeViews}, {}, {{"ISC_CULLIDE_PAIR_SEEDS", "0"}}, 3,
                  [&](const CullideSettings& st, int call, const DetectionOutput& a, const DetectionOutput& b,
                      std::size_t colliding) {
                      EXPECT_GE(colliding, 5u);
                      std::printf("[ cullide ] pair seeds (%d cluster axes), call %d: %zu colliding, clusters seeded %g "
                                  "(partner cut %g), left %g (%g), triangle pairs listed %g (%g)\n",
                                  st.clusterAxes, call, colliding, a.stats.counter("pcs_clusters_in"),
                                  b.stats.counter("pcs_clusters_in"), a.stats.counter("pcs_clusters"),
                                  b.stats.counter("pcs_clusters"), a.stats.counter("filtered_pairs"),
                                  b.stats.counter("filtered_pairs"));
                      EXPECT_EQ(a.stats.counter("pairs_early"), 1.0);
                      EXPECT_GT(a.stats.counter("pcs_clusters_in"), 0.0);
                      EXPECT_LT(a.stats.counter("pcs_clusters_in"), b.stats.counter("pcs_clusters_in"))
                          << "the paired clusters are fewer than those reaching a partner's box";
                      EXPECT_LE(a.stats.counter("pcs_clusters"), a.stats.counter("pcs_clusters_in"));
                      EXPECT_GT(a.stats.counter("filtered_pairs"), 0.0);
                      EXPECT_LE(a.stats.counter("filtered_pairs"), b.stats.counter("filtered_pairs"));
                      expectSameAnswer(a, b);
                  });
}

// Candidate pairs given with the higher object id first, as a broadphase may hand them: the filter
// lists each triangle pair with the lower object's triangle first (the exact stage's order, read
// in place since 2026-11-29; hook ISC_CULLIDE_TESTS_IN_PLACE=0 copies the list first) and the
// answer names each pair and its triangles in the candidate's own order: the reference's answer
// for every candidate, with the list in place and copied, and with the flat exact loop
// (ISC_CULLIDE_FUSED=0). With the filter's order not flipped for such pairs this fails.
TEST_F(CullideDetectorTest, SwappedCandidatesKeepTheirOrderAndTheAnswer) {
    Scene scene = bunnyHeap(8);
    std::vector<ObjectPair> candidates = scene.overlappingPairs();
    for (std::size_t i = 0; i < candidates.size(); i += 2) std::swap(candidates[i].a, candidates[i].b);
    ASSERT_GE(candidates.size(), 4u);
    const DetectorSettings common{.wantSegments = true};
    for (const char* inPlace : {"1", "0"})
        for (const char* fused : {"1", "0"}) {
            SCOPED_TRACE(std::string("in place ") + inPlace + ", fused " + fused);
            auto d = cullideWithHooks(common, {{"ISC_CULLIDE_TESTS_IN_PLACE", inPlace}, {"ISC_CULLIDE_FUSED", fused}});
            ASSERT_NE(d, nullptr);
            for (int call = 0; call < 2; ++call) {
                DetectionOutput out;
                ASSERT_TRUE(d->detect(scene, candidates, out));
                std::size_t colliding = 0;
                expectExact(scene, candidates, out, &colliding);
                EXPECT_GE(colliding, 5u);
                EXPECT_GT(out.stats.counter("filtered_pairs"), 0.0) << "the filter listed the tests";
                std::size_t swapped = 0;
                for (const PairResult& r : out.pairs) swapped += r.pair.a > r.pair.b ? 1 : 0;
                EXPECT_GT(swapped, 0u) << "pairs with the higher id first were found, in that order";
            }
        }
}

// The cluster level's update done by the query pass's workgroups (the default since 2026-11-29;
// hook ISC_CULLIDE_GROUP_UPDATE=1: one workgroup per item ORs its item's marks in shared memory
// and applies the update's rule; 0: update.glsl's own pass): the same clusters left, listed triangle pairs and answer (the
// reference's) on the default cluster level (one view: the path is taken, counter
// cluster_update_folded), and with three cluster views one after the other (not taken: the
// update runs). With the workgroup's rule broken (an item kept when hidden from one side only)
// the clusters left differ and this fails.
TEST_F(CullideDetectorTest, GroupUpdateKeepsTheClustersAndTheAnswer) {
    Scene scene = bunnyHeap(12);
    CullideSettings threeViews;
    threeViews.clusterAxes = 3;
    threeViews.viewsAtOnce = false;
    hookPairCalls(
        scene, {CullideSettings{}, threeViews},
        {{"ISC_CULLIDE_FILTER_CHECKSUM", "1"}, {"ISC_CULLIDE_GROUP_UPDATE", "1"}},
        {{"ISC_CULLIDE_FILTER_CHECKSUM", "1"}, {"ISC_CULLIDE_GROUP_UPDATE", "0"}}, 4,
        [](const CullideSettings& settings, int call, const DetectionOutput& a, const DetectionOutput& b,
           std::size_t colliding) {
            EXPECT_GE(colliding, 5u);
            std::printf("[ cullide ] group update (%d cluster axes), call %d: %zu colliding, clusters %g -> %g "
                        "(update pass %g -> %g), listed %g\n",
                        settings.clusterAxes, call, colliding, a.stats.counter("pcs_clusters_in"),
                        a.stats.counter("pcs_clusters"), b.stats.counter("pcs_clusters_in"),
                        b.stats.counter("pcs_clusters"), a.stats.counter("filtered_pairs"));
            EXPECT_EQ(a.stats.counter("cluster_update_folded"), settings.clusterAxes == 1 ? 1.0 : 0.0);
            EXPECT_EQ(b.stats.counter("cluster_update_folded"), 0.0);
            EXPECT_GT(a.stats.counter("pcs_clusters_in"), a.stats.counter("pcs_clusters"))
                << "the cluster level pruned some clusters";
            expectSameClusterLevel(a, b);
            EXPECT_GT(a.stats.counter("filtered_pairs"), 0.0);
            EXPECT_EQ(a.stats.counter("filter_list_checksum"), b.stats.counter("filter_list_checksum"))
                << "the same triangle pairs listed";
            EXPECT_EQ(a.stats.counter("filter_cluster_pairs"), b.stats.counter("filter_cluster_pairs"));
            expectSameAnswer(a, b);
        });
}

// The splat's second made in the key's pass (ISC_CULLIDE_PUSH_SECOND=1, the default: whatever the
// key's atomic displaces or rejects goes to the second when of another group; 0: mode 1's own
// pass) is the same second, so every level keeps the same members: the cluster level with one
// view (group update) and with three views at once, the triangle level after it, and the
// object level; the same triangle pairs listed and the same answer (the reference's). With the
// displaced key not pushed (only rejected fragments), clusters that touch others are pruned
// (769 left instead of 804 on the first call) and contacts are missed: this fails.
TEST_F(CullideDetectorTest, PushedSecondKeepsEveryLevelAndTheAnswer) {
    Scene scene = bunnyHeap(12);
    CullideSettings threeViews;
    threeViews.clusterAxes = 3;
    CullideSettings triangles;
    triangles.triangleLevel = true;
    CullideSettings objects;
    objects.objectLevel = true;
    hookPairCalls(
        scene, {CullideSettings{}, threeViews, triangles, objects},
        {{"ISC_CULLIDE_FILTER_CHECKSUM", "1"}, {"ISC_CULLIDE_PUSH_SECOND", "1"}},
        {{"ISC_CULLIDE_FILTER_CHECKSUM", "1"}, {"ISC_CULLIDE_PUSH_SECOND", "0"}}, 3,
        [](const CullideSettings& settings, int call, const DetectionOutput& a, const DetectionOutput& b,
           std::size_t colliding) {
            EXPECT_GE(colliding, 5u);
            std::printf("[ cullide ] pushed second (%d cluster axes, triangle level %d, object level %d), call %d: "
                        "%zu colliding, objects %g -> %g, clusters %g -> %g, triangles %g -> %g\n",
                        settings.clusterAxes, int(settings.triangleLevel), int(settings.objectLevel), call, colliding,
                        a.stats.counter("pcs_objects_in"), a.stats.counter("pcs_objects"),
                        a.stats.counter("pcs_clusters_in"), a.stats.counter("pcs_clusters"),
                        a.stats.counter("pcs_triangles_in"), a.stats.counter("pcs_triangles"));
            EXPECT_GT(a.stats.counter("pcs_clusters_in"), a.stats.counter("pcs_clusters"))
                << "the cluster level pruned some clusters";
            expectSameClusterLevel(a, b);
            EXPECT_EQ(a.stats.counter("pcs_objects"), b.stats.counter("pcs_objects"));
            EXPECT_EQ(a.stats.counter("pcs_triangles_in"), b.stats.counter("pcs_triangles_in"));
            EXPECT_EQ(a.stats.counter("pcs_triangles"), b.stats.counter("pcs_triangles"));
            if (settings.triangleLevel) {
                EXPECT_GT(a.stats.counter("pcs_triangles_in"), a.stats.counter("pcs_triangles"))
                    << "the triangle level pruned some triangles";
            }
            EXPECT_EQ(a.stats.counter("filter_list_checksum"), b.stats.counter("filter_list_checksum"))
                << "the same triangle pairs listed";
            expectSameAnswer(a, b);
        });
}

// The triangles' key and query passes from programs of their own mode (splat.glsl
// CULLIDE_SPLAT_MODE, the default; ISC_CULLIDE_SPLAT_PER_MODE=0: one program whose mode is a
// uniform): the same members left at every level (the cluster level of one view, three views one
// after the other, the triangle level), the same listed pairs and answer, the reference's; also
// with the second's own pass (ISC_CULLIDE_PUSH_SECOND=0: mode 1 from the program of every mode).
// With the query run by the key's program, clusters that touch others are pruned and this fails.
TEST_F(CullideDetectorTest, PerModeSplatProgramsKeepEveryLevelAndTheAnswer) {
    Scene scene = bunnyHeap(12);
    CullideSettings threeViews;
    threeViews.clusterAxes = 3;
    threeViews.viewsAtOnce = false;
    CullideSettings triangles;
    triangles.triangleLevel = true;
    for (const char* push : {"1", "0"}) {
        hookPairCalls(
            scene, {CullideSettings{}, threeViews, triangles},
            {{"ISC_CULLIDE_FILTER_CHECKSUM", "1"}, {"ISC_CULLIDE_SPLAT_PER_MODE", "1"}, {"ISC_CULLIDE_PUSH_SECOND", push}},
            {{"ISC_CULLIDE_FILTER_CHECKSUM", "1"}, {"ISC_CULLIDE_SPLAT_PER_MODE", "0"}, {"ISC_CULLIDE_PUSH_SECOND", push}},
            2,
            [&](const CullideSettings& settings, int call, const DetectionOutput& a, const DetectionOutput& b,
                std::size_t colliding) {
                EXPECT_GE(colliding, 5u);
                std::printf("[ cullide ] per-mode splat (push %s, %d cluster axes, triangle level %d), call %d: "
                            "clusters %g -> %g, triangles %g -> %g\n",
                            push, settings.clusterAxes, int(settings.triangleLevel), call,
                            a.stats.counter("pcs_clusters_in"), a.stats.counter("pcs_clusters"),
                            a.stats.counter("pcs_triangles_in"), a.stats.counter("pcs_triangles"));
                EXPECT_GT(a.stats.counter("pcs_clusters_in"), a.stats.counter("pcs_clusters"));
                expectSameClusterLevel(a, b);
                EXPECT_EQ(a.stats.counter("pcs_triangles_in"), b.stats.counter("pcs_triangles_in"));
                EXPECT_EQ(a.stats.counter("pcs_triangles"), b.stats.counter("pcs_triangles"));
                EXPECT_EQ(a.stats.counter("filter_list_checksum"), b.stats.counter("filter_list_checksum"));
                expectSameAnswer(a, b);
            });
    }
}

// A detector handed another scene with the same meshes but the objects' meshes swapped: the GPU
// mirror must be remade (GpuScene keeps each object's mesh range while the counts stay: before
// the fix the second scene's pair was missed with either item path) and the pose pass's item
// cache laid out again (the items name each mesh's slots); every call gets the reference's answer.
TEST_F(CullideDetectorTest, AnotherSceneWithTheMeshesSwappedIsMirroredAgain) {
    auto torus = std::make_shared<Mesh>(shapes::torus(0.5f, 0.15f, 32, 16));
    auto box = std::make_shared<Mesh>(shapes::box(Vec3(0.3f)));
    auto make = [&](bool swapped) {
        Scene scene;
        const MeshId t = scene.addMesh(torus), b = scene.addMesh(box);
        scene.addObject(swapped ? b : t);
        scene.addObject(swapped ? t : b, Pose{Vec3(0.5f, 0.0f, 0.0f)});
        return scene;
    };
    const Scene first = make(false), second = make(true);
    for (bool gpuItems : {true, false}) {
        CullideSettings s = settings("compute", 64);
        s.gpuItems = gpuItems;
        auto d = makeCullide(s);
        const std::vector<ObjectPair> candidates = {{0, 1}};
        int call = 0;
        for (const Scene* scene : {&first, &second, &first}) {
            ASSERT_FALSE(reference(*scene, 0, 1).empty());
            DetectionOutput out;
            ASSERT_TRUE(d->detect(*scene, candidates, out));
            expectExact(*scene, candidates, out);
            EXPECT_EQ(out.pairs.size(), 1u) << "call " << call << (gpuItems ? ", gpu items" : ", cpu items");
            ++call;
        }
    }
}

// The chain's GPU float filter (filter.glsl) in front of the exact test: with self pairs in
// the same call (their survivors still go to the CPU pairing) and with intersection segments,
// the output is exactly the reference's, in candidate order, identical (pairs, triangle pairs,
// segments) to the survivors paired on the CPU, and the filter sends far fewer pairs to the
// exact test.
TEST_F(CullideDetectorTest, FilterListOverflowTestsTheSurvivorsThenGrows) {
    // A filter list of 16 triangle pairs cannot hold the heap's (hundreds): the first call must
    // fall back to pairing the survivors on the CPU (the same exact answer, counted), and the
    // second call, with the list grown, must list them on the GPU. With and without the triangle
    // level's passes (without: the survivors are made on the CPU from the wanted clusters, the
    // seed and pack passes do not run): the same triangles enter the triangle level.
    Scene scene = bunnyHeap(8);
    const std::vector<ObjectPair> candidates = scene.overlappingPairs();
    DetectorSettings common{.wantSegments = true};
    double seeded[2] = {0.0, 0.0};
    for (bool triangleLevel : {true, false}) {
        CullideSettings s = settings("compute", 64);
        s.filterList = 16;
        s.triangleLevel = triangleLevel;
        auto d = createCullideDetector(common, s);
        ASSERT_TRUE(d) << d.error().message;
        DetectionOutput first, second;
        ASSERT_TRUE((*d)->detect(scene, candidates, first));
        ASSERT_TRUE((*d)->detect(scene, candidates, second));
        std::size_t colliding = 0;
        expectExact(scene, candidates, first, &colliding);
        expectExact(scene, candidates, second);
        EXPECT_GE(colliding, 5u);
        EXPECT_EQ(first.stats.counter("filter_overflows"), 1.0) << "16 pairs cannot hold the heap's list";
        EXPECT_EQ(first.stats.counter("filtered_pairs"), 0.0) << "the overflowed call paired the survivors";
        EXPECT_EQ(second.stats.counter("filter_overflows"), 0.0) << "the list grew after the overflow";
        EXPECT_GT(second.stats.counter("filtered_pairs"), 16.0);
        ASSERT_EQ(first.pairs.size(), second.pairs.size());
        for (std::size_t i = 0; i < first.pairs.size(); ++i)
            EXPECT_EQ(first.pairs[i].triangles, second.pairs[i].triangles);
        seeded[triangleLevel ? 0 : 1] = second.stats.counter("pcs_triangles_in");
        EXPECT_EQ(first.stats.counter("pcs_triangles_in"), second.stats.counter("pcs_triangles_in"));
        if (!triangleLevel) {
            EXPECT_EQ(second.stats.counter("pcs_triangles"), second.stats.counter("pcs_triangles_in"));
        }
    }
    EXPECT_GT(seeded[0], 0.0);
    EXPECT_EQ(seeded[0], seeded[1]) << "the wanted clusters' triangles, seeded on the GPU or counted on the CPU";
}

TEST_F(CullideDetectorTest, GpuFilterListsEveryTouchingTrianglePair) {
    Scene scene = bunnyHeap(8);
    std::vector<ObjectPair> candidates = scene.overlappingPairs();
    // Bunny 2 folded into itself (its top pushed through its body), and a self pair for it and
    // for bunny 5 (no self-intersection) among the inter pairs.
    const Aabb bounds = bunnyMesh()->localBounds();
    const float top = bounds.min.y + 0.6f * bounds.extent().y;
    std::vector<Vec3> pushed;
    for (const Vec3& p : bunnyMesh()->vertices())
        pushed.push_back(p.y > top ? p + Vec3(0.08f, -0.25f * bounds.extent().y, 0.03f) : p);
    scene.setVertices(2, pushed);
    candidates.push_back({2, 2});
    candidates.push_back({5, 5});
    std::sort(candidates.begin(), candidates.end());
    DetectorSettings common{.wantSegments = true, .selfCollision = true};
    CullideSettings s = settings("compute", 64);
    auto filtered = createCullideDetector(common, s);
    s.gpuFilter = false;
    auto paired = createCullideDetector(common, s);
    s.gpuFilter = true;
    s.triangleLevel = false;
    auto filterOnly = createCullideDetector(common, s);
    ASSERT_TRUE(filtered && paired && filterOnly);
    DetectionOutput a, b, c;
    ASSERT_TRUE((*filtered)->detect(scene, candidates, a));
    ASSERT_TRUE((*paired)->detect(scene, candidates, b));
    ASSERT_TRUE((*filterOnly)->detect(scene, candidates, c));
    // Without the triangle level's passes the filter alone narrows the wanted clusters'
    // triangles: the same answer.
    expectExact(scene, candidates, c);
    EXPECT_EQ(c.stats.counter("pcs_triangles"), c.stats.counter("pcs_triangles_in"));
    EXPECT_GT(c.stats.counter("filtered_pairs"), 0.0);
    ASSERT_EQ(c.pairs.size(), a.pairs.size());
    for (std::size_t i = 0; i < a.pairs.size(); ++i) EXPECT_EQ(c.pairs[i].triangles, a.pairs[i].triangles);
    std::size_t colliding = 0;
    expectExact(scene, candidates, a, &colliding);
    EXPECT_GE(colliding, 5u);
    EXPECT_GT(a.stats.counter("filtered_pairs"), 0.0) << "the filter ran";
    EXPECT_EQ(b.stats.counter("filtered_pairs"), 0.0);
    EXPECT_LT(a.stats.counter("tri_tri_tests"), 0.6 * b.stats.counter("tri_tri_tests"));
    std::printf("[ cullide ] gpu filter, 8 bunnies and 2 self pairs: %zu pairs reported; exact tests %g (paired on "
                "the CPU: %g), cluster pairs %g, box pairs %g\n",
                a.pairs.size(), a.stats.counter("tri_tri_tests"), b.stats.counter("tri_tri_tests"),
                a.stats.counter("filter_cluster_pairs"), a.stats.counter("filter_box_pairs"));
    bool self2 = false;
    ASSERT_EQ(a.pairs.size(), b.pairs.size());
    for (std::size_t i = 0; i < a.pairs.size(); ++i) {
        EXPECT_EQ(a.pairs[i].pair, b.pairs[i].pair);
        EXPECT_EQ(a.pairs[i].triangles, b.pairs[i].triangles);
        ASSERT_EQ(a.pairs[i].segments.size(), a.pairs[i].triangles.size());
        ASSERT_EQ(a.pairs[i].segments.size(), b.pairs[i].segments.size());
        for (std::size_t k = 0; k < a.pairs[i].segments.size(); ++k) {
            EXPECT_EQ(a.pairs[i].segments[k].p0, b.pairs[i].segments[k].p0);
            EXPECT_EQ(a.pairs[i].segments[k].p1, b.pairs[i].segments[k].p1);
        }
        if (i > 0) {
            EXPECT_LT(a.pairs[i - 1].pair, a.pairs[i].pair) << "candidate order";
        }
        self2 = self2 || a.pairs[i].pair == ObjectPair{2, 2};
    }
    EXPECT_TRUE(self2) << "the folded bunny's self pair is reported beside the inter pairs";
}

// The paper's form with a pool of 3 queries, far fewer than the PCS holds (5 linked tori,
// tens of clusters, hundreds of triangles): the items are queried in rounds that reuse the
// pool, and the answer is the same as with a pool larger than the PCS (and the reference's).
TEST_F(CullideDetectorTest, QueryPoolSmallerThanThePcsIsUsedInRounds) {
    Scene scene;
    const MeshId torus = scene.addMesh(std::make_shared<Mesh>(shapes::torus(0.5f, 0.15f, 16, 8)));
    for (int i = 0; i < 5; ++i)
        scene.addObject(torus, Pose{Vec3(0.8f * float(i), 0.05f * float(i), 0.0f),
                                    glm::angleAxis(i % 2 ? 1.5708f : 0.2f, Vec3(1, 0, 0))});
    const std::vector<ObjectPair> candidates = scene.overlappingPairs();
    CullideSettings small = settings("queries", 16);
    small.queryPool = 3;
    small.clusterResolution = 16;
    small.objectResolution = 8;
    auto pooled = makeCullide(small);
    small.queryPool = 4096;
    auto big = makeCullide(small);
    DetectionOutput a, b;
    ASSERT_TRUE(pooled->detect(scene, candidates, a));
    ASSERT_TRUE(big->detect(scene, candidates, b));
    std::size_t colliding = 0;
    expectExact(scene, candidates, a, &colliding);
    EXPECT_GE(colliding, 4u);
    std::printf("[ cullide ] queries, 5 tori, pool of 3: %g queries, %.1f ms; pool of 4096: %.1f ms\n",
                a.stats.counter("queries"), a.stats.totalMs, b.stats.totalMs);
    EXPECT_EQ(a.stats.counter("queries"), b.stats.counter("queries"));
    EXPECT_GT(a.stats.counter("queries"), 3.0 * 20) << "at least 20 rounds of the pool";
    EXPECT_EQ(a.stats.counter("pcs_triangles"), b.stats.counter("pcs_triangles"));
    EXPECT_EQ(a.stats.counter("pcs_clusters"), b.stats.counter("pcs_clusters"));
    EXPECT_EQ(a.pairs.size(), b.pairs.size());
}

// The registry's validate switch re-runs cpu on every call: nothing missed, nothing invented.
TEST_F(CullideDetectorTest, ValidateThroughTheRegistryFindsNoMiss) {
    const Scene scene = bunnyHeap(6);
    const std::vector<ObjectPair> candidates = scene.overlappingPairs();
    auto d = createDetector("cullide", {.validate = true, .options = {{"resolution", "32"}}});
    ASSERT_TRUE(d.has_value()) << d.error().message;
    DetectionOutput out;
    ASSERT_TRUE((*d)->detect(scene, candidates, out));
    EXPECT_FALSE(out.pairs.empty());
    EXPECT_EQ(out.stats.counter("validate_missed_pairs"), 0.0);
    EXPECT_EQ(out.stats.counter("validate_extra_pairs"), 0.0);
}

// An open ground sheet under a box dipping into it: served (the visibility test is on
// surfaces; the paper treats open and closed objects alike), exactly the reference's pairs.
TEST_F(CullideDetectorTest, OpenMeshesAreServed) {
    std::vector<Vec3> v;
    std::vector<UVec3> t;
    const int n = 8;
    for (int j = 0; j <= n; ++j)
        for (int i = 0; i <= n; ++i) v.push_back(Vec3(-1.0f + 2.0f * float(i) / n, 0.0f, -1.0f + 2.0f * float(j) / n));
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            const std::uint32_t a = std::uint32_t(j * (n + 1) + i);
            t.push_back(UVec3(a, a + n + 1, a + 1));
            t.push_back(UVec3(a + 1, a + n + 1, a + n + 2));
        }
    auto sheet = Mesh::create("sheet", v, t);
    ASSERT_TRUE(sheet.has_value());
    ASSERT_FALSE(sheet->isClosed());
    Scene scene;
    scene.addObject(scene.addMesh(std::make_shared<Mesh>(std::move(*sheet))));
    scene.addObject(scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.3f)))),
                    Pose{Vec3(0.1f, 0.2f, 0.05f), glm::angleAxis(0.3f, glm::normalize(Vec3(1, 0, 1)))});
    const std::vector<ObjectPair> candidates = {{0, 1}};
    auto d = makeCullide(settings("compute", 32));
    EXPECT_FALSE(d->needsClosedMeshes());
    DetectionOutput out;
    ASSERT_TRUE(d->detect(scene, candidates, out));
    EXPECT_TRUE(out.unserved.empty());
    EXPECT_TRUE(out.stats.warnings.empty());
    ASSERT_EQ(out.pairs.size(), 1u);
    EXPECT_EQ(out.pairs[0].triangles, reference(scene, 0, 1));
}

// A deforming object (Scene::setVertices): the GPU sees the new vertices and so does the
// exact test; moving them back is seen on the next call.
TEST_F(CullideDetectorTest, DeformedVerticesAreUsed) {
    Scene scene;
    const MeshId torus = scene.addMesh(std::make_shared<Mesh>(shapes::torus(0.5f, 0.15f, 32, 16)));
    scene.addObject(torus);
    scene.addObject(torus, Pose{Vec3(2.0f, 0.0f, 0.0f)});
    auto d = makeCullide(settings("compute", 64));
    const std::vector<ObjectPair> candidates = {{0, 1}};
    DetectionOutput out;
    ASSERT_TRUE(d->detect(scene, candidates, out));
    EXPECT_TRUE(out.pairs.empty());
    const Pose link{Vec3(-1.8f, 0.0f, 0.0f), glm::angleAxis(1.5708f, Vec3(1, 0, 0))};
    std::vector<Vec3> moved;
    for (const Vec3& v : scene.objectMesh(1).vertices()) moved.push_back(link.apply(v));
    scene.setVertices(1, moved);
    const auto ref = reference(scene, 0, 1);
    ASSERT_FALSE(ref.empty());
    ASSERT_TRUE(d->detect(scene, candidates, out));
    ASSERT_EQ(out.pairs.size(), 1u);
    EXPECT_EQ(out.pairs[0].triangles, ref);
    scene.setVertices(1, std::vector<Vec3>(scene.objectMesh(1).vertices().begin(), scene.objectMesh(1).vertices().end()));
    ASSERT_TRUE(d->detect(scene, candidates, out));
    EXPECT_TRUE(out.pairs.empty());
}

TEST_F(CullideDetectorTest, NonFinitePoseIsSkippedWithAWarning) {
    Scene scene;
    const MeshId box = scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.5f))));
    scene.addObject(box);
    scene.addObject(box, Pose{Vec3(std::numeric_limits<float>::quiet_NaN(), 0.0f, 0.0f)});
    auto d = makeCullide();
    DetectionOutput out;
    const std::vector<ObjectPair> candidates = {{0, 1}};
    ASSERT_TRUE(d->detect(scene, candidates, out));
    EXPECT_TRUE(out.pairs.empty());
    ASSERT_EQ(out.stats.warnings.size(), 1u);
    EXPECT_NE(out.stats.warnings[0].find("non-finite"), std::string::npos);
}

// prunePairs (the broadphase's entry): at every level the pairs kept include every pair the
// reference finds colliding, and each level keeps at most what the one above kept.
TEST_F(CullideDetectorTest, PrunePairsKeepsEveryCollidingPair) {
    const Scene scene = bunnyHeap(12);
    const std::vector<ObjectPair> candidates = scene.overlappingPairs();
    std::vector<ObjectPair> colliding;
    for (const ObjectPair& c : candidates)
        if (!reference(scene, c.a, c.b).empty()) colliding.push_back(c);
    ASSERT_GE(colliding.size(), 5u);
    auto d = makeCullide(settings("compute", 64));
    std::size_t previous = candidates.size();
    for (CullideLevel level : {CullideLevel::Object, CullideLevel::Cluster, CullideLevel::Triangle}) {
        std::vector<ObjectPair> kept;
        DetectorStats stats;
        ASSERT_TRUE(d->prunePairs(scene, candidates, level, kept, stats));
        for (const ObjectPair& c : colliding)
            EXPECT_TRUE(std::find(kept.begin(), kept.end(), c) != kept.end()) << c.a << "-" << c.b;
        EXPECT_LE(kept.size(), previous);
        std::printf("[ cullide ] prunePairs, 12 bunnies, level %d: %zu candidates -> %zu kept (%zu colliding)\n",
                    int(level), candidates.size(), kept.size(), colliding.size());
        previous = kept.size();
    }
    // Fattened by 0.05: pairs within 0.05 of each other are kept too (a superset).
    std::vector<float> fatten(scene.objectCount(), 0.05f);
    std::vector<ObjectPair> grown, plain;
    DetectorStats stats;
    ASSERT_TRUE(d->prunePairs(scene, candidates, CullideLevel::Cluster, plain, stats));
    ASSERT_TRUE(d->prunePairs(scene, candidates, CullideLevel::Cluster, grown, stats, fatten));
    for (const ObjectPair& c : plain) EXPECT_TRUE(std::find(grown.begin(), grown.end(), c) != grown.end());
}


// The object level over every object at once (the broadphase's pass): every object of a
// colliding pair stays in the PCS, an object far from all others leaves it, a deformed
// object is boxed from its vertices, both ways of running the axes agree on what collides.
TEST_F(CullideDetectorTest, ObjectPcsOverAllObjectsKeepsEveryCollidingObject) {
    Scene scene = bunnyHeap(12);
    const ObjectId far = scene.addObject(scene.meshOf(0), Pose{Vec3(9.0f, 0.0f, 0.0f)});
    // Object 3 deformed: pushed 8% outwards from its centre (it then reaches further).
    {
        std::vector<Vec3> v(scene.localVertices(3).begin(), scene.localVertices(3).end());
        const Vec3 c = scene.objectMesh(3).localBounds().center();
        for (Vec3& x : v) x = c + 1.08f * (x - c);
        scene.setVertices(3, v);
    }
    std::vector<ObjectPair> colliding;
    for (ObjectId a = 0; a < scene.objectCount(); ++a)
        for (ObjectId b = a + 1; b < scene.objectCount(); ++b)
            if (!reference(scene, a, b).empty()) colliding.push_back({a, b});
    ASSERT_GE(colliding.size(), 5u);
    for (bool atOnce : {true, false}) {
        for (int axes : {3, 1}) {
            CullideSettings s = settings("compute", 64);
            s.viewsAtOnce = atOnce;
            s.axes = axes;
            auto d = makeCullide(s);
            std::vector<std::uint8_t> in;
            DetectorStats stats;
            // Twice: the second call reuses every buffer and the static boxes.
            for (int call = 0; call < 2; ++call) {
                ASSERT_TRUE(d->beginObjectPcs(scene));
                ASSERT_TRUE(d->endObjectPcs(in, stats));
                ASSERT_EQ(in.size(), scene.objectCount());
                for (const ObjectPair& c : colliding) {
                    EXPECT_TRUE(in[c.a]) << c.a << " of " << c.a << "-" << c.b;
                    EXPECT_TRUE(in[c.b]) << c.b << " of " << c.a << "-" << c.b;
                }
                EXPECT_FALSE(in[far]) << "alone, it is visible from every side";
                EXPECT_EQ(stats.counter("pcs_objects_in"), double(scene.objectCount()));
                EXPECT_GT(stats.counter("pcs_boxes"), double(scene.objectCount()));
            }
            std::printf("[ cullide ] object PCS over all %zu objects (%s, %d axes): %g left, gpu %.2f ms\n",
                        scene.objectCount(), atOnce ? "views at once" : "view after view", axes,
                        stats.counter("pcs_objects"), stats.gpuMs);
            // With the candidate pairs: only their objects, each queried where its box meets
            // its partners' (the broadphase's form); never more left than without.
            const double without = stats.counter("pcs_objects");
            const std::vector<ObjectPair> pairs = scene.overlappingPairs();
            ASSERT_TRUE(d->beginObjectPcs(scene, {}, pairs));
            ASSERT_TRUE(d->endObjectPcs(in, stats));
            for (const ObjectPair& c : colliding) {
                EXPECT_TRUE(in[c.a]) << c.a << " of " << c.a << "-" << c.b << " (with pairs)";
                EXPECT_TRUE(in[c.b]) << c.b << " of " << c.a << "-" << c.b << " (with pairs)";
            }
            EXPECT_FALSE(in[far]);
            EXPECT_LE(stats.counter("pcs_objects"), without);
            std::printf("[ cullide ]   with the %zu candidate pairs: %g of %g left\n", pairs.size(),
                        stats.counter("pcs_objects"), stats.counter("pcs_objects_in"));
        }
    }
    // End without a begin: an error, not a stale answer.
    auto d = makeCullide();
    std::vector<std::uint8_t> in;
    DetectorStats stats;
    EXPECT_FALSE(d->endObjectPcs(in, stats));
}

// Two unit cubes 0.05 apart along x: with no fattening each is fully visible from its far
// side and both leave the object PCS; grown by 0.03 each they overlap by 0.01 and both stay.
TEST_F(CullideDetectorTest, ObjectPcsHonoursTheFattening) {
    Scene scene;
    const MeshId box = scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.5f))));
    scene.addObject(box, Pose{Vec3(0.0f)});
    scene.addObject(box, Pose{Vec3(1.05f, 0.2f, -0.1f)});
    auto d = makeCullide(settings("compute", 64));
    std::vector<std::uint8_t> in;
    DetectorStats stats;
    ASSERT_TRUE(d->beginObjectPcs(scene));
    ASSERT_TRUE(d->endObjectPcs(in, stats));
    EXPECT_FALSE(in[0]);
    EXPECT_FALSE(in[1]);
    const std::vector<float> grow = {0.03f, 0.03f};
    ASSERT_TRUE(d->beginObjectPcs(scene, grow));
    ASSERT_TRUE(d->endObjectPcs(in, stats));
    EXPECT_TRUE(in[0]);
    EXPECT_TRUE(in[1]);
    // A non-finite pose: skipped with a warning, never in the PCS.
    scene.setPose(1, Pose{Vec3(NAN, 0.0f, 0.0f)});
    ASSERT_TRUE(d->beginObjectPcs(scene, grow));
    ASSERT_TRUE(d->endObjectPcs(in, stats));
    EXPECT_FALSE(in[1]);
    EXPECT_EQ(stats.warnings.size(), 1u);
}


// An open n x n grid sheet over [-0.5, 0.5]^2 (y = 0), its half x > 0 folded back over the
// other half along x = 0, the flap waving across the base (amplitude growing away from the
// crease): the folded flap passes through the base along several lines. Cloth-like: open,
// one layer, intersecting itself only.
Mesh foldedSheet(int n) {
    std::vector<Vec3> v;
    std::vector<UVec3> t;
    for (int j = 0; j <= n; ++j)
        for (int i = 0; i <= n; ++i) {
            float x = -0.5f + float(i) / float(n), z = -0.5f + float(j) / float(n), y = 0.0f;
            if (x > 0.0f) {
                y = 0.6f * x * std::sin(3.0f * std::numbers::pi_v<float> * z + 0.4f) + 0.02f * x;
                x = -x;
            }
            v.push_back(Vec3(x, y, z));
        }
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            const auto a = std::uint32_t(j * (n + 1) + i);
            t.push_back(UVec3(a, a + std::uint32_t(n) + 1, a + 1));
            t.push_back(UVec3(a + 1, a + std::uint32_t(n) + 1, a + std::uint32_t(n) + 2));
        }
    auto m = Mesh::create("folded sheet", v, t);
    EXPECT_TRUE(m.has_value());
    return std::move(*m);
}

// Self-intersections (Boldt & Meyer section 4, Figure 3): every non-adjacent self-
// intersecting triangle pair of the exact reference is found, none invented, and only with
// selfCollision; most triangles leave the PCS before the exact test.
struct SelfCase {
    const char* name;
    int resolution;
    const char* method;
};

class CullideSelfTest : public CullideDetectorTest, public ::testing::WithParamInterface<SelfCase> {};

TEST_P(CullideSelfTest, FoldedSheetAndPushedBunny) {
    const SelfCase& c = GetParam();
    Scene scene;
    // The sheet as it is (a static mesh), the bunny deformed through setVertices: the top of
    // the bunny (ears and head) pushed down into its body and sideways.
    scene.addObject(scene.addMesh(std::make_shared<Mesh>(foldedSheet(24))));
    const ObjectId bunny = scene.addObject(scene.addMesh(bunnyMesh()), Pose{Vec3(3.0f, 0.0f, 0.0f)});
    const Aabb bounds = bunnyMesh()->localBounds();
    const float top = bounds.min.y + 0.6f * bounds.extent().y;
    std::vector<Vec3> pushed;
    for (const Vec3& p : bunnyMesh()->vertices())
        pushed.push_back(p.y > top ? p + Vec3(0.08f, -0.25f * bounds.extent().y, 0.03f) : p);
    scene.setVertices(bunny, pushed);
    const std::vector<ObjectPair> candidates = {{0, 0}, {bunny, bunny}};
    const auto refSheet = reference(scene, 0, 0), refBunny = reference(scene, bunny, bunny);
    ASSERT_GT(refSheet.size(), 20u);
    ASSERT_GT(refBunny.size(), 20u);
    CullideSettings s = settings(c.method, c.resolution);
    auto off = makeCullide(s, false);
    DetectionOutput out;
    ASSERT_TRUE(off->detect(scene, candidates, out));
    EXPECT_TRUE(out.pairs.empty()) << "self pairs only with selfCollision";
    auto on = makeCullide(s, true);
    ASSERT_TRUE(on->detect(scene, candidates, out));
    ASSERT_EQ(out.pairs.size(), 2u);
    EXPECT_EQ(out.pairs[0].pair, (ObjectPair{0, 0}));
    EXPECT_EQ(out.pairs[0].triangles, refSheet);
    EXPECT_EQ(out.pairs[1].pair, (ObjectPair{bunny, bunny}));
    EXPECT_EQ(out.pairs[1].triangles, refBunny);
    for (const PairResult& r : out.pairs) checkWellFormed(r);
    const double in = out.stats.counter("self_triangles_in"), left = out.stats.counter("self_triangles");
    std::printf("[ cullide ] self, %s at %d px: sheet %zu / bunny %zu self pairs (reference %zu / %zu); triangles %g -> "
                "%g, tri-tri tests %g, overflowing pixels %g, gpu %.1f ms\n",
                c.method, c.resolution, out.pairs[0].triangles.size(), out.pairs[1].triangles.size(), refSheet.size(),
                refBunny.size(), in, left, out.stats.counter("tri_tri_tests"),
                out.stats.counter("self_overflow_pixels"), out.stats.gpuMs);
    EXPECT_EQ(in, double(scene.objectMesh(0).triangleCount() + scene.objectMesh(bunny).triangleCount()));
    EXPECT_LT(left, 0.5 * in) << "most triangles are fully visible with respect to their non-neighbours";
}

INSTANTIATE_TEST_SUITE_P(Scenes, CullideSelfTest,
                         ::testing::Values(SelfCase{"compute_256", 256, "compute"}, SelfCase{"compute_64", 64, "compute"},
                                           SelfCase{"queries_128", 128, "queries"}),
                         [](const ::testing::TestParamInfo<SelfCase>& p) { return std::string(p.param.name); });

// The ground bug (docs/detectors/cullide.md): five bunnies side by side, sunk 1 cm into a
// 20 x 1 x 20 m box whose triangles are far larger than the views. Every colliding pair of the
// reference must survive, at every resolution and with 1 or 3 axes (before the fix the triangle
// level kept 4 of 5 pairs at 128 px and none at 512 px).
Scene groundScene(int bunnies, float sink) {
    Scene scene;
    const MeshId ground = scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(10.0f, 0.5f, 10.0f))));
    scene.addObject(ground, Pose{Vec3(0.0f, -0.5f, 0.0f)});
    auto bunny = bunnyMesh();
    const MeshId b = scene.addMesh(bunny);
    for (int i = 0; i < bunnies; ++i) {
        const Vec3 at(1.3f * float(i % 3) - 1.3f, -bunny->localBounds().min.y - sink, 1.3f * float(i / 3));
        scene.addObject(b, Pose{at});
    }
    return scene;
}

TEST_F(CullideDetectorTest, BunniesSunkIntoALargeBoxAreAllFound) {
    const Scene scene = groundScene(5, 0.01f);
    const std::vector<ObjectPair> candidates = scene.overlappingPairs();
    ASSERT_EQ(candidates.size(), 5u);
    for (int axes : {1, 3})
        for (int resolution : {32, 128, 512}) {
            SCOPED_TRACE(::testing::Message() << "axes " << axes << ", resolution " << resolution);
            CullideSettings s = settings("compute", resolution);
            s.axes = axes;
            auto d = makeCullide(s);
            DetectionOutput out;
            ASSERT_TRUE(d->detect(scene, candidates, out));
            std::size_t colliding = 0;
            expectExact(scene, candidates, out, &colliding);
            EXPECT_EQ(colliding, 5u);
            EXPECT_EQ(out.stats.counter("cut_levels"), 0.0);
            EXPECT_TRUE(out.stats.warnings.empty());
            // It still prunes: the ground's far faces and most of the bunnies leave the PCS.
            EXPECT_LT(out.stats.counter("pcs_triangles"), 0.75 * out.stats.counter("pcs_triangles_in"));
            std::printf("[ cullide ] ground, %d px, %d axes: triangles %g -> %g, splat threads %g\n", resolution, axes,
                        out.stats.counter("pcs_triangles_in"), out.stats.counter("pcs_triangles"),
                        out.stats.counter("splat_threads"));
        }
    // The other paths at 512 px: axis after axis, the object level and cluster boxes, queries,
    // no cluster pass.
    for (int variant = 0; variant < 4; ++variant) {
        SCOPED_TRACE(::testing::Message() << "variant " << variant);
        CullideSettings s = settings(variant == 2 ? "queries" : "compute", 512);
        s.viewsAtOnce = variant != 0;
        s.objectLevel = s.clusterBoxes = variant == 1;
        s.clusterPass = variant != 3;
        auto d = makeCullide(s);
        DetectionOutput out;
        ASSERT_TRUE(d->detect(scene, candidates, out));
        std::size_t colliding = 0;
        expectExact(scene, candidates, out, &colliding);
        EXPECT_EQ(colliding, 5u);
        EXPECT_EQ(out.stats.counter("cut_levels"), 0.0);
    }
}

// The self level's thread per triangle (no split): a 1 m quad at 512 px covers 131K pixels per
// triangle, more than one invocation's loops may run on llvmpipe (65535). Its fragments would be
// cut short and the small triangle piercing its far corner pruned; instead the level keeps every
// triangle (cut_levels, with a warning) and the exact test finds the reference's pairs.
TEST_F(CullideDetectorTest, SelfLevelWithATriangleTooLargeKeepsEverything) {
    std::vector<Vec3> v = {{0.0f, 0.0f, 0.0f},     {1.0f, 0.0f, 0.0f},    {1.0f, 0.0f, 1.0f},
                           {0.0f, 0.0f, 1.0f},     {0.9f, -0.05f, 0.93f}, {0.95f, 0.05f, 0.93f},
                           {0.9f, 0.05f, 0.97f}};
    std::vector<UVec3> t = {{0, 1, 2}, {0, 2, 3}, {4, 5, 6}};
    auto m = Mesh::create("quad pierced at its corner", std::move(v), std::move(t));
    ASSERT_TRUE(m.has_value()) << m.error().message;
    Scene scene;
    scene.addObject(scene.addMesh(std::make_shared<Mesh>(std::move(*m))));
    const std::vector<ObjectPair> candidates = {{0, 0}};
    const auto ref = reference(scene, 0, 0);
    ASSERT_FALSE(ref.empty());
    auto d = makeCullide(settings("compute", 512), true);
    DetectionOutput out;
    ASSERT_TRUE(d->detect(scene, candidates, out));
    ASSERT_EQ(out.pairs.size(), 1u);
    EXPECT_EQ(out.pairs[0].triangles, ref);
    EXPECT_EQ(out.stats.counter("cut_levels"), 1.0);
    EXPECT_EQ(out.stats.counter("self_triangles"), 3.0);
    ASSERT_EQ(out.stats.warnings.size(), 1u);
    EXPECT_NE(out.stats.warnings[0].find("self level kept every member"), std::string::npos) << out.stats.warnings[0];
}

}  // namespace
}  // namespace isc
