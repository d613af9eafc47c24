#pragma once
/// Penetration of the bodies of a Bullet world, measured from their poses alone with the
/// exact reference (isc/geometry/Penetration.h: the deepest vertex of either surface inside
/// the other body, as its distance to that body's surface). It reads no manifold and no
/// detector output, so it measures every detector, and stock Bullet GImpact, the same way:
/// a detector that misses a contact shows *more* penetration here, never less.
///
/// Shapes measured: btGImpactMeshShape, btBvhTriangleMeshShape (any btTriangleMeshShape),
/// btConvexTriangleMeshShape and btBoxShape, by their real triangles (no collision margin).
/// Other shapes (spheres, compounds, ...) are left out and counted in
/// PenetrationReport::skippedObjects. Pairs of two static or kinematic objects are not measured.
#include "isc/core/Math.h"

#include <cstddef>
#include <memory>
#include <vector>

class btCollisionObject;
class btCollisionWorld;

namespace isc::bullet {

/// What one PenetrationProbe::measure() found.
struct PenetrationReport {
    double maxDepth = 0.0;  ///< metres, the deepest pair's depth (0: nothing in anything)
    const btCollisionObject* deepestA = nullptr;  ///< the deepest pair (null when maxDepth is 0)
    const btCollisionObject* deepestB = nullptr;
    Vec3 deepestPoint{0.0f};          ///< its deepest vertex, world space
    std::size_t pairsTested = 0;      ///< object pairs whose bounding boxes overlap
    std::size_t pairsPenetrating = 0; ///< of them, with a vertex inside the other
    std::size_t skippedObjects = 0;   ///< objects whose shape is not measured
    double ms = 0.0;                  ///< wall time of the measurement
};

class PenetrationProbe {
public:
    PenetrationProbe();
    ~PenetrationProbe();
    PenetrationProbe(const PenetrationProbe&) = delete;
    PenetrationProbe& operator=(const PenetrationProbe&) = delete;

    /// Measures every pair of objects of `world` (see the file comment) whose bounding boxes
    /// overlap, in parallel (OpenMP). Meshes are read once per shape and kept.
    PenetrationReport measure(const btCollisionWorld& world);
    /// Per object of world.getCollisionObjectArray(), in its order: the least
    /// geometry::clearance() to any other measured object (negative: into it by that much),
    /// at most `limit` metres (> 0); NaN for an object that is not measured.
    std::vector<double> clearances(const btCollisionWorld& world, double limit);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace isc::bullet
