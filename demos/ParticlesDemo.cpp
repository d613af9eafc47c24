// isc demo particles: a bunny pile settled on a bumpy terrain by Bullet, then frozen into a
// static environment; particles poured onto it on the GPU (isc::particles::ParticleSystem,
// shared height maps), timed; the final frame written to a PNG; --check tests every particle
// against the exact environment at the end (none may be inside).
#include "Commands.h"

#include "ParticlePour.h"
#include "isc/gl/Buffer.h"
#include "isc/gl/Context.h"
#include "isc/gl/Program.h"
#include "isc/gl/VertexArray.h"
#include "isc/particles/ExactEnvironment.h"
#include "isc/particles/ParticleSystem.h"
#include "render/SceneRenderer.h"

#include "particles/bindings.h"

#include <CLI/CLI.hpp>
#include <GLFW/glfw3.h>
#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

namespace isc::tool {
namespace {

struct ParticlesOptions {
    std::size_t particles = 200000;
    int bunnies = 20;
    int settleSteps = 150;
    int steps = 300;
    int directions = 6;
    int resolution = 1024;
    std::string detector = "cpu";
    bool headless = false;
    bool check = false;
    std::string out = "particles.png";
    std::uint32_t seed = 1;
    int width = 1280, height = 720;
};

bool hasDisplay() {
    const char* x = std::getenv("DISPLAY");
    const char* w = std::getenv("WAYLAND_DISPLAY");
    return (x && *x) || (w && *w);
}

// Draws the particles as points into the SceneRenderer's framebuffer (its depth buffer
// occludes them), with the renderer's camera.
class PointRenderer {
public:
    static Result<PointRenderer> create() {
        auto p = gl::Program::create({{GL_VERTEX_SHADER, "particles/points.vert.glsl"},
                                      {GL_FRAGMENT_SHADER, "particles/points.frag.glsl"}},
                                     {}, "demo particle points");
        if (!p) return fail(p.error().message);
        PointRenderer r;
        r.program_ = std::move(*p);
        r.vao_ = gl::VertexArray("demo particle points vao");
        return r;
    }
    Result<void> draw(render::SceneRenderer& renderer, const particles::ParticleSystem& ps, Vec2 heights) {
        const render::Camera& c = renderer.camera();
        const Mat4 vp = glm::perspective(glm::radians(c.fovYDegrees), float(renderer.width()) / float(renderer.height()),
                                         c.nearPlane, c.farPlane) *
                        glm::lookAt(c.eye, c.target, c.up);
        renderer.framebuffer().bind();
        glViewport(0, 0, renderer.width(), renderer.height());
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(GL_LESS);
        glEnable(GL_PROGRAM_POINT_SIZE);
        program_.setUniform("uViewProjection", vp);
        program_.setUniform("uPointSize", 0.04f * float(renderer.height()));
        program_.setUniform("uHeightRange", heights);
        program_.use();
        ps.positionBuffer().bindBase(GL_SHADER_STORAGE_BUFFER, PT_BINDING_POSITIONS);
        vao_.bind();
        glDrawArrays(GL_POINTS, 0, GLsizei(ps.size()));
        glBindVertexArray(0);
        glDisable(GL_PROGRAM_POINT_SIZE);
        glDisable(GL_DEPTH_TEST);
        gl::Framebuffer::bindDefault();
        return gl::checkError("PointRenderer::draw()");
    }

private:
    gl::Program program_;
    gl::VertexArray vao_;
};

int runParticles(const ParticlesOptions& o) {
    if (o.particles < 1 || o.steps < 1 || o.bunnies < 0 || o.settleSteps < 0) {
        std::fprintf(stderr, "particles: --particles and --steps must be at least 1, --bunnies and --settle-steps >= 0\n");
        return 2;
    }
    std::optional<gl::Context> context;
    if (!o.headless && hasDisplay()) {
        auto w = gl::Context::createWindow(o.width, o.height, "isc particles");
        if (w) context.emplace(std::move(*w));
        else std::fprintf(stderr, "particles: no window (%s); going headless\n", w.error().message.c_str());
    }
    if (!context) {
        auto h = gl::Context::createHeadless();
        if (!h) {
            std::fprintf(stderr, "particles: no OpenGL context: %s\n", h.error().message.c_str());
            return 1;
        }
        context.emplace(std::move(*h));
    }

    auto pour = scenes::makeParticlePour(o.bunnies, o.settleSteps, o.seed, o.detector);
    if (!pour) {
        std::fprintf(stderr, "particles: %s\n", pour.error().message.c_str());
        return 1;
    }
    std::printf("particles: %zu particles poured on %d bunnies settled on a terrain (%d steps with %s, %.0f ms), "
                "%d maps at %d pixels, %s\n",
                o.particles, o.bunnies, o.settleSteps, o.detector.c_str(), pour->settleMs, o.directions, o.resolution,
                context->info().renderer.c_str());

    particles::ParticleSettings ps;
    ps.capacity = o.particles;
    ps.domain = pour->domain;
    ps.directions = o.directions;
    ps.resolution = o.resolution;
    ps.restitution = 0.25f;
    ps.friction = 0.5f;
    auto created = particles::ParticleSystem::create(ps);
    if (!created) {
        std::fprintf(stderr, "particles: %s\n", created.error().message.c_str());
        return 2;
    }
    particles::ParticleSystem& system = *created;

    auto renderer = render::SceneRenderer::create(o.width, o.height);
    auto points = PointRenderer::create();
    if (!renderer || !points) {
        std::fprintf(stderr, "particles: renderer: %s\n",
                     (!renderer ? renderer.error() : points.error()).message.c_str());
        return 1;
    }
    renderer->options().groundGrid = false;
    renderer->setObjectColor(0, Vec3(0.45f, 0.42f, 0.36f));
    const Vec3 c = pour->domain.center();
    const float span = std::max(pour->domain.extent().x, pour->domain.extent().z);
    renderer->camera().target = Vec3(c.x, pour->pile.terrain.mesh->localBounds().max.y + 0.6f, c.z);
    renderer->camera().eye = renderer->camera().target + Vec3(0.35f, 0.3f, 0.5f) * span;
    const Vec2 heights(pour->pile.terrain.mesh->localBounds().min.y, pour->source.max.y);
    auto draw = [&]() -> bool {
        if (auto r = renderer->render(pour->environment); !r) {
            std::fprintf(stderr, "particles: render: %s\n", r.error().message.c_str());
            return false;
        }
        if (auto r = points->draw(*renderer, system, heights); !r) {
            std::fprintf(stderr, "particles: %s\n", r.error().message.c_str());
            return false;
        }
        if (context->window()) {
            const auto [fw, fh] = context->framebufferSize();
            renderer->present(fw, fh);
            context->swapBuffers();
            glfwPollEvents();
        }
        return true;
    };

    // Pour during the first half of the run, the same number each step.
    const int pourSteps = std::max(1, o.steps / 2);
    std::size_t emitted = 0;
    double sumGpu = 0.0, sumWall = 0.0, mapsMs = 0.0;
    const int every = std::max(1, o.steps / 10);
    for (int s = 1; s <= o.steps; ++s) {
        const auto t0 = std::chrono::steady_clock::now();
        auto env = system.setEnvironment(pour->environment);  // re-rasterises only if a static body moved
        if (!env) {
            std::fprintf(stderr, "particles: %s\n", env.error().message.c_str());
            return 1;
        }
        if (env->refreshed) {
            mapsMs += env->gpuMs;
            std::printf("maps: %zu objects, %zu triangles (%zu large), %.2f ms GPU\n", env->objects, env->triangles,
                        env->largeTriangles, env->gpuMs);
        }
        if (s <= pourSteps) {
            const std::size_t batch = o.particles * std::size_t(s) / std::size_t(pourSteps) - emitted;
            if (auto r = system.emitBox(batch, pour->source, Vec3(0.0f, -1.0f, 0.0f), 0.6f, o.seed * 7919u + std::uint32_t(s));
                !r) {
                std::fprintf(stderr, "particles: %s\n", r.error().message.c_str());
                return 1;
            }
            emitted += batch;
        }
        if (auto r = system.step(1.0f / 60.0f); !r) {
            std::fprintf(stderr, "particles: %s\n", r.error().message.c_str());
            return 1;
        }
        const double gpuMs = system.lastStepGpuMs();  // waits for the step
        sumGpu += gpuMs;
        sumWall += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (s % every == 0 || s == o.steps) {
            auto st = system.readStats();
            if (!st) {
                std::fprintf(stderr, "particles: %s\n", st.error().message.c_str());
                return 1;
            }
            std::printf("step %4d/%d  gpu %7.3f ms/step (mean %.3f)  wall %7.2f ms  alive %llu  collisions %llu  "
                        "removed: NaN %llu, left the domain %llu\n",
                        s, o.steps, gpuMs, sumGpu / s, sumWall / s, (unsigned long long)st->alive(),
                        (unsigned long long)st->lastCollisions, (unsigned long long)st->nanRemoved,
                        (unsigned long long)st->leftDomain);
        }
        if (context->window() && s % 2 == 0) {
            if (context->shouldClose()) break;
            if (!draw()) return 1;
        }
        std::fflush(stdout);
    }
    if (!draw()) return 1;
    if (!o.out.empty()) {
        if (auto r = renderer->writePng(o.out); !r) {
            std::fprintf(stderr, "particles: %s\n", r.error().message.c_str());
            return 1;
        }
        std::printf("wrote %s\n", o.out.c_str());
    }
    auto st = system.readStats();
    if (!st) return 1;
    std::size_t inside = 0, checked = 0;
    if (o.check) {
        const particles::ExactEnvironment exact = particles::ExactEnvironment::build(pour->environment);
        std::vector<Vec4> pos;
        if (auto r = system.readParticles(&pos, nullptr); !r) return 1;
        for (const Vec4& p : pos) {
            if (p.w == 0.0f) continue;
            ++checked;
            inside += exact.inside(Vec3(p)) ? 1 : 0;
        }
        std::printf("check: %zu of %zu particles inside the environment (exact, every particle)\n", inside, checked);
    }
    std::printf("summary: particles=%zu bunnies=%d steps=%d maps=%d resolution=%d mean_step_gpu_ms=%.3f "
                "mean_step_wall_ms=%.3f maps_ms=%.2f alive=%llu nan_removed=%llu left_domain=%llu%s\n",
                o.particles, o.bunnies, o.steps, o.directions, o.resolution, sumGpu / o.steps, sumWall / o.steps, mapsMs,
                (unsigned long long)st->alive(), (unsigned long long)st->nanRemoved,
                (unsigned long long)st->leftDomain,
                o.check ? (" inside=" + std::to_string(inside)).c_str() : "");
    return inside == 0 ? 0 : 1;
}

}  // namespace

void addParticlesDemo(CLI::App& demo, int& exitCode) {
    static ParticlesOptions options;
    CLI::App* cmd = demo.add_subcommand("particles", "Pour GPU particles onto a bunny pile settled on a terrain");
    cmd->add_option("--particles", options.particles, "number of particles")->capture_default_str();
    cmd->add_option("--bunnies", options.bunnies, "bunnies settled on the terrain first (0: the terrain alone)")
        ->capture_default_str();
    cmd->add_option("--settle-steps", options.settleSteps, "Bullet steps of 1/60 s that settle the pile")
        ->capture_default_str();
    cmd->add_option("--detector", options.detector, "detector of the settling Bullet world")->capture_default_str();
    cmd->add_option("--steps", options.steps, "particle steps of 1/60 s (particles poured during the first half)")
        ->capture_default_str();
    cmd->add_option("--maps", options.directions, "height maps: 1 (along gravity) or 6 (the cube)")->capture_default_str();
    cmd->add_option("--resolution", options.resolution, "map pixels along the domain's longest side")
        ->capture_default_str();
    cmd->add_flag("--headless", options.headless, "no window even when a display exists");
    cmd->add_flag("--check", options.check, "test every particle against the exact environment at the end (exit 1 if any is inside)");
    cmd->add_option("--out", options.out, "PNG of the final frame (empty: none)")->capture_default_str();
    cmd->add_option("--seed", options.seed, "seed of the pile and the pour")->capture_default_str();
    cmd->callback([&exitCode] { exitCode = runParticles(options); });
}

}  // namespace isc::tool
