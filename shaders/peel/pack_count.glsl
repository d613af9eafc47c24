// Peel texture packing (papers/003 section 3), counting: the sparse record array seen as a
// texture of rows of uRowWidth texels; one thread per row counts its non-empty texels
// (the paper's log-step reduce-add along rows). The CPU reads the counts (the paper's
// single-column texture), makes the row offsets and the packed size.
#include "peel/bindings.h"

layout(local_size_x = 64) in;

layout(std430, binding = PEEL_BINDING_RECORDS) readonly buffer PeelRecords { PeelRecord records[]; };
layout(std430, binding = PEEL_BINDING_ROW_COUNTS) writeonly buffer PeelRowCounts { uint rowCounts[]; };

uniform uint uRowWidth;
uniform uint uItemCount;

void main() {
    uint row = gl_GlobalInvocationID.x;
    uint begin = row * uRowWidth;
    if (begin >= uItemCount) return;
    uint end = min(begin + uRowWidth, uItemCount);
    uint count = 0u;
    for (uint i = begin; i < end; ++i) count += records[i].triangle != 0xFFFFFFFFu ? 1u : 0u;
    rowCounts[row] = count;
}
