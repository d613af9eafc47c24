// Peel scene sampling, 3-D cull (compute): the world boxes of every part's cluster tree, from
// the world vertices (exact float bounds; rigid and deforming meshes alike), in one dispatch.
// 32 invocations per (part, node); those of clusters (leaves) box a triangle each, united in
// shared memory, then the first walks up: at each parent the first child to arrive stops
// (atomic counter), the second unites the two children's boxes (written before the counter,
// made visible by memoryBarrierBuffer) and goes on. Parts are sorted by nodeBase. With PEEL_LOCAL_VERTICES (the fused walk's chain)
// the corners come from the scene's local vertices and the model matrix, the expression of
// peel/world.glsl, with no world-vertex pass before it.
#include "common/dispatch.glsl"
#include "common/scene.glsl"
#include "peel/bindings.h"

layout(local_size_x = 64) in;

layout(std430, binding = PEEL_BINDING_PARTS) readonly buffer PeelParts { PeelPart parts[]; };
#ifndef PEEL_LOCAL_VERTICES
layout(std430, binding = PEEL_BINDING_WORLD) readonly buffer PeelWorld { vec4 world[]; };
#endif
layout(std430, binding = PEEL_BINDING_CLUSTER_NODES) readonly buffer PeelNodes { PeelClusterNode clusterNodes[]; };
layout(std430, binding = PEEL_BINDING_CLUSTER_SLOTS) readonly buffer PeelSlots { uint clusterSlots[]; };
layout(std430, binding = PEEL_BINDING_NODE_BOXES) coherent buffer PeelBoxes { PeelBox nodeBoxes[]; };
layout(std430, binding = PEEL_BINDING_NODE_VISITS) coherent buffer PeelVisits { uint nodeVisits[]; };

uniform uint uPartCount;
uniform uint uItemCount;  // nodes of all parts

shared vec3 sLo[64];
shared vec3 sHi[64];

void main() {
    // 32 invocations per node (two nodes a workgroup): the lanes of a cluster box one
    // triangle each, the boxes are united in shared memory (5 steps), lane 0 writes it.
    uint i = iscFlatInvocation() >> 5;
    uint lane = gl_LocalInvocationIndex & 31u, lid = gl_LocalInvocationIndex;
    bool leaf = false;
    PeelPart p;
    PeelClusterNode node;
    vec3 bmin = vec3(3.4e38), bmax = vec3(-3.4e38);
    if (i < uItemCount) {
        uint lo = 0u, hi = uPartCount - 1u;
        while (lo < hi) {
            uint mid = (lo + hi + 1u) / 2u;
            if (parts[mid].nodeBase <= i) lo = mid; else hi = mid - 1u;
        }
        p = parts[lo];
        node = clusterNodes[p.firstNode + (i - p.nodeBase)];
        leaf = node.left == PEEL_NO_NODE;  // inner nodes are made by their children
        if (leaf && lane < node.slotCount) {
            GpuObject o = sceneObjects[p.object];
            uint t = clusterSlots[p.firstSlot + node.firstSlot + lane];
            uint base = 3u * (o.firstTriangle + t);
            for (uint c = 0u; c < 3u; ++c) {
#ifdef PEEL_LOCAL_VERTICES
                vec3 v = (o.model * vec4(sceneVertices[o.firstVertex + sceneIndices[base + c]].xyz, 1.0)).xyz;
#else
                vec3 v = world[p.vertexBase + sceneIndices[base + c]].xyz;
#endif
                bmin = min(bmin, v);
                bmax = max(bmax, v);
            }
        }
    }
    sLo[lid] = bmin;
    sHi[lid] = bmax;
    memoryBarrierShared();
    barrier();
    for (uint w = 16u; w > 0u; w >>= 1u) {  // the same five steps in every invocation
        if (lane < w) {
            sLo[lid] = min(sLo[lid], sLo[lid + w]);
            sHi[lid] = max(sHi[lid], sHi[lid + w]);
        }
        memoryBarrierShared();
        barrier();
    }
    if (!leaf || lane != 0u) return;
    uint n = i - p.nodeBase;
    nodeBoxes[p.nodeBase + n] = PeelBox(vec4(sLo[lid], 0.0), vec4(sHi[lid], 0.0));
    memoryBarrierBuffer();
    uint parent = node.parent;
    while (parent != PEEL_NO_NODE) {
        if (atomicAdd(nodeVisits[p.nodeBase + parent], 1u) == 0u) return;  // the sibling finishes it
        PeelClusterNode pn = clusterNodes[p.firstNode + parent];
        PeelBox l = nodeBoxes[p.nodeBase + pn.left];
        PeelBox r = nodeBoxes[p.nodeBase + pn.right];
        nodeBoxes[p.nodeBase + parent] = PeelBox(min(l.lo, r.lo), max(l.hi, r.hi));
        memoryBarrierBuffer();
        parent = pn.parent;
    }
}
