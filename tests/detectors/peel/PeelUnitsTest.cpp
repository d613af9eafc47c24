// The peel detector's CPU units on their own (no GL): the cluster trees (PeelClusters), the
// call's set-up (PeelSetup: object states, scene views and tiles) and the exact stage
// (PeelExact: duplicates merged, only intersecting pairs kept, against the reference).
#include "PeelClusters.h"
#include "PeelExact.h"
#include "PeelSetup.h"

#include "isc/geometry/Reference.h"
#include "isc/mesh/MeshIo.h"
#include "isc/mesh/Shapes.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <tuple>

namespace isc {
namespace {

Mesh bunnyMesh() {
    auto b = loadBunny(0.1f);
    EXPECT_TRUE(b.has_value()) << (b ? "" : b.error().message);
    return b ? std::move(*b) : shapes::box(Vec3(0.5f));
}

// Every triangle in exactly one cluster; clusters at most kMaxClusterTriangles; an inner
// node's slots are its children's, contiguous; parents and children agree; the height is the
// deepest cluster's depth.
void checkTree(const Mesh& mesh) {
    std::vector<gl::PeelClusterNode> nodes;
    std::vector<std::uint32_t> slots;
    nodes.push_back({});  // trees start anywhere in the shared arrays
    slots.push_back(7);
    const PeelClusters::MeshTree tree = PeelClusters::build(mesh, nodes, slots);
    ASSERT_EQ(tree.firstNode, 1u);
    ASSERT_EQ(tree.firstSlot, 1u);
    ASSERT_EQ(tree.nodeCount, nodes.size() - 1);
    ASSERT_EQ(slots.size() - 1, mesh.triangleCount());
    std::vector<std::uint32_t> sorted(slots.begin() + 1, slots.end());
    std::sort(sorted.begin(), sorted.end());
    std::vector<std::uint32_t> all(mesh.triangleCount());
    std::iota(all.begin(), all.end(), 0u);
    EXPECT_EQ(sorted, all) << "every triangle exactly once";
    const auto node = [&](std::uint32_t i) -> const gl::PeelClusterNode& { return nodes[tree.firstNode + i]; };
    EXPECT_EQ(node(0).parent, PEEL_NO_NODE);
    EXPECT_EQ(node(0).firstSlot, 0u);
    EXPECT_EQ(node(0).slotCount, mesh.triangleCount());
    std::uint32_t clusters = 0, height = 0;
    std::vector<std::uint32_t> depth(tree.nodeCount, 0);
    for (std::uint32_t i = 0; i < tree.nodeCount; ++i) {
        const gl::PeelClusterNode& n = node(i);
        if (n.left == PEEL_NO_NODE) {
            EXPECT_EQ(n.right, PEEL_NO_NODE);
            EXPECT_GE(n.slotCount, 1u);
            EXPECT_LE(n.slotCount, PeelClusters::kMaxClusterTriangles);
            ++clusters;
            height = std::max(height, depth[i]);
            continue;
        }
        ASSERT_LT(n.left, tree.nodeCount);
        ASSERT_LT(n.right, tree.nodeCount);
        EXPECT_GT(n.left, i) << "children after their parent";
        EXPECT_EQ(node(n.left).parent, i);
        EXPECT_EQ(node(n.right).parent, i);
        EXPECT_EQ(node(n.left).firstSlot, n.firstSlot);
        EXPECT_EQ(node(n.right).firstSlot, n.firstSlot + node(n.left).slotCount);
        EXPECT_EQ(node(n.left).slotCount + node(n.right).slotCount, n.slotCount);
        EXPECT_GT(n.slotCount, PeelClusters::kMaxClusterTriangles) << "a small subtree is one cluster";
        depth[n.left] = depth[n.right] = depth[i] + 1;
    }
    EXPECT_EQ(clusters, tree.clusterCount);
    EXPECT_EQ(height, tree.height);
    EXPECT_GT(tree.meanEdge, 0.0f);
}

TEST(PeelClusters, TreesCoverEveryTriangleOnceInBoundedClusters) {
    checkTree(bunnyMesh());
    checkTree(shapes::torus(0.5f, 0.15f, 32, 16));
    checkTree(shapes::box(Vec3(0.3f, 0.2f, 0.4f)));  // 12 triangles: one cluster, the root
    checkTree(shapes::subdivided(shapes::box(Vec3(0.5f)), 3));
}

TEST(PeelClusters, UpdateBuildsNewMeshesOnly) {
    Scene scene;
    scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.5f))));
    PeelClusters clusters;
    EXPECT_TRUE(clusters.update(scene));
    EXPECT_FALSE(clusters.update(scene));
    const std::size_t nodes = clusters.nodes().size();
    scene.addMesh(std::make_shared<Mesh>(shapes::torus(0.5f, 0.15f, 32, 16)));
    EXPECT_TRUE(clusters.update(scene));
    EXPECT_EQ(clusters.tree(1).firstNode, nodes);
    EXPECT_EQ(clusters.tree(0).nodeCount, 1u);
    EXPECT_EQ(clusters.tree(1).firstSlot, 12u);
}

// refit() (the cluster boxes of refit "cpu"): every node's box is the union of its triangles'
// corners turned by the model matrix, computed here by brute force over the node's slot range,
// for a second mesh of the scene (its trees after the first's) with deformed vertices.
TEST(PeelClusters, RefitBoxesAreTheUnionOfEachNodesTriangleCorners) {
    Scene scene;
    scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.5f))));
    const MeshId bunny = scene.addMesh(std::make_shared<Mesh>(bunnyMesh()));
    PeelClusters clusters;
    clusters.update(scene);
    const Mesh& mesh = scene.mesh(bunny);
    std::vector<Vec3> local(mesh.vertices().begin(), mesh.vertices().end());
    for (Vec3& v : local) v += 0.01f * Vec3(std::sin(40.0f * v.y), std::cos(30.0f * v.z), std::sin(50.0f * v.x));
    Pose pose;
    pose.position = Vec3(3.0f, -1.0f, 0.5f);
    pose.rotation = glm::normalize(Quat(0.3f, -0.5f, 0.7f, 0.2f));
    const Mat4 model = pose.matrix();
    const PeelClusters::MeshTree& tree = clusters.tree(bunny);
    std::vector<gl::PeelBox> boxes(tree.nodeCount);
    clusters.refit(bunny, local, model, boxes.data());
    for (std::uint32_t i = 0; i < tree.nodeCount; ++i) {
        const gl::PeelClusterNode& n = clusters.nodes()[tree.firstNode + i];
        Vec3 lo(3.4e38f), hi(-3.4e38f);
        for (std::uint32_t k = 0; k < n.slotCount; ++k) {
            const UVec3 t = mesh.triangles()[clusters.slots()[tree.firstSlot + n.firstSlot + k]];
            for (int c = 0; c < 3; ++c) {
                const Vec3 w = Vec3(model * Vec4(local[t[c]], 1.0f));
                lo = glm::min(lo, w);
                hi = glm::max(hi, w);
            }
        }
        for (int a = 0; a < 3; ++a) {
            EXPECT_NEAR(boxes[i].lo[a], lo[a], 1e-6f) << "node " << i << " axis " << a;
            EXPECT_NEAR(boxes[i].hi[a], hi[a], 1e-6f) << "node " << i << " axis " << a;
        }
    }
}

