#pragma once
/// The one way to include OpenGL in bullet-isc: the glad 2 loader (GL 4.5 core), generated at
/// build time. Never include <GL/gl.h> or link libGL: glad dlopens the driver.
#include <glad/gl.h>

#include "isc/core/Result.h"

#include <string>
#include <string_view>

namespace isc::gl {

/// Drains glGetError(). Returns an error naming `where` and every pending GL error
/// (e.g. "after peel dispatch: GL_INVALID_OPERATION") or success when none is pending.
/// Use at a few fixed check points (after a dispatch, after a read-back). Needs a current GL context.
[[nodiscard]] Result<void> checkError(std::string_view where);

/// Name of a GL enum used in messages ("GL_INVALID_VALUE", "GL_FRAMEBUFFER_UNSUPPORTED",
/// or "0x1234" when unknown).
std::string enumName(GLenum value);

}  // namespace isc::gl
