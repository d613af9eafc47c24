// The "peel" detector (papers/003) against the exact CPU reference: precision exactly 1,
// object and triangle-pair recall measured on sampled close poses, both compactions,
// several pairs in one call, self-collision, open meshes, bad input.
#include "isc/detectors/PeelDetector.h"
#include "isc/geometry/PoseSampler.h"
#include "isc/geometry/Reference.h"
#include "isc/mesh/MeshIo.h"
#include "isc/mesh/Shapes.h"

#include "GlTest.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <string>

namespace isc {
namespace {

std::unique_ptr<Detector> makePeel(const PeelSettings& s) {
    auto d = createPeelDetector({}, s);
    EXPECT_TRUE(d.has_value()) << (d ? "" : d.error().message);
    return d ? std::move(*d) : nullptr;
}

// Settings of the image passes (collision rays on: the tests of rays, tiles and raster); the
// defaults (rays auto = off without self-collision) are PeelSettings{}.
PeelSettings settings(int resolution, int axes, std::string compaction = "atomic", std::string sampling = "auto",
                      std::string rays = "on") {
    PeelSettings s;
    s.resolution = resolution;
    s.axes = axes;
    s.compaction = std::move(compaction);
    s.sampling = std::move(sampling);
    if (s.sampling == "auto" || s.sampling == "scene") s.rays = std::move(rays);
    return s;
}

std::vector<TrianglePair> reference(const Scene& scene, ObjectId a, ObjectId b) {
    geometry::PosedMesh pa(scene.objectMesh(a)), pb(scene.objectMesh(b));
    pa.update(scene.pose(a), scene.isDeformed(a) ? scene.localVertices(a) : std::span<const Vec3>{});
    pb.update(scene.pose(b), scene.isDeformed(b) ? scene.localVertices(b) : std::span<const Vec3>{});
    std::vector<TrianglePair> pairs;
    if (a == b)
        geometry::intersectSelf(pa, pairs);
    else
        geometry::intersect(pa, pb, pairs);
    return pairs;
}

// Every candidate's triangle pairs in `out` are the reference's (none where the reference has
// none); returns the reference's triangle pairs over all candidates. `what` names the call.
std::size_t expectReferencePairs(const Scene& scene, std::span<const ObjectPair> candidates,
                                 const DetectionOutput& out, const std::string& what) {
    std::map<ObjectPair, const PairResult*> found;
    for (const PairResult& r : out.pairs) found[r.pair] = &r;
    std::size_t total = 0;
    for (const ObjectPair& c : candidates) {
        const auto ref = reference(scene, c.a, c.b);
        total += ref.size();
        auto it = found.find(c);
        EXPECT_EQ(it == found.end() ? std::vector<TrianglePair>{} : it->second->triangles, ref)
            << what << ", pair (" << c.a << ", " << c.b << ")";
    }
    return total;
}

// `got` is `want` bit for bit: the same pairs, triangle pairs and segments (a path behind a test
// hook against the default one).
void expectSameOutput(const DetectionOutput& got, const DetectionOutput& want, int call) {
    ASSERT_EQ(got.pairs.size(), want.pairs.size()) << "call " << call;
    for (std::size_t i = 0; i < want.pairs.size(); ++i) {
        EXPECT_EQ(got.pairs[i].pair, want.pairs[i].pair);
        EXPECT_EQ(got.pairs[i].triangles, want.pairs[i].triangles) << "call " << call;
        ASSERT_EQ(got.pairs[i].segments.size(), want.pairs[i].segments.size());
        EXPECT_EQ(0, std::memcmp(got.pairs[i].segments.data(), want.pairs[i].segments.data(),
                                 want.pairs[i].segments.size() * sizeof(Segment)))
            << "call " << call << ": segments differ in their bits";
    }
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
    double objectRecall() const { return refObjects ? double(foundObjects) / double(refObjects) : 1.0; }
    double triangleRecall() const { return refTriangles ? double(foundTriangles) / double(refTriangles) : 1.0; }
};

void checkWellFormed(const PairResult& r) {
    EXPECT_TRUE(std::is_sorted(r.triangles.begin(), r.triangles.end()));
    EXPECT_EQ(std::adjacent_find(r.triangles.begin(), r.triangles.end()), r.triangles.end());
    EXPECT_EQ(r.segments.size(), r.triangles.size());
}

class PeelDetectorTest : public GlTest {};

TEST_F(PeelDetectorTest, RejectsBadSettingsWithAMessage) {
    for (auto [res, axes, compaction, layers, word] :
         {std::tuple{100, 1, "atomic", 32, "power of two"}, std::tuple{256, 2, "atomic", 32, "axes"},
          std::tuple{256, 1, "magic", 32, "compaction"}, std::tuple{256, 1, "atomic", 1, "maxLayers"},
          std::tuple{256, 1, "atomic", 32, "sampling"}, std::tuple{256, 1, "atomic", 32, "rays"},
          std::tuple{256, 1, "atomic", 32, "walk"}, std::tuple{256, 1, "atomic", 32, "gpuTimers"},
          std::tuple{256, 1, "atomic", 32, "refit"}}) {
        PeelSettings s = settings(res, axes, compaction);
        s.maxLayers = layers;
        if (std::string_view(word) == "sampling") s.sampling = "everything";
        if (std::string_view(word) == "rays") s.rays = "sometimes";
        if (std::string_view(word) == "walk") s.walk = "sideways";
        if (std::string_view(word) == "gpuTimers") s.gpuTimers = "sometimes";
        if (std::string_view(word) == "refit") s.refit = "elsewhere";
        auto d = createPeelDetector({}, s);
        ASSERT_FALSE(d.has_value());
        EXPECT_NE(d.error().message.find(word), std::string::npos) << d.error().message;
    }
}

TEST_F(PeelDetectorTest, DepthPeelingRejectsOpenMeshes) {
    PeelSettings s = settings(64, 1, "atomic", "peeling");
    s.openMeshes = true;
    auto d = createPeelDetector({}, s);
    ASSERT_FALSE(d.has_value());
    EXPECT_NE(d.error().message.find("closed meshes"), std::string::npos) << d.error().message;
}

TEST_F(PeelDetectorTest, UnknownObjectIsAnError) {
    Scene scene;
    const MeshId box = scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.5f))));
    scene.addObject(box);
    auto peel = makePeel(settings(64, 1));
    DetectionOutput out;
    const std::vector<ObjectPair> candidates = {{0, 7}};
    auto r = peel->detect(scene, candidates, out);
    ASSERT_FALSE(r.has_value());
    EXPECT_NE(r.error().message.find("(0, 7)"), std::string::npos);
}

// Two unit cubes, the second turned and pushed into the first: every intersecting triangle
// pair is big against a 64-pixel tile, so peel must find exactly the reference's set.
TEST_F(PeelDetectorTest, TwoCubesGiveExactlyTheReferencePairs) {
    Scene scene;
    const MeshId box = scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.5f))));
    scene.addObject(box, Pose{Vec3(0.0f)});
    scene.addObject(box, Pose{Vec3(0.7f, 0.3f, 0.1f), glm::angleAxis(0.4f, glm::normalize(Vec3(1, 2, 3)))});
    scene.addObject(box, Pose{Vec3(3.0f, 0.0f, 0.0f)});  // touches nothing
    const std::vector<ObjectPair> candidates = {{0, 1}, {0, 2}, {1, 2}};
    const auto ref = reference(scene, 0, 1);
    ASSERT_FALSE(ref.empty());
    for (int axes : {1, 3}) {
        auto peel = makePeel(settings(64, axes));
        DetectionOutput out;
        ASSERT_TRUE(peel->detect(scene, candidates, out));
        ASSERT_EQ(out.pairs.size(), 1u);
        EXPECT_EQ(out.pairs[0].pair, (ObjectPair{0, 1}));
        EXPECT_EQ(out.pairs[0].triangles, ref);
        checkWellFormed(out.pairs[0]);
        EXPECT_GT(out.stats.counter("collision_rays"), 0.0);
        EXPECT_EQ(out.stats.counter("positive_tests"), double(ref.size()));
        EXPECT_GE(out.stats.counter("tri_tri_tests"), out.stats.counter("positive_tests"));
        // (0,2), (1,2): boxes apart, so one view per axis over the (0,1) intersection box;
        // a thin intersection slab may take a few tiles, at most four along its long side.
        EXPECT_EQ(out.stats.counter("views"), double(axes));
        EXPECT_GE(out.stats.counter("tiles"), double(axes));
        EXPECT_LE(out.stats.counter("tiles"), double(axes * 4));
        EXPECT_EQ(out.stats.counter("raster_passes"), 1.0);
        // GPU time comes from timer queries over part of the call: positive, within the wall time.
        EXPECT_GT(out.stats.gpuMs, 0.0);
        EXPECT_LE(out.stats.gpuMs, out.stats.totalMs);
        std::printf("[ peel ] two cubes, %d axes: gpu %.3f ms, read-back %.3f ms, cpu %.3f ms, total %.3f ms\n", axes,
                    out.stats.gpuMs, out.stats.readbackMs, out.stats.cpuMs, out.stats.totalMs);
    }
}

// The ray test by hand: two axis-aligned unit cubes overlapping in the box x [0.1, 0.5],
// y [-0.2, 0.5], z [-0.3, 0.5]. At 64 pixels across a cube (pixels of 1/64) the collision rays
// of each axis are the pixels whose centre lies in the overlap's footprint across that axis:
// 0.7 x 0.8, 0.4 x 0.8 and 0.4 x 0.7 square units, 2294 + 1311 + 1147 = 4752 rays, give or take
// the pixels the footprints' borders cut (at most 2 x 64 x (0.7 + 0.8 + 0.4 + 0.8 + 0.4 + 0.7)
// = 486 of them). Depth proximity off: only the inside-both rule marks rays.
TEST_F(PeelDetectorTest, CollisionRaysCoverTheOverlapFootprint) {
    Scene scene;
    const MeshId box = scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.5f))));
    scene.addObject(box, Pose{Vec3(0.0f)});
    scene.addObject(box, Pose{Vec3(0.6f, 0.3f, 0.2f)});
    PeelSettings s = settings(64, 3, "auto", "scene");
    s.depthProximity = false;
    auto peel = makePeel(s);
    DetectionOutput out;
    const std::vector<ObjectPair> candidates = {{0, 1}};
    ASSERT_TRUE(peel->detect(scene, candidates, out));
    const double rays = out.stats.counter("collision_rays");
    std::printf("[ peel ] two aligned cubes: %.0f collision rays (by hand 4752 +- 486)\n", rays);
    EXPECT_GE(rays, 4752.0 - 486.0);
    EXPECT_LE(rays, 4752.0 + 486.0);
    ASSERT_EQ(out.pairs.size(), 1u);
    EXPECT_EQ(out.pairs[0].triangles, reference(scene, 0, 1));
}

