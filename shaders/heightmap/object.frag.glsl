// Heightmap detector, object pass (papers/002 section 2, the object's height map So): every
// fragment of the moving object is kept, its window depth stored in the pixel's next slot
// (a per-pixel atomic counter; no depth test, no culling). The resolve pass sorts them: the
// paper's "inverted depth test and culling" give the one extreme surface, the slots give
// the whole column (its lowest solid interval, and whether there is more than one).
// Defines: MAX_LAYERS.
#include "heightmap/bindings.h"

flat in uint vDraw;
flat in uvec4 vTileRect;

uniform uint uAtlasWidth;

layout(std430, binding = HM_BINDING_COUNTS) buffer HmCounts { uint counts[]; };
layout(std430, binding = HM_BINDING_SLOTS) writeonly buffer HmSlots { uint slots[]; };

void main() {
    uvec2 q = uvec2(gl_FragCoord.xy);
    if (q.x < vTileRect.x || q.y < vTileRect.y || q.x >= vTileRect.z || q.y >= vTileRect.w) return;
    uint pixel = q.y * uAtlasWidth + q.x;
    uint index = atomicAdd(counts[pixel], 1u);
    // Window depth is in [0, 1]: its float bits sort like the floats.
    if (index < uint(MAX_LAYERS)) slots[pixel * uint(MAX_LAYERS) + index] = floatBitsToUint(clamp(gl_FragCoord.z, 0.0, 1.0));
}
