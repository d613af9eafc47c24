#pragma once
// Reads typed values off a fuzzer's byte string, front to back; past the end every read
// gives 0, so any input is a valid (possibly empty) program for the target.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace isc::fuzz {

class FuzzInput {
public:
    FuzzInput(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
    std::size_t left() const { return size_ - at_; }
    std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
    /// A value in [0, n) (n > 0).
    unsigned below(unsigned n) { return byte() % n; }
    /// A float in [lo, hi] on a grid of 256 steps (meshes that touch exactly happen often).
    float grid(float lo, float hi) { return lo + (hi - lo) * static_cast<float>(byte()) / 255.0f; }
    /// Four raw bytes as a float: NaN, Inf, denormals and huge values included.
    float raw() {
        std::uint32_t bits = 0;
        for (int i = 0; i < 4; ++i) bits |= std::uint32_t(byte()) << (8 * i);
        float f;
        std::memcpy(&f, &bits, sizeof f);
        return f;
    }
    /// The rest of the input as text.
    std::string rest() {
        std::string s(reinterpret_cast<const char*>(data_ + at_), size_ - at_);
        at_ = size_;
        return s;
    }

private:
    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t at_ = 0;
};

}  // namespace isc::fuzz
