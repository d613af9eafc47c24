// The heightmap detector alone, against exact references: cases worked out by hand (a
// sphere sunk into a static box, a standing ring with a block in its hole), the routing of
// pairs it cannot serve, and bunnies sunk into a bumpy terrain, whose every sample's depth
// along the axis is checked against the exact heights of the two meshes at the sample's
// column.
#include "GlTest.h"
#include "Terrain.h"

#include "isc/detect/Registry.h"
#include "isc/detectors/CpuDetector.h"
#include "isc/detectors/HeightmapDetector.h"
#include "isc/mesh/Shapes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>

using namespace isc;

namespace {

std::unique_ptr<Detector> makeHeightmap(HeightmapSettings s = {}) {
    auto d = createHeightmapDetector({}, s);
    EXPECT_TRUE(d.has_value()) << (d ? "" : d.error().message);
    return d ? std::move(*d) : nullptr;
}

std::shared_ptr<const Mesh> share(Mesh m) { return std::make_shared<const Mesh>(std::move(m)); }

// Lowest point of the mesh at `pose` on the vertical line through (x, z), exactly (every
// triangle, double): NaN when the line misses it.
double bottomAt(const Mesh& mesh, const Pose& pose, double x, double z) {
    double best = NAN;
    for (const UVec3& t : mesh.triangles()) {
        const DVec3 a = pose.applyDouble(mesh.vertices()[t.x]), b = pose.applyDouble(mesh.vertices()[t.y]),
                    c = pose.applyDouble(mesh.vertices()[t.z]);
        const double d = (b.x - a.x) * (c.z - a.z) - (c.x - a.x) * (b.z - a.z);
        if (std::abs(d) < 1e-18) continue;
        const double u = ((x - a.x) * (c.z - a.z) - (c.x - a.x) * (z - a.z)) / d;
        const double v = ((b.x - a.x) * (z - a.z) - (x - a.x) * (b.z - a.z)) / d;
        if (u < 0 || v < 0 || u + v > 1) continue;
        const double y = a.y + u * (b.y - a.y) + v * (c.y - a.y);
        if (std::isnan(best) || y < best) best = y;
    }
    return best;
}

// The detector's view window across the axis (HeightmapDetector.cpp): the object's box where
// the environment is, square, widened by 2 pixels; its pixel size.
float pixelSize(const Mesh& mesh, const Pose& pose, int resolution) {
    Aabb box;
    for (const Vec3& v : mesh.vertices()) box.grow(pose.apply(v));
    const float size = std::max({box.extent().x, box.extent().y, box.extent().z});
    const float side = std::max(box.extent().x, box.extent().z) * (1.0f + 2.0f / float(resolution)) + 1e-5f * size;
    return side / float(resolution);
}

const PairResult* findPair(const DetectionOutput& out, ObjectPair p) {
    for (const PairResult& r : out.pairs)
        if (r.pair == p) return &r;
    return nullptr;
}

bool contains(const std::vector<ObjectPair>& v, ObjectPair p) { return std::find(v.begin(), v.end(), p) != v.end(); }

}  // namespace

class HeightmapTest : public GlTest {};

TEST_F(HeightmapTest, SettingsAreChecked) {
    auto bad = [](HeightmapSettings s) { return !createHeightmapDetector({}, s).has_value(); };
    HeightmapSettings s;
    s.resolution = 4;
    EXPECT_TRUE(bad(s));
    s = {};
    s.directions = 3;
    EXPECT_TRUE(bad(s));
    s = {};
    s.up = "up";
    EXPECT_TRUE(bad(s));
    s = {};
    s.maxLayers = 1;
    EXPECT_TRUE(bad(s));
    DetectorSettings common;
    common.options = {{"directions", "6"}, {"up", "-z"}, {"reduce", "false"}};
    EXPECT_TRUE(createDetector("heightmap", common).has_value());
    common.options = {{"resolutions", "6"}};
    auto unknown = createDetector("heightmap", common);
    ASSERT_FALSE(unknown.has_value());
    EXPECT_NE(unknown.error().message.find("resolution"), std::string::npos) << unknown.error().message;
}

