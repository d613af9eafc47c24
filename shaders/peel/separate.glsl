// Peel primitive separation (papers/003 section 6), compute: one thread per (tile, side,
// triangle). The triangle's screen box picks the mipmap level whose texels are at least
// as large; the (up to four) texels under the box corners are unioned and clipped by the
// box. A triangle whose clipped box is empty is hit by no collision ray and is dropped;
// the others are written as PeelRecords, appended (COMPACT_ATOMIC, a compute stream
// compaction) or at their own slot of a sparse array (COMPACT_PACKING, packed afterwards by
// peel_pack_count / peel_pack_move as in section 3).
// A record names its owner: tile * 2 + side for pair tiles, the segment (tile, object)
// with PEEL_SCENE, the draw (tile, part) with PEEL_WORLD (scene sampling after the 3-D cull:
// the items are the draws' kept triangles, numbered by the scan of peel/draw_items.glsl, and
// the corners come from world[]).
// Defines: COMPACT_ATOMIC or COMPACT_PACKING, optionally PEEL_SCENE, PEEL_WORLD.
#include "common/dispatch.glsl"
#ifndef PEEL_WORLD
#include "common/scene.glsl"
#endif
#include "peel/bindings.h"

layout(local_size_x = 64) in;

layout(std430, binding = PEEL_BINDING_TILES) readonly buffer PeelTiles { PeelTile tiles[]; };
layout(std430, binding = PEEL_BINDING_COUNTERS) buffer PeelCounters { uint counters[]; };
layout(std430, binding = PEEL_BINDING_PYRAMID) readonly buffer PeelPyramid { uvec2 pyramid[]; };
#ifdef PEEL_WORLD
layout(std430, binding = PEEL_BINDING_DRAWS) readonly buffer PeelDraws { PeelDraw draws[]; };
layout(std430, binding = PEEL_BINDING_SCAN) readonly buffer PeelScan { uint scanData[]; };
layout(std430, binding = PEEL_BINDING_PARTS) readonly buffer PeelParts { PeelPart parts[]; };
layout(std430, binding = PEEL_BINDING_WORLD) readonly buffer PeelWorld { vec4 world[]; };
layout(std430, binding = PEEL_BINDING_KEPT_INDICES) readonly buffer PeelKeptIndices { uint keptIndices[]; };
layout(std430, binding = PEEL_BINDING_KEPT_TRIANGLES) readonly buffer PeelKeptTriangles { uint keptTriangles[]; };
uniform uint uDrawBegin;  // this batch's draws [uDrawBegin, uDrawEnd)
uniform uint uDrawEnd;
uniform uint uFirstTile;  // tiles[] index of the batch's first tile (the pyramid is per batch)
#else
layout(std430, binding = PEEL_BINDING_SEGMENTS) readonly buffer PeelSegments { PeelSegment segments[]; };
#endif
layout(std430, binding = PEEL_BINDING_RECORDS) writeonly buffer PeelRecords { PeelRecord records[]; };

uniform uint uTileSize;
uniform uint uLevels;          // log2(uTileSize)
uniform uint uPyramidStride;
uniform uint uSegmentCount;
uniform uint uItemCount;
uniform uint uRecordCapacity;  // COMPACT_ATOMIC: records[] length

uvec2 unite(uvec2 a, uvec2 b) {
    uvec2 lo = min(uvec2(a.x & 0xFFFFu, a.x >> 16), uvec2(b.x & 0xFFFFu, b.x >> 16));
    uvec2 hi = max(uvec2(a.y & 0xFFFFu, a.y >> 16), uvec2(b.y & 0xFFFFu, b.y >> 16));
    return uvec2(lo.x | (lo.y << 16), hi.x | (hi.y << 16));
}

shared uint sCount, sBase;

// The separation of one item: false when the triangle is hit by no collision ray.
#ifdef PEEL_WORLD
uint itemCount() { return scanData[uDrawEnd] - scanData[uDrawBegin]; }
#else
uint itemCount() { return uItemCount; }
#endif

