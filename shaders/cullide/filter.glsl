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
#include "common/dispatch.glsl"
#include "common/scene.glsl"
#include "common/tritri.glsl"
#include "cullide/items.glsl"

// CULLIDE_FILTER_WIDE (cullide-10, the default): 128 invocations per cluster pair, both
// clusters' triangles loaded at once (invocations 0..63 side a, 64..127 side b), the pairs split
// over 128; without it, 64 invocations load side a, then side b.
#ifdef CULLIDE_FILTER_WIDE
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
// uCheckClusters (Passes::setEarlyPairs, with uAllAlive): the pair pass ran before the cluster
// level and listed the cluster pairs of every seeded cluster, so a workgroup first checks that both
// clusters survived the cluster level (alive[] then holds the cluster items' flags; all survive
// when the level kept everything, its cut counter) and leaves at once when not; else it sets
// keep[] for the chain pair and wanted[] for both clusters, as the pair pass does without it.
uniform uint uCheckClusters;
layout(std430, binding = CULLIDE_BINDING_COUNTERS) readonly buffer CullideCounters { uint counters[]; };
layout(std430, binding = CULLIDE_BINDING_WANTED) buffer CullideWanted { uint wanted[]; };
layout(std430, binding = CULLIDE_BINDING_KEEP) buffer CullideKeep { uint keep[]; };

layout(std430, binding = CULLIDE_BINDING_SLOT_CORNERS) readonly buffer CullideSlotCorners { uvec4 slotCorners[]; };
uniform uint uSlotCorners;  // 1: the slot's corner indices and triangle from slotCorners[] (one load)

// Slot `lane` of `it`: its mesh triangle t and world corners, as sceneWorldTriangle poses them
// (the same expression on the same floats). With uSlotCorners (cullide-12, the default) the
// corner indices come with the slot (slotCorners[]: one load instead of the slot's triangle, then
// its three indices: one dependent load less per triangle posed).
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

shared vec3 sV[2u * CULLIDE_FILTER_MAX_CLUSTER][3];  // 0..63: the cluster of the candidate's a, 64..: of its b
shared vec3 sLo[2u * CULLIDE_FILTER_MAX_CLUSTER];
shared vec3 sHi[2u * CULLIDE_FILTER_MAX_CLUSTER];
shared uint sTri[2u * CULLIDE_FILTER_MAX_CLUSTER];
shared uint sCount[2];
shared uint sBoxPairs;

#ifdef CULLIDE_FILTER_SUBCOUNT
// Diagnostic (hook ISC_CULLIDE_FILTER_SUBCOUNT=1, wide filter only): how many cluster pairs a cut
// by sub-cluster boxes would leave out before any triangle is loaded. Each side's slots in groups
// of 16 (the hierarchy's leaf order: neighbours in space), each group's box over its triangles
// (floats as order-keeping uints for shared atomicMin / atomicMax); counted: cluster pairs whose
// sub-boxes meet nowhere (within the tolerance), and those whose triangle boxes meet nowhere.
#define CULLIDE_SUB 16u
#define CULLIDE_SUBS (CULLIDE_FILTER_MAX_CLUSTER / CULLIDE_SUB)
shared uint sSubLo[2u * CULLIDE_SUBS * 3u], sSubHi[2u * CULLIDE_SUBS * 3u];
uint cullideOrderedBits(float f) {
    uint k = floatBitsToUint(f);
    return (k & 0x80000000u) != 0u ? ~k : (k | 0x80000000u);
}
float cullideOrderedFloat(uint k) { return uintBitsToFloat((k & 0x80000000u) != 0u ? (k & 0x7FFFFFFFu) : ~k); }
// Group g's box (side * CULLIDE_SUBS + group); false when the group holds no triangle.
bool cullideSubBox(uint g, out vec3 lo, out vec3 hi) {
    uint x = 3u * g;
    if (sSubLo[x] == 0xFFFFFFFFu) return false;
    for (uint k = 0u; k < 3u; ++k) {
        lo[k] = cullideOrderedFloat(sSubLo[x + k]);
        hi[k] = cullideOrderedFloat(sSubHi[x + k]);
    }
    return true;
}
#endif

