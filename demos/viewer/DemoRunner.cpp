// `isc demo <name>`: the options every demo takes, the GL context (a window where a display
// exists, headless with --headless), the headless loop, frames and the final picture.
#include "viewer/DemoRunner.h"

#include "DetectorArgs.h"
#include "DetectorChoice.h"
#include "Progress.h"

#include "isc/bullet/CollisionDispatcher.h"
#include "isc/gl/Context.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>

namespace isc::tool {

namespace {

bool hasDisplay() {
    const char* x = std::getenv("DISPLAY");
    const char* w = std::getenv("WAYLAND_DISPLAY");
    return (x && *x) || (w && *w);
}

Result<std::vector<ScheduledSwitch>> parseSwitches(const std::vector<std::string>& items) {
    std::vector<ScheduledSwitch> out;
    for (const std::string& item : items) {
        const std::size_t colon = item.find(':');
        int step = 0;
        if (colon == std::string::npos || !detail::parseValue(std::string_view(item).substr(0, colon), step) || step < 1)
            return fail("--switch " + item + ": expected STEP:DETECTOR with STEP >= 1 (e.g. 60:peel)");
        const std::string name = item.substr(colon + 1);
        if (auto ok = checkDetectorName(name, true); !ok) return fail("--switch " + item + ": " + ok.error().message);
        out.push_back({step, name});
    }
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.step < b.step; });
    return out;
}

int runHeadless(DemoSession& session, render::SceneRenderer& renderer, const DemoOptions& o,
                const std::vector<ScheduledSwitch>& switches) {
    Progress progress("steps", std::size_t(o.steps));
    const int every = std::max(1, o.steps / 10);
    std::size_t nextSwitch = 0;
    int frame = 0;
    for (int s = 1; s <= o.steps; ++s) {
        for (; nextSwitch < switches.size() && switches[nextSwitch].step <= s; ++nextSwitch) {
            progress.finish();
            if (auto ok = switchDetectorLive(session, switches[nextSwitch].detector); !ok) {
                std::fprintf(stderr, "isc demo: %s\n", ok.error().message.c_str());
                return 1;
            }
        }
        if (auto ok = session.step(); !ok) {
            progress.finish();
            std::fprintf(stderr, "isc demo: %s\n", ok.error().message.c_str());
            return 1;
        }
        const bool line = s % every == 0 || s == o.steps;
        if (line || session.autoChoicePending()) progress.finish();  // printed lines go above the bar
        session.reportAutoChoice(stdout);
        if (line) printStepLine(session, o.steps, o.detectorStats);
        if (!o.frames.empty() && s % o.frameEvery == 0) {
            if (auto ok = writeFrame(session, renderer, o.frames, ++frame, o.contacts); !ok) {
                std::fprintf(stderr, "isc demo: %s\n", ok.error().message.c_str());
                return 1;
            }
        }
        char note[64];
        std::snprintf(note, sizeof note, "%.1f ms/step", session.run().meanStepMs);
        progress.update(std::size_t(s), note);
    }
    progress.finish();
    if (!o.frames.empty())
        std::printf("wrote %d frames to %s (docs/demos.md: ffmpeg -framerate %d -i %s/frame_%%06d.png ... out.mp4)\n",
                    frame, o.frames.c_str(), std::max(1, 60 / o.frameEvery), o.frames.c_str());
    return 0;
}

