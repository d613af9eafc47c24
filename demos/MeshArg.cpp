#include "MeshArg.h"

#include "isc/mesh/MeshIo.h"
#include "isc/mesh/Shapes.h"

namespace isc::tool {

std::string builtinMeshNames() { return "bunny, torus, box, sphere, knot"; }

Result<Mesh> loadMeshArg(const std::string& arg) {
    if (arg == "bunny") return loadBunny(0.1f);
    if (arg == "torus") return shapes::torus(0.4f, 0.15f);
    if (arg == "box") return shapes::box(Vec3(0.4f, 0.3f, 0.25f));
    if (arg == "sphere") return shapes::uvSphere(0.45f);
    if (arg == "knot") return shapes::torusKnot(0.35f, 0.08f);
    auto mesh = loadObj(arg);
    if (!mesh)
        return fail(mesh.error().message + " (built-in meshes: " + builtinMeshNames() + ")");
    return mesh;
}

}  // namespace isc::tool
