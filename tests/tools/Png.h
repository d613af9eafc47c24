#pragma once
// PNG pictures the isc executable wrote, read back for pixel checks (stb_image).
#include <stb_image.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace isc::test {

struct Picture {
    int width = 0, height = 0;
    std::vector<std::uint8_t> rgba;  // rows top to bottom
    const std::uint8_t* at(int x, int y) const { return &rgba[(std::size_t(y) * std::size_t(width) + std::size_t(x)) * 4]; }
};

/// Empty (width 0) when the file is missing or not a PNG.
inline Picture loadPng(const std::string& path) {
    Picture p;
    int channels = 0;
    unsigned char* data = stbi_load(path.c_str(), &p.width, &p.height, &channels, 4);
    if (data == nullptr) return Picture{};
    p.rgba.assign(data, data + std::size_t(p.width) * std::size_t(p.height) * 4);
    stbi_image_free(data);
    return p;
}

/// Pixels of the rectangle [x0, x1) x [y0, y1) for which `pred(r, g, b)` holds.
template <class Pred>
int countPixels(const Picture& p, int x0, int y0, int x1, int y1, Pred pred) {
    int n = 0;
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) {
            const std::uint8_t* c = p.at(x, y);
            n += pred(int(c[0]), int(c[1]), int(c[2])) ? 1 : 0;
        }
    return n;
}

/// A coloured pixel: the renderer's object palette (orange, blue, green, ...) is saturated; its
/// background, ground, grid and ImGui's panel are greys (channels within ~25 of each other).
inline bool saturated(int r, int g, int b) {
    const int hi = std::max({r, g, b}), lo = std::min({r, g, b});
    return hi - lo > 80 && hi > 90;
}

}  // namespace isc::test
