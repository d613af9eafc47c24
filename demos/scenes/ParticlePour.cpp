#include "ParticlePour.h"

#include "StaticMeshBody.h"

#include "isc/bullet/RigidWorld.h"

#include <algorithm>
#include <chrono>

namespace isc::scenes {

namespace {

// Environment, domain and source from the terrain and the bunnies' poses.
ParticlePour frame(TerrainPile pile) {
    ParticlePour out;
    out.pile = std::move(pile);
    const ObjectId t = out.environment.addObject(out.environment.addMesh(out.pile.terrain.mesh));
    out.environment.setStatic(t, true);
    const MeshId bunny = out.environment.addMesh(out.pile.bunny);
    Aabb pileBox;
    for (const Pose& p : out.pile.poses) {
        out.environment.setStatic(out.environment.addObject(bunny, p), true);
        pileBox.grow(p.position);
    }
    const Aabb terrain = out.pile.terrain.mesh->localBounds();
    const float top = pileBox.isEmpty() ? terrain.max.y : std::max(terrain.max.y, pileBox.max.y + 0.5f);
    out.domain = {Vec3(terrain.min.x, terrain.min.y - 0.25f, terrain.min.z),
                  Vec3(terrain.max.x, top + 3.0f, terrain.max.z)};
    const Vec3 c = pileBox.isEmpty() ? Vec3(0.0f) : pileBox.center();
    out.source = {Vec3(c.x - 0.75f, top + 1.5f, c.z - 0.75f), Vec3(c.x + 0.75f, top + 2.5f, c.z + 0.75f)};
    return out;
}

}  // namespace

Result<ParticlePour> makeParticlePour(int bunnies, int settleSteps, std::uint32_t seed, const std::string& detector) {
    if (bunnies < 0 || settleSteps < 0)
        return fail("makeParticlePour(): bunnies and settle steps must not be negative");
    if (bunnies == 0) {
        auto terrain = makeTerrain();
        if (!terrain) return fail("makeParticlePour(): " + terrain.error().message);
        TerrainPile pile;
        pile.terrain = std::move(*terrain);
        return frame(std::move(pile));
    }
    auto pile = makeTerrainPile(bunnies, seed, 0.2f);
    if (!pile) return fail("makeParticlePour(): " + pile.error().message);
    bullet::WorldSettings ws;
    ws.detector = detector;
    auto world = bullet::RigidWorld::create(ws);
    if (!world) return fail("makeParticlePour(): " + world.error().message);
    const auto t0 = std::chrono::steady_clock::now();
    {
        StaticMeshBody terrain(**world, pile->terrain.mesh);
        for (const Pose& p : pile->poses) (*world)->addMeshBody(pile->bunny, p, 1.0f);
        for (int s = 0; s < settleSteps; ++s) (*world)->step(1.0f / 60.0f);
        if ((*world)->hasNonFinite()) return fail("makeParticlePour(): the pile's state became NaN while settling");
        for (int b = 0; b < (*world)->bodyCount(); ++b) pile->poses[std::size_t(b)] = (*world)->pose(b);
    }
    ParticlePour out = frame(std::move(*pile));
    out.settleMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

Result<ParticlePour> makeBunnyFieldPour(int bunnies, std::uint32_t seed) {
    auto field = makeBunnyField(bunnies, seed);
    if (!field) return fail("makeBunnyFieldPour(): " + field.error().message);
    return frame(std::move(*field));
}

}  // namespace isc::scenes
