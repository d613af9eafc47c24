#include "isc/geometry/Reference.h"

#include "isc/core/Assert.h"
#include "isc/geometry/TriangleTriangle.h"

#include <algorithm>

namespace isc::geometry {
namespace {

inline Segment toSegment(const DVec3& p0, const DVec3& p1) { return {Vec3(p0), Vec3(p1)}; }

void segmentsOf(const PosedMesh& a, const PosedMesh& b, std::span<const TrianglePair> pairs,
                std::vector<Segment>& segments) {
    segments.clear();
    segments.reserve(pairs.size());
    for (const TrianglePair& p : pairs) {
        DVec3 ta[3], tb[3], p0(0.0), p1(0.0);
        a.triangle(p.a, ta);
        b.triangle(p.b, tb);
        const TriangleContact c = triangleIntersection(ta, tb, p0, p1);
        ISC_ASSERT(c != TriangleContact::None, "geometry::intersect(): a reported pair does not intersect");
        (void)c;
        segments.push_back(toSegment(p0, p1));
    }
}

}  // namespace

PosedMesh::PosedMesh(const Mesh& mesh) : mesh_(&mesh), world_(mesh.vertexCount()) {
    bvh_.build(mesh.vertices(), mesh.triangles());
    update(Pose{});
}

void PosedMesh::update(const Pose& pose, std::span<const Vec3> localVertices) {
    const std::span<const Vec3> local = localVertices.empty() ? mesh_->vertices() : localVertices;
    ISC_ASSERT(local.size() == mesh_->vertexCount(), "PosedMesh::update(): vertex count differs from the mesh's");
    // Exactly Pose::applyDouble, so that anyone transforming the same way gets the same bits.
    for (std::size_t i = 0; i < local.size(); ++i) world_[i] = pose.applyDouble(local[i]);
    bvh_.refit(world_);
}

void PosedMesh::triangle(std::uint32_t t, DVec3 out[3]) const {
    const UVec3 tri = mesh_->triangles()[t];
    out[0] = world_[tri.x];
    out[1] = world_[tri.y];
    out[2] = world_[tri.z];
}

void intersect(const PosedMesh& a, const PosedMesh& b, std::vector<TrianglePair>& pairs,
               std::vector<Segment>* segments) {
    pairs.clear();
    const DVec3* va = a.worldVertices().data();
    const DVec3* vb = b.worldVertices().data();
    const UVec3* ta = a.mesh().triangles().data();
    const UVec3* tb = b.mesh().triangles().data();
    Bvh::forEachOverlap(a.bvh(), b.bvh(), [&](std::uint32_t i, std::uint32_t j) {
        const DVec3 p[3] = {va[ta[i].x], va[ta[i].y], va[ta[i].z]};
        const DVec3 q[3] = {vb[tb[j].x], vb[tb[j].y], vb[tb[j].z]};
        if (trianglesIntersect(p, q)) pairs.push_back({i, j});
    });
    // Each triangle sits in exactly one leaf, so every pair is visited once: no duplicates.
    std::sort(pairs.begin(), pairs.end());
    if (segments) segmentsOf(a, b, pairs, *segments);
}

void intersectSelf(const PosedMesh& m, std::vector<TrianglePair>& pairs, std::vector<Segment>* segments) {
    pairs.clear();
    const DVec3* v = m.worldVertices().data();
    const UVec3* t = m.mesh().triangles().data();
    m.bvh().forEachSelfOverlap([&](std::uint32_t i, std::uint32_t j) {
        const UVec3 a = t[i], b = t[j];
        for (int x = 0; x < 3; ++x)
            for (int y = 0; y < 3; ++y)
                if (a[x] == b[y]) return;  // neighbours touch by construction
        const DVec3 p[3] = {v[a.x], v[a.y], v[a.z]};
        const DVec3 q[3] = {v[b.x], v[b.y], v[b.z]};
        if (trianglesIntersect(p, q)) pairs.push_back(i < j ? TrianglePair{i, j} : TrianglePair{j, i});
    });
    std::sort(pairs.begin(), pairs.end());
    if (segments) segmentsOf(m, m, pairs, *segments);
}

void intersectBruteForce(const PosedMesh& a, const PosedMesh& b, std::vector<TrianglePair>& pairs) {
    pairs.clear();
    struct Box {
        DVec3 min, max;
    };
    auto boxes = [](const PosedMesh& m) {
        std::vector<Box> out(m.mesh().triangleCount());
        for (std::uint32_t t = 0; t < out.size(); ++t) {
            DVec3 c[3];
            m.triangle(t, c);
            out[t] = {glm::min(c[0], glm::min(c[1], c[2])), glm::max(c[0], glm::max(c[1], c[2]))};
        }
        return out;
    };
    const std::vector<Box> ba = boxes(a), bb = boxes(b);
    for (std::uint32_t i = 0; i < ba.size(); ++i) {
        DVec3 p[3];
        a.triangle(i, p);
        for (std::uint32_t j = 0; j < bb.size(); ++j) {
            // Exact culling: boxes that do not touch hold triangles that do not touch.
            if (ba[i].min.x > bb[j].max.x || bb[j].min.x > ba[i].max.x || ba[i].min.y > bb[j].max.y ||
                bb[j].min.y > ba[i].max.y || ba[i].min.z > bb[j].max.z || bb[j].min.z > ba[i].max.z)
                continue;
            DVec3 q[3];
            b.triangle(j, q);
            if (trianglesIntersect(p, q)) pairs.push_back({i, j});
        }
    }
}

}  // namespace isc::geometry
