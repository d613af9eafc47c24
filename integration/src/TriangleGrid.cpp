#include "TriangleGrid.h"

#include <algorithm>
#include <cmath>

namespace isc::bullet {

TriangleGrid::TriangleGrid(const Mesh& mesh, float reach) {
    const auto verts = mesh.vertices();
    const auto tris = mesh.triangles();
    if (tris.empty()) return;
    Aabb bounds = mesh.localBounds();
    bounds.min -= Vec3(reach);
    bounds.max += Vec3(reach);
    const Vec3 extent = bounds.max - bounds.min;
    // About 48 cells along the longest side, but no smaller than the reach (a triangle then
    // spans a few cells at most) and at most 64 per side.
    const float longest = std::max({extent.x, extent.y, extent.z});
    float cell = std::max(longest / 48.0f, reach);
    cell = std::max(cell, longest / 64.0f);
    if (!(cell > 0.0f)) cell = 1.0f;
    origin_ = bounds.min;
    reach_ = reach;
    inverseCell_ = 1.0f / cell;
    dims_ = glm::ivec3(glm::max(glm::ivec3(1), glm::ivec3(glm::ceil(extent * inverseCell_))));
    const std::size_t cells = std::size_t(dims_.x) * std::size_t(dims_.y) * std::size_t(dims_.z);
    auto range = [&](std::uint32_t t, glm::ivec3& lo, glm::ivec3& hi) {
        const UVec3 i = tris[t];
        const Vec3 mn = glm::min(glm::min(verts[i.x], verts[i.y]), verts[i.z]) - Vec3(reach);
        const Vec3 mx = glm::max(glm::max(verts[i.x], verts[i.y]), verts[i.z]) + Vec3(reach);
        lo = glm::clamp(glm::ivec3(glm::floor((mn - origin_) * inverseCell_)), glm::ivec3(0), dims_ - 1);
        hi = glm::clamp(glm::ivec3(glm::floor((mx - origin_) * inverseCell_)), glm::ivec3(0), dims_ - 1);
    };
    auto index = [&](int x, int y, int z) {
        return (std::size_t(z) * std::size_t(dims_.y) + std::size_t(y)) * std::size_t(dims_.x) + std::size_t(x);
    };
    // Two passes: count per cell, then fill (compressed rows). Each triangle's cell range is
    // worked out once (a deforming mesh's grid is rebuilt every step).
    std::vector<glm::ivec3> ranges(2 * tris.size());
    start_.assign(cells + 1, 0u);
    for (std::uint32_t t = 0; t < tris.size(); ++t) {
        glm::ivec3& lo = ranges[2 * t];
        glm::ivec3& hi = ranges[2 * t + 1];
        range(t, lo, hi);
        for (int z = lo.z; z <= hi.z; ++z)
            for (int y = lo.y; y <= hi.y; ++y)
                for (int x = lo.x; x <= hi.x; ++x) ++start_[index(x, y, z) + 1];
    }
    for (std::size_t c = 0; c < cells; ++c) start_[c + 1] += start_[c];
    items_.resize(start_[cells]);
    std::vector<std::uint32_t> fill(start_.begin(), start_.end() - 1);
    for (std::uint32_t t = 0; t < tris.size(); ++t) {
        const glm::ivec3 lo = ranges[2 * t], hi = ranges[2 * t + 1];
        for (int z = lo.z; z <= hi.z; ++z)
            for (int y = lo.y; y <= hi.y; ++y)
                for (int x = lo.x; x <= hi.x; ++x) items_[fill[index(x, y, z)]++] = t;
    }
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
            // Count a triangle once: in the first cell of this row that lists it (the
            // cell index computed as the constructor did).
            const float minX = std::min({a.x, b.x, cc.x}) - reach_;
            const int first = std::clamp(int(std::floor((minX - origin_.x) * inverseCell_)), 0, dims_.x - 1);
            if (x != std::max(first, x0)) continue;
            const double hx = a.x + u * (double(b.x) - a.x) + v * (double(cc.x) - a.x);
            if (hx <= double(p.x)) continue;  // behind the start
            ++crossings;
        }
    }
    return (crossings & 1) != 0;
}

}  // namespace isc::bullet
