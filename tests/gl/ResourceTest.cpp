#include "GlTest.h"

#include "isc/gl/Buffer.h"
#include "isc/gl/Fence.h"
#include "isc/gl/Framebuffer.h"
#include "isc/gl/GpuTimer.h"
#include "isc/gl/OcclusionQuery.h"
#include "isc/gl/Program.h"
#include "isc/gl/Renderbuffer.h"
#include "isc/gl/Texture.h"
#include "isc/gl/VertexArray.h"

#include <array>
#include <cstdint>
#include <vector>

using namespace isc;

TEST_F(GlTest, BufferUploadReadAndReallocation) {
    gl::Buffer b("test buffer");
    EXPECT_NE(b.id(), 0u);
    EXPECT_EQ(b.size(), 0u);
    const std::array<float, 4> data{1.0f, 2.0f, 3.0f, 4.0f};
    b.allocate(sizeof data, data.data());
    const GLuint first = b.id();
    std::array<float, 4> back{};
    b.read(0, std::span(back));
    EXPECT_EQ(back, data);
    const float five = 5.0f;
    b.upload(2 * sizeof(float), sizeof five, &five);
    b.read(0, std::span(back));
    EXPECT_EQ(back[2], 5.0f);
    EXPECT_EQ(back[3], 4.0f);
    // Immutable storage: a new allocation deletes the old name and creates one with the
    // same label. (NVIDIA hands the freed name straight back, Mesa does not: compare storage,
    // not names.)
    b.allocate(64);
    if (b.id() != first) {
        EXPECT_FALSE(glIsBuffer(first));
    }
    GLint64 storageSize = 0;
    glGetNamedBufferParameteri64v(b.id(), GL_BUFFER_SIZE, &storageSize);
    EXPECT_EQ(storageSize, 64);
    EXPECT_EQ(b.size(), 64u);
    char label[64] = {};
    GLsizei len = 0;
    glGetObjectLabel(GL_BUFFER, b.id(), sizeof label, &len, label);
    EXPECT_STREQ(label, "test buffer");
    // reserve() keeps a big enough buffer.
    const GLuint kept = b.id();
    EXPECT_FALSE(b.reserve(32));
    EXPECT_EQ(b.id(), kept);
    EXPECT_TRUE(b.reserve(128));
}

TEST_F(GlTest, MovedFromResourcesHoldZero) {
    gl::Buffer b("b");
    b.allocate(16);
    const GLuint bid = b.id();
    gl::Buffer b2 = std::move(b);
    EXPECT_EQ(b.id(), 0u);
    EXPECT_EQ(b.size(), 0u);
    EXPECT_EQ(b2.id(), bid);
    EXPECT_EQ(b2.size(), 16u);
    gl::Buffer b3("b3");
    b3 = std::move(b2);
    EXPECT_EQ(b3.id(), bid);
    EXPECT_TRUE(glIsBuffer(bid));

    gl::Texture t = gl::Texture::create2D("t", GL_RGBA8, 4, 4);
    const GLuint tid = t.id();
    gl::Texture t2 = std::move(t);
    EXPECT_EQ(t.id(), 0u);
    EXPECT_EQ(t2.id(), tid);

    gl::Framebuffer f("f");
    gl::Framebuffer f2 = std::move(f);
    EXPECT_EQ(f.id(), 0u);
    EXPECT_NE(f2.id(), 0u);

    gl::Renderbuffer r("r", GL_DEPTH_COMPONENT24, 4, 4);
    gl::Renderbuffer r2 = std::move(r);
    EXPECT_EQ(r.id(), 0u);
    EXPECT_NE(r2.id(), 0u);

    gl::VertexArray v("v");
    gl::VertexArray v2 = std::move(v);
    EXPECT_EQ(v.id(), 0u);
    EXPECT_NE(v2.id(), 0u);

    gl::Query q("q", GL_TIME_ELAPSED);
    gl::Query q2 = std::move(q);
    EXPECT_EQ(q.id(), 0u);
    EXPECT_NE(q2.id(), 0u);

    gl::Fence fence = gl::Fence::insert();
    gl::Fence fence2 = std::move(fence);
    EXPECT_FALSE(fence.isValid());
    EXPECT_TRUE(fence2.wait(1'000'000'000ull));

    // release() hands the id out; the object then deletes nothing.
    gl::Buffer owned("owned");
    const GLuint raw = owned.release();
    EXPECT_EQ(owned.id(), 0u);
    EXPECT_TRUE(glIsBuffer(raw));
    glDeleteBuffers(1, &raw);
}

TEST_F(GlTest, IncompleteFramebufferNamesTheStatus) {
    gl::Framebuffer f("empty fbo");
    auto r = f.checkComplete();
    ASSERT_FALSE(r.has_value());
    EXPECT_NE(r.error().message.find("GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT"), std::string::npos)
        << r.error().message;
    EXPECT_NE(r.error().message.find("empty fbo"), std::string::npos) << r.error().message;
}

namespace {
constexpr const char* kTriangleVert = R"(
void main() {
    // One triangle covering the viewport: (-1,-1), (3,-1), (-1,3).
    vec2 p = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2) * 2.0 - 1.0;
    gl_Position = vec4(p, 0.0, 1.0);
}
)";
constexpr const char* kTriangleFrag = R"(
uniform vec4 color;
out vec4 fragColor;
void main() { fragColor = color; }
)";
}  // namespace

