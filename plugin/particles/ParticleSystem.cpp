#include "isc/particles/ParticleSystem.h"

#include "isc/gl/Bindings.h"
#include "isc/gl/Buffer.h"
#include "isc/gl/Gl.h"
#include "isc/gl/GpuScene.h"
#include "isc/gl/Program.h"
#include "isc/gl/Query.h"
#include "isc/gl/ReadbackBuffer.h"
#include "isc/scene/Scene.h"

#include "particles/bindings.h"  // shaders/: PtMap

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace isc::particles {

static_assert(sizeof(gl::PtMap) == 64, "PtMap must match its std430 layout");

namespace {

constexpr std::uint32_t kNoSurface = 0x7F800000u;  // +inf: no environment in the column
constexpr GLuint kMaxGroups = 65535;                // GL's guaranteed work-group count per dimension

int largestAxis(const Vec3& v) {
    const Vec3 a = glm::abs(v);
    return a.x >= a.y && a.x >= a.z ? 0 : a.y >= a.z ? 1 : 2;
}

std::string describe(const Vec3& v) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "(%g, %g, %g)", double(v.x), double(v.y), double(v.z));
    return buf;
}

// One static object as the maps last saw it.
struct EnvEntry {
    ObjectId object;
    const Mesh* mesh;
    Pose pose;
    std::uint64_t version;
    bool operator==(const EnvEntry& o) const {
        return object == o.object && mesh == o.mesh && version == o.version &&
               std::memcmp(&pose, &o.pose, sizeof(Pose)) == 0;
    }
};

}  // namespace

struct ParticleSystem::Impl {
    ParticleSettings settings;
    float clearance = 0.0f;  // radius, at least 1e-5 of the domain
    float pixel = 0.0f;
    std::vector<gl::PtMap> maps;
    std::size_t mapPixels = 0;
    std::size_t largestMapPixels = 0;  // pixels of the largest map (splits the big raster items)
    std::size_t count = 0;
    gl::Buffer positions{"particles positions"}, velocities{"particles velocities"}, mapBuffer{"particles maps"},
        depths{"particles map depths"}, normals{"particles map normals"}, counters{"particles counters"},
        big{"particles large triangles"};
    std::size_t bigCapacity = 4096;
    // Reads go through a GPU copy into this mapped host buffer and a fence, never
    // glGetBufferSubData on the buffers the shaders write: NVIDIA's driver moved buffers read
    // that way (the positions, every frame an app draws them) to host memory, and every step's
    // stores with them.
    mutable gl::MappedCopy readback{"particles read-back"};
    gl::Program stepProgram, emitProgram, mapsProgram;
    gl::GpuScene scene{"particles environment"};
    std::vector<const Mesh*> syncedMeshes;
    std::vector<EnvEntry> environment;
    bool environmentSet = false;
    gl::Query stepBegin{"particles step begin", GL_TIMESTAMP}, stepEnd{"particles step end", GL_TIMESTAMP};
    bool stepTimed = false;

    void bindParticles() const {
        positions.bindBase(GL_SHADER_STORAGE_BUFFER, PT_BINDING_POSITIONS);
        velocities.bindBase(GL_SHADER_STORAGE_BUFFER, PT_BINDING_VELOCITIES);
        mapBuffer.bindBase(GL_SHADER_STORAGE_BUFFER, PT_BINDING_MAPS);
        depths.bindBase(GL_SHADER_STORAGE_BUFFER, PT_BINDING_DEPTHS);
        normals.bindBase(GL_SHADER_STORAGE_BUFFER, PT_BINDING_NORMALS);
        counters.bindBase(GL_SHADER_STORAGE_BUFFER, PT_BINDING_COUNTERS);
    }
    void syncScene(const Scene& sc) {
        bool same = sc.meshCount() >= syncedMeshes.size() && sc.objectCount() >= scene.objectCount();
        for (MeshId m = 0; same && m < syncedMeshes.size(); ++m) same = &sc.mesh(m) == syncedMeshes[m];
        for (ObjectId o = 0; same && o < scene.objectCount(); ++o) same = scene.object(o).mesh == sc.meshOf(o);
        if (!same) scene = gl::GpuScene("particles environment");
        syncedMeshes.resize(sc.meshCount());
        for (MeshId m = 0; m < sc.meshCount(); ++m) syncedMeshes[m] = &sc.mesh(m);
        scene.sync(sc);
    }
    Result<void> checkCapacity(std::size_t more, const char* who) const {
        if (more > settings.capacity - count)
            return fail(std::string(who) + ": " + std::to_string(more) + " more particles would make " +
                        std::to_string(count + more) + "; the capacity is " + std::to_string(settings.capacity) +
                        " (ParticleSettings::capacity): nothing was emitted");
        return {};
    }
};

