// CInDeR detector, the cull before the raster passes (not in the paper: it draws every object
// whole). One invocation per (draw, primitive): an edge is kept when its world box meets the
// view's cull box (cullLo..cullHi: where the view's pairs can meet, grown by a margin), a
// triangle when its world box meets that box's footprint across the view axis, at any depth.
// Why the triangles keep their whole prism: the resolve counts the crossings in front of an edge
// point (the paper's stencil parity), so every surface a pixel's ray crosses in front of a kept
// edge point must be drawn, also those far in front of the pairs' box; an edge outside the box
// can be inside no other object of the pair (the box is the objects' boxes' overlap), so it is
// dropped wherever it lies. Both tests use boxes, so they keep a superset of what can matter.
// Kept primitives are appended to their draw's range (the draw's count, an atomic, is what the
// indirect draw then reads) with their own index, which the raster pass writes into its slots.
// Defines: CD_EDGES (cull the edge draws; else the surface draws).
#include "common/scene.glsl"
#include "cinder/bindings.h"

layout(local_size_x = 64) in;

layout(std430, binding = CD_BINDING_VIEWS) readonly buffer CdViews { CdView views[]; };
layout(std430, binding = CD_BINDING_DRAWS) readonly buffer CdDraws { CdDraw draws[]; };
layout(std430, binding = CD_BINDING_EDGES) readonly buffer CdEdges { uvec4 edges[]; };
layout(std430, binding = CD_BINDING_MESH_EDGES) readonly buffer CdMeshEdges { uint meshEdgeFirst[]; };
layout(std430, binding = CD_BINDING_COUNTERS) buffer CdCounters { uint counters[]; };
layout(std430, binding = CD_BINDING_COMMANDS) buffer CdCommands { uint commands[]; };
layout(std430, binding = CD_BINDING_CULL_INDICES) writeonly buffer CdCullIndices { uint cullIndices[]; };
layout(std430, binding = CD_BINDING_CULL_IDS) writeonly buffer CdCullIds { uint cullIds[]; };

uniform uint uDrawBase;   // draws[uDrawBase + command]: this pass's draws
uniform uint uCommandCount;

shared uint groupKept;

void main() {
    if (gl_LocalInvocationIndex == 0u) groupKept = 0u;
    barrier();
    // Commands in y (and z past 65535); primitives in x.
    uint command = gl_WorkGroupID.z * 65535u + gl_WorkGroupID.y;
    uint prim = gl_GlobalInvocationID.x;
    bool keep = false;
    if (command < uCommandCount) {
        CdDraw d = draws[uDrawBase + command];
        CdView v = views[d.view];
        GpuObject o = sceneObjects[d.object];
        uint mesh = o.meshId & ~ISC_OBJECT_INACTIVE;
#ifdef CD_EDGES
        const uint corners = 2u;
        uint first = meshEdgeFirst[mesh];
        uint count = meshEdgeFirst[mesh + 1u] - first;
#else
        const uint corners = 3u;
        uint count = o.triangleCount;
#endif
        if (prim < count) {
            uint local[3];
            vec3 lo = vec3(3.4e38), hi = vec3(-3.4e38);
#ifdef CD_EDGES
            uvec4 e = edges[first + prim];
            local[0] = e.x;
            local[1] = e.y;
            local[2] = 0u;
#else
            uint base = 3u * (o.firstTriangle + prim);
            local[0] = sceneIndices[base];
            local[1] = sceneIndices[base + 1u];
            local[2] = sceneIndices[base + 2u];
#endif
            for (uint c = 0u; c < corners; ++c) {
                vec3 p = (o.model * vec4(sceneVertices[o.firstVertex + local[c]].xyz, 1.0)).xyz;
                lo = min(lo, p);
                hi = max(hi, p);
            }
            bvec3 meets = bvec3(uvec3(lessThanEqual(lo, v.cullHi.xyz)) & uvec3(greaterThanEqual(hi, v.cullLo.xyz)));
#ifndef CD_EDGES
            meets[v.axis] = true;  // the whole prism along the rays
#endif
            keep = all(meets);
            if (keep) {
                uint rank = atomicAdd(commands[5u * command], corners) / corners;
                for (uint c = 0u; c < corners; ++c) cullIndices[(d.primBase + rank) * corners + c] = local[c];
                cullIds[d.primBase + rank] = prim;
                atomicAdd(groupKept, 1u);
            }
        }
    }
    barrier();
#ifdef CD_EDGES
    if (gl_LocalInvocationIndex == 0u && groupKept != 0u) atomicAdd(counters[CD_COUNTER_EDGES_KEPT], groupKept);
#else
    if (gl_LocalInvocationIndex == 0u && groupKept != 0u) atomicAdd(counters[CD_COUNTER_TRIANGLES_KEPT], groupKept);
#endif
}
