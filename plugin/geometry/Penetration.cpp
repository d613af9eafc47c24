#include "isc/geometry/Penetration.h"

#include "isc/core/Assert.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace isc::geometry {
namespace {

// Which feature of a triangle holds its closest point to a query point.
enum Region : std::uint8_t { Face, Vertex0, Vertex1, Vertex2, Edge01, Edge12, Edge20 };

// Closest point of triangle (a, b, c) to p, and its region (Ericson, Real-Time Collision
// Detection 5.1.5), in double.
DVec3 closestOnTriangle(const DVec3& p, const DVec3& a, const DVec3& b, const DVec3& c, Region& region) {
    const DVec3 ab = b - a, ac = c - a, ap = p - a;
    const double d1 = glm::dot(ab, ap), d2 = glm::dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) {
        region = Vertex0;
        return a;
    }
    const DVec3 bp = p - b;
    const double d3 = glm::dot(ab, bp), d4 = glm::dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) {
        region = Vertex1;
        return b;
    }
    const double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        region = Edge01;
        return a + ab * (d1 / (d1 - d3));
    }
    const DVec3 cp = p - c;
    const double d5 = glm::dot(ab, cp), d6 = glm::dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) {
        region = Vertex2;
        return c;
    }
    const double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        region = Edge20;
        return a + ac * (d2 / (d2 - d6));
    }
    const double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
        region = Edge12;
        return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    const double denom = 1.0 / (va + vb + vc);
    region = Face;
    return a + ab * (vb * denom) + ac * (vc * denom);
}

double boxDistance2(const Bvh::Box& box, const DVec3& p) {
    double d2 = 0.0;
    for (int k = 0; k < 3; ++k) {
        const double lo = double(box.min[k]) - p[k], hi = p[k] - double(box.max[k]);
        const double d = std::max({lo, hi, 0.0});
        d2 += d * d;
    }
    return d2;
}

// World point to the mesh-local frame of a rigid pose: the inverse of the normalised
// rotation (applyDouble's quaternion is unit to float rounding; the difference is ~1e-7 of
// the mesh size, far below any depth this measures).
struct ToLocal {
    glm::dquat inverse;
    DVec3 position;
    explicit ToLocal(const Pose& pose)
        : inverse(glm::conjugate(glm::normalize(
              glm::dquat(pose.rotation.w, pose.rotation.x, pose.rotation.y, pose.rotation.z)))),
          position(pose.position) {}
    DVec3 operator()(const DVec3& world) const { return inverse * (world - position); }
};

// Walks `from`'s vertices inside `onto` from `seeds` (see the header): the deepest one.
void walkInside(const PosedMesh& from, const SurfaceDistance& fromDistance, const PosedMesh& onto,
                const SurfaceDistance& ontoDistance, std::vector<std::uint32_t>& queue, bool fromIsA,
                Penetration& out) {
    const std::span<const DVec3> world = from.worldVertices();
    const ToLocal toOnto(onto.pose());
    std::vector<char> seen(world.size(), 0);
    for (std::uint32_t v : queue) seen[v] = 1;
    for (std::size_t qi = 0; qi < queue.size(); ++qi) {
        const std::uint32_t v = queue[qi];
        const double d = ontoDistance.signedDistance(toOnto(world[v]));
        ++out.verticesTested;
        if (!(d < 0.0)) continue;  // outside: the walk does not go on through it
        if (-d > out.depth) {
            out.depth = -d;
            out.point = world[v];
            out.pointOnA = fromIsA;
        }
        for (std::uint32_t u : fromDistance.neighbours(v)) {
            if (!seen[u]) {
                seen[u] = 1;
                queue.push_back(u);
            }
        }
    }
}

[[maybe_unused]] bool sameMesh(const PosedMesh& m, const SurfaceDistance& d) { return &m.mesh() == &d.mesh(); }

}  // namespace