std::size_t ParticleSystem::maxCapacity() {
    GLint64 block = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
    return block > 0 ? std::size_t(block) / 16 : 0;
}

Result<ParticleSystem> ParticleSystem::create(const ParticleSettings& s) {
    if (glad_glCreateBuffers == nullptr)
        return fail("ParticleSystem::create(): no current GL context; create one with isc::gl::Context first");
    if (s.domain.isEmpty() || !std::isfinite(s.domain.min.x) || !std::isfinite(s.domain.max.x) ||
        !std::isfinite(s.domain.min.y) || !std::isfinite(s.domain.max.y) || !std::isfinite(s.domain.min.z) ||
        !std::isfinite(s.domain.max.z) || glm::min(s.domain.extent().x, glm::min(s.domain.extent().y, s.domain.extent().z)) <= 0.0f)
        return fail("ParticleSystem::create(): the domain " + describe(s.domain.min) + " - " + describe(s.domain.max) +
                    " is empty or not finite; give a box with min < max on every axis");
    if (s.resolution < 16 || s.resolution > 8192)
        return fail("ParticleSystem::create(): resolution " + std::to_string(s.resolution) + " is outside [16, 8192]");
    if (s.directions != 1 && s.directions != 6)
        return fail("ParticleSystem::create(): directions must be 1 (along gravity) or 6 (the cube), got " +
                    std::to_string(s.directions));
    if (!(s.restitution >= 0.0f && s.restitution <= 1.0f) || !(s.friction >= 0.0f) || !std::isfinite(s.friction) ||
        !(s.radius >= 0.0f) || !std::isfinite(s.radius))
        return fail("ParticleSystem::create(): restitution must be in [0, 1], friction and radius finite and >= 0");
    if (!std::isfinite(s.gravity.x) || !std::isfinite(s.gravity.y) || !std::isfinite(s.gravity.z))
        return fail("ParticleSystem::create(): gravity " + describe(s.gravity) + " is not finite");
    if (s.capacity == 0) return fail("ParticleSystem::create(): capacity is 0; give the most particles you will emit");
    GLint64 block = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
    const std::size_t limit = std::min<std::size_t>(block > 0 ? std::size_t(block) / 16 : 0, UINT32_MAX);
    if (s.capacity > limit)
        return fail("ParticleSystem::create(): capacity " + std::to_string(s.capacity) + " particles needs " +
                    std::to_string(s.capacity * 16) + " bytes in each of its two buffers (16 bytes a particle), " +
                    "more than this driver's GL_MAX_SHADER_STORAGE_BLOCK_SIZE of " + std::to_string(block) +
                    " bytes: at most " + std::to_string(limit) + " particles here; ask for fewer");

    auto impl = std::make_unique<Impl>();
    Impl& im = *impl;
    im.settings = s;
    const Vec3 ext = s.domain.extent();
    const float longest = std::max({ext.x, ext.y, ext.z});
    im.clearance = std::max(s.radius, 1e-5f * longest);
    im.pixel = longest / float(s.resolution);
    // The maps: gravity's direction first, then (6) its opposite and the other axes both ways.
    const int g = largestAxis(s.gravity);
    const float gs = s.gravity[g] > 0.0f ? 1.0f : -1.0f;
    std::vector<Vec3> dirs;
    Vec3 d(0.0f);
    d[g] = gs;
    dirs.push_back(d);
    if (s.directions == 6) {
        dirs.push_back(-d);
        for (int k = 1; k <= 2; ++k) {
            Vec3 e(0.0f);
            e[(g + k) % 3] = 1.0f;
            dirs.push_back(-e);
            dirs.push_back(e);
        }
    }
    for (const Vec3& dir : dirs) {
        gl::PtMap m{};
        const int a = largestAxis(dir), u = (a + 1) % 3, v = (a + 2) % 3;
        const bool positive = dir[a] > 0.0f;
        m.direction = Vec4(dir, positive ? s.domain.min[a] : -s.domain.max[a]);
        m.origin = Vec4(s.domain.min[u], s.domain.min[v], im.pixel, ext[a]);
        m.axis = std::uint32_t(a);
        m.axisU = std::uint32_t(u);
        m.axisV = std::uint32_t(v);
        m.width = std::max<std::uint32_t>(1, std::uint32_t(std::ceil(ext[u] / im.pixel)));
        m.height = std::max<std::uint32_t>(1, std::uint32_t(std::ceil(ext[v] / im.pixel)));
        m.offset = std::uint32_t(im.mapPixels);
        im.mapPixels += std::size_t(m.width) * m.height;
        im.largestMapPixels = std::max(im.largestMapPixels, std::size_t(m.width) * m.height);
        im.maps.push_back(m);
    }
    if (im.mapPixels * 4 > std::size_t(block))
        return fail("ParticleSystem::create(): the maps need " + std::to_string(im.mapPixels * 4) +
                    " bytes, more than GL_MAX_SHADER_STORAGE_BLOCK_SIZE (" + std::to_string(block) +
                    "); lower the resolution");

    auto stepP = gl::Program::create({{GL_COMPUTE_SHADER, "particles/step.glsl"}}, {}, "particles step");
    if (!stepP) return fail("ParticleSystem::create(): " + stepP.error().message);
    auto emitP = gl::Program::create({{GL_COMPUTE_SHADER, "particles/emit.glsl"}}, {}, "particles emit");
    if (!emitP) return fail("ParticleSystem::create(): " + emitP.error().message);
    auto mapsP = gl::Program::create({{GL_COMPUTE_SHADER, "particles/env_maps.glsl"}}, {}, "particles maps");
    if (!mapsP) return fail("ParticleSystem::create(): " + mapsP.error().message);
    im.stepProgram = std::move(*stepP);
    im.emitProgram = std::move(*emitP);
    im.mapsProgram = std::move(*mapsP);

    while (glGetError() != GL_NO_ERROR) {
    }
    im.positions.allocate(s.capacity * 16);
    im.velocities.allocate(s.capacity * 16);
    if (const GLenum e = glGetError(); e != GL_NO_ERROR)
        return fail("ParticleSystem::create(): allocating two buffers of " + std::to_string(s.capacity * 16) +
                    " bytes for " + std::to_string(s.capacity) + " particles failed (" + gl::enumName(e) +
                    "): the GPU has not that much memory free; ask for fewer");
    im.mapBuffer.allocate(im.maps.size() * sizeof(gl::PtMap), im.maps.data(), 0);
    im.depths.allocate(im.mapPixels * 4);
    im.normals.allocate(im.mapPixels * 4);
    im.counters.allocate(PT_COUNTER_COUNT * 4);
    im.counters.clearZero();
    // No environment yet: every column free.
    glClearNamedBufferData(im.depths.id(), GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &kNoSurface);
    im.normals.clearZero();
    if (auto e = gl::checkError("ParticleSystem::create()"); !e) return fail(e.error().message);
    return ParticleSystem(std::move(impl));
}

