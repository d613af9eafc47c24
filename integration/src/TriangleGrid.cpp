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
    // Two passes: count per cell, then fill (compressed rows).
    start_.assign(cells + 1, 0u);
    glm::ivec3 lo, hi;
    for (std::uint32_t t = 0; t < tris.size(); ++t) {
        range(t, lo, hi);
        for (int z = lo.z; z <= hi.z; ++z)
            for (int y = lo.y; y <= hi.y; ++y)
                for (int x = lo.x; x <= hi.x; ++x) ++start_[index(x, y, z) + 1];
    }
    for (std::size_t c = 0; c < cells; ++c) start_[c + 1] += start_[c];
    items_.resize(start_[cells]);
    std::vector<std::uint32_t> fill(start_.begin(), start_.end() - 1);
    for (std::uint32_t t = 0; t < tris.size(); ++t) {
        range(t, lo, hi);
        for (int z = lo.z; z <= hi.z; ++z)
            for (int y = lo.y; y <= hi.y; ++y)
                for (int x = lo.x; x <= hi.x; ++x) items_[fill[index(x, y, z)]++] = t;
    }
}

}  // namespace isc::bullet
