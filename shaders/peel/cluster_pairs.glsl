// Peel scene sampling, 3-D cull (compute): the cluster pairs of each pair of parts, walking the
// two cluster trees against each other (world boxes from peel/cluster_refit.glsl). Two boxes
// "meet" when they come within the pair's margin (two pixels: the ray test near an
// intersection needs the surfaces around it, not only the triangles that touch). Variants:
// - PEEL_PAIRS_INIT: one invocation per pair of parts; the roots' pair when they meet.
// - default (one level): one invocation per node pair of the input list; when both are
//   inner nodes the four child pairs are tested, when one is, its two children against the
//   other; pairs that meet go to the output list, two clusters to clusterPairs.
// - PEEL_PAIRS_STACK: the same, depth first on a local stack to the clusters (the last step:
//   the levels above gave enough node pairs to fill the GPU).
// Lists that overflow count their losses (the call is then redone with larger buffers).
#include "common/dispatch.glsl"
#include "peel/bindings.h"

layout(local_size_x = 64) in;

layout(std430, binding = PEEL_BINDING_PARTS) readonly buffer PeelParts { PeelPart parts[]; };
layout(std430, binding = PEEL_BINDING_CLUSTER_NODES) readonly buffer PeelNodes { PeelClusterNode clusterNodes[]; };
layout(std430, binding = PEEL_BINDING_NODE_BOXES) readonly buffer PeelBoxes { PeelBox nodeBoxes[]; };
layout(std430, binding = PEEL_BINDING_PAIR_LIST) readonly buffer PeelPairList { PeelPair pairList[]; };
layout(std430, binding = PEEL_BINDING_ITEMS_IN) readonly buffer PeelItemsIn { uvec4 itemsIn[]; };
layout(std430, binding = PEEL_BINDING_ITEMS_OUT) writeonly buffer PeelItemsOut { uvec4 itemsOut[]; };
layout(std430, binding = PEEL_BINDING_CLUSTER_PAIRS) writeonly buffer PeelClusterPairs { uvec4 clusterPairs[]; };
layout(std430, binding = PEEL_BINDING_ARGS) buffer PeelArgs { uint args[]; };
layout(std430, binding = PEEL_BINDING_COUNTERS) buffer PeelCounters { uint counters[]; };
layout(std430, binding = PEEL_BINDING_PAIR_FLAGS) buffer PeelPairFlags { uint pairFlags[]; };

uniform uint uPairCount;       // PEEL_PAIRS_INIT
uniform uint uInSlot;          // args slot counting the input list
uniform uint uOutSlot;         // args slot counting the output list
uniform uint uItemCapacity;    // entries of each item list
uniform uint uClusterCapacity; // entries of clusterPairs

bool meet(PeelBox a, PeelBox b, float margin) {
    return all(lessThanEqual(a.lo.xyz, b.hi.xyz + margin)) && all(lessThanEqual(b.lo.xyz, a.hi.xyz + margin));
}

void emitClusters(uint pair, uint a, uint b) {
    if (pairFlags[pair] == 0u && atomicExchange(pairFlags[pair], 1u) == 0u)
        atomicAdd(counters[PEEL_COUNTER_PAIRS_WITH_CLUSTERS], 1u);
    uint k = atomicAdd(counters[PEEL_COUNTER_CLUSTER_PAIRS], 1u);
    if (k < uClusterCapacity) clusterPairs[k] = uvec4(pair, a, b, 0u);
    else atomicAdd(counters[PEEL_COUNTER_CLUSTER_OVERFLOW], 1u);
}

void pushItem(uint pair, uint a, uint b) {
    uint k = atomicAdd(args[4u * uOutSlot + 3u], 1u);
    if (k < uItemCapacity) itemsOut[k] = uvec4(pair, a, b, 0u);
    else atomicAdd(counters[PEEL_COUNTER_ITEM_OVERFLOW], 1u);
}

#ifdef PEEL_PAIRS_INIT
void main() {
    uint i = iscFlatInvocation();
    if (i >= uPairCount) return;
    PeelPair pr = pairList[i];
    PeelPart pa = parts[pr.partA], pb = parts[pr.partB];
    if (meet(nodeBoxes[pa.nodeBase], nodeBoxes[pb.nodeBase], pr.margin)) pushItem(i, 0u, 0u);
}
#else

#ifdef PEEL_PAIRS_STACK
#define PEEL_STACK 96
uvec2 gStack[PEEL_STACK];
uint gTop = 0u;
void visit(uint pair, uint a, uint b) {
    if (gTop < uint(PEEL_STACK)) gStack[gTop++] = uvec2(a, b);
    else pushItem(pair, a, b);  // does not happen for trees up to ~30 levels; kept for safety
}
#else
void visit(uint pair, uint a, uint b) { pushItem(pair, a, b); }
#endif

// Tests the children of node pair (a, b) of `pair`; `visit`s those that meet.
void expand(uint pair, PeelPart pa, PeelPart pb, float margin, uint a, uint b) {
    PeelClusterNode na = clusterNodes[pa.firstNode + a], nb = clusterNodes[pb.firstNode + b];
    bool leafA = na.left == PEEL_NO_NODE, leafB = nb.left == PEEL_NO_NODE;
    if (leafA && leafB) {
        emitClusters(pair, a, b);
    } else if (!leafA && !leafB) {
        PeelBox al = nodeBoxes[pa.nodeBase + na.left], ar = nodeBoxes[pa.nodeBase + na.right];
        PeelBox bl = nodeBoxes[pb.nodeBase + nb.left], br = nodeBoxes[pb.nodeBase + nb.right];
        if (meet(al, bl, margin)) visit(pair, na.left, nb.left);
        if (meet(al, br, margin)) visit(pair, na.left, nb.right);
        if (meet(ar, bl, margin)) visit(pair, na.right, nb.left);
        if (meet(ar, br, margin)) visit(pair, na.right, nb.right);
    } else if (leafA) {
        PeelBox x = nodeBoxes[pa.nodeBase + a];
        if (meet(x, nodeBoxes[pb.nodeBase + nb.left], margin)) visit(pair, a, nb.left);
        if (meet(x, nodeBoxes[pb.nodeBase + nb.right], margin)) visit(pair, a, nb.right);
    } else {
        PeelBox y = nodeBoxes[pb.nodeBase + b];
        if (meet(nodeBoxes[pa.nodeBase + na.left], y, margin)) visit(pair, na.left, b);
        if (meet(nodeBoxes[pa.nodeBase + na.right], y, margin)) visit(pair, na.right, b);
    }
}

void main() {
    uint i = iscFlatInvocation();
    if (i >= min(args[4u * uInSlot + 3u], uItemCapacity)) return;
    uvec4 it = itemsIn[i];
    PeelPair pr = pairList[it.x];
    PeelPart pa = parts[pr.partA], pb = parts[pr.partB];
#ifdef PEEL_PAIRS_STACK
    gStack[0] = it.yz;
    gTop = 1u;
    while (gTop > 0u) {
        uvec2 ab = gStack[--gTop];
        expand(it.x, pa, pb, pr.margin, ab.x, ab.y);
    }
#else
    expand(it.x, pa, pb, pr.margin, it.y, it.z);
#endif
}
#endif
