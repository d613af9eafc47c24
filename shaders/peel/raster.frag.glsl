// Peel object sampling, fragment stage. Three variants:
// - default: stores the fragment in the pixel's next slot (a per-pixel atomic counter: no
//   global contention): (depth, side, facing) for pair tiles, uvec2(depth, facing; object
//   id) with PEEL_SCENE. A pixel with more than MAX_LAYERS fragments keeps only the first
//   MAX_LAYERS; its count tells the resolve pass to mark the ray colliding (the paper's
//   conservative layer cap). Sorting and the ray test run in peel_resolve.
// - PEEL_COUNT (sampling "peeling", papers/003 section 4.1): the counting pass, fragments
//   per pixel only (peel_depth_max reduces them to the depth complexity).
// - PEEL_PEEL (sampling "peeling", sections 4.1 and 4.2): one depth-peeling pass from the
//   front and from the back at once (dual depth peeling): of the fragments strictly between
//   the layers peeled so far (lo <= key <= hi), the nearest and the farthest key are kept
//   through atomic MAX on (~key, key + 1): the MIN/MAX blending of dual depth peeling, on a
//   storage buffer because the key carries the side and facing bits and the framebuffer has
//   no attachments. Rays already marked colliding are skipped (the paper discards them).
// Defines: MAX_LAYERS, optionally PEEL_SCENE, PEEL_COUNT or PEEL_PEEL.
#include "peel/bindings.h"

flat in uint vTag;
flat in uvec4 vTileRect;

uniform uint uAtlasWidth;

#if defined(PEEL_COUNT)
layout(std430, binding = PEEL_BINDING_HEADS) buffer PeelCounts { uint counts[]; };
#elif defined(PEEL_PEEL)
layout(std430, binding = PEEL_BINDING_PEEL_STATE) readonly buffer PeelState { uvec4 peelState[]; };
layout(std430, binding = PEEL_BINDING_PEEL_LAYER) buffer PeelLayer { uvec2 peelLayer[]; };
#else
layout(std430, binding = PEEL_BINDING_HEADS) coherent buffer PeelCounts { uint counts[]; };
#ifdef PEEL_SCENE
layout(std430, binding = PEEL_BINDING_NODES) writeonly buffer PeelSlots { uvec2 slots[]; };
#else
layout(std430, binding = PEEL_BINDING_NODES) writeonly buffer PeelSlots { uint slots[]; };
#endif
#endif

void main() {
    uvec2 q = uvec2(gl_FragCoord.xy);
    if (q.x < vTileRect.x || q.y < vTileRect.y || q.x >= vTileRect.z || q.y >= vTileRect.w) return;
    uint pixel = uint(gl_FragCoord.y) * uAtlasWidth + uint(gl_FragCoord.x);
#if defined(PEEL_COUNT)
    atomicAdd(counts[pixel], 1u);
#elif defined(PEEL_PEEL)
    uvec4 s = peelState[pixel];
    if ((s.z & PEEL_RAY_COLLIDING) != 0u) return;
    // Depth below 2^30 - 1: the key stays <= PEEL_MAX_PEEL_KEY (~key and key + 1 non-zero).
    uint depth = min(uint(clamp(gl_FragCoord.z, 0.0, 1.0) * PEEL_DEPTH_SCALE), 0x3FFFFFFEu);
    uint key = (depth << 2) | (vTag << 1) | (gl_FrontFacing ? 1u : 0u);
    if (key < s.x || key > ~s.y) return;  // peeled already (from the front or from the back)
    atomicMax(peelLayer[pixel].x, ~key);     // nearest remaining
    atomicMax(peelLayer[pixel].y, key + 1u); // farthest remaining
#else
    uint index = atomicAdd(counts[pixel], 1u);
    if (index >= uint(MAX_LAYERS)) return;
    uint depth = uint(clamp(gl_FragCoord.z, 0.0, 1.0) * PEEL_DEPTH_SCALE);
#ifdef PEEL_SCENE
    slots[pixel * uint(MAX_LAYERS) + index] = uvec2((depth << 1) | (gl_FrontFacing ? 1u : 0u), vTag);
#else
    slots[pixel * uint(MAX_LAYERS) + index] = (depth << 2) | (vTag << 1) | (gl_FrontFacing ? 1u : 0u);
#endif
#endif
}
