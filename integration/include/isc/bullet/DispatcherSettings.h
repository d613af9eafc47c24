#pragma once
/// Settings of isc::bullet::CollisionDispatcher. No Bullet types here, so a scene file can
/// build them without Bullet's headers.
#include "isc/detect/Detector.h"

#include <functional>
#include <string>
#include <string_view>

namespace isc::bullet {

/// How the dispatcher detects mesh–mesh pairs and turns what it finds into contacts.
struct DispatcherSettings {
    /// Registry name given to isc::createDetector ("cpu", "peel", ...), or "auto" (the
    /// default): the fastest exact detector for the current GL, chosen by a short measured
    /// warm-up on the first steps with pairs (cpu where GL is software or absent;
    /// isc/detect/AutoDetector.h). A GL detector needs a current GL context when the
    /// dispatcher is constructed and on every step, on the thread that calls stepSimulation.
    std::string detector = "auto";
    /// Options passed to the detector. Segments are not needed (contacts come from the
    /// triangles), so the dispatcher turns `wantSegments` off unless `validate` is set.
    DetectorSettings detectorSettings{};
    /// Default collision margin of a mesh body, metres (Bullet's convex default, 0.04).
    /// Two bodies get contacts while their surfaces are closer than the mean of their
    /// margins; each mesh is detected swollen by half its margin (an offset surface).
    /// Per body: CollisionDispatcher::setMargin.
    float margin = 0.04f;
    /// Deepest vertex-face contact, metres: a vertex further behind a face is not read as
    /// touching it (it is more likely near another part of the body). Half of it is also
    /// the least reach of each mesh's triangle grid. Deeper real penetrations still get
    /// contacts from the vertices nearer the surface.
    float maxTriangleDepth = 0.1f;
    /// Where warnings go (each said once per body or once per kind). Empty: stderr.
    std::function<void(std::string_view)> onWarning;
};

}  // namespace isc::bullet
