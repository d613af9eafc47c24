#include "PatchContacts.h"

#include <algorithm>
#include <cmath>

namespace isc::bullet {

namespace {

Vec3 toVec(const btVector3& v) { return Vec3(float(v.x()), float(v.y()), float(v.z())); }
btVector3 toBt(const Vec3& v) { return btVector3(v.x, v.y, v.z); }

}  // namespace

Vec3 closestOnTriangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c, bool& inside) {
    inside = false;
    const Vec3 ab = b - a, ac = c - a, ap = p - a;
    const float d1 = glm::dot(ab, ap), d2 = glm::dot(ac, ap);
    if (d1 <= 0.0f && d2 <= 0.0f) return a;
    const Vec3 bp = p - b;
    const float d3 = glm::dot(ab, bp), d4 = glm::dot(ac, bp);
    if (d3 >= 0.0f && d4 <= d3) return b;
    const float vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0f && d1 >= 0.0f && d3 <= 0.0f) return a + ab * (d1 / (d1 - d3));
    const Vec3 cp = p - c;
    const float d5 = glm::dot(ab, cp), d6 = glm::dot(ac, cp);
    if (d6 >= 0.0f && d5 <= d6) return c;
    const float vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0f && d2 >= 0.0f && d6 <= 0.0f) return a + ac * (d2 / (d2 - d6));
    const float va = d3 * d6 - d5 * d4;
    if (va <= 0.0f && (d4 - d3) >= 0.0f && (d5 - d6) >= 0.0f) return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    const float denom = 1.0f / (va + vb + vc);
    inside = true;
    return a + ab * (vb * denom) + ac * (vc * denom);
}

void PatchContacts::begin(float margin, float maxDepth) {
    margin_ = margin;
    maxDepth_ = maxDepth;
    candidates_.clear();
}

void PatchContacts::add(const PosedMesh& a, const PosedMesh& b, std::span<const TrianglePair> pairs, bool swapped) {
    const auto trisA = a.mesh->mesh->triangles();
    const auto trisB = b.mesh->mesh->triangles();
    // The entry of this mesh pair: mean normal and centroid of the crossing triangles.
    {
        btVector3 n(0, 0, 0), c(0, 0, 0);
        int count = 0;
        const auto vertsA = a.mesh->mesh->vertices();
        const auto vertsB = b.mesh->mesh->vertices();
        for (const TrianglePair& tp : pairs) {
            const std::uint32_t ta = swapped ? tp.b : tp.a, tb = swapped ? tp.a : tp.b;
            if (ta >= trisA.size() || tb >= trisB.size()) continue;
            n += b.world.getBasis() * toBt(b.mesh->faceNormals[tb]) - a.world.getBasis() * toBt(a.mesh->faceNormals[ta]);
            const UVec3 ia = trisA[ta], ib = trisB[tb];
            c += a.world * toBt((vertsA[ia.x] + vertsA[ia.y] + vertsA[ia.z]) / 3.0f);
            c += b.world * toBt((vertsB[ib.x] + vertsB[ib.y] + vertsB[ib.z]) / 3.0f);
            ++count;
        }
        rimValid_ = count > 0 && n.length2() > btScalar(1e-6) * btScalar(count * count);
        if (rimValid_) {
            rimNormal_ = n.normalized();
            rimPoint_ = c / btScalar(2 * count);
        }
    }
    // A's vertices against B's faces: seeded by the vertices of A's reported triangles.
    seeds_.clear();
    for (const TrianglePair& tp : pairs) {
        const std::uint32_t t = swapped ? tp.b : tp.a;
        if (t < trisA.size()) seeds_.insert(seeds_.end(), {trisA[t].x, trisA[t].y, trisA[t].z});
    }
    walk(a, b, true);
    seeds_.clear();
    for (const TrianglePair& tp : pairs) {
        const std::uint32_t t = swapped ? tp.a : tp.b;
        if (t < trisB.size()) seeds_.insert(seeds_.end(), {trisB[t].x, trisB[t].y, trisB[t].z});
    }
    walk(b, a, false);
}

