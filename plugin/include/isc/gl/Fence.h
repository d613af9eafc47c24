#pragma once
/// A GL sync object (glFenceSync): wait for the GPU to reach a point in the command stream.
#include "isc/gl/Gl.h"

#include <cstdint>

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

}  // namespace isc::gl
