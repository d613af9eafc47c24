#include "PeelSetup.h"

#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

namespace isc::peel {

namespace {

float compMax(const Vec3& v) { return std::max(v.x, std::max(v.y, v.z)); }

// Union-find over object ids (clusters of candidate pairs).
struct Clusters {
    std::vector<ObjectId> parent;
    explicit Clusters(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), ObjectId(0)); }
    ObjectId find(ObjectId x) {
        while (parent[x] != x) x = parent[x] = parent[parent[x]];
        return x;
    }
    void unite(ObjectId a, ObjectId b) { parent[find(a)] = find(b); }
};

// The view along -axis: screen axes as glm::lookAt makes them (right-handed, so GL's CCW front
// faces are the meshes' outward faces).
Mat4 axisView(int axis, const Vec3& centre) {
    Vec3 dir(0.0f), up(0.0f);
    dir[axis] = 1.0f;
    up[(axis + 1) % 3] = 1.0f;
    return glm::lookAt(centre + dir, centre, up);
}

Aabb eyeBox(const Mat4& view, const Aabb& b) {
    Aabb e;
    for (int k = 0; k < 8; ++k)
        e.grow(Vec3(view * Vec4(k & 1 ? b.max.x : b.min.x, k & 2 ? b.max.y : b.min.y, k & 4 ? b.max.z : b.min.z, 1.0f)));
    return e;
}

}  // namespace

void classifyObjects(const Scene& scene, std::span<const ObjectPair> candidates, bool selfCollision, bool openMeshes,
                     CallObjects& objects, DetectionOutput& out, bool byObject) {
    objects.state.assign(scene.objectCount(), kUnused);
    objects.bounds.assign(scene.objectCount(), Aabb{});
    DetectorStats& stats = out.stats;
    // One object's class (it takes part: kUsed unless something below says otherwise).
    auto classify = [&](ObjectId o) {
        objects.state[o] = kUsed;
        if (!scene.isActive(o)) {
            objects.state[o] = kSkipped;
        } else if (!scene.pose(o).isFinite()) {
            objects.state[o] = kSkipped;
            stats.warnings.push_back("object " + std::to_string(o) + " has a non-finite pose (NaN or Inf): skipped this step");
        } else if (!openMeshes && !scene.objectMesh(o).isClosed()) {
            objects.state[o] = kUnserved;
            stats.warnings.push_back("object " + std::to_string(o) + " has an open mesh (" +
                                     scene.objectMesh(o).report().describe() +
                                     "): peel needs closed meshes unless openMeshes is set; its pairs are "
                                     "returned unserved (the dispatcher sends them to the exact path)");
        } else if (scene.objectMesh(o).triangleCount() == 0) {
            objects.state[o] = kSkipped;
        } else {
            objects.bounds[o] = scene.worldBounds(o);
        }
    };
    if (byObject) {
        // (A pile's ~800 pairs marked in a few microseconds: the pair-by-pair form took ~12 on the
        // development machine, most of the call's time before its work.)
        char* mark = objects.state.data();
        for (const ObjectPair& p : candidates) {
            const char take = (p.a != p.b) | selfCollision;
            mark[p.a] |= take;
            mark[p.b] |= take;
        }
        bool unserved = false;
        for (ObjectId o = 0; o < scene.objectCount(); ++o) {
            if (mark[o] == kUnused) continue;
            classify(o);
            unserved |= objects.state[o] == kUnserved;
        }
        if (unserved)
            for (const ObjectPair& p : candidates)
                if ((p.a != p.b || selfCollision) && (objects.state[p.a] == kUnserved || objects.state[p.b] == kUnserved))
                    out.unserved.push_back(p);
        stats.count("unserved_pairs", double(out.unserved.size()));
        return;
    }
    for (const ObjectPair& p : candidates) {
        if (p.a == p.b && !selfCollision) continue;
        for (ObjectId o : {p.a, p.b})
            if (objects.state[o] == kUnused) classify(o);
    }
    for (const ObjectPair& p : candidates)
        if ((p.a != p.b || selfCollision) && (objects.state[p.a] == kUnserved || objects.state[p.b] == kUnserved))
            out.unserved.push_back(p);
    stats.count("unserved_pairs", double(out.unserved.size()));
}

