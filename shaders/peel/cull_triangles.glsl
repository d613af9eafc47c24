// Peel scene sampling, 3-D cull (compute): one 64-invocation workgroup per cluster pair (from
// peel/cluster_pairs.glsl). Invocations 0..31 take the triangles of the pair's cluster of A,
// 32..63 those of B; each triangle's world box is tested against the other cluster's
// triangles' boxes (shared memory) and the triangle is kept when one comes within the
// pair's margin. Kept triangles are bits per part triangle (atomicOr): a triangle kept for
// any of its object's pairs is drawn once per tile. Every triangle of an object within the
// margin of the other object's triangles is kept, so the surfaces around each intersection
// are whole (the ray test needs that); the rest cannot touch the other object.
#include "common/dispatch.glsl"
#include "common/scene.glsl"
#include "peel/bindings.h"

layout(local_size_x = 64) in;

layout(std430, binding = PEEL_BINDING_PARTS) readonly buffer PeelParts { PeelPart parts[]; };
layout(std430, binding = PEEL_BINDING_WORLD) readonly buffer PeelWorld { vec4 world[]; };
layout(std430, binding = PEEL_BINDING_CLUSTER_NODES) readonly buffer PeelNodes { PeelClusterNode clusterNodes[]; };
layout(std430, binding = PEEL_BINDING_CLUSTER_SLOTS) readonly buffer PeelSlots { uint clusterSlots[]; };
layout(std430, binding = PEEL_BINDING_PAIR_LIST) readonly buffer PeelPairList { PeelPair pairList[]; };
layout(std430, binding = PEEL_BINDING_CLUSTER_PAIRS) readonly buffer PeelClusterPairs { uvec4 clusterPairs[]; };
layout(std430, binding = PEEL_BINDING_COUNTERS) readonly buffer PeelCounters { uint counters[]; };
layout(std430, binding = PEEL_BINDING_KEPT_BITS) buffer PeelKeptBits { uint keptBits[]; };

uniform uint uClusterCapacity;

shared vec3 sLo[64];
shared vec3 sHi[64];

void main() {
    uint g = iscFlatWorkGroup();
    if (g >= min(counters[PEEL_COUNTER_CLUSTER_PAIRS], uClusterCapacity)) return;  // whole workgroup
    uvec4 cp = clusterPairs[g];
    PeelPair pr = pairList[cp.x];
    uint lid = gl_LocalInvocationIndex;
    uint side = lid >> 5, k = lid & 31u;
    PeelPart p = parts[side == 0u ? pr.partA : pr.partB];
    PeelClusterNode mine = clusterNodes[p.firstNode + (side == 0u ? cp.y : cp.z)];
    PeelPart q = parts[side == 0u ? pr.partB : pr.partA];
    PeelClusterNode other = clusterNodes[q.firstNode + (side == 0u ? cp.z : cp.y)];
    bool valid = k < mine.slotCount;
    uint t = 0u;
    vec3 lo = vec3(3.4e38), hi = vec3(-3.4e38);
    if (valid) {
        t = clusterSlots[p.firstSlot + mine.firstSlot + k];
        uint base = 3u * (sceneObjects[p.object].firstTriangle + t);
        for (uint c = 0u; c < 3u; ++c) {
            vec3 v = world[p.vertexBase + sceneIndices[base + c]].xyz;
            lo = min(lo, v);
            hi = max(hi, v);
        }
    }
    sLo[lid] = lo;
    sHi[lid] = hi;
    barrier();
    if (!valid) return;
    // The margin covers the world vertices' float rounding by far (pixels, not ulps).
    float margin = pr.margin;
    uint otherBase = (side ^ 1u) * 32u;
    for (uint j = 0u; j < other.slotCount; ++j) {
        vec3 olo = sLo[otherBase + j], ohi = sHi[otherBase + j];
        if (all(lessThanEqual(lo, ohi + margin)) && all(lessThanEqual(olo, hi + margin))) {
            uint bit = p.triangleBase + t;
            atomicOr(keptBits[bit >> 5], 1u << (bit & 31u));
            break;
        }
    }
}
