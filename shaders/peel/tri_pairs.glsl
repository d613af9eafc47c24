// Peel scene sampling without collision rays (settings.rays off, the default without
// self-collision): the GPU narrowphase straight from the 3-D cull. One 64-invocation
// workgroup per cluster pair (peel/cluster_pairs.glsl, walked with the float tolerance as
// the margin): the two clusters' triangles (at most 32 each) go to shared memory, then the
// 32 x 32 triangle pairs are split over the invocations; a pair whose world boxes come
// within the tolerance and that the float separating-axis test (common/tritri.glsl) cannot
// prove apart is written as (candidate, triangle of the lower object id, triangle of the
// higher) for the exact CPU test, which has the final word.
// Why nothing true is lost: two triangles that touch (exactly, in double) have float world
// boxes within the tolerance (1e-5 of the parts' coordinate scale, far above the float
// rounding of the world vertices), so their clusters' boxes, and every ancestor's, come within
// it as well: the walk reaches the cluster pair, and each triangle is in exactly one cluster,
// so each triangle pair is met once.
// The workgroups stride over the list (workgroup g takes cluster pairs g, g + groups, ...):
// dispatched indirectly from the count (the levels walk) or as a fixed grid sized from the
// last call (the fused walk: no indirect-argument pass). With PEEL_LOCAL_VERTICES the corners
// come from the scene's local vertices and the object's model matrix (no world-vertex pass;
// the same expression as peel/world.glsl: within float rounding of the exact corners, which
// is all the tolerance argument above needs). With PEEL_WALK_RECORDS (the fused walk without
// rays, from the local vertices) the walk's records carry the candidate, the margin, the objects
// and the clusters' absolute slot ranges, and slotTriangles the corners' vertex indices: record,
// then slot triangle and object, then corners (3 dependent loads instead of 8); and each
// triangle is first tested against the other cluster's box (nodeBoxes, the walk's), so that the
// pair test runs over the kept triangles of each side only (a few of 32 in a pile's contact)
// instead of all 32 x 32. With PEEL_RECORD_BOXES (the cluster walk on the CPU) a record is five
// uvec4: the two above, then the two clusters' boxes as float bits (A's lo.xyz, hi.xyz, then
// B's), so that no node boxes are copied to the GPU; the same boxes, so the same triangles kept.
#include "common/dispatch.glsl"
#include "common/scene.glsl"
#include "common/tritri.glsl"
#include "peel/bindings.h"

layout(local_size_x = 64) in;

layout(std430, binding = PEEL_BINDING_PARTS) readonly buffer PeelParts { PeelPart parts[]; };
#ifndef PEEL_LOCAL_VERTICES
layout(std430, binding = PEEL_BINDING_WORLD) readonly buffer PeelWorld { vec4 world[]; };
#endif
layout(std430, binding = PEEL_BINDING_CLUSTER_NODES) readonly buffer PeelNodes { PeelClusterNode clusterNodes[]; };
layout(std430, binding = PEEL_BINDING_CLUSTER_SLOTS) readonly buffer PeelSlots { uint clusterSlots[]; };
layout(std430, binding = PEEL_BINDING_PAIR_LIST) readonly buffer PeelPairList { PeelPair pairList[]; };
layout(std430, binding = PEEL_BINDING_CLUSTER_PAIRS) readonly buffer PeelClusterPairs { uvec4 clusterPairs[]; };
layout(std430, binding = PEEL_BINDING_COUNTERS) buffer PeelCounters { uint counters[]; };
layout(std430, binding = PEEL_BINDING_OUTPUT) writeonly buffer PeelOutput { uint outputPairs[]; };
#ifdef PEEL_WALK_RECORDS
layout(std430, binding = PEEL_BINDING_SLOT_TRIANGLES) readonly buffer PeelSlotTriangles { uvec4 slotTriangles[]; };
layout(std430, binding = PEEL_BINDING_NODE_BOXES) readonly buffer PeelBoxes { PeelBox nodeBoxes[]; };
shared uint sKeep[2][32];  // per side, its triangles whose box comes within the tolerance of the other cluster's box
shared uint sKept[2];
#ifdef PEEL_RECORD_BOXES
#define PEEL_RECORD_STRIDE 5u
#else
#define PEEL_RECORD_STRIDE 2u
#endif
#endif

