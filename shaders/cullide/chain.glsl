// CULLIDE: the cluster level chained to the triangle level on the GPU (no read-back between
// them; CullideSettings::chain). Three modes, each one dispatch:
//   uMode 0 (pairs): uPairSplit threads per (object pair, cluster item of side A) of the cluster level.
//            A surviving cluster of A that overlaps (world boxes) a surviving cluster of B marks
//            both as wanted and keeps the pair: the per-pair cluster overlap, as the CPU did it.
//            With uClusterPairCapacity > 0 each such cluster pair is also appended to
//            clusterPairs[] for the filter (cullide/filter.glsl).
//            When the cluster level kept everything (its cut counter: a thread had more pixels
//            than one loop may visit) every cluster counts as surviving (conservative).
//   uMode 1 (seed): one thread per item of the triangle level (the same clusters, one member
//            per triangle slot): its members start in the PCS when the cluster is wanted.
//   uMode 2 (pack): one thread per 32 members: the triangle level's survivors as bits, for a
//            read-back 32 times smaller.
// Bounded loops (llvmpipe ends every loop after 65535 iterations): mode 0 walks side B's
// clusters of one object (the host chains only objects below CULLIDE_CHAIN_MAX_ITEMS cluster
// items), mode 1 one cluster's triangles (at most clusterSize, <= 4096), mode 2 32 members.
#include "cullide/items.glsl"
#include "common/dispatch.glsl"

layout(local_size_x = 64) in;

layout(std430, binding = CULLIDE_BINDING_ALIVE) buffer CullideAlive { uint alive[]; };
layout(std430, binding = CULLIDE_BINDING_COUNTERS) buffer CullideCounters { uint counters[]; };
layout(std430, binding = CULLIDE_BINDING_CHAIN_PAIRS) readonly buffer CullideChainPairs { CullideChainPair chainPairs[]; };
layout(std430, binding = CULLIDE_BINDING_CHAIN_BOXES) readonly buffer CullideChainBoxes { vec4 chainBoxes[]; };
layout(std430, binding = CULLIDE_BINDING_WANTED) buffer CullideWanted { uint wanted[]; };
layout(std430, binding = CULLIDE_BINDING_KEEP) buffer CullideKeep { uint keep[]; };
layout(std430, binding = CULLIDE_BINDING_BITS) buffer CullideBits { uint bits[]; };
layout(std430, binding = CULLIDE_BINDING_CLUSTER_PAIRS) writeonly buffer CullideClusterPairs { uvec4 clusterPairs[]; };
layout(std430, binding = CULLIDE_BINDING_CHAIN_COUNTERS) buffer CullideChainCounters { uint chainCounters[]; };

uniform uint uMode;
uniform uint uCount;      // threads of the mode
uniform uint uPairCount;  // mode 0: chain pairs
uniform uint uMembers;    // mode 2: members of the triangle level
uniform uint uClusterPairCapacity;  // mode 0: entries of clusterPairs[] (0: no list)
uniform uint uPairSplit;  // mode 0: threads per (pair, cluster item of side A), each a share of side B's clusters

// The pair whose thread range holds `t` (binary search over threadStart).
uint cullideChainPairOf(uint t) {
    uint lo = 0u, hi = uPairCount - 1u;
    while (lo < hi) {
        uint mid = (lo + hi + 1u) / 2u;
        if (chainPairs[mid].threadStart <= t) lo = mid; else hi = mid - 1u;
    }
    return lo;
}

void main() {
    uint t = iscFlatInvocation();
    if (t >= uCount) return;
    if (uMode == 0u) {
        // uPairSplit threads per (pair, cluster of A), each walking every uPairSplit-th cluster of
        // B (cullide-10: one thread walking all of B's ~75 left the GPU with too few threads to
        // hide the loads' latency). Each cluster pair is met by exactly one thread; the flags
        // are only ever set to 1.
        uint share = t % uPairSplit;
        t /= uPairSplit;
        uint pi = cullideChainPairOf(t);
        CullideChainPair p = chainPairs[pi];
        bool everything = counters[CULLIDE_COUNTER_CUT] != 0u;
        uint a = p.firstA + (t - p.threadStart);
        if (!everything && alive[a] == 0u) return;
        vec3 alo = chainBoxes[2u * a].xyz, ahi = chainBoxes[2u * a + 1u].xyz;
        bool any = false;
        for (uint k = share; k < p.countB; k += uPairSplit) {
            uint b = p.firstB + k;
            if (!everything && alive[b] == 0u) continue;
            vec3 blo = chainBoxes[2u * b].xyz, bhi = chainBoxes[2u * b + 1u].xyz;
            if (all(lessThanEqual(alo, bhi)) && all(lessThanEqual(blo, ahi))) {
                wanted[b] = 1u;
                any = true;
                if (uClusterPairCapacity != 0u) {
                    // Past the capacity the count still grows: the host sees the overflow and
                    // tests this call's survivors on the CPU instead.
                    uint slot = atomicAdd(chainCounters[CULLIDE_CHAIN_CLUSTER_PAIRS], 1u);
                    if (slot < uClusterPairCapacity)
                        clusterPairs[slot] = p.swapped != 0u ? uvec4(pi, b, a, 0u) : uvec4(pi, a, b, 0u);
                }
            }
        }
        if (any) {
            wanted[a] = 1u;
            keep[pi] = 1u;
        }
    } else if (uMode == 1u) {
        CullideItem it = items[t];
        uint w = wanted[t];
        for (uint k = 0u; k < it.slotCount; ++k) alive[it.memberStart + k] = w;
        if (w != 0u) atomicAdd(counters[CULLIDE_COUNTER_SEEDED], it.slotCount);
    } else {
        uint v = 0u;
        for (uint j = 0u; j < 32u; ++j) {
            uint m = 32u * t + j;
            if (m < uMembers && alive[m] != 0u) v |= 1u << j;
        }
        bits[t] = v;
    }
}
