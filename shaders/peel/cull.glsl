// Peel object sampling, before the raster pass (compute): one thread per (tile, side,
// triangle). A triangle whose screen box misses the tile's window is hit by none of the
// tile's rays; the others are appended to their draw's index list (absolute vertex
// indices) and counted into the draw's indirect command, so the single raster pass only
// rasterises triangles that matter (the raster units are the scarce resource on the H200).
#include "common/scene.glsl"
#include "peel/bindings.h"

layout(local_size_x = 64) in;

layout(std430, binding = PEEL_BINDING_TILES) readonly buffer PeelTiles { PeelTile tiles[]; };
layout(std430, binding = PEEL_BINDING_COUNTERS) buffer PeelCounters { uint counters[]; };
layout(std430, binding = PEEL_BINDING_SEGMENTS) readonly buffer PeelSegments { PeelSegment segments[]; };
layout(std430, binding = PEEL_BINDING_CULLED) writeonly buffer PeelCulled { uint culled[]; };
layout(std430, binding = PEEL_BINDING_COMMANDS) buffer PeelCommands { uint commands[]; };

uniform uint uSegmentCount;
uniform uint uItemCount;

void main() {
    uint item = gl_GlobalInvocationID.x;
    if (item >= uItemCount) return;
    uint lo = 0u, hi = uSegmentCount - 1u;
    while (lo < hi) {
        uint mid = (lo + hi + 1u) / 2u;
        if (segments[mid].firstItem <= item) lo = mid; else hi = mid - 1u;
    }
    PeelSegment s = segments[lo];  // segment index == draw index
    if ((s.side & PEEL_SEGMENT_WHOLE) != 0u) return;  // drawn whole, from the mesh's index buffer
    uint triangle = item - s.firstItem;
    GpuObject o = sceneObjects[s.object];
    uint base = 3u * (o.firstTriangle + triangle);
    uint v0 = o.firstVertex + sceneIndices[base + 0u];
    uint v1 = o.firstVertex + sceneIndices[base + 1u];
    uint v2 = o.firstVertex + sceneIndices[base + 2u];
    mat4 m = tiles[s.tile].viewProj * o.model;
    vec2 a = (m * vec4(sceneVertices[v0].xyz, 1.0)).xy;
    vec2 b = (m * vec4(sceneVertices[v1].xyz, 1.0)).xy;
    vec2 c = (m * vec4(sceneVertices[v2].xyz, 1.0)).xy;
    vec2 bmin = min(a, min(b, c)), bmax = max(a, max(b, c));
    const float margin = 1e-4;  // the fragment stage cuts exactly at the tile; this guards round-off
    if (bmax.x < -1.0 - margin || bmax.y < -1.0 - margin || bmin.x > 1.0 + margin || bmin.y > 1.0 + margin) return;
    uint slot = atomicAdd(commands[5u * lo], 3u);
    uint first = commands[5u * lo + 2u];  // firstIndex: this draw's region
    culled[first + slot] = v0;
    culled[first + slot + 1u] = v1;
    culled[first + slot + 2u] = v2;
    atomicAdd(counters[PEEL_COUNTER_RASTER_TRIANGLES], 1u);
}
