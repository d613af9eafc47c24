#include "SlicesExact.h"

#include "isc/geometry/TriangleTriangle.h"

#include <algorithm>
#include <cstdint>

namespace isc::detail {

namespace {

struct Tri {
    std::uint32_t index;
    DVec3 p[3];
    DVec3 lo, hi;
};

// The triangles of `object` whose boxes reach `box` (world, double, touching included).
void trianglesIn(const Scene& scene, ObjectId object, const Aabb& box, std::vector<Tri>& out) {
    const Pose& pose = scene.pose(object);
    const std::span<const Vec3> v = scene.localVertices(object);
    const auto tris = scene.objectMesh(object).triangles();
    const DVec3 bmin(box.min), bmax(box.max);
    for (std::uint32_t t = 0; t < tris.size(); ++t) {
        Tri tri;
        tri.index = t;
        tri.p[0] = pose.applyDouble(v[tris[t].x]);
        tri.p[1] = pose.applyDouble(v[tris[t].y]);
        tri.p[2] = pose.applyDouble(v[tris[t].z]);
        tri.lo = glm::min(tri.p[0], glm::min(tri.p[1], tri.p[2]));
        tri.hi = glm::max(tri.p[0], glm::max(tri.p[1], tri.p[2]));
        if (glm::any(glm::greaterThan(tri.lo, bmax)) || glm::any(glm::lessThan(tri.hi, bmin))) continue;
        out.push_back(tri);
    }
}

}  // namespace

void SlicesExact::run(const Scene& scene, std::span<const Query> queries, bool wantSegments,
                      std::vector<Found>& found, DetectorStats& stats) {
    found.assign(queries.size(), {});
    std::vector<double> inside(queries.size(), 0), tests(queries.size(), 0);
    const auto n = static_cast<std::int64_t>(queries.size());
#pragma omp parallel for schedule(dynamic, 1) if (n > 1)
    for (std::int64_t q = 0; q < n; ++q) {
        const Query& query = queries[std::size_t(q)];
        std::vector<Tri> ta, tb;
        trianglesIn(scene, query.a, query.box, ta);
        trianglesIn(scene, query.b, query.box, tb);
        inside[std::size_t(q)] = double(ta.size() + tb.size());
        // Sweep along x: b's triangles sorted by their lowest x.
        std::sort(tb.begin(), tb.end(), [](const Tri& x, const Tri& y) { return x.lo.x < y.lo.x; });
        Found& f = found[std::size_t(q)];
        std::vector<std::pair<TrianglePair, Segment>> hits;
        double count = 0;
        for (const Tri& a : ta) {
            for (const Tri& b : tb) {
                if (b.lo.x > a.hi.x) break;
                if (b.hi.x < a.lo.x || b.lo.y > a.hi.y || b.hi.y < a.lo.y || b.lo.z > a.hi.z || b.hi.z < a.lo.z)
                    continue;
                count += 1;
                DVec3 p0, p1;
                if (geometry::triangleIntersection(a.p, b.p, p0, p1) == geometry::TriangleContact::None) continue;
                hits.push_back({TrianglePair{a.index, b.index}, Segment{Vec3(p0), Vec3(p1)}});
            }
        }
        tests[std::size_t(q)] = count;
        std::sort(hits.begin(), hits.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
        for (const auto& [pair, segment] : hits) {
            f.triangles.push_back(pair);
            if (wantSegments) f.segments.push_back(segment);
        }
    }
    double totalInside = 0, totalTests = 0;
    for (std::size_t q = 0; q < queries.size(); ++q) {
        totalInside += inside[q];
        totalTests += tests[q];
    }
    stats.count("exact_triangles", totalInside);
    stats.count("tri_tri_tests", totalTests);
}

}  // namespace isc::detail
