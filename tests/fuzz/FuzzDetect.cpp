// libFuzzer target: the exact detector `cpu` (BVH, its pruning and the triangle-triangle
// test) on small random scenes: two to four objects, meshes from random grid triangles
// (degenerate, duplicate and open ones included) or small closed shapes, random poses
// (sometimes non-finite), optionally far from the origin. Checks, for every candidate
// pair: no crash, and the triangle pairs equal the brute-force test of every triangle
// pair (geometry::intersectBruteForce); objects with a non-finite pose are skipped with a
// warning and give no result.
#include "FuzzInput.h"

#include "isc/detect/Registry.h"
#include "isc/geometry/Reference.h"
#include "isc/mesh/Shapes.h"
#include "isc/scene/Scene.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>

namespace {

void check(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "fuzz_detect: invariant broken: %s\n", what);
        std::abort();
    }
}

std::shared_ptr<const isc::Mesh> makeMesh(isc::fuzz::FuzzInput& in) {
    switch (in.below(4)) {
        case 0: return std::make_shared<const isc::Mesh>(isc::shapes::box(isc::Vec3(in.grid(0.05f, 1.0f))));
        case 1:
            return std::make_shared<const isc::Mesh>(
                isc::shapes::uvSphere(in.grid(0.05f, 1.0f), 3 + int(in.below(6)), 2 + int(in.below(5))));
        default: break;
    }
    // Random triangles on a coarse grid: touching, coplanar and degenerate cases are common.
    const unsigned n = 3 + in.below(10);
    std::vector<isc::Vec3> v(n);
    for (isc::Vec3& p : v) p = isc::Vec3(in.grid(-1, 1), in.grid(-1, 1), in.grid(-1, 1));
    std::vector<isc::UVec3> t(1 + in.below(12));
    for (isc::UVec3& tri : t) tri = isc::UVec3(in.below(n), in.below(n), in.below(n));
    auto m = isc::Mesh::create("fuzz", std::move(v), std::move(t));
    if (!m) return std::make_shared<const isc::Mesh>(isc::shapes::box(isc::Vec3(0.5f)));
    return std::make_shared<const isc::Mesh>(std::move(*m));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static std::unique_ptr<isc::Detector> cpu = [] {
        isc::DetectorSettings s;
        s.wantSegments = false;
        return std::move(*isc::createDetector("cpu", s));
    }();
    isc::fuzz::FuzzInput in(data, size);
    static const float offsets[] = {0.0f, 1000.0f, 1.0e6f};
    const float offset = offsets[in.below(3)];
    isc::Scene scene;
    const unsigned objects = 2 + in.below(3);
    std::vector<bool> finite(objects, true);
    for (unsigned o = 0; o < objects; ++o) {
        const isc::MeshId mesh = scene.addMesh(makeMesh(in));
        isc::Pose pose;
        pose.position = isc::Vec3(offset) + isc::Vec3(in.grid(-1, 1), in.grid(-1, 1), in.grid(-1, 1));
        isc::Quat q(in.grid(-1, 1), in.grid(-1, 1), in.grid(-1, 1), in.grid(-1, 1));
        pose.rotation = glm::length(q) > 0.1f ? glm::normalize(q) : isc::Quat(1, 0, 0, 0);
        if (in.below(16) == 0) {  // a body that blew up
            pose.position.x = std::numeric_limits<float>::quiet_NaN();
            finite[o] = false;
        }
        scene.addObject(mesh, pose);
    }
    std::vector<isc::ObjectPair> candidates;
    for (unsigned a = 0; a < objects; ++a)
        for (unsigned b = a + 1; b < objects; ++b) candidates.push_back({a, b});

    isc::DetectionOutput out;
    check(cpu->detect(scene, candidates, out).has_value(), "cpu detect() failed");
    check(out.unserved.empty(), "cpu returned pairs unserved");
    std::map<isc::ObjectPair, std::vector<isc::TrianglePair>> got;
    for (const isc::PairResult& r : out.pairs) {
        check(finite[r.pair.a] && finite[r.pair.b], "a result for an object with a non-finite pose");
        check(!r.triangles.empty(), "a colliding pair without triangles");
        got[r.pair] = r.triangles;
    }
    bool anyNan = false;
    for (unsigned o = 0; o < objects; ++o) anyNan |= !finite[o];
    check(!anyNan || !out.stats.warnings.empty(), "a non-finite pose skipped without a warning");
    for (const isc::ObjectPair& p : candidates) {
        if (!finite[p.a] || !finite[p.b]) continue;
        isc::geometry::PosedMesh a(scene.objectMesh(p.a)), b(scene.objectMesh(p.b));
        a.update(scene.pose(p.a));
        b.update(scene.pose(p.b));
        std::vector<isc::TrianglePair> brute;
        isc::geometry::intersectBruteForce(a, b, brute);
        const auto it = got.find(p);
        const std::vector<isc::TrianglePair> none;
        check((it == got.end() ? none : it->second) == brute, "cpu differs from the brute-force test");
    }
    return 0;
}
