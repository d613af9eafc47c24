#pragma once
/// Ids and small result records shared by the reference, the detectors and the integration.
#include "isc/core/Math.h"

#include <compare>
#include <cstdint>

namespace isc {

using MeshId = std::uint32_t;    ///< index of a mesh in a Scene
using ObjectId = std::uint32_t;  ///< index of an object (a posed mesh) in a Scene

/// Two objects, a < b (a == b means self-collision of one object).
struct ObjectPair {
    ObjectId a = 0;
    ObjectId b = 0;
    auto operator<=>(const ObjectPair&) const = default;
};

/// Two triangles: `a` indexes the first object's mesh triangles, `b` the second's.
struct TrianglePair {
    std::uint32_t a = 0;
    std::uint32_t b = 0;
    auto operator<=>(const TrianglePair&) const = default;
};

/// Intersection segment of two triangles, world space.
struct Segment {
    Vec3 p0{0.0f};
    Vec3 p1{0.0f};
};

/// A contact sample as Bullet wants it: the point lies on B, the normal (unit) points
/// from B toward A, `depth` is the signed distance (negative: penetration), world space.
struct ContactSample {
    Vec3 pointOnB{0.0f};
    Vec3 normalOnB{0.0f, 1.0f, 0.0f};
    float depth = 0.0f;
    std::uint32_t triangleA = UINT32_MAX;  ///< triangle of A, or UINT32_MAX when unknown
    std::uint32_t triangleB = UINT32_MAX;  ///< triangle of B, or UINT32_MAX when unknown
};

}  // namespace isc
