#pragma once
// A uniform grid over a mesh's triangles in the mesh's own frame: each triangle is listed in
// every cell that its bounds, grown by `reach`, touch; so every triangle within `reach` of
// a point is in that point's cell. Built once per mesh shape and margin (rigid meshes), it
// answers "which faces lie under this vertex" for the vertex-face contacts. A deforming mesh's
// grid is built with slack and kept while its vertices stay within the slack (covers()).
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
    /// `slack` (>= 0): the grid also answers for the mesh's vertices moved by up to `slack`
    /// each from where they are now (a deforming mesh: see covers()); it lists each triangle
    /// out to `reach + slack`, so its queries return more triangles.
    TriangleGrid(const Mesh& mesh, float reach, float slack = 0.0f) { rebuild(mesh, reach, slack); }

    /// Built again over `mesh` (re-using the grid's storage).
    void rebuild(const Mesh& mesh, float reach, float slack = 0.0f);

    /// True when the grid answers for `mesh` (the mesh it was built over, its vertices moved:
    /// the same triangles) as a grid built over it now would: every vertex lies within the
    /// grid's slack of where it was then. Always false for a grid built without slack, or
    /// for a mesh with another vertex or triangle count.
    bool covers(const Mesh& mesh) const;

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

    /// True when `p` (mesh-local) is inside `mesh` (the mesh the grid was built over, or one
    /// it covers(), which must be closed): the parity of the crossings of a ray from `p` along
    /// +x, walked through the grid's row of cells (a triangle listed in several cells of the
    /// row counts once, in the first that lists it; the ray starts a hair off `p`, see the
    /// source). Outside the grid: false.
    bool inside(const Mesh& mesh, const Vec3& p) const;

private:
    Vec3 origin_{0.0f};
    float inverseCell_ = 0.0f;
    float slack_ = 0.0f;
    glm::ivec3 dims_{0};
    std::vector<std::uint32_t> start_{0u, 0u};
    std::vector<std::uint32_t> items_;
    std::vector<std::uint16_t> firstX_;  ///< per triangle: the first x cell that lists it
    std::vector<Vec3> built_;            ///< with slack: the vertices the grid was built over
    std::vector<glm::ivec3> ranges_;     ///< the build's scratch (kept with slack: a deforming mesh rebuilds)
    std::vector<std::uint32_t> fill_;
};

}  // namespace isc::bullet