// refit() (4-wide, the default; with ordinary and with non-temporal stores) and refitScalar()
// (one component at a time, before 2026-11-28 morning) give the same boxes as floats (every
// component ==, w included): the bunny deformed and a box, each in poses with rotations about
// every axis, large and small translations, and the identity (whose zero matrix entries make
// signed zeros in the sums).
TEST(PeelClusters, RefitFourWideIsTheScalarRefitBitForBit) {
    Scene scene;
    const MeshId box = scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.5f, 0.25f, 1.0f))));
    const MeshId bunny = scene.addMesh(std::make_shared<Mesh>(bunnyMesh()));
    PeelClusters clusters;
    clusters.update(scene);
    std::size_t compared = 0;
    for (MeshId m : {box, bunny}) {
        const Mesh& mesh = scene.mesh(m);
        const PeelClusters::MeshTree& tree = clusters.tree(m);
        ASSERT_GT(tree.nodeCount, 0u);
        for (int k = 0; k < 12; ++k) {
            std::vector<Vec3> local(mesh.vertices().begin(), mesh.vertices().end());
            if (k % 2 == 1)
                for (Vec3& v : local)
                    v += 0.01f * Vec3(std::sin(40.0f * v.y + float(k)), std::cos(30.0f * v.z), std::sin(50.0f * v.x));
            Pose pose;
            if (k > 0) {
                pose.position = Vec3(3.0f * std::sin(1.3f * float(k)), -100.0f * float(k % 3), 0.001f * float(k));
                pose.rotation = glm::normalize(Quat(std::cos(0.7f * float(k)), std::sin(float(k)), -0.5f * float(k % 4),
                                                    0.2f * float(k % 5)));
            }
            const Mat4 model = pose.matrix();
            std::vector<gl::PeelBox> fast(tree.nodeCount), streamed(tree.nodeCount + 1), scalar(tree.nodeCount);
            clusters.refit(m, local, model, fast.data());
            // Non-temporal stores need 16-byte alignment: the first 16-byte aligned entry.
            auto* aligned = reinterpret_cast<gl::PeelBox*>(
                (reinterpret_cast<std::uintptr_t>(streamed.data()) + 15u) & ~std::uintptr_t(15u));
            clusters.refit(m, local, model, aligned, true);
            clusters.refitScalar(m, local, model, scalar.data());
            for (std::uint32_t i = 0; i < tree.nodeCount; ++i)
                for (int a = 0; a < 4; ++a) {
                    ASSERT_EQ(fast[i].lo[a], scalar[i].lo[a]) << "mesh " << m << ", pose " << k << ", node " << i;
                    ASSERT_EQ(fast[i].hi[a], scalar[i].hi[a]) << "mesh " << m << ", pose " << k << ", node " << i;
                    ASSERT_EQ(aligned[i].lo[a], scalar[i].lo[a]) << "streamed, mesh " << m << ", pose " << k;
                    ASSERT_EQ(aligned[i].hi[a], scalar[i].hi[a]) << "streamed, mesh " << m << ", pose " << k;
                }
            compared += fast.size();
        }
    }
    EXPECT_GT(compared, 1000u);
}

namespace {

// A pile of parts for the walk's tests: `count` objects of mesh `mesh` (deformed local vertices,
// poses in a small heap so that neighbours overlap), their boxes refitted into one array.
struct WalkPile {
    std::vector<gl::PeelPart> parts;
    std::vector<gl::PeelBox> boxes;
};

WalkPile walkPile(const PeelClusters& clusters, const Scene& scene, MeshId mesh, int count, int seed) {
    WalkPile pile;
    const PeelClusters::MeshTree& tree = clusters.tree(mesh);
    const Mesh& m = scene.mesh(mesh);
    pile.boxes.resize(std::size_t(count) * tree.nodeCount);
    for (int o = 0; o < count; ++o) {
        std::vector<Vec3> local(m.vertices().begin(), m.vertices().end());
        for (Vec3& v : local) v *= 1.0f + 0.02f * std::sin(7.0f * v.y + 0.9f * float(o + 3 * seed));
        Pose pose;
        pose.position = Vec3(0.06f * float(o % 4), 0.05f * float((o / 4) % 3), 0.07f * float(o / 12)) +
                        0.01f * Vec3(std::sin(float(seed + o)), std::cos(float(seed * 2 + o)), 0.0f);
        pose.rotation = glm::normalize(Quat(1.0f, 0.3f * std::sin(float(o + seed)), 0.2f * float(o % 3), 0.1f));
        gl::PeelPart p{};
        p.object = std::uint32_t(o);
        p.nodeBase = std::uint32_t(o) * tree.nodeCount;
        p.firstNode = tree.firstNode;
        p.nodeCount = tree.nodeCount;
        p.firstSlot = tree.firstSlot;
        clusters.refit(mesh, local, pose.matrix(), pile.boxes.data() + p.nodeBase);
        pile.parts.push_back(p);
    }
    return pile;
}

}  // namespace

// The CPU walk without branches on the box tests (walkPairBranchless, the default since branch
// peel-region-14b) against walkPair (before): over every pair of a pile of deformed bunnies and
// of boxes, with margins from none to one that makes every node pair meet (the stack grows
// past its first room), with and without the clusters' boxes in the records, the same records
// in the same order and the same count of tests. Checked failing with the (R, L) test's
// outcome ignored (an (R, L) pair pushed only when (L, R) meets).
TEST(PeelClusters, BranchlessWalkIsTheWalkRecordForRecord) {
    Scene scene;
    const MeshId box = scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.03f, 0.02f, 0.04f))));
    const MeshId bunny = scene.addMesh(std::make_shared<Mesh>(bunnyMesh()));
    PeelClusters clusters;
    clusters.update(scene);
    std::size_t records = 0, tests = 0, grown = 0;
    for (MeshId mesh : {bunny, box}) {
        for (int seed = 0; seed < 3; ++seed) {
            const WalkPile pile = walkPile(clusters, scene, mesh, 16, seed);
            for (float margin : {0.0f, 0.0005f, 0.004f, 10.0f}) {
                for (bool withBoxes : {false, true}) {
                    for (std::size_t a = 0; a < pile.parts.size(); ++a)
                        for (std::size_t b = a + 1; b < pile.parts.size(); ++b) {
                            const gl::PeelPair pair{std::uint32_t(7 * a + b), std::uint32_t(a), std::uint32_t(b), margin};
                            std::vector<glm::uvec4> before, after;
                            std::vector<glm::uvec2> stack, stack2;
                            const std::size_t t0 = clusters.walkPair(pile.parts[a], pile.parts[b], pair,
                                                                     pile.boxes.data(), before, stack, withBoxes);
                            const std::size_t t1 = clusters.walkPairBranchless(
                                pile.parts[a], pile.parts[b], pair, pile.boxes.data(), after, stack2, withBoxes);
                            ASSERT_EQ(t1, t0) << "mesh " << mesh << " seed " << seed << " margin " << margin
                                              << " pair " << a << ", " << b;
                            ASSERT_EQ(after, before) << "mesh " << mesh << " seed " << seed << " margin " << margin
                                                     << " pair " << a << ", " << b;
                            records += before.size();
                            tests += t0;
                            grown += stack2.size() > 16 ? 1 : 0;
                        }
                }
            }
        }
    }
    EXPECT_GT(records, 10000u);
    EXPECT_GT(tests, 100000u);
    EXPECT_GT(grown, 0u) << "the stack's growth was not exercised";
}

