// GpuScene storage buffers and fetch helpers, for compute, vertex and fragment shaders.
// Usage: #include "common/scene.glsl" (it includes bindings.h). Define ISC_SCENE_WRITABLE
// before including to drop the readonly qualifiers.
#ifndef ISC_COMMON_SCENE_GLSL
#define ISC_COMMON_SCENE_GLSL

#include "common/bindings.h"

#ifdef ISC_SCENE_WRITABLE
#define ISC_SCENE_ACCESS
#else
#define ISC_SCENE_ACCESS readonly
#endif

layout(std430, binding = ISC_BINDING_SCENE_VERTICES) ISC_SCENE_ACCESS buffer IscSceneVertices {
    vec4 sceneVertices[];
};
layout(std430, binding = ISC_BINDING_SCENE_INDICES) ISC_SCENE_ACCESS buffer IscSceneIndices {
    uint sceneIndices[];
};
layout(std430, binding = ISC_BINDING_SCENE_OBJECTS) ISC_SCENE_ACCESS buffer IscSceneObjects {
    GpuObject sceneObjects[];
};

// True when the object takes part (active, finite pose).
bool sceneObjectActive(uint object) {
    return (sceneObjects[object].meshId & ISC_OBJECT_INACTIVE) == 0u;
}

// Index (into sceneVertices) of corner `corner` (0..2) of triangle `triangle` of `object`.
uint sceneVertexIndex(uint object, uint triangle, uint corner) {
    GpuObject o = sceneObjects[object];
    return o.firstVertex + sceneIndices[3u * (o.firstTriangle + triangle) + corner];
}

// Local-space position of a corner.
vec3 sceneLocalCorner(uint object, uint triangle, uint corner) {
    return sceneVertices[sceneVertexIndex(object, triangle, corner)].xyz;
}

// World-space position of a corner (model matrix applied).
vec3 sceneWorldCorner(uint object, uint triangle, uint corner) {
    return (sceneObjects[object].model * vec4(sceneLocalCorner(object, triangle, corner), 1.0)).xyz;
}

// World-space position of vertex `vertexIndex` (an absolute index into sceneVertices, such as
// gl_VertexID in an indirect draw from GpuScene::writeDrawCommands) of `object`.
vec3 sceneWorldVertex(uint object, uint vertexIndex) {
    return (sceneObjects[object].model * vec4(sceneVertices[vertexIndex].xyz, 1.0)).xyz;
}

// The three world-space corners of a triangle.
void sceneWorldTriangle(uint object, uint triangle, out vec3 a, out vec3 b, out vec3 c) {
    GpuObject o = sceneObjects[object];
    uint base = 3u * (o.firstTriangle + triangle);
    a = (o.model * vec4(sceneVertices[o.firstVertex + sceneIndices[base + 0u]].xyz, 1.0)).xyz;
    b = (o.model * vec4(sceneVertices[o.firstVertex + sceneIndices[base + 1u]].xyz, 1.0)).xyz;
    c = (o.model * vec4(sceneVertices[o.firstVertex + sceneIndices[base + 2u]].xyz, 1.0)).xyz;
}

#endif