uniform uint uClusterCapacity;
uniform uint uOutputCapacity;  // triangle pairs
uniform uint uStartCounter;    // PEEL_COUNTER_COUNT: the list from 0; else counters[uStartCounter] (a split call's 2nd half)
uniform uint uOutputCounter;   // PEEL_COUNTER_OUTPUT, or PEEL_COUNTER_OUTPUT_B (a split call's 2nd half, its own list)

shared vec3 sV[64][3];  // corners: 0..31 the cluster of A, 32..63 that of B
shared vec3 sLo[64];
shared vec3 sHi[64];
shared uint sTri[64];
shared uint sBoxPairs;      // triangle pairs whose boxes meet (the box test's survivors)
// Room for the box test's survivors: all 32 x 32, or (PEEL_SURVIVOR_CHUNK < 1024, the records'
// path; 256 by default, PeelScenePass) that many at a time, the kept pairs boxed and tested
// chunk after chunk: less shared memory per workgroup, more workgroups resident (the pass ~20 %
// faster at an H200's idle clock with 256; 128 gained less, more rounds for the same occupancy).
#ifndef PEEL_SURVIVOR_CHUNK
#define PEEL_SURVIVOR_CHUNK 1024u
#endif
#if !defined(PEEL_WALK_RECORDS) && PEEL_SURVIVOR_CHUNK < 1024
#error "PEEL_SURVIVOR_CHUNK below 1024 needs PEEL_WALK_RECORDS"
#endif
shared uint sSurvivors[PEEL_SURVIVOR_CHUNK];  // their indices (i x 32 + j - 32), for the float test

// The float test over the first `survivors` entries of sSurvivors, spread over the invocations;
// the pairs it cannot prove apart appended to the list.
void peelTestSurvivors(uint lid, uint survivors, uint candidate, float tolerance, bool aLow) {
    for (uint q = lid; q < survivors; q += 64u) {
        uint idx = sSurvivors[q];
        uint i = idx >> 5, j = 32u + (idx & 31u);
        if (!iscTrianglesMayIntersect(sV[i][0], sV[i][1], sV[i][2], sV[j][0], sV[j][1], sV[j][2], tolerance))
            continue;
        uint slot = atomicAdd(counters[uOutputCounter], 1u);
        if (slot < uOutputCapacity) {
            outputPairs[3u * slot] = candidate;
            outputPairs[3u * slot + 1u] = aLow ? sTri[i] : sTri[j];
            outputPairs[3u * slot + 2u] = aLow ? sTri[j] : sTri[i];
        }
    }
}

