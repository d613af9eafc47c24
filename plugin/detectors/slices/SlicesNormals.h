#pragma once
// The slices detector's offset directions (papers/004 §3.1.1, offset surfaces): one vec4 per
// GpuScene vertex, in the object's local frame: the area-weighted vertex normal divided by
// the least cosine between it and the normals of the vertex's faces (at most 4), so that
// moving the vertex by `offset` along it moves every face plane by at least `offset`.
// Meshes are done once; deformed objects whenever their vertices change. Private to
// plugin/detectors/slices.
#include "isc/core/Math.h"

#include <cstdint>
#include <vector>

namespace isc {
class Scene;
namespace gl {
class GpuScene;
}
}  // namespace isc

namespace isc::detail {

class SlicesNormals {
public:
    /// Brings the directions up to date with `gpu` (synced from `scene`). True when any changed.
    bool update(const Scene& scene, const gl::GpuScene& gpu);
    const std::vector<Vec4>& data() const { return data_; }

private:
    std::vector<Vec4> data_;
    std::vector<char> done_;                 // per vertex: the first vertex of a range already done
    std::vector<std::uint64_t> versionOf_;  // per object: the deformed vertices' version done (+1)
};

}  // namespace isc::detail
