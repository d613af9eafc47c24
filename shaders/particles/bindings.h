// Particles (isc::particles::ParticleSystem, papers/002 "Particle system"): storage binding
// points and std430 structs shared by C++ (plugin/particles) and GLSL
// (#include "particles/bindings.h"). Valid in both languages.
#ifndef ISC_SHADERS_PARTICLES_BINDINGS_H
#define ISC_SHADERS_PARTICLES_BINDINGS_H

#ifdef __cplusplus
namespace isc::gl {
#endif

// Binding points 0..2 are the GpuScene's (common/bindings.h); particles use 4..10.
#define PT_BINDING_POSITIONS 4  // vec4 positions[capacity]: xyz world, w = 1 alive, 0 removed
#define PT_BINDING_VELOCITIES 5 // vec4 velocities[capacity]: xyz world units per second
#define PT_BINDING_MAPS 6       // PtMap maps[6]: the shared height maps (one per direction)
#define PT_BINDING_DEPTHS 7     // uint depths[]: per map pixel, float bits of the nearest environment
                                // surface's distance from the map's entry face (conservative: never farther)
#define PT_BINDING_NORMALS 8    // uint normals[]: per map pixel, that surface's unit normal (octahedral, 0: none)
#define PT_BINDING_COUNTERS 9   // uint counters[PT_COUNTER_COUNT]
#define PT_BINDING_BIG 10       // uvec4 big[]: environment raster, (triangle, map, object, 0) of triangles
                                // covering more pixels than one thread rasterises

// Slots of counters[].
#define PT_COUNTER_NAN 0         // particles removed because their state became NaN or Inf (total)
#define PT_COUNTER_LEFT 1        // particles removed because they left the domain (total)
#define PT_COUNTER_COLLISIONS 2  // collisions resolved in the last step
#define PT_COUNTER_BIG 3         // environment raster: triangles appended to big[]
#define PT_COUNTER_COUNT 4

// Pixels one thread of the environment raster covers itself; larger triangles go to big[].
#define PT_SMALL_PIXELS 256
// Pixels of one big[] item one invocation covers at most (its work group's 64 lanes, times
// the groups the item's pixels are split over): llvmpipe ends an invocation's loops silently
// after 65535 iterations in all, which a 4096-pixel map's ground triangle passed (docs/gl.md).
#define PT_BIG_PIXELS_PER_LANE 16384u

// One height map, std430, 64 bytes: looking along `direction` (an axis, +-) into the domain.
// Pixel (i, j) covers world [origin.x + i p, +p] on axis `axisU` and [origin.y + j p, +p] on
// `axisV`; its depth is s = dot(x, direction) - entry, s in [0, range].
struct PtMap {
    vec4 direction;  // xyz: unit axis vector; w: entry (dot(x, direction) at the entry face)
    vec4 origin;     // x, y: world coordinates of pixel (0, 0)'s corner on axisU, axisV; z: pixel size; w: range
    uint axis;       // 0, 1, 2: the axis of `direction`
    uint axisU;      // (axis + 1) % 3
    uint axisV;      // (axis + 2) % 3
    uint width;      // pixels along axisU
    uint height;     // pixels along axisV
    uint offset;     // first pixel in depths[] and normals[]
    uint pad0;
    uint pad1;
};

#ifdef __cplusplus
}  // namespace isc::gl
#endif

#endif
