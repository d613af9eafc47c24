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
// Bounded loops: a deformed cluster's triangles (<= clusterSize <= 4096); an object's partners
// (more than 60000: the item is kept, conservative).
#include "common/dispatch.glsl"
#include "common/scene.glsl"
#include "cullide/items.glsl"

layout(local_size_x = 64) in;

layout(std430, binding = CULLIDE_BINDING_ALIVE) buffer CullideAlive { uint alive[]; };
layout(std430, binding = CULLIDE_BINDING_COUNTERS) buffer CullideCounters { uint counters[]; };
layout(std430, binding = CULLIDE_BINDING_CHAIN_BOXES) writeonly buffer CullideChainBoxes { vec4 chainBoxes[]; };
layout(std430, binding = CULLIDE_BINDING_BOXES) readonly buffer CullideBoxes { vec4 boxes[]; };
layout(std430, binding = CULLIDE_BINDING_ITEM_BOXES) readonly buffer CullideItemBoxes { uint itemBoxes[]; };
layout(std430, binding = CULLIDE_BINDING_OBJECT_BOXES) readonly buffer CullideObjectBoxes { vec4 objectBoxes[]; };
layout(std430, binding = CULLIDE_BINDING_PARTNERS) readonly buffer CullidePartners { uint partners[]; };

uniform uint uCount;     // items
uniform float uEpsilon;  // world units: the round-off bound
uniform uint uGroupPerItem;  // 1: one workgroup per item (gl_WorkGroupID), 0: one invocation per item
// uHalfBase != 0 (Passes::setHalfBoxes): also each item's two halves' world boxes (its slots
// [0, 32) and [32, ...)), written to chainBoxes[2 * uCount + 4 * t ...] as (lo, hi, lo, hi) for the
// filter: rigid, the halves' local boxes (boxes[uHalfBase + 2 * bi + h]) posed as the cluster's
// box is; deformed, the boxes of each half's posed triangles, grown as the cluster's box is.
uniform uint uHalfBase;

// A local box posed by model m (centre moved, half extents through |rotation|), grown by g.
void cullidePoseBox(vec3 lo, vec3 hi, mat4 m, float g, out vec3 wlo, out vec3 whi) {
    vec3 c = 0.5 * (lo + hi), e = 0.5 * (hi - lo);
    vec3 wc = (m * vec4(c, 1.0)).xyz;
    vec3 we = abs(m[0].xyz) * e.x + abs(m[1].xyz) * e.y + abs(m[2].xyz) * e.z;
    wlo = wc - we - vec3(g);
    whi = wc + we + vec3(g);
}

shared vec3 sLo[64], sHi[64];

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
    CullideItem it = items[t];
    uint bi = itemBoxes[t];
    vec3 lo, hi;
    vec3 hLo[2], hHi[2];  // uHalfBase: the halves' boxes
    if (bi != CULLIDE_ITEM_BOX_DEFORMED) {
        if (lane != 0u) return;
        mat4 m = sceneObjects[it.object].model;
        float g = it.fatten + uEpsilon;
        cullidePoseBox(boxes[2u * bi].xyz, boxes[2u * bi + 1u].xyz, m, g, lo, hi);
        for (uint h = 0u; h < 2u && uHalfBase != 0u; ++h) {
            uint hb = uHalfBase + 2u * bi + h;
            cullidePoseBox(boxes[2u * hb].xyz, boxes[2u * hb + 1u].xyz, m, g, hLo[h], hHi[h]);
        }
    } else {
        // Each half's box (slots below 32 and from 32; the filter's halves), then their union.
        hLo[0] = hLo[1] = vec3(1e30);
        hHi[0] = hHi[1] = vec3(-1e30);
        for (uint k = lane; k < it.slotCount; k += lanes) {
            vec3 a, b, c;
            sceneWorldTriangle(it.object, slotTriangles[it.firstSlot + k], a, b, c);
            uint h = k < 32u ? 0u : 1u;
            hLo[h] = min(hLo[h], min(a, min(b, c)));
            hHi[h] = max(hHi[h], max(a, max(b, c)));
        }
        if (uGroupPerItem != 0u) {
            // Every invocation of the workgroup is here (the branch is per item): reduce within
            // each half of the workgroup (with at most 64 slots, lane l holds slot l's half only).
            // (More than 64 slots: a lane also holds slots of the other half; each lane gives
            // both, so that the union below is the cluster's box.)
            uint h = lane < 32u ? 0u : 1u;
            bool wide = it.slotCount > 64u;
            sLo[lane] = wide ? min(hLo[0], hLo[1]) : hLo[h];
            sHi[lane] = wide ? max(hHi[0], hHi[1]) : hHi[h];
            barrier();
            for (uint s = 16u; s > 0u; s >>= 1u) {
                if ((lane & 31u) < s) {
                    sLo[lane] = min(sLo[lane], sLo[lane + s]);
                    sHi[lane] = max(sHi[lane], sHi[lane + s]);
                }
                barrier();
            }
            if (lane != 0u) return;
            hLo[0] = sLo[0];
            hHi[0] = sHi[0];
            hLo[1] = sLo[32];
            hHi[1] = sHi[32];
            if (wide) {  // (more slots than lanes: halves not used by the filter)
                hLo[0] = min(hLo[0], hLo[1]);
                hHi[0] = max(hHi[0], hHi[1]);
                hLo[1] = hLo[0];
                hHi[1] = hHi[0];
            }
        }
        lo = min(hLo[0], hLo[1]);
        hi = max(hHi[0], hHi[1]);
        vec3 am = max(abs(lo), abs(hi));
        vec3 g = vec3(max(am.x, max(am.y, am.z)) * 2e-6 + it.fatten + uEpsilon);
        lo -= g;
        hi += g;
        for (uint h = 0u; h < 2u; ++h) {
            // (An empty half: its cluster's box; no filter lane loads from it.)
            bool empty = hLo[h].x > hHi[h].x;
            hLo[h] = empty ? lo : hLo[h] - g;
            hHi[h] = empty ? hi : hHi[h] + g;
        }
    }
    if (uHalfBase != 0u)
        for (uint h = 0u; h < 2u; ++h) {
            chainBoxes[2u * uCount + 4u * t + 2u * h] = vec4(hLo[h], 0.0);
            chainBoxes[2u * uCount + 4u * t + 2u * h + 1u] = vec4(hHi[h], 0.0);
        }
    chainBoxes[2u * t] = vec4(lo, 0.0);
    chainBoxes[2u * t + 1u] = vec4(hi, 0.0);
    // (More partners than one loop may visit on llvmpipe: kept, conservative.)
    uint need = partners[it.group + 1u] - partners[it.group] > 60000u ? 1u : 0u;
    for (uint k = partners[it.group]; k < partners[it.group + 1u] && need == 0u; ++k) {
        uint q = partners[k];
        if (all(lessThanEqual(lo, objectBoxes[2u * q + 1u].xyz)) && all(lessThanEqual(objectBoxes[2u * q].xyz, hi))) {
            need = 1u;
            break;
        }
    }
    alive[t] = need;
    if (need != 0u) atomicAdd(counters[CULLIDE_COUNTER_SEEDED], 1u);
}