void PatchContacts::addSamples(const PosedMesh& a, const PosedMesh& b, std::span<const ContactSample> samples,
                               bool swapped, float halfMarginA, float halfMarginB) {
    const std::size_t trisA = a.mesh->mesh->triangleCount(), trisB = b.mesh->mesh->triangleCount();
    auto ids = [](const PosedMesh& m, std::uint32_t t, std::int32_t& part, std::int32_t& index) {
        part = m.childIndex >= 0 ? m.childIndex : m.mesh->partOf[t];
        index = m.mesh->indexOf[t];
    };
    for (const ContactSample& s : samples) {
        const btVector3 n = toBt(s.normalOnB);
        if (!(n.length2() > btScalar(0.25))) continue;  // not a direction (zero or NaN)
        const btVector3 unit = n.normalized();
        const btScalar distance = btScalar(s.depth) + halfMarginA + halfMarginB;
        if (!(distance <= btScalar(margin_))) continue;
        MeshContact c;
        c.distance = distance;
        // The sample's B is the body it lies on; ours is `b` unless swapped.
        const float halfMarginOn = swapped ? halfMarginA : halfMarginB;
        const btVector3 onSampleB = toBt(s.pointOnB) - unit * btScalar(halfMarginOn);  // real surface
        std::uint32_t tA = s.triangleA, tB = s.triangleB;
        if (swapped) {
            // Normal from b toward a, point on b: the sample's A side, `distance` along it.
            c.normalOnB = -unit;
            c.pointOnB = onSampleB + unit * distance;
            std::swap(tA, tB);
        } else {
            c.normalOnB = unit;
            c.pointOnB = onSampleB;
        }
        c.partA = c.indexA = c.partB = c.indexB = -1;
        if (tA < trisA) ids(a, tA, c.partA, c.indexA);
        if (tB < trisB) ids(b, tB, c.partB, c.indexB);
        candidates_.push_back(c);
    }
}

void PatchContacts::walk(const PosedMesh& from, const PosedMesh& onto, bool fromIsA) {
    const ShapeMesh& f = *from.mesh;
    const ShapeMesh& o = *onto.mesh;
    const auto fromVerts = f.mesh->vertices();
    const auto ontoVerts = o.mesh->vertices();
    const auto ontoTris = o.mesh->triangles();
    if (stamp_.size() < fromVerts.size()) stamp_.resize(fromVerts.size(), generation_);
    if (++generation_ == 0) {  // wrapped: forget every old mark
        std::fill(stamp_.begin(), stamp_.end(), 0u);
        generation_ = 1;
    }
    // `from`-local to `onto`-local, as a 3x3 matrix and a translation.
    const btTransform rel = onto.world.inverseTimes(from.world);
    const btMatrix3x3& rb = rel.getBasis();
    const glm::mat3 R(toVec(rb.getColumn(0)), toVec(rb.getColumn(1)), toVec(rb.getColumn(2)));
    const Vec3 T = toVec(rel.getOrigin());
    const btMatrix3x3& ontoBasis = onto.world.getBasis();

    queue_.clear();
    for (std::uint32_t v : seeds_) {
        if (v < fromVerts.size() && stamp_[v] != generation_) {
            stamp_[v] = generation_;
            queue_.push_back(v);
        }
    }
    // A bound on one walk (a whole mesh sunk into another): 1 << 16 vertices.
    for (std::size_t qi = 0; qi < queue_.size() && qi < (1u << 16); ++qi) {
        const std::uint32_t v = queue_[qi];
        const Vec3 p = R * fromVerts[v] + T;
        const Vec3 nv = R * f.vertexNormals[v];
        // The nearest facing triangle of `onto`.
        float best = INFINITY;
        std::uint32_t bestTri = 0;
        Vec3 bestPoint(0.0f);
        bool bestInside = false;
        for (const std::uint32_t t : onto.grid->near(p)) {
            const Vec3& n = o.faceNormals[t];
            if (glm::dot(nv, n) >= 0.0f) continue;  // not facing
            const UVec3 i = ontoTris[t];
            const float plane = glm::dot(p - ontoVerts[i.x], n);
            if (std::abs(plane) >= best) continue;  // the closest point cannot be nearer
            bool inside = false;
            const Vec3 c = closestOnTriangle(p, ontoVerts[i.x], ontoVerts[i.y], ontoVerts[i.z], inside);
            // Behind the face's plane but beside the face: the vertex may be outside `onto`
            // (past a convex edge, next to a face that does not face it); no depth can be
            // read from this face.
            // (Within 0.1 mm counts as inside: a box corner over the other box's corner.)
            if (plane < 0.0f && !inside) {
                const Vec3 q = p - n * plane;  // the projection onto the face's plane
                if (glm::dot(q - c, q - c) > 1e-8f) continue;
                inside = true;
            }
            const float d = glm::length(p - c);
            if (d < best) {
                best = d;
                bestTri = t;
                bestPoint = c;
                bestInside = inside;
            }
        }
        if (!(best <= std::max(margin_, maxDepth_))) continue;
        const Vec3& n = o.faceNormals[bestTri];
        const Vec3 diff = p - bestPoint;
        float distance = best;
        Vec3 normal = n;
        if (glm::dot(diff, n) < 0.0f) {
            distance = -best;  // behind the face: inside `onto`
        } else if (!bestInside && best > 1e-6f) {
            normal = diff / best;  // against an edge or a corner of `onto`
        }
        if (distance > margin_ || distance < -maxDepth_) continue;
        // Deep under a face but outside `onto` (a concave pocket: under an ear, between the
        // ears): no contact, and the walk does not go on through it.
        if (distance < -margin_ && o.mesh->isClosed() && !onto.grid->inside(*o.mesh, p)) continue;

        // World: the point on `onto`'s surface, its normal, and the vertex itself.
        btVector3 normalW = ontoBasis * toBt(normal);
        btVector3 onOnto = onto.world * toBt(p - normal * distance);
        if (distance < -margin_ && rimValid_) {
            // Deep: the way out of the entry (see the file comment), in `onto`'s sense.
            const btVector3 out = fromIsA ? rimNormal_ : -rimNormal_;
            const btVector3 vertex = from.world * toBt(fromVerts[v]);
            const btScalar behind = (vertex - rimPoint_).dot(out);
            distance = std::max(float(std::min(btScalar(distance), behind)), -maxDepth_);
            normalW = out;
            onOnto = vertex - out * distance;
        }
        MeshContact c;
        c.distance = distance;
        const std::int32_t fromPart = from.childIndex >= 0 ? from.childIndex : f.partOf[f.triangleOf[v]];
        const std::int32_t ontoPart = onto.childIndex >= 0 ? onto.childIndex : o.partOf[bestTri];
        if (fromIsA) {
            c.pointOnB = onOnto;
            c.normalOnB = normalW;
            c.partA = fromPart, c.indexA = f.indexOf[f.triangleOf[v]];
            c.partB = ontoPart, c.indexB = o.indexOf[bestTri];
        } else {
            c.pointOnB = from.world * toBt(fromVerts[v]);  // B's vertex
            c.normalOnB = -normalW;                          // A's face normal points toward B
            c.partA = ontoPart, c.indexA = o.indexOf[bestTri];
            c.partB = fromPart, c.indexB = f.indexOf[f.triangleOf[v]];
        }
        candidates_.push_back(c);
        for (std::uint32_t k = f.adjacentStart[v]; k < f.adjacentStart[v + 1]; ++k) {
            const std::uint32_t u = f.adjacent[k];
            if (stamp_[u] != generation_) {
                stamp_[u] = generation_;
                queue_.push_back(u);
            }
        }
    }
}