float pixelSize(const PeelSettings& s, float size, float edge) {
    size = std::max(size, 1e-20f);
    if (s.resolution != 0) return size / float(s.resolution);
    const float pixel = edge > 0.0f ? kAutoPixelPerEdge * edge : size / float(kAutoResolution);
    return std::clamp(pixel, size / float(kAutoMaxResolution), size / float(kAutoMinResolution));
}

SceneLayout makeSceneTiles(std::span<const ObjectPair> candidates, const CallObjects& objects, std::span<const float> edge,
                           const PeelSettings& st, bool selfCollision, float marginPixels, std::uint32_t maxTile) {
    SceneLayout layout;
    maxTile = std::clamp<std::uint32_t>(std::bit_floor(std::max(maxTile, 16u)), 16u, kMaxSceneTile);
    const std::size_t n = objects.bounds.size();
    const std::span<const Aabb> bounds = objects.bounds;
    // Objects' sizes first: the margin (pixels) is in world units only once the pixel size is
    // known, so clusters use the finest pixel any object asks for (the smallest object's).
    auto objectPixel = [&](ObjectId o) { return pixelSize(st, compMax(bounds[o].extent()), edge[o]); };
    // Clusters: connected components of the candidate pairs whose boxes come within the margin
    // (the others cannot collide). One view per cluster and axis: a pile is one view,
    // far-apart groups get their own (pixels would be wasted between them).
    Clusters clusters(n);
    std::vector<char> member(n, 0);
    auto meet = [&](const ObjectPair& p) {
        const float m = marginPixels * std::min(objectPixel(p.a), objectPixel(p.b)) +
                        boxMargin(std::max(compMax(bounds[p.a].extent()), compMax(bounds[p.b].extent())));
        return p.a == p.b || !bounds[p.a].expanded(m).intersection(bounds[p.b].expanded(m)).isEmpty();
    };
    for (const ObjectPair& p : candidates) {
        if (!pairTakesPart(p, objects, selfCollision) || !meet(p)) continue;
        member[p.a] = member[p.b] = 1;
        clusters.unite(p.a, p.b);
    }
    layout.groupOf.assign(n, -1);
    std::vector<std::vector<ObjectId>> groups;
    for (ObjectId o = 0; o < n; ++o) {
        if (!member[o]) continue;
        const ObjectId r = clusters.find(o);
        if (layout.groupOf[r] < 0) {
            layout.groupOf[r] = std::int32_t(groups.size());
            groups.emplace_back();
        }
        groups[std::size_t(layout.groupOf[r])].push_back(o);  // ascending object ids
    }
    for (ObjectId o = 0; o < n; ++o)
        if (member[o]) layout.groupOf[o] = layout.groupOf[clusters.find(o)];
    // Pixel size per cluster: the finest any of its objects asks for.
    layout.pixel.assign(groups.size(), std::numeric_limits<float>::max());
    for (std::size_t g = 0; g < groups.size(); ++g)
        for (ObjectId o : groups[g]) layout.pixel[g] = std::min(layout.pixel[g], objectPixel(o));
    // Across the rays a view only needs the union of its pairs' box intersections (nothing
    // else can collide): a large ground under a pile would otherwise widen every view and
    // coarsen its pixels. Along the rays it keeps the union of the objects' boxes, so every
    // ray still starts and ends outside all of them.
    std::vector<Aabb> lateral(groups.size());
    for (const ObjectPair& p : candidates) {
        if (!pairTakesPart(p, objects, selfCollision) || !member[p.a] || !member[p.b] || !meet(p)) continue;
        const std::size_t g = std::size_t(layout.groupOf[p.a]);
        const float m = marginPixels * layout.pixel[g] +
                        boxMargin(std::max(compMax(bounds[p.a].extent()), compMax(bounds[p.b].extent())));
        const Aabb both = p.a == p.b ? bounds[p.a] : bounds[p.a].expanded(m).intersection(bounds[p.b].expanded(m));
        if (!both.isEmpty()) lateral[g].grow(both);
    }
    const int axisCount = effectiveAxes(st) == 3 ? 3 : 1;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        const std::vector<ObjectId>& group = groups[g];
        Aabb box;
        for (ObjectId o : group) box.grow(bounds[o]);
        const float size = compMax(box.extent());
        box = box.expanded(boxMargin(size));
        const Aabb across = lateral[g].expanded(boxMargin(size));
        for (int ai = 0; ai < axisCount; ++ai) {
            const int axis = axisCount == 1 ? 2 : ai;
            const Mat4 view = axisView(axis, box.center());
            // x, y (across the rays) from the pairs' intersections; z (along) from all objects.
            const Aabb all = eyeBox(view, box);
            Aabb eye = eyeBox(view, across.isEmpty() ? box : across);
            eye.min.z = all.min.z;
            eye.max.z = all.max.z;
            float pixel = layout.pixel[g];
            const float longest = std::max(eye.extent().x, eye.extent().y);
            if (longest / pixel > kMaxViewSide) {
                pixel = longest / kMaxViewSide;
                ++layout.coarsenedViews;
            }
            if (ai == 0 || pixel > layout.pixel[g]) layout.pixel[g] = std::max(layout.pixel[g], pixel);
            const auto wide = static_cast<std::uint32_t>(std::ceil(eye.extent().x / pixel));
            const auto high = static_cast<std::uint32_t>(std::ceil(eye.extent().y / pixel));
            // Square tiles as large as the view's shorter side (an elongated view becomes a
            // row of tiles, not one mostly empty square), at most maxTile; at most about
            // four tiles along the long side (a thin slab gets wider tiles, not many small ones).
            const std::uint32_t shortSide = std::max({std::min(wide, high), (std::max(wide, high) + 3u) / 4u, 1u});
            const std::uint32_t side = std::clamp<std::uint32_t>(std::bit_ceil(shortSide), 16u, maxTile);
            const std::uint32_t gx = std::max((wide + side - 1) / side, 1u), gy = std::max((high + side - 1) / side, 1u);
            const float span = float(side) * pixel;
            // Depth range: the view box (every ray starts and ends outside all objects).
            const float zNear = -eye.max.z - 0.01f * size, zFar = -eye.min.z + 0.01f * size;
            // An object reaches into a tile when its box, plus the margin, does.
            const float reach = marginPixels * pixel;
            std::vector<Aabb> objectEye(group.size());
            for (std::size_t i = 0; i < group.size(); ++i) objectEye[i] = eyeBox(view, bounds[group[i]]);
            for (std::uint32_t j = 0; j < gy; ++j)
                for (std::uint32_t i = 0; i < gx; ++i) {
                    const float x0 = eye.min.x + float(i) * span, y0 = eye.min.y + float(j) * span;
                    Tile t;
                    t.group = static_cast<std::uint32_t>(g);
                    t.axis = axis;
                    t.size = side;
                    for (std::size_t k = 0; k < group.size(); ++k) {
                        const Aabb& e = objectEye[k];
                        if (e.max.x + reach < x0 || e.min.x - reach > x0 + span || e.max.y + reach < y0 ||
                            e.min.y - reach > y0 + span)
                            continue;
                        t.objects.push_back(group[k]);
                    }
                    if (t.objects.size() < 2 && !selfCollision) continue;
                    if (t.objects.empty()) continue;
                    const Mat4 proj = glm::ortho(x0, x0 + span, y0, y0 + span, zNear, zFar);
                    t.gpu.viewProj = proj * view;
                    t.gpu.objectA = t.gpu.objectB = 0xFFFFFFFFu;
                    t.gpu.flags = PEEL_TILE_SCENE | (st.openMeshes ? PEEL_TILE_OPEN : 0u) |
                                  (st.depthProximity ? PEEL_TILE_PROXIMITY : 0u);
                    t.gpu.depthEpsilon = (st.openMeshes ? 4.0f : 1.0f) * pixel / std::max(zFar - zNear, 1e-20f);
                    t.gpu.size = side;
                    layout.tiles.push_back(std::move(t));
                }
        }
    }
    layout.views = static_cast<std::uint32_t>(groups.size() * std::size_t(axisCount));
    return layout;
}

