#pragma once
/// A GL query object of any target (GL_TIME_ELAPSED, GL_SAMPLES_PASSED, GL_ANY_SAMPLES_PASSED,
/// GL_PRIMITIVES_GENERATED, ...). GpuTimer and OcclusionQuery are the common uses.
#include "isc/gl/Gl.h"

#include <cstdint>
#include <string_view>

namespace isc::gl {

/// Move-only RAII query: copy deleted, moves noexcept, a moved-from one holds id 0.
/// Every member needs a current GL context.
class Query {
public:
    Query() noexcept = default;
    /// glCreateQueries(target), labelled.
    Query(std::string_view label, GLenum target);
    Query(Query&& other) noexcept;
    Query& operator=(Query&& other) noexcept;
    Query(const Query&) = delete;
    Query& operator=(const Query&) = delete;
    ~Query();

    /// glBeginQuery(target, id). One query of a target may be active at a time.
    void begin();
    /// glEndQuery(target).
    void end();
    /// True when the result is available (GL_QUERY_RESULT_AVAILABLE); never blocks.
    bool ready() const;
    /// The result (GL_QUERY_RESULT, 64-bit), waiting for the GPU when needed.
    std::uint64_t result() const;

    GLuint id() const { return id_; }
    GLenum target() const { return target_; }
    GLuint release();

private:
    GLuint id_ = 0;
    GLenum target_ = 0;
};

}  // namespace isc::gl
