#pragma once
/// Draws an isc::Scene with flat Lambert shading into an offscreen framebuffer (demos, tools,
/// pictures in docs). Not part of the library: target isc_render.
#include "isc/core/Math.h"
#include "isc/core/Result.h"
#include "isc/gl/Buffer.h"
#include "isc/gl/Framebuffer.h"
#include "isc/gl/GpuScene.h"
#include "isc/gl/Program.h"
#include "isc/gl/Renderbuffer.h"
#include "isc/gl/Texture.h"
#include "isc/gl/VertexArray.h"

#include <cstdint>
#include <string>
#include <vector>

namespace isc {
class Scene;
}

namespace isc::render {

/// Perspective camera looking from `eye` at `target`, world units.
struct Camera {
    Vec3 eye{4.0f, 3.0f, 6.0f};
    Vec3 target{0.0f};
    Vec3 up{0.0f, 1.0f, 0.0f};
    float fovYDegrees = 45.0f;
    float nearPlane = 0.05f;
    float farPlane = 200.0f;
};

/// What to draw besides the objects.
struct RenderOptions {
    Vec4 clearColor{0.12f, 0.13f, 0.16f, 1.0f};
    Vec3 lightDirection{-0.4f, -1.0f, -0.3f};  ///< direction the light travels, world space
    bool groundGrid = true;                    ///< a grid on the plane y = groundHeight
    float groundHeight = 0.0f;
    float gridSpacing = 1.0f;                  ///< world units between grid lines
    float groundSize = 40.0f;                  ///< side of the ground square
};

/// One end of a line segment for SceneRenderer::drawLines: world position and RGBA colour.
struct LineVertex {
    Vec4 position;  ///< world, w = 1
    Vec4 color;     ///< RGBA, 0..1
};

/// Renders into its own colour + depth framebuffer of width x height pixels.
/// Every member needs a current GL context (the one it was created in).
class SceneRenderer {
public:
    /// Compiles the programs and makes the framebuffer. Errors: shader or framebuffer failures.
    [[nodiscard]] static Result<SceneRenderer> create(int width, int height);

    /// Colour of object `id` (RGB, 0..1). Objects without a colour get one from a palette.
    void setObjectColor(ObjectId id, Vec3 rgb);
    RenderOptions& options() { return options_; }
    Camera& camera() { return camera_; }

    /// Syncs the GPU mirror with `scene` and draws it (inactive objects skipped).
    [[nodiscard]] Result<void> render(const Scene& scene);
    /// Draws segments (pairs of vertices) over the last frame with its camera: depth-tested
    /// against it, or on top of everything when `onTop` (contacts inside a pile).
    [[nodiscard]] Result<void> drawLines(const std::vector<LineVertex>& vertices, bool onTop);
    /// New framebuffer size (a window was resized); the next render() draws at that size.
    /// Does nothing when the size is unchanged. Non-positive sizes are ignored.
    void resize(int width, int height);
    /// World-to-clip matrix of the camera at the current size.
    Mat4 viewProjection() const;
    /// Reads the last frame back: RGBA8, rows top to bottom, width*height*4 bytes.
    std::vector<std::uint8_t> readPixels() const;
    /// Writes the last frame as PNG (stb_image_write). Error names the path.
    [[nodiscard]] Result<void> writePng(const std::string& path) const;
    /// Blits the last frame to the default framebuffer (a window context), scaled to
    /// `windowWidth` x `windowHeight`. The caller swaps buffers.
    void present(int windowWidth, int windowHeight) const { present(0, 0, windowWidth, windowHeight); }
    /// Blits the last frame into the rectangle (x, y, width, height) of the default
    /// framebuffer (pixels from its lower left corner).
    void present(int x, int y, int width, int height) const;

    int width() const { return width_; }
    int height() const { return height_; }
    gl::GpuScene& gpuScene() { return scene_; }
    const gl::Framebuffer& framebuffer() const { return fbo_; }

private:
    SceneRenderer() = default;
    [[nodiscard]] Result<void> makeTargets();
    int width_ = 0, height_ = 0;
    Camera camera_;
    RenderOptions options_;
    gl::GpuScene scene_;
    gl::Program meshProgram_, gridProgram_, lineProgram_;
    gl::Texture color_;
    gl::Renderbuffer depth_;
    gl::Framebuffer fbo_;
    gl::Buffer indirect_, colors_, lines_;
    gl::VertexArray emptyVao_;
    std::vector<Vec4> objectColors_;
    std::vector<bool> colorSet_;
};

}  // namespace isc::render
