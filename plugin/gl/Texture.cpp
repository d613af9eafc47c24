#include "isc/gl/Texture.h"

#include "isc/core/Assert.h"

#include <utility>

namespace isc::gl {

namespace {
void label(GLenum type, GLuint id, std::string_view name) {
    if (!name.empty()) glObjectLabel(type, id, static_cast<GLsizei>(name.size()), name.data());
}
}  // namespace

Texture Texture::create2D(std::string_view name, GLenum internalFormat, int width, int height, int levels) {
    ISC_ASSERT(width > 0 && height > 0 && levels > 0, "Texture::create2D(): size and levels must be positive");
    Texture t;
    glCreateTextures(GL_TEXTURE_2D, 1, &t.id_);
    detail::countObject(ObjectKind::Texture, 1);
    label(GL_TEXTURE, t.id_, name);
    glTextureStorage2D(t.id_, levels, internalFormat, width, height);
    t.target_ = GL_TEXTURE_2D;
    t.internalFormat_ = internalFormat;
    t.width_ = width;
    t.height_ = height;
    t.layers_ = 1;
    t.levels_ = levels;
    t.setFilter(GL_NEAREST, GL_NEAREST);
    t.setWrap(GL_CLAMP_TO_EDGE);
    return t;
}

Texture Texture::create2DArray(std::string_view name, GLenum internalFormat, int width, int height, int layers,
                               int levels) {
    ISC_ASSERT(width > 0 && height > 0 && layers > 0 && levels > 0,
               "Texture::create2DArray(): size, layers and levels must be positive");
    Texture t;
    glCreateTextures(GL_TEXTURE_2D_ARRAY, 1, &t.id_);
    detail::countObject(ObjectKind::Texture, 1);
    label(GL_TEXTURE, t.id_, name);
    glTextureStorage3D(t.id_, levels, internalFormat, width, height, layers);
    t.target_ = GL_TEXTURE_2D_ARRAY;
    t.internalFormat_ = internalFormat;
    t.width_ = width;
    t.height_ = height;
    t.layers_ = layers;
    t.levels_ = levels;
    t.setFilter(GL_NEAREST, GL_NEAREST);
    t.setWrap(GL_CLAMP_TO_EDGE);
    return t;
}

Texture::Texture(Texture&& o) noexcept
    : id_(std::exchange(o.id_, 0)), target_(o.target_), internalFormat_(o.internalFormat_), width_(o.width_),
      height_(o.height_), layers_(o.layers_), levels_(o.levels_) {}

Texture& Texture::operator=(Texture&& o) noexcept {
    if (this != &o) {
        std::swap(id_, o.id_);
        std::swap(target_, o.target_);
        std::swap(internalFormat_, o.internalFormat_);
        std::swap(width_, o.width_);
        std::swap(height_, o.height_);
        std::swap(layers_, o.layers_);
        std::swap(levels_, o.levels_);
    }
    return *this;
}

Texture::~Texture() {
    if (id_ != 0) {
        glDeleteTextures(1, &id_);
        detail::countObject(ObjectKind::Texture, -1);
    }
}

void Texture::bindUnit(GLuint unit) const { glBindTextureUnit(unit, id_); }

void Texture::bindImage(GLuint unit, int level, GLenum access, GLenum format) const {
    glBindImageTexture(unit, id_, level, target_ == GL_TEXTURE_2D_ARRAY ? GL_TRUE : GL_FALSE, 0, access, format);
}

void Texture::bindImageLayer(GLuint unit, int level, int layer, GLenum access, GLenum format) const {
    ISC_ASSERT(layer >= 0 && layer < layers_, "Texture::bindImageLayer(): layer out of range");
    glBindImageTexture(unit, id_, level, GL_FALSE, layer, access, format);
}

void Texture::setFilter(GLenum minFilter, GLenum magFilter) {
    glTextureParameteri(id_, GL_TEXTURE_MIN_FILTER, static_cast<GLint>(minFilter));
    glTextureParameteri(id_, GL_TEXTURE_MAG_FILTER, static_cast<GLint>(magFilter));
}

void Texture::setWrap(GLenum wrap) {
    glTextureParameteri(id_, GL_TEXTURE_WRAP_S, static_cast<GLint>(wrap));
    glTextureParameteri(id_, GL_TEXTURE_WRAP_T, static_cast<GLint>(wrap));
}

void Texture::clear(int level, GLenum format, GLenum type, const void* data) {
    glClearTexImage(id_, level, format, type, data);
}

void Texture::upload(int level, int x, int y, int width, int height, GLenum format, GLenum type, const void* data,
                     int layer) {
    if (target_ == GL_TEXTURE_2D_ARRAY)
        glTextureSubImage3D(id_, level, x, y, layer, width, height, 1, format, type, data);
    else
        glTextureSubImage2D(id_, level, x, y, width, height, format, type, data);
}

void Texture::read(int level, GLenum format, GLenum type, std::size_t bytes, void* out) const {
    // Tightly packed rows, whatever the caller set before.
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glGetTextureImage(id_, level, format, type, static_cast<GLsizei>(bytes), out);
}

void Texture::generateMipmaps() { glGenerateTextureMipmap(id_); }

GLuint Texture::release() {
    if (id_ != 0) detail::countObject(ObjectKind::Texture, -1);
    return std::exchange(id_, 0);
}

}  // namespace isc::gl
