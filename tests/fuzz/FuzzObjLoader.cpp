// libFuzzer target: the OBJ loader (tinyobjloader, then Mesh::create's validation) on
// arbitrary file contents. Either an Error with a message, or a mesh whose invariants hold:
// finite vertices, indices in range, no degenerate (repeated-index) triangle, at least one
// triangle, bounds containing every vertex, and the same mesh again when re-validated.
#include "isc/core/Assert.h"
#include "isc/mesh/MeshIo.h"

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

std::string tempPath() {
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir ? dir : "/tmp") + "/isc-fuzz-obj-" + std::to_string(::getpid()) + ".obj";
}

void check(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "fuzz_obj_loader: invariant broken: %s\n", what);
        std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::string path = tempPath();
    if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
        if (size > 0) std::fwrite(data, 1, size, f);
        std::fclose(f);
    } else {
        return 0;
    }
    isc::Result<isc::Mesh> mesh = isc::loadObj(path);
    if (!mesh) {
        check(!mesh.error().message.empty(), "an error without a message");
        return 0;
    }
    const isc::Mesh& m = *mesh;
    check(m.triangleCount() > 0, "a mesh with no triangle");
    const isc::Aabb& b = m.localBounds();
    for (const isc::Vec3& v : m.vertices()) {
        check(std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z), "a non-finite vertex");
        check(v.x >= b.min.x && v.y >= b.min.y && v.z >= b.min.z && v.x <= b.max.x && v.y <= b.max.y &&
                  v.z <= b.max.z,
              "a vertex outside the bounds");
    }
    for (const isc::UVec3& t : m.triangles()) {
        check(t.x < m.vertexCount() && t.y < m.vertexCount() && t.z < m.vertexCount(), "an index out of range");
        check(t.x != t.y && t.y != t.z && t.x != t.z, "a repeated-index triangle kept");
    }
    // Validation is idempotent: the kept triangles are all kept again.
    auto again = isc::Mesh::create("again", std::vector<isc::Vec3>(m.vertices().begin(), m.vertices().end()),
                                   std::vector<isc::UVec3>(m.triangles().begin(), m.triangles().end()));
    check(again.has_value(), "a valid mesh refused on re-validation");
    check(again->triangleCount() == m.triangleCount(), "re-validation dropped triangles");
    check(again->report().closed() == m.report().closed(), "re-validation changed closedness");
    return 0;
}
