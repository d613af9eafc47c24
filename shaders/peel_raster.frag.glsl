// Peel object sampling, fragment stage: appends (depth, side, facing) to the pixel's list.
// No per-pixel arithmetic beyond the append: sorting and the ray test run in peel_resolve.
#include "peel_bindings.h"

layout(std430, binding = PEEL_BINDING_HEADS) coherent buffer PeelHeads { uint heads[]; };
layout(std430, binding = PEEL_BINDING_NODES) writeonly buffer PeelNodes { uvec2 nodes[]; };
layout(std430, binding = PEEL_BINDING_COUNTERS) coherent buffer PeelCounters { uint counters[]; };

uniform uint uAtlasWidth;
uniform uint uNodeCapacity;

flat in uint vSide;

void main() {
    uint index = atomicAdd(counters[PEEL_COUNTER_FRAGMENTS], 1u);
    if (index >= uNodeCapacity) return;  // the pass is redone with a larger pool
    uint depth = uint(clamp(gl_FragCoord.z, 0.0, 1.0) * PEEL_DEPTH_SCALE);
    uint word = (depth << 2) | (vSide << 1) | (gl_FrontFacing ? 1u : 0u);
    uint pixel = uint(gl_FragCoord.y) * uAtlasWidth + uint(gl_FragCoord.x);
    uint next = atomicExchange(heads[pixel], index + 1u);
    nodes[index] = uvec2(word, next);
}
