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
// deformed cluster's triangles are then refit in parallel (an invocation per triangle, 64 apart)
// and reduced in shared memory (min and max are exact, so the box is the one a single thread
// finds); the rest (rigid boxes, the partner cut) runs on the first invocation.
// Bounded loops: a deformed cluster's triangles (<= clusterSize <= 4096) or corners (<= 3 x that); an object's partners
// (more than 60000: the item is kept, conservative).
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

shared vec3 sLo[64], sHi[64];

// uGrid (2026-11-29, tenth session; hook ISC_CULLIDE_POSE_GRID, with uGroupPerItem): at most this many
// workgroups, each taking items g, g + workgroups, ...; 0: one workgroup per item.
uniform uint uGrid;

void cullidePoseItem(uint t, uint lane, uint lanes);

void main() {
    if (uGroupPerItem != 0u) {
        uint stride = uGrid != 0u ? gl_NumWorkGroups.x * gl_NumWorkGroups.y : max(uCount, 1u);
        for (uint t = iscFlatWorkGroup(); t < uCount; t += stride) {  // uniform in the workgroup
            cullidePoseItem(t, gl_LocalInvocationID.x, 64u);
            barrier();  // (sLo and sHi are rewritten by the next item)
        }
    } else {
        uint t = iscFlatInvocation();
        if (t < uCount) cullidePoseItem(t, 0u, 1u);
    }
}

// Item t by `lanes` invocations (64: the whole workgroup, uGroupPerItem; 1: this one).
void cullidePoseItem(uint t, uint lane, uint lanes) {
    CullideItem it = items[t];
    uint bi = itemBoxes[t];
    vec3 lo, hi;
    if ((bi & CULLIDE_ITEM_BOX_DEFORMED_BIT) == 0u) {
        if (lane != 0u) return;
        vec3 c = 0.5 * (boxes[2u * bi].xyz + boxes[2u * bi + 1u].xyz);
        vec3 e = 0.5 * (boxes[2u * bi + 1u].xyz - boxes[2u * bi].xyz);
        mat4 m = sceneObjects[it.object].model;
        vec3 wc = (m * vec4(c, 1.0)).xyz;
        vec3 we = abs(m[0].xyz) * e.x + abs(m[1].xyz) * e.y + abs(m[2].xyz) * e.z;
        vec3 g = vec3(it.fatten + uEpsilon);
        lo = wc - we - g;
        hi = wc + we + g;
    } else {
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
        if (lanes > 1u) {
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
            if (lane != 0u) return;
            lo = sLo[0];
            hi = sHi[0];
        }
        vec3 am = max(abs(lo), abs(hi));
        vec3 g = vec3(max(am.x, max(am.y, am.z)) * 2e-6 + it.fatten + uEpsilon);
        lo -= g;
        hi += g;
    }
    chainBoxes[2u * t] = vec4(lo, 0.0);
    chainBoxes[2u * t + 1u] = vec4(hi, 0.0);
    // (More partners than one loop may visit on llvmpipe: kept, conservative.)
    uint need = partners[it.group + 1u] - partners[it.group] > 60000u ? 1u : 0u;
    for (uint k = partners[it.group]; k < partners[it.group + 1u] && need == 0u; ++k) {
        uint q = partners[k];
        uint ob = 2u * (uCount + q);
        if (all(lessThanEqual(lo, chainBoxes[ob + 1u].xyz)) && all(lessThanEqual(chainBoxes[ob].xyz, hi))) {
            need = 1u;
            break;
        }
    }
    alive[t] = need;
    if (need != 0u) atomicAdd(counters[CULLIDE_COUNTER_SEEDED], 1u);
}
