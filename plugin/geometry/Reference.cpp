#include "isc/geometry/Reference.h"

#include "isc/core/Assert.h"
#include "isc/geometry/TriangleTriangle.h"

#include <algorithm>
#include <cmath>
#include <limits>

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

// A rigid map local -> world: `r * v + t` (r row-major, orthonormal to rounding), and a
// bound `delta` on how far any world vertex the mesh computes (Pose::applyDouble) lies
// from it. A deformed mesh's world BVH uses the identity with delta = 0 (its world
// vertices are the data).
struct Frame {
    double r[3][3];
    double t[3];
    double delta = 0.0;
    double radius = 0.0;  // largest |v| over the frame's vertices
    double tNorm = 0.0;
};

// Pose::applyDouble computes v + 2 (w (u x v) + u x (u x v)) + t with u = (x, y, z), the
// float quaternion widened to double. In exact arithmetic that is
// n^2 R v + (1 - n^2) v + t, where n = |q| and R is the rotation of q / n, so it differs
// from R v + t by |n^2 - 1| |R v - v| <= 2 |n^2 - 1| |v|; its rounding adds a few double
// ulps of |v| and |t|, far below the 1e-12 relative term. False when the quaternion is
// too far from unit for R to mean anything (zero, NaN): callers then use world space.
bool rigidFrame(const Pose& pose, double radius, Frame& f) {
    const double w = pose.rotation.w, x = pose.rotation.x, y = pose.rotation.y, z = pose.rotation.z;
    const double n2 = w * w + x * x + y * y + z * z;
    if (!(n2 > 0.25 && n2 < 4.0)) return false;
    const double s = 1.0 / std::sqrt(n2);
    const double qw = w * s, qx = x * s, qy = y * s, qz = z * s;
    f.r[0][0] = 1.0 - 2.0 * (qy * qy + qz * qz);
    f.r[0][1] = 2.0 * (qx * qy - qw * qz);
    f.r[0][2] = 2.0 * (qx * qz + qw * qy);
    f.r[1][0] = 2.0 * (qx * qy + qw * qz);
    f.r[1][1] = 1.0 - 2.0 * (qx * qx + qz * qz);
    f.r[1][2] = 2.0 * (qy * qz - qw * qx);
    f.r[2][0] = 2.0 * (qx * qz - qw * qy);
    f.r[2][1] = 2.0 * (qy * qz + qw * qx);
    f.r[2][2] = 1.0 - 2.0 * (qx * qx + qy * qy);
    f.t[0] = pose.position.x;
    f.t[1] = pose.position.y;
    f.t[2] = pose.position.z;
    f.tNorm = std::sqrt(f.t[0] * f.t[0] + f.t[1] * f.t[1] + f.t[2] * f.t[2]);
    f.radius = radius;
    f.delta = 2.0 * std::fabs(n2 - 1.0) * radius + 1e-12 * (radius + f.tNorm);
    return std::isfinite(f.delta);
}

// World space as a frame, for a world-space tree: the radius only scales the rounding
// term of the margin, so the root box's largest corner is enough.
Frame identityFrame(const Bvh& worldTree) {
    Frame f{};
    for (int i = 0; i < 3; ++i) f.r[i][i] = 1.0;
    if (!worldTree.empty()) {
        const Bvh::Box& b = worldTree.nodes()[0].box;
        double r2 = 0.0;
        for (int k = 0; k < 3; ++k) {
            const double m = std::max(std::fabs(double(b.min[k])), std::fabs(double(b.max[k])));
            r2 += m * m;
        }
        f.radius = std::sqrt(r2);
    }
    return f;
}

// B's frame in A's, with a margin that covers both frames' delta (each computed world
// triangle lies within delta of its frame's exact image of the local triangle, and R_A^T
// preserves distances) and the rounding of this product and of the box tests (a few
// double ulps of the magnitudes involved: the 1e-11 relative term, about 1e5 times more).
Bvh::RelativePose relativePose(const Frame& a, const Frame& b) {
    Bvh::RelativePose p{};
    double d[3];
    for (int k = 0; k < 3; ++k) d[k] = b.t[k] - a.t[k];
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            p.rotation[i][j] = a.r[0][i] * b.r[0][j] + a.r[1][i] * b.r[1][j] + a.r[2][i] * b.r[2][j];
            p.absRotation[i][j] = std::fabs(p.rotation[i][j]);
        }
        p.translation[i] = a.r[0][i] * d[0] + a.r[1][i] * d[1] + a.r[2][i] * d[2];
    }
    p.margin = 2.0 * (a.delta + b.delta) + 1e-11 * (a.radius + b.radius + a.tNorm + b.tNorm) +
               std::numeric_limits<double>::min();
    return p;
}