void main() {
    uint count = min(counters[PEEL_COUNTER_CLUSTER_PAIRS], uClusterCapacity);
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    uint lid = gl_LocalInvocationIndex;
    uint side = lid >> 5, k = lid & 31u;
    uint first = uStartCounter < uint(PEEL_COUNTER_COUNT) ? counters[uStartCounter] : 0u;
#ifdef PEEL_WALK_RECORDS
    // The record is read before the count is known (within the capacity; an entry past the
    // count is stale and dropped), so the two loads overlap. sKept is cleared here and after
    // each pair test (it is not read again until the next cluster pair's keep step).
    if (lid < 2u) sKept[lid] = 0u;
    memoryBarrierShared();
    barrier();
    for (uint g = first + iscFlatWorkGroup(); g < uClusterCapacity; g += groups) {  // uniform in the workgroup
        uvec4 r0 = clusterPairs[PEEL_RECORD_STRIDE * g], r1 = clusterPairs[PEEL_RECORD_STRIDE * g + 1u];
        if (g >= count) break;
        if (lid == 0u) sBoxPairs = 0u;
        uint countA = (r1.x >> 27) + 1u, countB = (r1.y >> 27) + 1u;
        uint candidate = r0.x;
        float tolerance = uintBitsToFloat(r0.y);
        bool aLow = r0.z < r0.w;
        if (k < (side == 0u ? countA : countB)) {
            uvec4 st = slotTriangles[((side == 0u ? r1.x : r1.y) & 0x7FFFFFFu) + k];
            GpuObject o = sceneObjects[side == 0u ? r0.z : r0.w];
            // The other cluster's box.
#ifdef PEEL_RECORD_BOXES
            uint rb = PEEL_RECORD_STRIDE * g + 2u;
            uvec4 r2 = clusterPairs[rb], r3 = clusterPairs[rb + 1u], r4 = clusterPairs[rb + 2u];
            vec3 otherLo = uintBitsToFloat(side == 0u ? uvec3(r3.z, r3.w, r4.x) : r2.xyz);
            vec3 otherHi = uintBitsToFloat(side == 0u ? r4.yzw : uvec3(r2.w, r3.x, r3.y));
#else
            PeelBox other = nodeBoxes[side == 0u ? r1.w : r1.z];
            vec3 otherLo = other.lo.xyz, otherHi = other.hi.xyz;
#endif
            vec3 lo = vec3(3.4e38), hi = vec3(-3.4e38);
            for (uint c = 0u; c < 3u; ++c) {
                vec3 v = (o.model * vec4(sceneVertices[o.firstVertex + st[c + 1u]].xyz, 1.0)).xyz;
                sV[lid][c] = v;
                lo = min(lo, v);
                hi = max(hi, v);
            }
            sLo[lid] = lo;
            sHi[lid] = hi;
            sTri[lid] = st.x;
            // A triangle whose box does not come within the tolerance of the other cluster's
            // box meets none of its triangles' boxes (within the boxes' float rounding, far
            // below the tolerance: no pair that can touch is dropped): left out of the pair test.
            if (all(lessThanEqual(lo, otherHi + tolerance)) && all(lessThanEqual(otherLo, hi + tolerance)))
                sKeep[side][atomicAdd(sKept[side], 1u)] = k;
        }
#else
    for (uint g = first + iscFlatWorkGroup(); g < count; g += groups) {  // uniform in the workgroup
        uvec4 cp = clusterPairs[g];
        PeelPair pr = pairList[cp.x];
        if (lid == 0u) sBoxPairs = 0u;
        PeelPart pa = parts[pr.partA], pb = parts[pr.partB];
        PeelClusterNode na = clusterNodes[pa.firstNode + cp.y], nb = clusterNodes[pb.firstNode + cp.z];
        PeelPart p = side == 0u ? pa : pb;
        PeelClusterNode mine = side == 0u ? na : nb;
        if (k < mine.slotCount) {
            uint t = clusterSlots[p.firstSlot + mine.firstSlot + k];
#ifdef PEEL_LOCAL_VERTICES
            GpuObject o = sceneObjects[p.object];
            uint base = 3u * (o.firstTriangle + t);
#else
            uint base = 3u * (sceneObjects[p.object].firstTriangle + t);
#endif
            vec3 lo = vec3(3.4e38), hi = vec3(-3.4e38);
            for (uint c = 0u; c < 3u; ++c) {
#ifdef PEEL_LOCAL_VERTICES
                vec3 v = (o.model * vec4(sceneVertices[o.firstVertex + sceneIndices[base + c]].xyz, 1.0)).xyz;
#else
                vec3 v = world[p.vertexBase + sceneIndices[base + c]].xyz;
#endif
                sV[lid][c] = v;
                lo = min(lo, v);
                hi = max(hi, v);
            }
            sLo[lid] = lo;
            sHi[lid] = hi;
            sTri[lid] = t;
        }
        uint candidate = pr.candidate;
        float tolerance = pr.margin;
        bool aLow = pa.object < pb.object;
        uint countA = na.slotCount, countB = nb.slotCount;
#endif
        memoryBarrierShared();
        barrier();
        // The box test on all (at most 32 x 32) pairs, its survivors listed in shared memory;
        // then the float test spread evenly over the invocations (a few dozen survivors of
        // 1024: one round of the costly test per invocation instead of up to 16 divergent ones).
#if PEEL_SURVIVOR_CHUNK < 1024
        // Only the kept triangles of each side, paired, PEEL_SURVIVOR_CHUNK pairs at a time.
        uint keptA = sKept[0], keptB = sKept[1];
        uint total = keptA * keptB;
        memoryBarrierShared();
        barrier();  // (sKept read by every invocation before it is cleared)
        if (lid < 2u) sKept[lid] = 0u;
        uint screen = 0u;
        for (uint base = 0u; base < total; base += PEEL_SURVIVOR_CHUNK) {  // uniform
            uint end = min(total, base + PEEL_SURVIVOR_CHUNK);
            for (uint q = base + lid; q < end; q += 64u) {
                uint i = sKeep[0][q / keptB], j = 32u + sKeep[1][q % keptB];
                if (any(greaterThan(sLo[i], sHi[j] + tolerance)) || any(greaterThan(sLo[j], sHi[i] + tolerance)))
                    continue;
                sSurvivors[atomicAdd(sBoxPairs, 1u)] = i * 32u + j - 32u;
            }
            memoryBarrierShared();
            barrier();
            uint chunkSurvivors = sBoxPairs;
            peelTestSurvivors(lid, chunkSurvivors, candidate, tolerance, aLow);
            screen += chunkSurvivors;
            barrier();  // (sBoxPairs and sSurvivors read by every invocation)
            if (lid == 0u) sBoxPairs = 0u;
            memoryBarrierShared();
            barrier();
        }
        if (lid == 0u && screen != 0u) atomicAdd(counters[PEEL_COUNTER_SCREEN_PAIRS], screen);
        barrier();  // shared memory is rewritten by the next cluster pair
        continue;
#elif defined(PEEL_WALK_RECORDS)
        // Only the kept triangles of each side, paired.
        uint keptA = sKept[0], keptB = sKept[1];
        for (uint q = lid; q < keptA * keptB; q += 64u) {
            uint i = sKeep[0][q / keptB], j = 32u + sKeep[1][q % keptB];
            if (any(greaterThan(sLo[i], sHi[j] + tolerance)) || any(greaterThan(sLo[j], sHi[i] + tolerance))) continue;
            sSurvivors[atomicAdd(sBoxPairs, 1u)] = i * 32u + j - 32u;
        }
#else
        for (uint m = 0u; m < 16u; ++m) {
            uint idx = lid + 64u * m;
            uint i = idx >> 5, j = 32u + (idx & 31u);
            if (i >= countA || (j - 32u) >= countB) continue;
            if (any(greaterThan(sLo[i], sHi[j] + tolerance)) || any(greaterThan(sLo[j], sHi[i] + tolerance))) continue;
            sSurvivors[atomicAdd(sBoxPairs, 1u)] = idx;
        }
#endif
        memoryBarrierShared();
        barrier();
        uint survivors = sBoxPairs;
#ifdef PEEL_WALK_RECORDS
        if (lid < 2u) sKept[lid] = 0u;  // read by no one until the next cluster pair's keep step
#endif
        peelTestSurvivors(lid, survivors, candidate, tolerance, aLow);
        if (lid == 0u && survivors != 0u) atomicAdd(counters[PEEL_COUNTER_SCREEN_PAIRS], survivors);
        barrier();  // shared memory is rewritten by the next cluster pair
    }
}
