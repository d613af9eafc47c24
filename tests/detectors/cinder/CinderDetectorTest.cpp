// The "cinder" detector (papers/000, CInDeR) against the exact CPU reference: precision exactly
// 1, object recall on sampled close poses, the normals it encodes, self-interference, open
// meshes, more objects than the 8-bit object slots, and the paper's lossy mip-map read-back.
#include "isc/detectors/CinderDetector.h"
#include "isc/detectors/CpuDetector.h"
#include "isc/geometry/PoseSampler.h"
#include "isc/geometry/Reference.h"
#include "isc/mesh/MeshIo.h"
#include "isc/mesh/Shapes.h"

#include "GlTest.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <set>

namespace isc {
namespace {

std::unique_ptr<Detector> makeCinder(const CinderSettings& s = {}, DetectorSettings common = {}) {
    auto d = createCinderDetector(common, s);
    EXPECT_TRUE(d.has_value()) << (d ? "" : d.error().message);
    return d ? std::move(*d) : nullptr;
}

std::shared_ptr<Mesh> bunnyMesh() {
    auto b = loadBunny(0.1f);
    EXPECT_TRUE(b.has_value()) << (b ? "" : b.error().message);
    return std::make_shared<Mesh>(std::move(*b));
}

std::vector<TrianglePair> reference(const Scene& scene, ObjectId a, ObjectId b) {
    geometry::PosedMesh pa(scene.objectMesh(a)), pb(scene.objectMesh(b));
    pa.update(scene.pose(a));
    pb.update(scene.pose(b));
    std::vector<TrianglePair> pairs;
    geometry::intersect(pa, pb, pairs);
    return pairs;
}

const PairResult* findPair(const DetectionOutput& out, ObjectPair p) {
    for (const PairResult& r : out.pairs)
        if (r.pair == p) return &r;
    return nullptr;
}

class CinderDetectorTest : public GlTest {};

// Bunny against bunny on close poses: every reported triangle pair is exact, every colliding
// pose is found.
TEST_F(CinderDetectorTest, BunnyPairsMatchTheReference) {
    auto bunny = bunnyMesh();
    Scene scene;
    const MeshId m = scene.addMesh(bunny);
    const ObjectId a = scene.addObject(m), b = scene.addObject(m);
    auto cinder = makeCinder();
    const std::vector<ObjectPair> candidates = {{a, b}};
    std::size_t colliding = 0, found = 0, falsePairs = 0, reported = 0, exact = 0, samples = 0;
    const int kPoses = 60;
    for (auto [pa, pb] : geometry::sampleClosePoses(*bunny, *bunny, kPoses, 5)) {
        scene.setPose(a, pa);
        scene.setPose(b, pb);
        DetectionOutput out;
        ASSERT_TRUE(cinder->detect(scene, candidates, out));
        const auto ref = reference(scene, a, b);
        const PairResult* r = findPair(out, {a, b});
        colliding += ref.empty() ? 0 : 1;
        found += (!ref.empty() && r) ? 1 : 0;
        falsePairs += (ref.empty() && r) ? 1 : 0;
        if (r) {
            samples += r->samples.size();
            for (const TrianglePair& p : r->triangles) {
                ++reported;
                exact += std::binary_search(ref.begin(), ref.end(), p) ? 1 : 0;
            }
        }
    }
    std::printf("[ cinder ] %d poses, %zu colliding, %zu found, %zu false, %zu/%zu exact triangle pairs, %zu samples\n",
                kPoses, colliding, found, falsePairs, exact, reported, samples);
    EXPECT_EQ(found, colliding);
    EXPECT_EQ(falsePairs, 0u);
    EXPECT_EQ(exact, reported);
    EXPECT_GT(samples, 0u);
}

// The cull (on by default) may drop what lies outside the pairs' overlap box across the view,
// never a surface in front of an edge point along its ray: the parity needs every crossing. A
// box 10 m long along z, a cube poking 2 cm into its side at mid-length, one axis (z) and the
// paper's inside test alone (proximity 0): the cube's edges inside the long box are inside only
// because the box's face 5 m in front of them (far outside the overlap box in depth, inside its
// footprint) is counted; its side faces are edge-on along z and draw nothing. The box's far
// side face and the cube's far face are outside the footprint: culled.
TEST_F(CinderDetectorTest, CullKeepsEveryCrossingInFrontAlongTheRay) {
    Scene scene;
    // The cube stays clear of the diagonal of the long box's +x face (y = +-0.02 z), so no edge of
    // the long box enters the cube: the pair rests on the cube's edges inside the long box.
    const ObjectId a = scene.addObject(scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.03f)))),
                                       {Vec3(0.11f, 0.05f, 0.007f), Quat(1, 0, 0, 0)});
    const ObjectId b = scene.addObject(scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.1f, 0.1f, 5.0f)))),
                                       {Vec3(0.0f), Quat(1, 0, 0, 0)});
    const std::vector<ObjectPair> candidates = {{a, b}};
    const auto ref = reference(scene, a, b);
    ASSERT_FALSE(ref.empty());
    for (bool cull : {true, false}) {
        CinderSettings s;
        s.axes = 1;
        s.proximity = 0.0f;
        s.cull = cull;
        auto cinder = makeCinder(s);
        DetectionOutput out;
        ASSERT_TRUE(cinder->detect(scene, candidates, out));
        const PairResult* r = findPair(out, {a, b});
        std::printf("[ cinder ] long box, cull=%d: triangles drawn %.0f of %.0f, edges %.0f of %.0f, inside %.0f, near %.0f\n",
                    int(cull), out.stats.counter("triangles_drawn"), out.stats.counter("triangles_in"),
                    out.stats.counter("edges_drawn"), out.stats.counter("edges_in"), out.stats.counter("inside_fragments"),
                    out.stats.counter("near_fragments"));
        ASSERT_NE(r, nullptr) << "cull=" << cull;
        EXPECT_EQ(r->triangles, ref) << "cull=" << cull;
        EXPECT_GT(out.stats.counter("inside_fragments"), 0.0) << "cull=" << cull;
        EXPECT_EQ(out.stats.counter("triangles_in"), 24.0);
        EXPECT_EQ(out.stats.counter("near_fragments"), 0.0);  // found by the winding alone
        if (cull) {
            EXPECT_LT(out.stats.counter("triangles_drawn"), 24.0);
            EXPECT_LT(out.stats.counter("edges_drawn"), out.stats.counter("edges_in"));
        } else {
            EXPECT_EQ(out.stats.counter("triangles_drawn"), 24.0);
        }
    }
}

