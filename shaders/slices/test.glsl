// Slices detector, the test pass (papers/004 section 3 step 4, on the GPU): per atlas pixel, the two
// objects' slice words are ANDed; a shared bit is a voxel both objects occupy. Per view it
// counts them and grows the collision volume (tile pixels and slices, atomics); per pixel it
// writes the shared and occupied slice counts (debug views); with uEmitSamples, one contact
// sample per pixel with a shared voxel: the centre of the middle voxel of the column's
// longest shared run; normal = grad occupancy(A) - grad occupancy(B) over the 5x5x5 voxels
// around it (from B toward A; the view's fallback where it vanishes); depth = the shared
// region's thickness along that normal less half a voxel's width, the point moved to B's side.
// Defines: SL_TARGETS, SL_SHADER_OR.
#include "slices/bindings.h"

layout(local_size_x = 8, local_size_y = 8) in;

layout(std430, binding = SL_BINDING_VIEWS) readonly buffer SlViews { SlView views[]; };
layout(std430, binding = SL_BINDING_RESULTS) buffer SlResults { SlResult results[]; };
layout(std430, binding = SL_BINDING_SAMPLES) writeonly buffer SlSamples { SlSample samples[]; };
layout(std430, binding = SL_BINDING_COUNTERS) buffer SlCounters { uint counters[]; };
layout(std430, binding = SL_BINDING_PIXELS) writeonly buffer SlPixels { uint pixelCounts[]; };

#ifdef SL_SHADER_OR
layout(std430, binding = SL_BINDING_BITS) readonly buffer SlBits { uint bits[]; };
#else
layout(binding = SL_UNIT_TARGET0) uniform usampler2D uTarget0;
#if SL_TARGETS > 1
layout(binding = SL_UNIT_TARGET1) uniform usampler2D uTarget1;
#endif
#endif

uniform uvec2 uAtlasSize;
uniform uint uTileSize;
uniform uint uViewCount;
uniform uint uEmitSamples;

// Target t of atlas pixel p: (A word 2t, A word 2t + 1, B word 2t, B word 2t + 1).
uvec4 fetchTarget(ivec2 p, int t) {
#ifdef SL_SHADER_OR
    uint base = ((uint(p.y) * uAtlasSize.x + uint(p.x)) * uint(SL_TARGETS) + uint(t)) * 4u;
    return uvec4(bits[base], bits[base + 1u], bits[base + 2u], bits[base + 3u]);
#else
#if SL_TARGETS > 1
    if (t == 1) return texelFetch(uTarget1, p, 0);
#endif
    return texelFetch(uTarget0, p, 0);
#endif
}

struct Column {
    uint a[4];
    uint b[4];
};

Column fetchColumn(ivec2 p) {
    Column c;
    for (int w = 0; w < 4; ++w) {
        c.a[w] = 0u;
        c.b[w] = 0u;
    }
    for (int t = 0; t < SL_TARGETS; ++t) {
        uvec4 v = fetchTarget(p, t);
        c.a[2 * t] = v.x;
        c.a[2 * t + 1] = v.y;
        c.b[2 * t] = v.z;
        c.b[2 * t + 1] = v.w;
    }
    return c;
}

bool bitOf(uint words[4], int k) { return ((words[k >> 5] >> uint(k & 31)) & 1u) != 0u; }

