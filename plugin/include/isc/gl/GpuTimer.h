#pragma once
/// GPU time of a span of GL commands through a GL_TIME_ELAPSED query.
#include "isc/gl/Query.h"

#include <string_view>

namespace isc::gl {

/// Move-only (holds a Query). GL_TIME_ELAPSED queries do not nest: one timer active at a time.
/// Every member needs a current GL context.
class GpuTimer {
public:
    GpuTimer() noexcept = default;
    explicit GpuTimer(std::string_view label) : query_(label, GL_TIME_ELAPSED) {}

    void begin() { query_.begin(); }
    void end() { query_.end(); }
    /// True when the elapsed time is available; never blocks.
    bool ready() const { return query_.ready(); }
    /// GPU time between begin() and end() in milliseconds, waiting for the result.
    double elapsedMs() const { return static_cast<double>(query_.result()) * 1e-6; }
    /// In nanoseconds, waiting for the result.
    std::uint64_t elapsedNs() const { return query_.result(); }

    const Query& query() const { return query_; }

private:
    Query query_;
};

}  // namespace isc::gl