// conservativeRaster uses GL_NV_conservative_raster where the driver has it (NVIDIA), and
// says so (counter 0 and a warning) where it does not (llvmpipe); answers stay exact.
TEST_F(PeelDetectorTest, ConservativeRasterIsUsedOrReported) {
    Scene scene;
    const MeshId box = scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.5f))));
    scene.addObject(box, Pose{Vec3(0.0f)});
    scene.addObject(box, Pose{Vec3(0.7f, 0.3f, 0.1f), glm::angleAxis(0.4f, glm::normalize(Vec3(1, 2, 3)))});
    const std::vector<ObjectPair> candidates = {{0, 1}};
    PeelSettings s = settings(64, 3);
    s.conservativeRaster = true;
    auto peel = makePeel(s);
    DetectionOutput out;
    ASSERT_TRUE(peel->detect(scene, candidates, out));
    const bool used = out.stats.counter("conservative_raster") == 1.0;
    EXPECT_EQ(used, out.stats.warnings.empty());
    ASSERT_EQ(out.pairs.size(), 1u);
    for (const TrianglePair& p : out.pairs[0].triangles)
        EXPECT_TRUE(std::ranges::binary_search(reference(scene, 0, 1), p));
}

// A ball in a torus's hole: the boxes overlap, the surfaces are 0.15 apart. With the cull
// nothing is drawn (no triangle within two pixels of the other object); without it every
// triangle is drawn and rays through the tube, the ball and the tube again must still not be
// collision rays (the ray rule, not the cull, must say so; depth proximity off).
TEST_F(PeelDetectorTest, SeparatedButOverlappingBoxesGiveNothing) {
    Scene scene;
    const MeshId torus = scene.addMesh(std::make_shared<Mesh>(shapes::torus(0.5f, 0.15f)));
    const MeshId ball = scene.addMesh(std::make_shared<Mesh>(shapes::uvSphere(0.2f)));
    scene.addObject(torus);
    scene.addObject(ball, Pose{Vec3(0.03f, 0.01f, -0.02f)});  // in the hole, off its centre
    const std::vector<ObjectPair> candidates = {{0, 1}};
    for (bool cull : {true, false}) {
        PeelSettings s = settings(128, 3);
        s.cull = cull;
        s.depthProximity = false;
        auto peel = makePeel(s);
        DetectionOutput out;
        ASSERT_TRUE(peel->detect(scene, candidates, out));
        EXPECT_TRUE(out.pairs.empty());
        EXPECT_EQ(out.stats.counter("collision_rays"), 0.0) << "cull " << cull;
        EXPECT_EQ(out.stats.counter("pairs_culled"), cull ? 1.0 : 0.0);
        if (!cull) {
            EXPECT_GT(out.stats.counter("fragments"), 1000.0);
        }
    }
}

struct RecallCase {
    const char* name;
    const char* a;
    const char* b;
    int resolution;  // 0: auto
    int axes;        // 0: auto
    const char* sampling = "auto";
    const char* rays = "on";  // "auto": the defaults (no rays)
};

std::shared_ptr<Mesh> namedMesh(const std::string& name) {
    if (name == "bunny") {
        auto b = loadBunny(0.1f);
        EXPECT_TRUE(b.has_value()) << (b ? "" : b.error().message);
        return std::make_shared<Mesh>(std::move(*b));
    }
    if (name == "torus") return std::make_shared<Mesh>(shapes::torus(0.5f, 0.15f, 32, 16));
    return std::make_shared<Mesh>(shapes::box(Vec3(0.3f, 0.2f, 0.4f)));
}

// A ground box (object 0) and six bunnies (objects 1-6) leaning into each other and into it.
Scene sixBunniesOnABox() {
    Scene scene;
    const MeshId ib = scene.addMesh(namedMesh("bunny"));
    scene.addObject(scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(2.0f, 0.1f, 2.0f)))),
                    Pose{Vec3(0.5f, -0.15f, 0.2f)});
    for (int i = 0; i < 6; ++i)
        scene.addObject(ib, Pose{Vec3(0.55f * float(i % 3), 0.45f * float(i / 3), 0.05f * float(i)),
                                 glm::angleAxis(0.7f * float(i), glm::normalize(Vec3(1, float(i), 2)))});
    return scene;
}

class PeelRecallTest : public PeelDetectorTest, public ::testing::WithParamInterface<RecallCase> {};

// Poses per case: 16 sampled close poses (seed 11), B pulled 40% closer to A so that nearly
// all of them interpenetrate (12-16 colliding poses and 700-3000 triangle pairs per case).
constexpr int kRecallPoses = 16;

// The documented figures (docs/detectors/peel.md, "Accuracy": precision 1, object recall 1 and
// triangle-pair recall 1 for every row below on the accuracy suite) on these poses: every
// reported pair is exact, no colliding pose and no intersecting triangle pair is missed.
TEST_P(PeelRecallTest, MatchesTheReference) {
    const RecallCase& c = GetParam();
    auto ma = namedMesh(c.a), mb = namedMesh(c.b);
    Scene scene;
    const MeshId ia = scene.addMesh(ma), ib = scene.addMesh(mb);
    const ObjectId oa = scene.addObject(ia), ob = scene.addObject(ib);
    auto peel = makePeel(settings(c.resolution, c.axes, "auto", c.sampling, c.rays));
    Tally tally;
    const std::vector<ObjectPair> candidates = {{oa, ob}};
    for (auto [pa, pb] : geometry::sampleClosePoses(*ma, *mb, kRecallPoses, 11)) {
        pb.position = pa.position + 0.6f * (pb.position - pa.position);
        scene.setPose(oa, pa);
        scene.setPose(ob, pb);
        DetectionOutput out;
        ASSERT_TRUE(peel->detect(scene, candidates, out));
        ASSERT_LE(out.pairs.size(), 1u);
        if (!out.pairs.empty()) checkWellFormed(out.pairs[0]);
        tally.add(reference(scene, oa, ob), out.pairs.empty() ? nullptr : &out.pairs[0]);
    }
    std::printf("[ peel ] %s: %d poses, %zu colliding, object recall %.4f, triangle-pair recall %.4f (%zu / %zu), "
                "reported %zu\n",
                c.name, kRecallPoses, tally.refObjects, tally.objectRecall(), tally.triangleRecall(),
                tally.foundTriangles, tally.refTriangles, tally.reported);
    EXPECT_EQ(tally.reportedExact, tally.reported) << "precision must be exactly 1";
    EXPECT_EQ(tally.falseObjects, 0u);
    EXPECT_GE(tally.refObjects, std::size_t(kRecallPoses * 3 / 4)) << "the poses should mostly collide";
    EXPECT_EQ(tally.objectRecall(), 1.0);
    EXPECT_EQ(tally.triangleRecall(), 1.0);
}

INSTANTIATE_TEST_SUITE_P(
    Meshes, PeelRecallTest,
    ::testing::Values(RecallCase{"defaults_bunny_bunny", "bunny", "bunny", 0, 0, "auto", "auto"},
                      RecallCase{"defaults_torus_torus", "torus", "torus", 0, 0, "auto", "auto"},
                      RecallCase{"defaults_box_bunny", "box", "bunny", 0, 0, "auto", "auto"},
                      RecallCase{"rays_bunny_bunny", "bunny", "bunny", 0, 0},
                      RecallCase{"rays_torus_torus", "torus", "torus", 0, 0},
                      RecallCase{"rays_box_bunny", "box", "bunny", 0, 0},
                      RecallCase{"bunny_bunny_128_1axis", "bunny", "bunny", 128, 1},
                      RecallCase{"torus_torus_128_1axis", "torus", "torus", 128, 1},
                      RecallCase{"pairs_bunny_bunny_128_1axis", "bunny", "bunny", 128, 1, "pairs"},
                      RecallCase{"pairs_box_bunny_128_3axes", "box", "bunny", 128, 3, "pairs"},
                      RecallCase{"peeling_bunny_bunny_128_1axis", "bunny", "bunny", 128, 1, "peeling"},
                      RecallCase{"peeling_torus_torus_64_3axes", "torus", "torus", 64, 3, "peeling"},
                      RecallCase{"peeling_box_bunny_64_3axes", "box", "bunny", 64, 3, "peeling"}),
    [](const ::testing::TestParamInfo<RecallCase>& p) { return std::string(p.param.name); });

