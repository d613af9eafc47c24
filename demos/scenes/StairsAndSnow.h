#pragma once
/// The scenes of the CInDeR paper's demos (papers/000 section 5), shared by `isc demo stairs`,
/// `isc demo snow-bunny`, bench/gpu/cinder.sh and the tests. No Bullet, no GL. Units: metres,
/// y up, ground top at y = 0.
#include "isc/core/Math.h"
#include "isc/core/Result.h"
#include "isc/mesh/Mesh.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace isc::scenes {

/// Static scenery plus dynamic bodies: every piece a closed mesh.
struct MeshScene {
    std::vector<std::shared_ptr<const Mesh>> staticMeshes;  ///< one per static piece
    std::vector<Pose> staticPoses;
    std::vector<std::shared_ptr<const Mesh>> bodyMeshes;  ///< one per body
    std::vector<Pose> bodyPoses;
    Vec3 bodyVelocity{0.0f};        ///< every body's initial linear velocity, m/s
    Vec3 groundHalfExtents{0.0f};   ///< a box whose top face is y = 0
};

/// The staircase: 8 steps (closed boxes 0.6 m deep, 0.3 m high, 3 m wide) descending along +x
/// from 2.4 m, and `bodies` boxes and spheres (0.15 m half-size, alternating) dropped over the
/// top step in a jittered column from `seed`, pushed along +x at 1.5 m/s so that they tumble
/// down. Errors: bodies < 1.
[[nodiscard]] Result<MeshScene> makeStairs(int bodies, std::uint32_t seed = 1);

/// Snow on a bunny: a static bunny 1.94 m tall (isc::loadBunny(0.2)) standing on the ground and
/// `bodies` small spheres (0.04 m radius, 48 triangles) in a jittered lattice 0.12 m apart over
/// 3 m x 3 m (the cells nearest the bunny's axis first), in layers from just above the bunny's
/// top upwards, from `seed`. Errors: the bunny cannot be
/// loaded, bodies < 1.
[[nodiscard]] Result<MeshScene> makeSnowBunny(int bodies, std::uint32_t seed = 1);

}  // namespace isc::scenes
