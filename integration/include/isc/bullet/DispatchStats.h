#pragma once
/// What one CollisionDispatcher::dispatchAllCollisionPairs call did, for demos and benches.
#include <cstddef>

namespace isc::bullet {

/// Timings (milliseconds, wall clock) and counts of one step's collision dispatch.
struct DispatchStats {
    double totalMs = 0.0;     ///< the whole dispatchAllCollisionPairs call
    double mirrorMs = 0.0;    ///< walking the pairs, mirroring bodies into the isc::Scene
    double detectMs = 0.0;    ///< the detector's detect() calls (with a broadphase pruning in its team, CullideBroadphaseSettings::inTeam, the pruning too)
    double contactsMs = 0.0;  ///< patch contacts, their reduction and manifold updates
    double bulletMs = 0.0;    ///< non-mesh pairs through Bullet's own near callback
    double fallbackMs = 0.0;  ///< the exact `cpu` detector on the pairs the detector could not serve
    std::size_t meshPairs = 0;       ///< body pairs sent to the detector
    std::size_t collidingPairs = 0;  ///< body pairs the detector reported
    std::size_t trianglePairs = 0;   ///< triangle pairs the detector reported
    /// Mesh pairs (scene object pairs) the chosen detector could not serve, detected by the
    /// exact `cpu` detector instead: an open mesh given to a detector that needs closed ones,
    /// the pairs it returned in DetectionOutput::unserved (id overflow, buffer limits), all of
    /// its pairs when its detect() failed. Each reason is named once in a warning.
    std::size_t fallbackPairs = 0;
    /// Mesh pairs whose contacts came from the detector's contact samples (not a patch walk).
    std::size_t samplePairs = 0;
    std::size_t candidates = 0;      ///< vertex-face contacts found before the 4-point reduction
    std::size_t contactsAdded = 0;   ///< points given to btManifoldResult::addContactPoint
};

}  // namespace isc::bullet
