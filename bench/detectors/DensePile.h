#pragma once
// The dense bunny pile of the detector benches (isc_bench_peel, _cullide, _cinder, _slices,
// _peel_exact): `bodies` copies of `mesh` in a cube of layers 0.9 m apart, jittered by up to
// 5 cm and turned at random, from a fixed seed, so that every bench's "pile/100" is the same
// scene on the same poses and their figures compare.
#include "isc/scene/Scene.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>

namespace isc::bench {

inline Scene densePile(std::shared_ptr<const Mesh> mesh, int bodies) {
    Scene scene;
    const MeshId id = scene.addMesh(std::move(mesh));
    const int side = std::max(2, int(std::ceil(std::cbrt(double(bodies)))));
    const float spacing = 0.90f, layerGap = 0.90f, jitter = 0.05f;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (int i = 0; i < bodies; ++i) {
        const int layer = i / (side * side), cell = i % (side * side);
        Pose p;
        p.position = Vec3(float(cell % side) * spacing + jitter * u(rng), float(layer) * layerGap + jitter * u(rng),
                          float(cell / side) * spacing + jitter * u(rng));
        p.rotation = glm::normalize(Quat(u(rng), u(rng), u(rng), u(rng)));
        scene.addObject(id, p);
    }
    return scene;
}

}  // namespace isc::bench
