#include "render/Image.h"

#include "isc/gl/Gl.h"

#include <stb_image_write.h>

#include <cstring>

namespace isc::render {

Result<void> writePng(const std::string& path, int width, int height, const std::vector<std::uint8_t>& rgba) {
    if (width <= 0 || height <= 0 || rgba.size() < std::size_t(width) * std::size_t(height) * 4)
        return fail("writePng(): '" + path + "': no pixels (" + std::to_string(width) + "x" + std::to_string(height) + ")");
    if (stbi_write_png(path.c_str(), width, height, 4, rgba.data(), width * 4) == 0)
        return fail("cannot write '" + path + "' (does the folder exist and is it writable?)");
    return {};
}

std::vector<std::uint8_t> readFramebuffer(int width, int height) {
    const std::size_t row = std::size_t(width) * 4;
    std::vector<std::uint8_t> bottomUp(row * std::size_t(height)), out(bottomUp.size());
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, bottomUp.data());
    for (int y = 0; y < height; ++y)
        std::memcpy(&out[std::size_t(y) * row], &bottomUp[std::size_t(height - 1 - y) * row], row);
    return out;
}

}  // namespace isc::render
