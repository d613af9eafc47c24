// The slices detector alone, against hand-worked numbers and the exact `cpu` reference:
// two boxes overlapping by a known depth (the shared slices, the samples' depth and normal,
// the paper's blind spot for faces parallel to the depth axis), a degenerate overlap
// (touching faces: fattened, counted, served), open meshes, and many bunny / knot poses in
// one call (the atlas) against cpu: object recall 1 with the conservative offset, precision 1
// with the exact check, the tight (shrunk) offset never inventing a pair, and the shader-OR
// path giving the logic-op path's voxels bit for bit.
#include "GlTest.h"

#include "isc/detect/Registry.h"
#include "isc/detectors/CpuDetector.h"
#include "isc/detectors/SlicesDetector.h"
#include "isc/geometry/PoseSampler.h"
#include "isc/mesh/MeshIo.h"
#include "isc/mesh/Shapes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

using namespace isc;

namespace {

std::unique_ptr<Detector> makeSlices(SlicesSettings s = {}) {
    auto d = createSlicesDetector({}, s);
    EXPECT_TRUE(d.has_value()) << (d ? "" : d.error().message);
    return d ? std::move(*d) : nullptr;
}

std::shared_ptr<const Mesh> share(Mesh m) { return std::make_shared<const Mesh>(std::move(m)); }

const PairResult* findPair(const DetectionOutput& out, ObjectPair p) {
    for (const PairResult& r : out.pairs)
        if (r.pair == p) return &r;
    return nullptr;
}

Pose at(Vec3 position) {
    Pose p;
    p.position = position;
    return p;
}

// Two unit cubes (half extent 0.5); B moved by (0.3, 0.2, 0.9): the solids overlap in
// [-0.2, 0.5] x [-0.3, 0.5] x [0.4, 0.5], 0.1 deep along z (the view's depth axis, its
// thinnest extent), B above A.
struct TwoBoxes {
    Scene scene;
    TwoBoxes() {
        const MeshId box = scene.addMesh(share(shapes::box(Vec3(0.5f))));
        scene.addObject(box, at(Vec3(0.0f)));
        scene.addObject(box, at(Vec3(0.3f, 0.2f, 0.9f)));
    }
};

}  // namespace

class SlicesTest : public GlTest {};

TEST_F(SlicesTest, SettingsAreChecked) {
    auto bad = [](SlicesSettings s) { return !createSlicesDetector({}, s).has_value(); };
    SlicesSettings s;
    s.resolution = 2;
    EXPECT_TRUE(bad(s));
    s = {};
    s.slices = 129;
    EXPECT_TRUE(bad(s));
    s = {};
    s.lastSlices = 200;
    EXPECT_TRUE(bad(s));
    s = {};
    s.refine = 9;
    EXPECT_TRUE(bad(s));
    s = {};
    s.offsetUnit = "metre";
    EXPECT_TRUE(bad(s));
    EXPECT_FALSE(createDetector("slices", {.options = {{"slices", "zero"}}}).has_value());
    EXPECT_TRUE(createDetector("slices", {.options = {{"slices", "128"}, {"refine", "2"}}}).has_value());
}

// The whole view volume lies inside both boxes: with the fill, every voxel of the view is
// shared (resolution^2 x slices), one sample per pixel, each 0.1 deep (the overlap along z, to
// within a voxel) with the normal -z (from B, above, toward A) and its point on B's bottom
// face (z = 0.4). The exact check gives cpu's triangle pairs.
TEST_F(SlicesTest, TwoBoxesShareEverySliceOfTheirOverlap) {
    TwoBoxes t;
    const ObjectPair pair{0, 1};
    for (int slices : {16, 32, 100}) {
        SlicesSettings s;
        s.resolution = 16;
        s.slices = slices;
        s.samples = true;
        auto d = makeSlices(s);
        ASSERT_TRUE(d);
        DetectionOutput out;
        ASSERT_TRUE(d->detect(t.scene, {&pair, 1}, out));
        EXPECT_EQ(out.stats.counter("shared_voxels"), 16.0 * 16.0 * slices) << slices;
        EXPECT_EQ(out.stats.counter("fattened_pairs"), 0.0);
        const PairResult* r = findPair(out, pair);
        ASSERT_NE(r, nullptr) << slices;
        ASSERT_EQ(r->samples.size(), 16u * 16u);
        const float voxel = 0.1f / float(slices);
        for (const ContactSample& c : r->samples) {
            EXPECT_NEAR(c.depth, -0.1f, voxel + 1e-5f);
            EXPECT_NEAR(c.normalOnB.z, -1.0f, 1e-5f);
            EXPECT_NEAR(c.pointOnB.z, 0.4f, voxel + 1e-5f);
            EXPECT_GE(c.pointOnB.x, -0.2f);
            EXPECT_LE(c.pointOnB.x, 0.5f);
            EXPECT_GE(c.pointOnB.y, -0.3f);
            EXPECT_LE(c.pointOnB.y, 0.5f);
        }
        DetectionOutput truth;
        ASSERT_TRUE(CpuDetector().detect(t.scene, {&pair, 1}, truth));
        ASSERT_EQ(truth.pairs.size(), 1u);
        EXPECT_EQ(r->triangles, truth.pairs[0].triangles);
    }
}

