#pragma once
/// A GL framebuffer object: render targets for headless rendering.
#include "isc/gl/Gl.h"

#include <initializer_list>
#include <string_view>

namespace isc::gl {

class Texture;
class Renderbuffer;

/// Move-only RAII framebuffer: copy deleted, moves noexcept, a moved-from one holds id 0.
/// Attachments are not owned: keep the textures alive. Every member needs a current GL context.
class Framebuffer {
public:
    Framebuffer() noexcept = default;
    /// glCreateFramebuffers, labelled.
    explicit Framebuffer(std::string_view label);
    Framebuffer(Framebuffer&& other) noexcept;
    Framebuffer& operator=(Framebuffer&& other) noexcept;
    Framebuffer(const Framebuffer&) = delete;
    Framebuffer& operator=(const Framebuffer&) = delete;
    ~Framebuffer();

    /// `attachment`: GL_COLOR_ATTACHMENTi, GL_DEPTH_ATTACHMENT, GL_DEPTH_STENCIL_ATTACHMENT.
    /// Array textures are attached layered (all layers).
    void attachTexture(GLenum attachment, const Texture& texture, int level = 0);
    /// One layer of an array texture.
    void attachTextureLayer(GLenum attachment, const Texture& texture, int level, int layer);
    void attachRenderbuffer(GLenum attachment, const Renderbuffer& renderbuffer);
    /// glNamedFramebufferDrawBuffers (default: GL_COLOR_ATTACHMENT0 only).
    void setDrawBuffers(std::initializer_list<GLenum> buffers);
    /// glNamedFramebufferReadBuffer.
    void setReadBuffer(GLenum buffer);
    /// Error naming the status (e.g. "GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT") and the label.
    [[nodiscard]] Result<void> checkComplete() const;
    /// glBindFramebuffer(target, id). Does not set the viewport.
    void bind(GLenum target = GL_FRAMEBUFFER) const;
    /// Binds the default framebuffer (0) to `target`.
    static void bindDefault(GLenum target = GL_FRAMEBUFFER);
    /// glClearNamedFramebufferfv on colour draw buffer `drawBuffer`.
    void clearColor(int drawBuffer, float r, float g, float b, float a);
    /// glClearNamedFramebufferuiv on an integer colour draw buffer.
    void clearColorUint(int drawBuffer, unsigned r, unsigned g = 0, unsigned b = 0, unsigned a = 0);
    /// glClearNamedFramebufferfv on the depth buffer.
    void clearDepth(float depth = 1.0f);

    GLuint id() const { return id_; }
    GLuint release();

private:
    GLuint id_ = 0;
};

}  // namespace isc::gl
