#include "isc/mesh/Shapes.h"

#include "isc/core/Assert.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numbers>
#include <numeric>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace isc::shapes {

namespace {

constexpr float kTwoPi = 2.0f * std::numbers::pi_v<float>;

// The shapes are built valid by construction; a failure here is a bug in this file (or
// parameters far outside the asserted range), so it stops even where asserts are off.
Mesh build(std::string name, std::vector<Vec3> vertices, std::vector<UVec3> triangles) {
    Result<Mesh> mesh = Mesh::create(std::move(name), std::move(vertices), std::move(triangles));
    if (!mesh) {
        std::fprintf(stderr, "shapes::build(): a generated mesh failed validation: %s\n",
                     mesh.error().message.c_str());
        std::abort();
    }
    return std::move(*mesh);
}

std::string fmt(float v) {
    std::string s = std::to_string(v);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
}

// Vertex index on a grid that wraps in both directions (torus topology): the seam
// vertices are shared, so the mesh is closed by construction.
std::uint32_t wrapIndex(int i, int j, int ni, int nj) {
    return std::uint32_t(((i % ni) * nj) + (j % nj));
}

// Two triangles per cell of a doubly periodic grid. `vertex(i, j)` must be such that
// cross(d/dj, d/di) points outward, i.e. triangle (a, c, b) with b one step in i and c
// one step in j faces out.
std::vector<UVec3> wrappedGridTriangles(int ni, int nj) {
    std::vector<UVec3> tris;
    tris.reserve(std::size_t(ni) * std::size_t(nj) * 2);
    for (int i = 0; i < ni; ++i) {
        for (int j = 0; j < nj; ++j) {
            const std::uint32_t a = wrapIndex(i, j, ni, nj), b = wrapIndex(i + 1, j, ni, nj),
                                c = wrapIndex(i, j + 1, ni, nj),
                                d = wrapIndex(i + 1, j + 1, ni, nj);
            tris.push_back({a, c, b});
            tris.push_back({b, c, d});
        }
    }
    return tris;
}

std::uint64_t edgeKey(std::uint32_t a, std::uint32_t b) {
    if (a > b) std::swap(a, b);
    return (std::uint64_t(a) << 32) | b;
}

}  // namespace

Mesh box(Vec3 halfExtents) {
    ISC_ASSERT(halfExtents.x > 0.0f && halfExtents.y > 0.0f && halfExtents.z > 0.0f,
               "shapes::box(): half extents must be positive");
    std::vector<Vec3> v(8);
    for (int i = 0; i < 8; ++i) {
        v[std::size_t(i)] = Vec3((i & 1) ? halfExtents.x : -halfExtents.x,
                                 (i & 2) ? halfExtents.y : -halfExtents.y,
                                 (i & 4) ? halfExtents.z : -halfExtents.z);
    }
    // Corner index bits: 1 = +x, 2 = +y, 4 = +z. Each face counter-clockwise from outside.
    const std::uint32_t faces[6][4] = {
        {1, 3, 7, 5},  // +x
        {0, 4, 6, 2},  // -x
        {2, 6, 7, 3},  // +y
        {0, 1, 5, 4},  // -y
        {4, 5, 7, 6},  // +z
        {0, 2, 3, 1},  // -z
    };
    std::vector<UVec3> tris;
    tris.reserve(12);
    for (const auto& f : faces) {
        tris.push_back({f[0], f[1], f[2]});
        tris.push_back({f[0], f[2], f[3]});
    }
    return build("box(" + fmt(halfExtents.x) + "," + fmt(halfExtents.y) + "," +
                     fmt(halfExtents.z) + ")",
                 std::move(v), std::move(tris));
}

