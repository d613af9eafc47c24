// Peel sampling "peeling" (papers/003 section 4.1), compute: the depth complexity as a GPU
// max-reduction over the counting pass's fragments per pixel. The paper reduces log-step
// over a texture; here each workgroup reduces its 8x8 pixels in shared memory and one
// thread per workgroup folds the result into the global counter (atomic max), which the CPU
// reads to know how many peeling passes to run. Also sums the fragments and counts the rays
// over the layer cap (MAX_LAYERS: marked colliding by the first peeling step).
// Defines: MAX_LAYERS.
#include "peel/bindings.h"

layout(local_size_x = 8, local_size_y = 8) in;

layout(std430, binding = PEEL_BINDING_TILES) readonly buffer PeelTiles { PeelTile tiles[]; };
layout(std430, binding = PEEL_BINDING_HEADS) readonly buffer PeelCounts { uint counts[]; };
layout(std430, binding = PEEL_BINDING_COUNTERS) buffer PeelCounters { uint counters[]; };

uniform uint uTileSize;
uniform uint uAtlasWidth;

shared uint sMax[64];
shared uint sFragments, sOverflow;

void main() {
    uint i = gl_LocalInvocationIndex;
    if (i == 0u) {
        sFragments = 0u;
        sOverflow = 0u;
    }
    barrier();
    uvec2 p = gl_GlobalInvocationID.xy;
    uint n = 0u;
    if (p.x < uTileSize && p.y < uTileSize) {
        PeelTile tile = tiles[gl_WorkGroupID.z];
        n = counts[(tile.originY + p.y) * uAtlasWidth + tile.originX + p.x];
    }
    if (n != 0u) atomicAdd(sFragments, n);
    if (n > uint(MAX_LAYERS)) atomicAdd(sOverflow, 1u);
    sMax[i] = n;
    barrier();
    for (uint stride = 32u; stride > 0u; stride >>= 1) {  // log-step reduce-max
        if (i < stride) sMax[i] = max(sMax[i], sMax[i + stride]);
        barrier();
    }
    if (i == 0u) {
        if (sMax[0] != 0u) atomicMax(counters[PEEL_COUNTER_MAX_DEPTH], sMax[0]);
        if (sFragments != 0u) atomicAdd(counters[PEEL_COUNTER_FRAGMENTS], sFragments);
        if (sOverflow != 0u) atomicAdd(counters[PEEL_COUNTER_OVERFLOW_RAYS], sOverflow);
    }
}
