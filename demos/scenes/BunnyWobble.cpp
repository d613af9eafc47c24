#include "BunnyWobble.h"

#include "isc/core/Assert.h"

#include <algorithm>
#include <cmath>

namespace isc::scenes {

BunnyWobble::BunnyWobble(std::shared_ptr<const Mesh> mesh, float amplitude, float period) : mesh_(std::move(mesh)) {
    ISC_ASSERT(mesh_ != nullptr, "BunnyWobble::BunnyWobble(): no mesh");
    const Vec3 e = mesh_->localBounds().extent();
    const float size = std::max(e.x, std::max(e.y, e.z));
    amplitude_ = amplitude * size;
    omega_ = 6.2831853f / std::max(period, 1e-6f);
    waveNumber_ = 6.2831853f / std::max(size, 1e-20f);  // one wavelength across the mesh
}

void BunnyWobble::vertices(std::uint32_t body, float t, std::vector<Vec3>& out) const {
    const std::span<const Vec3> rest = mesh_->vertices();
    out.resize(rest.size());
    // A phase per body (golden-ratio steps), so neighbours do not move in lockstep.
    const float phase = 2.3999632f * float(body);
    const float wt = omega_ * t + phase;
    const float k = waveNumber_;
    for (std::size_t i = 0; i < rest.size(); ++i) {
        const Vec3 v = rest[i];
        out[i] = v + amplitude_ * Vec3(std::sin(wt + k * v.y), std::sin(1.3f * wt + k * v.z), std::sin(0.7f * wt + k * v.x));
    }
}

}  // namespace isc::scenes