TEST_F(GlTest, FullScreenTriangleIntoTextureFramebuffer) {
    isc::test::writeTestShader("test_tri.vert.glsl", kTriangleVert);
    isc::test::writeTestShader("test_tri.frag.glsl", kTriangleFrag);
    auto program = gl::Program::create({{GL_VERTEX_SHADER, "test_tri.vert.glsl"}, {GL_FRAGMENT_SHADER, "test_tri.frag.glsl"}});
    ASSERT_TRUE(program.has_value()) << program.error().message;

    const int w = 64, h = 32;
    gl::Texture color = gl::Texture::create2D("test color", GL_RGBA8, w, h);
    gl::Renderbuffer depth("test depth", GL_DEPTH_COMPONENT24, w, h);
    gl::Framebuffer fbo("test fbo");
    fbo.attachTexture(GL_COLOR_ATTACHMENT0, color);
    fbo.attachRenderbuffer(GL_DEPTH_ATTACHMENT, depth);
    ASSERT_TRUE(fbo.checkComplete().has_value());

    gl::VertexArray vao("test empty vao");
    gl::GpuTimer timer("test timer");
    gl::OcclusionQuery samples("test samples", GL_SAMPLES_PASSED);
    fbo.clearColor(0, 0.0f, 0.0f, 1.0f, 1.0f);  // blue
    fbo.clearDepth();
    fbo.bind();
    // Draw into the left half only: the right half keeps the clear colour.
    glViewport(0, 0, w / 2, h);
    program->setUniform("color", glm::vec4(1.0f, 0.5f, 0.0f, 1.0f));
    program->use();
    vao.bind();
    timer.begin();
    samples.begin();
    glDrawArrays(GL_TRIANGLES, 0, 3);
    samples.end();
    timer.end();
    gl::Framebuffer::bindDefault();

    std::vector<std::uint8_t> pixels(std::size_t(w) * h * 4);
    color.read(0, GL_RGBA, GL_UNSIGNED_BYTE, pixels.size(), pixels.data());
    auto px = [&](int x, int y) {
        const std::uint8_t* p = &pixels[(std::size_t(y) * w + x) * 4];
        return std::array<int, 4>{p[0], p[1], p[2], p[3]};
    };
    // 0.5 to UNORM8 is 127 on NVIDIA and 128 on Mesa (both within GL's rounding rule).
    for (const auto& p : {px(3, 5), px(w / 2 - 1, h - 1)}) {
        EXPECT_EQ(p[0], 255);
        EXPECT_NEAR(p[1], 128, 1);
        EXPECT_EQ(p[2], 0);
        EXPECT_EQ(p[3], 255);
    }
    EXPECT_EQ(px(w / 2, 0), (std::array<int, 4>{0, 0, 255, 255}));
    EXPECT_EQ(px(w - 1, h - 1), (std::array<int, 4>{0, 0, 255, 255}));
    // Every fragment of the left half passed: exactly w/2 * h samples.
    EXPECT_EQ(samples.samplesPassed(), std::uint64_t(w / 2) * h);
    const double ms = timer.elapsedMs();
    EXPECT_TRUE(timer.ready());
    EXPECT_GT(ms, 0.0);
    EXPECT_LT(ms, 10'000.0);
    EXPECT_TRUE(gl::checkError("after triangle").has_value());
}

TEST_F(GlTest, ComputeWritesImageOfArrayTexture) {
    isc::test::writeTestShader("test_image.comp.glsl", R"(
layout(local_size_x = 8, local_size_y = 8) in;
layout(r32ui, binding = 0) writeonly uniform uimage2DArray img;
void main() {
    ivec3 p = ivec3(gl_GlobalInvocationID.xy, gl_GlobalInvocationID.z);
    imageStore(img, p, uvec4(uint(p.x + 100 * p.y + 10000 * p.z)));
}
)");
    auto program = gl::Program::create({{GL_COMPUTE_SHADER, "test_image.comp.glsl"}});
    ASSERT_TRUE(program.has_value()) << program.error().message;
    gl::Texture tex = gl::Texture::create2DArray("test array", GL_R32UI, 16, 8, 3);
    tex.bindImage(0, 0, GL_WRITE_ONLY, GL_R32UI);
    program->dispatch(2, 1, 3);
    glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT);
    std::vector<std::uint32_t> v(16 * 8 * 3);
    tex.read(0, GL_RED_INTEGER, GL_UNSIGNED_INT, v.size() * 4, v.data());
    for (int z = 0; z < 3; ++z)
        for (int y = 0; y < 8; ++y)
            for (int x = 0; x < 16; ++x)
                ASSERT_EQ(v[(std::size_t(z) * 8 + y) * 16 + x], std::uint32_t(x + 100 * y + 10000 * z));
}

