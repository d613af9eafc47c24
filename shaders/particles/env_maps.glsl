// Particles: the environment's shared height maps (papers/002 "Particle system": Se computed
// once per direction, shared by every particle; up to 6 cube directions). Beyond the paper,
// the maps are conservative, rasterised here in compute rather than by the raster units:
// each pixel keeps a lower bound of the depth of every environment triangle over the part
// of the triangle that meets the pixel's square, max(the triangle's nearest corner, the
// nearest corner of its plane over the square), so that a point in front of the stored
// depth, anywhere in the pixel, is in front of the environment's first surface on its line
// (outside a closed environment). Depths before the entry face count as 0 (the environment
// reaches into the domain there). Pass 0 keeps the least depth (atomicMin on float bits,
// non-negative), pass 1 writes the normal of a triangle that reached it (facing the entry).
// One thread per (triangle, map) covers at most PT_SMALL_PIXELS pixels itself; larger
// triangles are appended to big[] in pass 0 and covered by a work group each (uBig = 1).
#include "common/scene.glsl"
#include "particles/common.glsl"

layout(local_size_x = 64) in;

layout(std430, binding = PT_BINDING_DEPTHS) buffer PtDepths { uint depths[]; };
layout(std430, binding = PT_BINDING_NORMALS) buffer PtNormals { uint normals[]; };
layout(std430, binding = PT_BINDING_COUNTERS) buffer PtCounters { uint counters[]; };
layout(std430, binding = PT_BINDING_BIG) buffer PtBig { uvec4 big[]; };

uniform uint uPass;           // 0: depths, 1: normals
uniform uint uBig;            // 0: one thread per (triangle, map); 1: one work group per big[] entry
uniform uint uObject;         // uBig 0: the environment object
uniform uint uTriangleCount;  // uBig 0: its triangles
uniform uint uMapCount;
uniform uint uBigCount;       // uBig 1: entries of big[]
uniform uint uBigCapacity;

float cross2(vec2 a, vec2 b) { return a.x * b.y - a.y * b.x; }

