#pragma once
// Internal: include expansion with the list of files (for #line source numbers in logs).
#include "isc/core/Result.h"

#include <string>
#include <string_view>
#include <vector>

namespace isc::gl::detail {

/// Source of `fileName` with includes expanded. When `lineDirectives` is set, each file's
/// text is preceded by "#line <n> <k>" where k indexes `files` (k = 0: fileName itself).
[[nodiscard]] Result<std::string> expandShader(std::string_view fileName, bool lineDirectives,
                                               std::vector<std::string>& files);

}  // namespace isc::gl::detail
