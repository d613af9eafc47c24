#include "Terrain.h"

#include "BunnyPile.h"

#include "isc/mesh/MeshIo.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <string>

namespace isc::scenes {

namespace {

// Adds triangle (a, b, c) turned so that its normal points along `outward`.
void addFacing(std::vector<UVec3>& tris, const std::vector<Vec3>& v, std::uint32_t a, std::uint32_t b,
               std::uint32_t c, Vec3 outward) {
    const Vec3 n = glm::cross(v[b] - v[a], v[c] - v[a]);
    if (glm::dot(n, outward) >= 0.0f) tris.push_back({a, b, c});
    else tris.push_back({a, c, b});
}

}  // namespace

float Terrain::heightAt(float x, float z) const {
    const int n = settings.cells;
    const float half = 0.5f * settings.size, cell = settings.size / float(n);
    const float fx = std::clamp((x + half) / cell, 0.0f, float(n)), fz = std::clamp((z + half) / cell, 0.0f, float(n));
    const int i = std::min(int(fx), n - 1), j = std::min(int(fz), n - 1);
    const float u = fx - float(i), w = fz - float(j);
    auto h = [&](int a, int b) { return heights[std::size_t(a) * std::size_t(n + 1) + std::size_t(b)]; };
    if (u + w <= 1.0f) return h(i, j) + u * (h(i + 1, j) - h(i, j)) + w * (h(i, j + 1) - h(i, j));
    return h(i + 1, j + 1) + (1.0f - u) * (h(i, j + 1) - h(i + 1, j + 1)) + (1.0f - w) * (h(i + 1, j) - h(i + 1, j + 1));
}

float Terrain::maxSlope() const {
    const int n = settings.cells;
    const float cell = settings.size / float(n);
    auto h = [&](int a, int b) { return heights[std::size_t(a) * std::size_t(n + 1) + std::size_t(b)]; };
    float s = 0.0f;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            // Lower triangle: gradient (h10 - h00, h01 - h00) / cell; upper: (h11 - h01, h11 - h10) / cell.
            const float g0 = std::hypot(h(i + 1, j) - h(i, j), h(i, j + 1) - h(i, j)) / cell;
            const float g1 = std::hypot(h(i + 1, j + 1) - h(i, j + 1), h(i + 1, j + 1) - h(i + 1, j)) / cell;
            s = std::max({s, g0, g1});
        }
    return s;
}

Result<Terrain> makeTerrain(const TerrainSettings& st) {
    if (st.cells < 2 || st.cells > 2048)
        return fail("makeTerrain(): cells " + std::to_string(st.cells) + " is outside [2, 2048]");
    if (!(st.size > 0.0f) || !(st.thickness > 0.0f) || !(st.wavelength > 0.0f) || !std::isfinite(st.amplitude))
        return fail("makeTerrain(): size, thickness and wavelength must be positive and amplitude finite");
    Terrain t;
    t.settings = st;
    const int n = st.cells, side = n + 1;
    const float half = 0.5f * st.size, cell = st.size / float(n);
    std::mt19937 rng(st.seed);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    struct Wave {
        Vec2 k;
        float phase, amplitude;
    };
    Wave waves[3];
    const float split[3] = {0.5f, 0.3f, 0.2f}, scale[3] = {1.0f, 0.55f, 0.31f};
    for (int w = 0; w < 3; ++w) {
        const float angle = 2.0f * std::numbers::pi_v<float> * unit(rng);
        const float k = 2.0f * std::numbers::pi_v<float> / (st.wavelength * scale[w]);
        waves[w] = {k * Vec2(std::cos(angle), std::sin(angle)), 2.0f * std::numbers::pi_v<float> * unit(rng),
                    st.amplitude * split[w]};
    }
    t.heights.resize(std::size_t(side) * side);
    std::vector<Vec3> v;
    v.reserve(2 * std::size_t(side) * side);
    float lowest = INFINITY;
    for (int i = 0; i < side; ++i)
        for (int j = 0; j < side; ++j) {
            const float x = -half + float(i) * cell, z = -half + float(j) * cell;
            float y = 0.0f;
            for (const Wave& w : waves) y += w.amplitude * std::sin(w.k.x * x + w.k.y * z + w.phase);
            t.heights[std::size_t(i) * side + std::size_t(j)] = y;
            v.emplace_back(x, y, z);
            lowest = std::min(lowest, y);
        }
    auto top = [&](int i, int j) { return std::uint32_t(i * side + j); };
    std::vector<UVec3> tris;
    tris.reserve(std::size_t(n) * n * 2 + std::size_t(n) * 12);
    // Top: cell (i, j) split along (i + 1, j)-(i, j + 1); (a, c, b) faces +y for x = i, z = j.
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            tris.push_back({top(i, j), top(i, j + 1), top(i + 1, j)});
            tris.push_back({top(i + 1, j), top(i, j + 1), top(i + 1, j + 1)});
        }
    // The bottom: a flat grid under the top (small triangles: the particle maps and the
    // detectors' culling work per triangle), walls between the two boundaries.
    const float bottomY = lowest - st.thickness;
    const auto firstBottom = std::uint32_t(v.size());
    for (int i = 0; i < side; ++i)
        for (int j = 0; j < side; ++j) v.emplace_back(-half + float(i) * cell, bottomY, -half + float(j) * cell);
    auto bottom = [&](int i, int j) { return firstBottom + std::uint32_t(i * side + j); };
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            tris.push_back({bottom(i, j), bottom(i + 1, j), bottom(i, j + 1)});
            tris.push_back({bottom(i + 1, j), bottom(i + 1, j + 1), bottom(i, j + 1)});
        }
    std::vector<std::pair<int, int>> loop;
    for (int i = 0; i < n; ++i) loop.emplace_back(i, 0);
    for (int j = 0; j < n; ++j) loop.emplace_back(n, j);
    for (int i = n; i > 0; --i) loop.emplace_back(i, n);
    for (int j = n; j > 0; --j) loop.emplace_back(0, j);
    const std::size_t m = loop.size();
    for (std::size_t k = 0; k < m; ++k) {
        const auto [i0, j0] = loop[k];
        const auto [i1, j1] = loop[(k + 1) % m];
        const std::uint32_t a = top(i0, j0), b = top(i1, j1), c = bottom(i0, j0), d = bottom(i1, j1);
        // Outward: from the centre of the square through the edge's midpoint.
        const Vec3 mid = 0.5f * (v[a] + v[b]);
        Vec3 out(0.0f);
        if (std::abs(mid.x) >= std::abs(mid.z)) out.x = mid.x > 0 ? 1.0f : -1.0f;
        else out.z = mid.z > 0 ? 1.0f : -1.0f;
        addFacing(tris, v, a, b, c, out);
        addFacing(tris, v, b, d, c, out);
    }
    Result<Mesh> mesh = Mesh::create("terrain", std::move(v), std::move(tris));
    if (!mesh) return fail("makeTerrain(): " + mesh.error().message);
    if (!mesh->isClosed() || !mesh->report().consistentlyOriented() || mesh->signedVolume() <= 0.0)
        return fail("makeTerrain(): the slab came out " + mesh->report().describe() + " (a bug in Terrain.cpp)");
    t.mesh = std::make_shared<const Mesh>(std::move(*mesh));
    return t;
}

