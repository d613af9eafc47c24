// Peel scene sampling, GPU narrowphase (compute, one invocation per record r): the records of
// r's tile whose triangles' world boxes share a grid cell with r's (peel/pair_grid.glsl; r
// looks at its own level and the coarser ones, so each pair is met by its finer record) pair
// with r when
// - their objects are a candidate pair (a self pair: distinct triangles of one object with no
//   shared vertex), flagged by a collision ray or in a tile whose rays overflowed;
// - this cell is the first both boxes cover at that level (so each pair is met once per tile);
// - the world boxes overlap and the clipped screen boxes overlap (papers/003 section 7's
//   sweep: the boxes come from the collision rays' bundles);
// - the float separating-axis test (common/tritri.glsl) cannot prove the triangles apart,
//   with a tolerance of 1e-5 of the parts' coordinate scale (far above the float rounding
//   of the world vertices and of the projections).
// Survivors are written as (candidate, triangle of the lower object id, triangle of the
// higher) for the exact CPU test, which has the final word.
#include "common/dispatch.glsl"
#include "common/scene.glsl"
#include "common/tritri.glsl"
#include "peel/bindings.h"
#include "peel/pair_hash.glsl"

layout(local_size_x = 64) in;

layout(std430, binding = PEEL_BINDING_DRAWS) readonly buffer PeelDraws { PeelDraw draws[]; };
layout(std430, binding = PEEL_BINDING_RECORDS) readonly buffer PeelRecords { PeelRecord records[]; };
layout(std430, binding = PEEL_BINDING_RECORD_BOXES) readonly buffer PeelRecordBoxes { PeelBox recordBoxes[]; };
layout(std430, binding = PEEL_BINDING_COUNTERS) buffer PeelCounters { uint counters[]; };
layout(std430, binding = PEEL_BINDING_CELL_STARTS) readonly buffer PeelCellStarts { uint cellStarts[]; };
layout(std430, binding = PEEL_BINDING_CELL_ITEMS) readonly buffer PeelCellItems { uint cellItems[]; };
layout(std430, binding = PEEL_BINDING_PARTS) readonly buffer PeelParts { PeelPart parts[]; };
layout(std430, binding = PEEL_BINDING_WORLD) readonly buffer PeelWorld { vec4 world[]; };
layout(std430, binding = PEEL_BINDING_PAIRS) readonly buffer PeelPairTable { uvec4 pairTable[]; };
layout(std430, binding = PEEL_BINDING_HITS) readonly buffer PeelHits { uint hits[]; };
layout(std430, binding = PEEL_BINDING_OUTPUT) writeonly buffer PeelOutput { uint outputPairs[]; };

uniform uint uRecordCapacity;
uniform uint uEntryCapacity;
uniform uint uOutputCapacity;  // triangle pairs
uniform uint uPairMask;
uniform uint uCandidateCount;  // hits[uCandidateCount + tile]: the tile's rays overflowed

uint candidateOf(uint a, uint b) {
    uint lo = min(a, b), hi = max(a, b);
    uint h = (lo * 0x9E3779B1u) ^ (hi * 0x85EBCA77u);
    h ^= h >> 15;
    for (uint probe = 0u; probe <= uPairMask; ++probe) {
        uvec4 e = pairTable[(h + probe) & uPairMask];
        if (e.x == 0xFFFFFFFFu) return 0xFFFFFFFFu;
        if (e.x == lo && e.y == hi) return e.z;
    }
    return 0xFFFFFFFFu;
}

void corners(PeelPart p, uint triangle, out vec3 c0, out vec3 c1, out vec3 c2, out uvec3 ids) {
    uint base = 3u * (sceneObjects[p.object].firstTriangle + triangle);
    ids = uvec3(sceneIndices[base], sceneIndices[base + 1u], sceneIndices[base + 2u]);
    c0 = world[p.vertexBase + ids.x].xyz;
    c1 = world[p.vertexBase + ids.y].xyz;
    c2 = world[p.vertexBase + ids.z].xyz;
}

shared uint sScreenPairs;

