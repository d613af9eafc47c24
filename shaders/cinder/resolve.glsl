// CInDeR detector, the resolve pass (papers/000 section 4.2.1, passes 2-7 and the read-back):
// one invocation per atlas pixel. Per edge fragment of the pixel (pass 1's samples) and per
// other object of the view with surfaces at the pixel, the virtual ray cast: the object's
// surface fragments in front of the edge point, front-facing +1 and back-facing -1 (the
// stencil's increment and decrement); not zero means the edge point is inside that object's
// volume. An object's own surfaces are never counted against its own edges (self-interference
// prevented, not filtered). The facing and the normal come from the triangle itself (world
// space), the edge point is the point of the edge nearest the pixel centre across the view.
// readback=compact: each hit appended as a CdHit (lossless). readback=mipmap (CD_MIPMAP): the
// paper's colour buffer, one pair code per pixel (the last hit), reduced by mip.glsl.
// Defines: MAX_LAYERS, CD_MIPMAP (optional).
#include "common/scene.glsl"
#include "cinder/bindings.h"

layout(local_size_x = 64) in;

layout(std430, binding = CD_BINDING_VIEWS) readonly buffer CdViews { CdView views[]; };
layout(std430, binding = CD_BINDING_COUNTS) readonly buffer CdCounts { uint counts[]; };
layout(std430, binding = CD_BINDING_EDGE_SLOTS) readonly buffer CdEdgeSlots { uvec2 edgeSlots[]; };
layout(std430, binding = CD_BINDING_SURF_SLOTS) readonly buffer CdSurfSlots { uvec2 surfSlots[]; };
layout(std430, binding = CD_BINDING_HITS) writeonly buffer CdHits { CdHit hits[]; };
layout(std430, binding = CD_BINDING_COUNTERS) buffer CdCounters { uint counters[]; };
layout(std430, binding = CD_BINDING_EDGES) readonly buffer CdEdges { uvec4 edges[]; };
layout(std430, binding = CD_BINDING_VIEW_OBJECTS) readonly buffer CdViewObjects { uint viewObjects[]; };
layout(std430, binding = CD_BINDING_COLOUR) writeonly buffer CdColour { uint colour[]; };
layout(std430, binding = CD_BINDING_MESH_EDGES) readonly buffer CdMeshEdges { uint meshEdgeFirst[]; };
layout(std430, binding = CD_BINDING_VIEW_FLAGS) buffer CdViewFlags { uint viewFlags[]; };

uniform uvec2 uAtlasSize;
uniform uint uTileSize;
uniform uint uTilesX;
uniform uint uViewCount;
uniform uint uHitCapacity;

// Octahedral encoding, 2 x 16-bit snorm (x in the low half).
uint encodeNormal(vec3 n) {
    n /= max(abs(n.x) + abs(n.y) + abs(n.z), 1e-30);
    vec2 e = n.xy;
    if (n.z < 0.0) {
        vec2 s = vec2(e.x >= 0.0 ? 1.0 : -1.0, e.y >= 0.0 ? 1.0 : -1.0);
        e = (1.0 - abs(e.yx)) * s;
    }
    return packSnorm2x16(e);
}

// The pixel's surface fragments, unpacked once.
float sDepth[MAX_LAYERS];
uint sSlot[MAX_LAYERS];
uint sTriangle[MAX_LAYERS];
vec4 sPlane[MAX_LAYERS];  // world outward normal (unit), plane offset: dot(n, x) - w = signed distance
// An object's fragments, linked in depth-slot order: sFirst[j] when j is its object's first,
// sNext[j] its next (surfCount: none). Made once a pixel (S^2 / 2 steps) so that an edge walks
// S + S fragments, not S^2: llvmpipe silently ends an invocation's loops after 65535
// iterations in all, which E x S^2 passed from maxLayers 40 (docs/gl.md).
bool sFirst[MAX_LAYERS];
uint sNext[MAX_LAYERS];