Mesh uvSphere(float radius, int slices, int stacks) {
    ISC_ASSERT(radius > 0.0f, "shapes::uvSphere(): radius must be positive");
    ISC_ASSERT(slices >= 3 && stacks >= 2, "shapes::uvSphere(): need slices >= 3, stacks >= 2");
    // Poles are single vertices; rings 1..stacks-1 have `slices` vertices each and wrap.
    std::vector<Vec3> v;
    v.reserve(std::size_t(slices) * std::size_t(stacks - 1) + 2);
    v.push_back({0.0f, radius, 0.0f});
    for (int k = 1; k < stacks; ++k) {
        const float theta = std::numbers::pi_v<float> * float(k) / float(stacks);
        for (int j = 0; j < slices; ++j) {
            const float phi = kTwoPi * float(j) / float(slices);
            v.push_back(radius * Vec3(std::sin(theta) * std::cos(phi), std::cos(theta),
                                      std::sin(theta) * std::sin(phi)));
        }
    }
    v.push_back({0.0f, -radius, 0.0f});
    const auto north = std::uint32_t(0);
    const auto south = std::uint32_t(v.size() - 1);
    auto ring = [slices](int k, int j) {
        return std::uint32_t(1 + (k - 1) * slices + (j % slices));
    };
    // With phi growing toward +z and theta toward -y, cross(d/dphi, d/dtheta) is outward,
    // so (a, b, c) with b one step in phi and c one step in theta faces out.
    std::vector<UVec3> tris;
    tris.reserve(std::size_t(slices) * std::size_t(stacks - 1) * 2);
    for (int j = 0; j < slices; ++j) tris.push_back({north, ring(1, j + 1), ring(1, j)});
    for (int k = 1; k + 1 < stacks; ++k) {
        for (int j = 0; j < slices; ++j) {
            const std::uint32_t a = ring(k, j), b = ring(k, j + 1), c = ring(k + 1, j),
                                d = ring(k + 1, j + 1);
            tris.push_back({a, b, c});
            tris.push_back({b, d, c});
        }
    }
    for (int j = 0; j < slices; ++j) tris.push_back({ring(stacks - 1, j), ring(stacks - 1, j + 1), south});
    return build("uvSphere(" + fmt(radius) + ")", std::move(v), std::move(tris));
}

Mesh torus(float majorRadius, float minorRadius, int majorSegments, int minorSegments) {
    ISC_ASSERT(majorRadius > minorRadius && minorRadius > 0.0f,
               "shapes::torus(): need majorRadius > minorRadius > 0");
    ISC_ASSERT(majorSegments >= 3 && minorSegments >= 3, "shapes::torus(): need >= 3 segments");
    std::vector<Vec3> v;
    v.reserve(std::size_t(majorSegments) * std::size_t(minorSegments));
    for (int i = 0; i < majorSegments; ++i) {
        const float u = kTwoPi * float(i) / float(majorSegments);
        for (int j = 0; j < minorSegments; ++j) {
            const float w = kTwoPi * float(j) / float(minorSegments);
            const float r = majorRadius + minorRadius * std::cos(w);
            // At (u, w) = 0: d/du = +z, d/dw = +y, outward +x = cross(d/dw, d/du).
            v.push_back({r * std::cos(u), minorRadius * std::sin(w), r * std::sin(u)});
        }
    }
    return build("torus(" + fmt(majorRadius) + "," + fmt(minorRadius) + ")", std::move(v),
                 wrappedGridTriangles(majorSegments, minorSegments));
}