void main() {
    if (gl_LocalInvocationIndex == 0u) sScreenPairs = 0u;
    barrier();
    uint i = iscFlatInvocation();
    uint screenPairs = 0u;
    if (i < min(counters[PEEL_COUNTER_RECORDS], uRecordCapacity)) {
        PeelRecord r = records[i];
        PeelDraw dr = draws[r.tileSide];
        PeelPart pr = parts[dr.side];
        PeelBox rb = recordBoxes[i];
        uint rLevel = uint(rb.lo.w);
        uvec2 rlo = uvec2(r.boxLo & 0xFFFFu, r.boxLo >> 16), rhi = uvec2(r.boxHi & 0xFFFFu, r.boxHi >> 16);
        vec3 a0, a1, a2;
        uvec3 aIds;
        corners(pr, r.triangle, a0, a1, a2, aIds);
        bool tileFlag = hits[uCandidateCount + dr.tile] != 0u;
        uint lastObject = 0xFFFFFFFFu, lastCandidate = 0xFFFFFFFFu;
        for (uint level = rLevel; level < uGridLevels; ++level) {
            ivec3 c0 = peelCell(rb.lo.xyz, level), c1 = peelCell(rb.hi.xyz, level);
            for (int z = c0.z; z <= c1.z; ++z)
                for (int y = c0.y; y <= c1.y; ++y)
                    for (int x = c0.x; x <= c1.x; ++x) {
                        uint bucket = peelBucket(dr.tile, level, ivec3(x, y, z));
                        uint end = min(cellStarts[bucket + 1u], uEntryCapacity);
                        for (uint k = cellStarts[bucket]; k < end; ++k) {
                            uint j = cellItems[k];
                            if (j == i) continue;
                            PeelBox qb = recordBoxes[j];
                            if (uint(qb.lo.w) != level) continue;  // another level in this bucket
                            PeelRecord q = records[j];
                            PeelDraw dq = draws[q.tileSide];
                            if (dq.tile != dr.tile) continue;  // another tile in this bucket
                            bool self = dq.object == dr.object;
                            if (level == rLevel) {  // both look: the lower object (triangle) reports
                                if (dq.object < dr.object || (self && q.triangle <= r.triangle)) continue;
                            } else if (self && q.triangle == r.triangle) {
                                continue;
                            }
                            if (any(greaterThan(qb.lo.xyz, rb.hi.xyz)) || any(greaterThan(rb.lo.xyz, qb.hi.xyz)))
                                continue;
                            if (peelCell(max(rb.lo.xyz, qb.lo.xyz), level) != ivec3(x, y, z)) continue;  // met before
                            uvec2 qlo = uvec2(q.boxLo & 0xFFFFu, q.boxLo >> 16), qhi = uvec2(q.boxHi & 0xFFFFu, q.boxHi >> 16);
                            if (any(greaterThan(qlo, rhi)) || any(greaterThan(rlo, qhi))) continue;
                            if (dq.object != lastObject) {
                                lastObject = dq.object;
                                lastCandidate = candidateOf(dr.object, dq.object);
                            }
                            uint c = lastCandidate;
                            if (c == 0xFFFFFFFFu || (hits[c] == 0u && !tileFlag)) continue;
                            PeelPart pq = parts[dq.side];
                            vec3 b0, b1, b2;
                            uvec3 bIds;
                            corners(pq, q.triangle, b0, b1, b2, bIds);
                            if (self && (any(equal(aIds, bIds.xxx)) || any(equal(aIds, bIds.yyy)) ||
                                         any(equal(aIds, bIds.zzz))))
                                continue;  // adjacent triangles of one mesh are never reported (as the reference)
                            ++screenPairs;
                            float tolerance = max(rb.hi.w, qb.hi.w);
                            if (!iscTrianglesMayIntersect(a0, a1, a2, b0, b1, b2, tolerance)) continue;
                            uint slot = atomicAdd(counters[PEEL_COUNTER_OUTPUT], 1u);
                            if (slot < uOutputCapacity) {
                                bool rFirst = self ? r.triangle < q.triangle : dr.object < dq.object;
                                outputPairs[3u * slot] = c;
                                outputPairs[3u * slot + 1u] = rFirst ? r.triangle : q.triangle;
                                outputPairs[3u * slot + 2u] = rFirst ? q.triangle : r.triangle;
                            }
                        }
                    }
        }
    }
    if (screenPairs != 0u) atomicAdd(sScreenPairs, screenPairs);
    barrier();
    if (gl_LocalInvocationIndex == 0u && sScreenPairs != 0u) atomicAdd(counters[PEEL_COUNTER_SCREEN_PAIRS], sScreenPairs);
}
