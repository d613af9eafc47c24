// SceneRenderer::drawLines: the segment's colour.
in vec4 color;
out vec4 fragColor;

void main() { fragColor = color; }
