// CULLIDE, the paper's form: the fragment of the conservative rasterization at this pixel
// (discarded when the grown triangle misses the pixel square), with its near or far depth:
// near when writing the front depth buffer or querying against the back one, far otherwise.
#include "cullide/raster.glsl"

flat in vec3 vA;
flat in vec3 vB;
flat in vec3 vC;
flat in float vFatten;

uniform uint uDepthOut;  // 0: near, 1: far

void main() {
    CullideRaster r;
    if (!cullideSetup(vA, vB, vC, vFatten, r)) discard;
    float zNear, zFar;
    if (!cullidePixel(r, ivec2(gl_FragCoord.xy), zNear, zFar)) discard;
    gl_FragDepth = clamp(uDepthOut == 0u ? zNear : zFar, 0.0, 1.0);
}