// Bunny pairs with and without the cull: the same pairs and the same exact triangle pairs on
// every pose, every colliding pose found (one axis, the inside test alone: no other axis or proximity
// sample to make up for a lost crossing), with far fewer triangles drawn.
TEST_F(CinderDetectorTest, CullLosesNothingOnBunnyPairs) {
    auto bunny = bunnyMesh();
    Scene scene;
    const MeshId m = scene.addMesh(bunny);
    const ObjectId a = scene.addObject(m), b = scene.addObject(m);
    const std::vector<ObjectPair> candidates = {{a, b}};
    CinderSettings s;
    s.axes = 1;
    s.proximity = 0.0f;
    auto culled = makeCinder(s);
    s.cull = false;
    auto whole = makeCinder(s);
    double in = 0, drawn = 0, insideCulled = 0, insideWhole = 0;
    std::size_t colliding = 0, foundCulled = 0, foundWhole = 0;
    for (auto [pa, pb] : geometry::sampleClosePoses(*bunny, *bunny, 40, 11)) {
        scene.setPose(a, pa);
        scene.setPose(b, pb);
        DetectionOutput oc, ow;
        ASSERT_TRUE(culled->detect(scene, candidates, oc));
        ASSERT_TRUE(whole->detect(scene, candidates, ow));
        const auto ref = reference(scene, a, b);
        const PairResult* rc = findPair(oc, {a, b});
        const PairResult* rw = findPair(ow, {a, b});
        colliding += ref.empty() ? 0 : 1;
        foundCulled += rc ? 1 : 0;
        foundWhole += rw ? 1 : 0;
        EXPECT_EQ(rc != nullptr, rw != nullptr);
        if (rc) {  // exact (at one axis without proximity the triangle pairs need not all be found)
            EXPECT_TRUE(std::includes(ref.begin(), ref.end(), rc->triangles.begin(), rc->triangles.end()));
        }
        if (rc && rw) {
            EXPECT_EQ(rc->triangles, rw->triangles);
        }
        in += oc.stats.counter("triangles_in");
        drawn += oc.stats.counter("triangles_drawn");
        insideCulled += oc.stats.counter("inside_fragments");
        insideWhole += ow.stats.counter("inside_fragments");
    }
    std::printf("[ cinder ] cull: %zu colliding, found %zu culled / %zu whole; triangles drawn %.0f of %.0f; "
                "inside fragments %.0f culled / %.0f whole\n",
                colliding, foundCulled, foundWhole, drawn, in, insideCulled, insideWhole);
    EXPECT_GT(colliding, 0u);
    EXPECT_EQ(foundCulled, colliding);
    EXPECT_LT(drawn, 0.6 * in);
    EXPECT_GE(insideCulled, insideWhole);  // an over-full pixel has no winding: the cull only empties pixels
}