// Several bodies, every overlapping pair in one call: scene sampling (one view per axis, one
// raster pass, 3-D cull) and pair tiles (batched tiles) with both compactions find every
// triangle pair of the reference (15 candidate pairs, 2012 triangle pairs), precision 1; the
// two compactions keep the same number of records.
TEST_F(PeelDetectorTest, ManyPairsInOneCallAndAllModesAgree) {
    auto bunny = namedMesh("bunny");
    Scene scene;
    const MeshId ib = scene.addMesh(bunny);
    for (int i = 0; i < 6; ++i)
        scene.addObject(ib, Pose{Vec3(0.55f * float(i % 3), 0.45f * float(i / 3), 0.05f * float(i)),
                                 glm::angleAxis(0.7f * float(i), glm::normalize(Vec3(1, float(i), 2)))});
    const std::vector<ObjectPair> candidates = scene.overlappingPairs();
    ASSERT_GE(candidates.size(), 5u);
    DetectionOutput atomic, packing, sceneSampled, direct;
    auto a = makePeel(settings(128, 3, "atomic", "pairs"));
    auto p = makePeel(settings(128, 3, "packing", "pairs"));
    auto sc = makePeel(settings(0, 0, "auto", "auto"));  // the defaults with collision rays
    auto d = makePeel(PeelSettings{});                   // the defaults: no rays
    ASSERT_TRUE(d->detect(scene, candidates, direct));
    ASSERT_TRUE(d->detect(scene, candidates, direct));
    ASSERT_TRUE(a->detect(scene, candidates, atomic));
    // The first call may redo a batch once to grow the record buffer; the second runs one
    // raster pass per tile size (sizes 16..128: at most 4), far fewer than tiles.
    ASSERT_TRUE(a->detect(scene, candidates, atomic));
    ASSERT_TRUE(p->detect(scene, candidates, packing));
    ASSERT_TRUE(sc->detect(scene, candidates, sceneSampled));
    ASSERT_TRUE(sc->detect(scene, candidates, sceneSampled));  // buffers grown: no retry
    EXPECT_EQ(sceneSampled.stats.counter("capacity_retries"), 0.0);
    ASSERT_EQ(atomic.pairs.size(), packing.pairs.size());
    EXPECT_GE(atomic.pairs.size(), 2u);
    EXPECT_LE(atomic.stats.counter("raster_passes"), 4.0);
    EXPECT_GE(atomic.stats.counter("tiles"), 15.0);
    EXPECT_EQ(atomic.stats.counter("triangles_read_back"), packing.stats.counter("triangles_read_back"));
    // Scene sampling: one cluster, one view per axis (auto: 3 axes), one raster pass per tile
    // size (the three views' sides round to at most two powers of two); each kept triangle is
    // drawn once per tile it reaches into (the pair tiles draw every triangle near a pair, once
    // per pair and axis).
    EXPECT_EQ(sceneSampled.stats.counter("axes"), 3.0);
    EXPECT_EQ(sceneSampled.stats.counter("views"), 3.0);
    EXPECT_LE(sceneSampled.stats.counter("raster_passes"), 2.0);
    EXPECT_EQ(sceneSampled.stats.counter("triangles_in"), 6.0 * double(bunny->triangleCount()));
    EXPECT_LT(sceneSampled.stats.counter("triangles_kept"), 0.5 * sceneSampled.stats.counter("triangles_in"));
    EXPECT_LT(sceneSampled.stats.counter("triangles_rasterized"), atomic.stats.counter("triangles_rasterized"));
    EXPECT_LE(sceneSampled.stats.counter("filtered_pairs"), sceneSampled.stats.counter("screen_pairs"));
    // Pairs the cull left nothing of are counted; none of them collides.
    std::size_t colliding = 0;
    for (const ObjectPair& c : candidates) colliding += reference(scene, c.a, c.b).empty() ? 0 : 1;
    EXPECT_GT(sceneSampled.stats.counter("pairs_culled"), 0.0);
    EXPECT_LE(sceneSampled.stats.counter("pairs_culled"), double(candidates.size() - colliding));
    // Without rays: no raster pass, the cull's cluster pairs (walked with the float tolerance,
    // so fewer than with the two-pixel margin) straight to the filter; each triangle pair is
    // met once (tests = filtered pairs: no duplicates to merge), and more pairs are culled.
    EXPECT_EQ(direct.stats.counter("rays"), 0.0);
    EXPECT_EQ(direct.stats.counter("raster_passes"), 0.0);
    EXPECT_EQ(direct.stats.counter("capacity_retries"), 0.0);
    EXPECT_GT(direct.stats.counter("cluster_pairs"), 0.0);
    EXPECT_LT(direct.stats.counter("cluster_pairs"), sceneSampled.stats.counter("cluster_pairs"));
    EXPECT_LE(direct.stats.counter("filtered_pairs"), direct.stats.counter("screen_pairs"));
    EXPECT_EQ(direct.stats.counter("tri_tri_tests"), direct.stats.counter("filtered_pairs"));
    EXPECT_GE(direct.stats.counter("pairs_culled"), sceneSampled.stats.counter("pairs_culled"));
    EXPECT_LE(direct.stats.counter("pairs_culled"), double(candidates.size() - colliding));
    for (const DetectionOutput* o : {&atomic, &packing, &sceneSampled, &direct}) {
        Tally tally;
        std::map<ObjectPair, const PairResult*> found;
        for (const PairResult& r : o->pairs) found[r.pair] = &r;
        for (const ObjectPair& c : candidates) {
            auto it = found.find(c);
            tally.add(reference(scene, c.a, c.b), it == found.end() ? nullptr : it->second);
        }
        std::printf("[ peel ] 6 bunnies, %zu candidate pairs, %s: object recall %.4f, triangle-pair recall %.4f "
                    "(%zu / %zu)\n",
                    candidates.size(),
                    o == &atomic    ? "pairs, atomic"
                    : o == &packing ? "pairs, packing"
                    : o == &direct  ? "scene, no rays"
                                    : "scene",
                    tally.objectRecall(), tally.triangleRecall(), tally.foundTriangles, tally.refTriangles);
        EXPECT_EQ(tally.reportedExact, tally.reported);
        EXPECT_EQ(tally.falseObjects, 0u);
        EXPECT_EQ(tally.objectRecall(), 1.0);
        EXPECT_EQ(tally.triangleRecall(), 1.0);
    }
}

// One detector over calls whose poses change (as in a simulation): every call gives exactly
// the reference's triangle pairs, with the defaults (no rays; also with axes=1 given, which
// only the image passes use) and with collision rays. Six bunnies on a box drift and turn a
// little each call; the candidate pairs change with them.
TEST_F(PeelDetectorTest, MovingBodiesOverManyCallsMatchTheReference) {
    auto bunny = namedMesh("bunny");
    PeelSettings oneAxis;
    oneAxis.resolution = 64;
    oneAxis.axes = 1;
    for (const PeelSettings& s : {PeelSettings{}, oneAxis, settings(0, 0, "auto", "auto")}) {
        Scene scene;
        const MeshId ib = scene.addMesh(bunny);
        scene.addObject(scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(2.0f, 0.1f, 2.0f)))),
                        Pose{Vec3(0.5f, -0.15f, 0.2f)});
        for (int i = 0; i < 6; ++i)
            scene.addObject(ib, Pose{Vec3(0.55f * float(i % 3), 0.45f * float(i / 3), 0.05f * float(i)),
                                     glm::angleAxis(0.7f * float(i), glm::normalize(Vec3(1, float(i), 2)))});
        auto peel = makePeel(s);
        std::size_t total = 0;
        for (int call = 0; call < 8; ++call) {
            for (ObjectId o = 1; o < scene.objectCount(); ++o) {
                Pose p = scene.pose(o);
                p.position += Vec3(0.01f * float(o % 3) - 0.01f, -0.02f, 0.015f * float(call % 2) - 0.005f);
                p.rotation = glm::normalize(glm::angleAxis(0.05f, glm::normalize(Vec3(1, float(o), 1))) * p.rotation);
                scene.setPose(o, p);
            }
            const std::vector<ObjectPair> candidates = scene.overlappingPairs();
            DetectionOutput out;
            ASSERT_TRUE(peel->detect(scene, candidates, out));
            total += expectReferencePairs(scene, candidates, out,
                                          "call " + std::to_string(call) + ", rays " + std::string(s.rays));
        }
        EXPECT_GT(total, 1000u) << "the bodies should collide (with each other and the ground)";
    }
}

// The 3-D cull changes what is drawn, not the answer: four bunnies, scene sampling at 32
// pixels with the cull on and off give the same triangle pairs (all of the reference's), the
// cull drawing a fraction of the triangles.
TEST_F(PeelDetectorTest, CullKeepsTheAnswer) {
    auto bunny = namedMesh("bunny");
    Scene scene;
    const MeshId ib = scene.addMesh(bunny);
    for (int i = 0; i < 4; ++i)
        scene.addObject(ib, Pose{Vec3(0.6f * float(i % 2), 0.5f * float(i / 2), 0.1f * float(i)),
                                 glm::angleAxis(0.9f * float(i), glm::normalize(Vec3(2, float(i), 1)))});
    const std::vector<ObjectPair> candidates = scene.overlappingPairs();
    PeelSettings on = settings(32, 3, "auto", "scene"), off = on;
    off.cull = false;
    DetectionOutput culled, whole;
    ASSERT_TRUE(makePeel(on)->detect(scene, candidates, culled));
    ASSERT_TRUE(makePeel(off)->detect(scene, candidates, whole));
    EXPECT_EQ(whole.stats.counter("triangles_kept"), 4.0 * double(bunny->triangleCount()));
    EXPECT_LT(culled.stats.counter("triangles_kept"), 0.6 * whole.stats.counter("triangles_kept"));
    EXPECT_LT(culled.stats.counter("triangles_rasterized"), whole.stats.counter("triangles_rasterized"));
    std::size_t total = 0;
    ASSERT_EQ(culled.pairs.size(), whole.pairs.size());
    for (std::size_t i = 0; i < culled.pairs.size(); ++i) {
        EXPECT_EQ(culled.pairs[i].pair, whole.pairs[i].pair);
        EXPECT_EQ(culled.pairs[i].triangles, whole.pairs[i].triangles);
        EXPECT_EQ(culled.pairs[i].triangles, reference(scene, culled.pairs[i].pair.a, culled.pairs[i].pair.b));
        total += culled.pairs[i].triangles.size();
    }
    EXPECT_GT(total, 200u);
    std::printf("[ peel ] 4 bunnies at 32 pixels: %zu triangle pairs with the cull (%.0f of %.0f triangles kept) "
                "and without\n",
                total, culled.stats.counter("triangles_kept"), whole.stats.counter("triangles_kept"));
}

// The paper's multi-pass depth peeling (sampling "peeling", front and back at once) samples
// the same pair tiles as the fragment slots ("pairs"), so it must find the same collision
// rays and the same triangle pairs; it needs 1 + ceil(depth complexity / 2) raster passes
// per batch. With a layer cap below the depth complexity the rays over the cap are marked
// colliding (the paper's conservative rule), so nothing is lost.
TEST_F(PeelDetectorTest, DepthPeelingMatchesTheFragmentSlots) {
    auto bunny = namedMesh("bunny");
    Scene scene;
    const MeshId ib = scene.addMesh(bunny);
    for (int i = 0; i < 4; ++i)
        scene.addObject(ib, Pose{Vec3(0.55f * float(i % 2), 0.45f * float(i / 2), 0.05f * float(i)),
                                 glm::angleAxis(0.7f * float(i), glm::normalize(Vec3(1, float(i), 2)))});
    const std::vector<ObjectPair> candidates = scene.overlappingPairs();
    ASSERT_GE(candidates.size(), 3u);
    DetectionOutput slots, peeled, capped;
    auto a = makePeel(settings(64, 1, "atomic", "pairs"));
    auto b = makePeel(settings(64, 1, "atomic", "peeling"));
    PeelSettings c = settings(64, 1, "atomic", "peeling");
    c.maxLayers = 2;
    auto cap = makePeel(c);
    ASSERT_TRUE(a->detect(scene, candidates, slots));
    ASSERT_TRUE(b->detect(scene, candidates, peeled));
    ASSERT_TRUE(b->detect(scene, candidates, peeled));  // second call: record buffer already grown
    ASSERT_TRUE(cap->detect(scene, candidates, capped));
    ASSERT_GT(slots.stats.counter("collision_rays"), 0.0);
    EXPECT_EQ(peeled.stats.counter("collision_rays"), slots.stats.counter("collision_rays"));
    EXPECT_EQ(peeled.stats.counter("max_depth_complexity"), slots.stats.counter("max_depth_complexity"));
    EXPECT_EQ(peeled.stats.counter("fragments"), slots.stats.counter("fragments"));
    EXPECT_EQ(peeled.stats.counter("triangles_read_back"), slots.stats.counter("triangles_read_back"));
    const double depth = peeled.stats.counter("max_depth_complexity");
    ASSERT_GT(depth, 2.0);
    // Batches of equal-size tiles: one counting pass each, then ceil(depth / 2) peeling
    // passes for the batch holding the deepest ray.
    const double counting = peeled.stats.counter("raster_passes") - peeled.stats.counter("peeling_passes");
    EXPECT_GE(counting, 1.0);
    EXPECT_GE(peeled.stats.counter("peeling_passes"), std::ceil(depth / 2.0));
    EXPECT_LE(peeled.stats.counter("peeling_passes"), counting * std::ceil(depth / 2.0));
    // Cap 2: one pass per batch after the counting pass, rays deeper than 2 marked colliding.
    EXPECT_GT(capped.stats.counter("overflow_rays"), 0.0);
    EXPECT_EQ(capped.stats.counter("peeling_passes"),
              capped.stats.counter("raster_passes") - capped.stats.counter("peeling_passes"));
    EXPECT_GE(capped.stats.counter("collision_rays"), peeled.stats.counter("collision_rays"));
    for (const DetectionOutput* o : {&peeled, &capped}) {
        ASSERT_EQ(o->pairs.size(), slots.pairs.size());
        for (std::size_t i = 0; i < slots.pairs.size(); ++i) {
            EXPECT_EQ(o->pairs[i].pair, slots.pairs[i].pair);
            EXPECT_EQ(o->pairs[i].triangles, slots.pairs[i].triangles);
            EXPECT_EQ(o->pairs[i].triangles, reference(scene, o->pairs[i].pair.a, o->pairs[i].pair.b));
        }
    }
}

