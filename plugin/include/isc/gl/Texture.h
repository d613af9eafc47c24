#pragma once
/// A GL texture with immutable storage (2D or 2D array, with mip levels).
#include "isc/gl/Gl.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace isc::gl {

/// Move-only RAII texture: copy deleted, moves noexcept, a moved-from Texture holds id 0.
/// Made by create2D / create2DArray. Every member needs a current GL context.
class Texture {
public:
    /// No GL object (id 0).
    Texture() noexcept = default;
    /// GL_TEXTURE_2D, `internalFormat` (e.g. GL_RGBA8, GL_R32UI, GL_DEPTH_COMPONENT32F),
    /// `width` x `height` texels, `levels` mip levels. Filtering GL_NEAREST, clamp to edge.
    static Texture create2D(std::string_view label, GLenum internalFormat, int width, int height, int levels = 1);
    /// GL_TEXTURE_2D_ARRAY with `layers` layers.
    static Texture create2DArray(std::string_view label, GLenum internalFormat, int width, int height,
                                 int layers, int levels = 1);
    Texture(Texture&& other) noexcept;
    Texture& operator=(Texture&& other) noexcept;
    Texture(const Texture&) = delete;
    Texture& operator=(const Texture&) = delete;
    ~Texture();

    /// glBindTextureUnit(unit, id): for samplers.
    void bindUnit(GLuint unit) const;
    /// glBindImageTexture: `access` GL_READ_ONLY / GL_WRITE_ONLY / GL_READ_WRITE, `format`
    /// the image format in the shader (e.g. GL_R32UI). Arrays bind all layers (layered).
    void bindImage(GLuint unit, int level, GLenum access, GLenum format) const;
    /// Binds one layer of an array texture as a 2D image.
    void bindImageLayer(GLuint unit, int level, int layer, GLenum access, GLenum format) const;
    /// glTextureParameteri min/mag filter.
    void setFilter(GLenum minFilter, GLenum magFilter);
    /// glTextureParameteri wrap S and T.
    void setWrap(GLenum wrap);
    /// Fills a whole level with one value (glClearTexImage); `data` null means zero.
    void clear(int level, GLenum format, GLenum type, const void* data = nullptr);
    /// glTextureSubImage2D (2D) or glTextureSubImage3D of one layer (array, `layer`).
    void upload(int level, int x, int y, int width, int height, GLenum format, GLenum type,
                const void* data, int layer = 0);
    /// glGetTextureImage of a whole level into `out` of `bytes` bytes (all layers for arrays).
    void read(int level, GLenum format, GLenum type, std::size_t bytes, void* out) const;
    /// glGenerateTextureMipmap.
    void generateMipmaps();

    GLuint id() const { return id_; }
    GLenum target() const { return target_; }
    GLenum internalFormat() const { return internalFormat_; }
    int width() const { return width_; }
    int height() const { return height_; }
    int layers() const { return layers_; }
    int levels() const { return levels_; }
    /// Gives up ownership: returns the id and leaves this Texture holding 0.
    GLuint release();

private:
    GLuint id_ = 0;
    GLenum target_ = 0;
    GLenum internalFormat_ = 0;
    int width_ = 0, height_ = 0, layers_ = 0, levels_ = 0;
};

}  // namespace isc::gl
