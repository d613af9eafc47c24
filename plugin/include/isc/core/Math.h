#pragma once
/// Vector types (glm) and the two small value types every layer shares: Pose and Aabb.
#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include <cmath>
#include <cstdint>

namespace isc {

using Vec2 = glm::vec2;
using Vec3 = glm::vec3;
using Vec4 = glm::vec4;
using DVec3 = glm::dvec3;
using Quat = glm::quat;
using Mat3 = glm::mat3;
using Mat4 = glm::mat4;
using UVec3 = glm::uvec3;

/// Rigid pose: world = rotation * local + position. World units; `rotation` a unit quaternion.
struct Pose {
    Vec3 position{0.0f};
    Quat rotation{1.0f, 0.0f, 0.0f, 0.0f};

    /// Local point to world.
    Vec3 apply(const Vec3& local) const { return rotation * local + position; }
    /// Local point to world, computed in double (for the exact reference).
    DVec3 applyDouble(const Vec3& local) const {
        const glm::dquat q(rotation.w, rotation.x, rotation.y, rotation.z);
        return q * DVec3(local) + DVec3(position);
    }
    /// Column-major 4x4 matrix (for shaders).
    Mat4 matrix() const {
        Mat4 m = glm::mat4_cast(rotation);
        m[3] = Vec4(position, 1.0f);
        return m;
    }
    /// True when every component is finite (no NaN, no Inf).
    bool isFinite() const {
        return std::isfinite(position.x) && std::isfinite(position.y) &&
               std::isfinite(position.z) && std::isfinite(rotation.w) &&
               std::isfinite(rotation.x) && std::isfinite(rotation.y) && std::isfinite(rotation.z);
    }
};

/// Axis-aligned box. Empty when min > max on any axis (the default).
struct Aabb {
    Vec3 min{INFINITY};
    Vec3 max{-INFINITY};

    bool isEmpty() const { return min.x > max.x || min.y > max.y || min.z > max.z; }
    void grow(const Vec3& p) {
        min = glm::min(min, p);
        max = glm::max(max, p);
    }
    void grow(const Aabb& b) {
        min = glm::min(min, b.min);
        max = glm::max(max, b.max);
    }
    bool overlaps(const Aabb& b) const {
        return min.x <= b.max.x && b.min.x <= max.x && min.y <= b.max.y && b.min.y <= max.y &&
               min.z <= b.max.z && b.min.z <= max.z;
    }
    Aabb intersection(const Aabb& b) const { return {glm::max(min, b.min), glm::min(max, b.max)}; }
    Aabb expanded(float margin) const { return {min - Vec3(margin), max + Vec3(margin)}; }
    Vec3 center() const { return 0.5f * (min + max); }
    Vec3 extent() const { return max - min; }
};

}  // namespace isc