// The paper's coding (surfaces only) puts A's top face (z = 0.5, the view's far face) in the
// last slice and B's bottom face (z = 0.4, the near face) in the first; the side faces run
// along the depth axis and raster nothing (the paper's section 3.1.2): no shared voxel, a
// missed collision. Surfaces that cross inside the view share the slice where they cross.
TEST_F(SlicesTest, SurfacesOnlyMissFacesAlongTheDepthAxis) {
    TwoBoxes t;
    const ObjectPair pair{0, 1};
    SlicesSettings s;
    s.fill = false;
    s.exact = false;
    auto d = makeSlices(s);
    ASSERT_TRUE(d);
    DetectionOutput out;
    ASSERT_TRUE(d->detect(t.scene, {&pair, 1}, out));
    EXPECT_EQ(out.stats.counter("shared_voxels"), 0.0);
    EXPECT_TRUE(out.pairs.empty());

    // A sphere through a box's top face: the face and the sphere's surface meet in a circle
    // that the surface coding sees.
    Scene scene;
    scene.addObject(scene.addMesh(share(shapes::box(Vec3(0.5f)))), at(Vec3(0.0f)));
    scene.addObject(scene.addMesh(share(shapes::uvSphere(0.3f, 32, 16))), at(Vec3(0.1f, -0.1f, 0.6f)));
    ASSERT_TRUE(d->detect(scene, {&pair, 1}, out));
    EXPECT_GT(out.stats.counter("shared_voxels"), 0.0);
    EXPECT_NE(findPair(out, pair), nullptr);
}

// Touching faces: the boxes' overlap has zero thickness along x. It is fattened to one pixel
// of its longest side (x becomes the depth axis) and counted; the pair is served (never
// dropped nor unserved). The touching faces lie at the middle of the fattened depth: both code
// slice 8 of 16 in every pixel (the fill's slice centres stay apart: A's are 0..7, B's
// 8..15), so exactly resolution^2 voxels are shared, and the exact check finds cpu's
// touching triangles. Swollen by a voxel the overlap is no longer degenerate.
TEST_F(SlicesTest, DegenerateOverlapIsFattenedAndCounted) {
    Scene scene;
    const MeshId box = scene.addMesh(share(shapes::box(Vec3(0.5f))));
    scene.addObject(box, at(Vec3(0.0f)));
    scene.addObject(box, at(Vec3(1.0f, 0.25f, 0.0f)));
    const ObjectPair pair{0, 1};
    DetectionOutput truth;
    ASSERT_TRUE(CpuDetector().detect(scene, {&pair, 1}, truth));
    for (float offset : {0.0f, 1.0f}) {
        SlicesSettings s;
        s.offset = offset;
        auto d = makeSlices(s);
        ASSERT_TRUE(d);
        DetectionOutput out;
        ASSERT_TRUE(d->detect(scene, {&pair, 1}, out));
        EXPECT_EQ(out.stats.counter("served_pairs"), 1.0);
        EXPECT_TRUE(out.unserved.empty());
        if (offset == 0.0f) {
            EXPECT_EQ(out.stats.counter("fattened_pairs"), 1.0);
            EXPECT_EQ(out.stats.counter("shared_voxels"), 32.0 * 32.0);
        } else {
            EXPECT_EQ(out.stats.counter("fattened_pairs"), 0.0);
            EXPECT_GT(out.stats.counter("shared_voxels"), 0.0);
        }
        ASSERT_EQ(truth.pairs.size(), 1u);
        const PairResult* r = findPair(out, pair);
        ASSERT_NE(r, nullptr);
        EXPECT_EQ(r->triangles, truth.pairs[0].triangles);
    }
}

