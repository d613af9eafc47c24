// CULLIDE conservative rasterization, shared by the compute passes and the occlusion-query
// fragment stage. A fragment is a (pixel, triangle) pair whose closed pixel square overlaps the
// triangle's projection, grown by the item's fattening plus the GPU round-off bound, with the
// depth interval [near, far] that holds the depth of every point of the grown triangle over
// that square. So two triangles that share a point give each other a fragment in the same
// pixel with overlapping intervals, whatever the pixel size: the visibility test can never
// prune a true intersection (Boldt & Meyer section 5's pixel and depth limits, removed).
//
// View: orthographic along world axis w = uAxis, with u = (w + 1) % 3 and v = (w + 2) % 3
// across it; pixel (i, j) spans world [uOrigin.x + i / uInvPixel, +1 pixel) along u,
// likewise along v; depth 0..1 spans [uOrigin.z, uOrigin.z + 1 / uInvDepth] along w.
#ifndef ISC_CULLIDE_RASTER_GLSL
#define ISC_CULLIDE_RASTER_GLSL

#ifdef CULLIDE_MULTIVIEW
// Several views in one dispatch (gl_GlobalInvocationID.y picks the view): the view's
// parameters are copied from the uView* arrays into these globals by cullideSelectView().
#define CULLIDE_MAX_VIEWS 3
uniform uint uViewAxis[CULLIDE_MAX_VIEWS];
uniform vec3 uViewOrigin[CULLIDE_MAX_VIEWS];
uniform float uViewInvPixel[CULLIDE_MAX_VIEWS];
uniform float uViewInvDepth[CULLIDE_MAX_VIEWS];
uniform uvec2 uViewSize[CULLIDE_MAX_VIEWS];
uniform uint uViewBase[CULLIDE_MAX_VIEWS];  // first pixel of the view in the depth words
uint uAxis;
vec3 uOrigin;
float uInvPixel;
float uInvDepth;
uvec2 uSize;
uint uBase;
void cullideSelectView(uint view) {
    uAxis = uViewAxis[view];
    uOrigin = uViewOrigin[view];
    uInvPixel = uViewInvPixel[view];
    uInvDepth = uViewInvDepth[view];
    uSize = uViewSize[view];
    uBase = uViewBase[view];
}
#else
uniform uint uAxis;       // world axis along the view (0 x, 1 y, 2 z)
uniform vec3 uOrigin;     // world coordinates of the view corner along uAxes
uniform float uInvPixel;  // pixels per world unit
uniform float uInvDepth;  // depth units per world unit (1 / depth range)
uniform uvec2 uSize;      // view size in pixels
const uint uBase = 0u;
#endif
uniform float uEpsilon;   // world units: bound on the GPU transform's round-off

struct CullideRaster {
    vec2 a, b, c;      // projected corners, pixels
    float za;          // depth of corner a
    float zLo, zHi;    // the triangle's depth range (not grown)
    float ez;          // growth along the view, depth units
    float zPad;        // ez plus the plane's round-off allowance
    vec2 grad;         // plane slope, depth units per pixel (orient != 0)
    float h;           // half side of the grown pixel square, pixels
    float orient;      // sign of the projected area; 0: (near) edge-on, box coverage only
    ivec4 box;         // pixels x0, y0, x1, y1 (inclusive), clipped to the view
};

vec3 cullideProject(vec3 p) {
    uint u = (uAxis + 1u) % 3u, v = (uAxis + 2u) % 3u;
    return vec3((p[u] - uOrigin.x) * uInvPixel, (p[v] - uOrigin.y) * uInvPixel, (p[uAxis] - uOrigin.z) * uInvDepth);
}

// False when the grown triangle misses the view.
bool cullideSetup(vec3 A, vec3 B, vec3 C, float fatten, out CullideRaster r) {
    float grow = fatten + uEpsilon;
    float ep = grow * uInvPixel;
    vec3 pa = cullideProject(A), pb = cullideProject(B), pc = cullideProject(C);
    r.a = pa.xy;
    r.b = pb.xy;
    r.c = pc.xy;
    r.za = pa.z;
    vec2 lo = min(r.a, min(r.b, r.c)) - vec2(ep);
    vec2 hi = max(r.a, max(r.b, r.c)) + vec2(ep);
    vec2 size = vec2(uSize);
    if (hi.x < 0.0 || hi.y < 0.0 || lo.x >= size.x || lo.y >= size.y) return false;
    lo = max(lo, vec2(0.0));
    hi = min(hi, size - vec2(0.5));
    r.box = ivec4(ivec2(floor(lo)), ivec2(floor(hi)));
    r.h = 0.5 + ep + 1e-3;
    r.zLo = min(pa.z, min(pb.z, pc.z));
    r.zHi = max(pa.z, max(pb.z, pc.z));
    r.ez = grow * uInvDepth;
    vec2 d1 = r.b - r.a, d2 = r.c - r.a, d3 = r.c - r.b;
    float area = d1.x * d2.y - d1.y * d2.x;
    float l2 = max(dot(d1, d1), max(dot(d2, d2), dot(d3, d3)));
    r.orient = 0.0;
    r.grad = vec2(0.0);
    r.zPad = r.ez;
    // Well-conditioned projections only: the slope of an edge-on triangle is noise, and its
    // depth range alone is a valid (looser) bound.
    if (abs(area) > 1e-3 * l2 && abs(area) > 1e-20) {
        float dz1 = pb.z - pa.z, dz2 = pc.z - pa.z;
        r.orient = sign(area);
        r.grad = vec2(dz1 * d2.y - dz2 * d1.y, d1.x * dz2 - d2.x * dz1) / area;
        r.zPad = r.ez + 2e-3 * (r.zHi - r.zLo) + 1e-7;
    }
    return true;
}

// Does the grown triangle reach pixel `pix`, and over which depth interval?
bool cullidePixel(CullideRaster r, ivec2 pix, out float zNear, out float zFar) {
    vec2 q = vec2(pix) + vec2(0.5);
    if (r.orient == 0.0) {
        zNear = r.zLo - r.ez;
        zFar = r.zHi + r.ez;
        return true;
    }
    // Separating axes: the square's (the box loop) and the three edge normals. The largest
    // edge function over the square is its value at the centre plus h (|dx| + |dy|).
    vec2 e = r.b - r.a;
    if (r.orient * (e.x * (q.y - r.a.y) - e.y * (q.x - r.a.x)) + r.h * (abs(e.x) + abs(e.y)) < 0.0) return false;
    e = r.c - r.b;
    if (r.orient * (e.x * (q.y - r.b.y) - e.y * (q.x - r.b.x)) + r.h * (abs(e.x) + abs(e.y)) < 0.0) return false;
    e = r.a - r.c;
    if (r.orient * (e.x * (q.y - r.c.y) - e.y * (q.x - r.c.x)) + r.h * (abs(e.x) + abs(e.y)) < 0.0) return false;
    float zq = r.za + dot(r.grad, q - r.a);
    float s = r.h * (abs(r.grad.x) + abs(r.grad.y));
    zNear = min(max(zq - s, r.zLo), r.zHi) - r.zPad;
    zFar = max(min(zq + s, r.zHi), r.zLo) + r.zPad;
    return true;
}

#endif
