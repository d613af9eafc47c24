#include "isc/particles/ExactEnvironment.h"

#include "isc/core/Assert.h"
#include "isc/scene/Scene.h"

#include <algorithm>
#include <cmath>

namespace isc::particles {

namespace {

// Segment [0, tmax] of origin + t * dir against a float box (slabs, double).
bool hitsBox(const geometry::Bvh::Box& b, const DVec3& o, const DVec3& inv, double tmax) {
    double t0 = 0.0, t1 = tmax;
    for (int k = 0; k < 3; ++k) {
        double a = (double(b.min[k]) - o[k]) * inv[k], c = (double(b.max[k]) - o[k]) * inv[k];
        if (a > c) std::swap(a, c);
        if (std::isnan(a) || std::isnan(c)) {  // dir[k] == 0 and o[k] on a slab plane
            if (o[k] < double(b.min[k]) || o[k] > double(b.max[k])) return false;
            continue;
        }
        t0 = std::max(t0, a);
        t1 = std::min(t1, c);
        if (t0 > t1) return false;
    }
    return true;
}

// Moeller-Trumbore in double: t of the hit, or negative.
double rayTriangle(const DVec3& o, const DVec3& d, const DVec3& a, const DVec3& b, const DVec3& c) {
    const DVec3 e1 = b - a, e2 = c - a;
    const DVec3 p = glm::cross(d, e2);
    const double det = glm::dot(e1, p);
    if (det == 0.0) return -1.0;
    const double inv = 1.0 / det;
    const DVec3 s = o - a;
    const double u = glm::dot(s, p) * inv;
    if (u < 0.0 || u > 1.0) return -1.0;
    const DVec3 q = glm::cross(s, e1);
    const double v = glm::dot(d, q) * inv;
    if (v < 0.0 || u + v > 1.0) return -1.0;
    return glm::dot(e2, q) * inv;
}

template <class F>
void traverse(const geometry::Bvh& bvh, const DVec3& o, const DVec3& dir, double& tmax, F&& leaf) {
    if (bvh.empty()) return;
    const DVec3 inv(1.0 / dir.x, 1.0 / dir.y, 1.0 / dir.z);
    const auto nodes = bvh.nodes();
    const auto slots = bvh.slotTriangles();
    std::uint32_t stack[256];  // a pair per level: build() keeps the depth below 120
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const geometry::Bvh::Node& n = nodes[stack[--top]];
        if (!hitsBox(n.box, o, inv, tmax)) continue;
        if (n.isLeaf()) {
            for (std::uint32_t s = n.first; s < n.first + n.count; ++s) leaf(slots[s]);
            continue;
        }
        stack[top++] = n.first;
        stack[top++] = n.first + 1;
    }
}

}  // namespace

ExactEnvironment ExactEnvironment::build(const Scene& scene) {
    ExactEnvironment env;
    for (ObjectId o = 0; o < scene.objectCount(); ++o) {
        if (!scene.isStatic(o) || !scene.isActive(o) || !scene.pose(o).isFinite()) continue;
        const auto first = std::uint32_t(env.vertices_.size());
        const Pose& pose = scene.pose(o);
        for (const Vec3& v : scene.localVertices(o)) {
            env.vertices_.push_back(pose.apply(v));
            env.bounds_.grow(env.vertices_.back());
        }
        for (const UVec3& t : scene.objectMesh(o).triangles()) {
            env.triangles_.push_back(t + UVec3(first));
            env.objectOf_.push_back(env.objectCount_);
        }
        ++env.objectCount_;
    }
    if (!env.triangles_.empty()) env.bvh_.build(env.vertices_, env.triangles_, 4);
    ISC_ASSERT(env.bvh_.depth() < 120, "ExactEnvironment::build(): BVH deeper than the traversal stack");
    return env;
}

bool ExactEnvironment::firstHit(const Vec3& from, const Vec3& to, Hit& hit) const {
    const DVec3 o(from), d = DVec3(to) - DVec3(from);
    double tmax = 1.0;
    bool found = false;
    traverse(bvh_, o, d, tmax, [&](std::uint32_t t) {
        const UVec3 tri = triangles_[t];
        const DVec3 a(vertices_[tri.x]), b(vertices_[tri.y]), c(vertices_[tri.z]);
        const double s = rayTriangle(o, d, a, b, c);
        if (s >= 0.0 && s <= tmax) {
            tmax = s;
            hit.t = s;
            hit.triangle = t;
            hit.normal = Vec3(glm::normalize(glm::cross(b - a, c - a)));
            found = true;
        }
    });
    return found;
}

