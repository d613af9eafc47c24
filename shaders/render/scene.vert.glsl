// SceneRenderer: objects drawn by glMultiDrawElementsIndirect from GpuScene::writeDrawCommands.
// Positions are pulled from the scene SSBOs by gl_VertexID (= index + baseVertex); the object id
// arrives as an instanced attribute whose value is baseInstance (= object id).
#include "common/scene.glsl"

layout(location = ISC_ATTRIB_OBJECT_ID) in uint objectId;

uniform mat4 viewProjection;

out vec3 worldPosition;
flat out uint object;

void main() {
    worldPosition = sceneWorldVertex(objectId, uint(gl_VertexID));
    object = objectId;
    gl_Position = viewProjection * vec4(worldPosition, 1.0);
}
