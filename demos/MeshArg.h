#pragma once
/// Meshes named on the command line: a built-in name or a path to an OBJ file.
#include "isc/mesh/Mesh.h"

#include <string>

namespace isc::tool {

/// "bunny" (npm bunny, x0.1: ~1 m tall), "torus", "box", "sphere", "knot" (built-in,
/// sized like the bunny), or a path to an OBJ file (loaded as is, in its own units).
[[nodiscard]] Result<Mesh> loadMeshArg(const std::string& arg);
/// The built-in names, for help texts.
std::string builtinMeshNames();

}  // namespace isc::tool
