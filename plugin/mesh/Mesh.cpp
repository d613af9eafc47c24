#include "isc/mesh/Mesh.h"

#include "isc/core/Assert.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <unordered_map>
#include <utility>

namespace isc {

namespace {

// A triangle whose height is below this fraction of its longest edge is treated as
// zero-area: float coordinates cannot resolve it (float epsilon is 1.2e-7), and the
// detectors would get a garbage normal from it.
constexpr double kDegenerateRelativeHeight = 1e-7;

bool isFinite(const Vec3& v) {
    return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

std::string quoted(const std::string& name) { return "\"" + name + "\""; }

std::string formatVec(const Vec3& v) {
    std::ostringstream s;
    s << "(" << v.x << ", " << v.y << ", " << v.z << ")";
    return s.str();
}

// Twice the triangle area compared with its longest edge squared, in double.
bool isZeroArea(const Vec3& a, const Vec3& b, const Vec3& c) {
    const DVec3 da(a), db(b), dc(c);
    const DVec3 e0 = db - da, e1 = dc - db, e2 = da - dc;
    const double longest2 =
        std::max({glm::dot(e0, e0), glm::dot(e1, e1), glm::dot(e2, e2)});
    const double twiceArea = glm::length(glm::cross(e0, -e2));
    // twiceArea = longest * height, so height / longest = twiceArea / longest^2.
    return longest2 == 0.0 || twiceArea <= kDegenerateRelativeHeight * longest2;
}

std::uint64_t edgeKey(std::uint32_t a, std::uint32_t b) {
    if (a > b) std::swap(a, b);
    return (std::uint64_t(a) << 32) | b;
}

}  // namespace

std::string MeshReport::describe() const {
    std::ostringstream s;
    if (closed()) {
        s << "closed";
    } else {
        s << "open:";
        if (boundaryEdges > 0) s << " " << boundaryEdges << " boundary edges";
        if (boundaryEdges > 0 && nonManifoldEdges > 0) s << ",";
        if (nonManifoldEdges > 0) s << " " << nonManifoldEdges << " non-manifold edges";
    }
    if (misorientedEdges > 0) s << "; " << misorientedEdges << " misoriented edges";
    if (degenerateDropped > 0) s << "; " << degenerateDropped << " degenerate triangles dropped";
    return s.str();
}

Result<Mesh> Mesh::withVertices(std::vector<Vec3> vertices) const {
    const std::string where = "Mesh::withVertices(" + quoted(name_) + "): ";
    if (vertices.size() != vertices_.size())
        return fail(where + std::to_string(vertices.size()) + " vertices given, the mesh has " +
                    std::to_string(vertices_.size()));
    Aabb bounds;
    for (std::size_t i = 0; i < vertices.size(); ++i) {
        if (!isFinite(vertices[i]))
            return fail(where + "vertex " + std::to_string(i) + " has a non-finite coordinate " + formatVec(vertices[i]));
        bounds.grow(vertices[i]);
    }
    for (std::size_t t = 0; t < triangles_.size(); ++t) {
        const UVec3 tri = triangles_[t];
        if (isZeroArea(vertices[tri.x], vertices[tri.y], vertices[tri.z]))
            return fail(where + "triangle " + std::to_string(t) + " has zero area at the new vertices");
    }
    Mesh m;
    m.name_ = name_;
    m.vertices_ = std::move(vertices);
    m.triangles_ = triangles_;
    m.report_ = report_;
    m.bounds_ = bounds;
    return m;
}

Result<Mesh> Mesh::create(std::string name, std::vector<Vec3> vertices,
                          std::vector<UVec3> triangles) {
    const std::string where = "Mesh::create(" + quoted(name) + "): ";
    if (vertices.size() > std::size_t(UINT32_MAX)) {
        return fail(where + std::to_string(vertices.size()) +
                    " vertices: more than 32-bit indices can address; split the mesh");
    }
    for (std::size_t i = 0; i < vertices.size(); ++i) {
        if (!isFinite(vertices[i])) {
            return fail(where + "vertex " + std::to_string(i) + " has a non-finite coordinate " +
                        formatVec(vertices[i]) + "; fix or remove it in the source data");
        }
    }
    const auto vertexCount = std::uint32_t(vertices.size());

    MeshReport report;
    std::vector<UVec3> kept;
    kept.reserve(triangles.size());
    for (std::size_t t = 0; t < triangles.size(); ++t) {
        const UVec3 tri = triangles[t];
        if (tri.x >= vertexCount || tri.y >= vertexCount || tri.z >= vertexCount) {
            return fail(where + "triangle " + std::to_string(t) + " has indices (" +
                        std::to_string(tri.x) + ", " + std::to_string(tri.y) + ", " +
                        std::to_string(tri.z) + ") but the mesh has only " +
                        std::to_string(vertexCount) + " vertices (indices are 0-based)");
        }
        if (tri.x == tri.y || tri.y == tri.z || tri.z == tri.x ||
            isZeroArea(vertices[tri.x], vertices[tri.y], vertices[tri.z])) {
            ++report.degenerateDropped;
            continue;
        }
        kept.push_back(tri);
    }
    if (kept.empty()) {
        return fail(where + "no triangle left (" + std::to_string(triangles.size()) +
                    " given, " + std::to_string(report.degenerateDropped) +
                    " degenerate dropped); a mesh needs at least one triangle with non-zero area");
    }

    // Edge use counts over the kept triangles, and how many walk each edge from its
    // lower to its higher index (a consistently wound two-triangle edge has exactly one).
    struct EdgeUse {
        std::uint32_t uses = 0;
        std::uint32_t ascending = 0;
    };
    std::unordered_map<std::uint64_t, EdgeUse> edges;
    edges.reserve(kept.size() * 2);
    auto addEdge = [&edges](std::uint32_t a, std::uint32_t b) {
        EdgeUse& e = edges[edgeKey(a, b)];
        ++e.uses;
        if (a < b) ++e.ascending;
    };
    for (const UVec3& tri : kept) {
        addEdge(tri.x, tri.y);
        addEdge(tri.y, tri.z);
        addEdge(tri.z, tri.x);
    }
    for (const auto& [key, e] : edges) {
        if (e.uses == 1) ++report.boundaryEdges;
        else if (e.uses > 2) ++report.nonManifoldEdges;
        else if (e.ascending != 1) ++report.misorientedEdges;
    }

    Mesh mesh;
    mesh.name_ = std::move(name);
    mesh.vertices_ = std::move(vertices);
    mesh.triangles_ = std::move(kept);
    mesh.report_ = report;
    for (const Vec3& v : mesh.vertices_) mesh.bounds_.grow(v);
    return mesh;
}

Mesh Mesh::scaled(float factor) const {
    ISC_ASSERT(std::isfinite(factor) && factor > 0.0f,
               "Mesh::scaled(): factor must be finite and positive");
    Mesh out = *this;
    for (Vec3& v : out.vertices_) v *= factor;
    out.bounds_ = Aabb{};
    for (const Vec3& v : out.vertices_) out.bounds_.grow(v);
    return out;
}

Mesh Mesh::centered() const {
    Mesh out = *this;
    const Vec3 c = bounds_.center();
    for (Vec3& v : out.vertices_) v -= c;
    out.bounds_ = Aabb{};
    for (const Vec3& v : out.vertices_) out.bounds_.grow(v);
    return out;
}

double Mesh::signedVolume() const {
    double sixTimes = 0.0;
    for (const UVec3& t : triangles_) {
        const DVec3 a(vertices_[t.x]), b(vertices_[t.y]), c(vertices_[t.z]);
        sixTimes += glm::dot(a, glm::cross(b, c));
    }
    return sixTimes / 6.0;
}

double Mesh::surfaceArea() const {
    double twice = 0.0;
    for (const UVec3& t : triangles_) {
        const DVec3 a(vertices_[t.x]), b(vertices_[t.y]), c(vertices_[t.z]);
        twice += glm::length(glm::cross(b - a, c - a));
    }
    return twice / 2.0;
}

}  // namespace isc
