// Peel object sampling, fragment stage: stores the fragment in the pixel's next slot (a
// per-pixel atomic counter: no global contention): (depth, side, facing) for pair tiles,
// uvec2(depth, facing; object id) with PEEL_SCENE. A pixel with more than MAX_LAYERS
// fragments keeps only the first MAX_LAYERS; its count tells the resolve pass to mark the
// ray colliding (the paper's conservative layer cap). No other per-pixel work: sorting and
// the ray test run in peel_resolve. Defines: MAX_LAYERS, optionally PEEL_SCENE.
#include "peel_bindings.h"

layout(std430, binding = PEEL_BINDING_HEADS) coherent buffer PeelCounts { uint counts[]; };
#ifdef PEEL_SCENE
layout(std430, binding = PEEL_BINDING_NODES) writeonly buffer PeelSlots { uvec2 slots[]; };
#else
layout(std430, binding = PEEL_BINDING_NODES) writeonly buffer PeelSlots { uint slots[]; };
#endif

uniform uint uAtlasWidth;

flat in uint vTag;
flat in uvec4 vTileRect;

void main() {
    uvec2 q = uvec2(gl_FragCoord.xy);
    if (q.x < vTileRect.x || q.y < vTileRect.y || q.x >= vTileRect.z || q.y >= vTileRect.w) return;
    uint pixel = uint(gl_FragCoord.y) * uAtlasWidth + uint(gl_FragCoord.x);
    uint index = atomicAdd(counts[pixel], 1u);
    if (index >= uint(MAX_LAYERS)) return;
    uint depth = uint(clamp(gl_FragCoord.z, 0.0, 1.0) * PEEL_DEPTH_SCALE);
#ifdef PEEL_SCENE
    slots[pixel * uint(MAX_LAYERS) + index] = uvec2((depth << 1) | (gl_FrontFacing ? 1u : 0u), vTag);
#else
    slots[pixel * uint(MAX_LAYERS) + index] = (depth << 2) | (vTag << 1) | (gl_FrontFacing ? 1u : 0u);
#endif
}
