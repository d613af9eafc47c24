#include "isc/gl/Fence.h"

#include <utility>

#include <omp.h>

namespace isc::gl {

Fence Fence::insert() {
    Fence f;
    f.sync_ = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    if (f.sync_ != nullptr) detail::countObject(ObjectKind::Sync, 1);
    glFlush();  // so that a wait in another context (or a later poll) can see it signalled
    return f;
}

Fence::Fence(Fence&& o) noexcept : sync_(std::exchange(o.sync_, nullptr)) {}

Fence& Fence::operator=(Fence&& o) noexcept {
    if (this != &o) std::swap(sync_, o.sync_);
    return *this;
}

Fence::~Fence() {
    if (sync_ != nullptr) {
        glDeleteSync(sync_);
        detail::countObject(ObjectKind::Sync, -1);
    }
}

bool Fence::signaled() const {
    if (sync_ == nullptr) return true;
    GLint value = GL_UNSIGNALED;
    glGetSynciv(sync_, GL_SYNC_STATUS, 1, nullptr, &value);
    return value == GL_SIGNALED;
}

bool Fence::wait(std::uint64_t timeoutNs) const {
    if (sync_ == nullptr) return true;
    const GLenum r = glClientWaitSync(sync_, GL_SYNC_FLUSH_COMMANDS_BIT, timeoutNs);
    return r == GL_ALREADY_SIGNALED || r == GL_CONDITION_SATISFIED;
}

GLsync Fence::release() {
    if (sync_ != nullptr) detail::countObject(ObjectKind::Sync, -1);
    return std::exchange(sync_, nullptr);
}

bool waitInTeam(const Fence& fence, std::uint64_t timeoutNs, int team,
                const std::function<void(const std::atomic<bool>& signalled)>& work) {
    std::atomic<bool> signalled{false};
    bool finished = false;
    if (team <= 1) {
        finished = fence.wait(timeoutNs);
        signalled.store(true, std::memory_order_relaxed);
        if (work) work(signalled);
        return finished;
    }
#pragma omp parallel num_threads(team)
    {
#pragma omp master
        {
            finished = fence.wait(timeoutNs);
            signalled.store(true, std::memory_order_relaxed);
        }
        if (work) work(signalled);
    }
    return finished;
}

}  // namespace isc::gl