std::span<const MeshContact> PatchContacts::reduce() {
    const std::size_t n = candidates_.size();
    if (n <= 4) return candidates_;
    std::size_t i0 = 0;
    btVector3 sum(0, 0, 0);
    for (std::size_t i = 0; i < n; ++i) {
        if (candidates_[i].distance < candidates_[i0].distance) i0 = i;
        sum += candidates_[i].normalOnB;
    }
    const btVector3 axis = sum.length2() > btScalar(1e-12) ? sum.normalized() : candidates_[i0].normalOnB;
    auto flat = [&](std::size_t i) {
        const btVector3& p = candidates_[i].pointOnB;
        return p - axis * p.dot(axis);
    };
    // A point near the margin holds nothing up (a speculative contact lets the bodies close
    // that gap in one step before it pushes): weigh each by how deep it is, 1 for the
    // deepest, falling to 0 at the margin, squared. The support polygon is then spanned by
    // the points that are in contact, not by the rim of the patch.
    const btScalar dmin = candidates_[i0].distance;
    const btScalar zero = btScalar(margin_);
    const btScalar span = std::max(zero - dmin, btScalar(1e-6));
    weights_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        const btScalar w = std::clamp((zero - candidates_[i].distance) / span, btScalar(0), btScalar(1));
        weights_[i] = w * w;
    }
    const btVector3 q0 = flat(i0);
    std::size_t i1 = i0;
    btScalar far = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const btScalar d = (flat(i) - q0).length2() * weights_[i];
        if (d > far) far = d, i1 = i;
    }
    const btVector3 edge = flat(i1) - q0;
    std::size_t i2 = i0, i3 = i0;
    btScalar hi = 0, lo = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const btScalar area = edge.cross(flat(i) - q0).dot(axis) * weights_[i];
        if (area > hi) hi = area, i2 = i;
        if (area < lo) lo = area, i3 = i;
    }
    int k = 0;
    chosen_[k++] = candidates_[i0];
    if (i1 != i0) chosen_[k++] = candidates_[i1];
    // Slivers (collinear points) add nothing: keep a side only with some (weighted) area.
    if (i2 != i0 && hi > btScalar(1e-6)) chosen_[k++] = candidates_[i2];
    if (i3 != i0 && lo < btScalar(-1e-6)) chosen_[k++] = candidates_[i3];
    return {chosen_, std::size_t(k)};
}

}  // namespace isc::bullet
