#pragma once
// Runs the isc executable (ISC_TOOL, else ISC_TOOL_PATH) through the shell and returns what it printed
// (stdout and stderr together) with its exit code. Each call writes to its own file, so tests
// that ctest runs in parallel do not read each other's output.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace isc::test {

/// A fresh path in the temp folder, unique per process, test and call: <stem>_<pid>_<n><ext>.
inline std::string tempPath(const std::string& stem, const std::string& ext = "") {
    static std::atomic<int> counter{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string test = info ? std::string(info->name()) : "none";
    return (std::filesystem::temp_directory_path() /
            (stem + "_" + test + "_" + std::to_string(getpid()) + "_" + std::to_string(counter++) + ext))
        .string();
}

/// The isc executable: `ISC_TOOL` from the environment when set (a copy of the binaries on
/// another machine, such as the GPU rounds' packed `.devrun/bin/isc`), else the build tree's.
inline std::string toolPath() {
    const char* env = std::getenv("ISC_TOOL");
    return env && *env ? std::string(env) : std::string(ISC_TOOL_PATH);
}

/// Runs `prefix toolPath() args` (prefix: environment settings or a wrapper such as
/// xvfb-run); `exitCode` is the process's exit status (-1 when it did not exit normally).
inline std::string runTool(const std::string& args, int& exitCode, const std::string& prefix = "") {
    const std::string out = tempPath("isc_tool_out", ".txt");
    const std::string cmd = prefix + (prefix.empty() ? "" : " ") + toolPath() + " " + args + " > " + out + " 2>&1";
    const int status = std::system(cmd.c_str());
    exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream f(out);
    std::stringstream ss;
    ss << f.rdbuf();
    std::filesystem::remove(out);
    return ss.str();
}

}  // namespace isc::test