void main() {
    uvec2 g = gl_GlobalInvocationID.xy;
    if (g.x >= uAtlasSize.x || g.y >= uAtlasSize.y) return;
    uint pixelIndex = g.y * uAtlasSize.x + g.x;
    uint tilesX = uAtlasSize.x / uTileSize;
    uint view = (g.y / uTileSize) * tilesX + g.x / uTileSize;
    uint atlasPixels = uAtlasSize.x * uAtlasSize.y;
    if (view >= uViewCount) {
        pixelCounts[pixelIndex] = 0u;
        pixelCounts[atlasPixels + pixelIndex] = 0u;
        return;
    }
    SlView v = views[view];
    int S = int(v.slices);
    Column c = fetchColumn(ivec2(g));
    uint both[4];
    uint sharedCount = 0u, occupied = 0u;
    int lowest = -1, highest = -1;
    for (int w = 0; w < 4; ++w) {
        both[w] = c.a[w] & c.b[w];
        sharedCount += uint(bitCount(both[w]));
        occupied += uint(bitCount(c.a[w] | c.b[w]));
        if (both[w] != 0u) {
            if (lowest < 0) lowest = 32 * w + findLSB(both[w]);
            highest = 32 * w + findMSB(both[w]);
        }
    }
    pixelCounts[pixelIndex] = sharedCount;
    pixelCounts[atlasPixels + pixelIndex] = occupied;
    if (sharedCount == 0u) return;

    uvec2 tile = uvec2(v.originX, v.originY);
    uvec2 local = g - tile;
    atomicAdd(results[view].voxels, sharedCount);
    atomicAdd(results[view].pixels, 1u);
    atomicMin(results[view].minX, local.x);
    atomicMin(results[view].minY, local.y);
    atomicMin(results[view].minK, uint(lowest));
    atomicMax(results[view].maxX, local.x);
    atomicMax(results[view].maxY, local.y);
    atomicMax(results[view].maxK, uint(highest));
    if (uEmitSamples == 0u) return;

    // The column's longest shared run: its middle voxel is the sample.
    int bestStart = lowest, bestLength = 0, runStart = -1;
    for (int k = lowest; k <= highest + 1; ++k) {
        bool on = k <= highest && bitOf(both, k);
        if (on && runStart < 0) runStart = k;
        if (!on && runStart >= 0) {
            if (k - runStart > bestLength) {
                bestLength = k - runStart;
                bestStart = runStart;
            }
            runStart = -1;
        }
    }
    int ks = bestStart + bestLength / 2;

    // Fill gradient over 5x5x5 voxels (index space: across u, across w, depth), by central
    // differences: an offset counts only with its mirror image, both inside the view (what lies
    // outside the view is unknown; one-sided sums would lean toward the view's inside).
    vec3 grad = vec3(0.0);
    int R = int(uTileSize);
    for (int dy = -2; dy <= 2; ++dy) {
        for (int dx = -2; dx <= 2; ++dx) {
            ivec2 q = ivec2(local) + ivec2(dx, dy), m = ivec2(local) - ivec2(dx, dy);
            if (q.x < 0 || q.y < 0 || q.x >= R || q.y >= R || m.x < 0 || m.y < 0 || m.x >= R || m.y >= R) continue;
            Column n = fetchColumn(ivec2(tile) + q);
            for (int dk = -2; dk <= 2; ++dk) {
                int k = ks + dk, km = ks - dk;
                if (k < 0 || k >= S || km < 0 || km >= S) continue;
                float value = (bitOf(n.a, k) ? 1.0 : 0.0) - (bitOf(n.b, k) ? 1.0 : 0.0);
                grad += value * vec3(dx, dy, dk);
            }
        }
    }
    uint a = v.axis, au = (a + 1u) % 3u, aw = (a + 2u) % 3u;
    vec3 voxel;  // voxel size along (u, w, depth), world units
    voxel.x = v.boxSize[au] / float(R);
    voxel.y = v.boxSize[aw] / float(R);
    voxel.z = v.boxSize[a] / float(S);
    vec3 gradWorldUwd = grad / voxel;
    vec3 normal;
    normal[au] = gradWorldUwd.x;
    normal[aw] = gradWorldUwd.y;
    normal[a] = gradWorldUwd.z;
    float len = length(normal);
    float weight = len;  // the gradient's size (world units^-1): the C++ side weights the pair's normal by it
    normal = len > 1e-20 ? normal / len : v.fallback.xyz;

    vec3 centreUwd = vec3(float(local.x) + 0.5, float(local.y) + 0.5, float(ks) + 0.5);
    vec3 point;
    point[au] = v.boxMin[au] + centreUwd.x * voxel.x;
    point[aw] = v.boxMin[aw] + centreUwd.y * voxel.y;
    point[a] = v.boxMin[a] + centreUwd.z * voxel.z;

    // Thickness of the shared region along the normal, marched in half-voxel steps.
    vec3 nUwd = vec3(normal[au], normal[aw], normal[a]) / voxel;  // voxels per world unit
    float stepLen = 0.5 * min(voxel.x, min(voxel.y, voxel.z));
    float along[2] = float[2](0.0, 0.0);
    for (int side = 0; side < 2; ++side) {
        float sgn = side == 0 ? 1.0 : -1.0;
        for (int i = 1; i < 4 * (R + S); ++i) {
            vec3 p = centreUwd + sgn * float(i) * stepLen * nUwd;
            ivec3 vox = ivec3(floor(p));
            if (vox.x < 0 || vox.y < 0 || vox.z < 0 || vox.x >= R || vox.y >= R || vox.z >= S) break;
            Column n = fetchColumn(ivec2(tile) + vox.xy);
            if (!(bitOf(n.a, vox.z) && bitOf(n.b, vox.z))) break;
            along[side] = float(i) * stepLen;
        }
    }
    // The marched thickness is at least a step even for surfaces that barely share a voxel:
    // half the voxel's width along the normal is taken off, centring the estimate.
    vec3 nAbs = abs(vec3(normal[au], normal[aw], normal[a]));
    float voxelAlong = dot(nAbs, voxel);
    float depth = max(along[0] + along[1] + stepLen - 0.5 * voxelAlong, 0.0);
    uint slot = atomicAdd(counters[SL_COUNTER_SAMPLES], 1u);
    SlSample s;
    s.point = vec4(point + normal * (along[0] + 0.5 * stepLen), -depth);
    s.normal = vec4(normal, weight);
    s.view = view;
    s.pixel = local.y * uTileSize + local.x;
    s.slice = uint(ks);
    s.pad = 0u;
    samples[slot] = s;
}
