// libFuzzer target: detector settings parsing, as the command line's `--set name=value`
// reaches createDetector(). The first line names the detector (any text: a registered name
// or not), each further line is one --set string. For every input: no crash, and either a
// detector or an Error with a message. GL detectors run without a GL context here, so they
// parse and check their options, then return the "no current GL context" error; the CPU
// detectors are made for real.
#include "isc/detect/Registry.h"
#include "isc/detect/Settings.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

void check(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "fuzz_settings: invariant broken: %s\n", what);
        std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::size_t at = text.find('\n');
    std::string name(text.substr(0, at));
    // A short index picks a registered detector, so most inputs reach option parsing.
    const auto& detectors = isc::registeredDetectors();
    if (name.size() == 1) name = detectors[static_cast<unsigned char>(name[0]) % detectors.size()].name;
    isc::DetectorSettings settings;
    while (at != std::string_view::npos) {
        const std::size_t next = text.find('\n', at + 1);
        const std::string_view line = text.substr(at + 1, next == std::string_view::npos ? next : next - at - 1);
        at = next;
        if (line == "validate") {
            settings.validate = true;
            continue;
        }
        auto kv = isc::parseOption(line);
        if (!kv) {
            check(!kv.error().message.empty(), "a parse error without a message");
            continue;
        }
        settings.options.push_back(std::move(*kv));
    }
    auto detector = isc::createDetector(name, settings);
    if (!detector) {
        check(!detector.error().message.empty(), "an error without a message");
        return 0;
    }
    check(*detector != nullptr, "success with no detector");
    check(!(*detector)->name().empty(), "a detector without a name");
    return 0;
}
