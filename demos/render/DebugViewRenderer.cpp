#include "render/DebugViewRenderer.h"

#include <algorithm>
#include <bit>
#include <cstdint>

namespace isc::render {

Result<DebugViewRenderer> DebugViewRenderer::create() {
    DebugViewRenderer r;
    auto range = gl::Program::create({{GL_COMPUTE_SHADER, "render/debug_view.glsl"}}, "#define PASS_RANGE 1\n",
                                     "debug view range");
    if (!range) return fail("DebugViewRenderer::create(): " + range.error().message);
    auto color = gl::Program::create({{GL_COMPUTE_SHADER, "render/debug_view.glsl"}}, "#define PASS_COLOR 1\n",
                                     "debug view colour");
    if (!color) return fail("DebugViewRenderer::create(): " + color.error().message);
    r.range_ = std::move(*range);
    r.color_ = std::move(*color);
    r.rangeBuffer_ = gl::Buffer("debug view range");
    r.rangeBuffer_.allocate(sizeof(std::uint32_t));
    return r;
}

Result<double> DebugViewRenderer::draw(const DetectorDebugView& view, int maxSide) {
    using Format = DetectorDebugView::Format;
    if (view.buffer == 0 || view.width <= 0 || view.height <= 0 || view.offset % 4 != 0)
        return fail("DebugViewRenderer::draw(): view '" + view.name + "' has no buffer, no size or an unaligned offset");
    if (view.format == Format::TileBits && (view.tileSize <= 0 || view.tilesPerRow <= 0 || view.tiles <= 0))
        return fail("DebugViewRenderer::draw(): view '" + view.name + "' (tile bits) has no tile layout");
    const int side = std::max(view.width, view.height);
    const int block = std::max(1, (side + maxSide - 1) / std::max(1, maxSide));
    const int w = (view.width + block - 1) / block, h = (view.height + block - 1) / block;
    if (w != width_ || h != height_) {
        texture_ = gl::Texture::create2D("debug view", GL_RGBA8, w, h);
        texture_.setFilter(GL_NEAREST, GL_NEAREST);
        width_ = w;
        height_ = h;
    }
    const std::uint32_t format = view.format == Format::Counts ? 0u : view.format == Format::TileBits ? 1u : 2u;
    for (gl::Program* p : {&range_, &color_}) {
        p->setUniform("uFormat", format);
        p->setUniform("uOffsetWords", static_cast<std::uint32_t>(view.offset / 4));
        p->setUniform("uSize", glm::uvec2(view.width, view.height));
        p->setUniform("uOutSize", glm::uvec2(w, h));
        p->setUniform("uBlock", static_cast<std::uint32_t>(block));
        p->setUniform("uTileSize", static_cast<std::uint32_t>(std::max(view.tileSize, 1)));
        p->setUniform("uTilesPerRow", static_cast<std::uint32_t>(std::max(view.tilesPerRow, 1)));
        p->setUniform("uTiles", static_cast<std::uint32_t>(std::max(view.tiles, 0)));
    }
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, view.buffer);
    rangeBuffer_.clearZero();
    rangeBuffer_.bindBase(GL_SHADER_STORAGE_BUFFER, 1);
    const GLuint gx = static_cast<GLuint>((w + 7) / 8), gy = static_cast<GLuint>((h + 7) / 8);
    range_.use();
    range_.dispatch(gx, gy);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    texture_.bindImage(0, 0, GL_WRITE_ONLY, GL_RGBA8);
    color_.use();
    color_.dispatch(gx, gy);
    glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
    std::uint32_t largest = 0;
    rangeBuffer_.read(0, sizeof largest, &largest);
    glUseProgram(0);
    if (auto ok = gl::checkError("DebugViewRenderer::draw()"); !ok) return fail(ok.error().message);
    return view.format == Format::Float32 ? double(std::bit_cast<float>(largest)) : double(largest);
}

}  // namespace isc::render
