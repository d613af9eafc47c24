#include "ShapeMesh.h"

#include "isc/core/Assert.h"
#include "isc/mesh/Shapes.h"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btConvexTriangleMeshShape.h>
#include <BulletCollision/CollisionShapes/btStridingMeshInterface.h>
#include <BulletCollision/CollisionShapes/btTriangleMeshShape.h>
#include <BulletCollision/Gimpact/btGImpactShape.h>

#include <algorithm>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <cmath>
#include <cstring>
#include <limits>
#include <span>
#include <sstream>
#include <unordered_map>
#include <string>

namespace isc::bullet {

namespace {

struct RawTriangle {
    UVec3 v;
    std::int32_t part;
    std::int32_t index;
};

// One vertex as Bullet keeps it (float or double), scaled.
Vec3 readVertex(const unsigned char* p, PHY_ScalarType type, const Vec3& scale) {
    if (type == PHY_DOUBLE) {
        const auto* d = reinterpret_cast<const double*>(p);
        return Vec3(float(d[0]), float(d[1]), float(d[2])) * scale;
    }
    const auto* f = reinterpret_cast<const float*>(p);
    return Vec3(f[0], f[1], f[2]) * scale;
}

Vec3 toScale(const btVector3& s) { return Vec3(float(s.x()), float(s.y()), float(s.z())); }

// One subpart's vertices, scaled, appended to `vertices`.
void appendVertices(const unsigned char* vbase, int numVerts, PHY_ScalarType vtype, int vstride, const btVector3& scale,
                    std::vector<Vec3>& vertices) {
    const Vec3 s = toScale(scale);
    for (int i = 0; i < numVerts; ++i)
        vertices.push_back(readVertex(vbase + std::size_t(i) * std::size_t(vstride), vtype, s));
}

// A deforming shape's reread: out[v] = Bullet vertex rawVertex[v] (subparts' vertices numbered one
// after the other), scaled, read where Bullet keeps it (no copy of the whole array, no triangles).
// False when a raw index is past the shape's vertices now (`count` says how many it has).
bool gatherVertices(const btStridingMeshInterface& mi, const btVector3& scale, std::span<const std::uint32_t> rawVertex,
                    std::vector<Vec3>& out, std::size_t& count) {
    struct Part {
        const unsigned char* base;
        PHY_ScalarType type;
        int stride;
        std::size_t first;
    };
    const Vec3 s = toScale(scale);
    std::vector<Part> parts;
    count = 0;
    for (int part = 0; part < mi.getNumSubParts(); ++part) {
        const unsigned char* vbase = nullptr;
        const unsigned char* ibase = nullptr;
        int numVerts = 0, vstride = 0, istride = 0, numFaces = 0;
        PHY_ScalarType vtype = PHY_FLOAT, itype = PHY_INTEGER;
        mi.getLockedReadOnlyVertexIndexBase(&vbase, numVerts, vtype, vstride, &ibase, istride, numFaces, itype, part);
        parts.push_back({vbase, vtype, vstride, count});
        count += std::size_t(std::max(numVerts, 0));
    }
    bool ok = true;
    out.resize(rawVertex.size());
    for (std::size_t v = 0; v < rawVertex.size() && ok; ++v) {
        const std::size_t r = rawVertex[v];
        if (r >= count) {
            ok = false;
            break;
        }
        std::size_t k = parts.size() - 1;
        while (parts[k].first > r) --k;  // the subpart holding r (one, mostly)
        const unsigned char* p = parts[k].base + (r - parts[k].first) * std::size_t(parts[k].stride);
        out[v] = readVertex(p, parts[k].type, s) + Vec3(0.0f);  // as read, then welded (-0 + 0 = +0)
    }
    for (int part = 0; part < mi.getNumSubParts(); ++part) mi.unLockReadOnlyVertexBase(part);
    return ok;
}

Result<void> readInterface(const btStridingMeshInterface& mi, const btVector3& scale,
                           std::vector<Vec3>& vertices, std::vector<RawTriangle>& triangles) {
    for (int part = 0; part < mi.getNumSubParts(); ++part) {
        const unsigned char* vbase = nullptr;
        const unsigned char* ibase = nullptr;
        int numVerts = 0, vstride = 0, istride = 0, numFaces = 0;
        PHY_ScalarType vtype = PHY_FLOAT, itype = PHY_INTEGER;
        mi.getLockedReadOnlyVertexIndexBase(&vbase, numVerts, vtype, vstride, &ibase, istride,
                                            numFaces, itype, part);
        const auto first = std::uint32_t(vertices.size());
        Result<void> status;
        appendVertices(vbase, numVerts, vtype, vstride, scale, vertices);
        for (int f = 0; f < numFaces && status; ++f) {
            const unsigned char* p = ibase + std::size_t(f) * std::size_t(istride);
            UVec3 t;
            if (itype == PHY_SHORT) {
                const auto* s = reinterpret_cast<const unsigned short*>(p);
                t = UVec3(s[0], s[1], s[2]);
            } else if (itype == PHY_UCHAR) {
                t = UVec3(p[0], p[1], p[2]);
            } else if (itype == PHY_INTEGER) {
                const auto* s = reinterpret_cast<const unsigned int*>(p);
                t = UVec3(s[0], s[1], s[2]);
            } else {
                status = fail("subpart " + std::to_string(part) +
                              " has an index type Bullet calls " + std::to_string(int(itype)) +
                              ": only 8, 16 and 32-bit integer indices are read");
                break;
            }
            triangles.push_back({t + UVec3(first), part, f});
        }
        mi.unLockReadOnlyVertexBase(part);
        if (!status) return status;
    }
    return {};
}

struct PositionHash {
    std::size_t operator()(const Vec3& v) const {
        std::uint32_t b[3];
        std::memcpy(b, &v, sizeof b);
        return std::size_t(b[0]) * 73856093u ^ std::size_t(b[1]) * 19349663u ^ std::size_t(b[2]) * 83492791u;
    }
};

// Merges vertices at exactly the same position (-0 and +0 alike) and renumbers the
// triangles; vertices no triangle uses are dropped. `rawOf`: per welded vertex, its first
// input vertex.
void weld(std::vector<Vec3>& vertices, std::vector<RawTriangle>& triangles, std::vector<std::uint32_t>& rawOf) {
    rawOf.clear();
    std::unordered_map<Vec3, std::uint32_t, PositionHash> first;
    first.reserve(vertices.size());
    std::vector<Vec3> welded;
    std::vector<std::uint32_t> remap(vertices.size(), ~0u);
    for (RawTriangle& t : triangles) {
        for (int k = 0; k < 3; ++k) {
            std::uint32_t& r = remap[t.v[k]];
            if (r == ~0u) {
                const Vec3 p = vertices[t.v[k]] + Vec3(0.0f);  // -0 + 0 = +0
                auto [it, added] = first.emplace(p, std::uint32_t(welded.size()));
                if (added) {
                    welded.push_back(p);
                    rawOf.push_back(t.v[k]);
                }
                r = it->second;
            }
            t.v[k] = r;
        }
    }
    vertices = std::move(welded);
}

// Normals and vertex adjacency of out.mesh, for the vertex-face contacts.
void addContactData(ShapeMesh& out) {
    const Mesh& m = *out.mesh;
    const auto verts = m.vertices();
    const auto tris = m.triangles();
    out.faceNormals.resize(tris.size());
    out.vertexNormals.assign(verts.size(), Vec3(0.0f));
    out.triangleOf.assign(verts.size(), 0u);
    std::vector<std::vector<std::uint32_t>> around(verts.size());
    for (std::uint32_t t = 0; t < tris.size(); ++t) {
        const UVec3 i = tris[t];
        const Vec3 c = glm::cross(verts[i.y] - verts[i.x], verts[i.z] - verts[i.x]);  // 2 x area
        const float len = glm::length(c);
        out.faceNormals[t] = len > 0.0f ? c / len : Vec3(0.0f);
        for (int k = 0; k < 3; ++k) {
            out.vertexNormals[i[k]] += c;
            out.triangleOf[i[k]] = t;
            around[i[k]].push_back(i[(k + 1) % 3]);
            around[i[k]].push_back(i[(k + 2) % 3]);
        }
    }
    for (Vec3& n : out.vertexNormals) {
        const float len = glm::length(n);
        n = len > 0.0f ? n / len : Vec3(0.0f);
    }
    out.adjacentStart.assign(1, 0u);
    for (std::vector<std::uint32_t>& a : around) {
        std::sort(a.begin(), a.end());
        a.erase(std::unique(a.begin(), a.end()), a.end());
        out.adjacent.insert(out.adjacent.end(), a.begin(), a.end());
        out.adjacentStart.push_back(std::uint32_t(out.adjacent.size()));
    }
}

}  // namespace

Mesh swollen(const Mesh& mesh, float distance) {
    std::vector<Vec3> moved = swollenVertices(mesh, distance);
    const auto tris = mesh.triangles();
    std::vector<UVec3> kept(tris.begin(), tris.end());
    Result<Mesh> m = Mesh::create(mesh.name() + "/swollen", std::move(moved), std::move(kept));
    ISC_ASSERT(m.has_value(), "swollen(): a valid mesh moved by a finite distance stays valid");
    return std::move(*m);
}

// Several times faster than std::acos: a deforming mesh is swollen again every step, three
// corner angles a triangle. The angles only weigh the faces' normals in a vertex's normal; the
// distance each face moves does not depend on them (swollenVertices' `least`).
double acosNear(double x) {
    const double a = std::min(std::abs(x), 1.0);
    const double p = ((((((-0.0012624911 * a + 0.0066700901) * a - 0.0170881256) * a + 0.0308918810) * a -
                         0.0501743046) * a + 0.0889789874) * a - 0.2145988016) * a + 1.5707963050;
    const double r = std::sqrt(1.0 - a) * p;
    return x < 0.0 ? 3.14159265358979323846 - r : r;
}

// Two at a time with SSE2: the same operations in the same order on each lane, the polynomial's
// chain of dependent products run for two corners at once.
void acosNearAll(double* x, std::size_t n) {
    std::size_t j = 0;
#if defined(__SSE2__)
    const __m128d one = _mm_set1_pd(1.0), zero = _mm_setzero_pd(), pi = _mm_set1_pd(3.14159265358979323846);
    const __m128d signBit = _mm_set1_pd(-0.0);
    for (; j + 2 <= n; j += 2) {
        const __m128d v = _mm_loadu_pd(x + j);
        const __m128d a = _mm_min_pd(one, _mm_andnot_pd(signBit, v));  // std::min(|x|, 1.0)
        __m128d p = _mm_add_pd(_mm_mul_pd(_mm_set1_pd(-0.0012624911), a), _mm_set1_pd(0.0066700901));
        p = _mm_sub_pd(_mm_mul_pd(p, a), _mm_set1_pd(0.0170881256));
        p = _mm_add_pd(_mm_mul_pd(p, a), _mm_set1_pd(0.0308918810));
        p = _mm_sub_pd(_mm_mul_pd(p, a), _mm_set1_pd(0.0501743046));
        p = _mm_add_pd(_mm_mul_pd(p, a), _mm_set1_pd(0.0889789874));
        p = _mm_sub_pd(_mm_mul_pd(p, a), _mm_set1_pd(0.2145988016));
        p = _mm_add_pd(_mm_mul_pd(p, a), _mm_set1_pd(1.5707963050));
        const __m128d r = _mm_mul_pd(_mm_sqrt_pd(_mm_sub_pd(one, a)), p);
        const __m128d negative = _mm_cmplt_pd(v, zero);
        _mm_storeu_pd(x + j, _mm_or_pd(_mm_and_pd(negative, _mm_sub_pd(pi, r)), _mm_andnot_pd(negative, r)));
    }
#endif
    for (; j < n; ++j) x[j] = acosNear(x[j]);
}

#if defined(__SSE2__)
namespace {

struct D2x3 {
    __m128d x, y, z;
};

inline D2x3 sub(const D2x3& a, const D2x3& b) { return {_mm_sub_pd(a.x, b.x), _mm_sub_pd(a.y, b.y), _mm_sub_pd(a.z, b.z)}; }
// glm::dot's order: (x + y) + z.
inline __m128d dot(const D2x3& a, const D2x3& b) {
    return _mm_add_pd(_mm_add_pd(_mm_mul_pd(a.x, b.x), _mm_mul_pd(a.y, b.y)), _mm_mul_pd(a.z, b.z));
}

// swollenVertices' first loop for triangles 2m and 2m + 1 in the two lanes (glm's cross, length,
// dot and division written out in glm's order: the same doubles). Returns how many triangles it did.
std::size_t cornerCosinesTwoAtATime(std::span<const Vec3> verts, std::span<const UVec3> tris, glm::dvec3* faces,
                                    double* angle) {
    const std::size_t pairs = tris.size() / 2;
    const __m128d zero = _mm_setzero_pd(), one = _mm_set1_pd(1.0), minusOne = _mm_set1_pd(-1.0);
    const __m128d nan = _mm_set1_pd(std::numeric_limits<double>::quiet_NaN());
    const __m128d signBit = _mm_set1_pd(-0.0);
    for (std::size_t m = 0; m < pairs; ++m) {
        const UVec3 a = tris[2 * m], b = tris[2 * m + 1];
        D2x3 p[3];
        for (int k = 0; k < 3; ++k) {
            const Vec3 va = verts[a[k]], vb = verts[b[k]];
            p[k] = {_mm_set_pd(double(vb.x), double(va.x)), _mm_set_pd(double(vb.y), double(va.y)),
                    _mm_set_pd(double(vb.z), double(va.z))};
        }
        const D2x3 x = sub(p[1], p[0]), y = sub(p[2], p[0]);
        const D2x3 c = {_mm_sub_pd(_mm_mul_pd(x.y, y.z), _mm_mul_pd(y.y, x.z)),
                        _mm_sub_pd(_mm_mul_pd(x.z, y.x), _mm_mul_pd(y.z, x.x)),
                        _mm_sub_pd(_mm_mul_pd(x.x, y.y), _mm_mul_pd(y.x, x.y))};
        const __m128d len = _mm_sqrt_pd(dot(c, c));
        const __m128d some = _mm_cmpgt_pd(len, zero);
        const __m128d fx = _mm_and_pd(some, _mm_div_pd(c.x, len)), fy = _mm_and_pd(some, _mm_div_pd(c.y, len)),
                      fz = _mm_and_pd(some, _mm_div_pd(c.z, len));
        double lo[2], hi[2], mid[2];
        _mm_storeu_pd(lo, fx);
        _mm_storeu_pd(mid, fy);
        _mm_storeu_pd(hi, fz);
        faces[2 * m] = glm::dvec3(lo[0], mid[0], hi[0]);
        faces[2 * m + 1] = glm::dvec3(lo[1], mid[1], hi[1]);
        const D2x3 e[3] = {x, sub(p[2], p[1]), sub(p[0], p[2])};
        const __m128d l[3] = {_mm_sqrt_pd(dot(e[0], e[0])), _mm_sqrt_pd(dot(e[1], e[1])), _mm_sqrt_pd(dot(e[2], e[2]))};
        for (int k = 0; k < 3; ++k) {
            const int back = (k + 2) % 3;
            const __m128d minusDot = _mm_xor_pd(dot(e[k], e[back]), signBit);
            __m128d v = _mm_div_pd(minusDot, _mm_mul_pd(l[k], l[back]));
            v = _mm_min_pd(one, _mm_max_pd(minusOne, v));  // std::clamp(v, -1, 1)
            const __m128d valid = _mm_and_pd(_mm_cmpgt_pd(l[k], zero), _mm_cmpgt_pd(l[back], zero));
            v = _mm_or_pd(_mm_and_pd(valid, v), _mm_andnot_pd(valid, nan));
            double out[2];
            _mm_storeu_pd(out, v);
            angle[6 * m + std::size_t(k)] = out[0];
            angle[6 * m + 3 + std::size_t(k)] = out[1];
        }
    }
    return 2 * pairs;
}

}  // namespace
#endif

std::vector<Vec3> swollenVertices(const Mesh& mesh, float distance) {
    const auto verts = mesh.vertices();
    const auto tris = mesh.triangles();
    std::vector<glm::dvec3> normal(verts.size(), glm::dvec3(0.0));
    std::vector<glm::dvec3> faces(tris.size());
    // Each corner's cosine first, then every angle (acosNearAll), then the normals summed in the
    // triangles' order: the same sums as one corner at a time.
    std::vector<double> angle(3 * tris.size());
    std::size_t first = 0;
#if defined(__SSE2__)
    first = cornerCosinesTwoAtATime(verts, tris, faces.data(), angle.data());
#endif
    for (std::size_t t = first; t < tris.size(); ++t) {
        const UVec3 i = tris[t];
        const glm::dvec3 p[3] = {glm::dvec3(verts[i.x]), glm::dvec3(verts[i.y]), glm::dvec3(verts[i.z])};
        const glm::dvec3 c = glm::cross(p[1] - p[0], p[2] - p[0]);
        const double len = glm::length(c);
        faces[t] = len > 0.0 ? c / len : glm::dvec3(0.0);
        // Edge k runs from corner k to corner k + 1; corner k's angle is between edge k and
        // the reversed edge k + 2. A corner with an edge of no length has no angle (NaN: not
        // summed below).
        const glm::dvec3 e[3] = {p[1] - p[0], p[2] - p[1], p[0] - p[2]};
        const double l[3] = {glm::length(e[0]), glm::length(e[1]), glm::length(e[2])};
        for (int k = 0; k < 3; ++k) {
            const int back = (k + 2) % 3;
            angle[3 * t + std::size_t(k)] =
                l[k] > 0.0 && l[back] > 0.0
                    ? std::clamp(-glm::dot(e[k], e[back]) / (l[k] * l[back]), -1.0, 1.0)
                    : std::numeric_limits<double>::quiet_NaN();
        }
    }
    acosNearAll(angle.data(), angle.size());
    for (std::size_t t = 0; t < tris.size(); ++t) {
        const UVec3 i = tris[t];
        for (int k = 0; k < 3; ++k) {
            const double w = angle[3 * t + std::size_t(k)];
            if (w == w) normal[i[k]] += faces[t] * w;
        }
    }
    std::vector<double> least(verts.size(), 1.0);
    for (glm::dvec3& n : normal) {
        const double len = glm::length(n);
        n = len > 0.0 ? n / len : glm::dvec3(0.0);
    }
    for (std::size_t t = 0; t < tris.size(); ++t)
        for (int k = 0; k < 3; ++k) {
            const std::uint32_t v = tris[t][k];
            least[v] = std::min(least[v], glm::dot(normal[v], faces[t]));
        }
    std::vector<Vec3> moved(verts.begin(), verts.end());
    for (std::size_t v = 0; v < moved.size(); ++v)
        moved[v] += Vec3(normal[v] * (double(distance) / std::max(least[v], 1.0 / 3.0)));
    return moved;
}

std::uint64_t shapeSignature(const btCollisionShape& shape) {
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a
    auto mix = [&h](const void* data, std::size_t bytes) {
        const auto* p = static_cast<const unsigned char*>(data);
        for (std::size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ull;
    };
    const int type = shape.getShapeType();
    mix(&type, sizeof type);
    std::vector<Vec3> vertices;
    std::vector<RawTriangle> raw;
    if (type == BOX_SHAPE_PROXYTYPE) {
        const btVector3 e = static_cast<const btBoxShape&>(shape).getHalfExtentsWithMargin();
        const float f[3] = {float(e.x()), float(e.y()), float(e.z())};
        mix(f, sizeof f);
        return h;
    }
    if (type == GIMPACT_SHAPE_PROXYTYPE) {
        const auto& g = static_cast<const btGImpactShapeInterface&>(shape);
        if (g.getGImpactShapeType() != CONST_GIMPACT_TRIMESH_SHAPE) return h;
        const auto& m = static_cast<const btGImpactMeshShape&>(shape);
        const btVector3 scale = m.getMeshPartCount() > 0 ? m.getMeshPart(0)->getLocalScaling() : btVector3(1, 1, 1);
        (void)readInterface(*m.getMeshInterface(), scale, vertices, raw);
    } else if (type == TRIANGLE_MESH_SHAPE_PROXYTYPE) {
        const auto& m = static_cast<const btTriangleMeshShape&>(shape);
        (void)readInterface(*m.getMeshInterface(), m.getMeshInterface()->getScaling(), vertices, raw);
    } else if (type == CONVEX_TRIANGLEMESH_SHAPE_PROXYTYPE) {
        const auto& m = static_cast<const btConvexTriangleMeshShape&>(shape);
        (void)readInterface(*m.getMeshInterface(), m.getMeshInterface()->getScaling(), vertices, raw);
    }
    mix(vertices.data(), vertices.size() * sizeof(Vec3));
    for (const RawTriangle& t : raw) mix(&t.v, sizeof t.v);
    return h;
}

Result<ShapeMesh> readShapeMesh(const btCollisionShape& shape) {
    if (shape.getShapeType() == BOX_SHAPE_PROXYTYPE) {
        const btVector3 h = static_cast<const btBoxShape&>(shape).getHalfExtentsWithMargin();
        ShapeMesh out;
        out.mesh = std::make_shared<const Mesh>(shapes::box(Vec3(float(h.x()), float(h.y()), float(h.z()))));
        out.partOf.assign(out.mesh->triangleCount(), 0);
        for (std::size_t t = 0; t < out.mesh->triangleCount(); ++t) out.indexOf.push_back(std::int32_t(t));
        addContactData(out);
        return out;
    }
    std::vector<Vec3> vertices;
    std::vector<RawTriangle> raw;
    Result<void> status;
    const int type = shape.getShapeType();
    if (type == GIMPACT_SHAPE_PROXYTYPE) {
        const auto& g = static_cast<const btGImpactShapeInterface&>(shape);
        if (g.getGImpactShapeType() != CONST_GIMPACT_TRIMESH_SHAPE)
            return fail("a btGImpact shape that is not a btGImpactMeshShape (compound or single part) is not read");
        const auto& m = static_cast<const btGImpactMeshShape&>(shape);
        const btVector3 scale = m.getMeshPartCount() > 0 ? m.getMeshPart(0)->getLocalScaling()
                                                         : btVector3(1, 1, 1);
        status = readInterface(*m.getMeshInterface(), scale, vertices, raw);
    } else if (type == TRIANGLE_MESH_SHAPE_PROXYTYPE) {
        const auto& m = static_cast<const btTriangleMeshShape&>(shape);
        status = readInterface(*m.getMeshInterface(), m.getMeshInterface()->getScaling(), vertices, raw);
    } else if (type == CONVEX_TRIANGLEMESH_SHAPE_PROXYTYPE) {
        const auto& m = static_cast<const btConvexTriangleMeshShape&>(shape);
        status = readInterface(*m.getMeshInterface(), m.getMeshInterface()->getScaling(), vertices, raw);
    } else {
        return fail(std::string("shape type ") + shape.getName() + " is not a triangle mesh");
    }
    if (!status) return std::unexpected(status.error());

    for (const RawTriangle& t : raw) {
        if (t.v.x >= vertices.size() || t.v.y >= vertices.size() || t.v.z >= vertices.size())
            return fail("a triangle indexes a vertex past the end of its subpart's vertex array");
    }
    // Bullet apps often give each triangle its own three vertices (btTriangleMesh without
    // removeDuplicateVertices): weld equal positions, so the mesh has its real vertex
    // normals, adjacency and closedness (an unwelded box reads as 12 loose triangles: its
    // offset copy falls apart and the contact walk cannot leave a triangle).
    std::vector<std::uint32_t> rawOf;
    weld(vertices, raw, rawOf);
    std::vector<UVec3> tris;
    tris.reserve(raw.size());
    for (const RawTriangle& t : raw) tris.push_back(t.v);
    Result<Mesh> mesh = Mesh::create(shape.getName(), std::move(vertices), std::move(tris));
    if (!mesh) return std::unexpected(mesh.error());

    // Mesh::create keeps the order and drops degenerate triangles: walk both lists.
    ShapeMesh out;
    const auto kept = mesh->triangles();
    out.partOf.reserve(kept.size());
    out.indexOf.reserve(kept.size());
    std::size_t k = 0;
    for (const RawTriangle& t : raw) {
        if (k < kept.size() && kept[k] == t.v) {
            out.partOf.push_back(t.part);
            out.indexOf.push_back(t.index);
            ++k;
        }
    }
    if (k != kept.size()) return fail("internal: could not match the mesh's triangles to Bullet's");
    out.mesh = std::make_shared<const Mesh>(std::move(*mesh));
    out.rawVertex = std::move(rawOf);
    addContactData(out);
    return out;
}

Result<std::vector<Vec3>> rereadDetectVertices(ShapeMesh& mesh, const btCollisionShape& shape, float swell,
                                               bool offset) {
    if (Result<void> r = rereadVertices(mesh, shape); !r) return std::unexpected(r.error());
    if (offset) return swollenVertices(*mesh.mesh, swell);
    return std::vector<Vec3>(mesh.mesh->vertices().begin(), mesh.mesh->vertices().end());
}

std::string describeShape(const btCollisionShape& shape) {
    std::ostringstream who;
    who << "mesh shape " << shape.getName() << " at " << static_cast<const void*>(&shape);
    return who.str();
}

Result<void> rereadVertices(ShapeMesh& mesh, const btCollisionShape& shape) {
    if (mesh.rawVertex.size() != mesh.mesh->vertexCount())
        return fail("its vertices cannot be read again (a box shape, or not read from a mesh shape)");
    // The positions alone, each read where Bullet keeps it (the triangles are the first read's):
    // a deforming pile reads every body's shape every step.
    const btStridingMeshInterface* mi = nullptr;
    btVector3 scale(1, 1, 1);
    const int type = shape.getShapeType();
    if (type == GIMPACT_SHAPE_PROXYTYPE &&
        static_cast<const btGImpactShapeInterface&>(shape).getGImpactShapeType() == CONST_GIMPACT_TRIMESH_SHAPE) {
        const auto& m = static_cast<const btGImpactMeshShape&>(shape);
        mi = m.getMeshInterface();
        if (m.getMeshPartCount() > 0) scale = m.getMeshPart(0)->getLocalScaling();
    } else if (type == TRIANGLE_MESH_SHAPE_PROXYTYPE) {
        mi = static_cast<const btTriangleMeshShape&>(shape).getMeshInterface();
        scale = mi->getScaling();
    } else if (type == CONVEX_TRIANGLEMESH_SHAPE_PROXYTYPE) {
        mi = static_cast<const btConvexTriangleMeshShape&>(shape).getMeshInterface();
        scale = mi->getScaling();
    } else {
        return fail(std::string("shape type ") + shape.getName() + " is not a triangle mesh");
    }
    std::vector<Vec3> vertices;
    std::size_t count = 0;
    if (!gatherVertices(*mi, scale, mesh.rawVertex, vertices, count))
        return fail("it has " + std::to_string(count) + " vertices now, fewer than when it was first read");
    Result<Mesh> m = mesh.mesh->withVertices(std::move(vertices));  // same triangles, no re-validation
    if (!m) return std::unexpected(m.error());
    mesh.mesh = std::make_shared<const Mesh>(std::move(*m));
    // Normals from the new positions; adjacency and ids are the same (same triangles).
    const auto verts = mesh.mesh->vertices();
    const auto tris = mesh.mesh->triangles();
    mesh.vertexNormals.assign(verts.size(), Vec3(0.0f));
    for (std::uint32_t t = 0; t < tris.size(); ++t) {
        const UVec3 i = tris[t];
        const Vec3 c = glm::cross(verts[i.y] - verts[i.x], verts[i.z] - verts[i.x]);
        const float len = glm::length(c);
        mesh.faceNormals[t] = len > 0.0f ? c / len : Vec3(0.0f);
        for (int k = 0; k < 3; ++k) mesh.vertexNormals[i[k]] += c;
    }
    for (Vec3& n : mesh.vertexNormals) {
        const float len = glm::length(n);
        n = len > 0.0f ? n / len : Vec3(0.0f);
    }
    return {};
}

}  // namespace isc::bullet