// The slot table the triangle pairs read (records of the walk without rays): per slot, the
// slot's mesh triangle and its three vertex indices, every mesh's slots in order.
TEST(PeelClusters, SlotTrianglesAreEachSlotsTriangleAndCorners) {
    Scene scene;
    const MeshId box = scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.5f))));
    const MeshId bunny = scene.addMesh(std::make_shared<Mesh>(bunnyMesh()));
    PeelClusters clusters;
    clusters.update(scene);
    ASSERT_EQ(clusters.slotTriangles().size(), clusters.slots().size());
    for (MeshId m : {box, bunny}) {
        const PeelClusters::MeshTree& tree = clusters.tree(m);
        const Mesh& mesh = scene.mesh(m);
        for (std::uint32_t k = 0; k < mesh.triangleCount(); ++k) {
            const glm::uvec4 st = clusters.slotTriangles()[tree.firstSlot + k];
            ASSERT_EQ(st.x, clusters.slots()[tree.firstSlot + k]) << "mesh " << m << " slot " << k;
            const UVec3 t = mesh.triangles()[st.x];
            EXPECT_EQ(glm::uvec3(st.y, st.z, st.w), glm::uvec3(t.x, t.y, t.z)) << "mesh " << m << " slot " << k;
        }
    }
    // A mesh added later: its slots appended after the others'.
    const MeshId later = scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.2f))));
    ASSERT_TRUE(clusters.update(scene));
    EXPECT_EQ(clusters.slotTriangles().size(), clusters.slots().size());
    EXPECT_EQ(clusters.tree(later).firstSlot + scene.mesh(later).triangleCount(), clusters.slotTriangles().size());
}

// A row of 10 boxes 0.8 apart (each overlaps its neighbours), and 10 more far away along y:
// two clusters of candidate pairs, so two views per axis; tiles list the objects reaching
// into them; pixels are the smallest object over the resolution.
TEST(PeelSetup, SceneViewsPerClusterAndAxis) {
    Scene scene;
    const MeshId box = scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.5f))));
    for (int row = 0; row < 2; ++row)
        for (int i = 0; i < 10; ++i) scene.addObject(box, Pose{Vec3(0.8f * float(i), 100.0f * float(row), 0.0f)});
    std::vector<ObjectPair> candidates;
    for (ObjectId a = 0; a < scene.objectCount(); ++a)
        for (ObjectId b = a + 1; b < scene.objectCount(); ++b) candidates.push_back({a, b});
    peel::CallObjects objects;
    DetectionOutput out;
    peel::classifyObjects(scene, candidates, false, false, objects, out);
    EXPECT_TRUE(out.unserved.empty());
    for (ObjectId o = 0; o < scene.objectCount(); ++o) {
        ASSERT_EQ(objects.state[o], peel::kUsed);
        EXPECT_EQ(objects.bounds[o].min, scene.worldBounds(o).min);
    }
    PeelSettings s;
    s.resolution = 64;
    s.axes = 3;
    const std::vector<float> edge(scene.objectCount(), 1.0f);
    const peel::SceneLayout layout = peel::makeSceneTiles(candidates, objects, edge, s, false, 2.0f);
    EXPECT_EQ(layout.views, 6u);
    ASSERT_EQ(layout.pixel.size(), 2u);
    EXPECT_FLOAT_EQ(layout.pixel[0], 1.0f / 64.0f);
    for (ObjectId o = 0; o < 10; ++o) EXPECT_EQ(layout.groupOf[o], layout.groupOf[0]);
    for (ObjectId o = 10; o < 20; ++o) EXPECT_EQ(layout.groupOf[o], layout.groupOf[10]);
    EXPECT_NE(layout.groupOf[0], layout.groupOf[10]);
    std::set<std::pair<std::uint32_t, int>> viewsSeen;
    for (const peel::Tile& t : layout.tiles) {
        viewsSeen.insert({t.group, t.axis});
        EXPECT_GE(t.objects.size(), 2u);
        EXPECT_TRUE(std::is_sorted(t.objects.begin(), t.objects.end()));
        for (ObjectId o : t.objects) EXPECT_EQ(layout.groupOf[o], std::int32_t(t.group));
        EXPECT_TRUE(std::has_single_bit(t.size));
        EXPECT_LE(t.size, peel::kMaxSceneTile);
        EXPECT_NE(t.gpu.flags & PEEL_TILE_SCENE, 0u);
    }
    EXPECT_EQ(viewsSeen.size(), 6u);
    // Along x the row is 8.2 m at 1/64 m pixels: 525 pixels, so the views along y and z are cut
    // into a row of tiles, each listing only the boxes that reach it.
    std::size_t tilesAlongZ = 0;
    for (const peel::Tile& t : layout.tiles)
        if (t.group == std::uint32_t(layout.groupOf[0]) && t.axis == 2) {
            ++tilesAlongZ;
            EXPECT_LT(t.objects.size(), 10u);
        }
    EXPECT_GE(tilesAlongZ, 2u);
    // Auto: 0.4 of the mean edge, within 32..1024 pixels across the object.
    s.resolution = 0;
    EXPECT_FLOAT_EQ(peel::pixelSize(s, 1.0f, 0.05f), 0.02f);
    EXPECT_FLOAT_EQ(peel::pixelSize(s, 1.0f, 1.0f), 1.0f / 32.0f);     // a box: its edges are its size
    EXPECT_FLOAT_EQ(peel::pixelSize(s, 1.0f, 1e-5f), 1.0f / 1024.0f);  // a very fine mesh
    const peel::SceneLayout autoLayout = peel::makeSceneTiles(candidates, objects, edge, s, false, 2.0f);
    EXPECT_FLOAT_EQ(autoLayout.pixel[0], 1.0f / 32.0f);
}

TEST(PeelSetup, SkippedAndOpenObjects) {
    Scene scene;
    const MeshId box = scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.5f))));
    std::vector<Vec3> v = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 0, 1)};
    std::vector<UVec3> t = {UVec3(0, 1, 2)};
    auto sheet = Mesh::create("sheet", v, t);
    ASSERT_TRUE(sheet.has_value());
    const MeshId open = scene.addMesh(std::make_shared<Mesh>(std::move(*sheet)));
    scene.addObject(box);
    scene.addObject(box, Pose{Vec3(0.5f, 0.0f, 0.0f)});
    scene.addObject(open);
    scene.addObject(box, Pose{Vec3(std::nanf(""), 0.0f, 0.0f)});
    scene.addObject(box, Pose{Vec3(9.0f)});  // in no candidate pair
    const std::vector<ObjectPair> candidates = {{0, 1}, {0, 2}, {1, 3}, {1, 1}};
    peel::CallObjects objects;
    DetectionOutput out;
    peel::classifyObjects(scene, candidates, false, false, objects, out);
    EXPECT_EQ(objects.state[0], peel::kUsed);
    EXPECT_EQ(objects.state[2], peel::kUnserved);
    EXPECT_EQ(objects.state[3], peel::kSkipped);
    EXPECT_EQ(objects.state[4], peel::kUnused);
    EXPECT_EQ(out.unserved, (std::vector<ObjectPair>{{0, 2}}));
    EXPECT_EQ(out.stats.warnings.size(), 2u);  // the open mesh and the NaN pose
    EXPECT_TRUE(peel::pairTakesPart({0, 1}, objects, false));
    EXPECT_FALSE(peel::pairTakesPart({1, 3}, objects, false));
    EXPECT_FALSE(peel::pairTakesPart({1, 1}, objects, false));
    EXPECT_TRUE(peel::pairTakesPart({1, 1}, objects, true));
}

