#pragma once
// The heightmap detector's view of the environment on the CPU: per static object, a BVH over
// its world-space triangles, rebuilt only when the object's pose, mesh or vertices change
// (the environment is static, so usually never). It culls the triangles each view draws.
#include "isc/geometry/Bvh.h"
#include "isc/scene/Scene.h"

#include <cstdint>
#include <vector>

namespace isc::detail {

class StaticEnvironment {
public:
    /// Brings object `o`'s entry up to date; true when its BVH was (re)built.
    bool update(const Scene& scene, ObjectId o);
    /// World bounds of object `o` (after update()).
    const Aabb& bounds(ObjectId o) const { return entries_[o].bounds; }
    /// Appends the mesh triangle indices of object `o` whose world boxes overlap `box`.
    void query(ObjectId o, const Aabb& box, std::vector<std::uint32_t>& out) const;

private:
    struct Entry {
        const Mesh* mesh = nullptr;
        Pose pose;
        std::uint64_t version = UINT64_MAX;
        geometry::Bvh bvh;  // over world-space vertices
        Aabb bounds;
    };
    std::vector<Entry> entries_;
};

}  // namespace isc::detail
