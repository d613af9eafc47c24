// SceneRenderer::drawLines: line segments pulled by gl_VertexID from a storage buffer of
// (world position, 1) and RGBA colour pairs, two vertices per segment.
#include "common/bindings.h"

layout(std430, binding = ISC_BINDING_FIRST_FREE) readonly buffer RenderLines {
    vec4 lineVertices[];  // position (w = 1), colour, position, colour, ...
};

uniform mat4 viewProjection;
out vec4 color;

void main() {
    color = lineVertices[2 * gl_VertexID + 1];
    gl_Position = viewProjection * vec4(lineVertices[2 * gl_VertexID].xyz, 1.0);
}
