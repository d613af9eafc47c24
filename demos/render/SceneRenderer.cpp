#include "render/SceneRenderer.h"

#include "render/Image.h"

#include "isc/core/Assert.h"
#include "isc/scene/Scene.h"

#include <glm/gtc/matrix_transform.hpp>

#include <cstring>

namespace isc::render {

namespace {
// A few distinct colours for objects without one.
Vec4 paletteColor(ObjectId id) {
    static const Vec3 palette[] = {{0.90f, 0.45f, 0.20f}, {0.25f, 0.60f, 0.90f}, {0.45f, 0.80f, 0.35f},
                                   {0.85f, 0.75f, 0.25f}, {0.70f, 0.45f, 0.85f}, {0.90f, 0.35f, 0.45f},
                                   {0.35f, 0.80f, 0.75f}, {0.75f, 0.75f, 0.75f}};
    return Vec4(palette[id % (sizeof palette / sizeof palette[0])], 1.0f);
}
}  // namespace

Result<SceneRenderer> SceneRenderer::create(int width, int height) {
    if (width <= 0 || height <= 0)
        return fail("SceneRenderer::create(): size " + std::to_string(width) + "x" + std::to_string(height) +
                    " is not positive");
    SceneRenderer r;
    r.width_ = width;
    r.height_ = height;
    auto mesh = gl::Program::create({{GL_VERTEX_SHADER, "render/scene.vert.glsl"},
                                     {GL_FRAGMENT_SHADER, "render/scene.frag.glsl"}},
                                    {}, "render scene");
    if (!mesh) return fail("SceneRenderer::create(): " + mesh.error().message);
    auto grid = gl::Program::create({{GL_VERTEX_SHADER, "render/grid.vert.glsl"},
                                     {GL_FRAGMENT_SHADER, "render/grid.frag.glsl"}},
                                    {}, "render grid");
    if (!grid) return fail("SceneRenderer::create(): " + grid.error().message);
    auto lines = gl::Program::create({{GL_VERTEX_SHADER, "render/lines.vert.glsl"},
                                      {GL_FRAGMENT_SHADER, "render/lines.frag.glsl"}},
                                     {}, "render lines");
    if (!lines) return fail("SceneRenderer::create(): " + lines.error().message);
    r.meshProgram_ = std::move(*mesh);
    r.gridProgram_ = std::move(*grid);
    r.lineProgram_ = std::move(*lines);
    r.scene_ = gl::GpuScene("render scene");
    if (auto ok = r.makeTargets(); !ok) return fail("SceneRenderer::create(): " + ok.error().message);
    r.indirect_ = gl::Buffer("render indirect");
    r.colors_ = gl::Buffer("render colors");
    r.lines_ = gl::Buffer("render lines");
    r.emptyVao_ = gl::VertexArray("render empty vao");
    return r;
}

void SceneRenderer::setObjectColor(ObjectId id, Vec3 rgb) {
    if (objectColors_.size() <= id) {
        const std::size_t old = objectColors_.size();
        objectColors_.resize(id + 1);
        colorSet_.resize(id + 1, false);
        for (std::size_t i = old; i < objectColors_.size(); ++i) objectColors_[i] = paletteColor(ObjectId(i));
    }
    objectColors_[id] = Vec4(rgb, 1.0f);
    colorSet_[id] = true;
}

Result<void> SceneRenderer::makeTargets() {
    color_ = gl::Texture::create2D("render color", GL_RGBA8, width_, height_);
    depth_ = gl::Renderbuffer("render depth", GL_DEPTH_COMPONENT32F, width_, height_);
    fbo_ = gl::Framebuffer("render fbo");
    fbo_.attachTexture(GL_COLOR_ATTACHMENT0, color_);
    fbo_.attachRenderbuffer(GL_DEPTH_ATTACHMENT, depth_);
    return fbo_.checkComplete();
}

void SceneRenderer::resize(int width, int height) {
    if (width <= 0 || height <= 0 || (width == width_ && height == height_)) return;
    width_ = width;
    height_ = height;
    [[maybe_unused]] auto ok = makeTargets();  // RGBA8 + depth32f colour targets are always complete
    ISC_ASSERT(ok.has_value(), "SceneRenderer::resize(): framebuffer incomplete");
}

Mat4 SceneRenderer::viewProjection() const {
    const float aspect = float(width_) / float(height_);
    return glm::perspective(glm::radians(camera_.fovYDegrees), aspect, camera_.nearPlane, camera_.farPlane) *
           glm::lookAt(camera_.eye, camera_.target, camera_.up);
}

Result<void> SceneRenderer::drawLines(const std::vector<LineVertex>& vertices, bool onTop) {
    if (vertices.size() < 2) return {};
    lines_.reserve(vertices.size() * sizeof(LineVertex));
    lines_.upload(0, vertices.size() * sizeof(LineVertex), vertices.data());
    lines_.bindBase(GL_SHADER_STORAGE_BUFFER, ISC_BINDING_FIRST_FREE);
    fbo_.bind();
    glViewport(0, 0, width_, height_);
    if (onTop) glDisable(GL_DEPTH_TEST);
    else glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    lineProgram_.setUniform("viewProjection", viewProjection());
    lineProgram_.use();
    emptyVao_.bind();
    glDrawArrays(GL_LINES, 0, GLsizei(vertices.size() / 2 * 2));
    glBindVertexArray(0);
    glDisable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    gl::Framebuffer::bindDefault();
    return gl::checkError("SceneRenderer::drawLines()");
}

Result<void> SceneRenderer::render(const Scene& scene) {
    scene_.sync(scene);
    const std::size_t n = scene.objectCount();
    for (std::size_t i = objectColors_.size(); i < n; ++i) {
        objectColors_.push_back(paletteColor(ObjectId(i)));
        colorSet_.push_back(false);
    }

    const Mat4 viewProjection = this->viewProjection();

    fbo_.bind();
    glViewport(0, 0, width_, height_);
    const Vec4& c = options_.clearColor;
    fbo_.clearColor(0, c.r, c.g, c.b, c.a);
    fbo_.clearDepth(1.0f);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDisable(GL_CULL_FACE);  // open meshes show both sides

    if (options_.groundGrid) {
        gridProgram_.setUniform("viewProjection", viewProjection);
        gridProgram_.setUniform("height", options_.groundHeight);
        gridProgram_.setUniform("halfSize", 0.5f * options_.groundSize);
        gridProgram_.setUniform("spacing", options_.gridSpacing);
        gridProgram_.setUniform("groundColor", Vec3(0.30f, 0.31f, 0.33f));
        gridProgram_.setUniform("lineColor", Vec3(0.55f, 0.56f, 0.58f));
        gridProgram_.use();
        emptyVao_.bind();
        // Push the ground back a little so objects resting on it win the depth test.
        glEnable(GL_POLYGON_OFFSET_FILL);
        glPolygonOffset(1.0f, 1.0f);
        glDrawArrays(GL_TRIANGLES, 0, 6);
        glDisable(GL_POLYGON_OFFSET_FILL);
    }

    if (n > 0) {
        std::vector<ObjectId> ids;
        ids.reserve(n);
        for (ObjectId i = 0; i < n; ++i)
            if (scene_.object(i).active) ids.push_back(i);
        if (!ids.empty()) {
            colors_.reserve(objectColors_.size() * sizeof(Vec4));
            colors_.upload(0, objectColors_.size() * sizeof(Vec4), objectColors_.data());
            colors_.bindBase(GL_SHADER_STORAGE_BUFFER, ISC_BINDING_FIRST_FREE);
            scene_.writeDrawCommands(ids, indirect_);
            scene_.bind();
            meshProgram_.setUniform("viewProjection", viewProjection);
            meshProgram_.setUniform("cameraPosition", camera_.eye);
            meshProgram_.setUniform("lightDirection", glm::normalize(options_.lightDirection));
            meshProgram_.use();
            scene_.vertexArray().bind();
            indirect_.bind(GL_DRAW_INDIRECT_BUFFER);
            glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT, nullptr, GLsizei(ids.size()), 0);
            glBindBuffer(GL_DRAW_INDIRECT_BUFFER, 0);
        }
    }
    glBindVertexArray(0);
    glDisable(GL_DEPTH_TEST);
    gl::Framebuffer::bindDefault();
    return gl::checkError("SceneRenderer::render()");
}

std::vector<std::uint8_t> SceneRenderer::readPixels() const {
    const std::size_t row = std::size_t(width_) * 4;
    std::vector<std::uint8_t> bottomUp(row * height_);
    color_.read(0, GL_RGBA, GL_UNSIGNED_BYTE, bottomUp.size(), bottomUp.data());
    // GL rows go bottom to top; images top to bottom.
    std::vector<std::uint8_t> out(bottomUp.size());
    for (int y = 0; y < height_; ++y)
        std::memcpy(&out[std::size_t(y) * row], &bottomUp[std::size_t(height_ - 1 - y) * row], row);
    return out;
}

Result<void> SceneRenderer::writePng(const std::string& path) const {
    return render::writePng(path, width_, height_, readPixels());
}

void SceneRenderer::present(int x, int y, int width, int height) const {
    glBlitNamedFramebuffer(fbo_.id(), 0, 0, 0, width_, height_, x, y, x + width, y + height, GL_COLOR_BUFFER_BIT,
                           GL_LINEAR);
}

}  // namespace isc::render
