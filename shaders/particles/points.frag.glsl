// isc demo particles: round points with a little shading.
in vec3 vColor;
out vec4 fragColor;

void main() {
    vec2 d = gl_PointCoord * 2.0 - 1.0;
    float r2 = dot(d, d);
    if (r2 > 1.0) discard;
    fragColor = vec4(vColor * (0.6 + 0.4 * sqrt(1.0 - r2)), 1.0);
}
