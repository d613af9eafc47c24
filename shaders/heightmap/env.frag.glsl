// Heightmap detector, environment pass (papers/002 section 2, the environment's height map
// Se, with the ID buffer of "Interaction"): the static objects' triangles near the view,
// depth test LESS and back faces culled as in the paper, restricted per pixel to the
// object's column (the paper's stencil restriction, done here in the shader: pixels the
// object does not cover are dropped). A fragment inside one of the object's solid
// intervals is kept: the depth test leaves the environment surface nearest to the view's
// start, and the id attachment (draw + 1, triangle) names it. Beyond the paper, whose
// object map is only its extreme surface: a column that crosses the object more than twice
// (an overhang along the view direction) is read whole from the sorted slots; a fragment in
// an upper interval sets HM_FLAG_OVERHANG and is kept only with HM_SERVE_OVERHANGS (else
// the pair goes to the exact path); in a gap it is no contact. A column with more crossings
// than MAX_LAYERS sets HM_FLAG_OVERFLOW (the pair goes to the exact path). A column with an
// odd count (a pixel centre exactly on a silhouette edge, which the raster rules give to one
// of its two triangles) is skipped: HM_FLAG_ODD, counted.
// HM_ABOVE (the above pass, beyond the paper): the environment surface nearest above each
// column (depth test GREATER, both facings, only fragments above the object's top t); the
// sample pass reads a column whose nearest surface above faces the view's start as wholly
// inside the environment (the paper's Fig. 2c, an object part thinner than its sinking).
// Defines: MAX_LAYERS, optionally HM_SERVE_OVERHANGS, or HM_ABOVE.
#include "heightmap/bindings.h"

flat in uint vDraw;
flat in uvec4 vTileRect;

uniform uint uAtlasWidth;

layout(std430, binding = HM_BINDING_DRAWS) readonly buffer HmDraws { HmDraw draws[]; };
layout(std430, binding = HM_BINDING_COUNTS) readonly buffer HmCounts { uint counts[]; };
layout(std430, binding = HM_BINDING_SLOTS) readonly buffer HmSlots { uint slots[]; };
layout(std430, binding = HM_BINDING_COLUMNS) readonly buffer HmColumns { uvec4 columns[]; };
layout(std430, binding = HM_BINDING_FLAGS) buffer HmFlags { uint flags[]; };
layout(std430, binding = HM_BINDING_TRIANGLE_IDS) readonly buffer HmTriangleIds { uint triangleIds[]; };

layout(location = 0) out uvec2 outId;

void main() {
    uvec2 q = uvec2(gl_FragCoord.xy);
    if (q.x < vTileRect.x || q.y < vTileRect.y || q.x >= vTileRect.z || q.y >= vTileRect.w) discard;
    uint pixel = q.y * uAtlasWidth + q.x;
    uint n = counts[pixel];
    if (n == 0u) discard;  // the stencil restriction: the object does not cover this pixel
    float z = gl_FragCoord.z;
    uvec4 col = columns[pixel];
    float b = uintBitsToFloat(col.x), c = uintBitsToFloat(col.y), t = uintBitsToFloat(col.w);
#ifdef HM_ABOVE
    if (z >= t || n > uint(MAX_LAYERS) || (n & 1u) != 0u) discard;
    HmDraw above = draws[vDraw];
    outId = uvec2((vDraw + 1u) | (gl_FrontFacing ? 0x80000000u : 0u),
                  triangleIds[above.firstTriangle + uint(gl_PrimitiveID)]);
    return;
#endif
    if (z > b) discard;  // beyond the object's extreme point: no contact in this column
    if (n > uint(MAX_LAYERS)) {
        atomicOr(flags[vDraw], HM_FLAG_OVERFLOW);
        discard;
    }
    if ((n & 1u) != 0u) {
        atomicOr(flags[vDraw], HM_FLAG_ODD);
        discard;
    }
    if (z < c) {
        // Beyond the lowest interval, towards the view's start.
        if (n == 2u || z < t) discard;  // above the object
        // Which interval or gap of the sorted crossings holds z: crossing i (0 = b) ends a
        // solid interval going up when i is even.
        uint i = 1u;
        while (i + 1u < n && uintBitsToFloat(slots[pixel * uint(MAX_LAYERS) + i + 1u]) > z) ++i;
        if ((i & 1u) == 1u) discard;  // in a gap: no contact
        atomicOr(flags[vDraw], HM_FLAG_OVERHANG);
#ifndef HM_SERVE_OVERHANGS
        discard;
#endif
    }
    HmDraw dr = draws[vDraw];
    outId = uvec2(vDraw + 1u, triangleIds[dr.firstTriangle + uint(gl_PrimitiveID)]);
}