// A sphere of radius 0.5 sunk by delta into a static box whose top is y = 0: samples lie on
// the two surfaces (point on A = point on B + normal * depth), the normal is the box top's
// (up, from the box toward the sphere), the deepest is -delta to the sphere's faceting.
// Both object orders, two depths, reduced and not, 1 and 6 directions; apart by 1 cm: nothing.
TEST_F(HeightmapTest, SphereSunkIntoABox) {
    const float r = 0.5f;
    auto sphere = share(shapes::uvSphere(r, 48, 24));
    auto ground = share(shapes::box(Vec3(2.0f, 0.5f, 2.0f)));
    for (auto [reduce, directions] : {std::pair{true, 1}, {false, 1}, {true, 6}}) {
        auto det = makeHeightmap({.resolution = 64, .directions = directions, .reduce = reduce});
        ASSERT_TRUE(det);
        for (bool groundFirst : {true, false}) {
            for (float delta : {0.01f, 0.05f, -0.01f}) {
                Scene scene;
                const MeshId ms = scene.addMesh(sphere), mg = scene.addMesh(ground);
                const Pose groundPose{Vec3(0.0f, -0.5f, 0.0f)};
                const Pose spherePose{Vec3(0.1f, r - delta, -0.2f)};
                ObjectId g, s;
                if (groundFirst) {
                    g = scene.addObject(mg, groundPose);
                    s = scene.addObject(ms, spherePose);
                } else {
                    s = scene.addObject(ms, spherePose);
                    g = scene.addObject(mg, groundPose);
                }
                scene.setStatic(g, true);
                const ObjectPair pair{std::min(g, s), std::max(g, s)};
                DetectionOutput out;
                ASSERT_TRUE(det->detect(scene, std::span(&pair, 1), out).has_value());
                EXPECT_TRUE(out.unserved.empty());
                SCOPED_TRACE(testing::Message() << "reduce " << reduce << " directions " << directions << " ground first " << groundFirst << " delta "
                                                << delta);
                if (delta < 0) {
                    EXPECT_TRUE(out.pairs.empty());
                    continue;
                }
                ASSERT_EQ(out.pairs.size(), 1u);
                const PairResult& res = out.pairs[0];
                ASSERT_FALSE(res.samples.empty());
                if (reduce) {
                    // The deepest and 8 extremes per direction; the lateral views see the
                    // box's top edge-on and its sides beyond the sphere's box: nothing.
                    EXPECT_LE(res.samples.size(), 9u);
                }
                float deepest = 0.0f;
                for (const ContactSample& cs : res.samples) {
                    const Vec3 up = groundFirst ? -cs.normalOnB : cs.normalOnB;  // the box's normal
                    EXPECT_GT(up.y, 0.9999f);
                    const Vec3 onA = cs.pointOnB + cs.normalOnB * cs.depth;
                    const Vec3 onGround = groundFirst ? onA : cs.pointOnB;
                    const Vec3 onSphere = groundFirst ? cs.pointOnB : onA;
                    EXPECT_NEAR(onGround.y, 0.0f, 1e-5f);
                    // The sphere's facets lie inside the sphere by up to r (1 - cos(pi / 24)).
                    EXPECT_NEAR(glm::length(onSphere - spherePose.position), r, 5e-3f);
                    EXPECT_LT(cs.depth, 0.0f);
                    EXPECT_GE(cs.depth, -delta - 1e-5f);
                    EXPECT_LT(groundFirst ? cs.triangleA : cs.triangleB, 12u);  // a box triangle
                    EXPECT_EQ(groundFirst ? cs.triangleB : cs.triangleA, UINT32_MAX);
                    deepest = std::min(deepest, cs.depth);
                }
                // The pole is a vertex: the pixel nearest it is within a pixel (~1.6 cm).
                EXPECT_NEAR(deepest, -delta, 1e-3f);
            }
        }
    }
}

