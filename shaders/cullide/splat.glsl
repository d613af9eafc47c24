// CULLIDE reducePCS along one axis, as compute passes over the conservative fragments of
// every item still in the PCS (one thread per triangle slot). The paper renders the PCS in
// one order and then in the reverse order, each object's occlusion query against the depth
// buffer of the objects drawn before it; by Lemma 2 of Govindaraju et al. (Boldt & Meyer's
// Lemma 3.2) that is the same as testing each object against the nearest fragment of all the
// OTHER objects at each pixel. Here that nearest other is found exactly with two depth
// words per pixel and direction:
//   uMode 0: key = (near << idBits | group) atomicMin'ed (front), (far << idBits | group)
//            atomicMax'ed (back): the nearest (farthest) fragment and its group;
//   uMode 1: second = nearest near (farthest far) over fragments of another group than the key's;
//   uMode 0 with uPushSecond (the default since 2026-11-29, eighth session; Passes::setPushSecond):
//            the second made in the same pass, so no mode 1 pass: whatever the key's atomic
//            displaces, or a fragment the key rejects, goes to the second's word when its group
//            is not the key's it met (below: the same second as mode 1's, in any order);
//   uMode 2: the query: a fragment is hidden from the front when its far >= the nearest other
//            near at its pixel (the key's unless the key is its own group, then the second);
//            likewise from the back. Marks per item (CULLIDE_MARK_FRONT / _BACK).
// Depth is quantised conservatively (near down, far up), so touching fragments hide each other.
// With CULLIDE_BOXES a work index is a world box (a cluster's) instead of a triangle: every
// pixel its rectangle touches gets the box's whole depth range (a box holds its triangles, so
// whatever hides a triangle hides its box: still conservative).
// CULLIDE_LANES threads share one work index, taking its pixels in turn (a box covers many
// pixels: one thread per box would leave the GPU nearly idle and serialise its atomics), and
// an item's slot may have several work indices (its split, bindings.h), so that no thread visits
// more than about CULLIDE_PIXELS_PER_THREAD pixels: Mesa's llvmpipe silently ends a loop after
// 65535 iterations, which lost a ground box's fragments (the ground bug), and on a GPU one
// thread walking a whole view would stall its pass.
// CULLIDE_MULTIVIEW: gl_GlobalInvocationID.y is the view; all views of a level in one
// dispatch per mode, each view in its own range of depth words (uBase) and its own two bits
// of marks (view v: bits 2v, 2v + 1). Every view then sees the whole PCS of the level: the
// paper's reducePCS per axis, run side by side instead of one after the other.
#include "common/scene.glsl"
#include "cullide/items.glsl"
#include "cullide/raster.glsl"

#ifndef CULLIDE_LANES
#define CULLIDE_LANES 1
#endif

layout(local_size_x = 64) in;

layout(std430, binding = CULLIDE_BINDING_ALIVE) buffer CullideAlive { uint alive[]; };
layout(std430, binding = CULLIDE_BINDING_MARKS) buffer CullideMarks { uint marks[]; };
layout(std430, binding = CULLIDE_BINDING_DEPTH) buffer CullideDepth { uint depth[]; };
layout(std430, binding = CULLIDE_BINDING_COUNTERS) buffer CullideCounters { uint counters[]; };
#ifdef CULLIDE_BOXES
layout(std430, binding = CULLIDE_BINDING_BOXES) readonly buffer CullideBoxes { vec4 boxes[]; };
uniform uint uWorldBoxBase;  // boxes: first per-call world box (the local boxes come first)
#endif

layout(std430, binding = CULLIDE_BINDING_CLIP) readonly buffer CullideClip { vec4 clipBoxes[]; };
uniform uint uClip;  // 1: the query (mode 2) only looks inside each item's clip box
uniform uint uClipPerGroup;  // 1: clip boxes are per group (object), not per item