bool separateItem(uint item, out PeelRecord r) {
    r = PeelRecord(0u, 0xFFFFFFFFu, 0u, 0u);
    vec3 c[3];
#ifdef PEEL_WORLD
    // The draw holding this item: the last with scanData[d] <= item.
    uint g = scanData[uDrawBegin] + item;
    uint lo = uDrawBegin, hi = uDrawEnd - 1u;
    while (lo < hi) {
        uint mid = (lo + hi + 1u) / 2u;
        if (scanData[mid] <= g) lo = mid; else hi = mid - 1u;
    }
    PeelDraw d = draws[lo];
    uint slot = parts[d.side].triangleBase + (g - scanData[lo]);
    uint triangle = keptTriangles[slot];
    for (uint k = 0u; k < 3u; ++k) c[k] = world[keptIndices[3u * slot + k]].xyz;
    PeelTile tile = tiles[d.tile];
    uint tileInBatch = d.tile - uFirstTile;
#else
    // The segment holding this item: the last with firstItem <= item.
    uint lo = 0u, hi = uSegmentCount - 1u;
    while (lo < hi) {
        uint mid = (lo + hi + 1u) / 2u;
        if (segments[mid].firstItem <= item) lo = mid; else hi = mid - 1u;
    }
    PeelSegment s = segments[lo];
    uint triangle = item - s.firstItem;
    PeelTile tile = tiles[s.tile];
    uint tileInBatch = s.tile;
    sceneWorldTriangle(s.object, triangle, c[0], c[1], c[2]);
#endif
    float R = float(uTileSize);
    vec2 bmin = vec2(1e30), bmax = vec2(-1e30);
    for (int k = 0; k < 3; ++k) {
        vec2 q = ((tile.viewProj * vec4(c[k], 1.0)).xy * 0.5 + 0.5) * R;
        bmin = min(bmin, q);
        bmax = max(bmax, q);
    }
    if (bmax.x < 0.0 || bmax.y < 0.0 || bmin.x >= R || bmin.y >= R) return false;
    uvec2 b0 = uvec2(clamp(floor(bmin), vec2(0.0), vec2(R - 1.0)));
    uvec2 b1 = uvec2(clamp(floor(bmax), vec2(0.0), vec2(R - 1.0)));
    uint size = max(b1.x - b0.x, b1.y - b0.y) + 1u;
    uint level = 1u;
    while ((1u << level) < size && level < uLevels) ++level;

    uint offset = 0u;
    for (uint k = 1u; k < level; ++k) offset += (uTileSize >> k) * (uTileSize >> k);
    uint dim = uTileSize >> level;
    uint base = tileInBatch * uPyramidStride + offset;
    uvec2 t0 = b0 >> level, t1 = b1 >> level;
    uvec2 box = unite(unite(pyramid[base + t0.y * dim + t0.x], pyramid[base + t0.y * dim + t1.x]),
                      unite(pyramid[base + t1.y * dim + t0.x], pyramid[base + t1.y * dim + t1.x]));
    uvec2 lo2 = max(uvec2(box.x & 0xFFFFu, box.x >> 16), b0);
    uvec2 hi2 = min(uvec2(box.y & 0xFFFFu, box.y >> 16), b1);
    if (lo2.x > hi2.x || lo2.y > hi2.y) return false;
#if defined(PEEL_SCENE) || defined(PEEL_WORLD)
    uint owner = lo;
#else
    uint owner = s.tile * 2u + (s.side & ~PEEL_SEGMENT_WHOLE);
#endif
    r = PeelRecord(owner, triangle, lo2.x | (lo2.y << 16), hi2.x | (hi2.y << 16));
    return true;
}

void main() {
    uint item = iscFlatInvocation();
    PeelRecord r;
    bool keep = item < itemCount() && separateItem(item, r);
#ifdef COMPACT_ATOMIC
    // Stream compaction: one global atomic per workgroup, slots handed out in shared memory.
    if (gl_LocalInvocationIndex == 0u) sCount = 0u;
    barrier();
    uint local = 0u;
    if (keep) local = atomicAdd(sCount, 1u);
    barrier();
    if (gl_LocalInvocationIndex == 0u) sBase = sCount == 0u ? 0u : atomicAdd(counters[PEEL_COUNTER_RECORDS], sCount);
    barrier();
    if (keep && sBase + local < uRecordCapacity) records[sBase + local] = r;  // else: redone, larger
#else
    if (item >= itemCount()) return;
    if (keep) atomicAdd(counters[PEEL_COUNTER_RECORDS], 1u);
#ifdef PEEL_WORLD
    records[scanData[uDrawBegin] + item] = r;  // the call's items: every batch its own range
#else
    records[item] = r;  // empty slots carry triangle 0xFFFFFFFF
#endif
#endif
}