void raster(uint object, uint triangle, uint mapIndex, bool whole, uint lane, uint stride) {
    PtMap m = maps[mapIndex];
    vec3 w[3];
    sceneWorldTriangle(object, triangle, w[0], w[1], w[2]);
    vec2 p[3];
    float s[3];
    for (int k = 0; k < 3; ++k) {
        p[k] = (vec2(axisValue(w[k], m.axisU), axisValue(w[k], m.axisV)) - m.origin.xy) / m.origin.z;
        s[k] = mapDepth(m, w[k]);
    }
    float range = m.origin.w;
    float smin = min(s[0], min(s[1], s[2]));
    if (smin > range) return;  // wholly beyond the domain's far face
    vec2 lo = min(p[0], min(p[1], p[2])), hi = max(p[0], max(p[1], p[2]));
    int i0 = max(int(floor(lo.x)), 0), i1 = min(int(floor(hi.x)), int(m.width) - 1);
    int j0 = max(int(floor(lo.y)), 0), j1 = min(int(floor(hi.y)), int(m.height) - 1);
    if (i1 < i0 || j1 < j0) return;
    uint wide = uint(i1 - i0 + 1), count = wide * uint(j1 - j0 + 1);
    if (!whole && count > uint(PT_SMALL_PIXELS)) {
        if (uPass == 0u) {
            uint slot = atomicAdd(counters[PT_COUNTER_BIG], 1u);
            if (slot < uBigCapacity) big[slot] = uvec4(triangle, mapIndex, object, 0u);
        }
        return;
    }
    // The plane of depths over the map, s = s0 + g . (x - p0), where the triangle is not edge-on.
    float area = cross2(p[1] - p[0], p[2] - p[0]);
    float extent = max(hi.x - lo.x, hi.y - lo.y);
    bool flat_ = abs(area) > 1e-6 * extent * extent && extent > 0.0;
    vec2 g = vec2(0.0);
    if (flat_) {
        g.x = ((s[1] - s[0]) * (p[2].y - p[0].y) - (s[2] - s[0]) * (p[1].y - p[0].y)) / area;
        g.y = ((s[2] - s[0]) * (p[1].x - p[0].x) - (s[1] - s[0]) * (p[2].x - p[0].x)) / area;
    }
    float orient = area >= 0.0 ? 1.0 : -1.0;
    // Edge-on (a segment in the map): its longest edge's line.
    int e0 = 0;
    float longest = -1.0;
    for (int k = 0; k < 3; ++k) {
        float l = dot(p[(k + 1) % 3] - p[k], p[(k + 1) % 3] - p[k]);
        if (l > longest) { longest = l; e0 = k; }
    }
    vec3 n = cross(w[1] - w[0], w[2] - w[0]);
    float nl = length(n);
    n = nl > 0.0 ? n / nl : -m.direction.xyz;
    if (dot(n, m.direction.xyz) > 0.0) n = -n;  // the side the entry face sees
    float slack = 1e-6 * (abs(smin) + range);   // rounding of the bound, kept conservative
    for (uint idx = lane; idx < count; idx += stride) {
        vec2 c0 = vec2(float(i0 + int(idx % wide)), float(j0 + int(idx / wide)));
        vec2 c1 = c0 + 1.0;
        // Does the triangle meet the closed square [c0, c1]? Separating axes: the square's
        // (its box already meets the triangle's), then each edge's outward normal.
        bool meets = true;
        if (flat_) {
            for (int k = 0; k < 3 && meets; ++k) {
                vec2 e = p[(k + 1) % 3] - p[k];
                vec2 inward = orient * vec2(-e.y, e.x);
                vec2 corner = vec2(inward.x >= 0.0 ? c1.x : c0.x, inward.y >= 0.0 ? c1.y : c0.y);
                if (dot(corner - p[k], inward) < 0.0) meets = false;
            }
        } else {
            vec2 e = p[(e0 + 1) % 3] - p[e0];
            vec2 nrm = vec2(-e.y, e.x);
            float a = dot(c0 - p[e0], nrm), b = dot(vec2(c1.x, c0.y) - p[e0], nrm);
            float c = dot(c1 - p[e0], nrm), d = dot(vec2(c0.x, c1.y) - p[e0], nrm);
            meets = min(min(a, b), min(c, d)) <= 0.0 && max(max(a, b), max(c, d)) >= 0.0;
        }
        if (!meets) continue;
        float bound = smin;
        if (flat_) {
            vec2 nearest = vec2(g.x >= 0.0 ? c0.x : c1.x, g.y >= 0.0 ? c0.y : c1.y);
            bound = max(bound, s[0] + dot(g, nearest - p[0]));
        }
        float value = max(bound - slack, 0.0);
        if (value > range) continue;
        uint pixel = m.offset + uint(j0 + int(idx / wide)) * m.width + uint(i0 + int(idx % wide));
        uint key = floatBitsToUint(value);
        if (uPass == 0u) {
            atomicMin(depths[pixel], key);
        } else if (depths[pixel] == key) {
            normals[pixel] = packNormal(n);
        }
    }
}

void main() {
    if (uBig == 0u) {
        uint triangle = gl_GlobalInvocationID.x;
        uint mapIndex = gl_GlobalInvocationID.y;
        if (triangle >= uTriangleCount || mapIndex >= uMapCount) return;
        raster(uObject, triangle, mapIndex, false, 0u, 1u);
    } else {
        // gl_WorkGroupID.y splits an item's pixels over gl_NumWorkGroups.y groups, so that no
        // invocation loops more than about PT_BIG_PIXELS_PER_LANE times (llvmpipe silently
        // ends an invocation's loops after 65535 iterations in all; docs/gl.md).
        uint lane = gl_WorkGroupID.y * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
        uint stride = gl_NumWorkGroups.y * gl_WorkGroupSize.x;
        for (uint item = gl_WorkGroupID.x; item < uBigCount; item += gl_NumWorkGroups.x) {
            uvec4 b = big[item];
            raster(b.z, b.x, b.y, true, lane, stride);
        }
    }
}
