// CULLIDE: the early pair pass's walk done by the key pass's workgroups (splat.glsl with
// CULLIDE_KEY_PAIRS; Passes::setKeyPairs, the default since 2026-11-29, ninth session; hook
// ISC_CULLIDE_KEY_PAIRS=0 for the pair pass of its own, chain.glsl mode 0 with uEarly). The pose
// pass has made every cluster's box before the key pass starts, so the workgroup of cluster item
// a walks, for every pair its object leads (side A), side B's clusters, one per invocation: the
// same test as chain.glsl mode 0 with uEarly (world boxes, then the oriented boxes of two rigid
// clusters; a cluster that does not reach B's object box walks none: uObjectCut), appending each
// cluster pair met to clusterPairs[] for the filter, which checks that both clusters survived
// the cluster level (filter.glsl uCheckClusters). The same list in another order, with one
// dependent dispatch less.
// chainWords[] is the pair pass's buffer read as words: CullideChainPair entries (6 words each:
// firstA, countA, firstB, countB, threadStart, swapped), then from uLedBase, per group g, the
// word index of its first led pair's entry (g + 1: one past its last), then the led pairs' indices.
// Bounded loops: an object's led pairs (its candidate pairs), side B's clusters in steps of 64.
#ifndef CULLIDE_PAIRWALK_GLSL
#define CULLIDE_PAIRWALK_GLSL

layout(std430, binding = CULLIDE_BINDING_CHAIN_PAIRS) readonly buffer CullideChainWords { uint chainWords[]; };
layout(std430, binding = CULLIDE_BINDING_CHAIN_BOXES) readonly buffer CullideChainBoxes { vec4 chainBoxes[]; };
layout(std430, binding = CULLIDE_BINDING_CLUSTER_PAIRS) writeonly buffer CullideClusterPairs { uvec4 clusterPairs[]; };
layout(std430, binding = CULLIDE_BINDING_CHAIN_COUNTERS) buffer CullideChainCounters { uint chainCounters[]; };
layout(std430, binding = CULLIDE_BINDING_BOXES) readonly buffer CullideBoxes { vec4 boxes[]; };
layout(std430, binding = CULLIDE_BINDING_ITEM_BOXES) readonly buffer CullideItemBoxes { uint itemBoxes[]; };
uniform uint uClusterPairCapacity;
uniform uint uObbPairs;
uniform uint uObjectCut;
uniform uint uObjectBoxBase;  // chainBoxes[]: the groups' object boxes from 2 * uObjectBoxBase
uniform uint uLedBase;        // chainWords[]: the groups' led pairs' ranges from here

#include "cullide/obb.glsl"

// The walk of cluster item a (every invocation of its workgroup; no barrier inside).
void cullidePairWalk(uint a) {
    if (a >= uItemCount) return;
    uint g = items[a].group;
    uint first = chainWords[uLedBase + g], last = chainWords[uLedBase + g + 1u];
    if (first == last) return;
    vec3 alo = chainBoxes[2u * a].xyz, ahi = chainBoxes[2u * a + 1u].xyz;
    CullideObb oa, ob;
    bool obbA = uObbPairs != 0u && cullideObbOf(a, oa);
    for (uint k = first; k < last; ++k) {
        uint pi = chainWords[k];
        uint firstB = chainWords[6u * pi + 2u], countB = chainWords[6u * pi + 3u];
        bool swapped = chainWords[6u * pi + 5u] != 0u;
        if (countB == 0u) continue;
        if (uObjectCut != 0u) {
            uint o = 2u * (uObjectBoxBase + items[firstB].group);
            if (any(greaterThan(alo, chainBoxes[o + 1u].xyz)) || any(lessThan(ahi, chainBoxes[o].xyz))) continue;
        }
        for (uint j = gl_LocalInvocationID.x; j < countB; j += gl_WorkGroupSize.x) {
            uint b = firstB + j;
            vec3 blo = chainBoxes[2u * b].xyz, bhi = chainBoxes[2u * b + 1u].xyz;
            if (any(greaterThan(alo, bhi)) || any(greaterThan(blo, ahi))) continue;
            if (obbA && cullideObbOf(b, ob) && cullideObbApart(oa, ob)) continue;
            // Past the capacity the count still grows: the host sees the overflow.
            uint slot = atomicAdd(chainCounters[CULLIDE_CHAIN_CLUSTER_PAIRS], 1u);
            if (slot < uClusterPairCapacity) clusterPairs[slot] = swapped ? uvec4(pi, b, a, 0u) : uvec4(pi, a, b, 0u);
        }
    }
}

#endif
