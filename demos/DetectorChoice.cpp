#include "DetectorChoice.h"

#include "isc/bullet/RigidWorld.h"
#include "isc/detect/AutoDetector.h"
#include "isc/detect/Registry.h"

#include <algorithm>
#include <set>

namespace isc::tool {

std::vector<std::string> detectorChoices(bool withGimpact) {
    std::vector<std::string> names{kAutoDetectorName};
    for (const std::string& n : detectorNames()) names.push_back(n);
    if (withGimpact) names.emplace_back(bullet::kBulletGImpact);
    return names;
}

std::string detectorChoiceList(bool withGimpact) {
    std::string out;
    for (const std::string& n : detectorChoices(withGimpact)) out += (out.empty() ? "" : ", ") + n;
    return out;
}

Result<void> checkDetectorName(std::string_view name, bool withGimpact) {
    const auto names = detectorChoices(withGimpact);
    if (std::find(names.begin(), names.end(), name) != names.end()) return {};
    return fail("unknown detector '" + std::string(name) + "': known detectors are " + detectorChoiceList(withGimpact));
}

Result<void> checkOptionNames(const OptionList& options) {
    std::set<std::string> known{"candidates", "warmupCalls"};  // auto's own
    for (const DetectorInfo& d : registeredDetectors())
        for (const SettingDoc& s : d.settings) known.insert(s.name);
    for (const auto& [key, value] : options) {
        if (known.contains(key)) continue;
        std::string list;
        for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
        return fail("--set " + key + "=" + value + ": no detector has an option '" + key + "'; the options are " +
                    list + " (`isc info` says which detector has which)");
    }
    return {};
}

OptionList optionsFor(std::string_view detector, const OptionList& options) {
    if (detector == kAutoDetectorName) return options;
    const DetectorInfo* info = findDetector(detector);
    OptionList out;
    if (info == nullptr) return out;
    for (const auto& kv : options)
        if (std::any_of(info->settings.begin(), info->settings.end(),
                        [&](const SettingDoc& s) { return s.name == kv.first; }))
            out.push_back(kv);
    return out;
}

}  // namespace isc::tool
