#pragma once
/// Did any fragment pass (GL_ANY_SAMPLES_PASSED), or how many (GL_SAMPLES_PASSED)?
#include "isc/gl/Query.h"

#include <cstdint>
#include <string_view>

namespace isc::gl {

/// Move-only (holds a Query). Every member needs a current GL context.
class OcclusionQuery {
public:
    OcclusionQuery() noexcept = default;
    /// `target`: GL_ANY_SAMPLES_PASSED (a yes/no, may stop early), GL_ANY_SAMPLES_PASSED_CONSERVATIVE
    /// or GL_SAMPLES_PASSED (a count).
    explicit OcclusionQuery(std::string_view label, GLenum target = GL_ANY_SAMPLES_PASSED)
        : query_(label, target) {}

    void begin() { query_.begin(); }
    void end() { query_.end(); }
    bool ready() const { return query_.ready(); }
    /// Waits for the result: true when at least one sample passed.
    bool anySamplesPassed() const { return query_.result() != 0; }
    /// Waits for the result: samples passed (GL_SAMPLES_PASSED) or 0/1 for the ANY targets.
    std::uint64_t samplesPassed() const { return query_.result(); }
    /// glBeginConditionalRender(id, mode): later draws run only when samples passed.
    void beginConditionalRender(GLenum mode = GL_QUERY_WAIT) const { glBeginConditionalRender(query_.id(), mode); }
    static void endConditionalRender() { glEndConditionalRender(); }

    const Query& query() const { return query_; }

private:
    Query query_;
};

}  // namespace isc::gl
