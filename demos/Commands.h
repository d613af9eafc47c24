#pragma once
/// Subcommands of the `isc` executable. Each add* registers one on the app; its callback
/// stores the process exit code in `exitCode`.
namespace CLI {
class App;
}

namespace isc::tool {

void addInfoCommand(CLI::App& app, int& exitCode);      // isc info
void addAccuracyCommand(CLI::App& app, int& exitCode);  // isc accuracy
void addDemoCommand(CLI::App& app, int& exitCode);      // isc demo bunny-pile ...

}  // namespace isc::tool
