#pragma once
// Small GL helpers shared by the peel detector's passes: timestamp spans, 1-D dispatches that
// respect the per-dimension workgroup limit, and the driver limits the passes check. Private to
// plugin/detectors/peel. Needs a current GL context.
#include "isc/core/Result.h"
#include "isc/gl/Buffer.h"
#include "isc/gl/Gl.h"
#include "isc/gl/Program.h"
#include "isc/gl/Query.h"
#include "isc/gl/ReadbackBuffer.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace isc::peel {

using Clock = std::chrono::steady_clock;
inline double msSince(Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

/// True when the current context lists the extension.
bool hasGlExtension(std::string_view name);

/// Driver limits the passes size their buffers and dispatches by (queried once per detector).
struct GlLimits {
    std::size_t maxStorageBlock = 0;  ///< GL_MAX_SHADER_STORAGE_BLOCK_SIZE, bytes
    std::uint32_t maxGroupsX = 0;     ///< GL_MAX_COMPUTE_WORK_GROUP_COUNT[0]
    std::uint32_t maxGroupsY = 0;     ///< GL_MAX_COMPUTE_WORK_GROUP_COUNT[1]
    static GlLimits query();
    /// An Error naming the limit when `bytes` (what `what` needs) does not fit one storage block.
    [[nodiscard]] Result<void> checkBlock(std::size_t bytes, std::string_view what) const;
};

/// Workgroups for `items` at `perGroup` items each, split over x and y as
/// common/dispatch.glsl reads them back. An Error names the limit when even that cannot hold it.
[[nodiscard]] Result<void> dispatch1d(const gl::Program& program, std::size_t items, std::uint32_t perGroup,
                                      const GlLimits& limits, std::string_view what);

/// GPU time between marks through GL_TIMESTAMP queries (on Mesa llvmpipe a GL_TIME_ELAPSED
/// query around compute dispatches returned the absolute time, not the span). Queries are
/// pooled across calls; results are read after the call's fence, so reading never stalls.
class StageClock {
public:
    /// Starts a call: marks of the previous call are forgotten.
    void reset() { used_ = 0; stages_.clear(); }
    /// Ends the current stage (if any) and starts `stage` (an index into the caller's names).
    void mark(int stage);
    /// Closes the last stage.
    void stop() { mark(-1); }
    /// Milliseconds per stage index, summed over the call (index < count).
    std::vector<double> totals(int count) const;

private:
    std::vector<std::unique_ptr<gl::Query>> pool_;
    std::vector<int> stages_;  // stage started at each used query (-1: a stop)
    std::size_t used_ = 0;
};

/// The read-back buffers of the passes (moved to plugin/gl for every detector).
using gl::ReadbackBuffer;

}  // namespace isc::peel
