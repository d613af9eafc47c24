// SceneRenderer: anti-aliased grid lines every `spacing` world units on the ground plane.
uniform float spacing;
uniform vec3 groundColor;
uniform vec3 lineColor;
in vec3 worldPosition;
out vec4 fragColor;

void main() {
    vec2 p = worldPosition.xz / spacing;
    vec2 w = fwidth(p);
    vec2 g = abs(fract(p - 0.5) - 0.5) / max(w, vec2(1e-6));
    float line = 1.0 - min(min(g.x, g.y), 1.0);
    fragColor = vec4(mix(groundColor, lineColor, line), 1.0);
}
