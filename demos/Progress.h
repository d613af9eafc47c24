#pragma once
/// A progress line for long runs (`isc accuracy` with many poses, long headless demos): drawn
/// on stderr, redrawn at most ~8 times a second, only when stderr is a terminal and the
/// environment variable CI is unset, so logs and CI stay quiet. ISC_PROGRESS=1 forces it on,
/// ISC_PROGRESS=0 off.
#include <chrono>
#include <cstddef>
#include <string>

namespace isc::tool {

class Progress {
public:
    /// `what` names the unit ("poses", "steps"); `total` > 0.
    Progress(std::string what, std::size_t total);
    ~Progress();
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    /// `done` of total are finished; `note` is shown after the count (e.g. "12.3 ms/step").
    void update(std::size_t done, const std::string& note = {});
    /// Clears the line (also done by the destructor).
    void finish();
    /// True when a progress line would be drawn (terminal, no CI, ISC_PROGRESS).
    static bool enabled();

private:
    std::string what_;
    std::size_t total_;
    bool on_ = false, drawn_ = false;
    std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace isc::tool
