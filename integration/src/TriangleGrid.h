#pragma once
// A uniform grid over a mesh's triangles in the mesh's own frame: each triangle is listed in
// every cell that its bounds, grown by `reach`, touch; so every triangle within `reach` of
// a point is in that point's cell. Built once per mesh shape and margin (rigid meshes), it
// answers "which faces lie under this vertex" for the vertex-face contacts.
#include "isc/core/Math.h"
#include "isc/mesh/Mesh.h"

#include <cstdint>
#include <span>
#include <vector>

namespace isc::bullet {

class TriangleGrid {
public:
    TriangleGrid() = default;
    /// `reach` in the mesh's units (>= 0): how far from a triangle a query still lists it.
    TriangleGrid(const Mesh& mesh, float reach);

    /// The triangles that may lie within `reach` of `p` (mesh-local); empty outside the grid.
    std::span<const std::uint32_t> near(const Vec3& p) const {
        const Vec3 f = (p - origin_) * inverseCell_;
        if (!(f.x >= 0.0f && f.y >= 0.0f && f.z >= 0.0f)) return {};  // also NaN
        const int x = int(f.x), y = int(f.y), z = int(f.z);
        if (x >= dims_.x || y >= dims_.y || z >= dims_.z) return {};
        const std::size_t c = (std::size_t(z) * std::size_t(dims_.y) + std::size_t(y)) * std::size_t(dims_.x) +
                              std::size_t(x);
        return {items_.data() + start_[c], items_.data() + start_[c + 1]};
    }

    /// True when `p` (mesh-local) is inside `mesh` (the mesh the grid was built over, which
    /// must be closed): the parity of the crossings of a ray from `p` along +x, walked
    /// through the grid's row of cells (a triangle listed in several cells of the row counts
    /// once, in the first; the ray starts a hair off `p`, see the
    /// source). Outside the grid: false.
    bool inside(const Mesh& mesh, const Vec3& p) const;

private:
    Vec3 origin_{0.0f};
    float inverseCell_ = 0.0f;
    float reach_ = 0.0f;
    glm::ivec3 dims_{0};
    std::vector<std::uint32_t> start_{0u, 0u};
    std::vector<std::uint32_t> items_;
};

}  // namespace isc::bullet
