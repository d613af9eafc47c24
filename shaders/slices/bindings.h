// Slices detector (papers/004, Dinerstein and Egbert): storage binding points and std430
// structs shared by C++ (plugin/detectors/slices) and GLSL (#include "slices/bindings.h").
// Valid in both languages.
#ifndef ISC_SHADERS_SLICES_BINDINGS_H
#define ISC_SHADERS_SLICES_BINDINGS_H

#ifdef __cplusplus
namespace isc::gl {
#endif

// Binding points 0..2 are the GpuScene's (common/bindings.h); the slices detector uses 4..10.
#define SL_BINDING_VIEWS 4     // SlView views[]: one per pair rendering (a tile of the atlas)
#define SL_BINDING_DRAWS 5     // SlDraw draws[]: indexed by the draw-id attribute (= baseInstance)
#define SL_BINDING_NORMALS 6   // vec4 normals[]: per GpuScene vertex, local offset direction (scaled, see SlicesDetector.h)
#define SL_BINDING_BITS 7      // uint bits[pixels * SL_TARGETS * 4]: the shader-OR path's targets
#define SL_BINDING_RESULTS 8   // SlResult results[]: per view
#define SL_BINDING_SAMPLES 9   // SlSample samples[]: appended (at most one per pixel)
#define SL_BINDING_COUNTERS 10 // uint counters[SL_COUNTER_COUNT]
#define SL_BINDING_PIXELS 11   // uint pixelCounts[2 * pixels]: shared slices, then occupied (A | B) slices, per pixel

#define SL_ATTRIB_DRAW_ID 0    // uint vertex attribute, divisor 1: = baseInstance = draw index

// Texture units of the test pass (the logic-op path's targets).
#define SL_UNIT_TARGET0 0
#define SL_UNIT_TARGET1 1

// 64 slices per RGBA32UI target: r, g = object A's words, b, a = object B's.
#define SL_SLICES_PER_TARGET 64
#define SL_MAX_SLICES 128

#define SL_COUNTER_SAMPLES 0
#define SL_COUNTER_COUNT 4

// One view: a pair's box, std430, 64 bytes. Normalised view coordinates q = (world - boxMin)
// / boxSize; across the tile: q[(axis + 1) % 3], q[(axis + 2) % 3]; depth: q[axis].
struct SlView {
    vec4 boxMin;    // xyz world; w unused
    vec4 boxSize;   // xyz world extent (> 0); w unused
    vec4 fallback;  // xyz: unit normal where the fill gradient vanishes (the depth axis, from B's box toward A's); w unused
    uint axis;      // depth axis (0 x, 1 y, 2 z)
    uint originX;   // atlas pixel of the tile's corner
    uint originY;
    uint slices;    // depth slices of this rendering
};

// One draw, std430, 16 bytes: one object into one view.
struct SlDraw {
    uint view;
    uint object;
    uint side;     // 0: object A (r, g words), 1: object B (b, a words)
    float offset;  // vertex offset along normals, world units (+ swell, - shrink)
};

// Per view, std430, 32 bytes: the shared voxels and their box (tile pixels, slices).
struct SlResult {
    uint voxels;  // shared voxels (bits set by both objects)
    uint minX;
    uint minY;
    uint minK;
    uint maxX;
    uint maxY;
    uint maxK;
    uint pixels;  // pixels with a shared voxel
};

// A contact sample, std430, 48 bytes: `point` on B (xyz; w: depth, negative = penetration),
// `normal` from B toward A (xyz, unit; w: the fill gradient's size there, 0 where it vanished).
struct SlSample {
    vec4 point;
    vec4 normal;
    uint view;
    uint pixel;  // tile pixel y * resolution + x
    uint slice;
    uint pad;
};

#ifdef __cplusplus
}  // namespace isc::gl
#endif

#endif