TEST_F(CinderDetectorTest, RejectsBadSettingsWithAMessage) {
    auto check = [](CinderSettings s, const char* what) {
        auto d = createCinderDetector({}, s);
        ASSERT_FALSE(d.has_value());
        EXPECT_NE(d.error().message.find(what), std::string::npos) << d.error().message;
    };
    CinderSettings s;
    s.resolution = 100;
    check(s, "resolution");
    s = {};
    s.axes = 2;
    check(s, "axes");
    s = {};
    s.layout = "tiles";
    check(s, "layout");
    s = {};
    s.readback = "fast";
    check(s, "readback");
    s = {};
    s.resolution = 16;
    s.mipLevels = 5;
    check(s, "mipLevels");
    s = {};
    s.maxLayers = 2;
    check(s, "maxLayers");
    s = {};
    s.resolution = 2048;
    s.maxLayers = 64;  // 2 GB of slots per tile: over any GL's storage block limit
    check(s, "GL_MAX_SHADER_STORAGE_BLOCK_SIZE");
}

// A box with one triangle missing cannot be a volume: its pairs come back unserved, with a
// warning naming the object; the closed pair of the same call is served.
TEST_F(CinderDetectorTest, OpenMeshIsRefusedAsAVolumeAndNamed) {
    const Mesh closed = shapes::box(Vec3(0.5f));
    std::vector<UVec3> tris(closed.triangles().begin(), closed.triangles().end() - 1);
    auto open = Mesh::create("open box", std::vector<Vec3>(closed.vertices().begin(), closed.vertices().end()),
                             std::move(tris));
    ASSERT_TRUE(open.has_value());
    ASSERT_FALSE(open->isClosed());
    Scene scene;
    const MeshId mc = scene.addMesh(std::make_shared<Mesh>(closed));
    const MeshId mo = scene.addMesh(std::make_shared<Mesh>(std::move(*open)));
    const ObjectId a = scene.addObject(mc, {Vec3(0.0f), Quat(1, 0, 0, 0)});
    const ObjectId b = scene.addObject(mo, {Vec3(0.7f, 0.1f, 0.0f), Quat(1, 0, 0, 0)});
    const ObjectId c = scene.addObject(mc, {Vec3(-0.7f, 0.2f, 0.1f), glm::angleAxis(0.3f, glm::normalize(Vec3(1, 1, 0)))});
    auto cinder = makeCinder();
    const std::vector<ObjectPair> candidates = {{a, b}, {a, c}};
    DetectionOutput out;
    ASSERT_TRUE(cinder->detect(scene, candidates, out));
    ASSERT_EQ(out.unserved.size(), 1u);
    EXPECT_EQ(out.unserved[0], (ObjectPair{a, b}));
    ASSERT_EQ(out.stats.warnings.size(), 1u);
    EXPECT_NE(out.stats.warnings[0].find("object 1 has an open mesh"), std::string::npos) << out.stats.warnings[0];
    const PairResult* r = findPair(out, {a, c});
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->triangles, reference(scene, a, c));
    EXPECT_EQ(findPair(out, {a, b}), nullptr);
}

