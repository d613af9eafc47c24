// CULLIDE: the cluster level chained to the triangle level on the GPU (no read-back between
// them; CullideSettings::chain). Three modes, each one dispatch:
//   uMode 0 (pairs): uPairSplit threads per (object pair, cluster item of side A) of the cluster level.
//            A surviving cluster of A that overlaps (world boxes) a surviving cluster of B marks
//            both as wanted and keeps the pair: the per-pair cluster overlap, as the CPU did it.
//            With uClusterPairCapacity > 0 each such cluster pair is also appended to
//            clusterPairs[] for the filter (cullide/filter.glsl).
//            When the cluster level kept everything (its cut counter: a thread had more pixels
//            than one loop may visit) every cluster counts as surviving (conservative); so does
//            every seeded cluster with uEarly (below), the filter then checking the survivors.
//   uMode 1 (seed): one thread per item of the triangle level (the same clusters, one member
//            per triangle slot): its members start in the PCS when the cluster is wanted.
//   uMode 2 (pack): one thread per 32 members: the triangle level's survivors as bits, for a
//            read-back 32 times smaller.
// Bounded loops (llvmpipe ends every loop after 65535 iterations): mode 0 walks side B's
// clusters of one object (the host chains only objects below CULLIDE_CHAIN_MAX_ITEMS cluster
// items), mode 1 one cluster's triangles (at most clusterSize, <= 4096), mode 2 32 members.
#include "cullide/items.glsl"
#include "common/dispatch.glsl"
#include "common/scene.glsl"

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
// Mode 0 with uEarly (Passes::setEarlyPairs: the pair pass queued right after the pose pass,
// before the cluster level's splats): every seeded cluster counts as surviving and neither
// wanted[] nor keep[] is written; the filter then skips a listed cluster pair unless both its
// clusters survived the cluster level and sets those flags itself (filter.glsl uCheckClusters).
uniform uint uEarly;
// Mode 0 with uEarly and uPairSeeds (2026-11-29, eleventh session; Passes::setPairSeeds): the pose
// pass cleared the cluster level's flags (alive[]) and this pass sets them for both clusters of
// every pair it lists, each counted once in CULLIDE_COUNTER_SEEDED: the clusters paired with a
// cluster of a partner are the cluster level's PCS.
uniform uint uPairSeeds;
// Mode 0 with uObjectCut (2026-11-29, ninth session; hook ISC_CULLIDE_PAIR_OBJECT_CUT=0 for the walk
// of every cluster of A): a cluster of A whose box does not reach B's object box (the pose pass's
// partner boxes) walks none of B's clusters. Conservative by the pose pass's own argument for its
// seed: a triangle of A that touches one of B has its contact point in both boxes (each holds its
// triangles, grown past the round-off), so the boxes meet; a cluster pair it drops may have
// boxes that meet, but no triangle pair of it touches. It saves the walks of the clusters that
// reach no part of B (with the rows below, the pass 5-27 % shorter on the 100-bunny piles,
// cullide.md). The object boxes (per group, the pose pass's partner boxes) follow the cluster
// items' boxes in chainBoxes[], from uObjectBoxBase.
uniform uint uObjectCut;
uniform uint uObjectBoxBase;
// Mode 0 with uPairRows (2026-11-29, ninth session; hook ISC_CULLIDE_PAIR_ROWS=0 for the search):
// workgroup row y is pair y, its x workgroups that pair's threads, so no thread searches
// threadStart for its pair (ten dependent loads on the pile's 795 pairs); rows shorter than the
// longest pair leave their last workgroups at once. The host takes it while that waste is small.
uniform uint uPairRows;
// Mode 0 with uPairLoads (2026-11-29, tenth session; hook ISC_CULLIDE_PAIR_LOADS=0 for one cluster of
// B at a time): the thread's clusters of B are visited four at a time, their boxes loaded before
// any of them is tested, so that the four loads wait together instead of one after the other (at
// the GPU's idle clock a pass waits on its loads' latency). The same tests in the same order.
uniform uint uPairLoads;

