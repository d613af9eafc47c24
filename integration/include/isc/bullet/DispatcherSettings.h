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
    /// Registry name given to isc::createDetector ("cpu", "peel", ...). A GL detector needs
    /// a current GL context when the dispatcher is constructed and on every step, on the
    /// thread that calls stepSimulation.
    std::string detector = "cpu";
    /// Options passed to the detector. Segments are not needed (contacts come from the
    /// triangles), so the dispatcher turns `wantSegments` off unless `validate` is set.
    DetectorSettings detectorSettings{};
    /// Default collision margin of a mesh body, metres (Bullet's convex default, 0.04).
    /// Two bodies get contacts while their surfaces are closer than the mean of their
    /// margins; each mesh is detected swollen by half its margin (an offset surface).
    /// Per body: CollisionDispatcher::setMargin.
    float margin = 0.04f;
    /// Deepest penetration one triangle pair may report, metres. Face-normal clipping of two
    /// facing triangles on opposite sides of a body (a box's left face against the other
    /// box's right face) reads depths of the body's size; those are dropped. Deeper real
    /// penetrations still get contacts from the triangles nearer the surface.
    float maxTriangleDepth = 0.1f;
    /// Where warnings go (each said once per body or once per kind). Empty: stderr.
    std::function<void(std::string_view)> onWarning;
};

}  // namespace isc::bullet
