// CULLIDE: the chain's pose pass (CullideSettings::gpuItems; before the cluster level's passes).
// One thread per cluster item of the cluster level (every cluster of the pairs' objects):
//   its world box: rigid, its local BVH node box (boxes[], the static local boxes) posed by the
//   object's model matrix, centre moved and half extents through |rotation|, as the object pass
//   poses them (splat.glsl, CULLIDE_ITEM_LOCAL_BOXES); deformed, the box of its triangles' posed
//   vertices (the uploaded ones), grown by 2e-6 of its largest coordinate as the CPU grew it;
//   then grown by the fattening and the round-off bound, written to chainBoxes[] for the pair
//   pass (chain.glsl mode 0);
//   its seed: it starts in the cluster level's PCS (alive) only when that box reaches the box of
//   one of its object's partners (the CPU's former "need" cut: a cluster outside every
//   partner's box cannot touch one), counted in CULLIDE_COUNTER_SEEDED.
// uGroupPerItem (set when some item is deformed): one 64-wide workgroup per item instead; a
// deformed cluster's corners (uCorners) or triangles are then posed in parallel (64 apart) and
// reduced in shared memory (min and max are exact, so the box is the one a single thread finds);
// with uLanePartners every invocation tests a share of the partners (below), else the first one
// tests them all.
// Bounded loops: a deformed cluster's triangles (<= clusterSize <= 4096) or corners (<= 3 x
// that); an object's partners (more than 60000: the item is kept, conservative).
#include "common/dispatch.glsl"
#include "common/scene.glsl"
#include "cullide/items.glsl"

layout(local_size_x = 64) in;

layout(std430, binding = CULLIDE_BINDING_ALIVE) buffer CullideAlive { uint alive[]; };
layout(std430, binding = CULLIDE_BINDING_COUNTERS) buffer CullideCounters { uint counters[]; };
// chainBoxes[]: this pass writes the items' boxes [0, 2 * uCount); the groups' object boxes (the
// CPU's, grown) follow them, read here and by the pair pass (chain.glsl uObjectCut).
layout(std430, binding = CULLIDE_BINDING_CHAIN_BOXES) buffer CullideChainBoxes { vec4 chainBoxes[]; };
layout(std430, binding = CULLIDE_BINDING_BOXES) readonly buffer CullideBoxes { vec4 boxes[]; };
layout(std430, binding = CULLIDE_BINDING_ITEM_BOXES) readonly buffer CullideItemBoxes { uint itemBoxes[]; };
layout(std430, binding = CULLIDE_BINDING_PARTNERS) readonly buffer CullidePartners { uint partners[]; };
layout(std430, binding = CULLIDE_BINDING_CLUSTER_VERTICES) readonly buffer CullideClusterVertices { uint clusterVertices[]; };

uniform uint uCount;     // items
uniform float uEpsilon;  // world units: the round-off bound
uniform uint uGroupPerItem;  // 1: one workgroup per item (gl_WorkGroupID), 0: one invocation per item
// uCorners (2026-11-29, tenth session; hook ISC_CULLIDE_POSE_CORNERS=0 for the triangles): a deformed
// cluster's box over its distinct corners (clusterVertices[]), each vertex loaded and posed once
// instead of once per triangle corner: the same vertices through the same expression, so the
// same box, bit for bit.
uniform uint uCorners;
// uLanePartners (2026-11-29, tenth session; hook ISC_CULLIDE_POSE_PARTNERS=0 for the first invocation's
// loop): with uGroupPerItem every invocation holds the item's box and tests every 64th of its
// object's partners (about 16 on a pile), the hits ORed in shared memory: one round of dependent
// loads instead of one per partner tested, which at the GPU's idle clock is what the pass waits on.
uniform uint uLanePartners;
// uObbBase (2026-11-29, eleventh session; 0 with hook ISC_CULLIDE_OBB_POSED=0 or without the pair
// pass's oriented-box test): past the object boxes, four vec4s per item for the pair pass
// (chain.glsl cullideObbLoad): a rigid item's oriented box, (centre, fattening + round-off bound)
// and its three half edges, the model's columns times the local half extents: the expressions
// the pair pass used on the same floats, so the same box; a deformed item's first vec4 has w = -1
// (no local box).
uniform uint uObbBase;
// uPairSeeds (2026-11-29, eleventh session; 0 with hook ISC_CULLIDE_PAIR_SEEDS=0): the early pair pass
// that follows seeds the PCS (chain.glsl): this pass writes the boxes and clears the item's flag.
uniform uint uPairSeeds;

shared vec3 sLo[64], sHi[64];
shared uint sNeed;

