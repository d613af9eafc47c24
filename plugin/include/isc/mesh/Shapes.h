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

/// Offset surface (Dinerstein & Egbert, section 3): every vertex moved by `distance`
/// (world units) along its outward vertex normal, the area-weighted mean of the normals
/// of the triangles around it. Positive `distance` swells the mesh (a collision margin:
/// no contact closer than about `distance` is missed), negative shrinks it. Same
/// triangles, same vertex count; the mesh must be outward-facing. A vertex used by no
/// triangle, or whose triangles' normals cancel, stays where it is. A shrink larger than
/// the local feature size folds the surface (and a triangle it flattens is dropped and
/// counted in the report, so check triangleCount() if ids must match): keep |distance|
/// small against the mesh; Dinerstein & Egbert suggest about 1% of its size.
Mesh offset(const Mesh& mesh, float distance);

}  // namespace isc::shapes