// Mode 0 with uObbPairs (2026-11-28, sixth session; hook ISC_CULLIDE_OBB_PAIRS=0 for the world
// boxes alone): two rigid clusters whose world boxes meet are also tested as what those boxes
// were posed from, each cluster's local box turned by its object's model matrix (an oriented
// box, or a parallelepiped under a scale), by the separating axis theorem over its 15 axes (the
// 3 + 3 face normals, the 9 edge products). The posed local boxes' world boxes are up to sqrt(3)
// times larger on each axis: on the 100-bunny pile about 63 % of the cluster pairs they let
// through have tight world boxes that do not even meet (counter filter_no_tight_cluster_pairs).
// Conservative: each box's radius along an axis L is the exact sum of |edge . L|, grown by the
// cluster's fattening and the round-off bound (uEpsilon) times |L| (a ball's radius: the
// Minkowski sum the world boxes grow by), and an axis separates only past a relative slack of
// 1e-5 of the distances compared (float round-off), so a near-zero axis (parallel edges)
// separates nothing. Deformed clusters (no local box) keep the world-box test alone.
layout(std430, binding = CULLIDE_BINDING_BOXES) readonly buffer CullideBoxes { vec4 boxes[]; };
layout(std430, binding = CULLIDE_BINDING_ITEM_BOXES) readonly buffer CullideItemBoxes { uint itemBoxes[]; };
uniform uint uObbPairs;
uniform float uEpsilon;  // world units: the round-off bound (the pose pass's)
// uObbBase (2026-11-29, eleventh session; 0 with hook ISC_CULLIDE_OBB_POSED=0): the pose pass wrote
// each item's oriented box at chainBoxes[uObbBase + 4 t ..] (pose.glsl), loaded here by
// cullideObbLoad in one round of four independent loads, instead of cullideObbOf's item box
// index, local box, item and model matrix (two rounds, nine loads) and its posing per box pair.
uniform uint uObbBase;

struct CullideObb {
    vec3 c;      // centre (world)
    mat3 e;      // half edges (world): the model's columns times the local half extents
    float grow;  // fattening + round-off bound (world)
};

// Item t's oriented box; false for a deformed item (no local box).
bool cullideObbOf(uint t, out CullideObb o) {
    uint bi = itemBoxes[t];
    if ((bi & CULLIDE_ITEM_BOX_DEFORMED_BIT) != 0u) return false;
    vec3 lo = boxes[2u * bi].xyz, hi = boxes[2u * bi + 1u].xyz;
    CullideItem it = items[t];
    mat4 m = sceneObjects[it.object].model;
    vec3 h = 0.5 * (hi - lo);
    o.c = (m * vec4(0.5 * (lo + hi), 1.0)).xyz;
    o.e = mat3(m[0].xyz * h.x, m[1].xyz * h.y, m[2].xyz * h.z);
    o.grow = it.fatten + uEpsilon;
    return true;
}

// Item t's oriented box as the pose pass wrote it (uObbBase); false for a deformed item. The
// four loads are issued together; the first's w says whether the box is there.
bool cullideObbLoad(uint t, out CullideObb o) {
    uint q = uObbBase + 4u * t;
    vec4 c = chainBoxes[q];
    vec4 e0 = chainBoxes[q + 1u], e1 = chainBoxes[q + 2u], e2 = chainBoxes[q + 3u];
    o.c = c.xyz;
    o.e = mat3(e0.xyz, e1.xyz, e2.xyz);
    o.grow = c.w;
    return c.w >= 0.0;
}

bool cullideObbGet(uint t, out CullideObb o) {
    return uObbBase != 0u ? cullideObbLoad(t, o) : cullideObbOf(t, o);
}

// True when axis L separates the two boxes beyond every round-off (L need not be unit).
bool cullideObbAxisApart(CullideObb a, CullideObb b, vec3 L) {
    float d = abs(dot(b.c - a.c, L));
    float ra = abs(dot(a.e[0], L)) + abs(dot(a.e[1], L)) + abs(dot(a.e[2], L));
    float rb = abs(dot(b.e[0], L)) + abs(dot(b.e[1], L)) + abs(dot(b.e[2], L));
    float g = (a.grow + b.grow) * length(L);
    return d - (ra + rb + g) > 1e-5 * (d + ra + rb + g);
}

