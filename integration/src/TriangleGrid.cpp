#include "TriangleGrid.h"

#include <algorithm>
#include <cmath>

namespace isc::bullet {

void TriangleGrid::rebuild(const Mesh& mesh, float reach, float slack) {
    const auto verts = mesh.vertices();
    const auto tris = mesh.triangles();
    slack_ = slack;
    if (slack > 0.0f)
        built_.assign(verts.begin(), verts.end());
    else
        built_.clear();
    if (tris.empty()) {
        dims_ = glm::ivec3(0);
        start_.assign(2, 0u);
        items_.clear();
        firstX_.clear();
        return;
    }
    // Listed out to reach + slack: a triangle within `reach` of a point after its vertices moved
    // by up to `slack` was within reach + slack of it here.
    const float listed = reach + slack;
    Aabb bounds = mesh.localBounds();
    bounds.min -= Vec3(listed);
    bounds.max += Vec3(listed);
    const Vec3 extent = bounds.max - bounds.min;
    // About 48 cells along the longest side, but no smaller than the reach (a triangle then
    // spans a few cells at most) and at most 64 per side.
    const float longest = std::max({extent.x, extent.y, extent.z});
    float cell = std::max(longest / 48.0f, listed);
    cell = std::max(cell, longest / 64.0f);
    if (!(cell > 0.0f)) cell = 1.0f;
    origin_ = bounds.min;
    inverseCell_ = 1.0f / cell;
    dims_ = glm::ivec3(glm::max(glm::ivec3(1), glm::ivec3(glm::ceil(extent * inverseCell_))));
    const std::size_t cells = std::size_t(dims_.x) * std::size_t(dims_.y) * std::size_t(dims_.z);
    auto index = [&](int x, int y, int z) {
        return (std::size_t(z) * std::size_t(dims_.y) + std::size_t(y)) * std::size_t(dims_.x) + std::size_t(x);
    };
    // Two passes: count per cell, then fill (compressed rows). Each triangle's cell range is
    // worked out once.
    ranges_.resize(2 * tris.size());
    firstX_.resize(tris.size());
    start_.assign(cells + 1, 0u);
    for (std::uint32_t t = 0; t < tris.size(); ++t) {
        const UVec3 i = tris[t];
        const Vec3 mn = glm::min(glm::min(verts[i.x], verts[i.y]), verts[i.z]) - Vec3(listed);
        const Vec3 mx = glm::max(glm::max(verts[i.x], verts[i.y]), verts[i.z]) + Vec3(listed);
        const glm::ivec3 lo = glm::clamp(glm::ivec3(glm::floor((mn - origin_) * inverseCell_)), glm::ivec3(0), dims_ - 1);
        const glm::ivec3 hi = glm::clamp(glm::ivec3(glm::floor((mx - origin_) * inverseCell_)), glm::ivec3(0), dims_ - 1);
        ranges_[2 * t] = lo;
        ranges_[2 * t + 1] = hi;
        firstX_[t] = std::uint16_t(lo.x);
        for (int z = lo.z; z <= hi.z; ++z)
            for (int y = lo.y; y <= hi.y; ++y)
                for (int x = lo.x; x <= hi.x; ++x) ++start_[index(x, y, z) + 1];
    }
    for (std::size_t c = 0; c < cells; ++c) start_[c + 1] += start_[c];
    items_.resize(start_[cells]);
    fill_.assign(start_.begin(), start_.end() - 1);
    for (std::uint32_t t = 0; t < tris.size(); ++t) {
        const glm::ivec3 lo = ranges_[2 * t], hi = ranges_[2 * t + 1];
        for (int z = lo.z; z <= hi.z; ++z)
            for (int y = lo.y; y <= hi.y; ++y)
                for (int x = lo.x; x <= hi.x; ++x) items_[fill_[index(x, y, z)]++] = t;
    }
    // A grid built without slack (a rigid mesh's, built once) does not keep its scratch: at a
    // million triangles it would hold 28 MB for nothing.
    if (!(slack > 0.0f)) {
        std::vector<glm::ivec3>().swap(ranges_);
        std::vector<std::uint32_t>().swap(fill_);
    }
}

bool TriangleGrid::covers(const Mesh& mesh) const {
    const auto verts = mesh.vertices();
    if (!(slack_ > 0.0f) || verts.size() != built_.size() || mesh.triangleCount() != firstX_.size()) return false;
    const float limit = slack_ * slack_;
    bool within = true;
    for (std::size_t v = 0; v < verts.size(); ++v) {
        const Vec3 d = verts[v] - built_[v];
        within &= glm::dot(d, d) <= limit;  // false for NaN
    }
    return within;
}

bool TriangleGrid::inside(const Mesh& mesh, const Vec3& point) const {
    // Nudged off the axes by a tiny odd amount: a ray along a box face's diagonal (the
    // box's centre) would cross it exactly on the edge two triangles share. Only points
    // within ~1e-4 cells of the surface can change side.
    const float cellSize = 1.0f / inverseCell_;
    const Vec3 p = point + Vec3(0.0f, 1.37e-4f, 2.71e-4f) * cellSize;
    const Vec3 f = (p - origin_) * inverseCell_;
    if (!(f.x >= 0.0f && f.y >= 0.0f && f.z >= 0.0f)) return false;
    const int x0 = int(f.x), y = int(f.y), z = int(f.z);
    if (x0 >= dims_.x || y >= dims_.y || z >= dims_.z) return false;
    const auto verts = mesh.vertices();
    const auto tris = mesh.triangles();
    int crossings = 0;
    for (int x = x0; x < dims_.x; ++x) {
        const std::size_t c = (std::size_t(z) * std::size_t(dims_.y) + std::size_t(y)) * std::size_t(dims_.x) +
                              std::size_t(x);
        for (std::uint32_t k = start_[c]; k < start_[c + 1]; ++k) {
            const UVec3 t = tris[items_[k]];
            // The ray p + s (1, 0, 0), s > 0, against the triangle, in the (y, z) plane:
            // barycentric coordinates of (p.y, p.z), half-open edges so that a crossing on
            // a shared edge counts once.
            const Vec3 &a = verts[t.x], &b = verts[t.y], &cc = verts[t.z];
            // (In double: a ray grazing an edge two triangles share must not slip between
            // them through rounding.)
            const double py = double(p.y) - a.y, pz = double(p.z) - a.z;
            const double by = double(b.y) - a.y, bz = double(b.z) - a.z;
            const double cy = double(cc.y) - a.y, cz = double(cc.z) - a.z;
            const double d = by * cz - cy * bz;
            if (d == 0.0) continue;  // parallel to the ray
            const double u = (py * cz - cy * pz) / d, v = (by * pz - py * bz) / d;
            if (u < 0.0 || v < 0.0 || u + v >= 1.0) continue;
            // Count a triangle once: in the first cell of this row that lists it (from
            // the build: the vertices may have moved since, within the slack).
            if (x != std::max(int(firstX_[items_[k]]), x0)) continue;
            const double hx = a.x + u * (double(b.x) - a.x) + v * (double(cc.x) - a.x);
            if (hx <= double(p.x)) continue;  // behind the start
            ++crossings;
        }
    }
    return (crossings & 1) != 0;
}

}  // namespace isc::bullet
