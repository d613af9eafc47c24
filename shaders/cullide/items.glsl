// CULLIDE: the level's items (the potentially colliding set) and the work they spread over:
// one work index per triangle slot of every item, items in order.
#ifndef ISC_CULLIDE_ITEMS_GLSL
#define ISC_CULLIDE_ITEMS_GLSL

#include "cullide/bindings.h"

layout(std430, binding = CULLIDE_BINDING_ITEMS) readonly buffer CullideItems { CullideItem items[]; };
layout(std430, binding = CULLIDE_BINDING_SLOTS) readonly buffer CullideSlots { uint slotTriangles[]; };

uniform uint uItemCount;
uniform uint uWorkCount;

// The item whose work range holds `work` (binary search over workStart).
uint cullideItemOf(uint work) {
    uint lo = 0u, hi = uItemCount - 1u;
    while (lo < hi) {
        uint mid = (lo + hi + 1u) / 2u;
        if (items[mid].workStart <= work) lo = mid; else hi = mid - 1u;
    }
    return lo;
}

#endif
