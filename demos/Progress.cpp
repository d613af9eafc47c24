#include "Progress.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace isc::tool {

bool Progress::enabled() {
    if (const char* force = std::getenv("ISC_PROGRESS"); force != nullptr && *force != '\0')
        return std::strcmp(force, "0") != 0;
    if (const char* ci = std::getenv("CI"); ci != nullptr && *ci != '\0') return false;
    return isatty(fileno(stderr)) != 0;
}

Progress::Progress(std::string what, std::size_t total)
    : what_(std::move(what)), total_(total == 0 ? 1 : total), on_(enabled()),
      start_(std::chrono::steady_clock::now()), last_(start_ - std::chrono::seconds(1)) {}

Progress::~Progress() { finish(); }

void Progress::update(std::size_t done, const std::string& note) {
    if (!on_) return;
    const auto now = std::chrono::steady_clock::now();
    if (done < total_ && now - last_ < std::chrono::milliseconds(125)) return;
    last_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double fraction = double(done) / double(total_);
    constexpr int kWidth = 30;
    char bar[kWidth + 1];
    const int filled = int(fraction * kWidth);
    for (int i = 0; i < kWidth; ++i) bar[i] = i < filled ? '#' : '.';
    bar[kWidth] = '\0';
    char eta[32] = "";
    if (done > 0 && done < total_)
        std::snprintf(eta, sizeof eta, ", %.0f s left", elapsed / fraction - elapsed);
    // \r and erase-to-end-of-line: one line, redrawn in place.
    std::fprintf(stderr, "\r[%s] %3.0f%% %zu/%zu %s%s%s%s\x1b[K", bar, 100.0 * fraction, done, total_, what_.c_str(),
                 eta, note.empty() ? "" : "  ", note.c_str());
    std::fflush(stderr);
    drawn_ = true;
}

void Progress::finish() {
    if (!drawn_) return;
    std::fprintf(stderr, "\r\x1b[K");
    std::fflush(stderr);
    drawn_ = false;
}

}  // namespace isc::tool