// Pairs the method does not serve come back unserved (never dropped): two moving objects,
// two static ones, a moving object with an open mesh; self pairs are ignored unless asked.
TEST_F(HeightmapTest, PairsItCannotServeAreUnserved) {
    auto det = makeHeightmap();
    ASSERT_TRUE(det);
    Scene scene;
    const MeshId box = scene.addMesh(share(shapes::box(Vec3(0.5f))));
    Result<Mesh> open = Mesh::create("open", {{0, 0, 0}, {1, 0, 0}, {0, 0, 1}}, {{0, 2, 1}});
    ASSERT_TRUE(open.has_value());
    const MeshId openMesh = scene.addMesh(share(std::move(*open)));
    const ObjectId a = scene.addObject(box, {Vec3(0.0f)});
    const ObjectId b = scene.addObject(box, {Vec3(0.5f, 0.0f, 0.0f)});
    const ObjectId s1 = scene.addObject(box, {Vec3(0.0f, -0.9f, 0.0f)});
    const ObjectId s2 = scene.addObject(box, {Vec3(0.5f, -0.9f, 0.0f)});
    const ObjectId o = scene.addObject(openMesh, {Vec3(0.0f, -0.45f, 0.0f)});
    scene.setStatic(s1, true);
    scene.setStatic(s2, true);
    const std::vector<ObjectPair> pairs = {{a, b}, {s1, s2}, {s1, o}, {a, a}, {a, s1}};
    DetectionOutput out;
    ASSERT_TRUE(det->detect(scene, pairs, out).has_value());
    EXPECT_TRUE(contains(out.unserved, {a, b}));
    EXPECT_TRUE(contains(out.unserved, {s1, s2}));
    EXPECT_TRUE(contains(out.unserved, {s1, o}));
    EXPECT_FALSE(contains(out.unserved, {a, a}));
    EXPECT_FALSE(contains(out.unserved, {a, s1}));
    EXPECT_EQ(out.stats.counter("moving_pairs"), 1.0);
    EXPECT_EQ(out.stats.counter("open_object_pairs"), 1.0);
    EXPECT_EQ(out.unserved.size(), 3u);
    EXPECT_FALSE(out.stats.warnings.empty());  // the open mesh is named
    ASSERT_NE(findPair(out, {a, s1}), nullptr);  // box a sits 0.1 deep in s1
    // Self pairs with selfCollision: unserved too.
    DetectorSettings self;
    self.selfCollision = true;
    auto withSelf = createHeightmapDetector(self, {});
    ASSERT_TRUE(withSelf.has_value());
    const ObjectPair selfPair{a, a};
    ASSERT_TRUE((*withSelf)->detect(scene, std::span(&selfPair, 1), out).has_value());
    EXPECT_TRUE(contains(out.unserved, selfPair));
}

