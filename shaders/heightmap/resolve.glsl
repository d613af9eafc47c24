// Heightmap detector, resolve (compute, one thread per atlas pixel): sorts the object's
// fragment depths of the pixel (largest first, written back to the slots) and writes its
// column: b = the extreme point along the view direction (the bottom, largest depth: the
// paper's So), c = the end of the lowest solid interval (the next crossing), d = the start of
// the next interval, t = the other extreme. A closed object crosses each column an even
// number of times: solid intervals are [z[2k + 1], z[2k]]; with 2 crossings, c = d = t.
// Defines: MAX_LAYERS.
#include "heightmap/bindings.h"

layout(local_size_x = 8, local_size_y = 8) in;

layout(std430, binding = HM_BINDING_COUNTS) readonly buffer HmCounts { uint counts[]; };
layout(std430, binding = HM_BINDING_SLOTS) buffer HmSlots { uint slots[]; };
layout(std430, binding = HM_BINDING_COLUMNS) writeonly buffer HmColumns { uvec4 columns[]; };

uniform uvec2 uAtlasSize;

void main() {
    uvec2 q = gl_GlobalInvocationID.xy;
    if (q.x >= uAtlasSize.x || q.y >= uAtlasSize.y) return;
    uint pixel = q.y * uAtlasSize.x + q.x;
    uint n = min(counts[pixel], uint(MAX_LAYERS));
    if (n == 0u) return;
    uint z[MAX_LAYERS];
    for (uint i = 0u; i < n; ++i) z[i] = slots[pixel * uint(MAX_LAYERS) + i];
    // Insertion sort, largest depth first.
    for (uint i = 1u; i < n; ++i) {
        uint v = z[i];
        uint j = i;
        while (j > 0u && z[j - 1u] < v) {
            z[j] = z[j - 1u];
            --j;
        }
        z[j] = v;
    }
    for (uint i = 0u; i < n; ++i) slots[pixel * uint(MAX_LAYERS) + i] = z[i];
    uint c = n > 1u ? z[1] : z[0];
    uint d = n > 2u ? z[min(2u, uint(MAX_LAYERS) - 1u)] : c;
    columns[pixel] = uvec4(z[0], c, d, z[n - 1u]);
}