// Open meshes: the fill needs closed ones (the pair is unserved, with a warning); the
// surface-only coding serves it.
TEST_F(SlicesTest, OpenMeshesAreUnservedWithFill) {
    Scene scene;
    // A triangle tilted off every axis, through a sphere's middle (its plane is at y = 0.1
    // above the sphere's centre).
    Result<Mesh> open = Mesh::create("open", {{-1, -0.3f, -1}, {1, -0.1f, -1}, {0, 0.4f, 1}}, {{0, 2, 1}});
    ASSERT_TRUE(open.has_value());
    scene.addObject(scene.addMesh(share(std::move(*open))), at(Vec3(0.0f)));
    scene.addObject(scene.addMesh(share(shapes::uvSphere(0.3f, 32, 16))), at(Vec3(0.0f)));
    const ObjectPair pair{0, 1};
    DetectionOutput out;
    auto filled = makeSlices();
    ASSERT_TRUE(filled);
    EXPECT_TRUE(filled->needsClosedMeshes());
    ASSERT_TRUE(filled->detect(scene, {&pair, 1}, out));
    ASSERT_EQ(out.unserved.size(), 1u);
    EXPECT_FALSE(out.stats.warnings.empty());
    SlicesSettings s;
    s.fill = false;
    auto surfaces = makeSlices(s);
    ASSERT_TRUE(surfaces);
    ASSERT_TRUE(surfaces->detect(scene, {&pair, 1}, out));
    EXPECT_TRUE(out.unserved.empty());
    EXPECT_NE(findPair(out, pair), nullptr);  // the triangle and the sphere cross in a circle
}

namespace {

// Many close poses of two meshes in one scene, one call: pose i's objects are 2i and 2i + 1,
// moved 10 m apart per pose so that only the candidate pairs meet.
struct PoseScene {
    Scene scene;
    std::vector<ObjectPair> candidates;
    PoseScene(std::shared_ptr<const Mesh> a, std::shared_ptr<const Mesh> b, int poses, std::uint64_t seed) {
        const MeshId ma = scene.addMesh(a), mb = scene.addMesh(b);
        const auto sampled = geometry::sampleClosePoses(*a, *b, poses, seed);
        for (std::size_t i = 0; i < sampled.size(); ++i) {
            Pose pa = sampled[i].first, pb = sampled[i].second;
            const Vec3 shift(10.0f * float(i), 0.0f, 0.0f);
            pa.position += shift;
            pb.position += shift;
            const ObjectId oa = scene.addObject(ma, pa), ob = scene.addObject(mb, pb);
            candidates.push_back({oa, ob});
        }
    }
};

struct AccuracyCase {
    const char* name;
    const char* meshB;  // mesh A is the bunny
    int resolution;
    int refine;
};

std::shared_ptr<const Mesh> namedMesh(const std::string& name) {
    if (name == "bunny") {
        auto b = loadBunny(0.1f);
        EXPECT_TRUE(b.has_value()) << (b ? "" : b.error().message);
        return share(std::move(*b));
    }
    return share(shapes::torusKnot(0.35f, 0.08f));  // `isc accuracy --mesh knot`
}

// Poses per mesh pair (sampled close poses, seed 5): about a third collide.
constexpr int kPoses = 120;

}  // namespace

class SlicesAccuracyTest : public SlicesTest, public ::testing::WithParamInterface<AccuracyCase> {};

