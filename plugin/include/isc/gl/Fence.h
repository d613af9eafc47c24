#pragma once
/// A GL sync object (glFenceSync): wait for the GPU to reach a point in the command stream.
#include "isc/gl/Gl.h"

#include <atomic>
#include <cstdint>
#include <functional>

namespace isc::gl {

/// Move-only RAII fence: copy deleted, moves noexcept, a moved-from Fence holds no sync.
/// Every member needs a current GL context.
class Fence {
public:
    Fence() noexcept = default;
    /// Inserts a fence after the commands issued so far (glFenceSync) and flushes.
    static Fence insert();
    Fence(Fence&& other) noexcept;
    Fence& operator=(Fence&& other) noexcept;
    Fence(const Fence&) = delete;
    Fence& operator=(const Fence&) = delete;
    ~Fence();

    /// Non-blocking: true once the GPU passed the fence (or no fence is held).
    bool signaled() const;
    /// Waits up to `timeoutNs` nanoseconds (glClientWaitSync with flush). True when signaled,
    /// false on timeout or failure.
    bool wait(std::uint64_t timeoutNs = UINT64_MAX) const;

    GLsync sync() const { return sync_; }
    bool isValid() const { return sync_ != nullptr; }
    GLsync release();

private:
    GLsync sync_ = nullptr;
};

/// Waits for `fence` (up to `timeoutNs`) on this thread as the master of an OpenMP team of
/// `team` threads, while the others run `work` (if any) with a flag that is set once the wait is
/// over: CPU work that stops when the GPU is done (speculation), and a team that is awake for
/// the parallel work after the wait. With team <= 1 this thread waits alone, then runs `work`.
/// True when the fence signaled.
bool waitInTeam(const Fence& fence, std::uint64_t timeoutNs, int team,
                const std::function<void(const std::atomic<bool>& signalled)>& work);

}  // namespace isc::gl