// World vertices of a rigid mesh, computed on demand during one intersect() call. Per
// thread (the detector runs pairs in parallel, one mesh in several pairs), stamped so
// that starting a call is O(1): a vertex is current when its stamp equals `now`.
struct VertexCache {
    std::vector<DVec3> position;
    std::vector<std::uint32_t> stamp;
    std::uint32_t now = 0;

    void begin(std::size_t n) {
        if (stamp.size() < n) {
            stamp.resize(n, 0);
            position.resize(n);
        }
        if (++now == 0) {  // wrapped: forget every stamp
            std::fill(stamp.begin(), stamp.end(), 0u);
            now = 1;
        }
    }
};

// Where a mesh's world vertices come from during one intersect() call.
struct VertexSource {
    const DVec3* world = nullptr;  // materialised world vertices, or
    const Vec3* local = nullptr;   // the mesh's own vertices, posed by `pose` on demand
    Pose pose;
    VertexCache* cache = nullptr;

    DVec3 operator()(std::uint32_t v) const {
        if (world) return world[v];
        if (cache->stamp[v] != cache->now) {
            cache->position[v] = pose.applyDouble(local[v]);  // exactly as materializeWorld()
            cache->stamp[v] = cache->now;
        }
        return cache->position[v];
    }
};

}  // namespace

PosedMesh::PosedMesh(const Mesh& mesh) : mesh_(&mesh), world_(mesh.vertexCount()) {
    localBvh_.build(mesh.vertices(), mesh.triangles());
    bvh_ = localBvh_;
    for (const Vec3& v : mesh.vertices()) localRadius_ = std::max(localRadius_, glm::length(DVec3(v)));
    update(Pose{});
}

PosedMesh PosedMesh::copyOf(const PosedMesh& shape) { return PosedMesh(shape, CopyTag{}); }

PosedMesh::PosedMesh(const PosedMesh& shape, CopyTag)
    : mesh_(shape.mesh_), localBvh_(shape.localBvh_), localRadius_(shape.localRadius_),
      world_(shape.mesh_->vertexCount()) {
    bvh_ = localBvh_;  // as the constructor: the world tree starts as the local one
    update(Pose{});
}

void PosedMesh::update(const Pose& pose, std::span<const Vec3> localVertices) {
    pose_ = pose;
    if (localVertices.empty()) {
        rigid_ = true;
        lazy_->worldReady.store(false, std::memory_order_relaxed);
        lazy_->bvhReady.store(false, std::memory_order_relaxed);
        return;
    }
    ISC_ASSERT(localVertices.size() == mesh_->vertexCount(),
               "PosedMesh::update(): vertex count differs from the mesh's");
    rigid_ = false;
    // Exactly Pose::applyDouble, so that anyone transforming the same way gets the same bits.
    for (std::size_t i = 0; i < localVertices.size(); ++i) world_[i] = pose.applyDouble(localVertices[i]);
    bvh_.refit(world_);
    lazy_->worldReady.store(true, std::memory_order_relaxed);
    lazy_->bvhReady.store(true, std::memory_order_relaxed);
}

void PosedMesh::materializeWorld() const {
    if (lazy_->worldReady.load(std::memory_order_relaxed)) return;
    const std::span<const Vec3> local = mesh_->vertices();
    for (std::size_t i = 0; i < local.size(); ++i) world_[i] = pose_.applyDouble(local[i]);
    lazy_->worldReady.store(true, std::memory_order_release);
}

std::span<const DVec3> PosedMesh::worldVertices() const {
    if (!lazy_->worldReady.load(std::memory_order_acquire)) {
        const std::lock_guard lock(lazy_->mutex);
        materializeWorld();
    }
    return world_;
}

const Bvh& PosedMesh::bvh() const {
    if (!lazy_->bvhReady.load(std::memory_order_acquire)) {
        const std::lock_guard lock(lazy_->mutex);
        if (!lazy_->bvhReady.load(std::memory_order_relaxed)) {
            materializeWorld();
            bvh_.refit(world_);
            lazy_->bvhReady.store(true, std::memory_order_release);
        }
    }
    return bvh_;
}

void PosedMesh::triangle(std::uint32_t t, DVec3 out[3]) const {
    const UVec3 tri = mesh_->triangles()[t];
    if (lazy_->worldReady.load(std::memory_order_acquire)) {
        for (int k = 0; k < 3; ++k) out[k] = world_[tri[k]];
        return;
    }
    const std::span<const Vec3> local = mesh_->vertices();  // rigid: world is never stale otherwise
    for (int k = 0; k < 3; ++k) out[k] = pose_.applyDouble(local[tri[k]]);
}