// Scene sampling of a long chain of overlapping cubes: the view is cut into a row of tiles,
// objects crossing tile borders go through the cull (the others are drawn whole), and
// every overlapping neighbour pair is found exactly, with none of the far pairs.
TEST_F(PeelDetectorTest, SceneViewCutIntoTilesFindsEveryPair) {
    Scene scene;
    const MeshId box = scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.5f))));
    const int n = 10;
    for (int i = 0; i < n; ++i)
        scene.addObject(box, Pose{Vec3(0.8f * float(i), 0.05f * float(i % 2), 0.0f),
                                  glm::angleAxis(0.3f * float(i), glm::normalize(Vec3(1, 2, 3)))});
    std::vector<ObjectPair> candidates;
    for (ObjectId a = 0; a < n; ++a)
        for (ObjectId b = a + 1; b < n; ++b) candidates.push_back({a, b});  // far pairs too: they must stay empty
    for (int axes : {1, 3}) {
        auto peel = makePeel(settings(32, axes, "atomic", "scene"));
        DetectionOutput out;
        ASSERT_TRUE(peel->detect(scene, candidates, out));
        EXPECT_EQ(out.stats.counter("views"), double(axes));
        EXPECT_GE(out.stats.counter("tiles"), double(axes + 2)) << "a row of tiles across the chain";
        std::map<ObjectPair, const PairResult*> found;
        for (const PairResult& r : out.pairs) found[r.pair] = &r;
        std::size_t colliding = 0;
        for (const ObjectPair& c : candidates) {
            const auto ref = reference(scene, c.a, c.b);
            colliding += ref.empty() ? 0 : 1;
            auto it = found.find(c);
            if (ref.empty()) {
                EXPECT_EQ(it, found.end()) << c.a << "-" << c.b;
            } else {
                ASSERT_NE(it, found.end()) << c.a << "-" << c.b;
                EXPECT_EQ(it->second->triangles, ref) << c.a << "-" << c.b;
            }
        }
        EXPECT_EQ(colliding, std::size_t(n - 1));
    }
}

