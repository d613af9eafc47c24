#pragma once
/// The particle pour scene shared by `isc demo particles`, bench/particles and the tests: a
/// bunny pile settled on the bumpy terrain by a Bullet world (isc::bullet::RigidWorld), then
/// frozen into a static environment (terrain + bunnies, Scene::isStatic), the domain the
/// particles live in and the box they are poured from. Units: metres, y up.
#include "Terrain.h"

#include "isc/core/Result.h"
#include "isc/scene/Scene.h"

#include <cstdint>
#include <string>

namespace isc::scenes {

struct ParticlePour {
    Scene environment;            ///< object 0 the terrain, then the bunnies; all static
    TerrainPile pile;             ///< the meshes, and the bunnies' settled poses
    Aabb domain;                  ///< where particles live: over the terrain, up to 3 m over the pile
    Aabb source;                  ///< where they are poured from: a 1.5 m square over the pile's middle
    double settleMs = 0.0;        ///< wall time of the Bullet settling
};

/// Drops `bunnies` bunnies on the terrain (makeTerrainPile(bunnies, seed)) and steps a
/// RigidWorld with `detector` (a registry name; a GL detector needs a current context)
/// `settleSteps` steps of 1/60 s; then freezes them. bunnies = 0: the terrain alone.
[[nodiscard]] Result<ParticlePour> makeParticlePour(int bunnies, int settleSteps, std::uint32_t seed = 1,
                                                    const std::string& detector = "cpu");

/// The same environment without Bullet: `bunnies` bunnies resting on the terrain on a grid
/// (makeBunnyField) — the benchmark's fixed environment (100 bunnies: the 100-bunny scene).
[[nodiscard]] Result<ParticlePour> makeBunnyFieldPour(int bunnies, std::uint32_t seed = 1);

}  // namespace isc::scenes
