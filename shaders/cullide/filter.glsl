// CULLIDE's float filter in front of the exact CPU test (the chain, CullideSettings::gpuFilter):
// the triangle pairs that can still touch, from the GPU's own survivors, so that neither the
// survivor lists nor the CPU sweep and prune are needed.
//   uMode 0 (args, one thread): the indirect dispatch arguments, one workgroup per cluster pair
//            the pair pass appended (cullide/chain.glsl), split over x and y as
//            common/dispatch.glsl reads them.
//   uMode 1 (filter): one 128-invocation (64 without CULLIDE_FILTER_WIDE) workgroup per cluster pair (both clusters surviving the
//            cluster level and overlapping): the triangles of each that survived the triangle
//            level go to shared memory (posed by the scene's float model matrices), then their
//            pairs are split over the invocations; a pair whose world boxes come within
//            uTolerance and that the float separating-axis test (common/tritri.glsl, shared
//            with peel) cannot prove apart is written as (chain pair, triangle of the
//            candidate's a, of its b). The exact CPU test has the final word.
// Why nothing true is lost: two triangles that touch (exactly, in double) have float world
// corners within a few float ulps of the scene's scale of the exact ones, far below the
// tolerance (1e-5 of that scale, as peel), so neither the box test nor any separating axis
// can part them. They both survived the triangle level (it prunes only what is fully visible,
// Lemma 1), so their clusters survived the cluster level, and a triangle's box lies in its
// cluster's box, so the cluster pair met and was appended: each triangle lies in one cluster,
// so each triangle pair is met exactly once.
// Bounded loops: at most CULLIDE_FILTER_MAX_CLUSTER^2 / 64 = 64 pairs per invocation.
//
// CULLIDE_FILTER_LIST (cullide-12; hook ISC_CULLIDE_FILTER_LIST=0: the workgroup per cluster pair
// above): the same test in two passes with no shared memory and no barrier per cluster pair:
//   uMode 1 (candidates): 128 invocations per listed cluster pair (0..63 side a, 64..127 side b),
//            each poses its triangle and keeps it, exactly as above, when its box comes within
//            the tolerance of the other cluster's box: appended to candidates[] (posed, float
//            bits) and indexed per (cluster pair, side) in candidateIndex[] (at most 64 each).
//   uMode 3 (args, one thread): the pair pass's indirect arguments, one invocation per candidate.
//   uMode 4 (pairs): uPairLanes invocations per candidate; those of side a test every
//            uPairLanes-th candidate of side b of its cluster pair (at most 64: bounded) with the same box test and separating-axis
//            test, in the same argument order (a, b), and appends the pair as above: the same
//            pairs are listed and the same box pairs counted (in another order). A candidate
//            past the list's capacity is skipped; the host sees the count, tests that call's
//            survivors on the CPU and grows the list.
//   candidateCounts[] is zeroed by the pair pass that appends the cluster pair (chain.glsl).
#include "common/dispatch.glsl"
#include "common/scene.glsl"
#include "common/tritri.glsl"
#include "cullide/items.glsl"

// CULLIDE_FILTER_WIDE (cullide-10, the default): 128 invocations per cluster pair, both
// clusters' triangles loaded at once (invocations 0..63 side a, 64..127 side b), the pairs split
// over 128; without it, 64 invocations load side a, then side b.
#if defined(CULLIDE_FILTER_WIDE) || defined(CULLIDE_FILTER_LIST)
#define CULLIDE_FILTER_LANES 128u
#else
#define CULLIDE_FILTER_LANES 64u
#endif
layout(local_size_x = CULLIDE_FILTER_LANES) in;

