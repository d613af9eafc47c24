#pragma once
/// What one CollisionDispatcher::dispatchAllCollisionPairs call did, for demos and benches.
#include <cstddef>

namespace isc::bullet {

/// Timings (milliseconds, wall clock) and counts of one step's collision dispatch.
struct DispatchStats {
    double totalMs = 0.0;     ///< the whole dispatchAllCollisionPairs call
    double mirrorMs = 0.0;    ///< walking the pairs, mirroring bodies into the isc::Scene
    double detectMs = 0.0;    ///< the detector's detect() call (the one batch)
    double contactsMs = 0.0;  ///< patch contacts, their reduction and manifold updates
    double bulletMs = 0.0;    ///< non-mesh pairs through Bullet's own near callback
    std::size_t meshPairs = 0;       ///< body pairs sent to the detector
    std::size_t collidingPairs = 0;  ///< body pairs the detector reported
    std::size_t trianglePairs = 0;   ///< triangle pairs the detector reported
    std::size_t candidates = 0;      ///< vertex-face contacts found before the 4-point reduction
    std::size_t contactsAdded = 0;   ///< points given to btManifoldResult::addContactPoint
};

}  // namespace isc::bullet