// PeelExact: candidate triangle pairs (with duplicates, in any order, some not intersecting)
// give exactly the reference's pairs of the listed ones, per candidate in candidate order.
TEST(PeelExact, MergesDuplicatesAndKeepsOnlyIntersectingPairs) {
    Scene scene;
    const MeshId box = scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.5f))));
    scene.addObject(box, Pose{Vec3(0.0f)});
    scene.addObject(box, Pose{Vec3(0.7f, 0.3f, 0.1f), glm::angleAxis(0.4f, glm::normalize(Vec3(1, 2, 3)))});
    scene.addObject(box, Pose{Vec3(-0.6f, -0.2f, 0.3f), glm::angleAxis(0.9f, glm::normalize(Vec3(3, 1, 1)))});
    // Candidate 1 is (2, 0): its lower object id is 0, so `low` is a triangle of object 0.
    const std::vector<ObjectPair> candidates = {{0, 1}, {2, 0}};
    std::vector<peel::TrianglePairCandidate> found;
    std::mt19937 rng(5);
    for (std::uint32_t c = 0; c < 2; ++c)
        for (std::uint32_t a = 0; a < 12; ++a)
            for (std::uint32_t b = 0; b < 12; ++b) {
                found.push_back({c, a, b});
                if (rng() % 3 == 0) found.push_back({c, a, b});  // duplicates
            }
    std::shuffle(found.begin(), found.end(), rng);
    peel::PeelExact exact;
    DetectionOutput out;
    exact.run(scene, candidates, found, true, out);
    std::vector<std::vector<TrianglePair>> truth(2);
    for (std::size_t c = 0; c < 2; ++c) {
        geometry::PosedMesh pa(scene.objectMesh(candidates[c].a)), pb(scene.objectMesh(candidates[c].b));
        pa.update(scene.pose(candidates[c].a));
        pb.update(scene.pose(candidates[c].b));
        geometry::intersect(pa, pb, truth[c]);
        ASSERT_FALSE(truth[c].empty());
    }
    ASSERT_EQ(out.pairs.size(), 2u);
    for (std::size_t c = 0; c < 2; ++c) {
        EXPECT_EQ(out.pairs[c].pair, candidates[c]);
        EXPECT_EQ(out.pairs[c].triangles, truth[c]) << "candidate " << c;
        EXPECT_EQ(out.pairs[c].segments.size(), truth[c].size());
    }
    EXPECT_EQ(out.stats.counter("tri_tri_tests"), 2.0 * 144.0);
    EXPECT_EQ(out.stats.counter("positive_tests"), double(truth[0].size() + truth[1].size()));
}

// A candidate with more entries than one work item holds (256): its pairs and their
// duplicates spread over several items, tested apart and merged after; the result is the
// same as with every pair once (triangles sorted and unique, each with its segment), with
// any thread count.
TEST(PeelExact, CandidateOverSeveralWorkItemsIsMergedExactly) {
    Scene scene;
    const MeshId box = scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.5f))));
    scene.addObject(box, Pose{Vec3(0.0f)});
    scene.addObject(box, Pose{Vec3(0.7f, 0.3f, 0.1f), glm::angleAxis(0.4f, glm::normalize(Vec3(1, 2, 3)))});
    const std::vector<ObjectPair> candidates = {{1, 0}};
    std::vector<peel::TrianglePairCandidate> once, thrice;
    for (std::uint32_t a = 0; a < 12; ++a)
        for (std::uint32_t b = 0; b < 12; ++b) {
            once.push_back({0, a, b});
            for (int k = 0; k < 3; ++k) thrice.push_back({0, a, b});  // 432 entries: two items
        }
    std::mt19937 rng(9);
    std::shuffle(thrice.begin(), thrice.end(), rng);
    peel::PeelExact exact;
    DetectionOutput single;
    exact.run(scene, candidates, once, true, single);
    ASSERT_EQ(single.pairs.size(), 1u);
    ASSERT_FALSE(single.pairs[0].triangles.empty());
    EXPECT_TRUE(std::is_sorted(single.pairs[0].triangles.begin(), single.pairs[0].triangles.end()));
    for (int threads : {0, 1, 3}) {
        DetectionOutput out;
        exact.run(scene, candidates, thrice, true, out, threads);
        ASSERT_EQ(out.pairs.size(), 1u) << threads << " threads";
        EXPECT_EQ(out.pairs[0].pair, candidates[0]);
        EXPECT_EQ(out.pairs[0].triangles, single.pairs[0].triangles) << threads << " threads";
        ASSERT_EQ(out.pairs[0].segments.size(), single.pairs[0].segments.size());
        for (std::size_t i = 0; i < out.pairs[0].segments.size(); ++i) {
            EXPECT_EQ(out.pairs[0].segments[i].p0, single.pairs[0].segments[i].p0) << i;
            EXPECT_EQ(out.pairs[0].segments[i].p1, single.pairs[0].segments[i].p1) << i;
        }
        EXPECT_EQ(out.stats.counter("positive_tests"), double(single.pairs[0].triangles.size()));
        EXPECT_GE(out.stats.counter("tri_tri_tests"), 144.0);
        EXPECT_LE(out.stats.counter("tri_tri_tests"), 2.0 * 144.0);  // two items: a pair at most twice
    }
}

// The same pairs, triangles and segments, the segments bit for bit.
void expectSameBits(const DetectionOutput& x, const DetectionOutput& y, const std::string& what) {
    ASSERT_EQ(x.pairs.size(), y.pairs.size()) << what;
    for (std::size_t i = 0; i < x.pairs.size(); ++i) {
        EXPECT_EQ(x.pairs[i].pair, y.pairs[i].pair) << what;
        EXPECT_EQ(x.pairs[i].triangles, y.pairs[i].triangles) << what;
        ASSERT_EQ(x.pairs[i].segments.size(), y.pairs[i].segments.size()) << what;
        EXPECT_EQ(0, std::memcmp(x.pairs[i].segments.data(), y.pairs[i].segments.data(),
                                 x.pairs[i].segments.size() * sizeof(Segment)))
            << what << ": segments differ in their bits";
    }
}

// Three subdivided boxes (one mesh): 0 at the origin, 1 and 2 turned and overlapping it.
void addThreeBoxes(Scene& scene) {
    const MeshId box = scene.addMesh(std::make_shared<Mesh>(shapes::subdivided(shapes::box(Vec3(0.5f)), 2)));
    scene.addObject(box, Pose{Vec3(0.0f)});
    scene.addObject(box, Pose{Vec3(0.7f, 0.3f, 0.1f), glm::angleAxis(0.4f, glm::normalize(Vec3(1, 2, 3)))});
    scene.addObject(box, Pose{Vec3(-0.6f, -0.2f, 0.3f), glm::angleAxis(0.9f, glm::normalize(Vec3(3, 1, 1)))});
}

// Candidates 0..11 for addThreeBoxes(): they alternate between the three object pairs, in both
// orders (each pair named four times).
std::vector<ObjectPair> twelveCandidates() {
    const ObjectPair kinds[] = {{0, 1}, {2, 0}, {1, 2}, {1, 0}, {0, 2}, {2, 1}};
    std::vector<ObjectPair> candidates;
    for (int c = 0; c < 12; ++c) candidates.push_back(kinds[c % 6]);
    return candidates;
}