layout(std430, binding = CULLIDE_BINDING_ALIVE) readonly buffer CullideAlive { uint alive[]; };
layout(std430, binding = CULLIDE_BINDING_CLUSTER_PAIRS) readonly buffer CullideClusterPairs { uvec4 clusterPairs[]; };
layout(std430, binding = CULLIDE_BINDING_CHAIN_COUNTERS) buffer CullideChainCounters { uint chainCounters[]; };
layout(std430, binding = CULLIDE_BINDING_OUTPUT) writeonly buffer CullideOutput { uint outputPairs[]; };
layout(std430, binding = CULLIDE_BINDING_CHAIN_BOXES) readonly buffer CullideChainBoxes { vec4 chainBoxes[]; };

uniform uint uMode;
uniform uint uClusterPairCapacity;
uniform uint uOutputCapacity;  // triangle pairs
uniform uint uMaxGroups;       // workgroups per dimension
uniform float uTolerance;      // world units
uniform uint uAllAlive;        // 1: every triangle of a listed cluster is a survivor (no triangle-level passes)

layout(std430, binding = CULLIDE_BINDING_CANDIDATES) buffer CullideCandidates { uvec4 candidates[]; };
layout(std430, binding = CULLIDE_BINDING_ITEM_BOXES) readonly buffer CullideItemBoxes { uint itemBoxes[]; };
layout(std430, binding = CULLIDE_BINDING_SLOT_BOXES) readonly buffer CullideSlotBoxes { vec4 slotBoxes[]; };
uniform uint uCandidateCapacity;  // entries of candidates[] (list: 3 uvec4 each; split: box pairs, 6 each)
uniform uint uPreCut;             // 1: rigid items' triangles cut by their posed local box first
uniform uint uPairLanes;          // list: invocations per candidate of side a in the pair pass (1..64)

layout(std430, binding = CULLIDE_BINDING_SLOT_CORNERS) readonly buffer CullideSlotCorners { uvec4 slotCorners[]; };
uniform uint uSlotCorners;  // 1: the slot's corner indices and triangle from slotCorners[] (one load)

// Slot `lane` of `it`: its mesh triangle t and world corners, as sceneWorldTriangle poses them
// (the same expression on the same floats). With uSlotCorners (cullide-12) the corner indices
// come with the slot (slotCorners[]: one load instead of the slot's triangle, then its indices).
void cullideSlotTriangle(CullideItem it, uint lane, out uint t, out vec3 a, out vec3 b, out vec3 c) {
    if (uSlotCorners != 0u) {
        uvec4 q = slotCorners[it.firstSlot + lane];
        t = q.w;
        GpuObject o = sceneObjects[it.object];
        a = (o.model * vec4(sceneVertices[o.firstVertex + q.x].xyz, 1.0)).xyz;
        b = (o.model * vec4(sceneVertices[o.firstVertex + q.y].xyz, 1.0)).xyz;
        c = (o.model * vec4(sceneVertices[o.firstVertex + q.z].xyz, 1.0)).xyz;
    } else {
        t = slotTriangles[it.firstSlot + lane];
        sceneWorldTriangle(it.object, t, a, b, c);
    }
}

// The cut before posing (cullide-12, uPreCut): true when slot `lane` of `item` (a rigid object's
// cluster) cannot come within the tolerance of the box (olo, ohi) (the other cluster's, already
// grown by the tolerance). Its local box posed (centre moved, half extents through |rotation|, as
// pose.glsl poses cluster boxes) holds its posed corners' box up to the float rounding of both,
// which the growth g covers many times over (the tolerance, far above it, and 4e-6 of the
// magnitudes): missing even so, its posed box misses too, and the triangle is not posed.
bool cullideCutBeforePosing(uint item, CullideItem it, uint lane, vec3 olo, vec3 ohi) {
    if (uPreCut == 0u || itemBoxes[item] == CULLIDE_ITEM_BOX_DEFORMED) return false;
    uint s = it.firstSlot + lane;
    vec3 llo = slotBoxes[2u * s].xyz, lhi = slotBoxes[2u * s + 1u].xyz;
    mat4 m = sceneObjects[it.object].model;
    vec3 wc = (m * vec4(0.5 * (llo + lhi), 1.0)).xyz;
    vec3 e = 0.5 * (lhi - llo), lm = max(abs(llo), abs(lhi));
    vec3 am = abs(m[0].xyz), bm = abs(m[1].xyz), cm = abs(m[2].xyz);
    vec3 we = am * e.x + bm * e.y + cm * e.z;
    vec3 mag = abs(wc) + we + am * lm.x + bm * lm.y + cm * lm.z + abs(m[3].xyz);
    vec3 g = we + vec3(uTolerance + 4e-6 * max(mag.x, max(mag.y, mag.z)));
    return any(greaterThan(wc - g, ohi)) || any(greaterThan(olo, wc + g));
}