SurfaceDistance::SurfaceDistance(const Mesh& mesh) : mesh_(&mesh) {
    const auto verts = mesh.vertices();
    const auto tris = mesh.triangles();
    bvh_.build(verts, tris, 4);
    const std::size_t nt = tris.size(), nv = verts.size();
    faceNormal_.resize(nt);
    vertexNormal_.assign(nv, DVec3(0.0));
    for (std::size_t t = 0; t < nt; ++t) {
        const DVec3 p[3] = {DVec3(verts[tris[t].x]), DVec3(verts[tris[t].y]), DVec3(verts[tris[t].z])};
        const DVec3 n = glm::cross(p[1] - p[0], p[2] - p[0]);
        const double len = glm::length(n);
        faceNormal_[t] = len > 0.0 ? n / len : DVec3(0.0);
        for (int k = 0; k < 3; ++k) {
            const DVec3 e1 = p[(k + 1) % 3] - p[k], e2 = p[(k + 2) % 3] - p[k];
            const double l1 = glm::length(e1), l2 = glm::length(e2);
            if (l1 <= 0.0 || l2 <= 0.0) continue;
            const double angle = std::acos(std::clamp(glm::dot(e1, e2) / (l1 * l2), -1.0, 1.0));
            vertexNormal_[tris[t][k]] += angle * faceNormal_[t];
        }
    }
    for (DVec3& n : vertexNormal_) {
        const double len = glm::length(n);
        if (len > 0.0) n /= len;
    }
    // Edges: (low, high, triangle, k) sorted, so the triangles of one edge lie together.
    struct Edge {
        std::uint32_t lo, hi, triangle, k;
    };
    std::vector<Edge> edges;
    edges.reserve(3 * nt);
    for (std::size_t t = 0; t < nt; ++t)
        for (std::uint32_t k = 0; k < 3; ++k) {
            const std::uint32_t u = tris[t][int(k)], w = tris[t][int((k + 1) % 3)];
            edges.push_back({std::min(u, w), std::max(u, w), std::uint32_t(t), k});
        }
    std::sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) {
        return x.lo != y.lo ? x.lo < y.lo : x.hi != y.hi ? x.hi < y.hi : x.triangle < y.triangle;
    });
    edgeNormal_.assign(3 * nt, DVec3(0.0));
    adjacentStart_.assign(nv + 1, 0);
    for (std::size_t i = 0; i < edges.size();) {
        std::size_t j = i;
        DVec3 sum(0.0);
        while (j < edges.size() && edges[j].lo == edges[i].lo && edges[j].hi == edges[i].hi)
            sum += faceNormal_[edges[j++].triangle];
        for (std::size_t k = i; k < j; ++k) edgeNormal_[3 * edges[k].triangle + edges[k].k] = sum;
        ++adjacentStart_[edges[i].lo + 1];
        ++adjacentStart_[edges[i].hi + 1];
        i = j;
    }
    for (std::size_t v = 0; v < nv; ++v) adjacentStart_[v + 1] += adjacentStart_[v];
    adjacent_.resize(adjacentStart_[nv]);
    std::vector<std::uint32_t> fill(adjacentStart_.begin(), adjacentStart_.end() - 1);
    for (std::size_t i = 0; i < edges.size();) {
        std::size_t j = i;
        while (j < edges.size() && edges[j].lo == edges[i].lo && edges[j].hi == edges[i].hi) ++j;
        adjacent_[fill[edges[i].lo]++] = edges[i].hi;
        adjacent_[fill[edges[i].hi]++] = edges[i].lo;
        i = j;
    }
}

SurfaceDistance::Closest SurfaceDistance::closest(const DVec3& p, double limit) const {
    Closest best;
    best.distance = limit;
    if (bvh_.empty()) return best;
    const auto verts = mesh_->vertices();
    const auto tris = mesh_->triangles();
    const auto nodes = bvh_.nodes();
    const auto slots = bvh_.slotTriangles();
    double best2 = std::isfinite(limit) ? limit * limit : INFINITY;
    Region bestRegion = Face;
    struct Item {
        std::uint32_t node;
        double d2;
    };
    Item stack[128];
    int top = 0;
    stack[top++] = {0, boxDistance2(nodes[0].box, p)};
    while (top > 0) {
        const Item it = stack[--top];
        if (it.d2 > best2) continue;
        const Bvh::Node& n = nodes[it.node];
        if (n.isLeaf()) {
            for (std::uint32_t s = n.first; s < n.first + n.count; ++s) {
                const std::uint32_t t = slots[s];
                const UVec3 i = tris[t];
                Region region = Face;
                const DVec3 c = closestOnTriangle(p, DVec3(verts[i.x]), DVec3(verts[i.y]), DVec3(verts[i.z]), region);
                const DVec3 diff = p - c;
                const double d2 = glm::dot(diff, diff);
                if (d2 < best2) {
                    best2 = d2;
                    best.point = c;
                    best.triangle = t;
                    bestRegion = region;
                }
            }
            continue;
        }
        const Item c0{n.first, boxDistance2(nodes[n.first].box, p)};
        const Item c1{n.first + 1, boxDistance2(nodes[n.first + 1].box, p)};
        // The nearer child is popped first; the stack holds at most one sibling per level.
        ISC_ASSERT(top + 2 <= 128, "SurfaceDistance::closest(): BVH deeper than 126 levels");
        const Item& nearer = c0.d2 <= c1.d2 ? c0 : c1;
        const Item& farther = c0.d2 <= c1.d2 ? c1 : c0;
        if (farther.d2 <= best2) stack[top++] = farther;
        if (nearer.d2 <= best2) stack[top++] = nearer;
    }
    if (best.triangle == UINT32_MAX) return best;
    const std::uint32_t t = best.triangle;
    const UVec3 tri = tris[t];
    DVec3 normal(0.0);
    switch (bestRegion) {
        case Face: normal = faceNormal_[t]; break;
        case Vertex0: normal = vertexNormal_[tri.x]; break;
        case Vertex1: normal = vertexNormal_[tri.y]; break;
        case Vertex2: normal = vertexNormal_[tri.z]; break;
        case Edge01: normal = edgeNormal_[3 * t + 0]; break;
        case Edge12: normal = edgeNormal_[3 * t + 1]; break;
        case Edge20: normal = edgeNormal_[3 * t + 2]; break;
    }
    const double d = std::sqrt(best2);
    best.distance = glm::dot(p - best.point, normal) < 0.0 ? -d : d;
    return best;
}