ParticleSystem::ParticleSystem(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ParticleSystem::ParticleSystem(ParticleSystem&&) noexcept = default;
ParticleSystem& ParticleSystem::operator=(ParticleSystem&&) noexcept = default;
ParticleSystem::~ParticleSystem() = default;

std::size_t ParticleSystem::size() const { return impl_->count; }
std::size_t ParticleSystem::capacity() const { return impl_->settings.capacity; }
const ParticleSettings& ParticleSystem::settings() const { return impl_->settings; }
const gl::Buffer& ParticleSystem::positionBuffer() const { return impl_->positions; }
float ParticleSystem::pixelSize() const { return impl_->pixel; }

Result<EnvironmentUpdate> ParticleSystem::setEnvironment(const Scene& scene) {
    Impl& im = *impl_;
    EnvironmentUpdate up;
    std::vector<EnvEntry> now;
    for (ObjectId o = 0; o < scene.objectCount(); ++o) {
        if (!scene.isStatic(o) || !scene.isActive(o) || !scene.pose(o).isFinite()) continue;
        now.push_back({o, &scene.objectMesh(o), scene.pose(o), scene.vertexVersion(o)});
        up.triangles += scene.objectMesh(o).triangleCount();
    }
    up.objects = now.size();
    if (im.environmentSet && now == im.environment) return up;
    im.environment = now;
    im.environmentSet = true;
    up.refreshed = true;

    im.syncScene(scene);
    gl::Query begin("particles maps begin", GL_TIMESTAMP), end("particles maps end", GL_TIMESTAMP);
    glQueryCounter(begin.id(), GL_TIMESTAMP);
    const auto mapCount = static_cast<std::uint32_t>(im.maps.size());
    gl::Program& p = im.mapsProgram;
    p.setUniform("uMapCount", mapCount);
    for (;;) {
        glClearNamedBufferData(im.depths.id(), GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &kNoSurface);
        im.normals.clearZero();
        im.counters.clearZero(PT_COUNTER_BIG * 4, 4);
        im.big.reserve(im.bigCapacity * 16);
        im.scene.bind();
        im.bindParticles();
        im.big.bindBase(GL_SHADER_STORAGE_BUFFER, PT_BINDING_BIG);
        p.setUniform("uBigCapacity", static_cast<std::uint32_t>(im.bigCapacity));
        p.use();
        // Pass 0 (depths), then pass 1 (normals); small triangles per (triangle, map) thread,
        // the large ones found by pass 0 a work group each.
        std::uint32_t bigCount = 0;
        for (std::uint32_t pass = 0; pass < 2; ++pass) {
            p.setUniform("uPass", pass);
            p.setUniform("uBig", 0u);
            for (const EnvEntry& e : now) {
                const auto tris = static_cast<std::uint32_t>(e.mesh->triangleCount());
                p.setUniform("uObject", e.object);
                p.setUniform("uTriangleCount", tris);
                p.dispatch((tris + 63) / 64, mapCount);
            }
            glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
            if (pass == 0) {
                if (auto r = im.readback.reserve(sizeof bigCount); !r) return fail(r.error().message);
                im.readback.copyFrom(im.counters, PT_COUNTER_BIG * 4, sizeof bigCount, 0);
                if (auto r = gl::waitForGpu("particles, the environment's large triangles"); !r) return fail(r.error().message);
                std::memcpy(&bigCount, im.readback.data(), sizeof bigCount);
                if (bigCount > im.bigCapacity) break;
            }
            if (bigCount > 0) {
                p.setUniform("uBig", 1u);
                p.setUniform("uBigCount", bigCount);
                // Each item's pixels split over `split` groups (gl_WorkGroupID.y): at most
                // PT_BIG_PIXELS_PER_LANE iterations an invocation, all its items together.
                const GLuint groups = std::min<GLuint>(bigCount, kMaxGroups);
                const std::size_t perGroup = (std::size_t(bigCount) + groups - 1) / groups;
                const std::size_t perLane = std::size_t(64) * PT_BIG_PIXELS_PER_LANE;
                const auto split = static_cast<GLuint>(std::min<std::size_t>(
                    kMaxGroups, (im.largestMapPixels * perGroup + perLane - 1) / perLane));
                p.dispatch(groups, std::max<GLuint>(split, 1));
                glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
            }
        }
        if (bigCount > im.bigCapacity) {
            im.bigCapacity = std::size_t(bigCount) * 5 / 4 + 1024;  // grown, kept; rasterise again
            continue;
        }
        up.largeTriangles = bigCount;
        break;
    }
    glQueryCounter(end.id(), GL_TIMESTAMP);
    up.gpuMs = double(end.result() - begin.result()) * 1e-6;
    if (auto e = gl::checkError("ParticleSystem::setEnvironment()"); !e) return fail(e.error().message);
    return up;
}

Result<void> ParticleSystem::emit(std::span<const Vec3> positions, std::span<const Vec3> velocities) {
    Impl& im = *impl_;
    if (positions.size() != velocities.size())
        return fail("ParticleSystem::emit(): " + std::to_string(positions.size()) + " positions but " +
                    std::to_string(velocities.size()) + " velocities; give one of each per particle");
    if (auto r = im.checkCapacity(positions.size(), "ParticleSystem::emit()"); !r) return r;
    if (positions.empty()) return {};
    std::vector<Vec4> p(positions.size()), v(positions.size());
    for (std::size_t i = 0; i < positions.size(); ++i) {
        p[i] = Vec4(positions[i], 1.0f);
        v[i] = Vec4(velocities[i], 0.0f);
    }
    im.positions.upload(im.count * 16, p.size() * 16, p.data());
    im.velocities.upload(im.count * 16, v.size() * 16, v.data());
    im.count += positions.size();
    return gl::checkError("ParticleSystem::emit()");
}

Result<void> ParticleSystem::emitBox(std::size_t count, const Aabb& box, Vec3 velocity, float jitter,
                                     std::uint32_t seed) {
    Impl& im = *impl_;
    if (auto r = im.checkCapacity(count, "ParticleSystem::emitBox()"); !r) return r;
    if (box.isEmpty()) return fail("ParticleSystem::emitBox(): the box is empty");
    if (count == 0) return {};
    gl::Program& p = im.emitProgram;
    p.setUniform("uFirst", static_cast<std::uint32_t>(im.count));
    p.setUniform("uCount", static_cast<std::uint32_t>(count));
    p.setUniform("uSeed", seed);
    p.setUniform("uBoxMin", box.min);
    p.setUniform("uBoxMax", box.max);
    p.setUniform("uVelocity", velocity);
    p.setUniform("uJitter", jitter);
    im.bindParticles();
    p.use();
    p.dispatch(std::min<GLuint>(GLuint((count + 255) / 256), kMaxGroups));
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    im.count += count;
    return gl::checkError("ParticleSystem::emitBox()");
}

Result<void> ParticleSystem::step(float dt) {
    Impl& im = *impl_;
    if (!(dt > 0.0f) || !std::isfinite(dt)) return fail("ParticleSystem::step(): dt " + std::to_string(dt) + " is not > 0");
    im.counters.clearZero(PT_COUNTER_COLLISIONS * 4, 4);
    glQueryCounter(im.stepBegin.id(), GL_TIMESTAMP);
    if (im.count > 0) {
        gl::Program& p = im.stepProgram;
        const ParticleSettings& s = im.settings;
        p.setUniform("uCount", static_cast<std::uint32_t>(im.count));
        p.setUniform("uMapCount", static_cast<std::uint32_t>(im.maps.size()));
        p.setUniform("uDt", dt);
        p.setUniform("uGravity", s.gravity);
        p.setUniform("uRestitution", s.restitution);
        p.setUniform("uFriction", s.friction);
        p.setUniform("uRadius", im.clearance);
        p.setUniform("uDomainMin", s.domain.min);
        p.setUniform("uDomainMax", s.domain.max);
        im.bindParticles();
        p.use();
        p.dispatch(std::min<GLuint>(GLuint((im.count + 255) / 256), kMaxGroups));
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    }
    glQueryCounter(im.stepEnd.id(), GL_TIMESTAMP);
    im.stepTimed = true;
    return {};
}

double ParticleSystem::lastStepGpuMs() const {
    const Impl& im = *impl_;
    if (!im.stepTimed) return 0.0;
    return double(im.stepEnd.result() - im.stepBegin.result()) * 1e-6;
}

Result<void> ParticleSystem::readParticles(std::vector<Vec4>* positions, std::vector<Vec4>* velocities) const {
    const Impl& im = *impl_;
    const std::size_t bytes = im.count * sizeof(Vec4);
    if (positions) positions->resize(im.count);
    if (velocities) velocities->resize(im.count);
    if (bytes == 0 || (!positions && !velocities)) return gl::checkError("ParticleSystem::readParticles()");
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    if (auto r = im.readback.reserve(2 * bytes); !r) return r;
    if (positions) im.readback.copyFrom(im.positions, 0, bytes, 0);
    if (velocities) im.readback.copyFrom(im.velocities, 0, bytes, bytes);
    if (auto r = gl::waitForGpu("ParticleSystem::readParticles()"); !r) return r;
    if (positions) std::memcpy(positions->data(), im.readback.at<Vec4>(0), bytes);
    if (velocities) std::memcpy(velocities->data(), im.readback.at<Vec4>(bytes), bytes);
    return gl::checkError("ParticleSystem::readParticles()");
}

Result<ParticleStats> ParticleSystem::readStats() const {
    const Impl& im = *impl_;
    std::uint32_t c[PT_COUNTER_COUNT] = {};
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    if (auto r = im.readback.reserve(sizeof c); !r) return fail(r.error().message);
    im.readback.copyFrom(im.counters, 0, sizeof c, 0);
    if (auto r = gl::waitForGpu("ParticleSystem::readStats()"); !r) return fail(r.error().message);
    std::memcpy(c, im.readback.data(), sizeof c);
    if (auto e = gl::checkError("ParticleSystem::readStats()"); !e) return fail(e.error().message);
    ParticleStats st;
    st.emitted = im.count;
    st.nanRemoved = c[PT_COUNTER_NAN];
    st.leftDomain = c[PT_COUNTER_LEFT];
    st.lastCollisions = c[PT_COUNTER_COLLISIONS];
    return st;
}

}  // namespace isc::particles
