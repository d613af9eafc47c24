// Peel object sampling, vertex stage: pulls the vertex from the GpuScene, projects it into
// its tile (orthographic, the tile's view volume) and places the tile in the atlas; four
// clip distances keep each triangle inside its own tile.
#include "common_scene.glsl"
#include "peel_bindings.h"

layout(location = PEEL_ATTRIB_DRAW_ID) in uint aDrawId;

layout(std430, binding = PEEL_BINDING_TILES) readonly buffer PeelTiles { PeelTile tiles[]; };
layout(std430, binding = PEEL_BINDING_DRAWS) readonly buffer PeelDraws { PeelDraw draws[]; };

uniform uint uTileSize;
uniform vec2 uAtlasSize;

flat out uint vSide;

out gl_PerVertex {
    vec4 gl_Position;
    float gl_ClipDistance[4];
};

void main() {
    PeelDraw d = draws[aDrawId];
    PeelTile t = tiles[d.tile];
    vec3 world = sceneWorldVertex(d.object, uint(gl_VertexID));
    vec4 clip = t.viewProj * vec4(world, 1.0);  // orthographic: w = 1
    vec2 atlas = (vec2(t.originX, t.originY) + (clip.xy * 0.5 + 0.5) * float(uTileSize)) / uAtlasSize;
    gl_Position = vec4(atlas * 2.0 - 1.0, clip.z, 1.0);
    gl_ClipDistance[0] = clip.x + 1.0;
    gl_ClipDistance[1] = 1.0 - clip.x;
    gl_ClipDistance[2] = clip.y + 1.0;
    gl_ClipDistance[3] = 1.0 - clip.y;
    vSide = d.side;
}