#ifdef CULLIDE_FILTER_LIST
layout(std430, binding = CULLIDE_BINDING_CANDIDATE_COUNTS) buffer CullideCandidateCounts { uint candidateCounts[]; };
layout(std430, binding = CULLIDE_BINDING_CANDIDATE_INDEX) buffer CullideCandidateIndex { uint candidateIndex[]; };

shared uint sBoxPairs;

// Modes 0 and 3: the indirect arguments (mode 0: a workgroup per cluster pair; mode 3: an
// invocation per candidate).
void cullideListArgs() {
    if (gl_GlobalInvocationID.x != 0u) return;
    uint count = uMode == 0u ? min(chainCounters[CULLIDE_CHAIN_CLUSTER_PAIRS], uClusterPairCapacity)
                             : (min(chainCounters[CULLIDE_CHAIN_CANDIDATES], uCandidateCapacity) * uPairLanes +
                                CULLIDE_FILTER_LANES - 1u) / CULLIDE_FILTER_LANES;
    uint at = uMode == 0u ? CULLIDE_CHAIN_ARGS : CULLIDE_CHAIN_ARGS_PAIRS;
    uint x = min(count, uMaxGroups);
    chainCounters[at + 0u] = x;
    chainCounters[at + 1u] = x == 0u ? 1u : (count + x - 1u) / x;
    chainCounters[at + 2u] = 1u;
}

// Mode 1: this invocation's triangle of its cluster pair, kept as a candidate when its box comes
// within the tolerance of the other cluster's box (the test of the workgroup path's loading).
void cullideListCandidate() {
    uint g = iscFlatWorkGroup();
    if (g >= min(chainCounters[CULLIDE_CHAIN_CLUSTER_PAIRS], uClusterPairCapacity)) return;
    uvec4 cp = clusterPairs[g];
    uint lid = gl_LocalInvocationIndex;
    uint side = lid / CULLIDE_FILTER_MAX_CLUSTER, lane = lid % CULLIDE_FILTER_MAX_CLUSTER;
    uint item = side == 0u ? cp.y : cp.z, other = side == 0u ? cp.z : cp.y;
    CullideItem it = items[item];
    if (lane >= it.slotCount || (uAllAlive == 0u && alive[it.memberStart + lane] == 0u)) return;
    vec3 olo = chainBoxes[2u * other].xyz - uTolerance, ohi = chainBoxes[2u * other + 1u].xyz + uTolerance;
    if (cullideCutBeforePosing(item, it, lane, olo, ohi)) return;
    uint t;
    vec3 a, b, c;
    cullideSlotTriangle(it, lane, t, a, b, c);
    vec3 lo = min(a, min(b, c)), hi = max(a, max(b, c));
    if (!(all(lessThanEqual(lo, chainBoxes[2u * other + 1u].xyz + uTolerance)) &&
          all(lessThanEqual(chainBoxes[2u * other].xyz, hi + uTolerance))))
        return;
    uint k = atomicAdd(candidateCounts[2u * g + side], 1u);
    uint e = atomicAdd(chainCounters[CULLIDE_CHAIN_CANDIDATES], 1u);
    candidateIndex[(2u * g + side) * CULLIDE_FILTER_MAX_CLUSTER + k] = e;
    if (e < uCandidateCapacity) {
        candidates[3u * e] = uvec4(floatBitsToUint(a), t);
        candidates[3u * e + 1u] = uvec4(floatBitsToUint(b), g);
        candidates[3u * e + 2u] = uvec4(floatBitsToUint(c), side);
    }
}