Penetration penetration(const PosedMesh& a, const SurfaceDistance& da, const PosedMesh& b,
                        const SurfaceDistance& db) {
    ISC_ASSERT(sameMesh(a, da) && sameMesh(b, db), "geometry::penetration(): distances built over other meshes");
    ISC_ASSERT(a.isRigid() && b.isRigid(), "geometry::penetration(): meshes must be posed rigidly");
    Penetration out;
    std::vector<TrianglePair> pairs;
    intersect(a, b, pairs);
    out.crossingPairs = pairs.size();
    std::vector<std::uint32_t> queue;
    if (pairs.empty()) {
        // No crossing: either apart, or one wholly inside the other (then all its vertices).
        for (int side = 0; side < 2; ++side) {
            const PosedMesh& from = side == 0 ? a : b;
            const PosedMesh& onto = side == 0 ? b : a;
            const SurfaceDistance& ontoDistance = side == 0 ? db : da;
            const std::span<const DVec3> world = from.worldVertices();
            if (world.empty()) continue;
            ++out.verticesTested;
            if (!(ontoDistance.signedDistance(ToLocal(onto.pose())(world[0])) < 0.0)) continue;
            queue.clear();
            for (std::uint32_t v = 0; v < world.size(); ++v) queue.push_back(v);
            walkInside(from, side == 0 ? da : db, onto, ontoDistance, queue, side == 0, out);
        }
        return out;
    }
    const auto trisA = a.mesh().triangles();
    const auto trisB = b.mesh().triangles();
    for (const TrianglePair& p : pairs) queue.insert(queue.end(), {trisA[p.a].x, trisA[p.a].y, trisA[p.a].z});
    std::sort(queue.begin(), queue.end());
    queue.erase(std::unique(queue.begin(), queue.end()), queue.end());
    walkInside(a, da, b, db, queue, true, out);
    queue.clear();
    for (const TrianglePair& p : pairs) queue.insert(queue.end(), {trisB[p.b].x, trisB[p.b].y, trisB[p.b].z});
    std::sort(queue.begin(), queue.end());
    queue.erase(std::unique(queue.begin(), queue.end()), queue.end());
    walkInside(b, db, a, da, queue, false, out);
    return out;
}

double clearance(const PosedMesh& a, const SurfaceDistance& da, const PosedMesh& b, const SurfaceDistance& db,
                 double limit) {
    ISC_ASSERT(limit > 0.0, "geometry::clearance(): limit must be positive");
    const Penetration p = penetration(a, da, b, db);
    if (p.crossingPairs > 0 || p.depth > 0.0) return -p.depth;
    double gap = limit;
    for (int side = 0; side < 2; ++side) {
        const PosedMesh& from = side == 0 ? a : b;
        const PosedMesh& onto = side == 0 ? b : a;
        const SurfaceDistance& ontoDistance = side == 0 ? db : da;
        const std::span<const DVec3> ontoWorld = onto.worldVertices();
        DVec3 lo(INFINITY), hi(-INFINITY);
        for (const DVec3& v : ontoWorld) {
            lo = glm::min(lo, v);
            hi = glm::max(hi, v);
        }
        lo -= DVec3(limit);
        hi += DVec3(limit);
        const ToLocal toOnto(onto.pose());
        for (const DVec3& v : from.worldVertices()) {
            if (v.x < lo.x || v.y < lo.y || v.z < lo.z || v.x > hi.x || v.y > hi.y || v.z > hi.z) continue;
            gap = std::min(gap, ontoDistance.signedDistance(toOnto(v), gap));
        }
    }
    return std::max(gap, 0.0);
}

}  // namespace isc::geometry
