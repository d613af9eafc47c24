#pragma once
/// Subcommands of the `isc` executable. Each add* registers one on the app; its callback
/// stores the process exit code in `exitCode`.
namespace CLI {
class App;
}

namespace isc::tool {

void addInfoCommand(CLI::App& app, int& exitCode);      // isc info
void addAccuracyCommand(CLI::App& app, int& exitCode);  // isc accuracy

/// Demos: each is one file demos/<Name>Demo.cpp adding one subcommand of `isc demo`.
void addBunnyPileDemo(CLI::App& demo, int& exitCode);  // isc demo bunny-pile
void addParticlesDemo(CLI::App& demo, int& exitCode);  // isc demo particles
void addStairsDemo(CLI::App& demo, int& exitCode);     // isc demo stairs (demos/CinderDemos.cpp)
void addSnowBunnyDemo(CLI::App& demo, int& exitCode);  // isc demo snow-bunny (demos/CinderDemos.cpp)

}  // namespace isc::tool
