// CULLIDE detector (Govindaraju et al.'s reducePCS, Boldt & Meyer's self-intersection
// variant; papers/001): storage binding points and std430 structs shared by C++
// (plugin/detectors/cullide) and GLSL (#include "cullide/bindings.h"). Valid in both languages.
#ifndef ISC_SHADERS_CULLIDE_BINDINGS_H
#define ISC_SHADERS_CULLIDE_BINDINGS_H

#ifdef __cplusplus
namespace isc::gl {
#endif

// Binding points 0..2 are the GpuScene's (common/bindings.h); cullide uses 4..12.
#define CULLIDE_BINDING_ITEMS 4     // CullideItem items[]: the level's potentially colliding set
#define CULLIDE_BINDING_SLOTS 5     // uint slotTriangles[]: per mesh, its hierarchy's leaf order
#define CULLIDE_BINDING_ALIVE 6     // uint alive[members]: 1 while the member (item or slot) is in the PCS
#define CULLIDE_BINDING_MARKS 7     // uint marks[members]: this view's CULLIDE_MARK_* bits
#define CULLIDE_BINDING_DEPTH 8     // uvec4 depth[pixels]: (front key, front second, back key, back second)
#define CULLIDE_BINDING_COUNTERS 9  // uint counters[CULLIDE_COUNTER_COUNT]
#define CULLIDE_BINDING_SELF_COUNT 10    // uint selfCount[pixels]: fragments stored per pixel (self level)
#define CULLIDE_BINDING_SELF_ENTRIES 11  // uvec2 selfEntries[pixels * layers]: (group << 20 | triangle, near16 << 16 | far16)
#define CULLIDE_BINDING_QUERY_RESULTS 12 // uint queryResults[items * 4]: occlusion query results (method "queries")
#define CULLIDE_BINDING_BOXES 13         // vec4 boxes[2 * slots]: (min, max) world boxes standing in for triangles
                                         // (CULLIDE_BOXES: the object level on its clusters' boxes)
#define CULLIDE_BINDING_CLIP 14          // vec4 clip[2 * items]: per item, the (min, max) world box where it can
                                         // touch another object (its object's box met with its partners'):
                                         // the query looks at its fragments there only (uClip)
// The chain (cullide/chain.glsl): cluster level -> per-pair cluster overlap -> triangle level on
// the GPU with one read-back.
#define CULLIDE_BINDING_CHAIN_PAIRS 15   // CullideChainPair chainPairs[]: the object pairs, as cluster item ranges
#define CULLIDE_BINDING_CHAIN_BOXES 16   // vec4 chainBoxes[2 * clusters]: per cluster item, its world box (min, max)
#define CULLIDE_BINDING_WANTED 17        // uint wanted[clusters]: 1 when a kept pair needs the cluster's triangles
#define CULLIDE_BINDING_KEEP 18          // uint keep[pairs]: 1 when surviving clusters of both sides overlap
#define CULLIDE_BINDING_BITS 19          // uint bits[(members + 31) / 32]: the triangle level's survivors, packed
// The chain's GPU filter (cullide/filter.glsl): the triangle pairs of the surviving triangles
// of overlapping cluster pairs that the float separating-axis test cannot prove apart.
#define CULLIDE_BINDING_CLUSTER_PAIRS 20   // uvec4 clusterPairs[]: (chain pair, cluster item of its a, of its b, 0)
#define CULLIDE_BINDING_CHAIN_COUNTERS 21  // uint chainCounters[12]: CULLIDE_CHAIN_* counters, the indirect args at 4..6
#define CULLIDE_BINDING_OUTPUT 22          // uint outputPairs[3 * capacity]: (chain pair, triangle of its a, of its b)
// The chain's pose pass (cullide/pose.glsl, CullideSettings::gpuItems): every cluster of
// the pairs' objects is an item; its world box is computed on the GPU and it starts in the
// cluster level's PCS when that box reaches a partner object's box.
#define CULLIDE_BINDING_ITEM_BOXES 23      // uint itemBoxes[items]: the item's static cluster index c (its local
                                           // box in boxes[2c], 2c + 1), with CULLIDE_ITEM_BOX_DEFORMED_BIT
                                           // set for a deformed item (its box from its vertices)
// (Until 2026-11-29's ninth session 24 held the groups' object boxes; they follow the items' boxes
// in chainBoxes[] since.) Since the tenth session: per static cluster c (as boxes[] numbers them),
// its triangles' distinct corners (mesh vertex indices) in clusterVertices[clusterVertices[c] ..
// clusterVertices[c + 1]) (the heads first, absolute), so that the pose pass boxes a deformed
// cluster from each vertex once instead of once per corner (about 4.7 times fewer loads on the bunny).
#define CULLIDE_BINDING_CLUSTER_VERTICES 24  // uint clusterVertices[]: heads, then each cluster's corners
#define CULLIDE_BINDING_PARTNERS 25        // uint partners[]: per group g, partners[g] .. partners[g + 1] index
                                           // the same array, whose entries there are the partner groups
#define CULLIDE_ITEM_BOX_DEFORMED_BIT 0x80000000u
// The filter's per-slot load (cullide-12, hook ISC_CULLIDE_SLOT_CORNERS): per mesh slot, its
// triangle's corner indices (into its mesh's vertices) and the triangle, uploaded once per set of
// meshes, so that the filter loads a slot's corners' indices in one load instead of two dependent ones.
#define CULLIDE_BINDING_SLOT_CORNERS 26    // uvec4 slotCorners[slots]: (corner 0, 1, 2, triangle)
#define CULLIDE_CHAIN_CLUSTER_PAIRS 0      // cluster pairs appended (the pair pass)
#define CULLIDE_CHAIN_OUTPUT 1             // triangle pairs appended (the filter)
#define CULLIDE_CHAIN_BOX_PAIRS 2          // triangle pairs whose boxes met (before the separating-axis test)
#define CULLIDE_CHAIN_ARGS 4               // uint offset of the filter's indirect dispatch arguments (x, y, z)
// The diagnostic counts of CULLIDE_FILTER_SUBCOUNT (after the arguments): cluster pairs in which
// no triangle boxes met, no 16-slot sub-boxes met, and whose clusters' tight world boxes (over
// their posed triangles) do not meet.
#define CULLIDE_CHAIN_EMPTY_PAIRS 8
#define CULLIDE_CHAIN_NO_SUBBOX_PAIRS 9
#define CULLIDE_CHAIN_NO_TIGHT_PAIRS 10
#define CULLIDE_CHAIN_COUNTER_COUNT 12
// The filter holds both clusters of a pair in shared memory: clusters of at most this many triangles.
#define CULLIDE_FILTER_MAX_CLUSTER 64u
// The chain's pair pass walks one object's cluster items per thread: objects with more are not
// chained (bounded loops, see CULLIDE_MAX_PIXELS_PER_THREAD below).
#define CULLIDE_CHAIN_MAX_ITEMS 60000u

// A view's item is "not fully visible" from the front (the view direction) and/or from the
// back (the opposite direction). It stays in the PCS only when both are set: an item fully
// visible from either side collides with none of the others (Govindaraju et al., Lemma 1).
#define CULLIDE_MARK_FRONT 1u
#define CULLIDE_MARK_BACK 2u

// Slots of counters[].
#define CULLIDE_COUNTER_FRAGMENTS 0   // conservative fragments generated (splat pass 0)
#define CULLIDE_COUNTER_ALIVE 1       // items left in the PCS after the last view
#define CULLIDE_COUNTER_OVERFLOW 2    // self level: pixels over the layer cap (marked, conservative)
#define CULLIDE_COUNTER_CUT 3         // threads with more pixels than CULLIDE_MAX_PIXELS_PER_THREAD: the
                                      // level keeps every member (conservative; see below)
#define CULLIDE_COUNTER_SEEDED 4      // chain: triangle slots of the wanted clusters (the triangle level's PCS)
#define CULLIDE_COUNTER_COUNT 5

// Self level: triangle indices below 2^20, self objects below 2^12 in one call.
#define CULLIDE_SELF_TRIANGLE_BITS 20u
#define CULLIDE_SELF_MAX_TRIANGLES 1048576u
#define CULLIDE_SELF_MAX_GROUPS 4096u

// Pixels one thread may visit in one pass. Mesa's llvmpipe ends every shader loop silently after
// 65535 iterations (LP_MAX_TGSI_LOOP_ITERATIONS, shared by the loops of an invocation): a
// triangle larger than that in pixels (a ground box's face across a whole view) lost the rest
// of its fragments, and the items it should have hidden were pruned. So a slot's pixels are
// shared among CullideItem::flags >> CULLIDE_ITEM_SPLIT_SHIFT threads (the host sizes the split
// from the item's box, at most CULLIDE_PIXELS_PER_THREAD pixels each), and a thread that would
// still visit more than CULLIDE_MAX_PIXELS_PER_THREAD counts itself in CULLIDE_COUNTER_CUT: the
// host then keeps the whole level (nothing pruned, never a miss).
#define CULLIDE_PIXELS_PER_THREAD 2048u
#define CULLIDE_MAX_PIXELS_PER_THREAD 65000u

// One member of a level's potentially colliding set, std430, 32 bytes: triangle slots
// [firstSlot, firstSlot + slotCount) of `object` (slotTriangles[] maps a slot to the mesh
// triangle): a whole object, a cluster of its hierarchy, or one triangle. With CULLIDE_BOXES
// the slots index boxes[] instead (world boxes, already grown by the fattening, or local boxes:
// CULLIDE_ITEM_LOCAL_BOXES).
struct CullideItem {
    uint object;     // scene object id (GpuScene)
    uint firstSlot;  // absolute index into slotTriangles[]
    uint slotCount;  // triangles of the item
    uint workStart;  // first work index (exclusive prefix sum of slotCount over the level)
    uint group;      // exclusion id: fragments of the same group never hide each other
    float fatten;    // world units: the item is tested as its triangles grown by this much
    uint flags;      // CULLIDE_ITEM_*, and from bit CULLIDE_ITEM_SPLIT_SHIFT the threads per slot (0: 1)
    uint memberStart;  // first member of the item's slots (alive, marks) when every slot is a member
};

// One object pair of the chain, std430, 24 bytes: side A's cluster items [firstA, firstA + countA),
// side B's [firstB, firstB + countB) (items of the cluster level); threadStart: the first
// thread of the pair (one thread per item of A; exclusive prefix sum of countA); swapped: 1
// when side A is the candidate's b (the side with fewer items goes first).
struct CullideChainPair {
    uint firstA;
    uint countA;
    uint firstB;
    uint countB;
    uint threadStart;
    uint swapped;
};

// CullideItem::flags. With CULLIDE_BOXES, the item's slots index boxes[] from 0 as LOCAL boxes
// of its mesh (a cluster's BVH node box), posed on the GPU by the object's model matrix
// (GpuScene) and grown by fatten plus the round-off bound; without it they index the per-call
// world boxes, which start at uWorldBoxBase and are already grown.
#define CULLIDE_ITEM_LOCAL_BOXES 1u
// Threads sharing each slot's pixels (splat passes): workStart counts threads, memberStart slots.
#define CULLIDE_ITEM_SPLIT_SHIFT 16u

#ifdef __cplusplus
}  // namespace isc::gl
#endif

#endif
