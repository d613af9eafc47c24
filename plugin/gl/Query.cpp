#include "isc/gl/Query.h"

#include <utility>

namespace isc::gl {

Query::Query(std::string_view label, GLenum target) : target_(target) {
    glCreateQueries(target, 1, &id_);
    detail::countObject(ObjectKind::Query, 1);
    if (!label.empty()) glObjectLabel(GL_QUERY, id_, static_cast<GLsizei>(label.size()), label.data());
}

Query::Query(Query&& o) noexcept : id_(std::exchange(o.id_, 0)), target_(o.target_) {}

Query& Query::operator=(Query&& o) noexcept {
    if (this != &o) {
        std::swap(id_, o.id_);
        std::swap(target_, o.target_);
    }
    return *this;
}

Query::~Query() {
    if (id_ != 0) {
        glDeleteQueries(1, &id_);
        detail::countObject(ObjectKind::Query, -1);
    }
}

void Query::begin() { glBeginQuery(target_, id_); }
void Query::end() { glEndQuery(target_); }

bool Query::ready() const {
    GLint available = 0;
    glGetQueryObjectiv(id_, GL_QUERY_RESULT_AVAILABLE, &available);
    return available != 0;
}

std::uint64_t Query::result() const {
    GLuint64 value = 0;
    glGetQueryObjectui64v(id_, GL_QUERY_RESULT, &value);
    return value;
}

GLuint Query::release() {
    if (id_ != 0) detail::countObject(ObjectKind::Query, -1);
    return std::exchange(id_, 0);
}

}  // namespace isc::gl