// The scene layout codes an object's slot in 8 bits (the paper's colour channels): 300 boxes in
// a chain (299 touching pairs) need two view groups, and exactly the reference's colliding
// pairs come out, each triangle pair exact, none with a wrapped id.
TEST_F(CinderDetectorTest, MoreObjectsThanTheSlotsHoldMakeASecondPass) {
    Scene scene;
    const MeshId m = scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.06f, 0.05f, 0.05f))));
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> tilt(-0.2f, 0.2f);
    const int kObjects = 300;
    for (int i = 0; i < kObjects; ++i)
        scene.addObject(m, {Vec3(0.1f * float(i), 0.02f * float(i % 3), 0.0f),
                            glm::angleAxis(tilt(rng), glm::normalize(Vec3(tilt(rng), 1.0f, tilt(rng))))});
    std::vector<ObjectPair> candidates;
    for (ObjectId i = 0; i + 1 < ObjectId(kObjects); ++i) candidates.push_back({i, i + 1});
    CinderSettings s;
    s.layout = "scene";
    s.resolution = 1024;
    s.maxLayers = 16;  // a 1024^2 tile's slots at 16 layers are 128 MB, llvmpipe's storage block limit
    auto cinder = makeCinder(s);
    DetectionOutput out;
    ASSERT_TRUE(cinder->detect(scene, candidates, out));
    EXPECT_EQ(out.stats.counter("view_groups"), 2.0);
    std::size_t colliding = 0;
    for (const ObjectPair& p : candidates) {
        const auto ref = reference(scene, p.a, p.b);
        colliding += ref.empty() ? 0 : 1;
        const PairResult* r = findPair(out, p);
        EXPECT_EQ(r != nullptr, !ref.empty()) << "pair " << p.a << "," << p.b;
        if (r) {  // precision 1 (the view along the row overflows its slots: triangle recall may be < 1)
            for (const TrianglePair& t : r->triangles) EXPECT_TRUE(std::binary_search(ref.begin(), ref.end(), t));
        }
    }
    EXPECT_GT(colliding, 250u);
    for (const PairResult& r : out.pairs) EXPECT_EQ(r.pair.b, r.pair.a + 1);
}

// The read-back copies a batch's hits into the mapped buffer as far as the last batch found
// (1024 on a fresh detector); more take a second copy before they are read. A row of deeply
// overlapping bunnies gives thousands of hits: the fresh detector's first call must read all of
// them (a second copy, counted) and answer exactly what its second call answers (one copy, the
// size learnt), every triangle pair exact and every colliding pair found.
TEST_F(CinderDetectorTest, HitsPastTheFirstCopyAreReadInASecond) {
    auto bunny = bunnyMesh();
    Scene scene;
    const MeshId m = scene.addMesh(bunny);
    const Aabb box = bunny->localBounds();
    const float step = 0.4f * (box.max.x - box.min.x);
    const int kObjects = 6;
    for (int i = 0; i < kObjects; ++i)
        scene.addObject(m, {Vec3(step * float(i), 0.0f, 0.0f), glm::angleAxis(0.3f * float(i), Vec3(0, 1, 0))});
    std::vector<ObjectPair> candidates;
    for (ObjectId i = 0; i + 1 < ObjectId(kObjects); ++i) candidates.push_back({i, i + 1});
    auto cinder = makeCinder();
    DetectionOutput first, second;
    ASSERT_TRUE(cinder->detect(scene, candidates, first));
    ASSERT_TRUE(cinder->detect(scene, candidates, second));
    std::printf("[ cinder ] hits %.0f / %.0f, late copies %.0f / %.0f\n", first.stats.counter("hits"),
                second.stats.counter("hits"), first.stats.counter("late_copies"), second.stats.counter("late_copies"));
    ASSERT_GT(first.stats.counter("hits"), 1024.0 + 256.0) << "the scene must overflow the first copy";
    EXPECT_GE(first.stats.counter("late_copies"), 1.0);
    EXPECT_EQ(second.stats.counter("late_copies"), 0.0);
    // The GPU's hit count of two identical calls: equal on llvmpipe and the H200; on an H100 it
    // once differed by 1 of 113,697 (h100-2026-11-27-late-review.txt; order-dependent, we
    // suspect the per-pixel slot cap, maxLayers, where more fragments meet than it holds), so
    // the counts are compared to 1e-4 and the answers exactly.
    EXPECT_NEAR(first.stats.counter("hits"), second.stats.counter("hits"), 1e-4 * second.stats.counter("hits"));
    ASSERT_EQ(first.pairs.size(), second.pairs.size());
    for (std::size_t i = 0; i < first.pairs.size(); ++i) {
        EXPECT_EQ(first.pairs[i].pair, second.pairs[i].pair);
        EXPECT_EQ(first.pairs[i].triangles, second.pairs[i].triangles);
        EXPECT_EQ(first.pairs[i].samples.size(), second.pairs[i].samples.size());
    }
    for (const ObjectPair& p : candidates) {
        const auto ref = reference(scene, p.a, p.b);
        const PairResult* r = findPair(first, p);
        ASSERT_FALSE(ref.empty()) << "pair " << p.a << "," << p.b << " must overlap";
        ASSERT_NE(r, nullptr) << "pair " << p.a << "," << p.b;
        for (const TrianglePair& t : r->triangles) EXPECT_TRUE(std::binary_search(ref.begin(), ref.end(), t));
    }
}