TEST_F(GlTest, LiveObjectsCountEveryWrapperFromCreationToDeletion) {
    using K = gl::ObjectKind;
    const gl::LiveObjects before = gl::liveObjects();
    {
        gl::Buffer b("counted");
        EXPECT_EQ(gl::liveObjects()[K::Buffer], before[K::Buffer] + 1);
        b.allocate(64);
        b.allocate(128);  // a new name, the old one deleted: still one
        EXPECT_EQ(gl::liveObjects()[K::Buffer], before[K::Buffer] + 1);
        gl::Buffer mapped("counted mapped");
        constexpr GLbitfield flags = GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
        mapped.allocate(256, nullptr, flags | GL_CLIENT_STORAGE_BIT);
        ASSERT_NE(mapped.mapPersistent(flags), nullptr);
        EXPECT_EQ(gl::liveObjects()[K::MappedBuffer], before[K::MappedBuffer] + 1);
        mapped.allocate(512, nullptr, flags);  // the mapping ends with the old storage
        EXPECT_EQ(mapped.mapped(), nullptr);
        EXPECT_EQ(gl::liveObjects()[K::MappedBuffer], before[K::MappedBuffer]);
        ASSERT_NE(mapped.mapPersistent(flags), nullptr);
        GLint isMapped = GL_FALSE;
        glGetNamedBufferParameteriv(mapped.id(), GL_BUFFER_MAPPED, &isMapped);
        EXPECT_EQ(isMapped, GL_TRUE);
        gl::Buffer moved = std::move(mapped);  // the mapping goes with it, counted once
        EXPECT_EQ(moved.mapped() != nullptr, true);
        EXPECT_EQ(gl::liveObjects()[K::MappedBuffer], before[K::MappedBuffer] + 1);
        moved.unmap();
        glGetNamedBufferParameteriv(moved.id(), GL_BUFFER_MAPPED, &isMapped);
        EXPECT_EQ(isMapped, GL_FALSE);
        ASSERT_NE(moved.mapPersistent(flags), nullptr);  // the destructor unmaps it

        gl::Texture t = gl::Texture::create2D("counted", GL_R32UI, 4, 4);
        gl::Texture ta = gl::Texture::create2DArray("counted", GL_R32UI, 4, 4, 2);
        gl::Renderbuffer r("counted", GL_DEPTH_COMPONENT32F, 4, 4);
        gl::Framebuffer f("counted");
        gl::VertexArray v("counted");
        gl::Query q("counted", GL_TIME_ELAPSED);
        gl::Fence fence = gl::Fence::insert();
        isc::test::writeTestShader("test_counted.glsl", "layout(local_size_x = 1) in;\nvoid main() {}\n");
        auto p = gl::Program::create({{GL_COMPUTE_SHADER, "test_counted.glsl"}}, "", "counted");
        ASSERT_TRUE(p.has_value()) << p.error().message;
        const gl::LiveObjects during = gl::liveObjects();
        EXPECT_EQ(during[K::Buffer], before[K::Buffer] + 2);  // b and moved (mapped was moved from)
        EXPECT_EQ(during[K::Texture], before[K::Texture] + 2);
        EXPECT_EQ(during[K::Renderbuffer], before[K::Renderbuffer] + 1);
        EXPECT_EQ(during[K::Framebuffer], before[K::Framebuffer] + 1);
        EXPECT_EQ(during[K::VertexArray], before[K::VertexArray] + 1);
        EXPECT_EQ(during[K::Query], before[K::Query] + 1);
        EXPECT_EQ(during[K::Sync], before[K::Sync] + 1);
        EXPECT_EQ(during[K::Program], before[K::Program] + 1);
        EXPECT_EQ(during[K::MappedBuffer], before[K::MappedBuffer] + 1);
        // A program in use when destroyed is really deleted (not left flagged until the next glUseProgram).
        p->use();
        const GLuint id = p->id();
        *p = gl::Program();
        EXPECT_FALSE(glIsProgram(id));
        EXPECT_EQ(gl::liveObjects()[K::Program], before[K::Program]);
        // release() hands the object to the caller: no longer ours.
        const GLuint released = gl::Texture::create2D("released", GL_R8, 2, 2).release();
        EXPECT_EQ(gl::liveObjects()[K::Texture], before[K::Texture] + 2);
        glDeleteTextures(1, &released);
    }
    const gl::LiveObjects after = gl::liveObjects();
    EXPECT_EQ(after.count, before.count) << "before: " << before.describe() << "\nafter:  " << after.describe();
}
