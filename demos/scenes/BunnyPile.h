#pragma once
/// The bunny-pile scene shared by `isc demo bunny-pile`, bench/integration and the tests:
/// bunnies in a loose grid of layers above a ground at y = 0. No Bullet, no GL.
#include "isc/core/Math.h"
#include "isc/core/Result.h"
#include "isc/mesh/Mesh.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace isc::scenes {

/// Where the bodies start. Units: metres, y up, ground top at y = 0.
struct BunnyPile {
    std::shared_ptr<const Mesh> bunny;  ///< isc::loadBunny(0.1): about 0.97 m tall, centred
    std::vector<Pose> poses;            ///< one per body
    Vec3 groundHalfExtents{0.0f};       ///< a box whose top face is y = 0
};

/// `bodies` bunnies in layers of a near-square grid (1.3 m apart, 1.2 m between layers,
/// the lowest 0.7 m above the ground), each turned about y by a random angle and jittered
/// by up to 0.15 m sideways, from `seed`. Errors: the bunny cannot be loaded, bodies < 1.
[[nodiscard]] Result<BunnyPile> makeBunnyPile(int bodies, std::uint32_t seed = 1);

}  // namespace isc::scenes