// Self-interference is prevented, not filtered: an object's edges lie on its own surface (half
// of them would count as inside it), yet two separate tori whose boxes overlap give no hit
// at all with the paper's inside test alone (proximity 0), in either layout.
TEST_F(CinderDetectorTest, OwnEdgesNeverCountAgainstOwnVolume) {
    Scene scene;
    const MeshId m = scene.addMesh(std::make_shared<Mesh>(shapes::torus(0.5f, 0.15f, 32, 16)));
    const ObjectId a = scene.addObject(m, {Vec3(0.0f), Quat(1, 0, 0, 0)});
    const ObjectId b = scene.addObject(m, {Vec3(0.5f, 0.0f, 0.0f), glm::angleAxis(1.5707964f, Vec3(1, 0, 0))});
    ASSERT_TRUE(reference(scene, a, b).empty());
    for (const char* layout : {"pairs", "scene"}) {
        CinderSettings s;
        s.layout = layout;
        s.proximity = 0.0f;
        auto cinder = makeCinder(s);
        DetectionOutput out;
        const std::vector<ObjectPair> candidates = {{a, b}};
        ASSERT_TRUE(cinder->detect(scene, candidates, out));
        EXPECT_EQ(out.stats.counter("views"), 3.0);
        EXPECT_GT(out.stats.counter("edges_drawn"), 0.0);
        EXPECT_EQ(out.stats.counter("inside_fragments"), 0.0) << layout;
        EXPECT_EQ(out.stats.counter("hits"), 0.0) << layout;
        EXPECT_TRUE(out.pairs.empty());
    }
}

// The paper's read-back (section 4.3.2.2) in its own layout (one view of the scene): eight
// interpenetrating pairs of small boxes side by side; reduced until each tile is one pixel, the
// mip-map keeps at most one pair per axis (three), where the compacted read-back keeps all
// eight. In pair tiles the same reduction loses none (a tile holds one pair).
TEST_F(CinderDetectorTest, MipmapReadbackLosesPairsWhereTheyShareAPixel) {
    Scene scene;
    const MeshId m = scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.1f))));
    std::vector<ObjectPair> candidates;
    for (int i = 0; i < 8; ++i) {
        const Vec3 at(0.5f * float(i), 0.0f, 0.0f);
        const ObjectId a = scene.addObject(m, {at, Quat(1, 0, 0, 0)});
        const ObjectId b = scene.addObject(m, {at + Vec3(0.15f, 0.05f, 0.02f), glm::angleAxis(0.4f, Vec3(0, 0, 1))});
        candidates.push_back({a, b});
    }
    auto run = [&](const char* layout, const char* readback, int levels) {
        CinderSettings s;
        s.layout = layout;
        s.readback = readback;
        s.resolution = 64;
        s.mipLevels = levels;
        s.maxLayers = 64;  // along x the scene view crosses all sixteen boxes
        auto cinder = makeCinder(s);
        DetectionOutput out;
        EXPECT_TRUE(cinder->detect(scene, candidates, out));
        for (const PairResult& r : out.pairs) EXPECT_EQ(r.triangles, reference(scene, r.pair.a, r.pair.b));
        return out.pairs.size();
    };
    EXPECT_EQ(run("scene", "compact", 1), 8u);
    EXPECT_EQ(run("pairs", "mipmap", 6), 8u);
    EXPECT_EQ(run("scene", "mipmap", 1), 8u);
    const std::size_t lost = run("scene", "mipmap", 6);
    EXPECT_LE(lost, 3u);
    EXPECT_GE(lost, 1u);
}

