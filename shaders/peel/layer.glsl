// Peel sampling "peeling" (papers/003 sections 4.1, 4.2), compute, after each peeling pass:
// one thread per ray (tile pixel). The pass found the nearest (front) and farthest (back)
// fragment beyond the layers peeled so far; each is compared with the facing the ray
// expects there. The paper keeps one expected facing per ray (alternating front, back, ...;
// from the back: back, front, ...); with two objects per tile (pair tiles) this is a
// winding number per object and direction: a fragment entering an object (a front face
// from the front, a back face from the back) adds one, leaving subtracts one. The ray is a
// collision ray when some interval lies inside both objects (both windings > 0), for a
// self tile when the paper's rule fires (winding > 1 or < 0: two consecutive front or back
// faces, or a back face first). Rays with more than MAX_LAYERS fragments are collision rays
// (the paper's conservative layer cap), and so are rays whose fragments could not all be
// peeled (two fragments with the same key: coincident surfaces). Conservative mode
// (PEEL_TILE_PROXIMITY): consecutive fragments of A and B within depthEpsilon, including
// the two that meet in the middle. A collision ray is marked in the mask, counted once and
// skipped by the later passes.
// Defines: MAX_LAYERS.
#include "peel/bindings.h"

layout(local_size_x = 8, local_size_y = 8) in;

layout(std430, binding = PEEL_BINDING_TILES) readonly buffer PeelTiles { PeelTile tiles[]; };
layout(std430, binding = PEEL_BINDING_HEADS) readonly buffer PeelCounts { uint counts[]; };
layout(std430, binding = PEEL_BINDING_PEEL_STATE) buffer PeelState { uvec4 peelState[]; };
layout(std430, binding = PEEL_BINDING_PEEL_LAYER) readonly buffer PeelLayer { uvec2 peelLayer[]; };
layout(std430, binding = PEEL_BINDING_COUNTERS) buffer PeelCounters { uint counters[]; };
layout(std430, binding = PEEL_BINDING_MASK) buffer PeelMask { uint mask[]; };

uniform uint uTileSize;
uniform uint uAtlasWidth;
uniform uint uLastPass;  // 1 on the last pass: a ray with fragments left is marked (conservative)

// One fragment into a sweep; true when the ray is then a collision ray.
bool sweep(uint key, bool fromFront, bool self, inout ivec2 w) {
    uint side = (key >> 1) & 1u;
    bool front = (key & 1u) != 0u;
    w[side] += front == fromFront ? 1 : -1;
    if (self) return w.x > 1 || w.x < 0;
    return w.x > 0 && w.y > 0;
}

// Consecutive fragments of different objects within epsilon (key depth units).
bool close(uint near, uint far, uint epsilon) {
    return ((near >> 1) & 1u) != ((far >> 1) & 1u) && (far >> 2) - (near >> 2) <= epsilon;
}

ivec2 unpackWinding(uint w, uint shift) {
    return ivec2(bitfieldExtract(int(w), int(shift), 8), bitfieldExtract(int(w), int(shift) + 8, 8));
}
uint packWinding(uint w, uint shift, ivec2 v) {
    w = bitfieldInsert(w, uint(v.x) & 0xFFu, int(shift), 8);
    return bitfieldInsert(w, uint(v.y) & 0xFFu, int(shift) + 8, 8);
}

void main() {
    uint R = uTileSize;
    uvec2 p = gl_GlobalInvocationID.xy;
    if (p.x >= R || p.y >= R) return;
    uint t = gl_WorkGroupID.z;
    PeelTile tile = tiles[t];
    uint pixel = (tile.originY + p.y) * uAtlasWidth + tile.originX + p.x;
    uint n = counts[pixel];
    if (n == 0u) return;
    uvec4 s = peelState[pixel];
    if ((s.z & PEEL_RAY_COLLIDING) != 0u) return;
    bool hit = false;
    if (n > uint(MAX_LAYERS)) {
        hit = true;  // the paper's conservative cap
    } else {
        uint peeledF = s.z & 0xFFu, peeledB = (s.z >> 8) & 0xFFu;
        uint remaining = n - peeledF - peeledB;
        if (remaining == 0u) return;
        uvec2 layer = peelLayer[pixel];
        bool self = (tile.flags & PEEL_TILE_SELF) != 0u;
        bool proximity = (tile.flags & PEEL_TILE_PROXIMITY) != 0u;
        uint epsilon = uint(tile.depthEpsilon * PEEL_DEPTH_SCALE);
        if (layer.y == 0u) {
            hit = true;  // fragments left but none found: equal keys were peeled together
        } else {
            uint f = ~layer.x, b = layer.y - 1u;
            uint lo = s.x, hi = ~s.y;
            ivec2 wF = unpackWinding(s.w, 0u), wB = unpackWinding(s.w, 16u);
            // From the front.
            hit = sweep(f, true, self, wF);
            if (proximity && peeledF > 0u && close(lo - 1u, f, epsilon)) hit = true;
            ++peeledF;
            --remaining;
            lo = f + 1u;
            if (remaining > 0u) {
                if (b == f) {
                    hit = true;  // the rest shares one key: not separable by peeling
                } else {         // from the back
                    if (sweep(b, false, self, wB)) hit = true;
                    if (proximity && peeledB > 0u && close(b, hi + 1u, epsilon)) hit = true;
                    ++peeledB;
                    --remaining;
                    hi = b - 1u;
                }
            }
            // The two sweeps met: their last fragments are consecutive on the ray.
            if (remaining == 0u && proximity && peeledB > 0u && close(lo - 1u, hi + 1u, epsilon)) hit = true;
            if (remaining > 0u && uLastPass != 0u) hit = true;
            s = uvec4(lo, ~hi, peeledF | (peeledB << 8), packWinding(packWinding(0u, 0u, wF), 16u, wB));
        }
    }
    if (hit) {
        s.z |= PEEL_RAY_COLLIDING;
        atomicAdd(counters[PEEL_COUNTER_COLLISION_RAYS], 1u);
        uint bit = p.y * R + p.x;
        atomicOr(mask[t * ((R * R + 31u) / 32u) + (bit >> 5)], 1u << (bit & 31u));
    }
    peelState[pixel] = s;
}
