// Peel scene sampling, first pass of a call (compute): the world-space vertices of every
// object taking part (a "part"), once, for the cull, the raster pass, separation and the
// narrowphase filter. One invocation per vertex; parts are sorted by vertexBase.
#include "common/dispatch.glsl"
#include "common/scene.glsl"
#include "peel/bindings.h"

layout(local_size_x = 64) in;

layout(std430, binding = PEEL_BINDING_PARTS) readonly buffer PeelParts { PeelPart parts[]; };
layout(std430, binding = PEEL_BINDING_WORLD) writeonly buffer PeelWorld { vec4 world[]; };

uniform uint uPartCount;
uniform uint uItemCount;  // vertices of all parts

void main() {
    uint i = iscFlatInvocation();
    if (i >= uItemCount) return;
    uint lo = 0u, hi = uPartCount - 1u;
    while (lo < hi) {
        uint mid = (lo + hi + 1u) / 2u;
        if (parts[mid].vertexBase <= i) lo = mid; else hi = mid - 1u;
    }
    PeelPart p = parts[lo];
    GpuObject o = sceneObjects[p.object];
    world[i] = vec4((o.model * vec4(sceneVertices[o.firstVertex + (i - p.vertexBase)].xyz, 1.0)).xyz, 1.0);
}
