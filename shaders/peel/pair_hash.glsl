// The pairing grid's cells and hash (peel/pair_grid.glsl, peel/pair_test.glsl).
#ifndef ISC_PEEL_PAIR_HASH_GLSL
#define ISC_PEEL_PAIR_HASH_GLSL

uniform float uCellSize;    // world units of a level-0 cell
uniform uint uBucketMask;   // buckets - 1 (a power of two minus one)
uniform uint uGridLevels;   // levels of the call, PEEL_GRID_LEVELS..PEEL_GRID_MAX_LEVELS

float peelCellSize(uint level) { return uCellSize * float(1u << (3u * level)); }

// Lowest level whose cells are at least half the box's longest side (the box then spans at
// most three cells a side).
uint peelGridLevel(vec3 lo, vec3 hi) {
    vec3 e = hi - lo;
    float longest = max(e.x, max(e.y, e.z));
    uint level = 0u;
    while (level + 1u < uGridLevels && longest > 2.0 * peelCellSize(level)) ++level;
    return level;
}

ivec3 peelCell(vec3 p, uint level) { return ivec3(floor(p / peelCellSize(level))); }

uint peelBucket(uint tile, uint level, ivec3 c) {
    uint h = tile * 0x9E3779B1u;
    h ^= (uint(c.x) * 0x85EBCA77u) + (h << 6) + (h >> 2);
    h ^= (uint(c.y) * 0xC2B2AE3Du) + (h << 6) + (h >> 2);
    h ^= (uint(c.z) * 0x27D4EB2Fu) + (h << 6) + (h >> 2);
    h ^= level * 0x165667B1u;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    return h & uBucketMask;
}

#endif
