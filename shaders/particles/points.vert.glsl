// isc demo particles: particles drawn as round points, pulled from the ParticleSystem's
// positions buffer by gl_VertexID (removed ones, w = 0, are clipped away), coloured by height.
#include "particles/bindings.h"

layout(std430, binding = PT_BINDING_POSITIONS) readonly buffer PtPositions { vec4 positions[]; };

uniform mat4 uViewProjection;
uniform float uPointSize;  // pixels at 1 m
uniform vec2 uHeightRange;

out vec3 vColor;

void main() {
    vec4 p = positions[gl_VertexID];
    if (p.w == 0.0) {
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
        gl_PointSize = 1.0;
        vColor = vec3(0.0);
        return;
    }
    gl_Position = uViewProjection * vec4(p.xyz, 1.0);
    gl_PointSize = clamp(uPointSize / max(gl_Position.w, 1e-3), 1.0, 16.0);
    float h = clamp((p.y - uHeightRange.x) / max(uHeightRange.y - uHeightRange.x, 1e-6), 0.0, 1.0);
    vColor = mix(vec3(0.15, 0.45, 0.95), vec3(0.95, 0.95, 1.0), h);
}
