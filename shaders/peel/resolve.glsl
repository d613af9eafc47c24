// Peel object sampling, per ray (compute): sorts the pixel's fragment list by depth and
// marks the ray colliding (papers/003 section 4.1, with object ids):
// - pair tile: some depth interval lies inside both objects (winding number > 0 for each);
// - self tile: the paper's rule, two consecutive front or back faces or a back face first
//   (winding > 1 or < 0);
// - open tile (section 8.2): consecutive fragments of different sides (any, for self)
//   within depthEpsilon;
// - proximity (conservative mode): consecutive fragments of A and B within depthEpsilon;
// - more than MAX_LAYERS fragments: colliding (the paper's conservative layer cap).
// With PEEL_SCENE (scene sampling: every object of a view in one tile, object ids in the
// fragments, surfaces culled in 3-D) an object's inside/outside state between consecutive
// fragments is read from its nearest fragment (see testRay); a depth interval inside two
// objects makes the ray colliding for that object pair when it is a candidate pair (hash
// table lookup), and flags the pair in hits[] (the narrowphase only pairs triangles of
// flagged pairs). Self (objects drawn whole): an object's winding > 1 or < 0. Proximity and
// open meshes: consecutive fragments of a candidate pair within depthEpsilon. A ray over the
// cap (or meeting more objects than tracked) flags its tile (hits[uTileFlagBase + tile]):
// every candidate pair in that tile is then tested.
// Defines: MAX_LAYERS, optionally PEEL_SCENE.
#include "peel/bindings.h"

layout(local_size_x = 8, local_size_y = 8) in;

layout(std430, binding = PEEL_BINDING_TILES) readonly buffer PeelTiles { PeelTile tiles[]; };
layout(std430, binding = PEEL_BINDING_HEADS) readonly buffer PeelCounts { uint counts[]; };
layout(std430, binding = PEEL_BINDING_COUNTERS) buffer PeelCounters { uint counters[]; };
layout(std430, binding = PEEL_BINDING_MASK) buffer PeelMask { uint mask[]; };
#ifdef PEEL_SCENE
layout(std430, binding = PEEL_BINDING_NODES) readonly buffer PeelSlots { uvec2 slots[]; };
layout(std430, binding = PEEL_BINDING_PAIRS) readonly buffer PeelPairs { uvec4 pairTable[]; };
layout(std430, binding = PEEL_BINDING_HITS) buffer PeelHits { uint hits[]; };
uniform uint uPairMask;      // pairTable length - 1 (a power of two minus one)
uniform uint uTileFlagBase;  // hits[] index of this batch's first tile flag
uniform uint uFirstTile;     // tiles[] index of this batch's first tile (its tiles are uFirstTile + z)
uniform uint uCulled;        // 1: surfaces are culled (scene sampling's 3-D cull)
uniform float uFarPixels;    // the cull's band (pixels): a nearest fragment farther says nothing
#else
layout(std430, binding = PEEL_BINDING_NODES) readonly buffer PeelSlots { uint slots[]; };
#endif

uniform uint uTileSize;
uniform uint uAtlasWidth;

shared uint sFragments, sRays, sOverflow, sMaxDepth;

#ifdef PEEL_SCENE
// Candidate index of object pair (a, b), or 0xFFFFFFFF when it is not a candidate pair.
uint candidateOf(uint a, uint b) {
    uint lo = min(a, b), hi = max(a, b);
    uint h = (lo * 0x9E3779B1u) ^ (hi * 0x85EBCA77u);
    h ^= h >> 15;
    for (uint probe = 0u; probe <= uPairMask; ++probe) {
        uvec4 e = pairTable[(h + probe) & uPairMask];
        if (e.x == 0xFFFFFFFFu) return 0xFFFFFFFFu;
        if (e.x == lo && e.y == hi) return e.z;
    }
    return 0xFFFFFFFFu;
}

// Flags candidate pair (a, b) when it is one; true when it is.
bool hitPair(uint a, uint b) {
    uint c = candidateOf(a, b);
    if (c == 0xFFFFFFFFu) return false;
    if (hits[c] == 0u && atomicExchange(hits[c], 1u) == 0u) atomicAdd(counters[PEEL_COUNTER_PAIRS_WITH_RAYS], 1u);
    return true;
}

// Objects tracked per ray; a ray meeting more is treated like one over the layer cap.
#define PEEL_RAY_OBJECTS 16