void main() {
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
    if (uCheckClusters != 0u) {
        if (counters[CULLIDE_COUNTER_CUT] == 0u && (alive[cp.y] == 0u || alive[cp.z] == 0u)) return;  // whole workgroup
        if (lid == 0u) {
            keep[cp.x] = 1u;
            wanted[cp.y] = 1u;
            wanted[cp.z] = 1u;
        }
    }
    if (lid < 2u) sCount[lid] = 0u;
    if (lid == 0u) sBoxPairs = 0u;
#ifdef CULLIDE_FILTER_SUBCOUNT
    if (lid < 2u * CULLIDE_SUBS * 3u) {
        sSubLo[lid] = 0xFFFFFFFFu;
        sSubHi[lid] = 0u;
    }
#endif
    barrier();
#ifdef CULLIDE_FILTER_WIDE
    {
        uint side = lid / CULLIDE_FILTER_MAX_CLUSTER, lane = lid % CULLIDE_FILTER_MAX_CLUSTER;
#else
    uint lane = lid;
    for (uint side = 0u; side < 2u; ++side) {
#endif
        CullideItem it = items[side == 0u ? cp.y : cp.z];
        if (lane < it.slotCount && (uAllAlive != 0u || alive[it.memberStart + lane] != 0u)) {
            uint t;
            vec3 a, b, c;
            cullideSlotTriangle(it, lane, t, a, b, c);
            vec3 lo = min(a, min(b, c)), hi = max(a, max(b, c));
#ifdef CULLIDE_FILTER_SUBCOUNT
            uint sub = 3u * (side * CULLIDE_SUBS + lane / CULLIDE_SUB);
            for (uint k = 0u; k < 3u; ++k) {
                atomicMin(sSubLo[sub + k], cullideOrderedBits(lo[k]));
                atomicMax(sSubHi[sub + k], cullideOrderedBits(hi[k]));
            }
#endif
            // Only triangles whose box comes within the tolerance of the other cluster's box
            // (chainBoxes: the pose pass's, grown by the round-off bound, holding every triangle
            // of that cluster): any other one fails the pair box test below with every triangle
            // of the other side, so the same pairs are listed and counted.
            uint other = side == 0u ? cp.z : cp.y;
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
#ifdef CULLIDE_FILTER_SUBCOUNT
    if (lid == 0u) {
        // The sub-box pairs that meet (within the tolerance), and each cluster's tight world box:
        // the union of its groups.
        uint met = 0u;
        vec3 tLo[2] = vec3[2](vec3(3.4e38), vec3(3.4e38)), tHi[2] = vec3[2](vec3(-3.4e38), vec3(-3.4e38));
        for (uint g = 0u; g < 2u * CULLIDE_SUBS; ++g) {
            vec3 lo, hi;
            if (!cullideSubBox(g, lo, hi)) continue;
            uint side = g / CULLIDE_SUBS;
            tLo[side] = min(tLo[side], lo);
            tHi[side] = max(tHi[side], hi);
            for (uint j = CULLIDE_SUBS; j < 2u * CULLIDE_SUBS && side == 0u; ++j) {
                vec3 loB, hiB;
                if (cullideSubBox(j, loB, hiB) && all(lessThanEqual(lo, hiB + uTolerance)) &&
                    all(lessThanEqual(loB, hi + uTolerance)))
                    ++met;
            }
        }
        if (met == 0u) atomicAdd(chainCounters[CULLIDE_CHAIN_NO_SUBBOX_PAIRS], 1u);
        if (!(all(lessThanEqual(tLo[0], tHi[1] + uTolerance)) && all(lessThanEqual(tLo[1], tHi[0] + uTolerance))))
            atomicAdd(chainCounters[CULLIDE_CHAIN_NO_TIGHT_PAIRS], 1u);
    }
#endif
    uint nA = sCount[0], nB = sCount[1];
    // The output as the exact stage takes it (PeelExact's TrianglePairCandidate): the triangle
    // of the object with the lower id first.
    bool flip = items[cp.y].object > items[cp.z].object;
    uint total = nA * nB, boxPairs = 0u;
    for (uint idx = lid; idx < total; idx += CULLIDE_FILTER_LANES) {
        uint i = idx / nB, j = CULLIDE_FILTER_MAX_CLUSTER + idx % nB;
        if (any(greaterThan(sLo[i], sHi[j] + uTolerance)) || any(greaterThan(sLo[j], sHi[i] + uTolerance))) continue;
        ++boxPairs;
        if (!iscTrianglesMayIntersect(sV[i][0], sV[i][1], sV[i][2], sV[j][0], sV[j][1], sV[j][2], uTolerance)) continue;
        uint slot = atomicAdd(chainCounters[CULLIDE_CHAIN_OUTPUT], 1u);
        if (slot < uOutputCapacity) {
            outputPairs[3u * slot] = cp.x;
            outputPairs[3u * slot + 1u] = flip ? sTri[j] : sTri[i];
            outputPairs[3u * slot + 2u] = flip ? sTri[i] : sTri[j];
        }
    }
    if (boxPairs != 0u) atomicAdd(sBoxPairs, boxPairs);
    barrier();
    if (lid == 0u && sBoxPairs != 0u) atomicAdd(chainCounters[CULLIDE_CHAIN_BOX_PAIRS], sBoxPairs);
#ifdef CULLIDE_FILTER_SUBCOUNT
    if (lid == 0u && sBoxPairs == 0u) atomicAdd(chainCounters[CULLIDE_CHAIN_EMPTY_PAIRS], 1u);
#endif
}
