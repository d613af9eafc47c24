// The detector registry: names to factories. GL detectors need a current context.
#include "isc/detect/CpuDetector.h"
#include "isc/detect/Detector.h"
#include "isc/detect/PeelDetector.h"

#include <string>

namespace isc {

std::vector<std::string> detectorNames() { return {"cpu", "peel"}; }

bool detectorUsesGl(std::string_view name) { return name != "cpu"; }

Result<std::unique_ptr<Detector>> createDetector(std::string_view name, const DetectorSettings& settings) {
    if (name == "cpu") return std::unique_ptr<Detector>(std::make_unique<CpuDetector>(settings));
    if (name == "peel") return createPeelDetector(settings);
    std::string known;
    for (const std::string& n : detectorNames()) known += (known.empty() ? "" : ", ") + n;
    return fail("unknown detector '" + std::string(name) + "': known detectors are " + known);
}

}  // namespace isc
