// Peel scene sampling, after the 3-D cull (compute, one workgroup of 1024): each draw (one
// part's kept triangles into one tile) gets its triangle count into its indirect command, and
// the exclusive scan of the counts (scanData[draw], total at scanData[draws]) numbers the
// separation items of every draw (draw d owns items [scanData[d], scanData[d + 1])); the
// total is the call's rasterized triangles (counter PEEL_COUNTER_RASTER_TRIANGLES).
#include "peel/bindings.h"

layout(local_size_x = 1024) in;

layout(std430, binding = PEEL_BINDING_DRAWS) readonly buffer PeelDraws { PeelDraw draws[]; };
layout(std430, binding = PEEL_BINDING_KEPT_COUNTS) readonly buffer PeelKeptCounts { uint keptCounts[]; };
layout(std430, binding = PEEL_BINDING_COMMANDS) writeonly buffer PeelCommands { uint commands[]; };
layout(std430, binding = PEEL_BINDING_SCAN) coherent buffer PeelScan { uint scanData[]; };
layout(std430, binding = PEEL_BINDING_COUNTERS) buffer PeelCounters { uint counters[]; };

uniform uint uDrawCount;

#include "peel/scan.glsl"

void main() {
    for (uint d = gl_LocalInvocationIndex; d < uDrawCount; d += 1024u) {
        uint n = keptCounts[draws[d].side];  // side: the part
        commands[5u * d] = 3u * n;
        scanData[d] = n;
    }
    memoryBarrierBuffer();
    barrier();
    peelScanExclusive(uDrawCount);
    if (gl_LocalInvocationIndex == 0u) counters[PEEL_COUNTER_RASTER_TRIANGLES] = scanData[uDrawCount];
}
