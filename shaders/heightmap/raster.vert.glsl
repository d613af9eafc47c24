// Heightmap detector, both raster passes (papers/002 section 2): pulls the vertex from the
// GpuScene, projects it with its view's orthographic projection (the moving object's box
// along the view direction) and places the view's tile in the atlas. The fragment stages
// drop fragments outside the tile (the tile rectangle is exact per pixel).
#include "common/scene.glsl"
#include "heightmap/bindings.h"

layout(location = HM_ATTRIB_DRAW_ID) in uint aDrawId;

layout(std430, binding = HM_BINDING_VIEWS) readonly buffer HmViews { HmView views[]; };
layout(std430, binding = HM_BINDING_DRAWS) readonly buffer HmDraws { HmDraw draws[]; };

uniform uint uTileSize;
uniform vec2 uAtlasSize;

flat out uint vDraw;
flat out uvec4 vTileRect;  // atlas pixels: x0, y0, x1, y1 (exclusive)

void main() {
    HmDraw d = draws[aDrawId];
    HmView v = views[d.view];
    vec3 world = sceneWorldVertex(d.object, uint(gl_VertexID));
    vec4 clip = v.viewProj * vec4(world, 1.0);  // orthographic: w = 1
    vec2 atlas = (vec2(v.originX, v.originY) + (clip.xy * 0.5 + 0.5) * float(uTileSize)) / uAtlasSize;
    gl_Position = vec4(atlas * 2.0 - 1.0, clip.z, 1.0);
    vTileRect = uvec4(v.originX, v.originY, v.originX + uTileSize, v.originY + uTileSize);
    vDraw = aDrawId;
}
