// CULLIDE: after one axis (or all axes at once: two mark bits per view), every member (item, or triangle slot) that was not hidden from both the front and the back
// leaves the PCS (it is fully visible from one side, so it collides with no other item of
// the PCS); the marks are cleared for the next axis and the survivors counted.
#include "cullide/bindings.h"

layout(local_size_x = 64) in;

layout(std430, binding = CULLIDE_BINDING_ALIVE) buffer CullideAlive { uint alive[]; };
layout(std430, binding = CULLIDE_BINDING_MARKS) buffer CullideMarks { uint marks[]; };
layout(std430, binding = CULLIDE_BINDING_COUNTERS) buffer CullideCounters { uint counters[]; };
#ifdef CULLIDE_QUERIES
layout(std430, binding = CULLIDE_BINDING_QUERY_RESULTS) readonly buffer CullideQueryResults { uint queryResults[]; };
#endif

uniform uint uUnitCount;  // members of the PCS: items, or work indices (triangle slots)
uniform uint uLast;  // 1 on the level's last axis: count the survivors
uniform uint uFullMask;  // marks of a member hidden from both sides in every view of the pass (3, or 3 per view)

// One member; returns 1 when it stays in the PCS.
uint cullideUpdate() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= uUnitCount) return 0u;
#ifdef CULLIDE_QUERIES
    // The paper's four occlusion queries per item and axis: front in order, front reversed,
    // back in order, back reversed (a non-zero result: some fragment was hidden).
    uint m = ((queryResults[4u * i] | queryResults[4u * i + 1u]) != 0u ? CULLIDE_MARK_FRONT : 0u) |
             ((queryResults[4u * i + 2u] | queryResults[4u * i + 3u]) != 0u ? CULLIDE_MARK_BACK : 0u);
#else
    uint m = marks[i];
    marks[i] = 0u;
#endif
    if (alive[i] == 0u) return 0u;
#ifdef CULLIDE_QUERIES
    const uint full = CULLIDE_MARK_FRONT | CULLIDE_MARK_BACK;
#else
    uint full = uFullMask;
#endif
    if ((m & full) != full) {
        alive[i] = 0u;
        return 0u;
    }
    return 1u;
}

shared uint sAlive;

void main() {
    if (uLast == 0u) {
        cullideUpdate();
        return;
    }
    // The survivors counted in the workgroup first, one global atomic per workgroup (uLast is
    // uniform: every invocation meets both barriers).
    if (gl_LocalInvocationIndex == 0u) sAlive = 0u;
    barrier();
    if (cullideUpdate() != 0u) atomicAdd(sAlive, 1u);
    barrier();
    if (gl_LocalInvocationIndex == 0u && sAlive != 0u) atomicAdd(counters[CULLIDE_COUNTER_ALIVE], sAlive);
}
