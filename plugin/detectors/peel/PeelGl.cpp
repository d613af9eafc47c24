#include "PeelGl.h"

#include <algorithm>
#include <string>

namespace isc::peel {

bool hasGlExtension(std::string_view name) {
    GLint count = 0;
    glGetIntegerv(GL_NUM_EXTENSIONS, &count);
    for (GLint i = 0; i < count; ++i) {
        const auto* e = reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, static_cast<GLuint>(i)));
        if (e != nullptr && name == e) return true;
    }
    return false;
}

GlLimits GlLimits::query() {
    GlLimits l;
    GLint64 block = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
    l.maxStorageBlock = static_cast<std::size_t>(std::max<GLint64>(block, 0));
    GLint x = 0, y = 0;
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &x);
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 1, &y);
    l.maxGroupsX = static_cast<std::uint32_t>(std::max(x, 1));
    l.maxGroupsY = static_cast<std::uint32_t>(std::max(y, 1));
    return l;
}

Result<void> GlLimits::checkBlock(std::size_t bytes, std::string_view what) const {
    if (bytes <= maxStorageBlock) return {};
    return fail("peel: " + std::string(what) + ": " + std::to_string(bytes) +
                " bytes needed in one storage buffer, above this GL's GL_MAX_SHADER_STORAGE_BLOCK_SIZE (" +
                std::to_string(maxStorageBlock) + "); use fewer or smaller objects per call, a lower "
                "resolution, or a GPU with larger storage blocks");
}

Result<void> dispatch1d(const gl::Program& program, std::size_t items, std::uint32_t perGroup, const GlLimits& limits,
                        std::string_view what) {
    const std::size_t groups = (items + perGroup - 1) / perGroup;
    if (groups == 0) return {};
    const std::size_t x = std::min<std::size_t>(groups, limits.maxGroupsX);
    const std::size_t y = (groups + x - 1) / x;
    if (y > limits.maxGroupsY)
        return fail("peel: " + std::string(what) + ": " + std::to_string(groups) +
                    " workgroups needed, above GL_MAX_COMPUTE_WORK_GROUP_COUNT (" + std::to_string(limits.maxGroupsX) + " x " +
                    std::to_string(limits.maxGroupsY) + ")");
    program.dispatch(static_cast<GLuint>(x), static_cast<GLuint>(y), 1);
    return {};
}

void StageClock::mark(int stage) {
    if (used_ == pool_.size()) pool_.push_back(std::make_unique<gl::Query>("peel stage", GL_TIMESTAMP));
    glQueryCounter(pool_[used_]->id(), GL_TIMESTAMP);
    stages_.push_back(stage);
    ++used_;
}

std::vector<double> StageClock::totals(int count) const {
    std::vector<double> ms(static_cast<std::size_t>(std::max(count, 0)), 0.0);
    for (std::size_t i = 0; i + 1 < used_; ++i) {
        const int s = stages_[i];
        if (s < 0 || s >= count) continue;
        ms[static_cast<std::size_t>(s)] += double(pool_[i + 1]->result() - pool_[i]->result()) * 1e-6;
    }
    return ms;
}

}  // namespace isc::peel
