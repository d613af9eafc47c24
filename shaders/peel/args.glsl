// Indirect dispatch arguments from a count the GPU wrote (no read-back): args[4 slot + 0..2]
// = the workgroups for `count` items at uPerGroup items per workgroup, split across x and y
// like common/dispatch.glsl (at most uMaxGroups per dimension). The count is
// - uMode 0: args[4 slot + 3] (a list's append counter),
// - uMode 1: counters[uCounter],
// - uMode 2: scanData[uScanEnd] - scanData[uScanBegin] (items of a range of draws),
// clamped to uCapacity (items past a buffer's end were not written; their loss is counted
// where they were appended).
#include "peel/bindings.h"

layout(local_size_x = 1) in;

layout(std430, binding = PEEL_BINDING_ARGS) buffer PeelArgs { uint args[]; };
layout(std430, binding = PEEL_BINDING_COUNTERS) readonly buffer PeelCounters { uint counters[]; };
layout(std430, binding = PEEL_BINDING_SCAN) readonly buffer PeelScan { uint scanData[]; };

uniform uint uSlot;
uniform uint uMode;
uniform uint uCounter;
uniform uint uScanBegin;
uniform uint uScanEnd;
uniform uint uCapacity;
uniform uint uPerGroup;
uniform uint uMaxGroups;

void main() {
    uint count;
    if (uMode == 0u) count = args[4u * uSlot + 3u];
    else if (uMode == 1u) count = counters[uCounter];
    else count = scanData[uScanEnd] - scanData[uScanBegin];
    count = min(count, uCapacity);
    uint groups = (count + uPerGroup - 1u) / uPerGroup;
    uint x = min(groups, uMaxGroups);
    uint y = x == 0u ? 1u : (groups + x - 1u) / x;
    args[4u * uSlot + 0u] = x;
    args[4u * uSlot + 1u] = y;
    args[4u * uSlot + 2u] = 1u;
}
