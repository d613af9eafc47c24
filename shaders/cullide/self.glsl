// CULLIDE self-intersections (Boldt & Meyer, section 4 and Figure 3): each triangle of a
// deforming object is tested against the rest of the same object, its own neighbours (the
// triangles sharing a vertex with it, which touch it by construction) excluded, as in the
// exact reference. The paper's modified depth test compares an object with itself; with
// conservative fragments two neighbours always overlap where they meet, so the exclusion
// must be per triangle, which one depth word per pixel cannot hold. This pass keeps every
// fragment instead (an A-buffer of uLayers slots per pixel, as the peel detector does):
//   uMode 0: append (group << 20 | triangle, near16 << 16 | far16) to the pixel's slots;
//   uMode 1: a fragment is hidden from the front when a fragment of another, non-adjacent
//            triangle of the same object has near <= its far (from the back: far >= its
//            near); a pixel with more fragments than slots hides everything (conservative).
// Members are the triangle slots (uPerSlot); marks and survivors as at the other levels (update.glsl).
#include "common/scene.glsl"
#include "cullide/items.glsl"
#include "cullide/raster.glsl"

layout(local_size_x = 64) in;

layout(std430, binding = CULLIDE_BINDING_ALIVE) readonly buffer CullideAlive { uint alive[]; };
layout(std430, binding = CULLIDE_BINDING_MARKS) buffer CullideMarks { uint marks[]; };
layout(std430, binding = CULLIDE_BINDING_COUNTERS) buffer CullideCounters { uint counters[]; };
layout(std430, binding = CULLIDE_BINDING_SELF_COUNT) buffer CullideSelfCount { uint selfCount[]; };
layout(std430, binding = CULLIDE_BINDING_SELF_ENTRIES) buffer CullideSelfEntries { uvec2 selfEntries[]; };

uniform uint uMode;
uniform uint uLayers;
uniform uint uPerSlot;  // 1: every triangle slot is a member of the PCS (alive, marks per work index)

uvec3 triangleVertices(uint object, uint triangle) {
    uint base = 3u * (sceneObjects[object].firstTriangle + triangle);
    return uvec3(sceneIndices[base], sceneIndices[base + 1u], sceneIndices[base + 2u]);
}

void main() {
    uint work = gl_GlobalInvocationID.x;
    if (work >= uWorkCount) return;
    uint item = cullideItemOf(work);
    uint unit = uPerSlot != 0u ? items[item].memberStart + (work - items[item].workStart) : item;
    if (alive[unit] == 0u) return;
    CullideItem it = items[item];
    uint triangle = slotTriangles[it.firstSlot + (work - it.workStart)];
    vec3 A, B, C;
    sceneWorldTriangle(it.object, triangle, A, B, C);
    CullideRaster r;
    if (!cullideSetup(A, B, C, it.fatten, r)) return;
    const float scale = 65532.0;
    uint self = (it.group << CULLIDE_SELF_TRIANGLE_BITS) | triangle;
    uvec3 mine = triangleVertices(it.object, triangle);
    uint found = 0u, fragments = 0u, overflow = 0u;
    // One thread per triangle here (no split): a triangle whose pixels and their fragment lists
    // would take more loop iterations than an invocation may run (bindings.h) makes the host
    // keep the whole level.
    if (uMode == 0u &&
        uint(r.box.z - r.box.x + 1) * uint(r.box.w - r.box.y + 1) * (uLayers + 2u) > CULLIDE_MAX_PIXELS_PER_THREAD)
        atomicAdd(counters[CULLIDE_COUNTER_CUT], 1u);
    for (int y = r.box.y; y <= r.box.w; ++y) {
        for (int x = r.box.x; x <= r.box.z; ++x) {
            float zNear, zFar;
            if (!cullidePixel(r, ivec2(x, y), zNear, zFar)) continue;
            uint qNear = uint(clamp(floor(zNear * scale) - 1.0, 0.0, scale)) + 1u;
            uint qFar = uint(clamp(ceil(zFar * scale) + 1.0, 0.0, scale)) + 1u;
            uint p = uint(y) * uSize.x + uint(x);
            if (uMode == 0u) {
                uint slot = atomicAdd(selfCount[p], 1u);
                if (slot < uLayers) selfEntries[p * uLayers + slot] = uvec2(self, (qNear << 16) | qFar);
                else if (slot == uLayers) ++overflow;
                ++fragments;
                continue;
            }
            uint n = selfCount[p];
            if (n > uLayers) {
                found = CULLIDE_MARK_FRONT | CULLIDE_MARK_BACK;
                break;
            }
            for (uint k = 0u; k < n; ++k) {
                uvec2 e = selfEntries[p * uLayers + k];
                if (e.x == self || (e.x >> CULLIDE_SELF_TRIANGLE_BITS) != it.group) continue;
                uvec3 other = triangleVertices(it.object, e.x & ((1u << CULLIDE_SELF_TRIANGLE_BITS) - 1u));
                if (any(equal(mine, other.xxx)) || any(equal(mine, other.yyy)) || any(equal(mine, other.zzz)))
                    continue;  // neighbours: excluded, like the reference's intersectSelf
                if ((e.y >> 16) <= qFar) found |= CULLIDE_MARK_FRONT;
                if ((e.y & 0xFFFFu) >= qNear) found |= CULLIDE_MARK_BACK;
            }
            if (found == (CULLIDE_MARK_FRONT | CULLIDE_MARK_BACK)) break;
        }
        if (found == (CULLIDE_MARK_FRONT | CULLIDE_MARK_BACK)) break;
    }
    if (fragments != 0u) atomicAdd(counters[CULLIDE_COUNTER_FRAGMENTS], fragments);
    if (overflow != 0u) atomicAdd(counters[CULLIDE_COUNTER_OVERFLOW], overflow);
    if (found != 0u && (marks[unit] & found) != found) atomicOr(marks[unit], found);
}
