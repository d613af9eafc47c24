#pragma once
/// The exact CPU reference for particles against a static mesh environment: every static
/// object's triangles in world space under one BVH. Segment casts (the first surface a
/// particle's step crosses), the inside test (ray parity), and a CPU particle step that
/// collides the same particles as isc::particles::ParticleSystem against the exact mesh (all
/// cores, OpenMP): the benchmark's reference and the tests' oracle. No GL.
#include "isc/core/Math.h"
#include "isc/geometry/Bvh.h"
#include "isc/particles/ParticleSystem.h"

#include <cstdint>
#include <span>
#include <vector>

namespace isc::particles {

class ExactEnvironment {
public:
    /// The static objects of `scene` (Scene::isStatic; active, finite pose), as
    /// ParticleSystem::setEnvironment takes them.
    static ExactEnvironment build(const Scene& scene);

    struct Hit {
        double t = 0.0;          ///< along the segment, 0..1
        Vec3 normal{0.0f};       ///< unit, the triangle's (outward for outward-facing meshes)
        std::uint32_t triangle = 0;
    };
    /// The first triangle the segment from `from` to `to` meets (double precision tests).
    bool firstHit(const Vec3& from, const Vec3& to, Hit& hit) const;
    /// True when `p` is inside one of the environment's objects (closed meshes): per object,
    /// the parity of the crossings of three rays in fixed, unrelated directions, by majority
    /// (a ray through an edge counts it twice; two rays rarely both do). Objects may overlap.
    bool inside(const Vec3& p) const;
    std::size_t triangleCount() const { return triangles_.size(); }
    const Aabb& bounds() const { return bounds_; }

private:
    void crossings(const DVec3& origin, const DVec3& direction, std::vector<std::uint32_t>& perObject) const;
    std::vector<Vec3> vertices_;
    std::vector<UVec3> triangles_;
    std::vector<std::uint32_t> objectOf_;  // per triangle: index among the environment's objects
    std::uint32_t objectCount_ = 0;
    geometry::Bvh bvh_;
    Aabb bounds_;
};

/// What one CPU step did.
struct CpuStepStats {
    std::size_t collisions = 0;
    std::size_t nanRemoved = 0;
    std::size_t leftDomain = 0;
};

/// One step of the particles on the CPU against the exact mesh (the same integration,
/// removal rules and response as the GPU step): the segment from the old to the new
/// position is cast through the BVH; at the first surface it crosses the particle stops
/// just before it (the same clearance as the GPU's) and bounces off the triangle's normal
/// with the settings' restitution and friction. Parallel over particles (OpenMP).
CpuStepStats stepOnCpu(std::span<Vec4> positions, std::span<Vec4> velocities, const ExactEnvironment& environment,
                       const ParticleSettings& settings, float dt);

}  // namespace isc::particles
