// SceneRenderer: flat Lambert shading (face normal from screen-space derivatives), per-object colour.
#include "common/bindings.h"

layout(std430, binding = ISC_BINDING_FIRST_FREE) readonly buffer RenderColors {
    vec4 objectColors[];
};

uniform vec3 cameraPosition;
uniform vec3 lightDirection;  // direction the light travels, unit

in vec3 worldPosition;
flat in uint object;
out vec4 fragColor;

void main() {
    vec3 n = normalize(cross(dFdx(worldPosition), dFdy(worldPosition)));
    // Face the camera, whatever the winding and the window's y direction.
    if (dot(n, cameraPosition - worldPosition) < 0.0) n = -n;
    float diffuse = max(dot(n, -lightDirection), 0.0);
    vec3 base = objectColors[object].rgb;
    fragColor = vec4(base * (0.25 + 0.75 * diffuse), 1.0);
}