void main() {
    uint lane = 0u, lanes = 1u, t;
    if (uGroupPerItem != 0u) {
        t = iscFlatWorkGroup();
        lane = gl_LocalInvocationID.x;
        lanes = 64u;
    } else {
        t = iscFlatInvocation();
    }
    if (t >= uCount) return;  // (per workgroup with uGroupPerItem: no barrier is skipped by part of one)
    // The partners over the invocations (uLanePartners): each holds the box; sNeed gets the hits.
    bool spread = lanes > 1u && uLanePartners != 0u;
    if (spread && lane == 0u) sNeed = 0u;  // (written by the others only after a barrier below)
    CullideItem it = items[t];
    uint bi = itemBoxes[t];
    vec3 lo, hi;
    if ((bi & CULLIDE_ITEM_BOX_DEFORMED_BIT) == 0u) {
        if (lane != 0u && !spread) return;
        vec3 c = 0.5 * (boxes[2u * bi].xyz + boxes[2u * bi + 1u].xyz);
        vec3 e = 0.5 * (boxes[2u * bi + 1u].xyz - boxes[2u * bi].xyz);
        mat4 m = sceneObjects[it.object].model;
        vec3 wc = (m * vec4(c, 1.0)).xyz;
        vec3 we = abs(m[0].xyz) * e.x + abs(m[1].xyz) * e.y + abs(m[2].xyz) * e.z;
        vec3 g = vec3(it.fatten + uEpsilon);
        lo = wc - we - g;
        hi = wc + we + g;
        if (uObbBase != 0u && lane == 0u) {
            uint q = uObbBase + 4u * t;
            chainBoxes[q] = vec4(wc, it.fatten + uEpsilon);
            chainBoxes[q + 1u] = vec4(m[0].xyz * e.x, 0.0);
            chainBoxes[q + 2u] = vec4(m[1].xyz * e.y, 0.0);
            chainBoxes[q + 3u] = vec4(m[2].xyz * e.z, 0.0);
        }
    } else {
        if (uObbBase != 0u && lane == 0u) chainBoxes[uObbBase + 4u * t] = vec4(0.0, 0.0, 0.0, -1.0);
        lo = vec3(1e30);
        hi = vec3(-1e30);
        if (uCorners != 0u) {
            // (sceneWorldTriangle's expression on the same vertices: the same floats.)
            uint c = bi & ~CULLIDE_ITEM_BOX_DEFORMED_BIT;
            GpuObject o = sceneObjects[it.object];
            for (uint k = clusterVertices[c] + lane; k < clusterVertices[c + 1u]; k += lanes) {
                vec3 w = (o.model * vec4(sceneVertices[o.firstVertex + clusterVertices[k]].xyz, 1.0)).xyz;
                lo = min(lo, w);
                hi = max(hi, w);
            }
        } else {
            for (uint k = lane; k < it.slotCount; k += lanes) {
                vec3 a, b, c;
                sceneWorldTriangle(it.object, slotTriangles[it.firstSlot + k], a, b, c);
                lo = min(lo, min(a, min(b, c)));
                hi = max(hi, max(a, max(b, c)));
            }
        }
        if (uGroupPerItem != 0u) {
            // Every invocation of the workgroup is here (the branch is per item): reduce.
            sLo[lane] = lo;
            sHi[lane] = hi;
            barrier();
            for (uint s = 32u; s > 0u; s >>= 1u) {
                if (lane < s) {
                    sLo[lane] = min(sLo[lane], sLo[lane + s]);
                    sHi[lane] = max(sHi[lane], sHi[lane + s]);
                }
                barrier();
            }
            if (lane != 0u && !spread) return;
            lo = sLo[0];
            hi = sHi[0];
        }
        vec3 am = max(abs(lo), abs(hi));
        vec3 g = vec3(max(am.x, max(am.y, am.z)) * 2e-6 + it.fatten + uEpsilon);
        lo -= g;
        hi += g;
    }
    if (lane == 0u) {
        chainBoxes[2u * t] = vec4(lo, 0.0);
        chainBoxes[2u * t + 1u] = vec4(hi, 0.0);
    }
    if (uPairSeeds != 0u) {  // (uniform: the whole workgroup leaves, past every barrier above)
        if (lane == 0u) alive[t] = 0u;
        return;
    }
    // (More partners than one loop may visit on llvmpipe: kept, conservative.)
    uint first = partners[it.group], last = partners[it.group + 1u];
    uint need = last - first > 60000u ? 1u : 0u;
    uint step = spread ? lanes : 1u;
    for (uint k = first + (spread ? lane : 0u); k < last && need == 0u; k += step) {
        uint q = partners[k];
        uint ob = 2u * (uCount + q);
        if (all(lessThanEqual(lo, chainBoxes[ob + 1u].xyz)) && all(lessThanEqual(chainBoxes[ob].xyz, hi))) {
            need = 1u;
            break;
        }
    }
    if (spread) {
        barrier();  // (every invocation past sNeed's reset)
        if (need != 0u) sNeed = 1u;
        barrier();
        if (lane != 0u) return;
        need = sNeed;
    }
    alive[t] = need;
    if (need != 0u) atomicAdd(counters[CULLIDE_COUNTER_SEEDED], 1u);
}