bool cullideObbApart(CullideObb a, CullideObb b) {
    for (int i = 0; i < 3; ++i) {
        if (cullideObbAxisApart(a, b, cross(a.e[(i + 1) % 3], a.e[(i + 2) % 3]))) return true;
        if (cullideObbAxisApart(a, b, cross(b.e[(i + 1) % 3], b.e[(i + 2) % 3]))) return true;
    }
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            if (cullideObbAxisApart(a, b, cross(a.e[i], b.e[j]))) return true;
    return false;
}

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
    if (uMode == 0u && uPairRows != 0u) {
        // (The row's pair: its threads from its threadStart; past its count, none.)
        if (gl_WorkGroupID.y >= uPairCount) return;
        CullideChainPair p = chainPairs[gl_WorkGroupID.y];
        uint local = gl_WorkGroupID.x * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
        if (local >= p.countA * uPairSplit) return;
        t = p.threadStart * uPairSplit + local;
    } else if (t >= uCount) {
        return;
    }
    if (uMode == 0u) {
        // uPairSplit threads per (pair, cluster of A), each walking every uPairSplit-th cluster of
        // B (cullide-10: one thread walking all of B's ~75 left the GPU with too few threads to
        // hide the loads' latency). Each cluster pair is met by exactly one thread; the flags
        // are only ever set to 1.
        uint share = t % uPairSplit;
        t /= uPairSplit;
        uint pi = uPairRows != 0u ? gl_WorkGroupID.y : cullideChainPairOf(t);
        CullideChainPair p = chainPairs[pi];
        bool everything = uEarly != 0u || counters[CULLIDE_COUNTER_CUT] != 0u;
        uint a = p.firstA + (t - p.threadStart);
        if (!everything && alive[a] == 0u) return;
        vec3 alo = chainBoxes[2u * a].xyz, ahi = chainBoxes[2u * a + 1u].xyz;
        if (uObjectCut != 0u && p.countB > 0u) {
            uint gb = items[p.firstB].group;
            uint ob = 2u * (uObjectBoxBase + gb);
            if (any(greaterThan(alo, chainBoxes[ob + 1u].xyz)) || any(lessThan(ahi, chainBoxes[ob].xyz))) return;
        }
        CullideObb oa, ob;
        bool obbA = uObbPairs != 0u && cullideObbGet(a, oa);
        bool any = false;
        uint step = uPairLoads != 0u ? 4u : 1u;
        for (uint k0 = share; k0 < p.countB; k0 += step * uPairSplit) {
            vec4 pl[4], ph[4];
            for (uint u = 0u; u < step; ++u) {  // (the loads first; past the end, the last cluster's again)
                uint b = p.firstB + min(k0 + u * uPairSplit, p.countB - 1u);
                pl[u] = chainBoxes[2u * b];
                ph[u] = chainBoxes[2u * b + 1u];
            }
            for (uint u = 0u; u < step; ++u) {
                uint k = k0 + u * uPairSplit;
                if (k >= p.countB) break;
                uint b = p.firstB + k;
                if (!everything && alive[b] == 0u) continue;
                vec3 blo = pl[u].xyz, bhi = ph[u].xyz;
                if (all(lessThanEqual(alo, bhi)) && all(lessThanEqual(blo, ahi))) {
                    if (obbA && cullideObbGet(b, ob) && cullideObbApart(oa, ob)) continue;
                    if (uEarly == 0u) wanted[b] = 1u;
                    if (uPairSeeds != 0u && atomicExchange(alive[b], 1u) == 0u)
                        atomicAdd(counters[CULLIDE_COUNTER_SEEDED], 1u);
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
        }
        if (any && uEarly == 0u) {
            wanted[a] = 1u;
            keep[pi] = 1u;
        }
        if (any && uPairSeeds != 0u && atomicExchange(alive[a], 1u) == 0u) atomicAdd(counters[CULLIDE_COUNTER_SEEDED], 1u);
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
