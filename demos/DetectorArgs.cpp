#include "DetectorArgs.h"

#include <CLI/CLI.hpp>

namespace isc::tool {

void addSetOption(CLI::App* cmd, std::vector<std::string>& sets) {
    cmd->add_option("--set", sets,
                    "a detector setting, name=value (repeatable; `isc info` lists each detector's settings)")
        ->expected(1)
        ->take_all();
}

Result<OptionList> parseSets(const std::vector<std::string>& sets) {
    OptionList out;
    for (const std::string& s : sets) {
        auto kv = parseOption(s);
        if (!kv) return fail("--set: " + kv.error().message);
        out.push_back(std::move(*kv));
    }
    return out;
}

std::string describeOptions(const OptionList& options) {
    if (options.empty()) return "defaults";
    std::string out;
    for (const auto& [k, v] : options) out += (out.empty() ? "" : " ") + k + "=" + v;
    return out;
}

}  // namespace isc::tool
