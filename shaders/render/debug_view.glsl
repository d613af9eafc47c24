// DebugViewRenderer: one detector image-space buffer (isc::DetectorDebugView) to an RGBA8 image
// the viewer shows. Each output texel covers a block of `uBlock` x `uBlock` source pixels and
// shows their largest value (counts, floats) or whether any bit is set (tile bits).
// PASS_RANGE: the largest value (atomicMax into range[0]; floats as their bits, >= 0).
// PASS_COLOR: the colour map, normalised by range[0].
layout(local_size_x = 8, local_size_y = 8) in;

#define FORMAT_COUNTS 0u
#define FORMAT_TILE_BITS 1u
#define FORMAT_FLOAT 2u

layout(std430, binding = 0) readonly buffer Source { uint source[]; };
layout(std430, binding = 1) buffer Range { uint range[]; };
#ifdef PASS_COLOR
layout(rgba8, binding = 0) writeonly uniform image2D image;
#endif

uniform uint uFormat;
uniform uint uOffsetWords;
uniform uvec2 uSize;        // source pixels
uniform uvec2 uOutSize;     // output texels
uniform uint uBlock;        // source pixels per output texel, per side
uniform uint uTileSize;     // tile bits
uniform uint uTilesPerRow;
uniform uint uTiles;

// One source pixel as a non-negative value whose uint order is its numeric order.
uint sourceValue(uvec2 p) {
    if (uFormat == FORMAT_TILE_BITS) {
        uint R = uTileSize;
        uint t = (p.y / R) * uTilesPerRow + p.x / R;
        if (t >= uTiles) return 0u;
        uint bit = (p.y % R) * R + p.x % R;
        uint word = source[uOffsetWords + t * ((R * R + 31u) / 32u) + (bit >> 5)];
        return (word >> (bit & 31u)) & 1u;
    }
    uint v = source[uOffsetWords + p.y * uSize.x + p.x];
    if (uFormat == FORMAT_FLOAT) v = max(uintBitsToFloat(v), 0.0) == 0.0 ? 0u : v;  // negatives and NaN: 0
    return v;
}

uint blockValue(uvec2 texel) {
    uint best = 0u;
    uvec2 lo = texel * uBlock;
    uvec2 hi = min(lo + uBlock, uSize);
    for (uint y = lo.y; y < hi.y; ++y)
        for (uint x = lo.x; x < hi.x; ++x) best = max(best, sourceValue(uvec2(x, y)));
    return best;
}

// A perceptual ramp (black, purple, orange, yellow) for t in [0, 1].
vec3 ramp(float t) {
    vec3 a = vec3(0.05, 0.03, 0.20), b = vec3(0.55, 0.12, 0.55), c = vec3(0.97, 0.50, 0.15), d = vec3(1.0, 0.97, 0.55);
    if (t < 1.0 / 3.0) return mix(a, b, t * 3.0);
    if (t < 2.0 / 3.0) return mix(b, c, t * 3.0 - 1.0);
    return mix(c, d, t * 3.0 - 2.0);
}

void main() {
    uvec2 texel = gl_GlobalInvocationID.xy;
    if (texel.x >= uOutSize.x || texel.y >= uOutSize.y) return;
    uint v = blockValue(texel);
#ifdef PASS_RANGE
    if (v != 0u) atomicMax(range[0], v);
#else
    vec3 c = vec3(0.04, 0.05, 0.08);  // nothing here
    if (v != 0u) {
        if (uFormat == FORMAT_TILE_BITS) {
            c = vec3(1.0, 0.85, 0.2);
        } else if (uFormat == FORMAT_FLOAT) {
            c = ramp(clamp(uintBitsToFloat(v) / max(uintBitsToFloat(range[0]), 1e-30), 0.0, 1.0));
        } else {
            c = ramp(float(v) / float(max(range[0], 1u)));
        }
    }
    imageStore(image, ivec2(texel), vec4(c, 1.0));
#endif
}
