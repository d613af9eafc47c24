#include "CullideHierarchy.h"

#include "isc/core/Assert.h"

#include <algorithm>
#include <cmath>

namespace isc::cullide {

namespace {

// The largest subtrees with at most `size` slots, in slot order; `first`/`count` of inner
// nodes come from their leaves (subtrees are contiguous slot ranges).
void collect(const geometry::Bvh& bvh, std::uint32_t node, std::uint32_t size, std::vector<std::uint32_t>& lo,
             std::vector<std::uint32_t>& hi, std::vector<Cluster>& out) {
    if (hi[node] - lo[node] <= size || bvh.nodes()[node].isLeaf()) {
        out.push_back({lo[node], hi[node] - lo[node], node});
        return;
    }
    const std::uint32_t c = bvh.nodes()[node].first;
    collect(bvh, c, size, lo, hi, out);
    collect(bvh, c + 1, size, lo, hi, out);
}

}  // namespace

bool Hierarchies::sync(const Scene& scene) {
    bool changed = false;
    byId_.assign(scene.meshCount(), nullptr);
    // Forget meshes no longer in use when the cache has grown well past the scene's.
    if (cache_.size() > 2 * scene.meshCount() + 8) {
        std::unordered_map<const Mesh*, std::unique_ptr<MeshHierarchy>> kept;
        for (MeshId m = 0; m < scene.meshCount(); ++m) {
            auto it = cache_.find(&scene.mesh(m));
            if (it != cache_.end()) kept.emplace(it->first, std::move(it->second));
        }
        cache_ = std::move(kept);
        slots_.clear();
        slotCorners_.clear();
        for (auto& [mesh, h] : cache_) appendSlots(*h);
        changed = true;
    }
    for (MeshId m = 0; m < scene.meshCount(); ++m) {
        const std::shared_ptr<const Mesh>& mesh = scene.meshPtr(m);
        auto it = cache_.find(mesh.get());
        if (it == cache_.end()) {
            auto h = std::make_unique<MeshHierarchy>();
            h->mesh = mesh;
            h->bvh.build(mesh->vertices(), mesh->triangles(), 4);
            const auto nodes = h->bvh.nodes();
            // Slot range of every node, bottom-up (children have larger indices).
            std::vector<std::uint32_t> lo(nodes.size()), hi(nodes.size());
            for (std::size_t i = nodes.size(); i-- > 0;) {
                if (nodes[i].isLeaf()) {
                    lo[i] = nodes[i].first;
                    hi[i] = nodes[i].first + nodes[i].count;
                } else {
                    const std::uint32_t c = nodes[i].first;
                    ISC_ASSERT(hi[c] == lo[c + 1], "cullide::Hierarchies::sync(): a subtree is not contiguous");
                    lo[i] = lo[c];
                    hi[i] = hi[c + 1];
                }
            }
            collect(h->bvh, 0, static_cast<std::uint32_t>(std::max(clusterSize_, 1)), lo, hi, h->clusters);
            // Each cluster's distinct corners (sorted: neighbours in memory).
            const auto tris = mesh->triangles();
            const auto slotTris = h->bvh.slotTriangles();
            h->clusterVertexBegin.assign(1, 0u);
            std::vector<std::uint32_t> corners;
            for (const Cluster& c : h->clusters) {
                corners.clear();
                for (std::uint32_t s = c.firstSlot; s < c.firstSlot + c.slotCount; ++s)
                    for (int k = 0; k < 3; ++k) corners.push_back(tris[slotTris[s]][k]);
                std::sort(corners.begin(), corners.end());
                corners.erase(std::unique(corners.begin(), corners.end()), corners.end());
                h->clusterVertices.insert(h->clusterVertices.end(), corners.begin(), corners.end());
                h->clusterVertexBegin.push_back(static_cast<std::uint32_t>(h->clusterVertices.size()));
            }
            appendSlots(*h);
            it = cache_.emplace(mesh.get(), std::move(h)).first;
            changed = true;
        }
        byId_[m] = it->second.get();
    }
    return changed;
}

void Hierarchies::appendSlots(MeshHierarchy& h) {
    h.slotBase = static_cast<std::uint32_t>(slots_.size());
    const auto s = h.bvh.slotTriangles();
    slots_.insert(slots_.end(), s.begin(), s.end());
    const auto triangles = h.mesh->triangles();
    for (std::uint32_t t : s) slotCorners_.emplace_back(triangles[t][0], triangles[t][1], triangles[t][2], t);
}

Aabb worldBox(const geometry::Bvh::Box& box, const Pose& pose) {
    Aabb out;
    for (int k = 0; k < 8; ++k)
        out.grow(pose.apply(Vec3(k & 1 ? box.max[0] : box.min[0], k & 2 ? box.max[1] : box.min[1],
                                 k & 4 ? box.max[2] : box.min[2])));
    // Rotation and sum in float: a few ulps of the magnitudes (local and world).
    float m = 0.0f;
    for (int k = 0; k < 3; ++k)
        m = std::max({m, std::fabs(out.min[k]), std::fabs(out.max[k]), std::fabs(box.min[k]), std::fabs(box.max[k])});
    return out.expanded(m * 2e-6f + 1e-30f);
}

}  // namespace isc::cullide
