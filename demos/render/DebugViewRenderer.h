#pragma once
/// Turns a detector's image-space buffer (isc::DetectorDebugView: fragment counts, collision-ray
/// bits, depths) into an RGBA8 texture a viewer shows (the demo window's overlay). Not part of
/// the library: target isc_render. Every member needs the GL context the detector runs in.
#include "isc/core/Result.h"
#include "isc/detect/Detector.h"
#include "isc/gl/Buffer.h"
#include "isc/gl/Program.h"
#include "isc/gl/Texture.h"

namespace isc::render {

class DebugViewRenderer {
public:
    /// Compiles the two compute passes. Errors: the driver's log.
    [[nodiscard]] static Result<DebugViewRenderer> create();

    /// Draws `view` into texture() at most `maxSide` texels on its longer side (each texel the
    /// largest value of the source pixels it covers, or any bit set): counts and floats on a
    /// ramp from dark (0) to yellow (the view's largest value), bits yellow on dark. Returns the
    /// largest value (a count, 1 for bits, a float's value). Errors: an empty or malformed view.
    [[nodiscard]] Result<double> draw(const DetectorDebugView& view, int maxSide = 768);

    /// The last image (GL_RGBA8, rows from the bottom); 0 before the first draw().
    const gl::Texture& texture() const { return texture_; }
    int width() const { return width_; }
    int height() const { return height_; }

private:
    DebugViewRenderer() = default;
    gl::Program range_, color_;
    gl::Buffer rangeBuffer_;
    gl::Texture texture_;
    int width_ = 0, height_ = 0;
};

}  // namespace isc::render
