#include "ShapeMesh.h"

#include "isc/core/Assert.h"
#include "isc/mesh/Shapes.h"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btConvexTriangleMeshShape.h>
#include <BulletCollision/CollisionShapes/btStridingMeshInterface.h>
#include <BulletCollision/CollisionShapes/btTriangleMeshShape.h>
#include <BulletCollision/Gimpact/btGImpactShape.h>

#include <algorithm>
#include <cmath>
#include <cstring>
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
        for (int i = 0; i < numVerts; ++i) {
            const unsigned char* p = vbase + std::size_t(i) * std::size_t(vstride);
            Vec3 v;
            if (vtype == PHY_DOUBLE) {
                const auto* d = reinterpret_cast<const double*>(p);
                v = Vec3(float(d[0]), float(d[1]), float(d[2]));
            } else {
                const auto* f = reinterpret_cast<const float*>(p);
                v = Vec3(f[0], f[1], f[2]);
            }
            vertices.push_back(v * Vec3(float(scale.x()), float(scale.y()), float(scale.z())));
        }
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

namespace {

// acos within 2e-8 rad of std::acos (Abramowitz & Stegun 4.4.46), several times faster: a
// deforming mesh is swollen again every step, three corner angles a triangle. The angles only
// weigh the faces' normals in a vertex's normal; the distance each face moves does not depend
// on them (swollenVertices' `least`).
double acosNear(double x) {
    const double a = std::min(std::abs(x), 1.0);
    const double p = ((((((-0.0012624911 * a + 0.0066700901) * a - 0.0170881256) * a + 0.0308918810) * a -
                         0.0501743046) * a + 0.0889789874) * a - 0.2145988016) * a + 1.5707963050;
    const double r = std::sqrt(1.0 - a) * p;
    return x < 0.0 ? 3.14159265358979323846 - r : r;
}

}  // namespace

std::vector<Vec3> swollenVertices(const Mesh& mesh, float distance) {
    const auto verts = mesh.vertices();
    const auto tris = mesh.triangles();
    std::vector<glm::dvec3> normal(verts.size(), glm::dvec3(0.0));
    std::vector<glm::dvec3> faces(tris.size());
    for (std::size_t t = 0; t < tris.size(); ++t) {
        const UVec3 i = tris[t];
        const glm::dvec3 p[3] = {glm::dvec3(verts[i.x]), glm::dvec3(verts[i.y]), glm::dvec3(verts[i.z])};
        const glm::dvec3 c = glm::cross(p[1] - p[0], p[2] - p[0]);
        const double len = glm::length(c);
        faces[t] = len > 0.0 ? c / len : glm::dvec3(0.0);
        // Edge k runs from corner k to corner k + 1; corner k's angle is between edge k and
        // the reversed edge k + 2.
        const glm::dvec3 e[3] = {p[1] - p[0], p[2] - p[1], p[0] - p[2]};
        const double l[3] = {glm::length(e[0]), glm::length(e[1]), glm::length(e[2])};
        for (int k = 0; k < 3; ++k) {
            const int back = (k + 2) % 3;
            if (l[k] > 0.0 && l[back] > 0.0)
                normal[i[k]] += faces[t] * acosNear(std::clamp(-glm::dot(e[k], e[back]) / (l[k] * l[back]), -1.0, 1.0));
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
    std::vector<Vec3> raw;
    std::vector<RawTriangle> rawTriangles;
    Result<void> status;
    const int type = shape.getShapeType();
    if (type == GIMPACT_SHAPE_PROXYTYPE &&
        static_cast<const btGImpactShapeInterface&>(shape).getGImpactShapeType() == CONST_GIMPACT_TRIMESH_SHAPE) {
        const auto& m = static_cast<const btGImpactMeshShape&>(shape);
        const btVector3 scale = m.getMeshPartCount() > 0 ? m.getMeshPart(0)->getLocalScaling() : btVector3(1, 1, 1);
        status = readInterface(*m.getMeshInterface(), scale, raw, rawTriangles);
    } else if (type == TRIANGLE_MESH_SHAPE_PROXYTYPE) {
        const auto& m = static_cast<const btTriangleMeshShape&>(shape);
        status = readInterface(*m.getMeshInterface(), m.getMeshInterface()->getScaling(), raw, rawTriangles);
    } else if (type == CONVEX_TRIANGLEMESH_SHAPE_PROXYTYPE) {
        const auto& m = static_cast<const btConvexTriangleMeshShape&>(shape);
        status = readInterface(*m.getMeshInterface(), m.getMeshInterface()->getScaling(), raw, rawTriangles);
    } else {
        return fail(std::string("shape type ") + shape.getName() + " is not a triangle mesh");
    }
    if (!status) return std::unexpected(status.error());
    std::vector<Vec3> vertices(mesh.rawVertex.size());
    for (std::size_t v = 0; v < vertices.size(); ++v) {
        if (mesh.rawVertex[v] >= raw.size())
            return fail("it has " + std::to_string(raw.size()) + " vertices now, fewer than when it was first read");
        vertices[v] = raw[mesh.rawVertex[v]] + Vec3(0.0f);
    }
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