// Speculation: the last call's intersecting pairs, tested again during the next call's GPU wait
// (speculate()), give run() exactly what testing them in run() gives: the same pairs and
// bit-identical segments, over calls that move the objects; with none tested (stopped at once)
// the same again; remembered pairs of objects or triangles the scene does not have are skipped.
TEST(PeelExact, SpeculatedResultsAreWhatRunWouldCompute) {
    Scene scene;
    addThreeBoxes(scene);
    const std::vector<ObjectPair> candidates = {{0, 1}, {2, 0}};
    const auto triangles = static_cast<std::uint32_t>(scene.objectMesh(0).triangleCount());
    std::vector<peel::TrianglePairCandidate> found;
    for (std::uint32_t c = 0; c < 2; ++c)
        for (std::uint32_t a = 0; a < triangles; ++a)
            for (std::uint32_t b = 0; b < triangles; ++b) found.push_back({c, a, b});
    std::mt19937 rng(3);
    std::shuffle(found.begin(), found.end(), rng);
    peel::PeelExact speculating;
    const std::atomic<bool> go{false}, stopped{true};
    double reusedTotal = 0;
    for (int call = 0; call < 4; ++call) {
        Pose p = scene.pose(1);
        p.position += Vec3(-0.01f, 0.005f, 0.0f);
        p.rotation = glm::normalize(glm::angleAxis(0.02f, Vec3(0, 1, 0)) * p.rotation);
        scene.setPose(1, p);
        peel::PeelExact plain;
        DetectionOutput expected, got;
        plain.run(scene, candidates, found, true, expected);
        ASSERT_EQ(expected.pairs.size(), 2u);
        speculating.beginCall(true);
        speculating.speculate(scene, call == 2 ? stopped : go);
        speculating.run(scene, candidates, found, true, got, 2);
        expectSameBits(expected, got, "call " + std::to_string(call));
        std::size_t positives = 0;
        for (const PairResult& r : expected.pairs) positives += r.triangles.size();
        if (call == 0 || call == 2) {  // nothing remembered yet / stopped before the first pair
            EXPECT_EQ(got.stats.counter("exact_reused"), 0.0) << call;
        } else {  // every remembered pair is listed again (the list is all pairs)
            EXPECT_EQ(got.stats.counter("exact_speculated"), double(speculating.remembered())) << call;
            EXPECT_EQ(got.stats.counter("exact_reused"), double(speculating.remembered())) << call;
            EXPECT_GT(got.stats.counter("exact_reused"), 0.0);
            EXPECT_LT(got.stats.counter("exact_reused"), double(found.size()));
        }
        reusedTotal += got.stats.counter("exact_reused");
        speculating.remember(got.pairs);
        EXPECT_EQ(speculating.remembered(), positives);
    }
    EXPECT_GT(reusedTotal, 0.0);
    // Remembered pairs the scene does not have (objects 5 and 7, a triangle past the mesh's).
    PairResult stranger;
    stranger.pair = {5, 7};
    stranger.triangles = {{0, 1}};
    PairResult outOfRange;
    outOfRange.pair = {0, 1};
    outOfRange.triangles = {{0, triangles + 3}};
    const std::vector<PairResult> odd = {outOfRange, stranger};
    speculating.remember(odd);
    speculating.beginCall(true);
    speculating.speculate(scene, go);
    DetectionOutput expected, got;
    peel::PeelExact().run(scene, candidates, found, true, expected);
    speculating.run(scene, candidates, found, true, got);
    expectSameBits(expected, got, "odd pairs remembered");
    EXPECT_EQ(got.stats.counter("exact_speculated"), 0.0);
    EXPECT_EQ(got.stats.counter("exact_reused"), 0.0);
}