Mesh torusKnot(float scale, float tubeRadius, int p, int q, int segments, int tubeSegments) {
    ISC_ASSERT(scale > 0.0f && tubeRadius > 0.0f, "shapes::torusKnot(): sizes must be positive");
    ISC_ASSERT(p > 0 && q > 0 && std::gcd(p, q) == 1,
               "shapes::torusKnot(): p and q must be positive and coprime (else the tube overlaps itself)");
    ISC_ASSERT(segments >= 3 && tubeSegments >= 3, "shapes::torusKnot(): need >= 3 segments");
    // The centre curve winds p times around the y axis and q times through the hole
    // (the curve of three.js' TorusKnotGeometry, around y). Period 2*pi*p in u.
    auto curve = [&](float u) {
        const float s = float(q) / float(p) * u;
        const float r = 0.5f * (2.0f + std::cos(s));
        return scale * Vec3(r * std::cos(u), 0.5f * std::sin(s), r * std::sin(u));
    };
    auto tangent = [&](float u) {
        const float k = float(q) / float(p);
        const float s = k * u;
        const float r = 0.5f * (2.0f + std::cos(s));
        const float dr = -0.5f * k * std::sin(s);
        return scale * Vec3(dr * std::cos(u) - r * std::sin(u), 0.5f * k * std::cos(s),
                            dr * std::sin(u) + r * std::cos(u));
    };
    std::vector<Vec3> v;
    v.reserve(std::size_t(segments) * std::size_t(tubeSegments));
    for (int i = 0; i < segments; ++i) {
        const float u = kTwoPi * float(p) * float(i) / float(segments);
        const Vec3 c = curve(u);
        // A frame that is a function of u alone (not transported), so the tube's end ring
        // is its start ring exactly: the tube closes on itself with no twist at the seam.
        const Vec3 t = glm::normalize(tangent(u));
        const Vec3 b = glm::normalize(glm::cross(t, c));
        const Vec3 n = glm::cross(b, t);
        for (int j = 0; j < tubeSegments; ++j) {
            const float w = kTwoPi * float(j) / float(tubeSegments);
            // (t, n, b) right-handed, so cross(d/dw, d/du) ~ cross(b, t) = n: outward.
            v.push_back(c + tubeRadius * (std::cos(w) * n + std::sin(w) * b));
        }
    }
    return build("torusKnot(" + std::to_string(p) + "," + std::to_string(q) + ")", std::move(v),
                 wrappedGridTriangles(segments, tubeSegments));
}

Mesh subdivided(const Mesh& mesh, int levels) {
    ISC_ASSERT(levels >= 0, "shapes::subdivided(): levels must be >= 0");
    std::vector<Vec3> v(mesh.vertices().begin(), mesh.vertices().end());
    std::vector<UVec3> tris(mesh.triangles().begin(), mesh.triangles().end());
    for (int level = 0; level < levels; ++level) {
        // One new vertex per edge, shared by the two triangles on it.
        std::unordered_map<std::uint64_t, std::uint32_t> midpoints;
        midpoints.reserve(tris.size() * 2);
        auto midpoint = [&](std::uint32_t a, std::uint32_t b) {
            const auto [it, inserted] = midpoints.try_emplace(edgeKey(a, b), std::uint32_t(v.size()));
            if (inserted) v.push_back(0.5f * (v[a] + v[b]));
            return it->second;
        };
        std::vector<UVec3> next;
        next.reserve(tris.size() * 4);
        for (const UVec3& t : tris) {
            const std::uint32_t ab = midpoint(t.x, t.y), bc = midpoint(t.y, t.z),
                                ca = midpoint(t.z, t.x);
            next.push_back({t.x, ab, ca});
            next.push_back({ab, t.y, bc});
            next.push_back({ca, bc, t.z});
            next.push_back({ab, bc, ca});
        }
        tris = std::move(next);
    }
    std::string name = mesh.name();
    if (levels > 0) name += "/sub" + std::to_string(levels);
    return build(std::move(name), std::move(v), std::move(tris));
}

Mesh offset(const Mesh& mesh, float distance) {
    ISC_ASSERT(std::isfinite(distance), "shapes::offset(): distance must be finite");
    const std::span<const Vec3> v = mesh.vertices();
    // Unnormalised cross products: each triangle's normal weighted by twice its area.
    std::vector<DVec3> normals(v.size(), DVec3(0.0));
    for (const UVec3& t : mesh.triangles()) {
        const DVec3 a(v[t.x]), b(v[t.y]), c(v[t.z]);
        const DVec3 n = glm::cross(b - a, c - a);
        normals[t.x] += n;
        normals[t.y] += n;
        normals[t.z] += n;
    }
    std::vector<Vec3> moved(v.begin(), v.end());
    for (std::size_t i = 0; i < moved.size(); ++i) {
        const double len = glm::length(normals[i]);
        if (len > 0.0) moved[i] += Vec3(normals[i] / len) * distance;
    }
    std::vector<UVec3> tris(mesh.triangles().begin(), mesh.triangles().end());
    return build(mesh.name() + "/offset" + fmt(distance), std::move(moved), std::move(tris));
}

}  // namespace isc::shapes