// A ring standing upright (a torus turned so that vertical lines through its hole cross it
// four times: an overhang along the axis) against small static blocks, each case checked
// against the exact cpu detector: resting on the floor (the environment in the lowest
// interval: contact), a block in the hole's gap (no contact), a block reaching into the
// upper arc from below (a contact in the upper interval: served with a contact by default,
// counter overhang_pairs; unserved with serveOverhangs false, the paper's rule), a block over
// the ring (no contact). And a column with more crossings than maxLayers: unserved.
TEST_F(HeightmapTest, OverhangsAreDetected) {
    auto ring = share(shapes::torus(0.5f, 0.12f, 48, 24));
    auto floor = share(shapes::box(Vec3(2.0f, 0.5f, 2.0f)));
    auto block = share(shapes::box(Vec3(0.1f, 0.1f, 0.05f)));
    const Pose ringPose{Vec3(0.0f, 0.6f, 0.0f), glm::angleAxis(glm::radians(90.0f), Vec3(1.0f, 0.0f, 0.0f))};
    struct Case {
        const char* name;
        bool useFloor;
        Vec3 blockCentre;
        bool contact, upper;
    };
    // Ring: centre y 0.6, arcs from 0.6 - 0.62 = -0.02 .. 0.6 - 0.38 = 0.22 (bottom) and
    // 0.98 .. 1.22 (top); the hole spans y 0.22 .. 0.98 at x = 0.
    const Case cases[] = {
        {"resting on the floor (2 cm deep)", true, {}, true, false},
        {"block in the hole's gap", false, Vec3(0.0f, 0.6f, 0.0f), false, false},
        {"block reaching into the upper arc", false, Vec3(0.0f, 0.92f, 0.0f), true, true},
        {"block over the ring", false, Vec3(0.0f, 1.4f, 0.0f), false, false},
    };
    CpuDetector cpu;
    for (bool serve : {true, false}) {
        auto det = makeHeightmap({.resolution = 64, .serveOverhangs = serve});
        for (const Case& c : cases) {
            SCOPED_TRACE(testing::Message() << c.name << (serve ? ", serving overhangs" : ", the paper's rule"));
            Scene scene;
            const ObjectId r = scene.addObject(scene.addMesh(ring), ringPose);
            const ObjectId e = c.useFloor ? scene.addObject(scene.addMesh(floor), {Vec3(0.0f, -0.5f, 0.0f)})
                                          : scene.addObject(scene.addMesh(block), {c.blockCentre});
            scene.setStatic(e, true);
            const ObjectPair pair{r, e};
            DetectionOutput out, exact;
            ASSERT_TRUE(det->detect(scene, std::span(&pair, 1), out).has_value());
            ASSERT_TRUE(cpu.detect(scene, std::span(&pair, 1), exact).has_value());
            EXPECT_EQ(!exact.pairs.empty(), c.contact) << "the case is not what it says";
            EXPECT_EQ(out.stats.counter("overhang_pairs"), c.upper ? 1.0 : 0.0);
            const bool served = serve || !c.upper;
            EXPECT_EQ(out.unserved.empty(), served);
            EXPECT_EQ(!out.pairs.empty(), served && c.contact);
            if (served && c.upper) {
                EXPECT_GT(out.stats.counter("overhang_contact_pixels"), 0.0);
                // Against the upper arc's underside: the block's top (y 1.02) is deepest at its
                // edges x = +-0.1, z = 0, where the arc's inner circle (radius 0.38) is at
                // y = 0.6 + sqrt(0.38^2 - 0.1^2) = 0.9666: 5.34 cm (less the facets' chords).
                float deepest = 0.0f;
                for (const ContactSample& cs : out.pairs[0].samples) {
                    deepest = std::min(deepest, cs.depth);
                    EXPECT_GT(cs.normalOnB.y, 0.999f);  // the block (B) pushes the ring up
                }
                EXPECT_NEAR(deepest, -0.0534f, 3e-3f);
            }
        }
    }
    // maxLayers 2: every column through the hole crosses the ring 4 times, more than kept.
    auto two = makeHeightmap({.resolution = 64, .maxLayers = 2});
    Scene scene;
    const ObjectId r = scene.addObject(scene.addMesh(ring), ringPose);
    const ObjectId e = scene.addObject(scene.addMesh(block), {Vec3(0.0f, 0.92f, 0.0f)});
    scene.setStatic(e, true);
    const ObjectPair pair{r, e};
    DetectionOutput out;
    ASSERT_TRUE(two->detect(scene, std::span(&pair, 1), out).has_value());
    EXPECT_EQ(out.unserved.size(), 1u);
    EXPECT_EQ(out.stats.counter("overflow_pairs"), 1.0);
    EXPECT_TRUE(out.pairs.empty());
}