// Scene sampling's ray test. The surfaces on the ray may be partial (the 3-D cull keeps, of
// each object, only the triangles near the other objects of its candidate pairs), so an
// object's inside/outside state between two consecutive fragments is read from its NEAREST
// fragment in depth, before (a front face: inside after it) or after (a back face: inside
// before it); ties count as inside. With whole surfaces this is the winding number; near an
// intersection of two objects both surfaces are whole (the cull keeps everything within two
// pixels of the other object), so the interval between or beside the two crossings reads as
// inside both on one side of the intersection curve, as the winding number would.
bool testRay(uint t, uvec2 p) {
    PeelTile tile = tiles[uFirstTile + t];
    uint pixel = (tile.originY + p.y) * uAtlasWidth + tile.originX + p.x;
    uint total = counts[pixel];
    if (total == 0u) return false;
    atomicAdd(sFragments, total);
    atomicMax(sMaxDepth, total);
    if (total > uint(MAX_LAYERS)) {  // the paper's conservative cap: every pair of the tile is tested
        atomicAdd(sOverflow, 1u);
        hits[uTileFlagBase + t] = 1u;
        return true;
    }
    uint n = total;
    uvec2 frags[MAX_LAYERS];
    for (uint i = 0u; i < n; ++i) frags[i] = slots[pixel * uint(MAX_LAYERS) + i];
    for (uint i = 1u; i < n; ++i) {  // insertion sort by depth: lists are short
        uvec2 v = frags[i];
        uint j = i;
        while (j > 0u && frags[j - 1u].x > v.x) {
            frags[j] = frags[j - 1u];
            --j;
        }
        frags[j] = v;
    }
    bool open = (tile.flags & PEEL_TILE_OPEN) != 0u;
    bool proximity = open || (tile.flags & PEEL_TILE_PROXIMITY) != 0u;
    uint epsilon = uint(tile.depthEpsilon * PEEL_DEPTH_SCALE);
    bool colliding = false;
    // Objects on the ray (slot k), the ray's fragment index -> slot, and per object the next
    // fragment of the same object (n: none).
    uint objects[PEEL_RAY_OBJECTS];
    int winding[PEEL_RAY_OBJECTS];
    uint firstOf[PEEL_RAY_OBJECTS];
    uint slotOf[MAX_LAYERS];
    uint nextSame[MAX_LAYERS];
    uint met = 0u;
    for (uint i = 0u; i < n; ++i) {
        uint o = frags[i].y;
        if (proximity && i > 0u) {
            uvec2 prev = frags[i - 1u];
            if ((prev.y != o || open) && (frags[i].x >> 1) - (prev.x >> 1) <= epsilon && hitPair(prev.y, o))
                colliding = true;
        }
        uint k = 0u;
        while (k < met && objects[k] != o) ++k;
        if (k == met) {
            if (met == uint(PEEL_RAY_OBJECTS)) {  // too many objects to track: conservative
                atomicAdd(sOverflow, 1u);
                hits[uTileFlagBase + t] = 1u;
                return true;
            }
            objects[met] = o;
            winding[met] = 0;
            firstOf[met] = i;
            ++met;
        }
        slotOf[i] = k;
        nextSame[i] = n;
        // Self-collision (objects drawn whole): the paper's rule on the winding from the ray's start.
        winding[k] += (frags[i].x & 1u) != 0u ? 1 : -1;
        if ((winding[k] > 1 || winding[k] < 0) && hitPair(o, o)) colliding = true;
    }
    if (open) return colliding;
    uint lastOf[PEEL_RAY_OBJECTS];
    for (uint k = 0u; k < met; ++k) lastOf[k] = n;
    for (uint i = n; i-- > 0u;) {
        uint k = slotOf[i];
        nextSame[i] = lastOf[k];
        lastOf[k] = i;
    }
    // Sweep the gaps g = 0..n (gap g lies before fragment g), the objects' previous fragment
    // kept per slot (n: none yet).
    uint prevOf[PEEL_RAY_OBJECTS];
    for (uint k = 0u; k < met; ++k) prevOf[k] = n;
    uint far = uint(uFarPixels * tile.depthEpsilon * PEEL_DEPTH_SCALE);  // depthEpsilon: one pixel
    uint tested = 0u;
    for (uint g = 0u; g <= n; ++g) {
        if (g > 0u) prevOf[slotOf[g - 1u]] = g - 1u;
        uint inside = 0u;
        for (uint k = 0u; k < met; ++k) {
            uint pi = prevOf[k];
            uint ni = pi == n ? firstOf[k] : nextSame[pi];
            bool hasPrev = pi != n, hasNext = ni != n;
            uint dPrev = hasPrev ? (frags[g - 1u].x >> 1) - (frags[pi].x >> 1) : 0xFFFFFFFFu;
            uint dNext = hasNext ? (frags[ni].x >> 1) - (frags[g].x >> 1) : 0xFFFFFFFFu;
            bool in_ = (hasPrev && (frags[pi].x & 1u) != 0u && dPrev <= dNext) ||
                       (hasNext && (frags[ni].x & 1u) == 0u && dNext <= dPrev) ||
                       (uCulled != 0u && min(dPrev, dNext) > far);  // culled surface between: unknown
            if (in_) inside |= 1u << k;
        }
        if (bitCount(inside) < 2 || inside == tested) continue;
        tested = inside;
        for (uint a = 0u; a < met; ++a) {
            if ((inside & (1u << a)) == 0u) continue;
            for (uint b = a + 1u; b < met; ++b)
                if ((inside & (1u << b)) != 0u && hitPair(objects[a], objects[b])) colliding = true;
        }
    }
    return colliding;
}
#else
// One ray; returns true when it is a collision ray. Adds to the workgroup's counters.
bool testRay(uint t, uvec2 p) {
    uint R = uTileSize;
    PeelTile tile = tiles[t];
    uint pixel = (tile.originY + p.y) * uAtlasWidth + tile.originX + p.x;
    uint total = counts[pixel];
    if (total == 0u) return false;
    atomicAdd(sFragments, total);
    atomicMax(sMaxDepth, total);
    if (total > uint(MAX_LAYERS)) {  // the paper's conservative cap
        atomicAdd(sOverflow, 1u);
        return true;
    }
    uint n = total;
    uint frags[MAX_LAYERS];
    for (uint i = 0u; i < n; ++i) frags[i] = slots[pixel * uint(MAX_LAYERS) + i];
    for (uint i = 1u; i < n; ++i) {  // insertion sort: lists are short
        uint v = frags[i];
        uint j = i;
        while (j > 0u && frags[j - 1u] > v) {
            frags[j] = frags[j - 1u];
            --j;
        }
        frags[j] = v;
    }
    bool self = (tile.flags & PEEL_TILE_SELF) != 0u;
    bool open = (tile.flags & PEEL_TILE_OPEN) != 0u;
    bool proximity = open || (tile.flags & PEEL_TILE_PROXIMITY) != 0u;
    uint epsilon = uint(tile.depthEpsilon * PEEL_DEPTH_SCALE);
    int winding[2] = int[2](0, 0);
    for (uint i = 0u; i < n; ++i) {
        uint e = frags[i];
        uint side = (e >> 1) & 1u;
        if (proximity && i > 0u) {
            uint prev = frags[i - 1u];
            bool otherSide = ((prev >> 1) & 1u) != side;
            if ((otherSide || (self && open)) && (e >> 2) - (prev >> 2) <= epsilon) return true;
        }
        if (open) continue;
        winding[side] += (e & 1u) != 0u ? 1 : -1;
        if (self) {
            if (winding[0] > 1 || winding[0] < 0) return true;
        } else if (winding[0] > 0 && winding[1] > 0) {
            return true;
        }
    }
    return false;
}
#endif

void main() {
    if (gl_LocalInvocationIndex == 0u) {
        sFragments = 0u;
        sRays = 0u;
        sOverflow = 0u;
        sMaxDepth = 0u;
    }
    barrier();
    uint R = uTileSize;
    uvec2 p = gl_GlobalInvocationID.xy;
    uint t = gl_WorkGroupID.z;
    if (p.x < R && p.y < R && testRay(t, p)) {
        atomicAdd(sRays, 1u);
        uint bit = p.y * R + p.x;
        atomicOr(mask[t * ((R * R + 31u) / 32u) + (bit >> 5)], 1u << (bit & 31u));
    }
    barrier();
    if (gl_LocalInvocationIndex == 0u) {  // one global atomic per workgroup and counter
        if (sFragments != 0u) atomicAdd(counters[PEEL_COUNTER_FRAGMENTS], sFragments);
        if (sRays != 0u) atomicAdd(counters[PEEL_COUNTER_COLLISION_RAYS], sRays);
        if (sOverflow != 0u) atomicAdd(counters[PEEL_COUNTER_OVERFLOW_RAYS], sOverflow);
        if (sMaxDepth != 0u) atomicMax(counters[PEEL_COUNTER_MAX_DEPTH], sMaxDepth);
    }
}
