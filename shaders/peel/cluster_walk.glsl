// Peel scene sampling, 3-D cull (compute), the fused walk: every level of the cluster-tree walk
// (peel/cluster_pairs.glsl's roots, levels and depth-first rest) in ONE dispatch. One
// workgroup per pair of parts (64 invocations, 128 without rays): the pair's frontier of node pairs lives in shared
// memory, one level per round (a barrier between rounds, no dispatch, no indirect arguments,
// no read-back); node pairs whose boxes come within the pair's margin go to the next round,
// pairs of two clusters to clusterPairs (the same list, the same test and the same margin as
// the levels walk, so the same cluster pairs in another order). When a round's frontier is
// full (PEEL_WALK_QUEUE node pairs) the children that do not fit are walked depth first by the
// invocation that found them, on its own stack, right away.
// Bounds (docs/gl.md "Loop bounds on llvmpipe"): rounds <= tree height + 1 (<= 70: deeper
// trees are refused on the CPU); an invocation's stack holds at most 4 + 3 x (levels below
// the node pair it expands) entries, PEEL_WALK_STACK = 96 covers 30 levels; every loop
// iteration of an invocation counts against PEEL_WALK_BUDGET, below llvmpipe's silent cut at
// 65,535. A full stack or a spent budget stops that invocation and counts
// PEEL_COUNTER_WALK_CUT: the CPU then redoes the call with the levels walk (nothing is lost
// silently).
// With PEEL_WALK_RECORDS (no rays: the triangle pairs come next, peel/tri_pairs.glsl with the
// same define) a cluster pair is written as two uvec4 holding all the triangle pairs need
// (candidate, margin, objects, absolute slot ranges), read from what the walk has at hand: the
// triangle pairs then reach a cluster's corners through 3 dependent loads instead of 8.
#include "common/dispatch.glsl"
#include "peel/bindings.h"

// Invocations per pair of parts (a round's node pairs are spread over them): 64, or as the
// define PEEL_WALK_WIDTH says (the walk without rays: 128; the largest pairs' rounds are the
// walk's critical path).
#ifndef PEEL_WALK_WIDTH
#define PEEL_WALK_WIDTH 64u
#endif
layout(local_size_x = PEEL_WALK_WIDTH) in;

layout(std430, binding = PEEL_BINDING_PARTS) readonly buffer PeelParts { PeelPart parts[]; };
layout(std430, binding = PEEL_BINDING_CLUSTER_NODES) readonly buffer PeelNodes { PeelClusterNode clusterNodes[]; };
layout(std430, binding = PEEL_BINDING_NODE_BOXES) readonly buffer PeelBoxes { PeelBox nodeBoxes[]; };
layout(std430, binding = PEEL_BINDING_PAIR_LIST) readonly buffer PeelPairList { PeelPair pairList[]; };
layout(std430, binding = PEEL_BINDING_CLUSTER_PAIRS) writeonly buffer PeelClusterPairs { uvec4 clusterPairs[]; };
layout(std430, binding = PEEL_BINDING_COUNTERS) buffer PeelCounters { uint counters[]; };
layout(std430, binding = PEEL_BINDING_PAIR_FLAGS) buffer PeelPairFlags { uint pairFlags[]; };

uniform uint uPairBase;   // the call's pairs [uPairBase, uPairBase + uPairCount) (a split call walks two halves)
uniform uint uPairCount;
uniform uint uClusterCapacity;  // entries of clusterPairs
uniform uint uQueueLimit;       // node pairs a frontier may hold, <= PEEL_WALK_QUEUE (lower in tests: the stack path)
uniform uint uStepBudget;       // expansions an invocation may make, <= PEEL_WALK_BUDGET (lower in tests: the cut)

#define PEEL_WALK_STACK 96u

shared uvec2 sQueue[2][PEEL_WALK_QUEUE];
shared uint sCount[2];
shared uint sClusterPairs;

uvec2 gStack[PEEL_WALK_STACK];
uint gTop = 0u;
uint gSteps = 0u;
bool gCut = false;
uint gNext = 1u;  // the frontier being filled
PeelPair gPair;   // the workgroup's pair of parts

bool meet(PeelBox a, PeelBox b, float margin) {
    return all(lessThanEqual(a.lo.xyz, b.hi.xyz + margin)) && all(lessThanEqual(b.lo.xyz, a.hi.xyz + margin));
}

