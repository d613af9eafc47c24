// Peel scene sampling, 3-D cull (compute): the kept triangles of each part (bits from
// peel/cull_triangles.glsl, or all of a PEEL_PART_KEEP_ALL part) appended to the part's region
// of keptTriangles (mesh triangle) and keptIndices (three absolute world[] indices: the
// raster pass pulls the vertex by gl_VertexID). One invocation per part triangle; parts are
// sorted by triangleBase.
#include "common/dispatch.glsl"
#include "common/scene.glsl"
#include "peel/bindings.h"

layout(local_size_x = 64) in;

layout(std430, binding = PEEL_BINDING_PARTS) readonly buffer PeelParts { PeelPart parts[]; };
layout(std430, binding = PEEL_BINDING_KEPT_BITS) readonly buffer PeelKeptBits { uint keptBits[]; };
layout(std430, binding = PEEL_BINDING_KEPT_INDICES) writeonly buffer PeelKeptIndices { uint keptIndices[]; };
layout(std430, binding = PEEL_BINDING_KEPT_TRIANGLES) writeonly buffer PeelKeptTriangles { uint keptTriangles[]; };
layout(std430, binding = PEEL_BINDING_KEPT_COUNTS) buffer PeelKeptCounts { uint keptCounts[]; };
layout(std430, binding = PEEL_BINDING_COUNTERS) buffer PeelCounters { uint counters[]; };

uniform uint uPartCount;
uniform uint uItemCount;  // triangles of all parts

shared uint sKept;

void main() {
    if (gl_LocalInvocationIndex == 0u) sKept = 0u;
    barrier();
    uint i = iscFlatInvocation();
    if (i < uItemCount) {
        uint lo = 0u, hi = uPartCount - 1u;
        while (lo < hi) {
            uint mid = (lo + hi + 1u) / 2u;
            if (parts[mid].triangleBase <= i) lo = mid; else hi = mid - 1u;
        }
        PeelPart p = parts[lo];
        uint t = i - p.triangleBase;
        if (t < p.triangleCount &&
            ((p.flags & PEEL_PART_KEEP_ALL) != 0u || (keptBits[i >> 5] & (1u << (i & 31u))) != 0u)) {
            uint slot = p.triangleBase + atomicAdd(keptCounts[lo], 1u);
            keptTriangles[slot] = t;
            uint base = 3u * (sceneObjects[p.object].firstTriangle + t);
            for (uint c = 0u; c < 3u; ++c) keptIndices[3u * slot + c] = p.vertexBase + sceneIndices[base + c];
            atomicAdd(sKept, 1u);
        }
    }
    barrier();
    if (gl_LocalInvocationIndex == 0u && sKept != 0u) atomicAdd(counters[PEEL_COUNTER_KEPT], sKept);
}
