// CULLIDE: two cluster items tested as oriented boxes (the pair walk's test since 2026-11-28's
// sixth session: chain.glsl mode 0, pairwalk.glsl). Each rigid cluster's local box (boxes[],
// indexed by itemBoxes[]) turned by its object's model matrix, by the separating axis theorem
// over the 15 axes; conservative as chain.glsl explains. The including shader declares boxes[],
// itemBoxes[], the items (cullide/items.glsl), the scene (common/scene.glsl) and uEpsilon.
#ifndef CULLIDE_OBB_GLSL
#define CULLIDE_OBB_GLSL

struct CullideObb {
    vec3 c;      // centre (world)
    mat3 e;      // half edges (world): the model's columns times the local half extents
    float grow;  // fattening + round-off bound (world)
};

// Item t's oriented box; false for a deformed item (no local box).
bool cullideObbOf(uint t, out CullideObb o) {
    uint bi = itemBoxes[t];
    if (bi == CULLIDE_ITEM_BOX_DEFORMED) return false;
    vec3 lo = boxes[2u * bi].xyz, hi = boxes[2u * bi + 1u].xyz;
    CullideItem it = items[t];
    mat4 m = sceneObjects[it.object].model;
    vec3 h = 0.5 * (hi - lo);
    o.c = (m * vec4(0.5 * (lo + hi), 1.0)).xyz;
    o.e = mat3(m[0].xyz * h.x, m[1].xyz * h.y, m[2].xyz * h.z);
    o.grow = it.fatten + uEpsilon;
    return true;
}

// True when axis L separates the two boxes beyond every round-off (L need not be unit).
bool cullideObbAxisApart(CullideObb a, CullideObb b, vec3 L) {
    float d = abs(dot(b.c - a.c, L));
    float ra = abs(dot(a.e[0], L)) + abs(dot(a.e[1], L)) + abs(dot(a.e[2], L));
    float rb = abs(dot(b.e[0], L)) + abs(dot(b.e[1], L)) + abs(dot(b.e[2], L));
    float g = (a.grow + b.grow) * length(L);
    return d - (ra + rb + g) > 1e-5 * (d + ra + rb + g);
}

bool cullideObbApart(CullideObb a, CullideObb b) {
    for (int i = 0; i < 3; ++i) {
        if (cullideObbAxisApart(a, b, cross(a.e[(i + 1) % 3], a.e[(i + 2) % 3]))) return true;
        if (cullideObbAxisApart(a, b, cross(b.e[(i + 1) % 3], b.e[(i + 2) % 3]))) return true;
    }
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            if (cullideObbAxisApart(a, b, cross(a.e[i], b.e[j]))) return true;
    return false;
}

#endif
