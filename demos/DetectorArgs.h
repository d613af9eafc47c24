#pragma once
/// The one way every `isc` command takes a detector's own settings: `--set name=value`,
/// repeatable, checked by the detector itself (docs/detectors/<name>.md, `isc info`).
#include "isc/detect/Settings.h"

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace isc::tool {

/// Adds `--set name=value` (repeatable) to `cmd`, collected into `sets`.
void addSetOption(CLI::App* cmd, std::vector<std::string>& sets);
/// The collected `--set` values as options; an Error names a malformed one.
[[nodiscard]] Result<OptionList> parseSets(const std::vector<std::string>& sets);
/// "name=value name=value" for a log line ("defaults" when empty).
std::string describeOptions(const OptionList& options);

}  // namespace isc::tool