// A GPU whose storage blocks are too small for the scene: the call fails with an error naming
// the limit (ISC_PEEL_LIMIT_STORAGE_BLOCK lowers the driver's GL_MAX_SHADER_STORAGE_BLOCK_SIZE
// to 64 KiB; two bunnies' kept index lists take 88 KiB), and with the driver's limit it runs.
TEST_F(PeelDetectorTest, StorageLimitTooSmallIsAClearError) {
    auto bunny = namedMesh("bunny");
    Scene scene;
    const MeshId ib = scene.addMesh(bunny);
    scene.addObject(ib);
    scene.addObject(ib, Pose{Vec3(0.3f, 0.1f, 0.0f)});
    const std::vector<ObjectPair> candidates = {{0, 1}};
    ::setenv("ISC_PEEL_LIMIT_STORAGE_BLOCK", "65536", 1);
    auto small = makePeel(PeelSettings{});
    ::unsetenv("ISC_PEEL_LIMIT_STORAGE_BLOCK");
    DetectionOutput out;
    auto r = small->detect(scene, candidates, out);
    ASSERT_FALSE(r.has_value());
    EXPECT_NE(r.error().message.find("GL_MAX_SHADER_STORAGE_BLOCK_SIZE"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("65536"), std::string::npos) << r.error().message;
    std::printf("[ peel ] %s\n", r.error().message.c_str());
    auto normal = makePeel(PeelSettings{});
    ASSERT_TRUE(normal->detect(scene, candidates, out));
    ASSERT_EQ(out.pairs.size(), 1u);
    EXPECT_EQ(out.pairs[0].triangles, reference(scene, 0, 1));
}

// One closed but self-intersecting object (two interpenetrating cubes in one mesh): found
// only with selfCollision, and then exactly the reference's self pairs.
TEST_F(PeelDetectorTest, SelfCollisionOfOneObject) {
    const Mesh cube = shapes::box(Vec3(0.5f));
    std::vector<Vec3> vertices;
    std::vector<UVec3> triangles;
    for (int k = 0; k < 2; ++k) {
        const Pose pose{Vec3(0.6f * float(k), 0.2f * float(k), 0.1f * float(k)),
                        glm::angleAxis(0.5f * float(k), glm::normalize(Vec3(1, 1, 0)))};
        const auto base = static_cast<std::uint32_t>(vertices.size());
        for (const Vec3& v : cube.vertices()) vertices.push_back(pose.apply(v));
        for (const UVec3& t : cube.triangles()) triangles.push_back(t + UVec3(base));
    }
    auto mesh = Mesh::create("two cubes", vertices, triangles);
    ASSERT_TRUE(mesh.has_value());
    ASSERT_TRUE(mesh->isClosed());
    Scene scene;
    scene.addObject(scene.addMesh(std::make_shared<Mesh>(std::move(*mesh))));
    const auto ref = reference(scene, 0, 0);
    ASSERT_FALSE(ref.empty());
    const std::vector<ObjectPair> candidates = {{0, 0}};
    DetectionOutput out;
    auto off = makePeel(settings(64, 3));
    ASSERT_TRUE(off->detect(scene, candidates, out));
    EXPECT_TRUE(out.pairs.empty());
    PeelSettings noRays = settings(64, 3);
    noRays.rays = "off";
    auto refused = createPeelDetector({.selfCollision = true}, noRays);
    ASSERT_FALSE(refused.has_value());
    EXPECT_NE(refused.error().message.find("self-collision"), std::string::npos) << refused.error().message;
    auto defaults = createPeelDetector({.selfCollision = true}, PeelSettings{});  // rays auto: on
    ASSERT_TRUE(defaults) << defaults.error().message;
    ASSERT_TRUE((*defaults)->detect(scene, candidates, out));
    ASSERT_EQ(out.pairs.size(), 1u);
    EXPECT_EQ(out.stats.counter("rays"), 1.0);
    EXPECT_EQ(out.pairs[0].triangles, ref);
    auto created = createPeelDetector({.selfCollision = true}, settings(64, 3));
    ASSERT_TRUE(created) << created.error().message;
    auto on = std::move(*created);
    ASSERT_TRUE(on->detect(scene, candidates, out));
    ASSERT_EQ(out.pairs.size(), 1u);
    EXPECT_EQ(out.pairs[0].pair, (ObjectPair{0, 0}));
    EXPECT_EQ(out.pairs[0].triangles, ref);
}

// A ground sheet (open) under a box dipping into it: returned unserved (for the caller's exact
// path) with a warning by default, found exactly with openMeshes (depth-proximity rule, §8.2).
TEST_F(PeelDetectorTest, OpenMeshesNeedTheOpenVariant) {
    std::vector<Vec3> v;
    std::vector<UVec3> t;
    const int n = 8;
    for (int j = 0; j <= n; ++j)
        for (int i = 0; i <= n; ++i) v.push_back(Vec3(-1.0f + 2.0f * float(i) / n, 0.0f, -1.0f + 2.0f * float(j) / n));
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            const std::uint32_t a = j * (n + 1) + i;
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
    const auto ref = reference(scene, 0, 1);
    ASSERT_FALSE(ref.empty());
    const std::vector<ObjectPair> candidates = {{0, 1}};
    DetectionOutput out;
    auto closed = makePeel(settings(128, 3));
    ASSERT_TRUE(closed->detect(scene, candidates, out));
    EXPECT_TRUE(out.pairs.empty());
    ASSERT_EQ(out.unserved.size(), 1u);
    EXPECT_EQ(out.unserved[0], (ObjectPair{0, 1}));
    ASSERT_EQ(out.stats.warnings.size(), 1u);
    EXPECT_NE(out.stats.warnings[0].find("open mesh"), std::string::npos);
    PeelSettings s = settings(128, 3);
    s.openMeshes = true;
    auto open = makePeel(s);
    ASSERT_TRUE(open->detect(scene, candidates, out));
    ASSERT_EQ(out.pairs.size(), 1u);
    EXPECT_EQ(out.pairs[0].triangles, ref);
}

// A deforming object (Scene::setVertices): the GPU sees the new vertices (GpuScene's own
// range) and the CPU tests them; moving them again is seen on the next call. With collision
// rays and without (the defaults: the vertices reach the cull and the filter alone).
TEST_F(PeelDetectorTest, DeformedVerticesAreUsed) {
    for (const PeelSettings& s : {settings(128, 3), PeelSettings{}}) {
        Scene scene;
        const MeshId torus = scene.addMesh(std::make_shared<Mesh>(shapes::torus(0.5f, 0.15f, 32, 16)));
        scene.addObject(torus);
        scene.addObject(torus, Pose{Vec3(2.0f, 0.0f, 0.0f)});  // far away as posed
        auto peel = makePeel(s);
        const std::vector<ObjectPair> candidates = {{0, 1}};
        DetectionOutput out;
        ASSERT_TRUE(peel->detect(scene, candidates, out));
        EXPECT_TRUE(out.pairs.empty());
        // Deform object 1 so that it links object 0 (shifted back and turned up, in its local frame).
        const Pose link{Vec3(-1.8f, 0.0f, 0.0f), glm::angleAxis(1.5708f, Vec3(1, 0, 0))};
        std::vector<Vec3> moved;
        for (const Vec3& v : scene.objectMesh(1).vertices()) moved.push_back(link.apply(v));
        scene.setVertices(1, moved);
        const auto ref = reference(scene, 0, 1);
        ASSERT_FALSE(ref.empty());
        ASSERT_TRUE(peel->detect(scene, candidates, out));
        ASSERT_EQ(out.pairs.size(), 1u);
        EXPECT_EQ(out.pairs[0].triangles, ref);
        // And back apart.
        const auto rest = scene.objectMesh(1).vertices();
        scene.setVertices(1, std::vector<Vec3>(rest.begin(), rest.end()));
        ASSERT_TRUE(peel->detect(scene, candidates, out));
        EXPECT_TRUE(out.pairs.empty());
    }
}

// The fused walk (every level in one dispatch, the frontier in shared memory) against the
// levels walk (one dispatch per level): the same cluster pairs, the same triangle pairs to
// the filter and exactly the reference's answer, without and with collision rays, on six
// bunnies and a ground box over several moving calls. Then the walk's two escape paths,
// forced through its test hooks: a frontier of 2 node pairs (nearly everything walked depth
// first on the invocations' stacks) must still give the reference; a step budget of 5 cuts
// the walk, which is counted (walk_cut), redone with the levels walk in the same call
// (still the reference's answer) and not tried again (walk_fused 0 on later calls). With
// overlap the call is split in two halves: the same cluster pairs and the same answer.
TEST_F(PeelDetectorTest, FusedAndLevelsWalksAgree) {
    Scene scene = sixBunniesOnABox();
    auto withWalk = [](PeelSettings s, const char* walk, const char* timers = "stages") {
        s.walk = walk;
        s.gpuTimers = timers;
        return s;
    };
    auto check = [&](Detector& peel, const std::string& what, double& clusterPairs, double& screenPairs) {
        const std::vector<ObjectPair> candidates = scene.overlappingPairs();
        DetectionOutput out;
        ASSERT_TRUE(peel.detect(scene, candidates, out)) << what;
        const std::size_t total = expectReferencePairs(scene, candidates, out, what);
        EXPECT_GT(total, 1000u) << what;
        clusterPairs = out.stats.counter("cluster_pairs");
        screenPairs = out.stats.counter("screen_pairs");
        EXPECT_GT(clusterPairs, 0.0) << what;
    };
    for (const char* rays : {"off", "on"}) {
        PeelSettings base;
        base.rays = rays;
        const bool noRays = std::string(rays) == "off";
        // Without rays, the fused and the levels walk take the CPU's cluster boxes (refit
        // "cpu"; with rays the setting is ignored): the GPU's (refit "gpu") give the
        // same cluster pairs and the same pairs to the filter.
        base.refit = "cpu";
        auto fused = makePeel(withWalk(base, "fused", "passes"));
        auto levels = makePeel(withWalk(base, "levels", "off"));
        PeelSettings onGpu = withWalk(base, "fused", "passes");
        onGpu.refit = "gpu";
        auto gpuRefit = makePeel(onGpu);
        for (int call = 0; call < 3; ++call) {
            for (ObjectId o = 1; o < scene.objectCount(); ++o) {
                Pose p = scene.pose(o);
                p.position += Vec3(0.01f * float(o % 3) - 0.01f, -0.02f, 0.01f);
                scene.setPose(o, p);
            }
            double fc = 0, fs = 0, lc = 0, ls = 0, gc = 0, gs = 0;
            check(*fused, std::string("fused, rays ") + rays, fc, fs);
            check(*levels, std::string("levels, rays ") + rays, lc, ls);
            EXPECT_EQ(fc, lc) << "rays " << rays << ", call " << call;
            if (noRays) {
                EXPECT_EQ(fs, ls) << "call " << call;
                check(*gpuRefit, "fused, refit on the gpu", gc, gs);
                EXPECT_EQ(fc, gc) << "call " << call;
                EXPECT_EQ(fs, gs) << "call " << call;
            }
        }
        // The timers: per pass with "passes", none with "off".
        DetectionOutput out;
        ASSERT_TRUE(fused->detect(scene, scene.overlappingPairs(), out));
        EXPECT_EQ(out.stats.counter("walk_fused"), 1.0);
        EXPECT_EQ(out.stats.counter("split"), 0.0);  // overlap is off by default
        if (noRays) {  // the boxes from the CPU: no refit pass, and the CPU walks (no walk pass)
            EXPECT_EQ(out.stats.counter("cpu_walk"), 1.0);
            EXPECT_EQ(out.stats.counter("gpu_pass_walk_ms"), 0.0);
            EXPECT_EQ(out.stats.counter("gpu_pass_refit_ms"), 0.0);
            EXPECT_GT(out.stats.counter("cpu_refit_ms"), 0.0);
            DetectionOutput onGpuOut;
            ASSERT_TRUE(gpuRefit->detect(scene, scene.overlappingPairs(), onGpuOut));
            EXPECT_GT(onGpuOut.stats.counter("gpu_pass_refit_ms"), 0.0);
            EXPECT_EQ(onGpuOut.stats.counter("cpu_refit_ms"), 0.0);
            EXPECT_EQ(onGpuOut.stats.counter("cpu_walk"), 0.0);
            EXPECT_GT(onGpuOut.stats.counter("gpu_pass_walk_ms"), 0.0);
        } else {
            EXPECT_GT(out.stats.counter("gpu_pass_walk_ms"), 0.0);
            EXPECT_GT(out.stats.counter("gpu_pass_refit_ms"), 0.0);
            EXPECT_EQ(out.stats.counter("cpu_refit_ms"), 0.0);
        }
        EXPECT_EQ(out.stats.counter("gpu_pass_level_ms"), 0.0);
        EXPECT_GT(out.stats.gpuMs, 0.0);
        ASSERT_TRUE(levels->detect(scene, scene.overlappingPairs(), out));
        EXPECT_EQ(out.stats.counter("walk_fused"), 0.0);
        EXPECT_EQ(out.stats.gpuMs, 0.0);
    }
    {  // Overlap: two halves, the same answer (and the same cluster pairs as one half).
        PeelSettings halves;
        halves.overlap = true;
        auto split = makePeel(halves);
        auto whole = makePeel(PeelSettings{});
        for (int call = 0; call < 2; ++call) {
            double c = 0, sp = 0, wc = 0, wsp = 0;
            check(*split, "overlap on", c, sp);
            check(*whole, "overlap off", wc, wsp);
            EXPECT_EQ(c, wc);
            EXPECT_EQ(sp, wsp);
        }
        DetectionOutput out;
        ASSERT_TRUE(split->detect(scene, scene.overlappingPairs(), out));
        EXPECT_EQ(out.stats.counter("split"), 1.0);
    }
    {  // The chain's variants through its test hooks, with the CPU's boxes: the walk writing node
        // pairs and the triangle pairs pairing all 32 x 32 (ISC_PEEL_WALK_RECORDS=0, the chain
        // before 2026-11-27 night), the vertex upload after the walk's dispatch
        // (ISC_PEEL_UPLOAD_FIRST=0), the walk 64 and 256 wide (ISC_PEEL_WALK_WIDTH; 128 by
        // default; with ISC_PEEL_CPU_WALK=0, else the CPU walks) and the GPU walk at its default
        // width: the same cluster pairs, the same pairs to the float test, the reference's answer.
        PeelSettings cpuBoxes;
        cpuBoxes.refit = "cpu";
        auto defaults = makePeel(cpuBoxes);
        const std::pair<const char*, const char*> hooks[] = {{"ISC_PEEL_WALK_RECORDS", "0"},
                                                             {"ISC_PEEL_UPLOAD_FIRST", "0"},
                                                             {"ISC_PEEL_WALK_WIDTH", "64"},
                                                             {"ISC_PEEL_WALK_WIDTH", "256"},
                                                             {"ISC_PEEL_CPU_WALK", "0"}};
        for (const auto& [name, value] : hooks) {
            ::setenv(name, value, 1);
            ::setenv("ISC_PEEL_CPU_WALK", "0", 1);
            auto variant = makePeel(cpuBoxes);
            ::unsetenv(name);
            ::unsetenv("ISC_PEEL_CPU_WALK");
            const std::string what = std::string(name) + "=" + value;
            for (int call = 0; call < 2; ++call) {
                for (ObjectId o = 1; o < scene.objectCount(); ++o) {
                    Pose p = scene.pose(o);
                    p.position += Vec3(0.005f, -0.01f, 0.005f * float(o % 2));
                    scene.setPose(o, p);
                }
                double c = 0, sp = 0, dc = 0, dsp = 0;
                check(*variant, what, c, sp);
                check(*defaults, "defaults, refit cpu", dc, dsp);
                EXPECT_EQ(c, dc) << what << ", call " << call;
                EXPECT_EQ(sp, dsp) << what << ", call " << call;
            }
        }
    }
    {  // A frontier of two node pairs: the stack path.
        ::setenv("ISC_PEEL_WALK_QUEUE", "2", 1);
        auto narrow = makePeel(PeelSettings{});
        ::unsetenv("ISC_PEEL_WALK_QUEUE");
        double c = 0, sp = 0;
        check(*narrow, "frontier of 2", c, sp);
        DetectionOutput out;
        ASSERT_TRUE(narrow->detect(scene, scene.overlappingPairs(), out));
        EXPECT_EQ(out.stats.counter("walk_fused"), 1.0);
        EXPECT_EQ(out.stats.counter("walk_cut"), 0.0);
    }
    {  // A budget of five steps: cut, counted, redone with levels.
        ::setenv("ISC_PEEL_WALK_BUDGET", "5", 1);
        auto cut = makePeel(PeelSettings{});
        ::unsetenv("ISC_PEEL_WALK_BUDGET");
        const std::vector<ObjectPair> candidates = scene.overlappingPairs();
        DetectionOutput first;
        ASSERT_TRUE(cut->detect(scene, candidates, first));
        EXPECT_GT(first.stats.counter("walk_cut"), 0.0);
        EXPECT_EQ(first.stats.counter("walk_fused"), 0.0);  // the redone attempt's
        double c = 0, sp = 0;
        check(*cut, "after a cut", c, sp);
        DetectionOutput later;
        ASSERT_TRUE(cut->detect(scene, candidates, later));
        EXPECT_EQ(later.stats.counter("walk_cut"), 0.0);
        EXPECT_EQ(later.stats.counter("walk_fused"), 0.0);
        std::size_t n = 0;
        for (const PairResult& r : first.pairs) n += r.triangles.size();
        EXPECT_GT(n, 1000u);
    }
}

// Speculation (setting speculate, on by default): the last call's intersecting pairs tested
// again during the GPU wait and reused by the exact test. With the test hook
// ISC_PEEL_SPECULATE_ALL every remembered pair is tested before the exact stage (on llvmpipe the
// wait runs alone, so without the hook nothing would be), so the reuse path runs: over calls
// that move and deform six bunnies on a ground box, the answer is the reference's and bit for
// bit (triangles and segments) that of speculate=false, the pairs reused are counted, and a
// split call (overlap) reuses them too. The code before 2026-11-28 (test hooks
// ISC_PEEL_EXACT_MERGE=0, ISC_PEEL_COPY_PIECES=1) and the vertex copy in 8 pieces: the same cluster pairs, listed pairs, tests, reuse and answer, bit for bit.
TEST_F(PeelDetectorTest, SpeculationReusesTheLastCallsPairsAndKeepsTheAnswer) {
    Scene scene = sixBunniesOnABox();
    PeelSettings off;
    off.speculate = false;
    PeelSettings halves;
    halves.overlap = true;
    ::setenv("ISC_PEEL_SPECULATE_ALL", "1", 1);
    auto speculating = makePeel(PeelSettings{});
    auto split = makePeel(halves);
    // The code before 2026-11-28 (test hooks): the exact stage's lookup one by one, the vertex
    // copy in one piece; and 8 pieces.
    ::setenv("ISC_PEEL_EXACT_MERGE", "0", 1);
    ::setenv("ISC_PEEL_COPY_PIECES", "1", 1);
    auto round8 = makePeel(PeelSettings{});
    ::unsetenv("ISC_PEEL_EXACT_MERGE");
    ::setenv("ISC_PEEL_COPY_PIECES", "8", 1);
    auto pieces8 = makePeel(PeelSettings{});
    ::unsetenv("ISC_PEEL_COPY_PIECES");
    ::unsetenv("ISC_PEEL_SPECULATE_ALL");
    auto plain = makePeel(off);
    auto onLlvmpipeAlone = makePeel(PeelSettings{});  // no hook: software GL does not speculate
    // The bunnies deform: refit "auto" makes the cluster boxes on the CPU; the GPU's give the same.
    PeelSettings gpuRefit;
    gpuRefit.refit = "gpu";
    auto gpuBoxes = makePeel(gpuRefit);
    const auto bunnyVertices = scene.mesh(0).vertices();  // mesh 0: the bunny
    const std::vector<Vec3> rest(bunnyVertices.begin(), bunnyVertices.end());
    double reused = 0;
    for (int call = 0; call < 4; ++call) {
        for (ObjectId o = 1; o < scene.objectCount(); ++o) {
            Pose p = scene.pose(o);
            p.position += Vec3(0.004f * float(o % 3) - 0.004f, -0.006f, 0.003f);
            scene.setPose(o, p);
            std::vector<Vec3> v = rest;  // a small wobble of every vertex
            for (Vec3& x : v) x *= 1.0f + 0.01f * std::sin(3.0f * x.y + 0.5f * float(call + int(o)));
            scene.setVertices(o, v);
        }
        const std::vector<ObjectPair> candidates = scene.overlappingPairs();
        DetectionOutput a, b, c, d, e, f, g;
        ASSERT_TRUE(speculating->detect(scene, candidates, a));
        ASSERT_TRUE(plain->detect(scene, candidates, b));
        ASSERT_TRUE(split->detect(scene, candidates, c));
        ASSERT_TRUE(onLlvmpipeAlone->detect(scene, candidates, d));
        ASSERT_TRUE(gpuBoxes->detect(scene, candidates, e));
        ASSERT_TRUE(round8->detect(scene, candidates, f));
        ASSERT_TRUE(pieces8->detect(scene, candidates, g));
        EXPECT_EQ(a.stats.counter("refit_cpu"), 1.0);
        EXPECT_EQ(e.stats.counter("refit_cpu"), 0.0);
        EXPECT_EQ(a.stats.counter("cluster_pairs"), e.stats.counter("cluster_pairs")) << "call " << call;
        for (const DetectionOutput* x : {&f, &g}) {  // the same pairs listed, tested and reused
            EXPECT_EQ(x->stats.counter("refit_cpu"), 1.0);
            EXPECT_EQ(x->stats.counter("screen_pairs"), a.stats.counter("screen_pairs")) << "call " << call;
            EXPECT_EQ(x->stats.counter("cluster_pairs"), a.stats.counter("cluster_pairs")) << "call " << call;
            EXPECT_EQ(x->stats.counter("filtered_pairs"), a.stats.counter("filtered_pairs")) << "call " << call;
            EXPECT_EQ(x->stats.counter("tri_tri_tests"), a.stats.counter("tri_tri_tests")) << "call " << call;
            EXPECT_EQ(x->stats.counter("exact_reused"), a.stats.counter("exact_reused")) << "call " << call;
        }
        EXPECT_GE(a.stats.counter("vertex_copies"), 1.0);
        EXPECT_EQ(f.stats.counter("vertex_copies"), 1.0) << "one copy after the conversion";
        for (const DetectionOutput* x : {&b, &c, &d, &e, &f, &g}) expectSameOutput(*x, a, call);
        for (const PairResult& r : a.pairs) checkWellFormed(r);
        const std::size_t total = expectReferencePairs(scene, candidates, a, "call " + std::to_string(call));
        EXPECT_GT(total, 500u);
        EXPECT_EQ(b.stats.counter("exact_reused"), 0.0);
        if (call > 0) {
            EXPECT_GT(a.stats.counter("exact_speculated"), 0.0) << "call " << call;
            EXPECT_GT(a.stats.counter("exact_reused"), 0.5 * double(total)) << "call " << call;
            EXPECT_LE(a.stats.counter("exact_reused"), a.stats.counter("tri_tri_tests"));
            EXPECT_GT(c.stats.counter("exact_reused"), 0.0) << "call " << call;
            EXPECT_EQ(c.stats.counter("split"), 1.0);
        }
        reused += a.stats.counter("exact_reused");
    }
    EXPECT_GT(reused, 0.0);
}

// The fused region of the CPU's boxes (2026-11-28 morning): the boxes 4-wide and the vertex
// conversion and boxes written with non-temporal stores. Over calls where some bunnies deform,
// some keep last call's vertices and the ground box is rigid, the answer is the reference's and
// bit for bit that of the code before (test hooks ISC_PEEL_REFIT_SIMD=0,
// ISC_PEEL_STREAM_STORES=0) and of each hook alone, with the same cluster pairs and pairs to
// the float test.
TEST_F(PeelDetectorTest, FourWideBoxesAndStreamingStoresKeepTheAnswer) {
    Scene scene = sixBunniesOnABox();
    auto defaults = makePeel(PeelSettings{});
    ::setenv("ISC_PEEL_REFIT_SIMD", "0", 1);
    auto scalarBoxes = makePeel(PeelSettings{});
    ::setenv("ISC_PEEL_STREAM_STORES", "0", 1);
    auto before = makePeel(PeelSettings{});
    ::unsetenv("ISC_PEEL_REFIT_SIMD");
    auto noStream = makePeel(PeelSettings{});
    ::unsetenv("ISC_PEEL_STREAM_STORES");
    const auto bunnyVertices = scene.mesh(0).vertices();  // mesh 0: the bunny
    const std::vector<Vec3> rest(bunnyVertices.begin(), bunnyVertices.end());
    for (int call = 0; call < 5; ++call) {
        for (ObjectId o = 1; o < scene.objectCount(); ++o) {
            Pose p = scene.pose(o);
            p.position += Vec3(0.003f * float(o % 3) - 0.003f, -0.005f, 0.002f);
            p.rotation = glm::normalize(glm::angleAxis(0.01f * float(o), glm::normalize(Vec3(0, 1, 1))) * p.rotation);
            scene.setPose(o, p);
            // Bunny o deforms on calls where (o + call) is not a multiple of 3 (and every bunny
            // on call 0): the others keep their vertices (not converted again).
            if (call == 0 || (int(o) + call) % 3 != 0) {
                std::vector<Vec3> v = rest;
                for (Vec3& x : v) x *= 1.0f + 0.012f * std::sin(4.0f * x.y + 0.7f * float(call + 2 * int(o)));
                scene.setVertices(o, v);
            }
        }
        const std::vector<ObjectPair> candidates = scene.overlappingPairs();
        DetectionOutput a, b, c, d;
        ASSERT_TRUE(defaults->detect(scene, candidates, a));
        ASSERT_TRUE(before->detect(scene, candidates, b));
        ASSERT_TRUE(scalarBoxes->detect(scene, candidates, c));
        ASSERT_TRUE(noStream->detect(scene, candidates, d));
        for (const DetectionOutput* x : {&a, &b, &c, &d}) {
            EXPECT_EQ(x->stats.counter("refit_cpu"), 1.0) << "call " << call;
            EXPECT_EQ(x->stats.counter("sync_fused"), 1.0) << "call " << call;
        }
        for (const DetectionOutput* x : {&b, &c, &d}) {
            EXPECT_EQ(x->stats.counter("cluster_pairs"), a.stats.counter("cluster_pairs")) << "call " << call;
            EXPECT_EQ(x->stats.counter("screen_pairs"), a.stats.counter("screen_pairs")) << "call " << call;
            EXPECT_EQ(x->stats.counter("filtered_pairs"), a.stats.counter("filtered_pairs")) << "call " << call;
            expectSameOutput(*x, a, call);
        }
        const std::size_t total = expectReferencePairs(scene, candidates, a, "call " + std::to_string(call));
        EXPECT_GT(total, 500u) << "call " << call;
    }
}

// Call `call` of a sequence where every bunny but object 0 moves, turns a little about `axis` and
// wobbles (its rest vertices `rest` scaled by a wave of phase `phase` a call): new poses and new
// vertices every call, so that the CPU's boxes, the walk and the exact stage all start afresh.
void moveAndWobble(Scene& scene, std::span<const Vec3> rest, int call, Vec3 axis, float phase) {
    for (ObjectId o = 1; o < scene.objectCount(); ++o) {
        Pose p = scene.pose(o);
        p.position += Vec3(0.004f * float(o % 3) - 0.004f, -0.006f, 0.002f);
        p.rotation = glm::normalize(glm::angleAxis(0.01f * float(o), glm::normalize(axis)) * p.rotation);
        scene.setPose(o, p);
        std::vector<Vec3> v(rest.begin(), rest.end());
        for (Vec3& x : v) x *= 1.0f + 0.015f * std::sin(5.0f * x.y + phase * float(call + 2 * int(o)));
        scene.setVertices(o, v);
    }
}

// The cluster walk on the CPU (the default where the CPU makes the boxes, no rays; each pair
// walked once both its parts are boxed): over calls
// where bunnies move and deform, the cluster pairs are the GPU walk's (ISC_PEEL_CPU_WALK=0) as a
// sorted list (hashed by the test hook ISC_PEEL_CLUSTER_PAIRS_HASH), the same pairs go to the
// filter, and the answer is bit for bit the GPU walk's and the reference's. A list longer than
// the staging buffer (first capacity 16, ISC_PEEL_CLUSTER_CAPACITY) takes the GPU walk for that
// call (counted) and the CPU walk again after it.
// The walk after a barrier behind the last box (ISC_PEEL_CPU_WALK=1) with records without the
// clusters' boxes (ISC_PEEL_RECORD_BOXES=0: the node boxes copied) gives the same list.
TEST_F(PeelDetectorTest, CpuWalkGivesTheGpuWalksClusterPairs) {
    Scene scene = sixBunniesOnABox();
    ::setenv("ISC_PEEL_CLUSTER_PAIRS_HASH", "1", 1);
    auto cpuWalk = makePeel(PeelSettings{});
    ::setenv("ISC_PEEL_CPU_WALK", "0", 1);
    auto gpuWalk = makePeel(PeelSettings{});
    ::unsetenv("ISC_PEEL_CPU_WALK");
    ::setenv("ISC_PEEL_CLUSTER_CAPACITY", "16", 1);
    auto small = makePeel(PeelSettings{});
    ::unsetenv("ISC_PEEL_CLUSTER_CAPACITY");
    ::setenv("ISC_PEEL_CPU_WALK", "1", 1);  // every pair after a barrier, the boxes copied
    ::setenv("ISC_PEEL_RECORD_BOXES", "0", 1);
    auto afterBarrier = makePeel(PeelSettings{});
    ::unsetenv("ISC_PEEL_CPU_WALK");
    ::unsetenv("ISC_PEEL_RECORD_BOXES");
    ::unsetenv("ISC_PEEL_CLUSTER_PAIRS_HASH");
    const auto bunnyVertices = scene.mesh(0).vertices();  // mesh 0: the bunny
    const std::vector<Vec3> rest(bunnyVertices.begin(), bunnyVertices.end());
    for (int call = 0; call < 4; ++call) {
        moveAndWobble(scene, rest, call, Vec3(1, 1, 0), 0.9f);
        const std::vector<ObjectPair> candidates = scene.overlappingPairs();
        DetectionOutput a, b, c, d;
        ASSERT_TRUE(cpuWalk->detect(scene, candidates, a));
        ASSERT_TRUE(gpuWalk->detect(scene, candidates, b));
        ASSERT_TRUE(small->detect(scene, candidates, c));
        ASSERT_TRUE(afterBarrier->detect(scene, candidates, d));
        const std::string what = "call " + std::to_string(call);
        EXPECT_EQ(a.stats.counter("refit_cpu"), 1.0) << what;
        EXPECT_EQ(a.stats.counter("cpu_walk"), 1.0) << what;
        EXPECT_EQ(a.stats.counter("cpu_walk_mode"), 2.0) << what;
        EXPECT_EQ(d.stats.counter("cpu_walk_mode"), 1.0) << what;
        EXPECT_EQ(d.stats.counter("walk_tests"), a.stats.counter("walk_tests")) << what;
        EXPECT_GT(a.stats.counter("walk_tests"), a.stats.counter("cluster_pairs")) << what;
        EXPECT_EQ(b.stats.counter("cpu_walk"), 0.0) << what;
        EXPECT_EQ(b.stats.counter("walk_fused"), 1.0) << what;
        EXPECT_EQ(c.stats.counter("cpu_walk"), 1.0) << what;
        EXPECT_EQ(c.stats.counter("cpu_walk_overflow"), call == 0 ? 1.0 : 0.0) << what;
        EXPECT_GT(a.stats.counter("cluster_pairs"), 100.0) << what;
        for (const DetectionOutput* x : {&b, &c, &d}) {
            EXPECT_EQ(x->stats.counter("cluster_pairs"), a.stats.counter("cluster_pairs")) << what;
            EXPECT_EQ(x->stats.counter("cluster_pairs_hash_lo"), a.stats.counter("cluster_pairs_hash_lo")) << what;
            EXPECT_EQ(x->stats.counter("cluster_pairs_hash_hi"), a.stats.counter("cluster_pairs_hash_hi")) << what;
            EXPECT_EQ(x->stats.counter("pairs_culled"), a.stats.counter("pairs_culled")) << what;
            EXPECT_EQ(x->stats.counter("screen_pairs"), a.stats.counter("screen_pairs")) << what;
            EXPECT_EQ(x->stats.counter("filtered_pairs"), a.stats.counter("filtered_pairs")) << what;
            expectSameOutput(*x, a, call);
        }
        const std::size_t total = expectReferencePairs(scene, candidates, a, what);
        EXPECT_GT(total, 500u) << what;
    }
}

// The CPU walk's forms (ISC_PEEL_WALK_FORM, read when the detector is made; branch
// peel-region-14b): "branch" (the code before) and "padded" (the default) give,
// over calls where bunnies move and deform, the same cluster pairs (the list the pass read,
// sorted and hashed), the same node-pair tests, the same pairs to the exact test and the
// reference's answer.
TEST_F(PeelDetectorTest, WalkFormsGiveTheSameClusterPairs) {
    Scene scene = sixBunniesOnABox();
    ::setenv("ISC_PEEL_CLUSTER_PAIRS_HASH", "1", 1);
    auto byDefault = makePeel(PeelSettings{});
    std::vector<std::pair<std::string, std::unique_ptr<Detector>>> forms;
    for (const char* form : {"branch", "padded"}) {
        ::setenv("ISC_PEEL_WALK_FORM", form, 1);
        forms.emplace_back(form, makePeel(PeelSettings{}));
    }
    ::unsetenv("ISC_PEEL_WALK_FORM");
    ::unsetenv("ISC_PEEL_CLUSTER_PAIRS_HASH");
    const auto bunnyVertices = scene.mesh(0).vertices();
    const std::vector<Vec3> rest(bunnyVertices.begin(), bunnyVertices.end());
    for (int call = 0; call < 4; ++call) {
        moveAndWobble(scene, rest, call, Vec3(0, 1, 1), 0.7f);
        const std::vector<ObjectPair> candidates = scene.overlappingPairs();
        DetectionOutput a;
        ASSERT_TRUE(byDefault->detect(scene, candidates, a));
        const std::string what = "call " + std::to_string(call);
        EXPECT_EQ(a.stats.counter("cpu_walk"), 1.0) << what;
        EXPECT_EQ(a.stats.counter("cpu_walk_form"), 1.0) << what;  // padded
        EXPECT_GT(a.stats.counter("cluster_pairs"), 100.0) << what;
        for (int f = 0; f < int(forms.size()); ++f) {
            DetectionOutput x;
            ASSERT_TRUE(forms[f].second->detect(scene, candidates, x));
            const std::string w = what + ", " + forms[f].first;
            EXPECT_EQ(x.stats.counter("cpu_walk"), 1.0) << w;
            EXPECT_EQ(x.stats.counter("cpu_walk_form"), double(f)) << w;
            EXPECT_EQ(x.stats.counter("walk_tests"), a.stats.counter("walk_tests")) << w;
            EXPECT_EQ(x.stats.counter("cluster_pairs"), a.stats.counter("cluster_pairs")) << w;
            EXPECT_EQ(x.stats.counter("cluster_pairs_hash_lo"), a.stats.counter("cluster_pairs_hash_lo")) << w;
            EXPECT_EQ(x.stats.counter("cluster_pairs_hash_hi"), a.stats.counter("cluster_pairs_hash_hi")) << w;
            EXPECT_EQ(x.stats.counter("filtered_pairs"), a.stats.counter("filtered_pairs")) << w;
            expectSameOutput(x, a, call);
        }
        const std::size_t total = expectReferencePairs(scene, candidates, a, what);
        EXPECT_GT(total, 500u) << what;
    }
}

// What precedes the triangle pairs on the CPU walk's records (ISC_PEEL_TRI_PAIRS, read when the
// detector is made; "Round 2026-11-28 (branch peel-tripairs-14)"): "copy" (every clear and upload,
// before the round) and "trim", the default ("copy" without the clears and uploads the pass does
// not read, the counters' clear and the walk's counts in one copy). Over calls where bunnies move
// and deform, the default and "trim" give "copy"'s cluster pairs (the list the pass read, hashed),
// box-test survivors, pairs to the exact test and the reference's answer; also with a staging
// buffer of 16 records, so that the first call falls back to the GPU walk (which needs what
// "trim" leaves out) and the next ones take the CPU walk again.
TEST_F(PeelDetectorTest, TriPairsRecordsFormsKeepTheAnswer) {
    Scene scene = sixBunniesOnABox();
    struct Form {
        const char* name;
        const char* capacity;  // ISC_PEEL_CLUSTER_CAPACITY, or nullptr
        std::unique_ptr<Detector> peel;
    };
    std::vector<Form> forms;
    ::setenv("ISC_PEEL_CLUSTER_PAIRS_HASH", "1", 1);
    // nullptr: the variable unset (the default, "trim").
    // "copy": the code before peel-tripairs-14; a staging buffer of 16 records makes the first call
    // fall back to the GPU walk, which reads what "trim" leaves out on the CPU walk's calls.
    for (const auto& [name, capacity] : {std::pair<const char*, const char*>{"copy", nullptr}, {nullptr, nullptr},
                                         {"trim", nullptr}, {"trim", "16"}, {nullptr, "16"}}) {
        if (name != nullptr) ::setenv("ISC_PEEL_TRI_PAIRS", name, 1);
        if (capacity != nullptr) ::setenv("ISC_PEEL_CLUSTER_CAPACITY", capacity, 1);
        forms.push_back({name != nullptr ? name : "(unset)", capacity, makePeel(PeelSettings{})});
        ::unsetenv("ISC_PEEL_TRI_PAIRS");
        ::unsetenv("ISC_PEEL_CLUSTER_CAPACITY");
    }
    ::unsetenv("ISC_PEEL_CLUSTER_PAIRS_HASH");
    const auto bunnyVertices = scene.mesh(0).vertices();  // mesh 0: the bunny
    const std::vector<Vec3> rest(bunnyVertices.begin(), bunnyVertices.end());
    for (int call = 0; call < 4; ++call) {
        moveAndWobble(scene, rest, call, Vec3(1, 0, 1), 0.8f);
        const std::vector<ObjectPair> candidates = scene.overlappingPairs();
        std::vector<DetectionOutput> outs(forms.size());
        for (std::size_t f = 0; f < forms.size(); ++f) ASSERT_TRUE(forms[f].peel->detect(scene, candidates, outs[f]));
        const DetectionOutput& a = outs[0];  // "copy", the code before
        const std::string what = "call " + std::to_string(call);
        EXPECT_EQ(a.stats.counter("cpu_walk"), 1.0) << what;
        EXPECT_GT(a.stats.counter("cluster_pairs"), 100.0) << what;
        EXPECT_GT(a.stats.counter("screen_pairs"), a.stats.counter("filtered_pairs")) << what;
        EXPECT_GT(a.stats.counter("filtered_pairs"), 500.0) << what;
        for (std::size_t f = 1; f < forms.size(); ++f) {
            const std::string form = what + ", ISC_PEEL_TRI_PAIRS=" + forms[f].name +
                                     (forms[f].capacity != nullptr ? ", a staging buffer of 16" : "");
            EXPECT_EQ(outs[f].stats.counter("cpu_walk"), 1.0) << form;
            EXPECT_EQ(outs[f].stats.counter("cpu_walk_overflow"), forms[f].capacity != nullptr && call == 0 ? 1.0 : 0.0)
                << form;
            EXPECT_EQ(outs[f].stats.counter("cluster_pairs"), a.stats.counter("cluster_pairs")) << form;
            EXPECT_EQ(outs[f].stats.counter("cluster_pairs_hash_lo"), a.stats.counter("cluster_pairs_hash_lo")) << form;
            EXPECT_EQ(outs[f].stats.counter("cluster_pairs_hash_hi"), a.stats.counter("cluster_pairs_hash_hi")) << form;
            EXPECT_EQ(outs[f].stats.counter("screen_pairs"), a.stats.counter("screen_pairs")) << form;
            EXPECT_EQ(outs[f].stats.counter("filtered_pairs"), a.stats.counter("filtered_pairs")) << form;
            expectSameOutput(outs[f], a, call);
            const std::size_t total = expectReferencePairs(scene, candidates, outs[f], form);
            EXPECT_GT(total, 500u) << form;
        }
    }
}

// The triangle pairs' kept pairs boxed and tested a chunk at a time (tri_pairs.glsl
// PEEL_SURVIVOR_CHUNK; ISC_PEEL_SURVIVOR_CHUNK, read when the detector is made): the default (256)
// and chunks of 64 (a contact's kept pairs then take several rounds) against all 32 x 32 at once
// (1024, the code before) over calls where bunnies move and deform, on the CPU walk's records
// and (a staging buffer of 16 records on the first call) the GPU walk's: the same cluster pairs,
// box-test survivors, pairs to the exact test and answer, the reference's. With the rounds after
// the first skipped, chunks of 64 lose pairs and this fails.
TEST_F(PeelDetectorTest, SurvivorChunksKeepTheAnswer) {
    Scene scene = sixBunniesOnABox();
    struct Form {
        const char* chunk;  // nullptr: the default
        const char* capacity;
        std::unique_ptr<Detector> peel;
    };
    std::vector<Form> forms;
    for (const auto& [chunk, capacity] : {std::pair<const char*, const char*>{"1024", nullptr}, {nullptr, nullptr},
                                          {"64", nullptr}, {"64", "16"}}) {
        if (chunk != nullptr) ::setenv("ISC_PEEL_SURVIVOR_CHUNK", chunk, 1);
        if (capacity != nullptr) ::setenv("ISC_PEEL_CLUSTER_CAPACITY", capacity, 1);
        forms.push_back({chunk, capacity, makePeel(PeelSettings{})});
        ::unsetenv("ISC_PEEL_SURVIVOR_CHUNK");
        ::unsetenv("ISC_PEEL_CLUSTER_CAPACITY");
    }
    const auto bunnyVertices = scene.mesh(0).vertices();  // mesh 0: the bunny
    const std::vector<Vec3> rest(bunnyVertices.begin(), bunnyVertices.end());
    for (int call = 0; call < 3; ++call) {
        moveAndWobble(scene, rest, call, Vec3(1, 0, 1), 0.8f);
        const std::vector<ObjectPair> candidates = scene.overlappingPairs();
        std::vector<DetectionOutput> outs(forms.size());
        for (std::size_t f = 0; f < forms.size(); ++f) ASSERT_TRUE(forms[f].peel->detect(scene, candidates, outs[f]));
        const DetectionOutput& a = outs[0];  // all at once
        const std::string what = "call " + std::to_string(call);
        EXPECT_GT(a.stats.counter("screen_pairs"), a.stats.counter("filtered_pairs")) << what;
        EXPECT_GT(a.stats.counter("filtered_pairs"), 500.0) << what;
        for (std::size_t f = 1; f < forms.size(); ++f) {
            const std::string form = what + ", chunk " + (forms[f].chunk != nullptr ? forms[f].chunk : "(default)") +
                                     (forms[f].capacity != nullptr ? ", a staging buffer of 16" : "");
            EXPECT_EQ(outs[f].stats.counter("cpu_walk_overflow"), forms[f].capacity != nullptr && call == 0 ? 1.0 : 0.0)
                << form;
            EXPECT_EQ(outs[f].stats.counter("cluster_pairs"), a.stats.counter("cluster_pairs")) << form;
            EXPECT_EQ(outs[f].stats.counter("screen_pairs"), a.stats.counter("screen_pairs")) << form;
            EXPECT_EQ(outs[f].stats.counter("filtered_pairs"), a.stats.counter("filtered_pairs")) << form;
            expectSameOutput(outs[f], a, call);
            const std::size_t total = expectReferencePairs(scene, candidates, outs[f], form);
            EXPECT_GT(total, 500u) << form;
        }
    }
}

// What runs before the call's work (the default since 2026-11-29, eleventh session; test hook
// ISC_PEEL_PRE=0: the output cleared at the call's start and the objects classed pair by pair): the
// last call's pairs handed to the detector and freed while the GPU works (DetectionOutput::clearInto),
// the objects classed by object. Over calls where bunnies move and deform, each form writing into
// the same output every call, given first filled with a stale pair, counter and warning: the same
// answer as the form before and the reference's, nothing stale left. With clearInto's pairs left
// as they were (no swap) the stale pair stayed and this failed.
TEST_F(PeelDetectorTest, OutputReusedAcrossCallsKeepsTheAnswer) {
    Scene scene = sixBunniesOnABox();
    ::setenv("ISC_PEEL_PRE", "0", 1);
    auto before = makePeel(PeelSettings{});
    ::unsetenv("ISC_PEEL_PRE");
    auto now = makePeel(PeelSettings{});
    const auto bunnyVertices = scene.mesh(0).vertices();  // mesh 0: the bunny
    const std::vector<Vec3> rest(bunnyVertices.begin(), bunnyVertices.end());
    DetectionOutput a, b;
    for (DetectionOutput* o : {&a, &b}) {
        o->pairs.push_back(PairResult{{0, 1}, {{7, 7}}, {}, {}});
        o->stats.count("stale_counter", 1.0);
        o->stats.warnings.push_back("a stale warning");
    }
    for (int call = 0; call < 4; ++call) {
        moveAndWobble(scene, rest, call, Vec3(1, 0, 1), 0.8f);
        const std::vector<ObjectPair> candidates = scene.overlappingPairs();
        ASSERT_TRUE(before->detect(scene, candidates, b));
        ASSERT_TRUE(now->detect(scene, candidates, a));
        const std::string what = "call " + std::to_string(call);
        EXPECT_EQ(a.stats.counter("stale_counter"), 0.0) << what;
        EXPECT_TRUE(std::none_of(a.stats.counters.begin(), a.stats.counters.end(),
                                 [](const auto& c) { return c.first == "stale_counter"; }))
            << what;
        EXPECT_TRUE(a.stats.warnings.empty()) << what;
        EXPECT_GT(a.stats.counter("filtered_pairs"), 500.0) << what;
        EXPECT_EQ(a.stats.counter("filtered_pairs"), b.stats.counter("filtered_pairs")) << what;
        expectSameOutput(a, b, call);
        const std::size_t total = expectReferencePairs(scene, candidates, a, what);
        EXPECT_GT(total, 500u) << what;
    }
}

TEST_F(PeelDetectorTest, NonFinitePoseIsSkippedWithAWarning) {
    Scene scene;
    const MeshId box = scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.5f))));
    scene.addObject(box);
    scene.addObject(box, Pose{Vec3(std::numeric_limits<float>::quiet_NaN(), 0.0f, 0.0f)});
    auto peel = makePeel(settings(64, 1));
    DetectionOutput out;
    const std::vector<ObjectPair> candidates = {{0, 1}};
    ASSERT_TRUE(peel->detect(scene, candidates, out));
    EXPECT_TRUE(out.pairs.empty());
    ASSERT_EQ(out.stats.warnings.size(), 1u);
    EXPECT_NE(out.stats.warnings[0].find("non-finite"), std::string::npos);
}