// rememberCall(): every distinct pair listed in a call is kept with its result (intersecting
// or apart), and the next call's run() looks each listed pair up in them instead of grouping
// and sorting the whole list. Over calls that move and turn an object, with lists that hold
// duplicates, pairs that are apart and pairs not listed the call before, the answer is bit for
// bit that of run() without speculation and of the grouped path (setLookup(false)); the pairs
// reused are exactly those listed in both calls; a candidate named twice and a call split in
// two runs give the plain answer too. The default path (the list grouped on every thread, each
// candidate's pairs merged with its group of the last call's) against the lookup one by one
// (setMerge(false), with and without the hash table): the same answer, the same pairs tested
// and reused, the same pairs kept.
TEST(PeelExact, ListedPairsAreKeptAndLookedUp) {
    Scene scene;
    addThreeBoxes(scene);
    const auto triangles = static_cast<std::uint32_t>(scene.objectMesh(0).triangleCount());
    // Call k lists the pairs (a, b) of candidate c with (7a + 3b + c + k) % 4 != 0 (a quarter
    // changes from call to call), every fifth twice, shuffled.
    auto listFor = [&](int call, std::size_t candidateCount, std::uint32_t firstCandidate = 0) {
        std::vector<peel::TrianglePairCandidate> found;
        for (std::uint32_t c = firstCandidate; c < candidateCount; ++c)
            for (std::uint32_t a = 0; a < triangles; ++a)
                for (std::uint32_t b = 0; b < triangles; ++b) {
                    if ((7 * a + 3 * b + c + std::uint32_t(call)) % 4 == 0) continue;
                    found.push_back({c, a, b});
                    if ((a + b) % 5 == 0) found.push_back({c, a, b});
                }
        std::mt19937 rng(std::uint32_t(17 + call));
        std::shuffle(found.begin(), found.end(), rng);
        return found;
    };
    auto distinct = [](const std::vector<peel::TrianglePairCandidate>& found) {
        std::set<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> s;
        for (const auto& f : found) s.insert({f.candidate, f.low, f.high});
        return s;
    };
    const std::vector<ObjectPair> candidates = {{0, 1}, {2, 0}};
    peel::PeelExact merging, looking, grouping, searching;
    looking.setMerge(false);  // each listed pair looked up in the hash table
    grouping.setLookup(false);
    searching.setMerge(false);
    searching.setHash(false);  // the lookup's binary search instead of the hash table
    const std::atomic<bool> go{false}, stopped{true};
    std::set<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> last;
    std::size_t lastPositives = 0;
    for (int call = 0; call < 5; ++call) {
        Pose p = scene.pose(1);
        p.position += Vec3(-0.01f, 0.005f, 0.0f);
        p.rotation = glm::normalize(glm::angleAxis(0.02f, Vec3(0, 1, 0)) * p.rotation);
        scene.setPose(1, p);
        const auto found = listFor(call, candidates.size());
        DetectionOutput expected, got, grouped, searched, mergedOut;
        peel::PeelExact().run(scene, candidates, found, true, expected);
        ASSERT_EQ(expected.pairs.size(), 2u);
        for (peel::PeelExact* e : {&merging, &looking, &grouping, &searching}) {
            e->beginCall(true);
            // As the detector does during the wait; in call 3 the fence "signals" before the
            // hash table is made: run() searches the groups then.
            if (call >= 2) e->prepare(candidates, call == 3 ? &stopped : nullptr);
            e->speculate(scene, go);
        }
        looking.run(scene, candidates, found, true, got, 2);
        grouping.run(scene, candidates, found, true, grouped, 2);
        searching.run(scene, candidates, found, true, searched, 2);
        merging.run(scene, candidates, found, true, mergedOut, 2);
        expectSameBits(expected, mergedOut, "merged, call " + std::to_string(call));
        expectSameBits(expected, got, "lookup, call " + std::to_string(call));
        expectSameBits(expected, grouped, "grouped, call " + std::to_string(call));
        expectSameBits(expected, searched, "searched, call " + std::to_string(call));
        if (call > 0) {
            EXPECT_EQ(got.stats.counter("exact_hashed"), call == 3 ? 0.0 : 1.0) << call;
            EXPECT_EQ(searched.stats.counter("exact_hashed"), 0.0) << call;
            EXPECT_EQ(searched.stats.counter("exact_reused"), got.stats.counter("exact_reused")) << call;
            EXPECT_EQ(mergedOut.stats.counter("exact_reused"), got.stats.counter("exact_reused")) << call;
            EXPECT_EQ(mergedOut.stats.counter("tri_tri_tests"), got.stats.counter("tri_tri_tests")) << call;
            EXPECT_EQ(mergedOut.stats.counter("positive_tests"), got.stats.counter("positive_tests")) << call;
            EXPECT_EQ(mergedOut.stats.counter("exact_speculated"), got.stats.counter("exact_speculated")) << call;
        }
        const auto listed = distinct(found);
        // Each distinct pair tested or reused once (the grouped path tests a pair that two of
        // its chunks hold twice: call 0).
        if (call > 0) {
            EXPECT_EQ(got.stats.counter("tri_tri_tests"), double(listed.size())) << call;
        }
        if (call == 1) {  // call 0 had nothing speculated (grouped path): its intersecting pairs kept
            EXPECT_EQ(got.stats.counter("exact_speculated"), double(lastPositives));
            EXPECT_GT(got.stats.counter("exact_reused"), 0.0);
        }
        if (call > 1) {  // reused: the distinct pairs listed in this call and the last
            std::size_t both = 0;
            for (const auto& t : listed) both += last.count(t);
            ASSERT_GT(both, 0u);
            ASSERT_LT(both, listed.size());
            EXPECT_EQ(got.stats.counter("exact_reused"), double(both)) << call;
            EXPECT_EQ(got.stats.counter("exact_speculated"), double(last.size())) << call;
            // The grouped path speculates the last call's intersecting pairs only.
            EXPECT_LT(grouped.stats.counter("exact_reused"), double(both)) << call;
        }
        merging.rememberCall(mergedOut.pairs);
        looking.rememberCall(got.pairs);
        grouping.rememberCall(grouped.pairs);
        searching.rememberCall(searched.pairs);
        EXPECT_EQ(merging.remembered(), looking.remembered()) << call;
        std::size_t positives = 0;
        for (const PairResult& r : expected.pairs) positives += r.triangles.size();
        // Call 0 had nothing speculated (grouped path): its intersecting pairs are kept.
        EXPECT_EQ(looking.remembered(), call == 0 ? positives : listed.size()) << call;
        EXPECT_EQ(grouping.remembered(), positives) << call;
        last = listed;
        lastPositives = positives;
    }
    // A candidate named twice (the second's pairs are all tested), and a call in two runs (the
    // detector's split call), each against run() without speculation.
    const std::vector<ObjectPair> twice = {{0, 1}, {2, 0}, {0, 1}};
    for (int call = 5; call < 8; ++call) {
        Pose p = scene.pose(2);
        p.position += Vec3(0.004f, -0.003f, 0.002f);
        scene.setPose(2, p);
        DetectionOutput expected;
        peel::PeelExact plain;
        if (call == 6) {
            const auto first = listFor(call, 1), second = listFor(call, 2, 1);
            plain.run(scene, candidates, first, true, expected);
            plain.run(scene, candidates, second, true, expected);
        } else {
            plain.run(scene, twice, listFor(call, twice.size()), true, expected);
        }
        double reusedBy[2] = {0, 0};
        for (peel::PeelExact* e : {&merging, &looking}) {
            const char* path = e == &merging ? "merged" : "lookup";
            DetectionOutput got;
            e->beginCall(true);
            e->speculate(scene, go);
            if (call == 6) {
                const auto first = listFor(call, 1), second = listFor(call, 2, 1);
                e->run(scene, candidates, first, true, got, 2);
                e->run(scene, candidates, second, true, got, 2);
                EXPECT_GT(got.stats.counter("exact_reused"), 0.0) << path;
            } else {
                e->run(scene, twice, listFor(call, twice.size()), true, got, 2);
                ASSERT_EQ(got.pairs.size(), 3u) << path;
                if (call == 7) {
                    EXPECT_GT(got.stats.counter("exact_reused"), 0.0) << path;
                }
            }
            expectSameBits(expected, got, std::string(path) + ", call " + std::to_string(call));
            reusedBy[e == &merging ? 0 : 1] = got.stats.counter("exact_reused");
            e->rememberCall(got.pairs);
        }
        EXPECT_EQ(reusedBy[0], reusedBy[1]) << call;
        EXPECT_EQ(merging.remembered(), looking.remembered()) << call;
    }
}

// The same on a list as the detector's (parallel: more than kParallelFrom entries, split over
// the threads): many candidates (some named twice), a list in random order with duplicates,
// pairs apart, pairs new to the call and remembered pairs not listed again; the merged path against the plain run and
// the lookup one by one, bit for bit, with the same counters (the merge's limit raised above the
// list's length). A list longer than the limit takes the lookup, with the same answer.
TEST(PeelExact, MergedPathOnALargeListIsTheLookupsAnswer) {
    Scene scene;
    addThreeBoxes(scene);
    const auto triangles = static_cast<std::uint32_t>(scene.objectMesh(0).triangleCount());
    const std::vector<ObjectPair> candidates = twelveCandidates();
    auto listFor = [&](int call) {
        std::vector<peel::TrianglePairCandidate> found;
        for (std::uint32_t c = 0; c < candidates.size(); ++c)
            for (std::uint32_t a = 0; a < triangles; ++a)
                for (std::uint32_t b = 0; b < triangles; ++b) {
                    if ((5 * a + 11 * b + 3 * c + std::uint32_t(call)) % 6 >= 2) continue;
                    found.push_back({c, a, b});
                    if ((a * b + c) % 7 == 0) found.push_back({c, a, b});
                }
        std::mt19937 rng(std::uint32_t(101 + call));
        std::shuffle(found.begin(), found.end(), rng);
        return found;
    };
    ASSERT_GT(listFor(0).size(), 2048u) << "the run must be parallel";
    peel::PeelExact merging, looking, limited;
    merging.setMergeMaxList(listFor(0).size() * 2);  // the list is longer than the default limit
    looking.setMerge(false);
    limited.setMergeMaxList(1024);
    const std::atomic<bool> go{false};
    for (int call = 0; call < 4; ++call) {
        Pose p = scene.pose(1);
        p.position += Vec3(-0.01f, 0.005f, 0.0f);
        p.rotation = glm::normalize(glm::angleAxis(0.03f, Vec3(0, 1, 0)) * p.rotation);
        scene.setPose(1, p);
        const auto found = listFor(call);
        DetectionOutput expected, merged, looked, overLimit;
        peel::PeelExact().run(scene, candidates, found, true, expected, 4);
        for (peel::PeelExact* e : {&merging, &looking, &limited}) {
            e->beginCall(true);
            e->prepare(candidates);
            e->speculate(scene, go);
        }
        merging.run(scene, candidates, found, true, merged, 4);
        looking.run(scene, candidates, found, true, looked, 4);
        limited.run(scene, candidates, found, true, overLimit, 4);
        expectSameBits(expected, merged, "merged, call " + std::to_string(call));
        expectSameBits(expected, looked, "lookup, call " + std::to_string(call));
        expectSameBits(expected, overLimit, "over the merge's limit, call " + std::to_string(call));
        for (const char* name : {"tri_tri_tests", "positive_tests", "exact_reused", "exact_speculated"}) {
            EXPECT_EQ(merged.stats.counter(name), looked.stats.counter(name)) << name << ", call " << call;
            EXPECT_EQ(overLimit.stats.counter(name), looked.stats.counter(name)) << name << ", call " << call;
        }
        if (call > 0) {  // speculated results in hand: which path ran
            EXPECT_EQ(merged.stats.counter("exact_merged"), 1.0) << call;
            EXPECT_EQ(looked.stats.counter("exact_merged"), 0.0) << call;
            EXPECT_EQ(overLimit.stats.counter("exact_merged"), 0.0) << call;
        }
        if (call > 1) {
            EXPECT_GT(merged.stats.counter("exact_reused"), 0.0) << call;
        }
        merging.rememberCall(merged.pairs);
        looking.rememberCall(looked.pairs);
        limited.rememberCall(overLimit.pairs);
        EXPECT_EQ(merging.remembered(), looking.remembered()) << call;
        EXPECT_EQ(limited.remembered(), looking.remembered()) << call;
    }
}

