#pragma once
/// The detector registry. Each detector registers itself from its own folder
/// (plugin/detectors/<name>/): its CMakeLists.txt calls isc_add_detector(), and its sources
/// define `isc::DetectorInfo isc::detectors::<name>Info()`; the list in
/// plugin/detectors/CMakeLists.txt is the only place that names them all (a generated
/// source calls each entry function). Nothing here is written per detector.
#include "isc/detect/Detector.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace isc {

/// What a detector is and what it can do, as it says itself.
struct DetectorInfo {
    std::string name;     ///< registry name, as given to createDetector()
    std::string summary;  ///< one line: the method and its paper
    bool usesGl = false;  ///< needs a current GL 4.5 context at creation and at every detect()
    /// Needs closed meshes with its default settings (objects with open meshes are then
    /// returned in DetectionOutput::unserved, never dropped).
    bool needsClosedMeshes = false;
    bool reportsTrianglePairs = false;   ///< PairResult::triangles (triangle-pair recall applies)
    bool reportsContactSamples = false;  ///< PairResult::samples (points, normals, depths)
    /// A known defect that makes it unsafe as a default (empty: none): `auto` leaves it out
    /// unless named in `candidates`, and `isc info` prints it. Its page says more.
    std::string knownIssue;
    std::vector<SettingDoc> settings;    ///< its own options (DetectorSettings::options)
    /// GL extensions it uses where the driver has them, each with what it gives (`isc info`
    /// says for each whether this GL has it). Only extensions the code really uses.
    std::vector<std::pair<std::string, std::string>> extensions;
    /// What the detector does on the current GL, where that varies (a probed fallback path);
    /// `isc info` prints it. Empty: nothing to say. Needs a current GL context.
    std::function<std::string()> describeGl;
    /// Creates it. GL detectors need a current context; an Error says why it cannot be made.
    std::function<Result<std::unique_ptr<Detector>>(const DetectorSettings&)> create;
};

/// Every registered detector, in registry order ("cpu" first).
const std::vector<DetectorInfo>& registeredDetectors();
/// The named detector's entry, or null.
const DetectorInfo* findDetector(std::string_view name);
/// Names accepted by createDetector(), in registry order.
std::vector<std::string> detectorNames();
/// True when the named detector runs on GL (create a context before createDetector()).
bool detectorUsesGl(std::string_view name);
/// Creates a detector by name ("auto" too: isc/detect/AutoDetector.h, the fastest exact
/// one for the current GL and scene): an unknown name is an Error listing the known ones; options
/// the detector does not have, or values it does not accept, are Errors naming them. With
/// settings.validate the detector is wrapped so that every call is checked against `cpu`.
[[nodiscard]] Result<std::unique_ptr<Detector>> createDetector(std::string_view name,
                                                               const DetectorSettings& settings = {});

/// DetectorSettings::validate for any detector (createDetector does this itself): each
/// detect() runs `inner`, then the exact `cpu` detector on the same scene and candidates
/// (less those `inner` returned unserved), and counts the triangle pairs (object pairs, for
/// a detector that reports only contact samples) `inner` missed (counter
/// validate_missed_pairs) or invented (validate_extra_pairs), with a warning when either is
/// not 0. Expensive: for tests and debugging.
[[nodiscard]] std::unique_ptr<Detector> wrapValidating(std::unique_ptr<Detector> inner,
                                                       const DetectorSettings& settings);

}  // namespace isc