std::vector<Tile> makePairTiles(std::span<const ObjectPair> candidates, const CallObjects& objects,
                                const PeelSettings& st, bool selfCollision) {
    std::vector<Tile> tiles;
    const int axisCount = effectiveAxes(st) == 3 ? 3 : 1;
    const int resolution = st.resolution == 0 ? kAutoResolution : st.resolution;
    for (std::uint32_t c = 0; c < candidates.size(); ++c) {
        const ObjectPair p = candidates[c];
        if (!pairTakesPart(p, objects, selfCollision)) continue;
        const Aabb& A = objects.bounds[p.a];
        const Aabb& B = objects.bounds[p.b];
        const float size = std::max(compMax(A.extent()), compMax(B.extent()));
        const float objectSize = std::max(std::min(compMax(A.extent()), compMax(B.extent())), 1e-20f);
        const float margin = boxMargin(size);
        const Aabb across = p.a == p.b ? A.expanded(margin) : A.expanded(margin).intersection(B.expanded(margin));
        if (across.isEmpty()) continue;
        Aabb along = A;
        along.grow(B);
        along = along.expanded(margin + 0.01f * size);
        for (int ai = 0; ai < axisCount; ++ai) {
            const int axis = axisCount == 1 ? 2 : ai;
            Aabb box = across;
            box.min[axis] = along.min[axis];
            box.max[axis] = along.max[axis];
            const Mat4 view = axisView(axis, box.center());
            const Aabb eye = eyeBox(view, box);
            const Mat4 proj = glm::ortho(eye.min.x, eye.max.x, eye.min.y, eye.max.y, -eye.max.z, -eye.min.z);
            Tile t;
            t.candidate = c;
            t.axis = axis;
            t.gpu.viewProj = proj * view;
            t.gpu.objectA = p.a;
            t.gpu.objectB = p.b;
            t.objects = p.a == p.b ? std::vector<ObjectId>{p.a} : std::vector<ObjectId>{p.a, p.b};
            t.gpu.flags = (p.a == p.b ? PEEL_TILE_SELF : 0u) | (st.openMeshes ? PEEL_TILE_OPEN : 0u) |
                          (st.depthProximity ? PEEL_TILE_PROXIMITY : 0u);
            // Tile side: resolution pixels across the smaller object, so a small window
            // (shallow contact) gets a small tile with the same pixel size.
            const float window = std::max(eye.extent().x, eye.extent().y);
            const float wanted = std::ceil(float(resolution) * window / objectSize);
            t.size = std::clamp<std::uint32_t>(std::bit_ceil(static_cast<std::uint32_t>(std::min(wanted, 1e6f))),
                                               std::min(16, resolution), static_cast<std::uint32_t>(resolution));
            // Proximity: one pixel (the larger side), or four for open meshes, in depth units.
            const float pixel = window / float(t.size);
            t.gpu.depthEpsilon = (st.openMeshes ? 4.0f : 1.0f) * pixel / std::max(eye.extent().z, 1e-20f);
            tiles.push_back(std::move(t));
        }
    }
    return tiles;
}

}  // namespace isc::peel