void emitClusters(uint pair, uint a, uint b, PeelPart pa, PeelPart pb, PeelClusterNode na, PeelClusterNode nb) {
    uint k = atomicAdd(counters[PEEL_COUNTER_CLUSTER_PAIRS], 1u);
#ifdef PEEL_WALK_RECORDS
    if (k < uClusterCapacity) {
        clusterPairs[2u * k] = uvec4(gPair.candidate, floatBitsToUint(gPair.margin), pa.object, pb.object);
        // Slots below 2^27 (checked on the CPU), a cluster's 1..32 triangles in the top 5 bits.
        clusterPairs[2u * k + 1u] = uvec4((pa.firstSlot + na.firstSlot) | ((na.slotCount - 1u) << 27),
                                          (pb.firstSlot + nb.firstSlot) | ((nb.slotCount - 1u) << 27),
                                          pa.nodeBase + a, pb.nodeBase + b);
    }
#else
    if (k < uClusterCapacity) clusterPairs[k] = uvec4(pair, a, b, 0u);
#endif
    else atomicAdd(counters[PEEL_COUNTER_CLUSTER_OVERFLOW], 1u);
    atomicAdd(sClusterPairs, 1u);
}

void visit(uint a, uint b) {
    uint k = atomicAdd(sCount[gNext], 1u);
    if (k < uQueueLimit) {
        sQueue[gNext][k] = uvec2(a, b);
    } else if (gTop < PEEL_WALK_STACK) {
        gStack[gTop++] = uvec2(a, b);
    } else {
        gCut = true;
    }
}

// Tests the children of node pair (a, b) of `pair`; `visit`s those that meet.
void expand(uint pair, PeelPart pa, PeelPart pb, float margin, uint a, uint b) {
    PeelClusterNode na = clusterNodes[pa.firstNode + a], nb = clusterNodes[pb.firstNode + b];
    bool leafA = na.left == PEEL_NO_NODE, leafB = nb.left == PEEL_NO_NODE;
    if (leafA && leafB) {
        emitClusters(pair, a, b, pa, pb, na, nb);
    } else if (!leafA && !leafB) {
        PeelBox al = nodeBoxes[pa.nodeBase + na.left], ar = nodeBoxes[pa.nodeBase + na.right];
        PeelBox bl = nodeBoxes[pb.nodeBase + nb.left], br = nodeBoxes[pb.nodeBase + nb.right];
        if (meet(al, bl, margin)) visit(na.left, nb.left);
        if (meet(al, br, margin)) visit(na.left, nb.right);
        if (meet(ar, bl, margin)) visit(na.right, nb.left);
        if (meet(ar, br, margin)) visit(na.right, nb.right);
    } else if (leafA) {
        PeelBox x = nodeBoxes[pa.nodeBase + a];
        if (meet(x, nodeBoxes[pb.nodeBase + nb.left], margin)) visit(a, nb.left);
        if (meet(x, nodeBoxes[pb.nodeBase + nb.right], margin)) visit(a, nb.right);
    } else {
        PeelBox y = nodeBoxes[pb.nodeBase + b];
        if (meet(nodeBoxes[pa.nodeBase + na.left], y, margin)) visit(na.left, b);
        if (meet(nodeBoxes[pa.nodeBase + na.right], y, margin)) visit(na.right, b);
    }
}

void main() {
    uint g = iscFlatWorkGroup();
    if (g >= uPairCount) return;  // the whole workgroup
    g += uPairBase;
    PeelPair pr = pairList[g];
    gPair = pr;
    PeelPart pa = parts[pr.partA], pb = parts[pr.partB];
    uint lid = gl_LocalInvocationIndex;
    if (lid == 0u) {
        bool roots = meet(nodeBoxes[pa.nodeBase], nodeBoxes[pb.nodeBase], pr.margin);
        sCount[0] = roots ? 1u : 0u;
        sQueue[0][0] = uvec2(0u);
        sCount[1] = 0u;
        sClusterPairs = 0u;
    }
    memoryBarrierShared();
    barrier();
    uint cur = 0u;
    for (;;) {  // one round per level: at most tree height + 1 rounds
        uint n = min(sCount[cur], uQueueLimit);  // the same for every invocation (read after a barrier)
        if (n == 0u) break;
        gNext = cur ^ 1u;
        for (uint i = lid; i < n && !gCut; i += PEEL_WALK_WIDTH) {
            uvec2 ab = sQueue[cur][i];
            expand(g, pa, pb, pr.margin, ab.x, ab.y);
            ++gSteps;
            // What did not fit the next frontier: depth first, now (keeps the stack short).
            while (gTop > 0u && !gCut) {
                uvec2 s = gStack[--gTop];
                expand(g, pa, pb, pr.margin, s.x, s.y);
                if (++gSteps >= uStepBudget) gCut = true;
            }
            if (gSteps >= uStepBudget) gCut = true;
        }
        memoryBarrierShared();
        barrier();  // this round's frontier read, the next one written
        if (lid == 0u) sCount[cur] = 0u;
        memoryBarrierShared();
        barrier();
        cur ^= 1u;
    }
    if (gCut) atomicAdd(counters[PEEL_COUNTER_WALK_CUT], 1u);
    if (lid == 0u && sClusterPairs != 0u) {
        pairFlags[g] = 1u;
        atomicAdd(counters[PEEL_COUNTER_PAIRS_WITH_CLUSTERS], 1u);
    }
}