int runDemo(const DemoCommand& command, DemoOptions o, const std::vector<ScheduledSwitch>& switches) {
    const std::string who = "isc demo " + command.name;
    // Bad input first, before a window or a context is made.
    if (o.bodies < 1 || o.steps < 1) {
        std::fprintf(stderr, "%s: --bodies and --steps must be at least 1\n", who.c_str());
        return 2;
    }
    if (o.frameEvery < 1) {
        std::fprintf(stderr, "%s: --frame-every must be at least 1\n", who.c_str());
        return 2;
    }
    if (auto ok = checkDetectorName(o.detector, true); !ok) {
        std::fprintf(stderr, "%s: %s\n", who.c_str(), ok.error().message.c_str());
        return 2;
    }
    auto options = parseSets(o.sets);
    if (options) {
        if (auto ok = checkOptionNames(*options); !ok) options = std::unexpected(ok.error());
    }
    if (!options) {
        std::fprintf(stderr, "%s: %s\n", who.c_str(), options.error().message.c_str());
        return 2;
    }
    if (!o.frames.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(o.frames, ec);
        if (ec) {
            std::fprintf(stderr, "%s: --frames %s: cannot make the folder (%s)\n", who.c_str(), o.frames.c_str(),
                         ec.message().c_str());
            return 1;
        }
    }

    // The GL context comes first: GL detectors need it current when they are created.
    std::optional<gl::Context> context;
    if (!o.headless) {
        if (!hasDisplay()) {
            std::fprintf(stderr,
                         "%s: no display to open a window on (DISPLAY and WAYLAND_DISPLAY are not set).\n"
                         "  Add --headless to run without a window and write PNGs (--out, --frames).\n",
                         who.c_str());
            return 2;
        }
        auto w = gl::Context::createWindow(o.width, o.height, "isc demo " + command.name);
        if (!w) {
            std::fprintf(stderr, "%s: cannot open a window: %s\n  Add --headless to run without a window.\n",
                         who.c_str(), w.error().message.c_str());
            return 1;
        }
        context.emplace(std::move(*w));
    } else {
        auto h = gl::Context::createHeadless();
        if (!h) {
            std::fprintf(stderr, "%s: no OpenGL context: %s\n", who.c_str(), h.error().message.c_str());
            return 1;
        }
        context.emplace(std::move(*h));
    }

    std::unique_ptr<Demo> demo = command.make();
    auto made = DemoSession::create(*demo, o.detector, *options, o.bodies, o.seed);
    if (!made) {
        std::fprintf(stderr, "%s: %s\n", who.c_str(), made.error().message.c_str());
        return 2;
    }
    DemoSession& session = **made;
    int rw = o.width, rh = o.height;
    if (context->window()) std::tie(rw, rh) = context->framebufferSize();
    auto renderer = render::SceneRenderer::create(std::max(rw, 1), std::max(rh, 1));
    if (!renderer) {
        std::fprintf(stderr, "%s: renderer: %s\n", who.c_str(), renderer.error().message.c_str());
        return 1;
    }
    renderer->camera() = demo->camera();

    const std::string length = context->window() && !o.stepsGiven
                                   ? std::string("steps of 1/60 s until the window closes")
                                   : std::to_string(o.steps) + " steps of 1/60 s";
    std::printf("%s: %s, %s, %s\n", command.name.c_str(), demo->describe().c_str(), length.c_str(),
                context->info().renderer.c_str());
    session.reportDetector(stdout);

    const int code = context->window() ? runWindow(session, *context, *renderer, o, switches, command.name)
                                       : runHeadless(session, *renderer, o, switches);
    if (code != 0) return code;
    if (!o.out.empty()) {
        if (auto ok = drawScene(session, *renderer, o.contacts); !ok) {
            std::fprintf(stderr, "%s: %s\n", who.c_str(), ok.error().message.c_str());
            return 1;
        }
        if (auto ok = renderer->writePng(o.out); !ok) {
            std::fprintf(stderr, "%s: %s\n", who.c_str(), ok.error().message.c_str());
            return 1;
        }
        std::printf("wrote %s\n", o.out.c_str());
    }
    demo->printSummary(session.run(), session.world());
    return 0;
}

}  // namespace

Result<void> switchDetectorLive(DemoSession& session, const std::string& detector) {
    if (auto ok = session.switchDetector(detector); !ok)
        return fail("cannot switch to " + detector + " at step " + std::to_string(session.steps()) + ": " +
                    ok.error().message);
    std::printf("switched detector to %s at step %d (%d bodies keep their state)\n", detector.c_str(),
                session.steps(), session.bodies());
    session.reportDetector(stdout);
    return {};
}

Result<void> drawScene(DemoSession& session, render::SceneRenderer& renderer, bool contacts, bool contactsOnTop) {
    session.syncScene();
    if (auto ok = renderer.render(session.demo().scene()); !ok) return ok;
    if (contacts) return renderer.drawLines(session.contactLines(0.12f), contactsOnTop);
    return {};
}

Result<void> writeFrame(DemoSession& session, render::SceneRenderer& renderer, const std::string& dir, int index,
                        bool contacts) {
    if (auto ok = drawScene(session, renderer, contacts); !ok) return ok;
    char name[32];
    std::snprintf(name, sizeof name, "frame_%06d.png", index);
    return renderer.writePng((std::filesystem::path(dir) / name).string());
}