// Mode 4: candidate i = t / uPairLanes of side a against every uPairLanes-th candidate of side b of
// its cluster pair, from t % uPairLanes (each pair met by one invocation); returns the pairs whose
// boxes met.
uint cullideListPairs(uint t) {
    uint boxPairs = 0u, i = t / uPairLanes, share = t % uPairLanes;
    if (i >= min(chainCounters[CULLIDE_CHAIN_CANDIDATES], uCandidateCapacity)) return 0u;
    uvec4 e2 = candidates[3u * i + 2u];
    if (e2.w != 0u) return 0u;  // side b: met by side a's candidates
    uvec4 e0 = candidates[3u * i], e1 = candidates[3u * i + 1u];
    vec3 a0 = uintBitsToFloat(e0.xyz), a1 = uintBitsToFloat(e1.xyz), a2 = uintBitsToFloat(e2.xyz);
    vec3 alo = min(a0, min(a1, a2)), ahi = max(a0, max(a1, a2));
    uint g = e1.w;
    uint nB = min(candidateCounts[2u * g + 1u], CULLIDE_FILTER_MAX_CLUSTER);
    uint pair = clusterPairs[g].x;
    for (uint j = share; j < nB; j += uPairLanes) {
        uint e = candidateIndex[(2u * g + 1u) * CULLIDE_FILTER_MAX_CLUSTER + j];
        if (e >= uCandidateCapacity) continue;  // (overflowed: the host falls back)
        uvec4 f0 = candidates[3u * e], f1 = candidates[3u * e + 1u], f2 = candidates[3u * e + 2u];
        vec3 b0 = uintBitsToFloat(f0.xyz), b1 = uintBitsToFloat(f1.xyz), b2 = uintBitsToFloat(f2.xyz);
        vec3 blo = min(b0, min(b1, b2)), bhi = max(b0, max(b1, b2));
        if (any(greaterThan(alo, bhi + uTolerance)) || any(greaterThan(blo, ahi + uTolerance))) continue;
        ++boxPairs;
        if (!iscTrianglesMayIntersect(a0, a1, a2, b0, b1, b2, uTolerance)) continue;
        uint slot = atomicAdd(chainCounters[CULLIDE_CHAIN_OUTPUT], 1u);
        if (slot < uOutputCapacity) {
            outputPairs[3u * slot] = pair;
            outputPairs[3u * slot + 1u] = e0.w;
            outputPairs[3u * slot + 2u] = f0.w;
        }
    }
    return boxPairs;
}

void main() {
    // (No return in main: the NVIDIA compiler allows no barrier() after one.)
    if (uMode == 0u || uMode == 3u) {
        cullideListArgs();
    } else if (uMode == 1u) {
        cullideListCandidate();
    } else {
        uint lid = gl_LocalInvocationIndex;
        if (lid == 0u) sBoxPairs = 0u;
        barrier();
        uint boxPairs = cullideListPairs(iscFlatInvocation());
        if (boxPairs != 0u) atomicAdd(sBoxPairs, boxPairs);
        barrier();
        if (lid == 0u && sBoxPairs != 0u) atomicAdd(chainCounters[CULLIDE_CHAIN_BOX_PAIRS], sBoxPairs);
    }
}
#else
shared vec3 sV[2u * CULLIDE_FILTER_MAX_CLUSTER][3];  // 0..63: the cluster of the candidate's a, 64..: of its b
shared vec3 sLo[2u * CULLIDE_FILTER_MAX_CLUSTER];
shared vec3 sHi[2u * CULLIDE_FILTER_MAX_CLUSTER];
shared uint sTri[2u * CULLIDE_FILTER_MAX_CLUSTER];
shared uint sCount[2];
shared uint sBoxPairs;

