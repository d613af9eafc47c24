// CInDeR detector, readback=mipmap (papers/000 section 4.3.2.2): one level of the paper's
// mip-map reduction of the colour buffer, each pixel of the smaller level the largest code of
// its 2 x 2 source pixels. Two pairs whose hits fall in one reduced pixel keep only one.
layout(local_size_x = 64) in;

#include "cinder/bindings.h"

layout(std430, binding = CD_BINDING_COLOUR) buffer CdColour { uint colour[]; };

uniform uint uSrcOffset;
uniform uint uDstOffset;
uniform uvec2 uDstSize;  // the source is twice as wide and high

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= uDstSize.x * uDstSize.y) return;
    uint x = i % uDstSize.x, y = i / uDstSize.x;
    uint w = uDstSize.x * 2u;
    uint base = uSrcOffset + (2u * y) * w + 2u * x;
    colour[uDstOffset + i] = max(max(colour[base], colour[base + 1u]), max(colour[base + w], colour[base + w + 1u]));
}
