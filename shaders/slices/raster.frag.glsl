// Slices detector, raster passes (papers/004 section 3 step 3): each fragment codes its depth as
// bits of its object's words. SL_FILL (GL_XOR): every slice whose centre lies beyond the
// fragment is toggled, so after all faces a bit says "the slice centre is inside" (parity of
// the crossings in front of it; needs closed meshes). Otherwise (GL_OR, the paper's pass):
// the one slice the fragment lies in. Defines: SL_TARGETS (1 or 2), SL_FILL, SL_SHADER_OR
// (no logic op: atomics on a storage buffer instead of colour outputs).
#include "slices/bindings.h"

flat in uint vDraw;
flat in uvec4 vTileRect;
noperspective in float vDepth;

layout(std430, binding = SL_BINDING_VIEWS) readonly buffer SlViews { SlView views[]; };
layout(std430, binding = SL_BINDING_DRAWS) readonly buffer SlDraws { SlDraw draws[]; };

#ifdef SL_SHADER_OR
layout(std430, binding = SL_BINDING_BITS) buffer SlBits { uint bits[]; };
uniform uint uAtlasWidth;
#else
layout(location = 0) out uvec4 oTarget0;
#if SL_TARGETS > 1
layout(location = 1) out uvec4 oTarget1;
#endif
#endif

// Bits [lo, hi) of the slice mask that fall in word w (slices 32w .. 32w + 31).
uint rangeMask(int lo, int hi, int w) {
    int a = clamp(lo - 32 * w, 0, 32), b = clamp(hi - 32 * w, 0, 32);
    if (b <= a) return 0u;
    uint upper = b == 32 ? 0xFFFFFFFFu : ((1u << uint(b)) - 1u);
    return upper & ~((1u << uint(a)) - 1u);
}

void main() {
    uvec2 p = uvec2(gl_FragCoord.xy);
    if (p.x < vTileRect.x || p.y < vTileRect.y || p.x >= vTileRect.z || p.y >= vTileRect.w) discard;
    SlDraw d = draws[vDraw];
    int S = int(views[d.view].slices);
#ifdef SL_FILL
    // Slices whose centre (k + 0.5) / S lies strictly beyond the fragment.
    int lo = clamp(int(floor(vDepth * float(S) - 0.5)) + 1, 0, S);
    int hi = S;
#else
    if (vDepth < 0.0 || vDepth > 1.0) discard;
    int lo = min(int(vDepth * float(S)), S - 1);
    int hi = lo + 1;
#endif
    uint m[4] = uint[4](rangeMask(lo, hi, 0), rangeMask(lo, hi, 1), rangeMask(lo, hi, 2), rangeMask(lo, hi, 3));
#ifdef SL_SHADER_OR
    uint pixel = p.y * uAtlasWidth + p.x;
    for (int t = 0; t < SL_TARGETS; ++t) {
        for (int c = 0; c < 2; ++c) {
            uint word = m[2 * t + c];
            if (word == 0u) continue;
            uint index = (pixel * uint(SL_TARGETS) + uint(t)) * 4u + d.side * 2u + uint(c);
#ifdef SL_FILL
            atomicXor(bits[index], word);
#else
            atomicOr(bits[index], word);
#endif
        }
    }
#else
    oTarget0 = d.side == 0u ? uvec4(m[0], m[1], 0u, 0u) : uvec4(0u, 0u, m[0], m[1]);
#if SL_TARGETS > 1
    oTarget1 = d.side == 0u ? uvec4(m[2], m[3], 0u, 0u) : uvec4(0u, 0u, m[2], m[3]);
#endif
#endif
}
