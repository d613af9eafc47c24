// Particles: the shared height maps' storage and helpers (environment raster, step).
#ifndef ISC_PARTICLES_COMMON_GLSL
#define ISC_PARTICLES_COMMON_GLSL

#include "particles/bindings.h"

layout(std430, binding = PT_BINDING_MAPS) readonly buffer PtMaps { PtMap maps[]; };

// Octahedral unit-vector encoding, 15 bits per component; bit 31 set (0 means "no normal").
uint packNormal(vec3 n) {
    n /= (abs(n.x) + abs(n.y) + abs(n.z));
    vec2 e = n.z >= 0.0 ? n.xy : (1.0 - abs(n.yx)) * vec2(n.x >= 0.0 ? 1.0 : -1.0, n.y >= 0.0 ? 1.0 : -1.0);
    uvec2 q = uvec2(clamp(e * 0.5 + 0.5, 0.0, 1.0) * 32767.0 + 0.5);
    return 0x80000000u | (q.y << 15) | q.x;
}

vec3 unpackNormal(uint p) {
    vec2 e = vec2(float(p & 0x7FFFu), float((p >> 15) & 0x7FFFu)) / 32767.0 * 2.0 - 1.0;
    vec3 n = vec3(e, 1.0 - abs(e.x) - abs(e.y));
    if (n.z < 0.0) n.xy = (1.0 - abs(n.yx)) * vec2(n.x >= 0.0 ? 1.0 : -1.0, n.y >= 0.0 ? 1.0 : -1.0);
    return normalize(n);
}

float axisValue(vec3 x, uint axis) { return axis == 0u ? x.x : axis == 1u ? x.y : x.z; }

// Depth of world point x in map m (distance from the entry face along the map's direction).
float mapDepth(PtMap m, vec3 x) { return dot(x, m.direction.xyz) - m.direction.w; }

// Pixel index (into depths[] / normals[]) of world point x's column in map m, clamped to the map.
uint mapPixel(PtMap m, vec3 x) {
    float p = m.origin.z;
    int i = clamp(int(floor((axisValue(x, m.axisU) - m.origin.x) / p)), 0, int(m.width) - 1);
    int j = clamp(int(floor((axisValue(x, m.axisV) - m.origin.y) / p)), 0, int(m.height) - 1);
    return m.offset + uint(j) * m.width + uint(i);
}

#endif
