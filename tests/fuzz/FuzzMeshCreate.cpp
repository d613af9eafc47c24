// libFuzzer target: Mesh::create's validation on raw vertex bytes (NaN, Inf, denormals,
// 1e38) and raw indices (out of range, repeated), then what is built on a valid mesh:
// scaled(), centered(), signedVolume(), surfaceArea() and report().describe(). Either an
// Error with a message, or a mesh whose invariants hold.
#include "FuzzInput.h"

#include "isc/mesh/Mesh.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

void check(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "fuzz_mesh_create: invariant broken: %s\n", what);
        std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    isc::fuzz::FuzzInput in(data, size);
    const unsigned vertexCount = in.below(64);
    const unsigned triangleCount = in.below(64);
    const bool rawFloats = in.byte() & 1;  // else small grid coordinates: many degenerate/duplicate cases
    std::vector<isc::Vec3> vertices(vertexCount);
    for (isc::Vec3& v : vertices) {
        for (int i = 0; i < 3; ++i) v[i] = rawFloats ? in.raw() : in.grid(-1.0f, 1.0f);
    }
    std::vector<isc::UVec3> triangles(triangleCount);
    for (isc::UVec3& t : triangles) {
        // Mostly in range, sometimes far out of it.
        for (int i = 0; i < 3; ++i) {
            const unsigned b = in.byte();
            t[i] = b == 255 ? 0xffffffffu : b % (vertexCount + 1);
        }
    }
    isc::Result<isc::Mesh> mesh = isc::Mesh::create("fuzz", std::move(vertices), std::move(triangles));
    if (!mesh) {
        check(!mesh.error().message.empty(), "an error without a message");
        return 0;
    }
    const isc::Mesh& m = *mesh;
    check(m.triangleCount() > 0, "a mesh with no triangle");
    check(m.report().degenerateDropped + m.triangleCount() == triangleCount, "triangles neither kept nor counted");
    for (const isc::UVec3& t : m.triangles())
        check(t.x < m.vertexCount() && t.y < m.vertexCount() && t.z < m.vertexCount(), "an index out of range");
    for (const isc::Vec3& v : m.vertices())
        check(std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z), "a non-finite vertex");
    check(!m.report().describe().empty(), "an empty report");
    const double area = m.surfaceArea();
    check(area >= 0.0 && !std::isnan(area), "a negative or NaN area");
    (void)m.signedVolume();
    (void)m.centered();
    (void)m.scaled(0.5f);
    return 0;
}