// The room of the next call's pairs kept from call to call (setKeepRoom, the default: beginCall
// resets only the used lengths, the runs reuse the buffers without zeroing them) against the room
// made anew each call (setKeepRoom(false), as before), on the merged path and the lookup one by
// one, over calls whose lists grow and shrink (the kept room longer or shorter than a call
// needs), a call in two runs (the detector's split call), and a call without speculated results
// (the grouped path; the next call speculates its intersecting pairs): bit for bit the same
// answer as run() without speculation, the same counters and the same pairs kept.
TEST(PeelExact, KeptRoomIsTheFreshRoomsAnswer) {
    Scene scene;
    addThreeBoxes(scene);
    const auto triangles = static_cast<std::uint32_t>(scene.objectMesh(0).triangleCount());
    const std::vector<ObjectPair> candidates = twelveCandidates();
    // Calls 1 and 4 list about half as many pairs again as the others.
    auto listFor = [&](int call, std::uint32_t firstCandidate, std::uint32_t endCandidate) {
        const std::uint32_t keep = call == 1 || call == 4 ? 3 : 2;
        std::vector<peel::TrianglePairCandidate> found;
        for (std::uint32_t c = firstCandidate; c < endCandidate; ++c)
            for (std::uint32_t a = 0; a < triangles; ++a)
                for (std::uint32_t b = 0; b < triangles; ++b) {
                    if ((5 * a + 7 * b + 3 * c + std::uint32_t(call)) % 6 >= keep) continue;
                    found.push_back({c, a, b});
                    if ((a + 2 * b + c) % 9 == 0) found.push_back({c, a, b});
                }
        std::mt19937 rng(std::uint32_t(501 + call));
        std::shuffle(found.begin(), found.end(), rng);
        return found;
    };
    const auto nc = static_cast<std::uint32_t>(candidates.size());
    ASSERT_GT(listFor(0, 0, nc).size(), 2048u) << "the run must be parallel";
    peel::PeelExact keptMerge, freshMerge, keptLookup, freshLookup;
    freshMerge.setKeepRoom(false);
    for (peel::PeelExact* e : {&keptMerge, &freshMerge}) e->setMergeMaxList(4 * listFor(1, 0, nc).size());
    keptLookup.setMerge(false);
    freshLookup.setMerge(false);
    freshLookup.setKeepRoom(false);
    peel::PeelExact* const engines[] = {&keptMerge, &freshMerge, &keptLookup, &freshLookup};
    const std::atomic<bool> go{false}, stopped{true};
    for (int call = 0; call < 7; ++call) {
        Pose p = scene.pose(1);
        p.position += Vec3(-0.008f, 0.004f, 0.0f);
        p.rotation = glm::normalize(glm::angleAxis(0.025f, Vec3(0, 1, 0)) * p.rotation);
        scene.setPose(1, p);
        const bool split = call == 3;        // two runs: candidates [0, 5), then [5, 12)
        const bool unspeculated = call == 5;  // nothing speculated: the grouped path
        const auto whole = listFor(call, 0, nc), first = listFor(call, 0, 5), second = listFor(call, 5, nc);
        DetectionOutput expected;
        peel::PeelExact plain;
        if (split) {
            plain.run(scene, candidates, first, true, expected, 4);
            plain.run(scene, candidates, second, true, expected, 4);
        } else {
            plain.run(scene, candidates, whole, true, expected, 4);
        }
        DetectionOutput got[4];
        for (int e = 0; e < 4; ++e) {
            engines[e]->beginCall(true);
            engines[e]->prepare(candidates);
            engines[e]->speculate(scene, unspeculated ? stopped : go);
            if (split) {
                engines[e]->run(scene, candidates, first, true, got[e], 4);
                engines[e]->run(scene, candidates, second, true, got[e], 4);
            } else {
                engines[e]->run(scene, candidates, whole, true, got[e], 4);
            }
            expectSameBits(expected, got[e], "engine " + std::to_string(e) + ", call " + std::to_string(call));
        }
        for (const char* name : {"tri_tri_tests", "positive_tests", "exact_reused", "exact_speculated"}) {
            EXPECT_EQ(got[0].stats.counter(name), got[1].stats.counter(name)) << name << ", call " << call;
            EXPECT_EQ(got[2].stats.counter(name), got[3].stats.counter(name)) << name << ", call " << call;
        }
        if (call > 0 && !unspeculated) {
            EXPECT_GT(got[0].stats.counter("exact_reused"), 0.0) << call;
            EXPECT_EQ(got[0].stats.counter("exact_merged"), 1.0) << call;
        }
        for (int e = 0; e < 4; ++e) engines[e]->rememberCall(got[e].pairs);
        EXPECT_EQ(keptMerge.remembered(), freshMerge.remembered()) << call;
        EXPECT_EQ(keptLookup.remembered(), freshLookup.remembered()) << call;
    }
}

