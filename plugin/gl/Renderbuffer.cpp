#include "isc/gl/Renderbuffer.h"

#include "isc/core/Assert.h"

#include <utility>

namespace isc::gl {

Renderbuffer::Renderbuffer(std::string_view label, GLenum internalFormat, int width, int height, int samples)
    : internalFormat_(internalFormat), width_(width), height_(height) {
    ISC_ASSERT(width > 0 && height > 0, "Renderbuffer::Renderbuffer(): size must be positive");
    glCreateRenderbuffers(1, &id_);
    detail::countObject(ObjectKind::Renderbuffer, 1);
    if (!label.empty()) glObjectLabel(GL_RENDERBUFFER, id_, static_cast<GLsizei>(label.size()), label.data());
    if (samples > 0)
        glNamedRenderbufferStorageMultisample(id_, samples, internalFormat, width, height);
    else
        glNamedRenderbufferStorage(id_, internalFormat, width, height);
}

Renderbuffer::Renderbuffer(Renderbuffer&& o) noexcept
    : id_(std::exchange(o.id_, 0)), internalFormat_(o.internalFormat_), width_(o.width_), height_(o.height_) {}

Renderbuffer& Renderbuffer::operator=(Renderbuffer&& o) noexcept {
    if (this != &o) {
        std::swap(id_, o.id_);
        std::swap(internalFormat_, o.internalFormat_);
        std::swap(width_, o.width_);
        std::swap(height_, o.height_);
    }
    return *this;
}

Renderbuffer::~Renderbuffer() {
    if (id_ != 0) {
        glDeleteRenderbuffers(1, &id_);
        detail::countObject(ObjectKind::Renderbuffer, -1);
    }
}

GLuint Renderbuffer::release() {
    if (id_ != 0) detail::countObject(ObjectKind::Renderbuffer, -1);
    return std::exchange(id_, 0);
}

}  // namespace isc::gl
