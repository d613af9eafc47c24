#pragma once
/// Detector settings in one uniform form. Each detector has its own settings struct
/// (PeelSettings, ...) whose fields are listed once in a static `fields` table; from that
/// table the same code parses "name=value" options (the `isc` command line's
/// `--set name=value`, DetectorSettings::options), prints them and documents them
/// (`isc info`). A typed C++ caller fills the struct and passes `toOptions(settings)`.
#include "isc/core/Result.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace isc {

/// Options by name, in the order given; a later entry of the same name wins.
using OptionList = std::vector<std::pair<std::string, std::string>>;

/// One field of a settings struct S: its option name, where it lives, and what it means.
template <class S>
struct SettingField {
    std::string_view name;
    std::variant<int S::*, float S::*, bool S::*, std::string S::*> member;
    std::string_view doc;  ///< one line: meaning, unit, accepted values
};

/// A setting as documentation: name, type, default (as text) and meaning.
struct SettingDoc {
    std::string name, type, defaultValue, doc;
};

namespace detail {

inline std::string formatValue(int v) { return std::to_string(v); }
inline std::string formatValue(bool v) { return v ? "true" : "false"; }
inline std::string formatValue(const std::string& v) { return v; }
inline std::string formatValue(float v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", double(v));
    return buf;
}
inline const char* typeName(int) { return "int"; }
inline const char* typeName(bool) { return "bool"; }
inline const char* typeName(float) { return "float"; }
inline const char* typeName(const std::string&) { return "string"; }

inline bool parseValue(std::string_view text, int& out) {
    int v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return false;
    out = v;
    return true;
}
inline bool parseValue(std::string_view text, float& out) {
    float v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty() || !std::isfinite(v)) return false;
    out = v;
    return true;
}
inline bool parseValue(std::string_view text, bool& out) {
    if (text == "true" || text == "1" || text == "on" || text == "yes") return out = true, true;
    if (text == "false" || text == "0" || text == "off" || text == "no") return out = false, true;
    return false;
}
inline bool parseValue(std::string_view text, std::string& out) {
    out = std::string(text);
    return true;
}

}  // namespace detail

/// Applies `options` to `settings` by the names in S::fields. Errors name the detector
/// (`who`), the option and what is accepted; an unknown name lists the known ones.
template <class S>
[[nodiscard]] Result<void> applyOptions(S& settings, const OptionList& options, std::string_view who) {
    for (const auto& option : options) {
        // Not a structured binding: clang 16 with OpenMP cannot capture one in the lambdas below.
        const std::string& name = option.first;
        const std::string& value = option.second;
        bool found = false;
        for (const SettingField<S>& f : S::fields) {
            if (f.name != name) continue;
            found = true;
            const bool ok = std::visit([&](auto member) { return detail::parseValue(value, settings.*member); },
                                       f.member);
            if (!ok) {
                const std::string type =
                    std::visit([&](auto member) { return std::string(detail::typeName(settings.*member)); }, f.member);
                return fail(std::string(who) + ": option " + name + "=" + value + " is not a valid " + type + " (" +
                            std::string(f.doc) + ")");
            }
        }
        if (!found) {
            std::string known;
            for (const SettingField<S>& f : S::fields) known += (known.empty() ? "" : ", ") + std::string(f.name);
            return fail(std::string(who) + ": unknown option '" + name + "'; its options are " +
                        (known.empty() ? std::string("none") : known));
        }
    }
    return {};
}

/// Every field of `settings` as "name=value" options (what applyOptions reads back).
template <class S>
OptionList toOptions(const S& settings) {
    OptionList out;
    for (const SettingField<S>& f : S::fields)
        out.emplace_back(std::string(f.name),
                         std::visit([&](auto member) { return detail::formatValue(settings.*member); }, f.member));
    return out;
}

/// The fields of S with their defaults (a default-constructed S), for `isc info` and docs.
template <class S>
std::vector<SettingDoc> describeSettings() {
    const S defaults{};
    std::vector<SettingDoc> out;
    for (const SettingField<S>& f : S::fields)
        out.push_back({std::string(f.name),
                       std::visit([&](auto member) { return std::string(detail::typeName(defaults.*member)); }, f.member),
                       std::visit([&](auto member) { return detail::formatValue(defaults.*member); }, f.member),
                       std::string(f.doc)});
    return out;
}

/// Parses "name=value" (the command line's --set); an Error when there is no '='.
[[nodiscard]] inline Result<std::pair<std::string, std::string>> parseOption(std::string_view text) {
    const std::size_t eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0)
        return fail("option '" + std::string(text) + "' is not of the form name=value (e.g. resolution=256)");
    return std::pair<std::string, std::string>(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
}

}  // namespace isc