// Each candidate handled after the wait by the thread that speculated its group of the last
// call's pairs (setOwned, the default) against one shared speculation sweep and the candidates
// taken by any thread (setOwned(false), as before): speculation inside a team of five (each
// waiting thread its own range, as in the detector's wait) and run() with teams of 4, 6 and 5
// threads (more or fewer queues than ranges), a call speculated by one thread outside a team, a
// call in two runs, a call without speculated results, and one whose speculation is stopped at
// once by the team's first thread (whatever the other threads tested by then): bit for bit the
// same answer as run() without speculation, and (where both speculated everything) the same
// counters and pairs kept.
TEST(PeelExact, OwnedCandidatesAreTheSharedAnswer) {
    Scene scene;
    addThreeBoxes(scene);
    const auto triangles = static_cast<std::uint32_t>(scene.objectMesh(0).triangleCount());
    const std::vector<ObjectPair> candidates = twelveCandidates();
    auto listFor = [&](int call, std::uint32_t firstCandidate, std::uint32_t endCandidate) {
        std::vector<peel::TrianglePairCandidate> found;
        for (std::uint32_t c = firstCandidate; c < endCandidate; ++c)
            for (std::uint32_t a = 0; a < triangles; ++a)
                for (std::uint32_t b = 0; b < triangles; ++b) {
                    if ((7 * a + 5 * b + 3 * c + std::uint32_t(call)) % 6 >= (call % 3 == 1 ? 3u : 2u)) continue;
                    found.push_back({c, a, b});
                    if ((2 * a + b + c) % 11 == 0) found.push_back({c, a, b});
                }
        std::mt19937 rng(std::uint32_t(907 + call));
        std::shuffle(found.begin(), found.end(), rng);
        return found;
    };
    const auto nc = static_cast<std::uint32_t>(candidates.size());
    ASSERT_GT(listFor(0, 0, nc).size(), 2048u) << "the run must be parallel";
    peel::PeelExact owned, shared;
    shared.setOwned(false);
    for (peel::PeelExact* e : {&owned, &shared}) e->setMergeMaxList(4 * listFor(1, 0, nc).size());
    const std::atomic<bool> go{false}, stopped{true};
    // The run's team is the speculating team's size (5), as in the detector; call 2 speculates on
    // one thread outside a team. (Run teams of 4, 5 and 6 in one process, the first form, made
    // LLVM's OpenMP runtime leak the structures of the teams it resized, allocated in its
    // __kmp_fork_call and never freed: the sanitizer job's leak check failed on it.)
    const int runThreads[] = {5, 5, 5, 5, 5, 5, 5, 5};
    for (int call = 0; call < 8; ++call) {
        Pose p = scene.pose(1);
        p.position += Vec3(0.006f, -0.005f, 0.002f);
        p.rotation = glm::normalize(glm::angleAxis(0.02f, Vec3(1, 0, 0)) * p.rotation);
        scene.setPose(1, p);
        const bool split = call == 3;         // two runs: candidates [0, 7), then [7, 12)
        const bool unspeculated = call == 5;  // nothing speculated: the grouped path
        const bool alone = call == 2;         // speculated by one thread, outside a team
        const bool cut = call == 6;           // the team's first thread stops the others at once
        // Whether a thread tests before the cut's stop is a race, so in the cut call the two
        // engines may take different paths (merged, or grouped when nothing was speculated) and
        // remember different lists for the next: there and in the call after it only the answers
        // are compared (the counters and the remembered count differed in one .ci/run).
        const bool raced = cut || call == 7;
        const int threads = runThreads[call];
        const auto whole = listFor(call, 0, nc), first = listFor(call, 0, 7), second = listFor(call, 7, nc);
        DetectionOutput expected;
        peel::PeelExact plain;
        if (split) {
            plain.run(scene, candidates, first, true, expected, threads);
            plain.run(scene, candidates, second, true, expected, threads);
        } else {
            plain.run(scene, candidates, whole, true, expected, threads);
        }
        DetectionOutput got[2];
        peel::PeelExact* const engines[] = {&owned, &shared};
        for (int e = 0; e < 2; ++e) {
            peel::PeelExact& exact = *engines[e];
            exact.beginCall(true);
            exact.prepare(candidates);
            if (unspeculated) {
                exact.speculate(scene, stopped);
            } else if (alone) {
                exact.speculate(scene, go);
            } else {
                std::atomic<bool> stop{false};
#pragma omp parallel num_threads(5)
                {
                    if (cut && omp_get_thread_num() == 0) stop.store(true);
                    exact.speculate(scene, cut ? stop : go);
                }
            }
            if (split) {
                exact.run(scene, candidates, first, true, got[e], threads);
                exact.run(scene, candidates, second, true, got[e], threads);
            } else {
                exact.run(scene, candidates, whole, true, got[e], threads);
            }
            expectSameBits(expected, got[e], std::string(e == 0 ? "owned" : "shared") + ", call " + std::to_string(call));
        }
        if (!raced) {
            for (const char* name : {"tri_tri_tests", "positive_tests", "exact_reused", "exact_speculated"})
                EXPECT_EQ(got[0].stats.counter(name), got[1].stats.counter(name)) << name << ", call " << call;
        }
        if (call > 0 && !unspeculated && !cut) {
            EXPECT_GT(got[0].stats.counter("exact_reused"), 0.0) << call;
            EXPECT_EQ(got[0].stats.counter("exact_merged"), 1.0) << call;
        }
        for (int e = 0; e < 2; ++e) engines[e]->rememberCall(got[e].pairs);
        if (!cut) {
            EXPECT_EQ(owned.remembered(), shared.remembered()) << call;
        }
    }
}

// classifyObjects by object (the default since 2026-11-29, eleventh session: the pairs' objects
// marked without branches, then classed in object order) against the pair-by-pair form, on a scene
// with an unused, an inactive, a non-finite, an open-mesh object and self pairs, with and without
// selfCollision and openMeshes: the same states, boxes, unserved pairs (in candidate order) and
// warnings (as a set: by object their order is the objects'). With a self pair's object marked
// when selfCollision is off the by-object form classed it and failed.
TEST(PeelUnits, ClassifyByObjectIsThePairByPairClassification) {
    std::vector<Vec3> v = {{0, 0, 0}, {1, 0, 0}, {0, 0, 1}, {1, 0, 1}};
    std::vector<UVec3> t = {{0, 2, 1}, {1, 2, 3}};
    auto sheet = Mesh::create("sheet", v, t);
    ASSERT_TRUE(sheet.has_value());
    ASSERT_FALSE(sheet->isClosed());
    Scene scene;
    const MeshId box = scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.5f))));
    const MeshId open = scene.addMesh(std::make_shared<Mesh>(std::move(*sheet)));
    for (int i = 0; i < 9; ++i) scene.addObject(box, Pose{Vec3(0.7f * float(i), 0.0f, 0.0f)});
    scene.addObject(open, Pose{Vec3(0.2f, 0.4f, 0.0f)});  // 9: open
    scene.setActive(3, false);                            // 3: inactive
    Pose bad = scene.pose(5);
    bad.position.x = std::nanf("");
    scene.setPose(5, bad);  // 5: non-finite
    // 7 takes part only in a self pair; 8 in none.
    const std::vector<ObjectPair> candidates = {{0, 1}, {1, 2}, {2, 3}, {4, 5}, {5, 6}, {7, 7}, {0, 9}, {1, 9}, {6, 6}};
    for (bool self : {false, true})
        for (bool openMeshes : {false, true}) {
            peel::CallObjects a, b;
            DetectionOutput outA, outB;
            peel::classifyObjects(scene, candidates, self, openMeshes, a, outA, true);
            peel::classifyObjects(scene, candidates, self, openMeshes, b, outB, false);
            const std::string what = std::string("selfCollision ") + (self ? "on" : "off") + ", openMeshes " +
                                     (openMeshes ? "on" : "off");
            EXPECT_EQ(a.state, b.state) << what;
            ASSERT_EQ(a.bounds.size(), b.bounds.size());
            for (std::size_t o = 0; o < a.bounds.size(); ++o) {
                EXPECT_EQ(a.bounds[o].min, b.bounds[o].min) << what << ", object " << o;
                EXPECT_EQ(a.bounds[o].max, b.bounds[o].max) << what << ", object " << o;
            }
            EXPECT_EQ(outA.unserved, outB.unserved) << what;
            EXPECT_EQ(std::multiset<std::string>(outA.stats.warnings.begin(), outA.stats.warnings.end()),
                      std::multiset<std::string>(outB.stats.warnings.begin(), outB.stats.warnings.end()))
                << what;
            EXPECT_EQ(outA.stats.counter("unserved_pairs"), outB.stats.counter("unserved_pairs")) << what;
            // What the scene says, worked out by hand.
            EXPECT_EQ(a.state[8], peel::kUnused) << what;
            EXPECT_EQ(a.state[3], peel::kSkipped) << what;
            EXPECT_EQ(a.state[5], peel::kSkipped) << what;
            EXPECT_EQ(a.state[7], self ? peel::kUsed : peel::kUnused) << what;
            EXPECT_EQ(a.state[9], openMeshes ? peel::kUsed : peel::kUnserved) << what;
            EXPECT_EQ(outA.unserved.size(), openMeshes ? 0u : 2u) << what;
            EXPECT_EQ(outA.stats.warnings.size(), openMeshes ? 1u : 2u) << what;  // the NaN pose; the open mesh
        }
}

}  // namespace
}  // namespace isc
