// Heightmap detector (papers/002, Fabrizio): storage binding points and std430 structs shared
// by C++ (plugin/detectors/heightmap) and GLSL (#include "heightmap/bindings.h"). Valid in both.
#ifndef ISC_SHADERS_HEIGHTMAP_BINDINGS_H
#define ISC_SHADERS_HEIGHTMAP_BINDINGS_H

#ifdef __cplusplus
namespace isc::gl {
#endif

// Binding points 0..2 are the GpuScene's (common/bindings.h); the heightmap detector uses 4..14.
#define HM_BINDING_VIEWS 4       // HmView views[]: one per (moving object, direction)
#define HM_BINDING_DRAWS 5       // HmDraw draws[]: indexed by the draw-id attribute (= baseInstance)
#define HM_BINDING_COUNTS 6      // uint counts[atlas pixels]: object fragments per pixel (crossings)
#define HM_BINDING_SLOTS 7       // uint slots[atlas pixels * MAX_LAYERS]: the object's fragment depths (sorted by resolve)
#define HM_BINDING_COLUMNS 8     // uvec4 columns[atlas pixels]: the object's column (b, c, d, t), float bits
#define HM_BINDING_FLAGS 9       // uint flags[draws]: HM_FLAG_* per environment draw
#define HM_BINDING_TRIANGLE_IDS 10  // uint triangleIds[]: mesh triangle of each culled environment triangle
#define HM_BINDING_SAMPLES 11    // HmSample samples[]: appended contact samples
#define HM_BINDING_COUNTERS 12   // uint counters[HM_COUNTER_COUNT]
#define HM_BINDING_BEST 13       // uint best[draws * HM_CRITERIA]: reduction, best value per criterion
#define HM_BINDING_WINNER 14     // uint winner[draws * HM_CRITERIA]: reduction, the pixel holding it

#define HM_ATTRIB_DRAW_ID 0      // uint vertex attribute, divisor 1: = baseInstance = draw index

// Texture units read by the sample passes.
#define HM_UNIT_DEPTH 0          // the environment pass's depth (D32F)
#define HM_UNIT_IDS 1            // the environment pass's ids (RG32UI): draw + 1, triangle
#define HM_UNIT_DEPTH_ABOVE 2    // the above pass's depth (D32F): the surface nearest above each column
#define HM_UNIT_IDS_ABOVE 3      // the above pass's ids (RG32UI): draw + 1 (| bit 31: facing the view's start), triangle

// Slots of counters[].
#define HM_COUNTER_SAMPLES 0         // samples appended (may exceed the capacity: then redone)
#define HM_COUNTER_CONTACT_PIXELS 1  // pixels where the environment is inside the object's column
#define HM_COUNTER_UPPER_PIXELS 2    // of those, pixels where it is inside an upper interval (an overhang)
#define HM_COUNTER_IMMERSED_PIXELS 3 // of those, columns wholly under an environment surface (immersed)
#define HM_COUNTER_COUNT 4

// flags[] bits of an environment draw.
#define HM_FLAG_OVERHANG 1u  // the environment reaches an upper interval of a column crossing the object > 2 times
#define HM_FLAG_OVERFLOW 2u  // the environment reaches a column with more crossings than MAX_LAYERS
#define HM_FLAG_ODD 4u       // the environment reaches a column with an odd count (skipped)

// Reduction criteria per environment draw: the deepest pixel, then the extreme pixels of
// the contact region along +-x, +-y, +-(x + y), +-(x - y) of the tile.
#define HM_CRITERIA 9

// One view: a moving object's box seen along one direction, std430, 160 bytes. Window z
// (gl_FragCoord.z) grows along `direction`.
struct HmView {
    mat4 viewProj;     // world -> clip of the view box, orthographic, [-1, 1]^3
    mat4 invViewProj;  // clip -> world
    vec4 direction;    // xyz: the projection direction (world, unit); w: the view's depth range, world units
    uint originX;      // atlas pixel of the tile's corner
    uint originY;
    uint object;       // the moving object
    uint pad;
};

// One draw, std430, 16 bytes: the moving object into its view (kind 0) or one environment
// object's culled triangles into a view (kind 1).
struct HmDraw {
    uint view;
    uint object;
    uint firstTriangle;  // kind 1: first entry in triangleIds[]
    uint kind;
};

// A contact sample, std430, 48 bytes: `point` on the environment's surface (xyz) and the
// signed distance along the normal (w, negative = penetration) of the object's extreme
// point below it; `normal` the environment triangle's outward unit normal (xyz).
struct HmSample {
    vec4 point;
    vec4 normal;
    uint draw;
    uint triangle;  // the environment triangle (mesh index)
    uint pixel;     // atlas pixel
    uint pad;
};

#ifdef __cplusplus
}  // namespace isc::gl
#endif

#endif
