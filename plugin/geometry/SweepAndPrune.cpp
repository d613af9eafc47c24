#include "isc/geometry/SweepAndPrune.h"

namespace isc::geometry {

void sweepAndPrune(std::span<const Aabb> a, std::span<const Aabb> b, std::vector<TrianglePair>& out) {
    sweepAndPruneLazyZ(a, b, out, [&](std::uint32_t i, std::uint32_t j) {
        return a[i].min.z <= b[j].max.z && b[j].min.z <= a[i].max.z;
    });
}

}  // namespace isc::geometry
