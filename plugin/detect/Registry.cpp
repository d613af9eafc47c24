// The registry's look-ups. The list itself is generated from plugin/detectors/CMakeLists.txt.
#include "isc/detect/Registry.h"

#include "isc/detect/AutoDetector.h"


namespace isc {

const DetectorInfo* findDetector(std::string_view name) {
    for (const DetectorInfo& d : registeredDetectors())
        if (d.name == name) return &d;
    return nullptr;
}

std::vector<std::string> detectorNames() {
    std::vector<std::string> names;
    for (const DetectorInfo& d : registeredDetectors()) names.push_back(d.name);
    return names;
}

bool detectorUsesGl(std::string_view name) {
    const DetectorInfo* d = findDetector(name);
    return d != nullptr && d->usesGl;
}

Result<std::unique_ptr<Detector>> createDetector(std::string_view name, const DetectorSettings& settings) {
    if (name == kAutoDetectorName) {  // not a registry folder: it picks one (isc/detect/AutoDetector.h)
        auto detector = createAutoDetector(settings);
        if (!detector || !settings.validate) return detector;
        return wrapValidating(std::move(*detector), settings);
    }
    const DetectorInfo* info = findDetector(name);
    if (info == nullptr) {
        std::string known = kAutoDetectorName;
        for (const std::string& n : detectorNames()) known += (known.empty() ? "" : ", ") + n;
        return fail("unknown detector '" + std::string(name) + "': known detectors are " + known);
    }
    auto detector = info->create(settings);
    if (!detector || !settings.validate) return detector;
    return wrapValidating(std::move(*detector), settings);
}

}  // namespace isc
