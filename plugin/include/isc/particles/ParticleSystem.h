#pragma once
/// Particles on the GPU colliding with a static mesh environment through shared height maps:
/// Fabrizio, "Easy Real-Time Collision Detection" (papers/002), section 2 "Particle system":
/// the environment's height map Se computed once per direction and shared by every particle
/// (no per-particle geometry), up to the six directions of a cube, with the normals stored
/// beside it for the bounce. Positions and velocities live in two storage buffers and are
/// integrated in a compute shader; nothing comes back to the CPU unless asked
/// (readParticles, readStats). A Bullet app keeps one beside its world: docs/particles.md.
///
/// Where it departs from the paper (docs/particles.md has why):
/// - The maps are orthographic, one per axis direction, over a fixed domain box (the paper
///   renders them from the particles' centroid): a particle is free when it lies in front
///   of the environment's first surface along at least one direction.
/// - They are conservative: rasterised in compute, each pixel keeps a lower bound of the
///   depth of every triangle meeting the pixel's square (not the depth at the pixel centre),
///   so a particle the maps call free is outside the environment: no particle is left inside.
/// - A particle the maps call inside is pushed back along the map it came from (the least
///   push), to just in front of that map's depth; restitution and Coulomb friction along the
///   stored normal.
#include "isc/core/Math.h"
#include "isc/core/Result.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace isc {
class Scene;
namespace gl {
class Buffer;
}
}  // namespace isc

namespace isc::particles {

/// How a ParticleSystem is made. World units (metres), seconds.
struct ParticleSettings {
    /// Largest number of particles ever emitted (removed ones keep their slot). Each takes 32
    /// bytes of GPU memory in two buffers of 16 bytes a particle; each buffer must fit the
    /// driver's GL_MAX_SHADER_STORAGE_BLOCK_SIZE (create() says the limit when it does not).
    std::size_t capacity = std::size_t(1) << 20;
    /// Where particles live and where the maps look; a particle leaving it is removed.
    Aabb domain{Vec3(-10.0f, -1.0f, -10.0f), Vec3(10.0f, 10.0f, 10.0f)};
    int resolution = 1024;  ///< map pixels along the domain's longest side, 16..8192
    /// 1: one map, along gravity (the paper's single shared map: only the environment's
    /// top surface as seen from above stops particles; they never get under an overhang);
    /// 6: the cube's six directions.
    int directions = 6;
    Vec3 gravity{0.0f, -9.81f, 0.0f};  ///< m/s^2; its largest axis is the first map's direction
    float restitution = 0.2f;          ///< normal speed kept after a bounce, 0..1
    float friction = 0.4f;             ///< Coulomb coefficient along the surface, >= 0
    /// Clearance kept from the environment's surfaces (a particle's radius); at least 1e-5 of
    /// the domain's longest side is kept in any case.
    float radius = 0.0f;
};

/// Counters since creation (readStats() reads them from the GPU).
struct ParticleStats {
    std::uint64_t emitted = 0;          ///< particles emitted (slots used)
    std::uint64_t nanRemoved = 0;       ///< removed because their position or velocity became NaN or Inf
    std::uint64_t leftDomain = 0;       ///< removed because they left the domain
    std::uint64_t lastCollisions = 0;   ///< collisions resolved in the last step
    std::uint64_t alive() const { return emitted - nanRemoved - leftDomain; }
};

/// What setEnvironment() found and did.
struct EnvironmentUpdate {
    bool refreshed = false;         ///< the maps were rasterised again (the environment changed)
    std::size_t objects = 0;        ///< static objects in the environment
    std::size_t triangles = 0;      ///< their triangles
    std::size_t largeTriangles = 0; ///< (triangle, map) pairs covering more than 256 pixels (a work group each)
    double gpuMs = 0.0;             ///< GPU time of the refresh (0 when not refreshed)
};

/// The particle system. Every member needs the GL 4.5 context that was current at creation.
/// Move-only.
class ParticleSystem {
public:
    /// Checks the settings (domain not empty, resolution 16..8192, directions 1 or 6,
    /// restitution in [0, 1], friction >= 0, radius >= 0, finite gravity, capacity within
    /// the driver's storage-buffer limit) and makes the buffers and programs.
    [[nodiscard]] static Result<ParticleSystem> create(const ParticleSettings& settings);
    /// Most particles this driver can hold: GL_MAX_SHADER_STORAGE_BLOCK_SIZE / 16.
    static std::size_t maxCapacity();

    ParticleSystem(ParticleSystem&&) noexcept;
    ParticleSystem& operator=(ParticleSystem&&) noexcept;
    ParticleSystem(const ParticleSystem&) = delete;
    ParticleSystem& operator=(const ParticleSystem&) = delete;
    ~ParticleSystem();

    /// The environment: the static objects of `scene` (Scene::isStatic; active, finite
    /// pose). The maps are rasterised again only when the set of objects, a pose, a mesh or
    /// deformed vertices changed since the last call (a static body moved): call it every
    /// frame, it costs a comparison otherwise. Errors: GL failures.
    [[nodiscard]] Result<EnvironmentUpdate> setEnvironment(const Scene& scene);
    /// Appends particles (positions, velocities the same length). Error when the capacity
    /// would be exceeded (nothing is emitted then) or the lengths differ. Non-finite values
    /// are accepted: such particles are removed (and counted) by the next step.
    [[nodiscard]] Result<void> emit(std::span<const Vec3> positions, std::span<const Vec3> velocities);
    /// Appends `count` particles on the GPU: positions uniform in `box`, velocities
    /// `velocity` + `jitter` x (a point uniform in the unit ball), from `seed`. Same errors.
    [[nodiscard]] Result<void> emitBox(std::size_t count, const Aabb& box, Vec3 velocity, float jitter,
                                       std::uint32_t seed);
    /// Advances every particle by `dt` seconds (> 0) on the GPU; does not wait for it.
    [[nodiscard]] Result<void> step(float dt);
    /// Reads particles back (waits for the GPU): xyz, and w = 1 alive, 0 removed. Either
    /// pointer may be null. One entry per emitted particle.
    [[nodiscard]] Result<void> readParticles(std::vector<Vec4>* positions, std::vector<Vec4>* velocities) const;
    /// Reads the counters (waits for the GPU).
    [[nodiscard]] Result<ParticleStats> readStats() const;
    /// GPU time of the last step() (GL_TIMESTAMP queries; waits for them), milliseconds.
    double lastStepGpuMs() const;

    std::size_t size() const;      ///< particles emitted
    std::size_t capacity() const;
    const ParticleSettings& settings() const;
    /// The positions buffer (vec4 per particle, w = 1 alive) for drawing: size() entries.
    const gl::Buffer& positionBuffer() const;
    /// Map pixel size, world units (the environment's resolution).
    float pixelSize() const;

    struct Impl;

private:
    explicit ParticleSystem(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace isc::particles
