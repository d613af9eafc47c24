// Peel ray merging (papers/003 section 5), compute: one level of the bounding-box mipmap.
// Level 1 is built from the collision-ray mask dilated by one pixel (a pixel is "on" when
// any of its 3x3 neighbours is a collision ray: an intersection curve passing within one
// pixel of a collision ray stays found); higher levels union 2x2 boxes of the level below.
// Boxes are inclusive tile-pixel ranges packed x0 | y0 << 16, x1 | y1 << 16; the empty
// box is (0xFFFFFFFF, 0) so that it never changes a union.
#include "peel/bindings.h"

layout(local_size_x = 8, local_size_y = 8) in;

layout(std430, binding = PEEL_BINDING_MASK) readonly buffer PeelMask { uint mask[]; };
layout(std430, binding = PEEL_BINDING_PYRAMID) buffer PeelPyramid { uvec2 pyramid[]; };

uniform uint uTileSize;
uniform uint uLevel;          // level written (>= 1)
uniform uint uLevelOffset;    // first texel of uLevel inside a tile's pyramid
uniform uint uPrevOffset;     // first texel of uLevel - 1 (unused for level 1)
uniform uint uPyramidStride;  // texels per tile

uvec2 unite(uvec2 a, uvec2 b) {
    uvec2 lo = min(uvec2(a.x & 0xFFFFu, a.x >> 16), uvec2(b.x & 0xFFFFu, b.x >> 16));
    uvec2 hi = max(uvec2(a.y & 0xFFFFu, a.y >> 16), uvec2(b.y & 0xFFFFu, b.y >> 16));
    return uvec2(lo.x | (lo.y << 16), hi.x | (hi.y << 16));
}

bool maskBit(uint t, ivec2 q) {
    int R = int(uTileSize);
    if (q.x < 0 || q.y < 0 || q.x >= R || q.y >= R) return false;
    uint bit = uint(q.y * R + q.x);
    return (mask[t * ((uTileSize * uTileSize + 31u) / 32u) + (bit >> 5)] & (1u << (bit & 31u))) != 0u;
}

void main() {
    uint dim = uTileSize >> uLevel;
    uvec2 p = gl_GlobalInvocationID.xy;
    if (p.x >= dim || p.y >= dim) return;
    uint t = gl_WorkGroupID.z;
    uvec2 box = uvec2(0xFFFFFFFFu, 0u);
    if (uLevel == 1u) {
        for (uint c = 0u; c < 4u; ++c) {
            ivec2 q = ivec2(p * 2u + uvec2(c & 1u, c >> 1));
            bool on = false;
            for (int dy = -1; dy <= 1 && !on; ++dy)
                for (int dx = -1; dx <= 1 && !on; ++dx) on = maskBit(t, q + ivec2(dx, dy));
            if (on) box = unite(box, uvec2(uint(q.x) | (uint(q.y) << 16), uint(q.x) | (uint(q.y) << 16)));
        }
    } else {
        uint prevDim = dim * 2u;
        uint base = t * uPyramidStride + uPrevOffset;
        for (uint c = 0u; c < 4u; ++c) {
            uvec2 q = p * 2u + uvec2(c & 1u, c >> 1);
            box = unite(box, pyramid[base + q.y * prevDim + q.x]);
        }
    }
    pyramid[t * uPyramidStride + uLevelOffset + p.y * dim + p.x] = box;
}