#ifdef CULLIDE_FILTER_SPLIT
// CULLIDE_FILTER_SPLIT (cullide-12, ISC_CULLIDE_FILTER_LIST=2): the workgroups above list the
// pairs whose boxes meet, posed (6 uvec4 each in candidates[], counted in CULLIDE_CHAIN_BOX_PAIRS:
// the same count), instead of testing them; then uMode 3 (one thread) the indirect arguments and
// uMode 4 the separating-axis test, one invocation per listed pair, appending as above.
void cullideSplitModes() {
    uint n = min(chainCounters[CULLIDE_CHAIN_BOX_PAIRS], uCandidateCapacity);
    if (uMode == 3u) {
        if (gl_GlobalInvocationID.x != 0u) return;
        uint count = (n + CULLIDE_FILTER_LANES - 1u) / CULLIDE_FILTER_LANES;
        uint x = min(count, uMaxGroups);
        chainCounters[CULLIDE_CHAIN_ARGS_PAIRS + 0u] = x;
        chainCounters[CULLIDE_CHAIN_ARGS_PAIRS + 1u] = x == 0u ? 1u : (count + x - 1u) / x;
        chainCounters[CULLIDE_CHAIN_ARGS_PAIRS + 2u] = 1u;
        return;
    }
    uint e = iscFlatInvocation();
    if (e >= n) return;
    uvec4 a0 = candidates[6u * e], a1 = candidates[6u * e + 1u], a2 = candidates[6u * e + 2u];
    uvec4 b0 = candidates[6u * e + 3u], b1 = candidates[6u * e + 4u], b2 = candidates[6u * e + 5u];
    if (!iscTrianglesMayIntersect(uintBitsToFloat(a0.xyz), uintBitsToFloat(a1.xyz), uintBitsToFloat(a2.xyz),
                                  uintBitsToFloat(b0.xyz), uintBitsToFloat(b1.xyz), uintBitsToFloat(b2.xyz), uTolerance))
        return;
    uint slot = atomicAdd(chainCounters[CULLIDE_CHAIN_OUTPUT], 1u);
    if (slot < uOutputCapacity) {
        outputPairs[3u * slot] = a1.w;
        outputPairs[3u * slot + 1u] = a0.w;
        outputPairs[3u * slot + 2u] = b0.w;
    }
}
#endif

