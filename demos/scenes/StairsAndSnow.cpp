#include "StairsAndSnow.h"

#include "isc/mesh/MeshIo.h"
#include "isc/mesh/Shapes.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

namespace isc::scenes {

Result<MeshScene> makeStairs(int bodies, std::uint32_t seed) {
    if (bodies < 1) return fail("makeStairs(): " + std::to_string(bodies) + " bodies: give at least 1");
    MeshScene s;
    const int steps = 8;
    const float depth = 0.6f, rise = 0.3f, width = 3.0f;
    for (int i = 0; i < steps; ++i) {
        const float top = rise * float(steps - i);
        s.staticMeshes.push_back(std::make_shared<const Mesh>(shapes::box(Vec3(0.5f * depth, 0.5f * top, 0.5f * width))));
        s.staticPoses.push_back({Vec3(float(i) * depth, 0.5f * top, 0.0f), Quat(1.0f, 0.0f, 0.0f, 0.0f)});
    }
    auto box = std::make_shared<const Mesh>(shapes::box(Vec3(0.15f)));
    auto sphere = std::make_shared<const Mesh>(shapes::uvSphere(0.15f, 16, 8));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> jitter(-1.0f, 1.0f), angle(0.0f, 6.2831853f);
    const float top = rise * float(steps);
    for (int i = 0; i < bodies; ++i) {
        s.bodyMeshes.push_back(i % 2 == 0 ? box : sphere);
        const Vec3 axis = glm::normalize(Vec3(jitter(rng), jitter(rng), jitter(rng)) + Vec3(0.0f, 0.0f, 1e-3f));
        s.bodyPoses.push_back({Vec3(0.1f * jitter(rng), top + 0.4f + 0.45f * float(i), 1.1f * jitter(rng)),
                               glm::angleAxis(angle(rng), axis)});
    }
    s.bodyVelocity = Vec3(1.5f, 0.0f, 0.0f);
    s.groundHalfExtents = Vec3(20.0f, 0.5f, 20.0f);
    return s;
}

Result<MeshScene> makeSnowBunny(int bodies, std::uint32_t seed) {
    if (bodies < 1) return fail("makeSnowBunny(): " + std::to_string(bodies) + " bodies: give at least 1");
    Result<Mesh> bunny = loadBunny(0.2f);
    if (!bunny) return fail("makeSnowBunny(): " + bunny.error().message);
    MeshScene s;
    const Aabb box = bunny->localBounds();
    const float height = box.max.y - box.min.y;
    s.staticMeshes.push_back(std::make_shared<const Mesh>(std::move(*bunny)));
    s.staticPoses.push_back({Vec3(0.0f, -box.min.y, 0.0f), Quat(1.0f, 0.0f, 0.0f, 0.0f)});
    auto flake = std::make_shared<const Mesh>(shapes::uvSphere(0.04f, 8, 4));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> jitter(-0.02f, 0.02f), angle(0.0f, 6.2831853f);
    // 25 x 25 cells per layer, 0.12 m apart (3 m across), nearest the bunny's axis first: a
    // small count falls on the bunny, a large one also around it.
    const int side = 25;
    const float spacing = 0.12f;
    std::vector<Vec3> cells;
    for (int z = 0; z < side; ++z)
        for (int x = 0; x < side; ++x)
            cells.emplace_back((float(x) - 0.5f * float(side - 1)) * spacing, 0.0f, (float(z) - 0.5f * float(side - 1)) * spacing);
    std::stable_sort(cells.begin(), cells.end(), [](const Vec3& a, const Vec3& b) {
        return a.x * a.x + a.z * a.z < b.x * b.x + b.z * b.z;
    });
    for (int i = 0; i < bodies; ++i) {
        const int layer = i / (side * side), cell = i % (side * side);
        s.bodyMeshes.push_back(flake);
        s.bodyPoses.push_back({cells[std::size_t(cell)] + Vec3(jitter(rng), height + 0.15f + float(layer) * spacing + jitter(rng), jitter(rng)),
                               glm::angleAxis(angle(rng), Vec3(0.0f, 1.0f, 0.0f))});
    }
    s.groundHalfExtents = Vec3(20.0f, 0.5f, 20.0f);
    return s;
}

}  // namespace isc::scenes
