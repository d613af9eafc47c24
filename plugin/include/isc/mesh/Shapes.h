#pragma once
/// Procedural closed meshes, made in code, and mesh refinement. All outward-facing.
#include "isc/mesh/Mesh.h"

namespace isc::shapes {

/// Box centred at the origin, 12 triangles.
Mesh box(Vec3 halfExtents);
/// UV sphere centred at the origin: `slices` around the pole axis (y), `stacks` from pole to pole.
Mesh uvSphere(float radius, int slices = 32, int stacks = 16);
/// Torus around the y axis: `majorRadius` to the tube centre, `minorRadius` of the tube.
Mesh torus(float majorRadius, float minorRadius, int majorSegments = 48, int minorSegments = 24);
/// (p,q) torus knot tube: concave, closed. Fits in a sphere of about `scale` * 1.5.
Mesh torusKnot(float scale = 1.0f, float tubeRadius = 0.15f, int p = 2, int q = 3,
               int segments = 256, int tubeSegments = 16);
/// Each level splits every triangle into four (edge midpoints shared, so closed stays closed).
Mesh subdivided(const Mesh& mesh, int levels);

}  // namespace isc::shapes
