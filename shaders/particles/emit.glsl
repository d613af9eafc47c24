// Particles: emission on the GPU (ParticleSystem::emitBox), one thread per new particle:
// a position uniform in a box and a velocity v0 + jitter * (a point uniform in the unit ball),
// from a hash of (seed, index) (PCG), so a run is the same on every driver.
#include "particles/bindings.h"

layout(local_size_x = 256) in;

layout(std430, binding = PT_BINDING_POSITIONS) writeonly buffer PtPositions { vec4 positions[]; };
layout(std430, binding = PT_BINDING_VELOCITIES) writeonly buffer PtVelocities { vec4 velocities[]; };

uniform uint uFirst;
uniform uint uCount;
uniform uint uSeed;
uniform vec3 uBoxMin;
uniform vec3 uBoxMax;
uniform vec3 uVelocity;
uniform float uJitter;

uint pcg(uint v) {
    uint state = v * 747796405u + 2891336453u;
    uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

float unit(inout uint h) {
    h = pcg(h);
    return float(h >> 8) * (1.0 / 16777216.0);
}

void main() {
    for (uint k = gl_GlobalInvocationID.x; k < uCount; k += gl_NumWorkGroups.x * gl_WorkGroupSize.x) {
        uint h = pcg(uSeed ^ pcg(k + uFirst));
        vec3 t = vec3(unit(h), unit(h), unit(h));
        vec3 ball;
        do {
            ball = vec3(unit(h), unit(h), unit(h)) * 2.0 - 1.0;
        } while (dot(ball, ball) > 1.0);
        positions[uFirst + k] = vec4(mix(uBoxMin, uBoxMax, t), 1.0);
        velocities[uFirst + k] = vec4(uVelocity + uJitter * ball, 0.0);
    }
}
