#pragma once
/// The one way to include OpenGL in bullet-isc: the glad 2 loader (GL 4.5 core), generated at
/// build time. Never include <GL/gl.h> or link libGL: glad dlopens the driver.
#include <glad/gl.h>

#include "isc/core/Result.h"

#include <array>
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

/// Kinds of GL object that bullet-isc's RAII wrappers (isc/gl/*.h) create; MappedBuffer counts
/// buffers mapped through Buffer::mapPersistent() and not yet unmapped.
enum class ObjectKind { Buffer, Texture, Renderbuffer, Framebuffer, VertexArray, Query, Program, Sync, MappedBuffer };
inline constexpr std::size_t kObjectKinds = 9;

/// How many GL objects of each kind bullet-isc holds now, in all contexts: every wrapper counts
/// its object from creation to deletion (or release(), which hands it to the caller). A
/// detector that is destroyed must bring every count back to what it was before it was made
/// (tests/gl/ResourceTest.cpp, tests/robustness; docs/robustness.md, soak). Needs no GL context.
struct LiveObjects {
    std::array<long, kObjectKinds> count{};
    long operator[](ObjectKind k) const { return count[static_cast<std::size_t>(k)]; }
    long total() const;
    /// "buffers=3 textures=0 ... mapped=1".
    std::string describe() const;
};
LiveObjects liveObjects();
/// Name of a kind as describe() prints it ("buffers", "textures", ...).
const char* objectKindName(ObjectKind kind);

namespace detail {
/// Called by the wrappers: `delta` objects of `kind` made (+) or deleted / released (-).
void countObject(ObjectKind kind, int delta);
}  // namespace detail

}  // namespace isc::gl
