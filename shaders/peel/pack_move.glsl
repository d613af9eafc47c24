// Peel texture packing (papers/003 section 3), shifting and moving: one thread per row
// gathers the row's non-empty texels in order (the paper's shift to one end of the row)
// and writes them at the row's offset in the packed array (the paper's move into the
// reduced texture), so the packed order is the sparse order.
#include "peel/bindings.h"

layout(local_size_x = 64) in;

layout(std430, binding = PEEL_BINDING_RECORDS) readonly buffer PeelRecords { PeelRecord records[]; };
layout(std430, binding = PEEL_BINDING_ROW_OFFSETS) readonly buffer PeelRowOffsets { uint rowOffsets[]; };
layout(std430, binding = PEEL_BINDING_PACKED) writeonly buffer PeelPacked { PeelRecord packedRecords[]; };

uniform uint uRowWidth;
uniform uint uItemCount;

void main() {
    uint row = gl_GlobalInvocationID.x;
    uint begin = row * uRowWidth;
    if (begin >= uItemCount) return;
    uint end = min(begin + uRowWidth, uItemCount);
    uint out_ = rowOffsets[row];
    for (uint i = begin; i < end; ++i) {
        PeelRecord r = records[i];
        if (r.triangle != 0xFFFFFFFFu) packedRecords[out_++] = r;
    }
}
