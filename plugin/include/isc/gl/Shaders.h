#pragma once
/// Shader sources: every shaders/*.glsl and shaders/*.h is embedded in the library at build
/// time, looked up by file name. The environment variable ISC_SHADER_DIR, when set, makes
/// loadShaderSource read files from that folder instead (edit shaders without rebuilding).
#include "isc/core/Result.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace isc::gl {

/// The embedded text of `fileName` (e.g. "common/scene.glsl"), as built; no includes expanded,
/// no override applied. nullopt when no such file was embedded.
std::optional<std::string_view> embeddedShader(std::string_view fileName);

/// Names of every embedded file, sorted.
std::vector<std::string> embeddedShaderNames();

/// Source of `fileName` with every `#include "name"` line replaced by that file's text
/// (recursively; each file included once per source, like #pragma once). Read from
/// ISC_SHADER_DIR when the variable is set and the file exists there, else from the embedded
/// table. Errors: unknown file, unreadable file, include cycle; they name the file and the
/// including file and line.
[[nodiscard]] Result<std::string> loadShaderSource(std::string_view fileName);

}  // namespace isc::gl
