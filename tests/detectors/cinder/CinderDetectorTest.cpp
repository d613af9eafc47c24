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
#include <memory>

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

}  // namespace
}  // namespace isc
