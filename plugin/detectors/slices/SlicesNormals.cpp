#include "SlicesNormals.h"

#include "isc/gl/GpuScene.h"
#include "isc/scene/Scene.h"

#include <algorithm>

namespace isc::detail {

namespace {

constexpr float kLeastCosine = 0.25f;  // the offset scale is at most 1 / kLeastCosine

void computeRange(std::span<const Vec3> vertices, std::span<const UVec3> triangles, Vec4* out) {
    std::vector<Vec3> sum(vertices.size(), Vec3(0.0f));
    std::vector<Vec3> faceNormal(triangles.size());
    for (std::size_t t = 0; t < triangles.size(); ++t) {
        const UVec3 f = triangles[t];
        const Vec3 n = glm::cross(vertices[f.y] - vertices[f.x], vertices[f.z] - vertices[f.x]);  // 2 x area
        const float len = glm::length(n);
        faceNormal[t] = len > 0.0f ? n / len : Vec3(0.0f);
        for (std::uint32_t c : {f.x, f.y, f.z}) sum[c] += n;
    }
    std::vector<float> least(vertices.size(), 1.0f);
    std::vector<Vec3> unit(vertices.size(), Vec3(0.0f));
    for (std::size_t v = 0; v < vertices.size(); ++v) {
        const float len = glm::length(sum[v]);
        if (len > 0.0f) unit[v] = sum[v] / len;
    }
    for (std::size_t t = 0; t < triangles.size(); ++t) {
        const UVec3 f = triangles[t];
        if (faceNormal[t] == Vec3(0.0f)) continue;
        for (std::uint32_t c : {f.x, f.y, f.z}) least[c] = std::min(least[c], glm::dot(unit[c], faceNormal[t]));
    }
    for (std::size_t v = 0; v < vertices.size(); ++v)
        out[v] = Vec4(unit[v] / std::max(least[v], kLeastCosine), 0.0f);
}

}  // namespace

bool SlicesNormals::update(const Scene& scene, const gl::GpuScene& gpu) {
    bool changed = false;
    if (data_.size() != gpu.totalVertices()) {
        data_.assign(gpu.totalVertices(), Vec4(0.0f));
        done_.assign(gpu.totalVertices(), 0);
        versionOf_.clear();
        changed = true;
    }
    versionOf_.resize(gpu.objectCount(), 0);
    for (ObjectId o = 0; o < gpu.objectCount(); ++o) {
        const gl::ObjectRange& r = gpu.object(o);
        if (r.vertexCount == 0) continue;
        if (r.deformed) {
            if (versionOf_[o] == scene.vertexVersion(o) + 1) continue;
            versionOf_[o] = scene.vertexVersion(o) + 1;
        } else {
            if (done_[r.firstVertex]) continue;
            done_[r.firstVertex] = 1;
        }
        computeRange(scene.localVertices(o), scene.objectMesh(o).triangles(), data_.data() + r.firstVertex);
        changed = true;
    }
    return changed;
}

}  // namespace isc::detail