// Small spheres sunk into the bunny (the snow-bunny case): where a sphere's edge is inside the
// bunny, the sample's normal (decoded from the GPU's 2 x 16-bit code) is the bunny's outward
// normal there: the mean angle to the exact normal (of the bunny triangle nearest the sample's
// edge point) is at most 5 degrees (measured 4.6). Where a bunny edge is inside a sphere the
// normal is the sphere's, whose 16 x 8 facets are coarse beside the pixel (measured 25 degrees:
// the crossing a pixel sees is often a neighbouring facet's); checked loosely.
TEST_F(CinderDetectorTest, EncodedNormalsAreTheSurfaceNormals) {
    auto bunny = bunnyMesh();
    const Mesh sphere = shapes::uvSphere(0.03f, 16, 8);
    Scene scene;
    const ObjectId s = scene.addObject(scene.addMesh(std::make_shared<Mesh>(sphere)));
    const ObjectId b = scene.addObject(scene.addMesh(bunny));
    auto cinder = makeCinder();
    // Nearest triangle of `mesh` at `pose` to `p`: its outward unit normal (double, brute force).
    auto exactNormal = [](const Mesh& mesh, const Pose& pose, const Vec3& p, double& distance) {
        double best = 1e30;
        DVec3 normal(0.0);
        for (const UVec3& t : mesh.triangles()) {
            const DVec3 A = pose.applyDouble(mesh.vertices()[t.x]), B = pose.applyDouble(mesh.vertices()[t.y]),
                        C = pose.applyDouble(mesh.vertices()[t.z]);
            // Closest point on the triangle (Ericson, Real-Time Collision Detection 5.1.5).
            const DVec3 P(p), ab = B - A, ac = C - A, ap = P - A;
            const double d1 = glm::dot(ab, ap), d2 = glm::dot(ac, ap);
            DVec3 q;
            const DVec3 bp = P - B, cp = P - C;
            const double d3 = glm::dot(ab, bp), d4 = glm::dot(ac, bp), d5 = glm::dot(ab, cp), d6 = glm::dot(ac, cp);
            const double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
            if (d1 <= 0 && d2 <= 0) q = A;
            else if (d3 >= 0 && d4 <= d3) q = B;
            else if (d6 >= 0 && d5 <= d6) q = C;
            else if (vc <= 0 && d1 >= 0 && d3 <= 0) q = A + ab * (d1 / (d1 - d3));
            else if (vb <= 0 && d2 >= 0 && d6 <= 0) q = A + ac * (d2 / (d2 - d6));
            else if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) q = B + (C - B) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
            else {
                const double den = 1.0 / (va + vb + vc);
                q = A + ab * (vb * den) + ac * (vc * den);
            }
            const double d = glm::length(P - q);
            if (d < best) {
                best = d;
                normal = glm::normalize(glm::cross(ab, ac));
            }
        }
        distance = best;
        return Vec3(normal);
    };
    // Distance from `p` to the nearest edge of `mesh` at `pose`.
    auto edgeDistance = [](const Mesh& mesh, const Pose& pose, const Vec3& p) {
        double best = 1e30;
        const DVec3 P(p);
        for (const UVec3& t : mesh.triangles()) {
            const DVec3 c[3] = {pose.applyDouble(mesh.vertices()[t.x]), pose.applyDouble(mesh.vertices()[t.y]),
                                pose.applyDouble(mesh.vertices()[t.z])};
            for (int k = 0; k < 3; ++k) {
                const DVec3 d = c[(k + 1) % 3] - c[k];
                const double u = std::clamp(glm::dot(P - c[k], d) / std::max(glm::dot(d, d), 1e-300), 0.0, 1.0);
                best = std::min(best, glm::length(P - (c[k] + u * d)));
            }
        }
        return best;
    };
    std::mt19937 rng(7);
    std::uniform_int_distribution<std::size_t> pick(0, bunny->triangleCount() - 1);
    double sumAngle = 0.0, sumOther = 0.0;
    std::size_t count = 0, countOther = 0, contacts = 0;
    for (int k = 0; k < 24; ++k) {
        // A sphere centred just inside the bunny's surface at a random triangle.
        const UVec3 t = bunny->triangles()[pick(rng)];
        const Vec3 A = bunny->vertices()[t.x], B = bunny->vertices()[t.y], C = bunny->vertices()[t.z];
        const Vec3 n = glm::normalize(glm::cross(B - A, C - A));
        scene.setPose(s, {(A + B + C) / 3.0f + n * 0.015f, Quat(1, 0, 0, 0)});
        DetectionOutput out;
        const std::vector<ObjectPair> candidates = {{s, b}};
        ASSERT_TRUE(cinder->detect(scene, candidates, out));
        if (out.pairs.empty()) continue;
        ++contacts;
        for (const ContactSample& cs : out.pairs[0].samples) {
            // pointOnA = pointOnB + normalOnB * depth. The edge point lies on an edge of its own
            // mesh: the sphere's (inside the bunny: onA) or the bunny's (inside the sphere: pointOnB);
            // the other point is on the volume's face plane.
            const Vec3 onA = cs.pointOnB + cs.normalOnB * cs.depth;
            const bool sphereEdge = edgeDistance(sphere, scene.pose(s), onA) <= edgeDistance(*bunny, scene.pose(b), cs.pointOnB);
            double unused = 0;
            const Vec3 exact = sphereEdge ? exactNormal(*bunny, scene.pose(b), onA, unused)
                                          : -exactNormal(sphere, scene.pose(s), cs.pointOnB, unused);
            const float c = std::clamp(glm::dot(glm::normalize(cs.normalOnB), exact), -1.0f, 1.0f);
            const double angle = double(std::acos(c)) * 180.0 / M_PI;
            (sphereEdge ? sumAngle : sumOther) += angle;
            ++(sphereEdge ? count : countOther);
        }
    }
    const double mean = count ? sumAngle / double(count) : 180.0;
    const double meanOther = countOther ? sumOther / double(countOther) : 180.0;
    std::printf("[ cinder ] normals: %zu contacts; the bunny's normal (a sphere's edge inside it): %zu samples, mean "
                "angle to the exact normal %.3f deg; a sphere's (the bunny's edge inside it, 16 x 8 facets): %zu "
                "samples, %.3f deg\n",
                contacts, count, mean, countOther, meanOther);
    EXPECT_GE(contacts, 20u);
    EXPECT_GT(count, 500u);
    EXPECT_LE(mean, 5.0);
    EXPECT_LE(meanOther, 30.0);
}

