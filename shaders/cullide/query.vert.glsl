// CULLIDE, the paper's form (settings.method "queries"): one draw per item of the PCS,
// inside an occlusion query or writing depth (Govindaraju et al. / Boldt & Meyer Figure 2).
// Vertex pulling: six vertices per triangle slot make a quad over the triangle's grown pixel
// box; the fragment stage keeps the pixels of the conservative rasterization (raster.glsl)
// and writes their near or far depth. A dead item (pruned earlier) draws nothing.
#include "common/scene.glsl"
#include "cullide/items.glsl"
#include "cullide/raster.glsl"

layout(std430, binding = CULLIDE_BINDING_ALIVE) readonly buffer CullideAlive { uint alive[]; };

uniform uint uItem;

flat out vec3 vA;
flat out vec3 vB;
flat out vec3 vC;
flat out float vFatten;

void main() {
    gl_Position = vec4(2.0, 2.0, 0.0, 1.0);  // outside the view: nothing drawn
    vA = vB = vC = vec3(0.0);
    vFatten = 0.0;
    CullideItem it = items[uItem];
    uint slot = uint(gl_VertexID) / 6u, corner = uint(gl_VertexID) % 6u;
    if (alive[uItem] == 0u || slot >= it.slotCount) return;
    vec3 A, B, C;
    sceneWorldTriangle(it.object, slotTriangles[it.firstSlot + slot], A, B, C);
    CullideRaster r;
    if (!cullideSetup(A, B, C, it.fatten, r)) return;
    // Two triangles (0,0) (1,0) (1,1) / (0,0) (1,1) (0,1) over pixel edges x0 .. x1 + 1.
    bool right = corner == 1u || corner == 2u || corner == 4u;
    bool top = corner == 2u || corner == 4u || corner == 5u;
    vec2 edge = vec2(right ? r.box.z + 1 : r.box.x, top ? r.box.w + 1 : r.box.y);
    gl_Position = vec4(edge / vec2(uSize) * 2.0 - 1.0, 0.0, 1.0);
    vA = A;
    vB = B;
    vC = C;
    vFatten = it.fatten;
}