void main() {
#ifdef CULLIDE_FILTER_SPLIT
    if (uMode >= 3u) {
        cullideSplitModes();
        return;
    }
#endif
    if (uMode == 0u) {
        if (gl_GlobalInvocationID.x != 0u) return;
        uint count = min(chainCounters[CULLIDE_CHAIN_CLUSTER_PAIRS], uClusterPairCapacity);
        uint x = min(count, uMaxGroups);
        chainCounters[CULLIDE_CHAIN_ARGS + 0u] = x;
        chainCounters[CULLIDE_CHAIN_ARGS + 1u] = x == 0u ? 1u : (count + x - 1u) / x;
        chainCounters[CULLIDE_CHAIN_ARGS + 2u] = 1u;
        return;
    }
    uint g = iscFlatWorkGroup();
    if (g >= min(chainCounters[CULLIDE_CHAIN_CLUSTER_PAIRS], uClusterPairCapacity)) return;  // whole workgroup
    uvec4 cp = clusterPairs[g];
    uint lid = gl_LocalInvocationIndex;
    if (lid < 2u) sCount[lid] = 0u;
    if (lid == 0u) sBoxPairs = 0u;
    barrier();
#ifdef CULLIDE_FILTER_WIDE
    {
        uint side = lid / CULLIDE_FILTER_MAX_CLUSTER, lane = lid % CULLIDE_FILTER_MAX_CLUSTER;
#else
    uint lane = lid;
    for (uint side = 0u; side < 2u; ++side) {
#endif
        uint item = side == 0u ? cp.y : cp.z, other = side == 0u ? cp.z : cp.y;
        CullideItem it = items[item];
        if (lane < it.slotCount && (uAllAlive != 0u || alive[it.memberStart + lane] != 0u) &&
            !cullideCutBeforePosing(item, it, lane, chainBoxes[2u * other].xyz - uTolerance,
                                    chainBoxes[2u * other + 1u].xyz + uTolerance)) {
            uint t;
            vec3 a, b, c;
            cullideSlotTriangle(it, lane, t, a, b, c);
            vec3 lo = min(a, min(b, c)), hi = max(a, max(b, c));
            // Only triangles whose box comes within the tolerance of the other cluster's box
            // (chainBoxes: the pose pass's, grown by the round-off bound, holding every triangle
            // of that cluster): any other one fails the pair box test below with every triangle
            // of the other side, so the same pairs are listed and counted.
            if (all(lessThanEqual(lo, chainBoxes[2u * other + 1u].xyz + uTolerance)) &&
                all(lessThanEqual(chainBoxes[2u * other].xyz, hi + uTolerance))) {
                uint at = side * CULLIDE_FILTER_MAX_CLUSTER + atomicAdd(sCount[side], 1u);
                sV[at][0] = a;
                sV[at][1] = b;
                sV[at][2] = c;
                sLo[at] = lo;
                sHi[at] = hi;
                sTri[at] = t;
            }
        }
    }
    barrier();
    uint nA = sCount[0], nB = sCount[1];
    uint total = nA * nB, boxPairs = 0u;
    for (uint idx = lid; idx < total; idx += CULLIDE_FILTER_LANES) {
        uint i = idx / nB, j = CULLIDE_FILTER_MAX_CLUSTER + idx % nB;
        if (any(greaterThan(sLo[i], sHi[j] + uTolerance)) || any(greaterThan(sLo[j], sHi[i] + uTolerance))) continue;
#ifdef CULLIDE_FILTER_SPLIT
        // Listed (posed) for the separating-axis pass, one invocation each (uMode 4).
        uint e = atomicAdd(chainCounters[CULLIDE_CHAIN_BOX_PAIRS], 1u);
        if (e < uCandidateCapacity) {
            candidates[6u * e] = uvec4(floatBitsToUint(sV[i][0]), sTri[i]);
            candidates[6u * e + 1u] = uvec4(floatBitsToUint(sV[i][1]), cp.x);
            candidates[6u * e + 2u] = uvec4(floatBitsToUint(sV[i][2]), 0u);
            candidates[6u * e + 3u] = uvec4(floatBitsToUint(sV[j][0]), sTri[j]);
            candidates[6u * e + 4u] = uvec4(floatBitsToUint(sV[j][1]), 0u);
            candidates[6u * e + 5u] = uvec4(floatBitsToUint(sV[j][2]), 0u);
        }
        continue;
#endif
        ++boxPairs;
        if (!iscTrianglesMayIntersect(sV[i][0], sV[i][1], sV[i][2], sV[j][0], sV[j][1], sV[j][2], uTolerance)) continue;
        uint slot = atomicAdd(chainCounters[CULLIDE_CHAIN_OUTPUT], 1u);
        if (slot < uOutputCapacity) {
            outputPairs[3u * slot] = cp.x;
            outputPairs[3u * slot + 1u] = sTri[i];
            outputPairs[3u * slot + 2u] = sTri[j];
        }
    }
    if (boxPairs != 0u) atomicAdd(sBoxPairs, boxPairs);
    barrier();
    if (lid == 0u && sBoxPairs != 0u) atomicAdd(chainCounters[CULLIDE_CHAIN_BOX_PAIRS], sBoxPairs);
}
#endif
