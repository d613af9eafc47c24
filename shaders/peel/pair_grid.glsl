// Peel scene sampling, GPU narrowphase, the grid (compute, one invocation per record): records
// are binned by the world-space cells their triangle's box covers, in a hashed grid keyed by
// (tile, level, cell): only records of one tile can pair (their screen boxes are in that
// tile's pixels), and keying by tile keeps the other tiles' and axes' records out of a cell.
// Cells of level L are uCellSize * 8^L; a record sits at the lowest level where its box spans
// at most two cells a side (big triangles do not fill many small cells). Buckets are a power
// of two; cells that share a bucket only cost box tests.
// - PEEL_GRID_COUNT: the record's world box (widened by its float tolerance, in hi.w) and
//   level (lo.w) into recordBoxes; counts per bucket.
// - PEEL_GRID_FILL: writes the record's index into its buckets' ranges (after the scan).
#include "common/dispatch.glsl"
#include "common/scene.glsl"
#include "peel/bindings.h"
#include "peel/pair_hash.glsl"

layout(local_size_x = 64) in;

layout(std430, binding = PEEL_BINDING_DRAWS) readonly buffer PeelDraws { PeelDraw draws[]; };
layout(std430, binding = PEEL_BINDING_RECORDS) readonly buffer PeelRecords { PeelRecord records[]; };
layout(std430, binding = PEEL_BINDING_COUNTERS) buffer PeelCounters { uint counters[]; };
layout(std430, binding = PEEL_BINDING_CELL_STARTS) buffer PeelCellStarts { uint cellStarts[]; };
layout(std430, binding = PEEL_BINDING_PARTS) readonly buffer PeelParts { PeelPart parts[]; };
layout(std430, binding = PEEL_BINDING_WORLD) readonly buffer PeelWorld { vec4 world[]; };
#ifdef PEEL_GRID_COUNT
layout(std430, binding = PEEL_BINDING_RECORD_BOXES) writeonly buffer PeelRecordBoxes { PeelBox recordBoxes[]; };
#else
layout(std430, binding = PEEL_BINDING_RECORD_BOXES) readonly buffer PeelRecordBoxes { PeelBox recordBoxes[]; };
layout(std430, binding = PEEL_BINDING_CELL_FILL) buffer PeelCellFill { uint cellFill[]; };
layout(std430, binding = PEEL_BINDING_CELL_ITEMS) writeonly buffer PeelCellItems { uint cellItems[]; };
uniform uint uEntryCapacity;
#endif

uniform uint uRecordCapacity;

shared uint sEntries;

void main() {
    if (gl_LocalInvocationIndex == 0u) sEntries = 0u;
    barrier();
    uint i = iscFlatInvocation();
    if (i < min(counters[PEEL_COUNTER_RECORDS], uRecordCapacity)) {
        PeelRecord r = records[i];
        PeelDraw d = draws[r.tileSide];
#ifdef PEEL_GRID_COUNT
        PeelPart p = parts[d.side];
        uint base = 3u * (sceneObjects[p.object].firstTriangle + r.triangle);
        vec3 a = world[p.vertexBase + sceneIndices[base]].xyz;
        vec3 b = world[p.vertexBase + sceneIndices[base + 1u]].xyz;
        vec3 c = world[p.vertexBase + sceneIndices[base + 2u]].xyz;
        // Widened by the float rounding of the world vertices (see pair_test.glsl): triangles
        // that touch in exact arithmetic then share a cell and pass the box test.
        float tolerance = 1e-5 * p.errorScale;
        vec3 lo = min(a, min(b, c)) - tolerance, hi = max(a, max(b, c)) + tolerance;
        uint level = peelGridLevel(lo, hi);
        recordBoxes[i] = PeelBox(vec4(lo, float(level)), vec4(hi, tolerance));
#else
        PeelBox box = recordBoxes[i];
        vec3 lo = box.lo.xyz, hi = box.hi.xyz;
        uint level = uint(box.lo.w);
#endif
        ivec3 c0 = peelCell(lo, level), c1 = peelCell(hi, level);
        for (int z = c0.z; z <= c1.z; ++z)
            for (int y = c0.y; y <= c1.y; ++y)
                for (int x = c0.x; x <= c1.x; ++x) {
                    uint bucket = peelBucket(d.tile, level, ivec3(x, y, z));
#ifdef PEEL_GRID_COUNT
                    atomicAdd(cellStarts[bucket], 1u);
#else
                    uint k = cellStarts[bucket] + atomicAdd(cellFill[bucket], 1u);
                    if (k < uEntryCapacity) cellItems[k] = i;
#endif
                }
        ivec3 span = c1 - c0 + 1;
        atomicAdd(sEntries, uint(span.x * span.y * span.z));
    }
    barrier();
#ifdef PEEL_GRID_COUNT
    if (gl_LocalInvocationIndex == 0u && sEntries != 0u) atomicAdd(counters[PEEL_COUNTER_CELL_ENTRIES], sEntries);
#endif
}
