#include "BunnyPile.h"

#include "isc/mesh/MeshIo.h"

#include <cmath>
#include <random>
#include <string>

namespace isc::scenes {

Result<BunnyPile> makeBunnyPile(int bodies, std::uint32_t seed) {
    if (bodies < 1) return fail("makeBunnyPile(): " + std::to_string(bodies) + " bodies: give at least 1");
    Result<Mesh> bunny = loadBunny(0.1f);
    if (!bunny) return fail("makeBunnyPile(): " + bunny.error().message);
    BunnyPile pile;
    pile.bunny = std::make_shared<const Mesh>(std::move(*bunny));

    // A near-square grid per layer; about as many layers as the grid is wide, so piles of
    // 10..300 stay compact and the bunnies land on each other.
    const int side = std::max(2, int(std::ceil(std::cbrt(double(bodies)) * 1.2)));
    const float spacing = 1.3f, layerGap = 1.2f, jitter = 0.15f;
    const float halfY = 0.5f * pile.bunny->localBounds().extent().y;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> angle(0.0f, 6.2831853f), offset(-jitter, jitter);
    for (int i = 0; i < bodies; ++i) {
        const int layer = i / (side * side), cell = i % (side * side);
        const int gx = cell % side, gz = cell / side;
        Pose p;
        p.position = Vec3((float(gx) - 0.5f * float(side - 1)) * spacing + offset(rng),
                          0.7f + halfY + float(layer) * layerGap,
                          (float(gz) - 0.5f * float(side - 1)) * spacing + offset(rng));
        p.rotation = glm::angleAxis(angle(rng), Vec3(0.0f, 1.0f, 0.0f));
        pile.poses.push_back(p);
    }
    const float half = 0.5f * float(side) * spacing + 20.0f;
    pile.groundHalfExtents = Vec3(half, 0.5f, half);
    return pile;
}

}  // namespace isc::scenes
