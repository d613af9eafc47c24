// Binding points and std430 structs shared by C++ (through "isc/gl/Bindings.h") and GLSL
// (#include "common/bindings.h"). Keep it valid in both languages: #define, struct, no C++ types.
#ifndef ISC_SHADERS_BINDINGS_H
#define ISC_SHADERS_BINDINGS_H

#ifdef __cplusplus
namespace isc::gl {
#endif

// Shader storage binding points of the GpuScene (bound by GpuScene::bind()).
#define ISC_BINDING_SCENE_VERTICES 0  // vec4 vertices[]: local positions, w = 1
#define ISC_BINDING_SCENE_INDICES 1   // uint indices[]: 3 per triangle, relative to the object's firstVertex
#define ISC_BINDING_SCENE_OBJECTS 2   // GpuObject objects[]: indexed by ObjectId
// Storage binding points from here up are free for detectors (each detector documents its own).
#define ISC_BINDING_FIRST_FREE 4

// Vertex attribute location of the object id in GpuScene's VAO (divisor 1, so
// DrawElementsIndirectCommand::baseInstance = object id reaches the vertex shader).
#define ISC_ATTRIB_OBJECT_ID 0

// One object of the scene, std430 (80 bytes). `model` maps local to world (column-major).
// Triangle t of the object has corners vertices[firstVertex + indices[3 * (firstTriangle + t) + c]].
struct GpuObject {
    mat4 model;
    uint firstVertex;    // first vertex of the object's range in the vertex buffer
    uint firstTriangle;  // first triangle of its mesh in the index buffer
    uint triangleCount;  // triangles of its mesh
    uint meshId;         // MeshId; the top bit (ISC_OBJECT_INACTIVE) is set for inactive objects
};

// Set in GpuObject::meshId when the object is inactive or its pose is not finite.
#define ISC_OBJECT_INACTIVE 0x80000000u

#ifdef __cplusplus
}  // namespace isc::gl
#endif

#endif
