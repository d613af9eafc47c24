#include "isc/detect/Detector.h"

namespace isc {

void DetectorStats::count(std::string_view name, double value) {
    for (auto& [n, v] : counters)
        if (n == name) {
            v = value;
            return;
        }
    counters.emplace_back(std::string(name), value);
}

double DetectorStats::counter(std::string_view name) const {
    for (const auto& [n, v] : counters)
        if (n == name) return v;
    return 0.0;
}

}  // namespace isc
