#include "isc/gl/VertexArray.h"

#include "isc/gl/Buffer.h"

#include <utility>

namespace isc::gl {

VertexArray::VertexArray(std::string_view label) {
    glCreateVertexArrays(1, &id_);
    detail::countObject(ObjectKind::VertexArray, 1);
    if (!label.empty()) glObjectLabel(GL_VERTEX_ARRAY, id_, static_cast<GLsizei>(label.size()), label.data());
}

VertexArray::VertexArray(VertexArray&& o) noexcept : id_(std::exchange(o.id_, 0)) {}

VertexArray& VertexArray::operator=(VertexArray&& o) noexcept {
    if (this != &o) std::swap(id_, o.id_);
    return *this;
}

VertexArray::~VertexArray() {
    if (id_ != 0) {
        glDeleteVertexArrays(1, &id_);
        detail::countObject(ObjectKind::VertexArray, -1);
    }
}

void VertexArray::setVertexBuffer(GLuint binding, const Buffer& buffer, std::size_t offset, int stride, GLuint divisor) {
    glVertexArrayVertexBuffer(id_, binding, buffer.id(), static_cast<GLintptr>(offset), stride);
    glVertexArrayBindingDivisor(id_, binding, divisor);
}

void VertexArray::setAttribute(GLuint index, GLuint binding, int size, GLenum type, GLuint relativeOffset,
                               bool normalized) {
    glEnableVertexArrayAttrib(id_, index);
    glVertexArrayAttribFormat(id_, index, size, type, normalized ? GL_TRUE : GL_FALSE, relativeOffset);
    glVertexArrayAttribBinding(id_, index, binding);
}

void VertexArray::setIntegerAttribute(GLuint index, GLuint binding, int size, GLenum type, GLuint relativeOffset) {
    glEnableVertexArrayAttrib(id_, index);
    glVertexArrayAttribIFormat(id_, index, size, type, relativeOffset);
    glVertexArrayAttribBinding(id_, index, binding);
}

void VertexArray::setElementBuffer(const Buffer& buffer) { glVertexArrayElementBuffer(id_, buffer.id()); }

void VertexArray::bind() const { glBindVertexArray(id_); }

GLuint VertexArray::release() {
    if (id_ != 0) detail::countObject(ObjectKind::VertexArray, -1);
    return std::exchange(id_, 0);
}

}  // namespace isc::gl
