#pragma once
/// Loading meshes from files (OBJ through tinyobjloader) and the bundled Stanford bunny.
#include "isc/mesh/Mesh.h"

#include <string>

namespace isc {

/// Loads every shape of an OBJ file into one mesh (faces triangulated). Errors name the
/// file and say what is wrong (missing, unreadable, no faces, NaN coordinates).
[[nodiscard]] Result<Mesh> loadObj(const std::string& path);

/// Path of the Stanford bunny OBJ made at configure time (npm bunny@1.0.1, 3674
/// triangles, closed, about 9.7 units tall). The environment variable ISC_BUNNY_OBJ
/// overrides it (for binaries moved to another machine).
std::string bunnyPath();

/// The bunny, as loaded from bunnyPath(), centred on its bounding box and scaled by
/// `scale` (0.1 gives a bunny about 0.97 m tall: the scale the demos use).
[[nodiscard]] Result<Mesh> loadBunny(float scale = 0.1f);

}  // namespace isc