namespace {

// Lowest vertex of `mesh` at `pose` minus the terrain under it (negative: a vertex below).
float clearanceOf(const Mesh& mesh, const Pose& pose, const Terrain& terrain) {
    float c = INFINITY;
    for (const Vec3& local : mesh.vertices()) {
        const Vec3 p = pose.apply(local);
        c = std::min(c, p.y - terrain.heightAt(p.x, p.z));
    }
    return c;
}

}  // namespace

Result<TerrainPile> makeTerrainPile(int bodies, std::uint32_t seed, float clearance, const TerrainSettings& ts) {
    auto pile = makeBunnyPile(bodies, seed);
    if (!pile) return fail("makeTerrainPile(): " + pile.error().message);
    auto terrain = makeTerrain(ts);
    if (!terrain) return fail("makeTerrainPile(): " + terrain.error().message);
    TerrainPile out;
    out.terrain = std::move(*terrain);
    out.bunny = pile->bunny;
    // The pile's lowest layer starts 0.7 m above y = 0; lift every bunny by the same amount
    // so that the lowest clears the terrain by `clearance` (layers keep their spacing).
    float lift = -INFINITY;
    for (const Pose& p : pile->poses) lift = std::max(lift, clearance - clearanceOf(*out.bunny, p, out.terrain));
    for (Pose p : pile->poses) {
        p.position.y += std::max(0.0f, lift);
        out.poses.push_back(p);
    }
    return out;
}

Result<TerrainPile> makeBunnyField(int bodies, std::uint32_t seed, float margin, const TerrainSettings& ts) {
    if (bodies < 1) return fail("makeBunnyField(): " + std::to_string(bodies) + " bodies: give at least 1");
    Result<Mesh> bunny = loadBunny(0.1f);
    if (!bunny) return fail("makeBunnyField(): " + bunny.error().message);
    const int side = int(std::ceil(std::sqrt(double(bodies))));
    const float spacing = 1.15f;
    TerrainSettings wide = ts;
    const float cellSize = ts.size / float(ts.cells);
    wide.size = float(side) * spacing + 2.0f * margin;
    wide.cells = std::max(2, int(std::lround(wide.size / cellSize)));
    auto terrain = makeTerrain(wide);
    if (!terrain) return fail("makeBunnyField(): " + terrain.error().message);
    TerrainPile out;
    out.terrain = std::move(*terrain);
    out.bunny = std::make_shared<const Mesh>(std::move(*bunny));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> angle(0.0f, 6.2831853f), offset(-0.1f, 0.1f);
    for (int k = 0; k < bodies; ++k) {
        Pose p;
        p.position = Vec3((float(k % side) - 0.5f * float(side - 1)) * spacing + offset(rng), 2.0f,
                          (float(k / side) - 0.5f * float(side - 1)) * spacing + offset(rng));
        p.rotation = glm::angleAxis(angle(rng), Vec3(0.0f, 1.0f, 0.0f));
        p.position.y -= clearanceOf(*out.bunny, p, out.terrain);
        out.poses.push_back(p);
    }
    return out;
}

}  // namespace isc::scenes
