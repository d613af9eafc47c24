// Heightmap detector, contact samples (compute; papers/002 "Interaction": the ID and normal
// buffers). A pixel whose id attachment names an environment draw has the environment's
// surface inside one of the object's solid intervals: the interval's extreme point P (depth
// b for the lowest interval) lies behind the environment triangle's plane. Its sample: the signed distance of P to the
// triangle's plane along the triangle's outward normal (negative: penetration), the point
// of that plane nearest to P, the normal and the triangle id. Variants (one define):
// - HM_EMIT_ALL: one thread per atlas pixel, every contact pixel appended;
// - HM_REDUCE_DEEPEST, HM_REDUCE_EXTREMES, HM_REDUCE_WINNER, HM_EMIT_REDUCED: the reduction
//   in compute. Per draw, the deepest penetration (atomicMax), then the extremes along 8
//   directions of the tile of the pixels at least half as deep (the support region: the rim
//   of the whole contact region, on meshes swollen by half the margin, lies a margin apart
//   and carries nothing), then the lowest pixel holding each best value (atomicMin), then
//   one thread per (draw, criterion) appends that pixel's sample (a pixel that wins several
//   criteria once).
// Defines: MAX_LAYERS and one of the above.
#include "common/scene.glsl"
#include "heightmap/bindings.h"

layout(local_size_x = 64) in;

layout(std430, binding = HM_BINDING_VIEWS) readonly buffer HmViews { HmView views[]; };
layout(std430, binding = HM_BINDING_DRAWS) readonly buffer HmDraws { HmDraw draws[]; };
layout(std430, binding = HM_BINDING_COUNTS) readonly buffer HmCounts { uint counts[]; };
layout(std430, binding = HM_BINDING_SLOTS) readonly buffer HmSlots { uint slots[]; };
layout(std430, binding = HM_BINDING_COLUMNS) readonly buffer HmColumns { uvec4 columns[]; };
layout(std430, binding = HM_BINDING_SAMPLES) writeonly buffer HmSamples { HmSample samples[]; };
layout(std430, binding = HM_BINDING_COUNTERS) buffer HmCounters { uint counters[]; };
layout(std430, binding = HM_BINDING_BEST) buffer HmBest { uint best[]; };
layout(std430, binding = HM_BINDING_WINNER) buffer HmWinner { uint winner[]; };

layout(binding = HM_UNIT_DEPTH) uniform sampler2D uDepth;
layout(binding = HM_UNIT_IDS) uniform usampler2D uIds;
layout(binding = HM_UNIT_DEPTH_ABOVE) uniform sampler2D uDepthAbove;
layout(binding = HM_UNIT_IDS_ABOVE) uniform usampler2D uIdsAbove;

uniform uint uTileSize;
uniform uvec2 uAtlasSize;
uniform uint uSampleCapacity;
uniform uint uDrawCount;
uniform uint uImmersed;  // 1: columns wholly under an environment surface facing the view's start are contacts

// The contact at an atlas pixel, if any: the environment draw and triangle (id.x = draw + 1,
// 0 when none), its window depth, and the window depth of the far end of the object's solid
// interval it lies in (for an immersed column: the column's extreme point b). `kind`: 0 the
// lowest interval, 1 an upper interval (an overhang), 2 an immersed column.
uvec2 contactAt(uint pixel, out float zEnv, out float end, out uint kind) {
    ivec2 q = ivec2(pixel % uAtlasSize.x, pixel / uAtlasSize.x);
    uvec2 id = texelFetch(uIds, q, 0).xy;
    uvec4 col = columns[pixel];
    kind = 0u;
    end = uintBitsToFloat(col.x);
    if (id.x != 0u) {
        zEnv = texelFetch(uDepth, q, 0).x;
        if (zEnv < uintBitsToFloat(col.y)) {
            kind = 1u;
            uint n = min(counts[pixel], uint(MAX_LAYERS));
            uint i = 1u;
            while (i + 1u < n && uintBitsToFloat(slots[pixel * uint(MAX_LAYERS) + i + 1u]) > zEnv) ++i;
            end = uintBitsToFloat(slots[pixel * uint(MAX_LAYERS) + i]);
        }
        return id;
    }
    if (uImmersed == 0u) return uvec2(0u);
    // The environment surface nearest above the column: facing the view's start (bit 31), the
    // column is inside the environment; facing away (an overhang of the environment), free.
    id = texelFetch(uIdsAbove, q, 0).xy;
    if ((id.x & 0x80000000u) == 0u) return uvec2(0u);
    zEnv = texelFetch(uDepthAbove, q, 0).x;
    kind = 2u;
    return uvec2(id.x & 0x7FFFFFFFu, id.y);
}

