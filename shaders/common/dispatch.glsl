// One-dimensional work over a grid of workgroups split across x and y: some drivers
// (llvmpipe among them) allow at most 65535 workgroups per dimension. The C++ side
// (plugin/detectors/peel/PeelGl.h, dispatch1d) and the indirect-argument shader
// (peel/args.glsl) split a count the same way; shaders bound-check the flat index.
#ifndef ISC_COMMON_DISPATCH_GLSL
#define ISC_COMMON_DISPATCH_GLSL

// Macros, not functions: gl_WorkGroupSize exists only after the shader's local_size layout,
// which usually follows the includes.
#define iscFlatInvocation() (gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x)
#define iscFlatWorkGroup() (gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x)

#endif
