#include "isc/gl/Shaders.h"

#include "ShaderSource.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace isc::gl {

namespace detail {
// Defined in the generated EmbeddedShaders.cpp (cmake/EmbedShaders.script.cmake).
struct EmbeddedFile {
    const char* name;
    const char* data;
    std::size_t size;
};
extern const EmbeddedFile kEmbeddedShaders[];
}  // namespace detail

std::optional<std::string_view> embeddedShader(std::string_view fileName) {
    for (const detail::EmbeddedFile* f = detail::kEmbeddedShaders; f->name != nullptr; ++f)
        if (fileName == f->name) return std::string_view(f->data, f->size);
    return std::nullopt;
}

std::vector<std::string> embeddedShaderNames() {
    std::vector<std::string> names;
    for (const detail::EmbeddedFile* f = detail::kEmbeddedShaders; f->name != nullptr; ++f) names.emplace_back(f->name);
    std::sort(names.begin(), names.end());
    return names;
}

namespace {

// The raw text of one file: from ISC_SHADER_DIR when set and the file is there, else embedded.
Result<std::string> rawSource(std::string_view fileName) {
    if (const char* dir = std::getenv("ISC_SHADER_DIR"); dir != nullptr && dir[0] != '\0') {
        const std::filesystem::path path = std::filesystem::path(dir) / std::string(fileName);
        std::error_code ec;
        if (std::filesystem::is_regular_file(path, ec)) {
            std::ifstream in(path, std::ios::binary);
            if (!in) return fail("shader file '" + path.string() + "' (ISC_SHADER_DIR) cannot be read");
            std::ostringstream s;
            s << in.rdbuf();
            return s.str();
        }
    }
    if (auto e = embeddedShader(fileName)) return std::string(*e);
    const char* dir = std::getenv("ISC_SHADER_DIR");
    return fail("shader file '" + std::string(fileName) + "' is not embedded" +
                (dir && dir[0] ? std::string(" and not in ISC_SHADER_DIR=") + dir : std::string()) +
                " (shaders/*.glsl and shaders/*.h are embedded at build time: is the name right, and was isc_gl rebuilt?)");
}

// If `line` is `#include "name"` (spaces allowed), returns name.
std::optional<std::string_view> includeName(std::string_view line) {
    std::size_t i = line.find_first_not_of(" \t");
    if (i == std::string_view::npos || line[i] != '#') return std::nullopt;
    i = line.find_first_not_of(" \t", i + 1);
    if (i == std::string_view::npos || line.substr(i, 7) != "include") return std::nullopt;
    const std::size_t open = line.find('"', i + 7);
    if (open == std::string_view::npos) return std::nullopt;
    const std::size_t close = line.find('"', open + 1);
    if (close == std::string_view::npos) return std::nullopt;
    return line.substr(open + 1, close - open - 1);
}

Result<void> expand(std::string_view fileName, bool lineDirectives, std::vector<std::string>& files,
                    std::vector<std::string>& stack, std::string& out) {
    auto text = rawSource(fileName);
    if (!text) return fail(text.error().message);
    const int index = static_cast<int>(files.size());
    files.emplace_back(fileName);
    stack.emplace_back(fileName);
    if (lineDirectives) out += "#line 1 " + std::to_string(index) + "\n";
    std::string_view rest = *text;
    int lineNo = 0;
    while (!rest.empty()) {
        const std::size_t nl = rest.find('\n');
        const std::string_view line = rest.substr(0, nl);
        rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
        ++lineNo;
        if (auto inc = includeName(line)) {
            const std::string name(*inc);
            if (std::find(stack.begin(), stack.end(), name) != stack.end())
                return fail("shader include cycle: '" + std::string(fileName) + "' line " + std::to_string(lineNo) +
                            " includes '" + name + "', which is being included");
            // Each file once per source (like #pragma once).
            if (std::find(files.begin(), files.end(), name) == files.end()) {
                auto r = expand(name, lineDirectives, files, stack, out);
                if (!r)
                    return fail(r.error().message + "\n  included from '" + std::string(fileName) + "' line " +
                                std::to_string(lineNo));
            }
            if (lineDirectives) out += "#line " + std::to_string(lineNo + 1) + " " + std::to_string(index) + "\n";
            else out += "\n";
            continue;
        }
        out += line;
        out += '\n';
    }
    stack.pop_back();
    return {};
}

}  // namespace

Result<std::string> detail::expandShader(std::string_view fileName, bool lineDirectives,
                                         std::vector<std::string>& files) {
    std::string out;
    std::vector<std::string> stack;
    files.clear();
    auto r = expand(fileName, lineDirectives, files, stack, out);
    if (!r) return fail(r.error().message);
    return out;
}

Result<std::string> loadShaderSource(std::string_view fileName) {
    std::vector<std::string> files;
    return detail::expandShader(fileName, false, files);
}

}  // namespace isc::gl