void ExactEnvironment::crossings(const DVec3& origin, const DVec3& direction,
                                 std::vector<std::uint32_t>& perObject) const {
    double tmax = 1e30;
    traverse(bvh_, origin, direction, tmax, [&](std::uint32_t t) {
        const UVec3 tri = triangles_[t];
        if (rayTriangle(origin, direction, DVec3(vertices_[tri.x]), DVec3(vertices_[tri.y]), DVec3(vertices_[tri.z])) > 0.0)
            ++perObject[objectOf_[t]];
    });
}

bool ExactEnvironment::inside(const Vec3& p) const {
    if (triangles_.empty() || bounds_.isEmpty()) return false;
    if (p.x < bounds_.min.x || p.y < bounds_.min.y || p.z < bounds_.min.z || p.x > bounds_.max.x ||
        p.y > bounds_.max.y || p.z > bounds_.max.z)
        return false;
    static const DVec3 dirs[3] = {glm::normalize(DVec3(0.5773, 0.8182, 0.1234)),
                                  glm::normalize(DVec3(-0.3317, 0.2718, 0.9033)),
                                  glm::normalize(DVec3(0.7071, -0.6180, -0.3437))};
    std::vector<std::uint32_t> odd(objectCount_, 0), count(objectCount_, 0);
    for (const DVec3& d : dirs) {
        std::fill(count.begin(), count.end(), 0u);
        crossings(DVec3(p), d, count);
        for (std::uint32_t o = 0; o < objectCount_; ++o) odd[o] += count[o] & 1u;
    }
    for (std::uint32_t o = 0; o < objectCount_; ++o)
        if (odd[o] >= 2) return true;
    return false;
}

CpuStepStats stepOnCpu(std::span<Vec4> positions, std::span<Vec4> velocities, const ExactEnvironment& env,
                       const ParticleSettings& s, float dt) {
    const Vec3 ext = s.domain.extent();
    const float clearance = std::max(s.radius, 1e-5f * std::max({ext.x, ext.y, ext.z}));
    std::size_t collisions = 0, nan = 0, left = 0;
    const auto n = static_cast<std::int64_t>(positions.size());
#pragma omp parallel for schedule(static, 4096) reduction(+ : collisions, nan, left)
    for (std::int64_t i = 0; i < n; ++i) {
        Vec4& p = positions[std::size_t(i)];
        if (p.w == 0.0f) continue;
        Vec3 v = Vec3(velocities[std::size_t(i)]) + s.gravity * dt;
        const Vec3 x0(p);
        Vec3 x1 = x0 + v * dt;
        auto finite = [](const Vec3& a) { return std::isfinite(a.x) && std::isfinite(a.y) && std::isfinite(a.z); };
        if (!finite(x1) || !finite(v) || !finite(x0)) {
            p = Vec4(0.0f);
            velocities[std::size_t(i)] = Vec4(0.0f);
            ++nan;
            continue;
        }
        if (glm::any(glm::lessThan(x1, s.domain.min)) || glm::any(glm::greaterThan(x1, s.domain.max))) {
            p = Vec4(x1, 0.0f);
            velocities[std::size_t(i)] = Vec4(0.0f);
            ++left;
            continue;
        }
        const Vec3 motion = x1 - x0;
        const float len = glm::length(motion);
        ExactEnvironment::Hit hit;
        // The segment, lengthened by the clearance: a particle stops that far before a surface.
        if (len > 0.0f && env.firstHit(x0, x0 + motion * ((len + clearance) / len), hit)) {
            const Vec3 dir = motion / len;
            const float at = float(hit.t) * (len + clearance);
            x1 = x0 + dir * std::max(0.0f, at - clearance);
            Vec3 nrm = hit.normal;
            if (glm::dot(nrm, dir) > 0.0f) nrm = -nrm;  // the side the particle came from
            const float vn = glm::dot(v, nrm);
            if (vn < 0.0f) {
                const Vec3 vt = v - vn * nrm;
                const float vtl = glm::length(vt);
                const float keep = vtl > 0.0f ? std::max(0.0f, 1.0f - s.friction * (1.0f + s.restitution) * (-vn) / vtl) : 0.0f;
                v = vt * keep - s.restitution * vn * nrm;
            }
            ++collisions;
        }
        p = Vec4(x1, 1.0f);
        velocities[std::size_t(i)] = Vec4(v, 0.0f);
    }
    return {collisions, nan, left};
}

}  // namespace isc::particles
