#include "StaticEnvironment.h"

#include <cstring>

namespace isc::detail {

namespace {

bool samePose(const Pose& a, const Pose& b) { return std::memcmp(&a, &b, sizeof(Pose)) == 0; }

bool overlaps(const geometry::Bvh::Box& b, const Aabb& box) {
    return b.min[0] <= box.max.x && box.min.x <= b.max[0] && b.min[1] <= box.max.y && box.min.y <= b.max[1] &&
           b.min[2] <= box.max.z && box.min.z <= b.max[2];
}

}  // namespace

bool StaticEnvironment::update(const Scene& scene, ObjectId o) {
    if (entries_.size() <= o) entries_.resize(std::size_t(o) + 1);
    Entry& e = entries_[o];
    const Mesh* mesh = &scene.objectMesh(o);
    if (e.mesh == mesh && e.version == scene.vertexVersion(o) && samePose(e.pose, scene.pose(o))) return false;
    e.mesh = mesh;
    e.version = scene.vertexVersion(o);
    e.pose = scene.pose(o);
    const auto local = scene.localVertices(o);
    std::vector<Vec3> world(local.size());
    e.bounds = {};
    for (std::size_t i = 0; i < local.size(); ++i) {
        world[i] = e.pose.apply(local[i]);
        e.bounds.grow(world[i]);
    }
    e.bvh = geometry::Bvh();
    e.bvh.build(world, mesh->triangles(), 4);
    return true;
}

void StaticEnvironment::query(ObjectId o, const Aabb& box, std::vector<std::uint32_t>& out) const {
    const geometry::Bvh& bvh = entries_[o].bvh;
    if (bvh.empty()) return;
    const auto nodes = bvh.nodes();
    const auto slots = bvh.slotTriangles();
    const auto boxes = bvh.slotBoxes();
    if (!overlaps(nodes[0].box, box)) return;
    std::vector<std::uint32_t> stack;
    stack.reserve(std::size_t(bvh.depth()) * 2 + 4);
    stack.push_back(0);
    while (!stack.empty()) {
        const geometry::Bvh::Node& n = nodes[stack.back()];
        stack.pop_back();
        if (n.isLeaf()) {
            for (std::uint32_t s = n.first; s < n.first + n.count; ++s)
                if (overlaps(boxes[s], box)) out.push_back(slots[s]);
            continue;
        }
        for (std::uint32_t c : {n.first, n.first + 1})
            if (overlaps(nodes[c].box, box)) stack.push_back(c);
    }
}

}  // namespace isc::detail