void intersect(const PosedMesh& a, const PosedMesh& b, std::vector<TrianglePair>& pairs,
               std::vector<Segment>* segments) {
    pairs.clear();
    const UVec3* ta = a.mesh().triangles().data();
    const UVec3* tb = b.mesh().triangles().data();
    // Local frames for rigid meshes (no O(n) work), world space for deformed ones. Both
    // deformed: the world trees' axis-aligned boxes, as tight as it gets.
    Frame fa, fb;
    const bool localA = a.isRigid() && rigidFrame(a.pose(), a.localRadius(), fa);
    const bool localB = b.isRigid() && rigidFrame(b.pose(), b.localRadius(), fb);
    if (!localA && !localB) {
        const DVec3* va = a.worldVertices().data();
        const DVec3* vb = b.worldVertices().data();
        Bvh::forEachOverlap(a.bvh(), b.bvh(), [&](std::uint32_t i, std::uint32_t j) {
            const DVec3 p[3] = {va[ta[i].x], va[ta[i].y], va[ta[i].z]};
            const DVec3 q[3] = {vb[tb[j].x], vb[tb[j].y], vb[tb[j].z]};
            if (trianglesIntersect(p, q)) pairs.push_back({i, j});
        });
    } else {
        thread_local VertexCache cacheA, cacheB;
        VertexSource sa, sb;
        if (localA) {
            cacheA.begin(a.mesh().vertexCount());
            sa = {nullptr, a.mesh().vertices().data(), a.pose(), &cacheA};
        } else {
            fa = identityFrame(a.bvh());
            sa.world = a.worldVertices().data();
        }
        if (localB) {
            cacheB.begin(b.mesh().vertexCount());
            sb = {nullptr, b.mesh().vertices().data(), b.pose(), &cacheB};
        } else {
            fb = identityFrame(b.bvh());
            sb.world = b.worldVertices().data();
        }
        const Bvh& treeA = localA ? a.localBvh() : a.bvh();
        const Bvh& treeB = localB ? b.localBvh() : b.bvh();
        Bvh::forEachOverlap(treeA, treeB, relativePose(fa, fb), [&](std::uint32_t i, std::uint32_t j) {
            const DVec3 p[3] = {sa(ta[i].x), sa(ta[i].y), sa(ta[i].z)};
            const DVec3 q[3] = {sb(tb[j].x), sb(tb[j].y), sb(tb[j].z)};
            if (trianglesIntersect(p, q)) pairs.push_back({i, j});
        });
    }
    // Each triangle sits in exactly one leaf, so every pair is visited once: no duplicates.
    std::sort(pairs.begin(), pairs.end());
    if (segments) segmentsOf(a, b, pairs, *segments);
}

void intersectSelf(const PosedMesh& m, std::vector<TrianglePair>& pairs, std::vector<Segment>* segments) {
    pairs.clear();
    const UVec3* t = m.mesh().triangles().data();
    auto test = [&](const auto& vertex, std::uint32_t i, std::uint32_t j) {
        const UVec3 a = t[i], b = t[j];
        for (int x = 0; x < 3; ++x)
            for (int y = 0; y < 3; ++y)
                if (a[x] == b[y]) return;  // neighbours touch by construction
        const DVec3 p[3] = {vertex(a.x), vertex(a.y), vertex(a.z)};
        const DVec3 q[3] = {vertex(b.x), vertex(b.y), vertex(b.z)};
        if (trianglesIntersect(p, q)) pairs.push_back(i < j ? TrianglePair{i, j} : TrianglePair{j, i});
    };
    Frame f;
    if (m.isRigid() && rigidFrame(m.pose(), m.localRadius(), f)) {
        // The local tree with the margin of the mesh against itself: two computed triangles
        // that touch have local boxes within 2 delta (see relativePose()).
        thread_local VertexCache cache;
        cache.begin(m.mesh().vertexCount());
        const VertexSource source{nullptr, m.mesh().vertices().data(), m.pose(), &cache};
        m.localBvh().forEachSelfOverlap(relativePose(f, f).margin,
                                        [&](std::uint32_t i, std::uint32_t j) { test(source, i, j); });
    } else {
        const DVec3* v = m.worldVertices().data();
        m.bvh().forEachSelfOverlap([&](std::uint32_t i, std::uint32_t j) {
            test([v](std::uint32_t k) { return v[k]; }, i, j);
        });
    }
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
    (void)a.worldVertices();  // materialise once rather than per triangle() call
    (void)b.worldVertices();
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