// CULLIDE_SPLAT_MODE (the triangles' key and query passes, Passes::compile): a program for
// one mode, so that the driver allocates registers for that mode's path only (more workgroups
// per SM); else the mode is a uniform.
#ifdef CULLIDE_SPLAT_MODE
#define uMode uint(CULLIDE_SPLAT_MODE)
#else
uniform uint uMode;
#endif
uniform uint uPushSecond;  // 1: mode 0 makes the second too (above); mode 1 is not run
uniform uint uIdBits;  // low bits of a key: the group; the rest: the quantised depth
uniform uint uPerSlot; // 1: every triangle slot is a member of the PCS (alive, marks per work index)

uniform uint uItemPerGroup;  // 1: one workgroup per item, an invocation per slot (items of <= 64 unsplit slots)
// Mode 2 with uGroupUpdate (one workgroup per item, one view, the items the members:
// Passes::setGroupUpdate): the workgroup ORs its invocations' marks in shared memory and its
// first invocation applies the update pass's rule to its item (not hidden from both sides:
// out of the PCS; else counted in CULLIDE_COUNTER_ALIVE); no marks written, no update pass.
uniform uint uGroupUpdate;
uniform uint uFullMask;
// One work index (its slot in the views); returns its fragments (mode 0).
uint cullideSplat() {
    uint work, lane, item;
    if (uItemPerGroup != 0u) {
        // No search for the item (a dead item's workgroup leaves at once; see Passes::splitItems).
        item = gl_WorkGroupID.x;
        if (item >= uItemCount || gl_LocalInvocationID.x >= items[item].slotCount) return 0u;
        work = items[item].workStart + gl_LocalInvocationID.x;
        lane = 0u;
    } else {
        work = gl_GlobalInvocationID.x / uint(CULLIDE_LANES);
        lane = gl_GlobalInvocationID.x % uint(CULLIDE_LANES);
        if (work >= uWorkCount) return 0u;
        item = cullideItemOf(work);
    }
#ifdef CULLIDE_MULTIVIEW
    uint view = gl_GlobalInvocationID.y;
    cullideSelectView(view);
    uint markShift = 2u * view;
#else
    uint markShift = 0u;
#endif
    CullideItem it = items[item];
    // A slot's pixels are shared by `split` threads (bindings.h: bounded loops), lane after lane.
    uint split = max(it.flags >> CULLIDE_ITEM_SPLIT_SHIFT, 1u);
    uint local = work - it.workStart;
    uint slot = local / split;
    uint first = (local % split) * uint(CULLIDE_LANES) + lane;
    uint stride = split * uint(CULLIDE_LANES);
    uint unit = uPerSlot != 0u ? it.memberStart + slot : item;
    if (alive[unit] == 0u) return 0u;
#ifdef CULLIDE_BOXES
    vec3 wlo, whi;
    if ((it.flags & CULLIDE_ITEM_LOCAL_BOXES) != 0u) {
        // A local box posed by the object's model matrix: centre moved, half extents through
        // |rotation| (the world box of its 8 corners), grown by the fattening and the round-off bound.
        uint b = 2u * (it.firstSlot + slot);
        vec3 c = 0.5 * (boxes[b].xyz + boxes[b + 1u].xyz), e = 0.5 * (boxes[b + 1u].xyz - boxes[b].xyz);
        mat4 m = sceneObjects[it.object].model;
        vec3 wc = (m * vec4(c, 1.0)).xyz;
        vec3 we = abs(m[0].xyz) * e.x + abs(m[1].xyz) * e.y + abs(m[2].xyz) * e.z;
        vec3 g = vec3(it.fatten + uEpsilon);
        wlo = wc - we - g;
        whi = wc + we + g;
    } else {
        uint b = 2u * (uWorldBoxBase + it.firstSlot + slot);
        wlo = boxes[b].xyz;
        whi = boxes[b + 1u].xyz;
    }
    vec3 lo = cullideProject(wlo), hi = cullideProject(whi);
    float ep = uEpsilon * uInvPixel, ez = uEpsilon * uInvDepth;
    if (hi.x + ep < 0.0 || hi.y + ep < 0.0 || lo.x - ep >= float(uSize.x) || lo.y - ep >= float(uSize.y)) return 0u;
    ivec4 box = ivec4(ivec2(floor(max(lo.xy - ep, vec2(0.0)))), ivec2(floor(min(hi.xy + ep, vec2(uSize) - 0.5))));
#else
    uint triangle = slotTriangles[it.firstSlot + slot];
    vec3 A, B, C;
    sceneWorldTriangle(it.object, triangle, A, B, C);
    CullideRaster r;
    if (!cullideSetup(A, B, C, it.fatten, r)) return 0u;
    ivec4 box = r.box;
#endif

    // The query only where the item can touch another object: a contact point lies in its
    // object's box met with a partner's, so a fragment elsewhere (or the part of its depth
    // interval outside) cannot be where it collides. Conservative: the contact point's
    // fragment, clipped, still holds its depth. Occluders (modes 0 and 1) are not clipped.
    float zClipLo = -1e30, zClipHi = 1e30;
    if (uMode == 2u && uClip != 0u) {
        uint ci = uClipPerGroup != 0u ? it.group : item;
        vec3 clo = cullideProject(clipBoxes[2u * ci].xyz), chi = cullideProject(clipBoxes[2u * ci + 1u].xyz);
        float cep = uEpsilon * uInvPixel, cez = uEpsilon * uInvDepth;
        // Clamped before the conversion: an empty clip box is +-infinity (then nothing is queried).
        vec2 lim = vec2(uSize) + 1.0;
        box.xy = max(box.xy, ivec2(floor(clamp(clo.xy - cep, vec2(-1.0), lim))));
        box.zw = min(box.zw, ivec2(floor(clamp(chi.xy + cep, vec2(-1.0), lim))));
        if (box.x > box.z || box.y > box.w) return 0u;
        zClipLo = clo.z - cez;
        zClipHi = chi.z + cez;
    }

    uint dBits = 32u - uIdBits;
    float scale = float((1u << min(dBits, 24u)) - 4u);
    uint idMask = (1u << uIdBits) - 1u;
    uint group = it.group;
    uint found = 0u, fragments = 0u;
    int bw = box.z - box.x + 1;
    int count = bw * (box.w - box.y + 1);
    if (uMode == 0u && uint(count) > stride * CULLIDE_MAX_PIXELS_PER_THREAD) atomicAdd(counters[CULLIDE_COUNTER_CUT], 1u);
    for (int k = int(first); k < count; k += int(stride)) {
        int y = box.y + k / bw, x = box.x + k % bw;
        float zNear, zFar;
#ifdef CULLIDE_BOXES
        zNear = lo.z - ez;
        zFar = hi.z + ez;
#else
        if (!cullidePixel(r, ivec2(x, y), zNear, zFar)) continue;
#endif
        zNear = max(zNear, zClipLo);
        zFar = min(zFar, zClipHi);
        if (zNear > zFar) continue;
        uint qNear = uint(clamp(floor(zNear * scale) - 1.0, 0.0, scale)) + 1u;
        uint qFar = uint(clamp(ceil(zFar * scale) + 1.0, 0.0, scale)) + 1u;
        uint p = 4u * (uBase + uint(y) * uSize.x + uint(x));
        if (uMode == 0u && uPushSecond != 0u) {
            // The key and the second in one pass. w: the key word's value this fragment met (a
            // read at or past ours, even a stale one, is a value the word held; else the
            // atomic's old value). Past ours (w > kNear): ours displaced w, which leaves the key
            // for good, so w goes to the second when of another group than ours; else the key
            // rejected ours, which goes to the second when w's group is not ours. Why the second
            // is then mode 1's exactly: every value pushed is a real fragment's, and one of the
            // final key's group is pushed only when a value of another group, at least as near,
            // was in the key, which (or a nearer one of its group that displaced it) is pushed
            // when it leaves; and each other group's nearest fragment is either pushed or was in
            // the key, out of which only a nearer value of another group can displace it (pushing
            // it). The cleared word (no fragment) is never pushed. Likewise from the back with max.
            uint kNear = (qNear << uIdBits) | group, kFar = (qFar << uIdBits) | group;
            uint w = depth[p];
            if (w > kNear) w = atomicMin(depth[p], kNear);
            if (w != 0xFFFFFFFFu && (w & idMask) != group) {
                uint q = max(w, kNear) >> uIdBits;
                if (depth[p + 1u] > q) atomicMin(depth[p + 1u], q);
            }
            w = depth[p + 2u];
            if (w < kFar) w = atomicMax(depth[p + 2u], kFar);
            if (w != 0u && (w & idMask) != group) {
                uint q = min(w, kFar) >> uIdBits;
                if (depth[p + 3u] < q) atomicMax(depth[p + 3u], q);
            }
            ++fragments;
        } else if (uMode == 0u) {
            // Read first: a word only ever moves one way (min: down, max: up), so a value read at
            // or past ours, even a stale one, means the word already is: no atomic needed (in a
            // pile most fragments lose; their atomics on the same words were the pass's cost).
            uint kNear = (qNear << uIdBits) | group, kFar = (qFar << uIdBits) | group;
            if (depth[p] > kNear) atomicMin(depth[p], kNear);
            if (depth[p + 2u] < kFar) atomicMax(depth[p + 2u], kFar);
            ++fragments;
        } else if (uMode == 1u) {
            if ((depth[p] & idMask) != group && depth[p + 1u] > qNear) atomicMin(depth[p + 1u], qNear);
            if ((depth[p + 2u] & idMask) != group && depth[p + 3u] < qFar) atomicMax(depth[p + 3u], qFar);
        } else {
            uint key = depth[p];
            uint other = (key & idMask) == group ? depth[p + 1u] : (key >> uIdBits);
            if (qFar >= other) found |= CULLIDE_MARK_FRONT;
            key = depth[p + 2u];
            other = (key & idMask) == group ? depth[p + 3u] : (key >> uIdBits);
            if (qNear <= other) found |= CULLIDE_MARK_BACK;
            if (found == (CULLIDE_MARK_FRONT | CULLIDE_MARK_BACK)) break;
        }
    }
    found <<= markShift;
    if (uMode == 2u && uGroupUpdate != 0u) return found;  // (main() ORs them in the workgroup)
    if (found != 0u && (marks[unit] & found) != found) atomicOr(marks[unit], found);
    return fragments;
}

