// CInDeR detector, both raster passes (papers/000 section 4.2.1, passes 1 and 2-3/5-6): pulls
// the vertex from the GpuScene, projects it with its view's orthographic projection and places
// the view's tile in the atlas. Clip distances cut every primitive to its tile, so no fragment
// spills into a neighbouring tile; the fragment stage checks the tile rectangle as well.
#include "common/scene.glsl"
#include "cinder/bindings.h"

layout(location = CD_ATTRIB_DRAW_ID) in uint aDrawId;

layout(std430, binding = CD_BINDING_VIEWS) readonly buffer CdViews { CdView views[]; };
layout(std430, binding = CD_BINDING_DRAWS) readonly buffer CdDraws { CdDraw draws[]; };

uniform uint uTileSize;
uniform vec2 uAtlasSize;

flat out uint vDraw;
flat out uvec4 vTileRect;  // atlas pixels: x0, y0, x1, y1 (exclusive)

out gl_PerVertex {
    vec4 gl_Position;
    float gl_ClipDistance[4];
};

void main() {
    CdDraw d = draws[aDrawId];
    CdView v = views[d.view];
    vec3 world = sceneWorldVertex(d.object, uint(gl_VertexID));
    vec4 clip = v.viewProj * vec4(world, 1.0);  // orthographic: w = 1
    gl_ClipDistance[0] = 1.0 + clip.x;
    gl_ClipDistance[1] = 1.0 - clip.x;
    gl_ClipDistance[2] = 1.0 + clip.y;
    gl_ClipDistance[3] = 1.0 - clip.y;
    vec2 atlas = (vec2(v.originX, v.originY) + (clip.xy * 0.5 + 0.5) * float(uTileSize)) / uAtlasSize;
    gl_Position = vec4(atlas * 2.0 - 1.0, clip.z, 1.0);
    vTileRect = uvec4(v.originX, v.originY, v.originX + uTileSize, v.originY + uTileSize);
    vDraw = aDrawId;
}