// A small sphere (2 mm edges: the level-0 cell) sunk into the far corner of a 300 m ground
// box: the ground's top triangles sit at the grid's top level (cells of 512 x 2 mm) and span
// ~300 x 300 of them, past llvmpipe's silent 65535 loop iterations (docs/gl.md, "Loop bounds
// on llvmpipe"). Every triangle pair of the reference must be found.
TEST_F(PeelDetectorTest, ASmallSphereSunkIntoAVeryLargeGroundIsFound) {
    Scene scene;
    const ObjectId ground = scene.addObject(scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(150.0f, 0.5f, 150.0f)))),
                                            {Vec3(0.0f, -0.5f, 0.0f), Quat(1, 0, 0, 0)});
    const ObjectId ball = scene.addObject(scene.addMesh(std::make_shared<Mesh>(shapes::uvSphere(0.05f, 256, 128))),
                                          {Vec3(140.0f, 0.02f, 140.0f), Quat(1, 0, 0, 0)});
    const std::vector<ObjectPair> candidates{{ground, ball}};
    PeelSettings s;
    s.rays = "on";  // the image passes and the pairing grid (off by default without self-collision)
    auto peel = makePeel(s);
    DetectionOutput out;
    ASSERT_TRUE(peel->detect(scene, candidates, out));
    const auto ref = reference(scene, ground, ball);
    ASSERT_FALSE(ref.empty());
    ASSERT_EQ(out.pairs.size(), 1u);
    EXPECT_EQ(out.pairs[0].triangles, ref);
}

}  // namespace
}  // namespace isc
