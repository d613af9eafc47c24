#pragma once
/// C++ view of shaders/bindings.h: binding points (ISC_BINDING_*) and std430 structs
/// (isc::gl::GpuObject) shared with GLSL.
#include <glm/glm.hpp>

#include <cstdint>

namespace isc::gl {
using uint = std::uint32_t;  ///< GLSL's uint, for the shared structs
using mat4 = glm::mat4;      ///< GLSL's mat4 (column-major, std430-compatible)
using vec4 = glm::vec4;
using uvec4 = glm::uvec4;
}  // namespace isc::gl

#include "common/bindings.h"  // shaders/bindings.h (isc_gl adds shaders/ to the include path)

static_assert(sizeof(isc::gl::GpuObject) == 80, "GpuObject must match its std430 layout");