shared uint sFragments;
shared uint sFound;  // mode 2 with uGroupUpdate: the item's marks, ORed over the workgroup

void main() {
    if (uMode == 2u && uGroupUpdate != 0u) {
        // uGroupUpdate is uniform: every invocation meets both barriers.
        if (gl_LocalInvocationIndex == 0u) sFound = 0u;
        barrier();
        uint found = cullideSplat();
        if (found != 0u) atomicOr(sFound, found);
        barrier();
        uint item = gl_WorkGroupID.x;
        if (gl_LocalInvocationIndex == 0u && item < uItemCount && alive[item] != 0u) {
            if ((sFound & uFullMask) != uFullMask) alive[item] = 0u;
            else atomicAdd(counters[CULLIDE_COUNTER_ALIVE], 1u);
        }
        return;
    }
    if (uMode != 0u) {
        cullideSplat();
        return;
    }
    // Mode 0 counts fragments: summed in the workgroup first, one global atomic per workgroup
    // (not one per invocation on the same word). uMode is uniform: every invocation meets both barriers.
    if (gl_LocalInvocationIndex == 0u) sFragments = 0u;
    barrier();
    uint fragments = cullideSplat();
    if (fragments != 0u) atomicAdd(sFragments, fragments);
    barrier();
    if (gl_LocalInvocationIndex == 0u && sFragments != 0u) atomicAdd(counters[CULLIDE_COUNTER_FRAGMENTS], sFragments);
}