// The octahedral code: every unit normal survives the 2 x 16-bit round trip within 0.05 degrees.
TEST(CinderNormalCode, RoundTripIsWithinFiveHundredthsOfADegree) {
    std::mt19937 rng(1);
    std::normal_distribution<float> g;
    double worst = 0;
    for (int i = 0; i < 100000; ++i) {
        const Vec3 n = glm::normalize(Vec3(g(rng), g(rng), g(rng)));
        const Vec3 d = decodeCinderNormal(encodeCinderNormal(n));
        worst = std::max(worst, double(std::acos(std::clamp(glm::dot(n, d), -1.0f, 1.0f))) * 180.0 / M_PI);
    }
    std::printf("[ cinder ] normal code: worst round-trip error %.5f deg\n", worst);
    EXPECT_LT(worst, 0.05);
}


// A bunny resting on the ground as the dispatcher gives it to the detector: both swollen by half
// the margin (0.02 m), so the swollen surfaces overlap by the margin plus the real penetration
// (8.3 mm: where the bunny settled with cinder before 2026-11-25's fix), 48.3 mm in all, more
// than the bunny's edges are long. The deepest sample must reach the bunny's deepest vertex
// (its depth below the ground's top, exactly), and no sample may be deeper than the overlap:
// before the fix the samples came only from edges that cross the ground's top and stopped at
// 42.7 mm (the contacts then settled the bunny 8 mm too deep), and a ground edge inside the
// bunny took its depth from a tilted plane 20 cm away (207 mm).
TEST_F(CinderDetectorTest, RestingBunnySamplesReachItsDeepestVertex) {
    const Mesh real = *loadBunny(0.1f);
    auto swollen = std::make_shared<Mesh>(shapes::offset(real, 0.02f));
    Scene scene;
    const ObjectId ground = scene.addObject(scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(20.02f, 0.52f, 20.02f)))),
                                            {Vec3(0.0f, -0.5f, 0.0f), Quat(1, 0, 0, 0)});  // top at y = 0.02
    Pose p{Vec3(0.0f), glm::angleAxis(0.7f, Vec3(0, 1, 0))};
    float lowest = INFINITY;
    for (const Vec3& v : real.vertices()) lowest = std::min(lowest, p.apply(v).y);
    p.position.y = -0.0083f - lowest;
    const ObjectId bunny = scene.addObject(scene.addMesh(swollen), p);
    float swollenLowest = INFINITY;
    for (const Vec3& v : swollen->vertices()) swollenLowest = std::min(swollenLowest, p.apply(v).y);
    const float overlap = 0.02f - swollenLowest;
    ASSERT_NEAR(overlap, 0.0483f, 5e-4f);
    auto cinder = makeCinder();
    DetectionOutput out;
    const std::vector<ObjectPair> candidates = {{ground, bunny}};
    ASSERT_TRUE(cinder->detect(scene, candidates, out));
    ASSERT_EQ(out.pairs.size(), 1u);
    float deepest = 0.0f;
    for (const ContactSample& cs : out.pairs[0].samples) {
        EXPECT_GE(cs.depth, -overlap - 2e-3f) << "normal " << cs.normalOnB.x << " " << cs.normalOnB.y << " " << cs.normalOnB.z;
        deepest = std::min(deepest, cs.depth);
    }
    std::printf("[ cinder ] resting bunny: %zu samples, deepest %.4f m (the overlap %.4f m)\n",
                out.pairs[0].samples.size(), deepest, overlap);
    EXPECT_NEAR(deepest, -overlap, 1e-3f);
}

