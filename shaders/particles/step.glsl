// Particles: one step, one thread per particle (papers/002 "Particle system": every particle
// against the shared height maps, bounced with the normal stored beside them). Semi-implicit
// Euler under gravity; then the new position x1 is tested against each map (the gravity
// direction's first): in front of a map's depth (minus the particle's radius) anywhere is
// outside the environment, so the particle moves freely. In front of none, it collided:
// pushed back along the map, among those it was in front of at the step's start, that
// needs the least push (or the least push of all maps when none: an environment that
// moved onto it), to just in front of that map's depth; its velocity loses the normal part
// (restitution e) and the tangential part by Coulomb friction mu against the normal change.
// A particle whose state is not finite is removed (counted); so is one that left the domain.
#include "particles/common.glsl"

layout(local_size_x = 256) in;

layout(std430, binding = PT_BINDING_POSITIONS) buffer PtPositions { vec4 positions[]; };
layout(std430, binding = PT_BINDING_VELOCITIES) buffer PtVelocities { vec4 velocities[]; };
layout(std430, binding = PT_BINDING_DEPTHS) readonly buffer PtDepths { uint depths[]; };
layout(std430, binding = PT_BINDING_NORMALS) readonly buffer PtNormals { uint normals[]; };
layout(std430, binding = PT_BINDING_COUNTERS) buffer PtCounters { uint counters[]; };

uniform uint uCount;
uniform uint uMapCount;
uniform float uDt;
uniform vec3 uGravity;
uniform float uRestitution;
uniform float uFriction;
uniform float uRadius;    // clearance kept from the surfaces (>= the push epsilon)
uniform vec3 uDomainMin;
uniform vec3 uDomainMax;

bool finite3(vec3 v) { return !any(isnan(v)) && !any(isinf(v)); }

void main() {
    for (uint i = gl_GlobalInvocationID.x; i < uCount; i += gl_NumWorkGroups.x * gl_WorkGroupSize.x) {
        vec4 p = positions[i];
        if (p.w == 0.0) continue;
        vec3 v = velocities[i].xyz + uGravity * uDt;
        vec3 x0 = p.xyz;
        vec3 x1 = x0 + v * uDt;
        if (!finite3(x1) || !finite3(v) || !finite3(x0)) {
            positions[i] = vec4(0.0);
            velocities[i] = vec4(0.0);
            atomicAdd(counters[PT_COUNTER_NAN], 1u);
            continue;
        }
        if (any(lessThan(x1, uDomainMin)) || any(greaterThan(x1, uDomainMax))) {
            positions[i] = vec4(x1, 0.0);
            velocities[i] = vec4(0.0);
            atomicAdd(counters[PT_COUNTER_LEFT], 1u);
            continue;
        }
        bool free_ = false;
        for (uint k = 0u; k < uMapCount && !free_; ++k) {
            PtMap m = maps[k];
            free_ = mapDepth(m, x1) < uintBitsToFloat(depths[mapPixel(m, x1)]) - uRadius;
        }
        if (!free_) {
            // The map to push along: least push among those x0 was in front of, else of all.
            uint best = 0u, bestAny = 0u;
            float push = 1e30, pushAny = 1e30;
            for (uint k = 0u; k < uMapCount; ++k) {
                PtMap m = maps[k];
                float need = mapDepth(m, x1) - (uintBitsToFloat(depths[mapPixel(m, x1)]) - uRadius);
                bool wasFront = mapDepth(m, x0) < uintBitsToFloat(depths[mapPixel(m, x0)]) - uRadius;
                if (wasFront && need < push) { push = need; best = k; }
                if (need < pushAny) { pushAny = need; bestAny = k; }
            }
            if (push >= 1e29) { best = bestAny; push = pushAny; }
            PtMap m = maps[best];
            uint pixel = mapPixel(m, x1);
            x1 -= (push + uRadius * 1e-3) * m.direction.xyz;
            uint encoded = normals[pixel];
            vec3 n = encoded != 0u ? unpackNormal(encoded) : -m.direction.xyz;
            float vn = dot(v, n);
            if (vn < 0.0) {
                vec3 vt = v - vn * n;
                float vtl = length(vt);
                float keep = vtl > 0.0 ? max(0.0, 1.0 - uFriction * (1.0 + uRestitution) * (-vn) / vtl) : 0.0;
                v = vt * keep - uRestitution * vn * n;
            }
            atomicAdd(counters[PT_COUNTER_COLLISIONS], 1u);
        }
        positions[i] = vec4(x1, 1.0);
        velocities[i] = vec4(v, 0.0);
    }
}
