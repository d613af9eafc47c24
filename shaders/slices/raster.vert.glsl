// Slices detector, both raster passes (papers/004 section 3 step 3): pulls the vertex from the
// GpuScene, moves it along its offset direction (the offset surface, section 3.1.1), and maps it
// into its view: across the view into the view's tile of the atlas, the view depth (0..1
// between the box's faces along the depth axis) to the fragment shader. Depth clamping is on,
// so a face in front of or behind the box still reaches the fill pass's parity.
#include "common/scene.glsl"
#include "slices/bindings.h"

layout(location = SL_ATTRIB_DRAW_ID) in uint aDrawId;

layout(std430, binding = SL_BINDING_VIEWS) readonly buffer SlViews { SlView views[]; };
layout(std430, binding = SL_BINDING_DRAWS) readonly buffer SlDraws { SlDraw draws[]; };
layout(std430, binding = SL_BINDING_NORMALS) readonly buffer SlNormals { vec4 normals[]; };

uniform uint uTileSize;
uniform vec2 uAtlasSize;

flat out uint vDraw;
flat out uvec4 vTileRect;  // atlas pixels: x0, y0, x1, y1 (exclusive)
noperspective out float vDepth;

void main() {
    SlDraw d = draws[aDrawId];
    SlView v = views[d.view];
    vec3 local = sceneVertices[gl_VertexID].xyz + normals[gl_VertexID].xyz * d.offset;
    vec3 world = (sceneObjects[d.object].model * vec4(local, 1.0)).xyz;
    vec3 q = (world - v.boxMin.xyz) / v.boxSize.xyz;
    uint a = v.axis;
    vec2 across = vec2(q[(a + 1u) % 3u], q[(a + 2u) % 3u]);
    vec2 atlas = (vec2(v.originX, v.originY) + across * float(uTileSize)) / uAtlasSize;
    gl_Position = vec4(atlas * 2.0 - 1.0, q[a] * 2.0 - 1.0, 1.0);
    vDepth = q[a];
    vTileRect = uvec4(v.originX, v.originY, v.originX + uTileSize, v.originY + uTileSize);
    vDraw = aDrawId;
}