// Contact samples worked by hand: two axis-aligned cubes of half-size 0.1, B 0.15 along +x
// (0.05 deep into each other), B a little off in y and z so that no faces are coplanar. Bullet's
// convention: normalOnB points from B toward A (-x), depth is negative, pointOnA = pointOnB +
// normalOnB * depth. The deepest samples have the x normal, 0.05 deep (B's edges on its -x face
// through A's +x face); an edge point nearer another face gets that face's normal and depth
// (each sample's depth is the least deep of its estimates, never shallower than the truth in a
// convex volume); A's point lies inside B's box and B's inside A's.
TEST_F(CinderDetectorTest, SamplesOfTwoCubesFollowBulletsConvention) {
    Scene scene;
    const MeshId m = scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.1f))));
    const ObjectId a = scene.addObject(m, {Vec3(0.0f), Quat(1, 0, 0, 0)});
    const ObjectId b = scene.addObject(m, {Vec3(0.15f, 0.013f, 0.017f), Quat(1, 0, 0, 0)});
    auto cinder = makeCinder();
    DetectionOutput out;
    const std::vector<ObjectPair> candidates = {{a, b}};
    ASSERT_TRUE(cinder->detect(scene, candidates, out));
    ASSERT_EQ(out.pairs.size(), 1u);
    const auto& samples = out.pairs[0].samples;
    ASSERT_FALSE(samples.empty());
    // Depth of a point inside an axis-aligned cube: its distance to the nearest face.
    auto depthIn = [](Vec3 p, Vec3 centre) {
        const Vec3 d = Vec3(0.1f) - glm::abs(p - centre);
        return std::min({d.x, d.y, d.z});
    };
    std::size_t alongX = 0;
    float deepest = 0.0f;
    Vec3 deepestNormal(0.0f);
    for (const ContactSample& cs : samples) {
        EXPECT_LT(cs.depth, 0.0f);
        EXPECT_GE(cs.depth, -0.1001f);
        const Vec3 onA = cs.pointOnB + cs.normalOnB * cs.depth;
        EXPECT_GE(onA.x, 0.05f - 1e-4f);  // A's point inside B (x >= 0.05)
        EXPECT_LE(cs.pointOnB.x, 0.1f + 1e-4f);  // B's point inside A (x <= 0.1)
        // One of the two points is an edge point inside the other cube, the other on one of that
        // cube's face planes. Every estimate is a face plane's distance (or a distance to the
        // surface), at least the point's true depth in a convex volume: never shallower than it.
        // (Not always equal: a face edge-on in every view that sees the edge gives no estimate.)
        const float inB = depthIn(onA, Vec3(0.15f, 0.013f, 0.017f)), inA = depthIn(cs.pointOnB, Vec3(0.0f));
        EXPECT_GE(-cs.depth, std::max(inA, inB) - 2e-3f)
            << "depth " << cs.depth << ", A's point " << inB << " inside B, B's point " << inA << " inside A";
        std::printf("[ cinder ]   sample depth %.4f normal (%.2f %.2f %.2f)\n", cs.depth, cs.normalOnB.x, cs.normalOnB.y,
                    cs.normalOnB.z);
        if (glm::dot(cs.normalOnB, Vec3(-1, 0, 0)) > 0.999f) ++alongX;
        if (cs.depth < deepest) deepest = cs.depth, deepestNormal = cs.normalOnB;
    }
    std::printf("[ cinder ] two cubes: %zu samples, %zu along -x\n", samples.size(), alongX);
    // The deepest: the overlap's 5 cm along x (B's -x face through A's +x face).
    EXPECT_NEAR(deepest, -0.05f, 1e-3f);
    EXPECT_GT(glm::dot(deepestNormal, Vec3(-1, 0, 0)), 0.999f);
    EXPECT_GE(alongX, 1u);
}

}  // namespace
}  // namespace isc