void emit(uint pixel) {
    float zEnv, b;
    uint kind;
    uvec2 id = contactAt(pixel, zEnv, b, kind);
    if (id.x == 0u) return;
    uint draw = id.x - 1u;
    HmDraw dr = draws[draw];
    HmView v = views[dr.view];
    ivec2 q = ivec2(pixel % uAtlasSize.x, pixel / uAtlasSize.x);
    vec2 local = vec2(uvec2(q) - uvec2(v.originX, v.originY)) + 0.5;
    vec2 ndc = local / float(uTileSize) * 2.0 - 1.0;
    vec4 h = v.invViewProj * vec4(ndc, 2.0 * b - 1.0, 1.0);
    vec3 p = h.xyz / h.w;  // the object's extreme point of the interval, world
    vec3 a, e1, e2;
    sceneWorldTriangle(dr.object, id.y, a, e1, e2);
    vec3 n = cross(e1 - a, e2 - a);
    float len = length(n);
    n = len > 0.0 ? n / len : -v.direction.xyz;
    // The triangle faces the view's start (back faces culled; immersed: checked). Guard round-off.
    if (dot(n, v.direction.xyz) > 0.0) n = -n;
    float dist = dot(p - a, n);
    uint slot = atomicAdd(counters[HM_COUNTER_SAMPLES], 1u);
    if (slot >= uSampleCapacity) return;
    HmSample s;
    s.point = vec4(p - dist * n, dist);
    s.normal = vec4(n, 0.0);
    s.draw = draw;
    s.triangle = id.y;
    s.pixel = pixel;
    s.pad = 0u;
    samples[slot] = s;
}

void countContact(uint kind) {
    atomicAdd(counters[HM_COUNTER_CONTACT_PIXELS], 1u);
    if (kind == 1u) atomicAdd(counters[HM_COUNTER_UPPER_PIXELS], 1u);
    if (kind == 2u) atomicAdd(counters[HM_COUNTER_IMMERSED_PIXELS], 1u);
}

uint criterion(uint k, float penetration, uvec2 xy) {
    uint r = uTileSize;
    switch (k) {
        case 0u: return floatBitsToUint(penetration);
        case 1u: return xy.x;
        case 2u: return r - 1u - xy.x;
        case 3u: return xy.y;
        case 4u: return r - 1u - xy.y;
        case 5u: return xy.x + xy.y;
        case 6u: return 2u * r - 2u - xy.x - xy.y;
        case 7u: return xy.x + r - xy.y;
        default: return xy.y + r - xy.x;
    }
}

void main() {
#if defined(HM_EMIT_REDUCED)
    uint item = gl_GlobalInvocationID.x;
    if (item >= uDrawCount * uint(HM_CRITERIA)) return;
    uint w = winner[item];
    if (w == 0xFFFFFFFFu) return;
    uint first = item - item % uint(HM_CRITERIA);
    for (uint k = first; k < item; ++k)
        if (winner[k] == w) return;  // already emitted for an earlier criterion
    emit(w);
#else
    uint pixel = gl_GlobalInvocationID.x;
    if (pixel >= uAtlasSize.x * uAtlasSize.y) return;
    float zEnv, end;
    uint kind;
    uvec2 id = contactAt(pixel, zEnv, end, kind);
    if (id.x == 0u) return;
#if defined(HM_EMIT_ALL)
    countContact(kind);
    emit(pixel);
#else
    HmView v = views[draws[id.x - 1u].view];
    uvec2 xy = uvec2(pixel % uAtlasSize.x, pixel / uAtlasSize.x) - uvec2(v.originX, v.originY);
    uint base = (id.x - 1u) * uint(HM_CRITERIA);
    float penetration = max(end - zEnv, 0.0);
#if defined(HM_REDUCE_DEEPEST)
    atomicMax(best[base], floatBitsToUint(penetration));
    countContact(kind);
#else
    bool support = penetration >= 0.5 * uintBitsToFloat(best[base]);
    for (uint k = 0u; k < uint(HM_CRITERIA); ++k) {
        if (k > 0u && !support) break;
        uint value = criterion(k, penetration, xy);
#if defined(HM_REDUCE_EXTREMES)
        if (k > 0u) atomicMax(best[base + k], value);
#else
        if (best[base + k] == value) atomicMin(winner[base + k], pixel);
#endif
    }
#endif
#endif
#endif
}
