#pragma once
/// A bumpy terrain made in code: a closed slab whose top is a height field (a grid of
/// triangles over x-z), shared by the heightmap detector's tests, its bench, the particle
/// bench and `isc demo particles`. With it, bunnies placed over the terrain (falling, or
/// resting on it as a static pile). No Bullet, no GL.
#include "isc/core/Math.h"
#include "isc/core/Result.h"
#include "isc/mesh/Mesh.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace isc::scenes {

/// How the terrain is made. Units: metres, y up.
struct TerrainSettings {
    float size = 12.0f;        ///< side of the square top, centred on x = z = 0
    int cells = 96;            ///< grid cells along each side (2 triangles per cell on top)
    float amplitude = 0.18f;   ///< height of the bumps above and below y = 0
    float wavelength = 2.5f;   ///< main wavelength of the bumps
    float thickness = 1.0f;    ///< slab below the lowest point of the top
    std::uint32_t seed = 7;    ///< phases of the bump waves
};

/// The terrain mesh and its exact height function.
struct Terrain {
    std::shared_ptr<const Mesh> mesh;  ///< closed, outward-facing; placed at the identity pose
    TerrainSettings settings;
    std::vector<float> heights;        ///< (cells + 1)^2 grid heights, x-major: heights[i * (cells + 1) + j]
    /// Height of the mesh's top surface at (x, z): the piecewise-linear surface of its
    /// triangles, exactly as the mesh has it (each cell split along the diagonal from
    /// (i + 1, j) to (i, j + 1)). Outside the top square: the nearest edge's height.
    float heightAt(float x, float z) const;
    /// Largest slope of the top (rise over run) of any top triangle.
    float maxSlope() const;
};

/// Builds the terrain: the sum of three sine waves of random phase and direction
/// (amplitude split between them) sampled on the grid. Errors: cells < 2 or > 2048, size
/// or thickness not positive.
[[nodiscard]] Result<Terrain> makeTerrain(const TerrainSettings& settings = {});

/// Bunnies over a terrain: the bunny pile's layout (scenes::makeBunnyPile) lifted so that
/// every bunny's lowest vertex starts `clearance` metres above the terrain under it.
struct TerrainPile {
    Terrain terrain;
    std::shared_ptr<const Mesh> bunny;  ///< isc::loadBunny(0.1): about 0.97 m tall, centred
    std::vector<Pose> poses;            ///< one per bunny
};

/// `bodies` bunnies (layout of makeBunnyPile(bodies, seed)) above `terrain`'s settings.
[[nodiscard]] Result<TerrainPile> makeTerrainPile(int bodies, std::uint32_t seed = 1, float clearance = 0.3f,
                                                  const TerrainSettings& terrain = {});

/// A static environment to pour particles on: `bodies` bunnies on a square grid (1.15 m
/// apart, each turned about y at random and jittered by up to 0.1 m) resting on a terrain
/// made `margin` metres wider than the grid on each side (`terrain.size` is replaced; its
/// other settings are kept, cells scaled to keep the cell size): each bunny lowered until
/// its lowest vertex touches the terrain.
[[nodiscard]] Result<TerrainPile> makeBunnyField(int bodies, std::uint32_t seed = 1, float margin = 1.5f,
                                                 const TerrainSettings& terrain = {});

}  // namespace isc::scenes
