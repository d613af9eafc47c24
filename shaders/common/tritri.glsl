// Conservative triangle-triangle separation test in float (separating axes). A GPU filter in
// front of an exact test: it answers "apart" only when some axis separates the two triangles'
// projections by more than `tolerance` (world units, times the axis length), so that vertex
// positions off by less than about tolerance / 2 (float transforms, rounding of the
// projections) cannot turn touching triangles into "apart". Every candidate axis is a valid
// one (any direction that separates the projections proves the triangles disjoint), so the
// rounding of the axes themselves costs nothing; only the projections' rounding counts.
// Axes: the two normals, the nine edge-edge cross products and the six in-plane edge normals
// (the coplanar case). Degenerate axes (zero length) are skipped; a pair no axis separates is
// "may intersect".
#ifndef ISC_COMMON_TRITRI_GLSL
#define ISC_COMMON_TRITRI_GLSL

// True when axis L separates triangle p from triangle q by more than tolerance * |L|.
bool iscSeparatedOn(vec3 L, vec3 p0, vec3 p1, vec3 p2, vec3 q0, vec3 q1, vec3 q2, float tolerance) {
    float len = length(L);
    if (!(len > 0.0)) return false;
    float a0 = dot(L, p0), a1 = dot(L, p1), a2 = dot(L, p2);
    float b0 = dot(L, q0), b1 = dot(L, q1), b2 = dot(L, q2);
    float pMin = min(a0, min(a1, a2)), pMax = max(a0, max(a1, a2));
    float qMin = min(b0, min(b1, b2)), qMax = max(b0, max(b1, b2));
    float gap = tolerance * len;
    return qMin > pMax + gap || pMin > qMax + gap;
}

// False only when the triangles (p0, p1, p2) and (q0, q1, q2) are certainly more than
// `tolerance` apart along some axis. Coordinates are taken relative to p0 first (smaller
// magnitudes, smaller rounding of the projections).
bool iscTrianglesMayIntersect(vec3 p0, vec3 p1, vec3 p2, vec3 q0, vec3 q1, vec3 q2, float tolerance) {
    vec3 o = p0;
    p0 -= o; p1 -= o; p2 -= o; q0 -= o; q1 -= o; q2 -= o;
    vec3 e[3] = vec3[3](p1 - p0, p2 - p1, p0 - p2);
    vec3 f[3] = vec3[3](q1 - q0, q2 - q1, q0 - q2);
    vec3 n = cross(e[0], e[1]);
    vec3 m = cross(f[0], f[1]);
    if (iscSeparatedOn(n, p0, p1, p2, q0, q1, q2, tolerance)) return false;
    if (iscSeparatedOn(m, p0, p1, p2, q0, q1, q2, tolerance)) return false;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            if (iscSeparatedOn(cross(e[i], f[j]), p0, p1, p2, q0, q1, q2, tolerance)) return false;
    for (int i = 0; i < 3; ++i) {
        if (iscSeparatedOn(cross(n, e[i]), p0, p1, p2, q0, q1, q2, tolerance)) return false;
        if (iscSeparatedOn(cross(m, f[i]), p0, p1, p2, q0, q1, q2, tolerance)) return false;
    }
    return true;
}

#endif
