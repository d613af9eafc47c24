#pragma once
/// Which detector names the `isc` commands accept and which of the `--set` options each gets.
/// `auto` (the default, isc/detect/AutoDetector.h), every registered detector, and in the
/// demos `bullet-gimpact` (stock Bullet). One `--set` list serves every detector a run may
/// use (a demo switches live): each detector gets the options it declares (auto: all of them,
/// it forwards them itself); an option no detector declares is an error.
#include "isc/core/Result.h"
#include "isc/detect/Settings.h"

#include <string>
#include <string_view>
#include <vector>

namespace isc::tool {

/// "auto", the registered detectors in registry order, then "bullet-gimpact" when `withGimpact`.
std::vector<std::string> detectorChoices(bool withGimpact);
/// The same, comma-separated, for help texts and errors.
std::string detectorChoiceList(bool withGimpact);
/// An Error "unknown detector 'x': known detectors are auto, cpu, ..." for an unknown name.
[[nodiscard]] Result<void> checkDetectorName(std::string_view name, bool withGimpact);
/// An Error naming an option that no detector (nor auto) declares, with the known names.
[[nodiscard]] Result<void> checkOptionNames(const OptionList& options);
/// The options `detector` declares (auto: all; bullet-gimpact: none), in the given order.
OptionList optionsFor(std::string_view detector, const OptionList& options);

}  // namespace isc::tool
