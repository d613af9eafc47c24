// The demo window: the scene, and a Dear ImGui panel with pause/step/reset, the body count, the
// detector switched live, the per-step timing plot, contacts, the detector's image-space
// buffers and an orbit camera (left drag: orbit, right drag: pan, wheel: zoom).
#include "viewer/DemoRunner.h"

#include "DetectorChoice.h"

#include "isc/bullet/CollisionDispatcher.h"
#include "isc/gl/Context.h"
#include "isc/gl/Gl.h"
#include "render/DebugViewRenderer.h"
#include "render/Image.h"

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace isc::tool {

namespace {

// Yaw/pitch/distance about a target; converts to and from render::Camera.
struct Orbit {
    Vec3 target{0.0f};
    float yaw = 0.0f, pitch = 0.3f, distance = 8.0f;

    static Orbit from(const render::Camera& c) {
        Orbit o;
        o.target = c.target;
        const Vec3 d = c.eye - c.target;
        o.distance = std::max(glm::length(d), 0.1f);
        o.yaw = std::atan2(d.x, d.z);
        o.pitch = std::asin(std::clamp(d.y / o.distance, -1.0f, 1.0f));
        return o;
    }
    void apply(render::Camera& c) const {
        c.target = target;
        c.eye = target + distance * Vec3(std::cos(pitch) * std::sin(yaw), std::sin(pitch),
                                         std::cos(pitch) * std::cos(yaw));
    }
    // Mouse input in pixels (ImGui's deltas); wheel in notches.
    void drag(float dx, float dy) {
        yaw -= 0.006f * dx;
        pitch = std::clamp(pitch + 0.006f * dy, -1.45f, 1.45f);
    }
    void pan(float dx, float dy) {
        const Vec3 forward = -Vec3(std::cos(pitch) * std::sin(yaw), std::sin(pitch), std::cos(pitch) * std::cos(yaw));
        const Vec3 right = glm::normalize(glm::cross(forward, Vec3(0, 1, 0)));
        const Vec3 up = glm::cross(right, forward);
        target += (-dx * right + dy * up) * (0.0015f * distance);
    }
    void zoom(float wheel) { distance = std::clamp(distance * std::pow(0.88f, wheel), 0.3f, 500.0f); }
};

// A titled separator (ImGui 1.86 has no SeparatorText).
void sectionTitle(const char* text) {
    ImGui::Spacing();
    ImGui::Separator();
    ImGui::TextDisabled("%s", text);
}

// 1, 2, 5 x 10^k at or above v.
double niceCeil(double v) {
    if (v <= 0.0) return 1.0;
    const double p = std::pow(10.0, std::floor(std::log10(v)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * p >= v) return m * p;
    return 10.0 * p;
}

// The per-step timing breakdown: one line per series over the kept history.
void timingPlot(const std::deque<StepSample>& history, bool gpuDetector) {
    struct Series {
        const char* name;
        ImU32 color;
        double StepSample::*field;
    };
    static const Series series[] = {
        {"step", IM_COL32(235, 235, 235, 255), &StepSample::stepMs},
        {"collision", IM_COL32(255, 160, 60, 255), &StepSample::collisionMs},
        {"detect", IM_COL32(110, 220, 110, 255), &StepSample::detectMs},
        {"contacts", IM_COL32(90, 160, 255, 255), &StepSample::contactsMs},
        {"gpu", IM_COL32(230, 100, 230, 255), &StepSample::gpuMs},
    };
    const int seriesCount = gpuDetector ? 5 : 4;
    double top = 0.0;
    for (const StepSample& s : history) top = std::max(top, s.stepMs);
    top = niceCeil(top);
    const ImVec2 size(ImGui::GetContentRegionAvail().x, 120.0f);
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(p0, ImVec2(p0.x + size.x, p0.y + size.y), IM_COL32(20, 22, 28, 255));
    for (int g = 1; g < 4; ++g) {
        const float y = p0.y + size.y * float(g) / 4.0f;
        draw->AddLine(ImVec2(p0.x, y), ImVec2(p0.x + size.x, y), IM_COL32(60, 62, 70, 255));
    }
    const std::size_t n = history.size();
    if (n >= 2) {
        std::vector<ImVec2> points(n);
        for (int k = 0; k < seriesCount; ++k) {
            for (std::size_t i = 0; i < n; ++i) {
                const double v = history[i].*(series[k].field);
                points[i] = ImVec2(p0.x + size.x * float(i) / float(DemoSession::kHistory - 1),
                                   p0.y + size.y * (1.0f - float(std::min(v / top, 1.0))));
            }
            draw->AddPolyline(points.data(), int(n), series[k].color, ImDrawFlags_None, 1.5f);
        }
    }
    char label[32];
    std::snprintf(label, sizeof label, "%g ms", top);
    draw->AddText(ImVec2(p0.x + 4, p0.y + 2), IM_COL32(200, 200, 200, 255), label);
    ImGui::Dummy(size);
    // Legend with the mean of the last 30 steps.
    for (int k = 0; k < seriesCount; ++k) {
        double sum = 0.0;
        std::size_t count = 0;
        for (std::size_t i = n > 30 ? n - 30 : 0; i < n; ++i, ++count) sum += history[i].*(series[k].field);
        if (k > 0) ImGui::SameLine();
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(series[k].color), "%s %.2f", series[k].name,
                           count ? sum / double(count) : 0.0);
    }
}

}  // namespace

int runWindow(DemoSession& session, gl::Context& context, render::SceneRenderer& renderer, const DemoOptions& o,
              const std::vector<ScheduledSwitch>& switches, const std::string& title) {
    GLFWwindow* window = context.window();
    glfwSwapInterval(1);
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // no imgui.ini beside the user's files
    ImGui::StyleColorsDark();
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 450 core");
    struct ImGuiScope {
        ~ImGuiScope() {
            ImGui_ImplOpenGL3_Shutdown();
            ImGui_ImplGlfw_Shutdown();
            ImGui::DestroyContext();
        }
    } imguiScope;

    auto overlay = render::DebugViewRenderer::create();
    if (!overlay) {
        std::fprintf(stderr, "isc demo %s: %s\n", title.c_str(), overlay.error().message.c_str());
        return 1;
    }
    const render::Camera startCamera = renderer.camera();
    Orbit orbit = Orbit::from(startCamera);
    const std::vector<std::string> choices = detectorChoices(true);
    bool paused = false, stepOnce = false, drawContacts = true, contactsOnTop = true, showOverlay = true;
    int stepsPerFrame = 1, bodies = session.bodies(), viewIndex = 0;
    std::string message;  // the last error or switch, shown in the panel
    std::size_t nextSwitch = 0;
    const int every = o.stepsGiven ? std::max(1, o.steps / 10) : 60;  // until closed: once a simulated second
    int frame = 0;

    while (!context.shouldClose()) {
        glfwPollEvents();
        // Simulation.
        const int toRun = paused ? (stepOnce ? 1 : 0) : stepsPerFrame;
        stepOnce = false;
        for (int k = 0; k < toRun; ++k) {
            const int next = session.steps() + 1;
            for (; nextSwitch < switches.size() && switches[nextSwitch].step <= next; ++nextSwitch) {
                auto ok = switchDetectorLive(session, switches[nextSwitch].detector);
                message = ok ? "switched to " + switches[nextSwitch].detector : ok.error().message;
                if (!ok) std::fprintf(stderr, "isc demo %s: %s\n", title.c_str(), message.c_str());
            }
            if (auto ok = session.step(); !ok) {
                std::fprintf(stderr, "isc demo %s: %s\n", title.c_str(), ok.error().message.c_str());
                return 1;
            }
            session.reportAutoChoice(stdout);
            if (session.steps() % every == 0) printStepLine(session, o.stepsGiven ? o.steps : 0, o.detectorStats);
            if (!o.frames.empty() && session.steps() % o.frameEvery == 0) {
                if (auto ok = writeFrame(session, renderer, o.frames, ++frame, drawContacts); !ok) {
                    std::fprintf(stderr, "isc demo %s: %s\n", title.c_str(), ok.error().message.c_str());
                    return 1;
                }
            }
        }
        const bool last = o.stepsGiven && session.steps() >= o.steps;

        // Camera from the mouse, unless the panel has it.
        if (!io.WantCaptureMouse) {
            if (ImGui::IsMouseDown(ImGuiMouseButton_Left)) orbit.drag(io.MouseDelta.x, io.MouseDelta.y);
            if (ImGui::IsMouseDown(ImGuiMouseButton_Right) || ImGui::IsMouseDown(ImGuiMouseButton_Middle))
                orbit.pan(io.MouseDelta.x, io.MouseDelta.y);
            if (io.MouseWheel != 0.0f) orbit.zoom(io.MouseWheel);
        }
        orbit.apply(renderer.camera());

        // The scene, right of the panel (framebuffer pixels may differ from window pixels).
        const auto [fw, fh] = context.framebufferSize();
        if (fw <= 0 || fh <= 0) continue;  // minimised
        const float panelWidth = std::min(400.0f, io.DisplaySize.x * 0.45f);
        const float pixelScale = io.DisplaySize.x > 0.0f ? float(fw) / io.DisplaySize.x : 1.0f;
        const int sceneX = std::min(fw - 1, int(panelWidth * pixelScale));
        renderer.resize(fw - sceneX, fh);
        if (auto ok = drawScene(session, renderer, drawContacts, contactsOnTop); !ok) {
            std::fprintf(stderr, "isc demo %s: %s\n", title.c_str(), ok.error().message.c_str());
            return 1;
        }
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
        glViewport(0, 0, fw, fh);
        glClearColor(0.12f, 0.13f, 0.16f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        renderer.present(sceneX, 0, fw - sceneX, fh);

        // The image-space buffers of the detector's last call.
        const std::vector<DetectorDebugView> views = session.debugViews();
        viewIndex = std::clamp(viewIndex, 0, std::max(0, int(views.size()) - 1));
        double overlayMax = 0.0;
        bool overlayReady = false;
        if (showOverlay && !views.empty()) {
            auto drawn = overlay->draw(views[std::size_t(viewIndex)]);
            overlayReady = drawn.has_value();
            if (drawn) overlayMax = *drawn;
            else message = drawn.error().message;
        }

        ImGui_ImplOpenGL3_NewFrame();
        ImGui_ImplGlfw_NewFrame();
        ImGui::NewFrame();
        ImGui::SetNextWindowPos(ImVec2(0, 0), ImGuiCond_Always);
        ImGui::SetNextWindowSize(ImVec2(panelWidth, io.DisplaySize.y), ImGuiCond_Always);
        ImGui::Begin("bullet-isc", nullptr, ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize);
        ImGui::TextWrapped("%s: %s", title.c_str(), session.demo().describe().c_str());
        ImGui::TextDisabled("%s", context.info().renderer.c_str());
        ImGui::Text("step %d  (%.2f s simulated)", session.steps(), session.steps() / 60.0);
        if (ImGui::Button(paused ? "Run" : "Pause")) paused = !paused;
        ImGui::SameLine();
        if (ImGui::Button("Step")) paused = true, stepOnce = true;
        ImGui::SameLine();
        if (ImGui::Button("Reset")) {
            auto ok = session.reset(bodies);
            message = ok ? "reset with " + std::to_string(bodies) + " bodies" : ok.error().message;
            if (ok) session.reportDetector(stdout);
        }
        ImGui::SliderInt("bodies", &bodies, 1, 300);
        ImGui::SameLine();
        ImGui::TextDisabled("(Reset)");
        ImGui::SliderInt("steps/frame", &stepsPerFrame, 1, 8);

        sectionTitle("detector");
        const std::string current = session.detector();
        if (ImGui::BeginCombo("##detector", current.c_str())) {
            for (const std::string& name : choices) {
                if (ImGui::Selectable(name.c_str(), name == current) && name != current) {
                    auto ok = switchDetectorLive(session, name);
                    message = ok ? "switched to " + name : ok.error().message;
                }
            }
            ImGui::EndCombo();
        }
        ImGui::TextWrapped("%s", session.detectorLine().c_str());

        sectionTitle("per step, ms");
        const bool gpu = session.world().dispatcher() && session.world().dispatcher()->detector() &&
                         session.world().dispatcher()->detector()->usesGl();
        timingPlot(session.history(), gpu);
        bullet::RigidWorld& world = session.world();
        ImGui::Text("contacts %d   max speed %.2f m/s", world.contactCount(), world.maxSpeed());
        if (const bullet::CollisionDispatcher* d = world.dispatcher())
            ImGui::Text("mesh pairs %zu, colliding %zu, triangle pairs %zu", d->lastStats().meshPairs,
                        d->lastStats().collidingPairs, d->lastStats().trianglePairs);

        if (session.demo().panel()) {
            auto ok = session.reset(bodies);
            message = ok ? "rebuilt" : ok.error().message;
        }
        if (!message.empty()) ImGui::TextWrapped("%s", message.c_str());
        sectionTitle("camera: left drag orbits, right drag pans, wheel zooms");
        if (ImGui::Button("Reset camera")) orbit = Orbit::from(startCamera);
        sectionTitle("show");
        ImGui::Checkbox("contacts (points, normals)", &drawContacts);
        ImGui::SameLine();
        ImGui::Checkbox("on top", &contactsOnTop);
        ImGui::Checkbox("image-space buffers", &showOverlay);
        if (views.empty()) {
            ImGui::TextDisabled("%s exposes no image-space buffers", session.runningDetector().c_str());
        } else {
            for (int i = 0; i < int(views.size()); ++i) {
                if (i > 0) ImGui::SameLine();
                ImGui::RadioButton(views[std::size_t(i)].name.c_str(), &viewIndex, i);
            }
        }
        ImGui::End();

        if (showOverlay && overlayReady) {
            // The detector's buffer of its last call, in its own window at the scene's lower
            // right corner (movable). Rows from the bottom: v flipped.
            const DetectorDebugView& v = views[std::size_t(viewIndex)];
            const float side = std::min(io.DisplaySize.x - panelWidth, io.DisplaySize.y) * 0.38f;
            const float aspect = float(overlay->width()) / float(std::max(overlay->height(), 1));
            const ImVec2 imageSize = aspect >= 1.0f ? ImVec2(side, side / aspect) : ImVec2(side * aspect, side);
            ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - 8.0f, io.DisplaySize.y - 8.0f), ImGuiCond_FirstUseEver,
                                    ImVec2(1.0f, 1.0f));
            ImGui::SetNextWindowBgAlpha(0.85f);
            ImGui::Begin("image-space buffer", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
            ImGui::Text("%s: %s", session.runningDetector().c_str(), v.name.c_str());
            ImGui::TextDisabled("%dx%d px, largest %g", v.width, v.height, overlayMax);
            ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<std::uintptr_t>(overlay->texture().id())),
                         imageSize, ImVec2(0, 1), ImVec2(1, 0));
            ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + imageSize.x);
            ImGui::TextDisabled("%s", v.description.c_str());
            ImGui::PopTextWrapPos();
            ImGui::End();
        }

        ImGui::Render();
        glViewport(0, 0, fw, fh);
        ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
        if (last && !o.screenshot.empty()) {
            glFinish();
            glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
            glReadBuffer(GL_BACK);
            if (auto ok = render::writePng(o.screenshot, fw, fh, render::readFramebuffer(fw, fh)); !ok) {
                std::fprintf(stderr, "isc demo %s: --screenshot: %s\n", title.c_str(), ok.error().message.c_str());
                return 1;
            }
            std::printf("wrote %s (%dx%d, window with panel)\n", o.screenshot.c_str(), fw, fh);
        }
        context.swapBuffers();
        if (auto ok = gl::checkError("demo window frame"); !ok) {
            std::fprintf(stderr, "isc demo %s: %s\n", title.c_str(), ok.error().message.c_str());
            return 1;
        }
        if (last) break;
    }
    if (session.steps() % every != 0) printStepLine(session, o.stepsGiven ? o.steps : 0, o.detectorStats);
    return 0;
}

}  // namespace isc::tool