// The environment's BVH is built once and rebuilt only when a static object moves; a
// deforming moving object is re-rendered from its new vertices (nothing cached).
TEST_F(HeightmapTest, MovedEnvironmentAndDeformedObjectsAreSeen) {
    auto det = makeHeightmap();
    Scene scene;
    const ObjectId g = scene.addObject(scene.addMesh(share(shapes::box(Vec3(2.0f, 0.5f, 2.0f)))), {Vec3(0, -0.5f, 0)});
    const Mesh sphere = shapes::uvSphere(0.5f, 32, 16);
    const ObjectId s = scene.addObject(scene.addMesh(share(shapes::uvSphere(0.5f, 32, 16))), {Vec3(0, 0.49f, 0)});
    scene.setStatic(g, true);
    const ObjectPair pair{g, s};
    auto deepest = [&](DetectionOutput& out) {
        EXPECT_TRUE(det->detect(scene, std::span(&pair, 1), out).has_value());
        float d = 0.0f;
        for (const PairResult& r : out.pairs)
            for (const ContactSample& cs : r.samples) d = std::min(d, cs.depth);
        return d;
    };
    // The sphere's pole cap (16 stacks) rises by up to ~1.1 mm within half a pixel diagonal
    // (~1.1 cm) of the pole: the deepest pixel is within 2 mm of the pole's depth.
    DetectionOutput out;
    EXPECT_NEAR(deepest(out), -0.01f, 2e-3f);
    EXPECT_EQ(out.stats.counter("environment_bvh_builds"), 1.0);
    EXPECT_NEAR(deepest(out), -0.01f, 2e-3f);
    EXPECT_EQ(out.stats.counter("environment_bvh_builds"), 0.0);
    scene.setPose(g, {Vec3(0, -0.48f, 0)});  // the ground rises by 2 cm
    EXPECT_NEAR(deepest(out), -0.03f, 2e-3f);
    EXPECT_EQ(out.stats.counter("environment_bvh_builds"), 1.0);
    std::vector<Vec3> bigger;
    for (const Vec3& v : sphere.vertices()) bigger.push_back(v * 1.1f);  // the bottom drops by 5 cm
    scene.setVertices(s, std::move(bigger));
    EXPECT_NEAR(deepest(out), -0.08f, 2.5e-3f);
}

