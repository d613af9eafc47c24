// Peel scene sampling, 3-D cull (compute): the world boxes of every part's cluster tree, from
// the world vertices (exact float bounds; rigid and deforming meshes alike), in one dispatch.
// One invocation per (part, node); those of clusters (leaves) box their triangles, then walk
// up: at each parent the first child to arrive stops (atomic counter), the second unites the
// two children's boxes (written before the counter, made visible by memoryBarrierBuffer) and
// goes on. Parts are sorted by nodeBase. With PEEL_LOCAL_VERTICES (the fused walk's chain)
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

void main() {
    uint i = iscFlatInvocation();
    if (i >= uItemCount) return;
    uint lo = 0u, hi = uPartCount - 1u;
    while (lo < hi) {
        uint mid = (lo + hi + 1u) / 2u;
        if (parts[mid].nodeBase <= i) lo = mid; else hi = mid - 1u;
    }
    PeelPart p = parts[lo];
    uint n = i - p.nodeBase;
    PeelClusterNode node = clusterNodes[p.firstNode + n];
    if (node.left != PEEL_NO_NODE) return;  // inner nodes are made by their children
    GpuObject o = sceneObjects[p.object];
    vec3 bmin = vec3(3.4e38), bmax = vec3(-3.4e38);
    for (uint s = 0u; s < node.slotCount; ++s) {
        uint t = clusterSlots[p.firstSlot + node.firstSlot + s];
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
    nodeBoxes[p.nodeBase + n] = PeelBox(vec4(bmin, 0.0), vec4(bmax, 0.0));
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