void printStepLine(DemoSession& session, int total, bool detectorStats) {
    const DemoRun r = session.run();
    bullet::RigidWorld& w = session.world();
    char of[16] = "";  // "/300", or nothing when the run has no set length (a window)
    if (total > 0) std::snprintf(of, sizeof of, "/%d", total);
    std::printf("step %4d%s  %7.2f ms/step  collision %7.2f ms  max speed %.3f m/s  contacts %d  [%s]\n", r.steps, of,
                r.meanStepMs, r.meanCollisionMs, w.maxSpeed(), w.contactCount(), session.runningDetector().c_str());
    if (detectorStats && w.dispatcher()) {
        const bullet::CollisionDispatcher& d = *w.dispatcher();
        const bullet::DispatchStats& ds = d.lastStats();
        const DetectorStats& st = d.lastDetectorStats();
        std::printf("  dispatch %.2f ms (mirror %.2f, detect %.2f, exact path %.2f, contacts %.2f, bullet %.2f), mesh "
                    "pairs %zu, colliding %zu, triangle pairs %zu, fallback pairs %zu, sample pairs %zu\n",
                    ds.totalMs, ds.mirrorMs, ds.detectMs, ds.fallbackMs, ds.contactsMs, ds.bulletMs, ds.meshPairs,
                    ds.collidingPairs, ds.trianglePairs, ds.fallbackPairs, ds.samplePairs);
        std::printf("  detector total %.2f ms, gpu %.2f, readback %.2f, cpu %.2f:", st.totalMs, st.gpuMs,
                    st.readbackMs, st.cpuMs);
        for (const auto& [name, value] : st.counters) std::printf(" %s=%.6g", name.c_str(), value);
        std::printf("\n");
    }
    std::fflush(stdout);
}

CLI::App* addDemoCommand(CLI::App& demo, DemoCommand command, int& exitCode) {
    auto o = std::make_shared<DemoOptions>();
    auto cmd = std::make_shared<DemoCommand>(std::move(command));
    o->bodies = cmd->defaultBodies;
    o->steps = cmd->defaultSteps;
    CLI::App* app = demo.add_subcommand(cmd->name, cmd->description);
    app->add_option("--bodies", o->bodies, "number of bodies")->capture_default_str();
    app->add_option("--steps", o->steps,
                    "steps of 1/60 s (headless; a window runs until closed unless this is given)")
        ->capture_default_str();
    app->add_option("--detector", o->detector,
                    "detector: " + detectorChoiceList(true) +
                        " (auto: the fastest exact one for this GL; bullet-gimpact: stock Bullet)")
        ->capture_default_str();
    app->add_flag("--headless", o->headless, "no window: run the steps and write PNGs (--out, --frames)");
    app->add_option("--out", o->out, "PNG of the final frame (headless default: <demo>.png; empty: none)");
    app->add_option("--frames", o->frames,
                    "folder for numbered frames frame_000001.png, ... (a video: docs/demos.md)");
    app->add_option("--frame-every", o->frameEvery, "write a frame every N steps")->capture_default_str();
    app->add_option("--seed", o->seed, "seed of the scene's randomness")->capture_default_str();
    app->add_option("--width", o->width, "picture / window width in pixels")->capture_default_str();
    app->add_option("--height", o->height, "picture / window height in pixels")->capture_default_str();
    addSetOption(app, o->sets);
    app->add_option("--switch", o->switches,
                    "STEP:DETECTOR, repeatable: switch the detector live before that step (as the window's list does)")
        ->expected(1)
        ->take_all();
    app->add_flag("--contacts", o->contacts, "draw contact points and normals into the pictures (headless)");
    app->add_option("--screenshot", o->screenshot, "window: PNG of the whole window (panel included) at the end");
    app->add_flag("--detector-stats", o->detectorStats,
                  "print the dispatcher's split and the detector's counters with each progress line");
    app->callback([o, cmd, app, &exitCode] {
        DemoOptions run = *o;
        run.stepsGiven = app->count("--steps") > 0;
        run.outGiven = app->count("--out") > 0;
        if (!run.outGiven && run.headless) run.out = cmd->name + ".png";
        auto switches = parseSwitches(run.switches);
        if (!switches) {
            std::fprintf(stderr, "isc demo %s: %s\n", cmd->name.c_str(), switches.error().message.c_str());
            exitCode = 2;
            return;
        }
        exitCode = runDemo(*cmd, run, *switches);
    });
    return app;
}

}  // namespace isc::tool
