// The `isc` executable: user-facing tools (info, accuracy) and the demos.
#include "Commands.h"

#include <CLI/CLI.hpp>

int main(int argc, char** argv) {
    CLI::App app{"bullet-isc: image-space collision detection for Bullet"};
    app.require_subcommand(1);
    int exitCode = 0;
    isc::tool::addInfoCommand(app, exitCode);
    isc::tool::addAccuracyCommand(app, exitCode);
    CLI::App* demo = app.add_subcommand("demo", "Demos (a window where a display exists, --headless for PNGs)");
    demo->require_subcommand(1);
    isc::tool::addBunnyPileDemo(*demo, exitCode);
    isc::tool::addParticlesDemo(*demo, exitCode);
    isc::tool::addStairsDemo(*demo, exitCode);
    isc::tool::addSnowBunnyDemo(*demo, exitCode);
    CLI11_PARSE(app, argc, argv);
    return exitCode;
}
