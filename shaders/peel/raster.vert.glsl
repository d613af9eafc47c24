// Peel object sampling, vertex stage: pulls the vertex from the GpuScene, projects it into
// its tile (orthographic, the tile's view volume) and places the tile in the atlas. The
// fragment stage drops fragments outside the tile's pixel rectangle (cheaper on the H200
// than four clip distances, and exact per pixel). vTag: the side (pair tiles) or the object
// id (PEEL_SCENE). With PEEL_WORLD (scene sampling after the 3-D cull) the vertex is
// world[gl_VertexID], already in world space (peel/world.glsl; the culled index lists hold
// absolute world[] indices).
#include "common/scene.glsl"
#include "peel/bindings.h"

layout(location = PEEL_ATTRIB_DRAW_ID) in uint aDrawId;

layout(std430, binding = PEEL_BINDING_TILES) readonly buffer PeelTiles { PeelTile tiles[]; };
layout(std430, binding = PEEL_BINDING_DRAWS) readonly buffer PeelDraws { PeelDraw draws[]; };
#ifdef PEEL_WORLD
layout(std430, binding = PEEL_BINDING_WORLD) readonly buffer PeelWorld { vec4 worldVertices[]; };
#endif

uniform uint uTileSize;
uniform vec2 uAtlasSize;

flat out uint vTag;
flat out uvec4 vTileRect;  // atlas pixels: x0, y0, x1, y1 (exclusive)

void main() {
    PeelDraw d = draws[aDrawId];
    PeelTile t = tiles[d.tile];
#ifdef PEEL_WORLD
    vec3 world = worldVertices[gl_VertexID].xyz;
#else
    vec3 world = sceneWorldVertex(d.object, uint(gl_VertexID));
#endif
    vec4 clip = t.viewProj * vec4(world, 1.0);  // orthographic: w = 1
    vec2 atlas = (vec2(t.originX, t.originY) + (clip.xy * 0.5 + 0.5) * float(uTileSize)) / uAtlasSize;
    gl_Position = vec4(atlas * 2.0 - 1.0, clip.z, 1.0);
    vTileRect = uvec4(t.originX, t.originY, t.originX + uTileSize, t.originY + uTileSize);
#ifdef PEEL_SCENE
    vTag = d.object;
#else
    vTag = d.side;
#endif
}
