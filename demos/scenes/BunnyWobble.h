#pragma once
/// A deforming mesh for demos, benchmarks and tests: every vertex of a body moves each step by
/// a smooth wobble (a few travelling sine waves over the mesh, a phase per body), so a
/// detector that keeps a BVH must refit it every call and a GPU detector must upload the
/// vertices. The mesh stays closed (same triangles); the displacement is at most
/// `amplitude` per axis and varies slowly over the surface (wavelength about the mesh's
/// size), so no triangle folds. No GL, no Bullet.
#include "isc/core/Math.h"
#include "isc/mesh/Mesh.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace isc::scenes {

class BunnyWobble {
public:
    /// `mesh`: the rest shape (local frame). `amplitude`: largest displacement per axis as a
    /// fraction of the mesh's largest extent (default 2 %). `period`: seconds per wobble.
    explicit BunnyWobble(std::shared_ptr<const Mesh> mesh, float amplitude = 0.02f, float period = 1.0f);

    /// Local vertices of body `body` at time `t` (seconds), as many as the mesh has, into `out`.
    void vertices(std::uint32_t body, float t, std::vector<Vec3>& out) const;

    const Mesh& mesh() const { return *mesh_; }
    /// Largest displacement per axis (local units).
    float amplitude() const { return amplitude_; }

private:
    std::shared_ptr<const Mesh> mesh_;
    float amplitude_;
    float omega_;
    float waveNumber_;
};

}  // namespace isc::scenes
