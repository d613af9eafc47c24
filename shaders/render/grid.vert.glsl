// SceneRenderer: the ground square (two triangles from gl_VertexID 0..5) on y = height.
uniform mat4 viewProjection;
uniform float height;
uniform float halfSize;
out vec3 worldPosition;

void main() {
    const vec2 corners[6] = vec2[](vec2(-1, -1), vec2(1, -1), vec2(1, 1), vec2(-1, -1), vec2(1, 1), vec2(-1, 1));
    vec2 c = corners[gl_VertexID] * halfSize;
    worldPosition = vec3(c.x, height, c.y);
    gl_Position = viewProjection * vec4(worldPosition, 1.0);
}
