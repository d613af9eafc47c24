// CInDeR detector, the raster passes' fragments. With CD_EDGES (pass 1, the edges drawn as
// lines): every edge fragment goes into its pixel's next edge slot, (window depth, object slot
// << 24 | edge index); the paper keeps only the last edge per pixel in its depth buffer.
// Without (the filled triangles of passes 2-3 and 5-6): every surface fragment of a pixel with an edge goes into the
// pixel's next surface slot, (window depth, object slot << 24 | triangle index); the resolve
// pass counts them per object instead of the stencil. No depth test, no culling.
// Defines: MAX_LAYERS, CD_EDGES (optional).
#include "cinder/bindings.h"

flat in uint vDraw;
flat in uvec4 vTileRect;

uniform uint uAtlasWidth;
uniform uint uPixelCount;

layout(std430, binding = CD_BINDING_DRAWS) readonly buffer CdDraws { CdDraw draws[]; };
layout(std430, binding = CD_BINDING_COUNTS) buffer CdCounts { uint counts[]; };
layout(std430, binding = CD_BINDING_CULL_IDS) readonly buffer CdCullIds { uint cullIds[]; };
#ifdef CD_EDGES
layout(std430, binding = CD_BINDING_EDGE_SLOTS) writeonly buffer CdSlots { uvec2 slots[]; };
#else
layout(std430, binding = CD_BINDING_SURF_SLOTS) writeonly buffer CdSlots { uvec2 slots[]; };
#endif

void main() {
    uvec2 q = uvec2(gl_FragCoord.xy);
    if (q.x < vTileRect.x || q.y < vTileRect.y || q.x >= vTileRect.z || q.y >= vTileRect.w) return;
    uint pixel = q.y * uAtlasWidth + q.x;
#ifdef CD_EDGES
    uint index = atomicAdd(counts[pixel], 1u);
#else
    // Only where pass 1 left an edge: the resolve reads no other pixel's surfaces, and most of a
    // tile's pixels hold none (the surfaces' atomics and stores were most of the raster's cost).
    if (counts[pixel] == 0u) return;
    uint index = atomicAdd(counts[uPixelCount + pixel], 1u);
#endif
    if (index < uint(MAX_LAYERS)) {
        // A culled draw's primitives are its kept ones, in the cull's order: their own index from cullIds.
        CdDraw d = draws[vDraw];
        uint prim = d.primBase == CD_NOT_CULLED ? uint(gl_PrimitiveID) : cullIds[d.primBase + uint(gl_PrimitiveID)];
        uint id = (d.slot << 24) | (prim & CD_PRIM_MASK);
        slots[pixel * uint(MAX_LAYERS) + index] = uvec2(floatBitsToUint(clamp(gl_FragCoord.z, 0.0, 1.0)), id);
    }
}