void main() {
    // Work groups in two dimensions (a 2048^2 tile has more than 65535 groups of 64 pixels).
    uint pixel = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
    uint pixelCount = uAtlasSize.x * uAtlasSize.y;
    if (pixel >= pixelCount) return;
    uint edgeCount = counts[pixel];
    if (edgeCount == 0u) return;
    uint surfCount = counts[pixelCount + pixel];
    if (surfCount == 0u) return;
    uvec2 q = uvec2(pixel % uAtlasSize.x, pixel / uAtlasSize.x);
    uint viewIndex = (q.y / uTileSize) * uTilesX + q.x / uTileSize;
    if (viewIndex >= uViewCount) return;
    // More fragments than slots: some were dropped and no winding can be trusted here. The kept
    // edges still count, as near hits against every other object of the pixel (the exact check
    // decides; no contact sample comes from them); the dropped ones are sampled by the pixels
    // further along them and by the other axes.
    bool overflow = edgeCount > uint(MAX_LAYERS) || surfCount > uint(MAX_LAYERS);
    if (overflow) {
        atomicAdd(counters[CD_COUNTER_OVERFLOW], 1u);
        viewFlags[viewIndex] = 1u;
        edgeCount = min(edgeCount, uint(MAX_LAYERS));
        surfCount = min(surfCount, uint(MAX_LAYERS));
    }
    CdView v = views[viewIndex];
    uint axis = v.axis;
    for (uint j = 0u; j < surfCount; ++j) {
        uvec2 s = surfSlots[pixel * uint(MAX_LAYERS) + j];
        sDepth[j] = uintBitsToFloat(s.x);
        sSlot[j] = s.y >> 24;
        sTriangle[j] = s.y & CD_PRIM_MASK;
        vec3 a, b, c;
        sceneWorldTriangle(viewObjects[v.firstObject + sSlot[j]], sTriangle[j], a, b, c);
        vec3 n = cross(b - a, c - a);
        float len = length(n);
        n = len > 0.0 ? n / len : vec3(0.0);
        sPlane[j] = vec4(n, dot(n, a));
        sFirst[j] = true;
        sNext[j] = surfCount;
        for (uint k = 0u; k < j; ++k) {
            if (sSlot[k] != sSlot[j]) continue;
            sFirst[j] = false;
            if (sNext[k] == surfCount) sNext[k] = j;  // k was its object's last so far
        }
    }
    // The pixel centre across the view, in the tile's clip space.
    vec2 centre = (vec2(q - uvec2(v.originX, v.originY)) + 0.5) / float(uTileSize) * 2.0 - 1.0;
    for (uint i = 0u; i < edgeCount; ++i) {
        uvec2 es = edgeSlots[pixel * uint(MAX_LAYERS) + i];
        uint slotA = es.y >> 24;
        uint edge = es.y & CD_PRIM_MASK;
        uint objectA = viewObjects[v.firstObject + slotA];
        GpuObject oa = sceneObjects[objectA];
        uvec4 ed = edges[meshEdgeFirst[oa.meshId & ~ISC_OBJECT_INACTIVE] + edge];
        vec3 e0 = (oa.model * vec4(sceneVertices[oa.firstVertex + ed.x].xyz, 1.0)).xyz;
        vec3 e1 = (oa.model * vec4(sceneVertices[oa.firstVertex + ed.y].xyz, 1.0)).xyz;
        vec3 c0 = (v.viewProj * vec4(e0, 1.0)).xyz, c1 = (v.viewProj * vec4(e1, 1.0)).xyz;
        vec2 d = c1.xy - c0.xy;
        float dd = dot(d, d);
        float t = dd > 0.0 ? clamp(dot(centre - c0.xy, d) / dd, 0.0, 1.0) : 0.5;
        vec3 p = mix(e0, e1, t);
        float ze = mix(c0.z, c1.z, t) * 0.5 + 0.5;  // window depth of the edge point
        // A point outside the cull box lies outside the other objects' boxes by more than the
        // proximity reach: it can be no hit (and no near hit in an over-full pixel).
        if (p[axis] < v.cullLo[axis] || p[axis] > v.cullHi[axis]) continue;
        for (uint j0 = 0u; j0 < surfCount; ++j0) {
            uint slotB = sSlot[j0];
            if (slotB == slotA) continue;  // self-interference prevented
            if (!sFirst[j0]) continue;  // each other object once: at its first fragment
            int winding = 0;
            float bestInside = -3.4e38, nearestDepth = 3.4e38;
            uint triInside = 0xFFFFFFFFu, triNear = 0u;
            float distInside = 0.0, distNear = 0.0;
            vec3 nInside = vec3(0.0), nNear = vec3(0.0);
            for (uint j = j0; j < surfCount; j = sNext[j]) {  // slotB's fragments
                vec3 n = sPlane[j].xyz;
                if (sDepth[j] < ze) winding += n[axis] < 0.0 ? 1 : -1;  // entering faces look back at the viewer
                float sd = dot(n, p) - sPlane[j].w;
                // Ties go to the lower triangle id: the fragments arrive in whatever order the
                // raster's atomics ran (two faces sharing an edge meet the pixel at one depth),
                // and the answer must not change from run to run.
                if (sd <= 0.0 && (sd > bestInside || (sd == bestInside && sTriangle[j] < triInside))) {
                    bestInside = sd;
                    triInside = sTriangle[j];
                    distInside = sd;
                    nInside = n;
                }
                float gap = abs(sDepth[j] - ze);
                if (gap < nearestDepth || (gap == nearestDepth && sTriangle[j] < triNear)) {
                    nearestDepth = gap;
                    triNear = sTriangle[j];
                    distNear = sd;
                    nNear = n;
                }
            }
            bool inside = !overflow && winding != 0;
            bool crossing = !overflow && nearestDepth * v.depthExtent <= v.crossWorld;  // the edge crosses the surface here
            bool near = overflow || (!inside && nearestDepth * v.depthExtent <= v.nearWorld);
            if (!inside && !near) continue;
            // Two atomics, not one at a selected index: NVIDIA 580's compiler fails on an atomic
            // whose buffer index is a ?: ("C9999: unexpected expression in DUI_foreachId" at link;
            // bisected with isc_glsl_probe, bench/results/h100-2026-11-25-cinder-probe.txt).
            if (inside) atomicAdd(counters[CD_COUNTER_INSIDE], 1u);
            else atomicAdd(counters[CD_COUNTER_NEAR], 1u);
#ifdef CD_MIPMAP
            colour[pixel] = 0x10000u | (slotA << 8) | slotB;  // the last hit wins, as in the paper
#else
            uint index = atomicAdd(counters[CD_COUNTER_HITS], 1u);
            if (index >= uHitCapacity) continue;
            CdHit h;
            // The surface reported: at a crossing the one crossed (nearest in depth); inside, the
            // crossed face whose plane is nearest the point (the ray may miss the nearest face).
            bool useInside = inside && !crossing && triInside != 0xFFFFFFFFu;
            uint tri = useInside ? triInside : triNear;
            float dist = useInside ? distInside : distNear;
            vec3 n = useInside ? nInside : nNear;
            uint flags = (inside ? CD_HIT_INSIDE : 0u) | (near ? CD_HIT_NEAR : 0u) | (crossing ? CD_HIT_CROSSING : 0u);
            h.point = vec4(p, dist);
            h.view = viewIndex;
            h.slots = slotA | (slotB << 8) | (flags << 16);
            h.edge = edge;
            h.triangle = tri;
            h.normal = encodeNormal(n);
            h.pixel = pixel;
            h.rayDistance = nearestDepth * v.depthExtent;
            h.pad = 0u;
            hits[index] = h;
#endif
        }
    }
}
