#include "isc/gl/Framebuffer.h"

#include "isc/gl/Renderbuffer.h"
#include "isc/gl/Texture.h"

#include <utility>
#include <vector>

namespace isc::gl {

Framebuffer::Framebuffer(std::string_view label) {
    glCreateFramebuffers(1, &id_);
    detail::countObject(ObjectKind::Framebuffer, 1);
    if (!label.empty()) glObjectLabel(GL_FRAMEBUFFER, id_, static_cast<GLsizei>(label.size()), label.data());
}

Framebuffer::Framebuffer(Framebuffer&& o) noexcept : id_(std::exchange(o.id_, 0)) {}

Framebuffer& Framebuffer::operator=(Framebuffer&& o) noexcept {
    if (this != &o) std::swap(id_, o.id_);
    return *this;
}

Framebuffer::~Framebuffer() {
    if (id_ != 0) {
        glDeleteFramebuffers(1, &id_);
        detail::countObject(ObjectKind::Framebuffer, -1);
    }
}

void Framebuffer::attachTexture(GLenum attachment, const Texture& texture, int level) {
    glNamedFramebufferTexture(id_, attachment, texture.id(), level);
}

void Framebuffer::attachTextureLayer(GLenum attachment, const Texture& texture, int level, int layer) {
    glNamedFramebufferTextureLayer(id_, attachment, texture.id(), level, layer);
}

void Framebuffer::attachRenderbuffer(GLenum attachment, const Renderbuffer& renderbuffer) {
    glNamedFramebufferRenderbuffer(id_, attachment, GL_RENDERBUFFER, renderbuffer.id());
}

void Framebuffer::setDrawBuffers(std::initializer_list<GLenum> buffers) {
    std::vector<GLenum> list(buffers);
    glNamedFramebufferDrawBuffers(id_, static_cast<GLsizei>(list.size()), list.data());
}

void Framebuffer::setReadBuffer(GLenum buffer) { glNamedFramebufferReadBuffer(id_, buffer); }

Result<void> Framebuffer::checkComplete() const {
    const GLenum status = glCheckNamedFramebufferStatus(id_, GL_FRAMEBUFFER);
    if (status == GL_FRAMEBUFFER_COMPLETE) return {};
    char label[128] = {};
    GLsizei length = 0;
    if (id_ != 0) glGetObjectLabel(GL_FRAMEBUFFER, id_, sizeof label, &length, label);
    return fail("Framebuffer::checkComplete(): framebuffer " + std::to_string(id_) +
                (length > 0 ? " '" + std::string(label, static_cast<std::size_t>(length)) + "'" : std::string()) +
                " is incomplete: " + enumName(status));
}

void Framebuffer::bind(GLenum target) const { glBindFramebuffer(target, id_); }

void Framebuffer::bindDefault(GLenum target) { glBindFramebuffer(target, 0); }

void Framebuffer::clearColor(int drawBuffer, float r, float g, float b, float a) {
    const GLfloat c[4] = {r, g, b, a};
    glClearNamedFramebufferfv(id_, GL_COLOR, drawBuffer, c);
}

void Framebuffer::clearColorUint(int drawBuffer, unsigned r, unsigned g, unsigned b, unsigned a) {
    const GLuint c[4] = {r, g, b, a};
    glClearNamedFramebufferuiv(id_, GL_COLOR, drawBuffer, c);
}

void Framebuffer::clearDepth(float depth) { glClearNamedFramebufferfv(id_, GL_DEPTH, 0, &depth); }

GLuint Framebuffer::release() {
    if (id_ != 0) detail::countObject(ObjectKind::Framebuffer, -1);
    return std::exchange(id_, 0);
}

}  // namespace isc::gl
