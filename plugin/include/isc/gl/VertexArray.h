#pragma once
/// A GL vertex array object. Core profile needs one bound for any draw, even with vertex
/// pulling from storage buffers (then an empty one does).
#include "isc/gl/Gl.h"

#include <cstddef>
#include <string_view>

namespace isc::gl {

class Buffer;

/// Move-only RAII vertex array: copy deleted, moves noexcept, a moved-from one holds id 0.
/// Every member needs a current GL context.
class VertexArray {
public:
    VertexArray() noexcept = default;
    /// glCreateVertexArrays, labelled; no attributes (ready for vertex pulling).
    explicit VertexArray(std::string_view label);
    VertexArray(VertexArray&& other) noexcept;
    VertexArray& operator=(VertexArray&& other) noexcept;
    VertexArray(const VertexArray&) = delete;
    VertexArray& operator=(const VertexArray&) = delete;
    ~VertexArray();

    /// glVertexArrayVertexBuffer(binding, buffer, offset, stride) + binding divisor.
    void setVertexBuffer(GLuint binding, const Buffer& buffer, std::size_t offset, int stride, GLuint divisor = 0);
    /// Float attribute `index` read from `binding`: `size` components of `type` at `relativeOffset`.
    void setAttribute(GLuint index, GLuint binding, int size, GLenum type, GLuint relativeOffset = 0,
                      bool normalized = false);
    /// Integer attribute (glVertexArrayAttribIFormat): e.g. an object id.
    void setIntegerAttribute(GLuint index, GLuint binding, int size, GLenum type, GLuint relativeOffset = 0);
    /// glVertexArrayElementBuffer.
    void setElementBuffer(const Buffer& buffer);
    void bind() const;

    GLuint id() const { return id_; }
    GLuint release();

private:
    GLuint id_ = 0;
};

}  // namespace isc::gl
