#pragma once
/// A GL renderbuffer (depth or colour attachment that is never sampled).
#include "isc/gl/Gl.h"

#include <string_view>

namespace isc::gl {

/// Move-only RAII renderbuffer: copy deleted, moves noexcept, a moved-from one holds id 0.
/// Every member needs a current GL context.
class Renderbuffer {
public:
    Renderbuffer() noexcept = default;
    /// Storage of `internalFormat` (e.g. GL_DEPTH24_STENCIL8, GL_RGBA8), `samples` 0 for no MSAA.
    Renderbuffer(std::string_view label, GLenum internalFormat, int width, int height, int samples = 0);
    Renderbuffer(Renderbuffer&& other) noexcept;
    Renderbuffer& operator=(Renderbuffer&& other) noexcept;
    Renderbuffer(const Renderbuffer&) = delete;
    Renderbuffer& operator=(const Renderbuffer&) = delete;
    ~Renderbuffer();

    GLuint id() const { return id_; }
    int width() const { return width_; }
    int height() const { return height_; }
    GLenum internalFormat() const { return internalFormat_; }
    GLuint release();

private:
    GLuint id_ = 0;
    GLenum internalFormat_ = 0;
    int width_ = 0, height_ = 0;
};

}  // namespace isc::gl
