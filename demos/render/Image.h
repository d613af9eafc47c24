#pragma once
/// Pictures for demos and docs: PNG writing (stb_image_write) and reading back the current
/// read framebuffer (a window's back buffer with its panel, for screenshots).
#include "isc/core/Result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace isc::render {

/// Writes RGBA8 pixels (rows top to bottom, width*height*4 bytes) as PNG. Error names the path.
[[nodiscard]] Result<void> writePng(const std::string& path, int width, int height,
                                    const std::vector<std::uint8_t>& rgba);
/// Reads `width` x `height` RGBA8 pixels of the bound read framebuffer (its GL_BACK buffer for
/// the default framebuffer of a window), rows top to bottom. Needs a current GL context.
std::vector<std::uint8_t> readFramebuffer(int width, int height);

}  // namespace isc::render
