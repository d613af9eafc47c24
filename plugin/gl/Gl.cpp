#include "isc/gl/Gl.h"

#include "isc/gl/Buffer.h"

#include <atomic>
#include <cstdio>

namespace isc::gl {

namespace {
std::array<std::atomic<long>, kObjectKinds> liveCounts{};
}  // namespace

void detail::countObject(ObjectKind kind, int delta) {
    liveCounts[static_cast<std::size_t>(kind)].fetch_add(delta, std::memory_order_relaxed);
}

LiveObjects liveObjects() {
    LiveObjects o;
    for (std::size_t i = 0; i < kObjectKinds; ++i) o.count[i] = liveCounts[i].load(std::memory_order_relaxed);
    return o;
}

long LiveObjects::total() const {
    long t = 0;
    for (long c : count) t += c;
    return t;
}

const char* objectKindName(ObjectKind kind) {
    switch (kind) {
        case ObjectKind::Buffer: return "buffers";
        case ObjectKind::Texture: return "textures";
        case ObjectKind::Renderbuffer: return "renderbuffers";
        case ObjectKind::Framebuffer: return "framebuffers";
        case ObjectKind::VertexArray: return "vertex_arrays";
        case ObjectKind::Query: return "queries";
        case ObjectKind::Program: return "programs";
        case ObjectKind::Sync: return "syncs";
        case ObjectKind::MappedBuffer: return "mapped";
    }
    return "?";
}

std::string LiveObjects::describe() const {
    std::string s;
    for (std::size_t i = 0; i < kObjectKinds; ++i) {
        if (i) s += ' ';
        s += objectKindName(static_cast<ObjectKind>(i));
        s += '=';
        s += std::to_string(count[i]);
    }
    return s;
}

std::string enumName(GLenum value) {
    switch (value) {
        case GL_NO_ERROR: return "GL_NO_ERROR";
        case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
        case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
        case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
        case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
        case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
        case GL_STACK_OVERFLOW: return "GL_STACK_OVERFLOW";
        case GL_STACK_UNDERFLOW: return "GL_STACK_UNDERFLOW";
        case GL_FRAMEBUFFER_COMPLETE: return "GL_FRAMEBUFFER_COMPLETE";
        case GL_FRAMEBUFFER_UNDEFINED: return "GL_FRAMEBUFFER_UNDEFINED";
        case GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT: return "GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT";
        case GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT: return "GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT";
        case GL_FRAMEBUFFER_INCOMPLETE_DRAW_BUFFER: return "GL_FRAMEBUFFER_INCOMPLETE_DRAW_BUFFER";
        case GL_FRAMEBUFFER_INCOMPLETE_READ_BUFFER: return "GL_FRAMEBUFFER_INCOMPLETE_READ_BUFFER";
        case GL_FRAMEBUFFER_UNSUPPORTED: return "GL_FRAMEBUFFER_UNSUPPORTED";
        case GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE: return "GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE";
        case GL_FRAMEBUFFER_INCOMPLETE_LAYER_TARGETS: return "GL_FRAMEBUFFER_INCOMPLETE_LAYER_TARGETS";
        default: break;
    }
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%04x", value);
    return buf;
}

Result<void> checkError(std::string_view where) {
    std::string errors;
    // A lost context keeps returning errors; 16 is more than any real sequence.
    for (int i = 0; i < 16; ++i) {
        const GLenum e = glGetError();
        if (e == GL_NO_ERROR) break;
        if (!errors.empty()) errors += ", ";
        errors += enumName(e);
    }
    const std::size_t held = bufferBytes(), limit = bufferByteLimit();
    const auto mib = [](std::size_t b) { return std::to_string((b + (1u << 19)) >> 20) + " MiB"; };
    if (errors.find("GL_OUT_OF_MEMORY") != std::string::npos)
        errors += " (the driver is out of memory; bullet-isc holds " + mib(held) + " of GL buffers)";
    if (limit != 0 && held > limit) {
        if (!errors.empty()) errors += "; ";
        errors += "over the GL buffer budget: bullet-isc holds " + std::to_string(held) + " bytes (" + mib(held) +
                  ") of GL buffers, the limit is " + std::to_string(limit) + " bytes (" + mib(limit) +
                  ", gl::setBufferByteLimit or ISC_GL_BUFFER_LIMIT_MB); use a smaller resolution or fewer "
                  "objects, or raise the limit";
    }
    if (errors.empty()) return {};
    return fail(std::string(where) + ": " + errors);
}

}  // namespace isc::gl
