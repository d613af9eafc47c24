// CInDeR detector (papers/000, Malmsten & Klasen after Knott & Pai): storage binding points and
// std430 structs shared by C++ (plugin/detectors/cinder) and GLSL (#include "cinder/bindings.h").
// Valid in both languages.
#ifndef ISC_SHADERS_CINDER_BINDINGS_H
#define ISC_SHADERS_CINDER_BINDINGS_H

#ifdef __cplusplus
namespace isc::gl {
#endif

// Binding points 0..2 are the GpuScene's (common/bindings.h); the cinder detector uses 4..18.
#define CD_BINDING_VIEWS 4        // CdView views[]: one per (view group, axis) tile of the atlas
#define CD_BINDING_DRAWS 5        // CdDraw draws[]: indexed by the draw-id attribute (= baseInstance)
#define CD_BINDING_COUNTS 6       // uint counts[2 * atlas pixels]: edge fragments, then surface fragments per pixel
#define CD_BINDING_EDGE_SLOTS 7   // uvec2 edgeSlots[pixels * MAX_LAYERS]: (depth bits, slot << 24 | edge)
#define CD_BINDING_SURF_SLOTS 8   // uvec2 surfSlots[pixels * MAX_LAYERS]: (depth bits, slot << 24 | triangle)
#define CD_BINDING_HITS 9         // CdHit hits[]: compacted edge hits (readback=compact)
#define CD_BINDING_COUNTERS 10    // uint counters[CD_COUNTER_COUNT]
#define CD_BINDING_EDGES 11       // uvec4 edges[]: per mesh edge (vertex 0, vertex 1, triangle 0, triangle 1), mesh-relative
#define CD_BINDING_VIEW_OBJECTS 12  // uint viewObjects[]: the objects of each view group, by slot
#define CD_BINDING_COLOUR 13      // uint colour[]: readback=mipmap, one pair code per pixel, then its mip levels
#define CD_BINDING_MESH_EDGES 14  // uint meshEdgeFirst[]: per MeshId, its first entry in edges[]; one more entry: the end
#define CD_BINDING_VIEW_FLAGS 15  // uint viewFlags[]: per view, 1 when a pixel of it overflowed MAX_LAYERS
#define CD_BINDING_COMMANDS 16    // uint commands[5 * draws]: the pass's indirect draws (cull.glsl adds to their counts)
#define CD_BINDING_CULL_INDICES 17  // uint cullIndices[]: the kept primitives' vertex indices (mesh-relative), per draw from firstIndex
#define CD_BINDING_CULL_IDS 18    // uint cullIds[]: per kept primitive (draw's primBase + its rank), its edge or triangle index

#define CD_ATTRIB_DRAW_ID 0       // uint vertex attribute, divisor 1: = baseInstance = draw index

// Object slots are 8 bits (the paper codes an object id in 8-bit colour channels): a view holds
// at most CD_MAX_VIEW_OBJECTS objects; more candidates make more view groups (a second pass).
#define CD_SLOT_BITS 8u
#define CD_MAX_VIEW_OBJECTS 255u   // slot 255 is never used (it marks "no object")
#define CD_PRIM_MASK 0x00FFFFFFu   // edge or triangle index: 24 bits (meshes up to 16M triangles)

// Slots of counters[].
#define CD_COUNTER_HITS 0          // hits appended (may exceed the capacity: then the pass is redone)
#define CD_COUNTER_INSIDE 1        // edge fragments inside the other object's volume (the paper's stencil != 0)
#define CD_COUNTER_NEAR 2          // edge fragments within the proximity tolerance of the other's surface (not inside)
#define CD_COUNTER_OVERFLOW 3      // pixels with more fragments than MAX_LAYERS (their edges count as near)
#define CD_COUNTER_EDGES_KEPT 4    // edges the cull kept (drawn), summed over the batch's draws
#define CD_COUNTER_TRIANGLES_KEPT 5  // triangles the cull kept (drawn)
#define CD_COUNTER_COUNT 6

// CdDraw::primBase when the draw is not culled: its primitive index is gl_PrimitiveID itself.
#define CD_NOT_CULLED 0xFFFFFFFFu

// CdHit::flags bits.
#define CD_HIT_INSIDE 1u           // the edge point is inside the volume (winding != 0): a contact sample
#define CD_HIT_NEAR 2u             // not inside, but within the proximity tolerance of the volume's surface
#define CD_HIT_CROSSING 4u         // within 1.5 pixels (in depth) of the volume's surface: the edge crosses it here

// One tile of the atlas: a view group's objects seen along one axis, std430 (192 bytes).
struct CdView {
    mat4 viewProj;       // world -> clip: orthographic, the view box to [-1, 1]^3
    mat4 invViewProj;    // clip -> world
    uint originX;        // the tile's lower-left atlas pixel
    uint originY;
    uint firstObject;    // the view group's objects: viewObjects[firstObject + slot]
    uint objectCount;
    float nearWorld;     // tolerance of the proximity test, world units (about 1.5 pixels)
    float depthExtent;   // world length of the view's depth range (window depth 0..1)
    uint axis;           // 0, 1, 2: the view's rays run along +axis (window depth grows with it)
    float crossWorld;    // an edge point this near the surface (world units, 1.5 pixels) is where it crosses
    vec4 cullLo;         // the cull's world box (xyz; w unused): where the view's pairs can meet, grown by
    vec4 cullHi;         //   a margin; edges are kept when their box meets it, triangles when their box
                         //   meets its footprint across the axis (the prism along the rays: the parity
                         //   needs every crossing in front of an edge point, wherever it lies in depth)
};

// One indirect draw: an object (its edges or its triangles) into a view. The edge pass's draws
// and the surface pass's draws are separate entries (the draw-id attribute picks one).
struct CdDraw {
    uint view;
    uint object;
    uint slot;           // the object's slot in the view group
    uint primBase;       // culled: its kept primitives' ids start at cullIds[primBase] (and its indices at
                         // cullIndices[primBase * vertices a primitive]); CD_NOT_CULLED: drawn whole
};

// One edge hit, std430 (48 bytes): an edge of the penetrating object (slot a) at a pixel where
// it lies inside (or near) the volume of the penetrated object (slot b).
struct CdHit {
    vec4 point;          // xyz: world point on the edge; w: signed distance to the reported
                         // triangle's plane (negative inside), world units
    uint view;
    uint slots;          // slot a | slot b << 8 | flags << 16
    uint edge;           // edge index in a's mesh (CD_BINDING_EDGES order)
    uint triangle;       // b's triangle reported (its plane gives w): at a crossing the one nearest in
                         // depth, inside otherwise the crossed one whose plane is nearest
    uint normal;         // b's outward unit normal there, octahedral, 2 x 16-bit snorm (x low)
    uint pixel;          // atlas pixel (y * width + x)
    float rayDistance;   // distance along the view ray to b's nearest surface there, world units
                         // (a bound on the point's depth in b: that surface point is b's)
    uint pad;
};

#ifdef __cplusplus
}  // namespace isc::gl
#endif

#endif