// Against cpu on kPoses poses in one call: with the conservative offset (one voxel diagonal)
// no colliding pose is missed, and with the exact check every reported pair and triangle
// pair is cpu's (precision 1; here also triangle-pair recall 1). The tight offset (shrunk by
// a voxel diagonal) never reports a pair cpu does not.
TEST_P(SlicesAccuracyTest, ConservativeRecallExactPrecisionTightNeverInvents) {
    const AccuracyCase& c = GetParam();
    PoseScene ps(namedMesh("bunny"), namedMesh(c.meshB), kPoses, 5);
    DetectionOutput truth;
    ASSERT_TRUE(CpuDetector().detect(ps.scene, ps.candidates, truth));
    ASSERT_GT(truth.pairs.size(), std::size_t(kPoses / 5));

    SlicesSettings s;
    s.resolution = c.resolution;
    s.refine = c.refine;
    s.offset = 1.0f;
    auto exact = makeSlices(s);
    ASSERT_TRUE(exact);
    DetectionOutput out;
    ASSERT_TRUE(exact->detect(ps.scene, ps.candidates, out));
    EXPECT_TRUE(out.unserved.empty());
    ASSERT_EQ(out.pairs.size(), truth.pairs.size());
    for (std::size_t i = 0; i < truth.pairs.size(); ++i) {
        EXPECT_EQ(out.pairs[i].pair, truth.pairs[i].pair);
        EXPECT_EQ(out.pairs[i].triangles, truth.pairs[i].triangles) << "pair " << i;
    }

    s.exact = false;  // voxel verdicts: samples only
    auto conservative = makeSlices(s);
    ASSERT_TRUE(conservative);
    ASSERT_TRUE(conservative->detect(ps.scene, ps.candidates, out));
    for (const PairResult& t : truth.pairs) EXPECT_NE(findPair(out, t.pair), nullptr) << "missed " << t.pair.a;
    EXPECT_GE(out.pairs.size(), truth.pairs.size());

    s.offset = -1.0f;
    auto tight = makeSlices(s);
    ASSERT_TRUE(tight);
    ASSERT_TRUE(tight->detect(ps.scene, ps.candidates, out));
    for (const PairResult& r : out.pairs) EXPECT_NE(findPair(truth, r.pair), nullptr) << "invented " << r.pair.a;
    EXPECT_GT(out.pairs.size(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Poses, SlicesAccuracyTest,
                         ::testing::Values(AccuracyCase{"bunny_bunny_32", "bunny", 32, 0},
                                           AccuracyCase{"bunny_knot_32", "knot", 32, 0},
                                           AccuracyCase{"bunny_bunny_64_refined", "bunny", 64, 2},
                                           AccuracyCase{"bunny_knot_16_refined", "knot", 16, 1}),
                         [](const auto& param) { return std::string(param.param.name); });

// The shader-OR path (atomics into a storage buffer) codes the same bits as glLogicOp: the
// same shared voxels, pairs and samples' count on the same poses, with and without the fill,
// with 128 slices (two targets).
TEST_F(SlicesTest, ShaderOrPathMatchesLogicOp) {
    PoseScene ps(namedMesh("bunny"), namedMesh("knot"), 40, 9);
    for (bool fill : {true, false}) {
        for (int slices : {16, 128}) {
            SlicesSettings s;
            s.fill = fill;
            s.slices = slices;
            s.exact = false;
            auto logic = makeSlices(s);
            s.logicOp = false;
            auto shader = makeSlices(s);
            ASSERT_TRUE(logic && shader);
            EXPECT_TRUE(static_cast<SlicesDetector&>(*shader).usesShaderOr());
            DetectionOutput a, b;
            ASSERT_TRUE(logic->detect(ps.scene, ps.candidates, a));
            ASSERT_TRUE(shader->detect(ps.scene, ps.candidates, b));
            EXPECT_GT(a.stats.counter("shared_voxels"), 0.0);
            EXPECT_EQ(a.stats.counter("shared_voxels"), b.stats.counter("shared_voxels")) << fill << slices;
            EXPECT_EQ(a.stats.counter("samples"), b.stats.counter("samples"));
            ASSERT_EQ(a.pairs.size(), b.pairs.size());
            for (std::size_t i = 0; i < a.pairs.size(); ++i) EXPECT_EQ(a.pairs[i].pair, b.pairs[i].pair);
            EXPECT_EQ(b.stats.counter("shader_or"), 1.0);
        }
    }
}

// Refinement renders only the pairs that collided, in their collision volume: the second
// rendering has no more views than the first found colliding pairs, and the debug views
// describe the last batch's atlas.
TEST_F(SlicesTest, RefinementRendersOnlyCollidingPairs) {
    PoseScene ps(namedMesh("bunny"), namedMesh("bunny"), 30, 3);
    SlicesSettings s;
    s.exact = false;
    auto once = makeSlices(s);
    s.refine = 1;
    auto refined = makeSlices(s);
    ASSERT_TRUE(once && refined);
    DetectionOutput a, b;
    ASSERT_TRUE(once->detect(ps.scene, ps.candidates, a));
    ASSERT_TRUE(refined->detect(ps.scene, ps.candidates, b));
    EXPECT_EQ(a.stats.counter("renderings"), 30.0);
    EXPECT_EQ(b.stats.counter("renderings"), 30.0 + a.stats.counter("voxel_colliding_pairs"));
    EXPECT_LE(b.stats.counter("voxel_colliding_pairs"), a.stats.counter("voxel_colliding_pairs"));
    const auto views = refined->debugViews();
    ASSERT_EQ(views.size(), 2u);
    EXPECT_GT(views[0].width, 0);
    EXPECT_NE(views[0].buffer, 0u);
}

// The atlas: pairs rendered together (in tiles side by side, over several batches at 256 px:
// 16 tiles a batch) give what each pair gives alone: the same pairs, and the same shared
// voxels and samples up to the rasterizer's sub-pixel snapping, which sees a vertex at a
// different atlas position with different float rounding (measured: 1 voxel in 414738 here;
// allowed: 1e-4 of them). A fragment bleeding into a neighbour's tile (whole rows of pixels),
// or a batch seeing the last batch's bits, would be far beyond that. A sample lost between
// the read-back's first and second copy would show in the samples' sum.
TEST_F(SlicesTest, TilesAndBatchesAreIndependent) {
    PoseScene ps(namedMesh("bunny"), namedMesh("knot"), 40, 13);
    SlicesSettings s;
    s.resolution = 256;
    s.exact = false;
    auto d = makeSlices(s);
    ASSERT_TRUE(d);
    DetectionOutput all, one;
    ASSERT_TRUE(d->detect(ps.scene, ps.candidates, all));
    EXPECT_EQ(all.stats.counter("batches"), 3.0);
    // The read-back copies as many samples as the last batch found (1024 on a fresh detector):
    // here a batch finds more and reads the rest in a second copy, the single pairs below
    // copy theirs in one; the sums must agree all the same.
    EXPECT_GE(all.stats.counter("late_copies"), 1.0);
    double voxels = 0, samples = 0, pairs = 0;
    for (const ObjectPair& p : ps.candidates) {
        ASSERT_TRUE(d->detect(ps.scene, {&p, 1}, one));
        voxels += one.stats.counter("shared_voxels");
        samples += one.stats.counter("samples");
        pairs += double(one.pairs.size());
        if (!one.pairs.empty()) {
            EXPECT_NE(findPair(all, p), nullptr);
        }
    }
    EXPECT_GT(voxels, 0.0);
    EXPECT_NEAR(all.stats.counter("shared_voxels"), voxels, 1e-4 * voxels);
    EXPECT_NEAR(all.stats.counter("samples"), samples, 1e-4 * samples + 1.0);
    EXPECT_EQ(double(all.pairs.size()), pairs);
}

// Culling (settings.cull, the default) draws only the triangles that can reach each view, and
// codes exactly the bits the whole objects code: the same shared voxels, samples and pairs,
// with and without the fill, swollen and not, refined; with far fewer triangles drawn.
TEST_F(SlicesTest, CullingKeepsEveryBit) {
    PoseScene ps(namedMesh("bunny"), namedMesh("knot"), 40, 21);
    for (bool fill : {true, false}) {
        for (float offset : {0.0f, 1.0f}) {
            SlicesSettings s;
            s.fill = fill;
            s.offset = offset;
            s.refine = 1;
            s.exact = false;
            auto culled = makeSlices(s);
            s.cull = false;
            auto whole = makeSlices(s);
            ASSERT_TRUE(culled && whole);
            DetectionOutput a, b;
            ASSERT_TRUE(culled->detect(ps.scene, ps.candidates, a));
            ASSERT_TRUE(whole->detect(ps.scene, ps.candidates, b));
            EXPECT_GT(b.stats.counter("shared_voxels"), 0.0);
            EXPECT_EQ(a.stats.counter("shared_voxels"), b.stats.counter("shared_voxels")) << fill << offset;
            EXPECT_EQ(a.stats.counter("samples"), b.stats.counter("samples"));
            EXPECT_EQ(a.stats.counter("renderings"), b.stats.counter("renderings"));
            ASSERT_EQ(a.pairs.size(), b.pairs.size());
            for (std::size_t i = 0; i < a.pairs.size(); ++i) EXPECT_EQ(a.pairs[i].pair, b.pairs[i].pair);
            EXPECT_LT(a.stats.counter("triangles_drawn"), 0.8 * b.stats.counter("triangles_drawn"));
            std::printf("[fill=%d offset=%g] triangles drawn: %.0f culled, %.0f whole\n", int(fill), double(offset),
                        a.stats.counter("triangles_drawn"), b.stats.counter("triangles_drawn"));
        }
    }
}