// Bunnies sunk into the bumpy terrain by 5 to 40 mm (16 bunnies, each turned about y and
// tilted up to 12 degrees, resting on its lowest vertex, then lowered): every sample's depth
// along the axis (-depth / n.y) is the exact terrain height minus the exact lowest bunny
// point at the sample's column, within one pixel's height step (the largest change of that
// exact difference to the neighbouring pixel centres) + 0.1 mm; every bunny gets samples; the
// same bunnies lifted 1 cm clear get none.
TEST_F(HeightmapTest, BunniesOnTerrainMatchTheExactDepthAlongTheAxis) {
    auto field = scenes::makeBunnyField(16, 3);
    ASSERT_TRUE(field.has_value()) << field.error().message;
    const scenes::Terrain& terrain = field->terrain;
    const Mesh& bunny = *field->bunny;
    const int resolution = 64;
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> tilt(-0.21f, 0.21f), sink(0.005f, 0.04f);
    std::vector<Pose> poses;
    std::vector<float> sunk;
    for (Pose p : field->poses) {
        p.rotation = glm::angleAxis(tilt(rng), Vec3(1, 0, 0)) * glm::angleAxis(tilt(rng), Vec3(0, 0, 1)) * p.rotation;
        float clearance = INFINITY;
        for (const Vec3& v : bunny.vertices()) {
            const Vec3 w = p.apply(v);
            clearance = std::min(clearance, w.y - terrain.heightAt(w.x, w.z));
        }
        sunk.push_back(sink(rng));
        p.position.y -= clearance + sunk.back();
        poses.push_back(p);
    }
    for (bool clear : {false, true}) {
        SCOPED_TRACE(clear ? "lifted 1 cm clear" : "sunk");
        Scene scene;
        const ObjectId t = scene.addObject(scene.addMesh(terrain.mesh));
        scene.setStatic(t, true);
        const MeshId bm = scene.addMesh(field->bunny);
        std::vector<ObjectPair> pairs;
        for (std::size_t i = 0; i < poses.size(); ++i) {
            Pose p = poses[i];
            if (clear) p.position.y += sunk[i] + 0.01f;
            pairs.push_back({t, scene.addObject(bm, p)});
        }
        auto det = makeHeightmap({.resolution = resolution, .reduce = false});
        DetectionOutput out;
        ASSERT_TRUE(det->detect(scene, pairs, out).has_value());
        EXPECT_TRUE(out.unserved.empty()) << out.unserved.size() << " unserved";
        if (!clear) {
            // The read-back copies as many samples as the last call found: after a call on one
            // bunny, the call on all of them finds more and reads the rest in a second copy;
            // the call after copies them in one. Both read every sample.
            auto fresh = makeHeightmap({.resolution = resolution, .reduce = false});
            DetectionOutput one, first, again;
            ASSERT_TRUE(fresh->detect(scene, std::span(pairs).first(1), one).has_value());
            ASSERT_TRUE(fresh->detect(scene, pairs, first).has_value());
            ASSERT_TRUE(fresh->detect(scene, pairs, again).has_value());
            ASSERT_GT(first.stats.counter("samples"), one.stats.counter("samples") * 1.25 + 256.0)
                << "the scene must overflow the copy the one-bunny call sized";
            EXPECT_EQ(first.stats.counter("late_copies"), 1.0);
            EXPECT_EQ(again.stats.counter("late_copies"), 0.0);
            auto depths = [](const DetectionOutput& o) {
                std::vector<float> d;
                for (const PairResult& r : o.pairs)
                    for (const ContactSample& cs : r.samples) d.push_back(cs.depth);
                std::sort(d.begin(), d.end());
                return d;
            };
            EXPECT_EQ(double(depths(first).size()), first.stats.counter("samples"));
            EXPECT_EQ(depths(first), depths(again));
            EXPECT_EQ(depths(first), depths(out));
        }
        if (clear) {
            EXPECT_TRUE(out.pairs.empty());
            continue;
        }
        EXPECT_EQ(out.pairs.size(), poses.size());
        std::size_t checked = 0;
        double worst = 0.0;
        for (const PairResult& r : out.pairs) {
            const Pose& pose = scene.pose(r.pair.b);
            const double pixel = pixelSize(bunny, pose, resolution);
            auto exact = [&](double x, double z) {
                const double bottom = bottomAt(bunny, pose, x, z);
                return std::isnan(bottom) ? NAN : double(terrain.heightAt(float(x), float(z))) - bottom;
            };
            for (const ContactSample& cs : r.samples) {
                const Vec3 n = -cs.normalOnB;  // the terrain's normal (the terrain is A)
                ASSERT_GT(n.y, 0.0f);
                const double alongAxis = -double(cs.depth) / double(n.y);
                const double x = cs.pointOnB.x, z = cs.pointOnB.z;  // B is the bunny: its lowest point
                const double e = exact(x, z);
                ASSERT_FALSE(std::isnan(e)) << "a sample off the bunny at " << x << ", " << z;
                double step = 0.0;
                for (auto [dx, dz] : {std::pair{1, 0}, {-1, 0}, {0, 1}, {0, -1}}) {
                    const double en = exact(x + dx * pixel, z + dz * pixel);
                    step = std::max(step, std::isnan(en) ? std::abs(e) : std::abs(en - e));
                }
                EXPECT_NEAR(alongAxis, e, step + 1e-4) << "sample at " << x << ", " << z;
                worst = std::max(worst, std::abs(alongAxis - e));
                ++checked;
            }
        }
        std::printf("%zu samples of %zu bunnies checked, largest error along the axis %.4f mm\n", checked,
                    out.pairs.size(), worst * 1e3);
        RecordProperty("samples_checked", int(checked));
        RecordProperty("worst_error_mm", std::to_string(worst * 1e3));
        EXPECT_GT(checked, 100u);
    }
}
