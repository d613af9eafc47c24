#include "GlTest.h"

#include "isc/gl/GpuScene.h"
#include "isc/gl/Program.h"
#include "isc/mesh/Shapes.h"
#include "isc/scene/Scene.h"

#include <glm/gtc/quaternion.hpp>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

using namespace isc;

namespace {

// A tetrahedron made by hand (4 vertices, 4 outward triangles).
Mesh tetra() {
    auto m = Mesh::create("tetra", {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
                          {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}});
    EXPECT_TRUE(m.has_value());
    return std::move(*m);
}

// Every world-space triangle corner of `objects`, in order (object, triangle, corner), from the GPU.
constexpr const char* kCornersComp = R"(#include "common/scene.glsl"
layout(local_size_x = 64) in;
layout(std430, binding = ISC_BINDING_FIRST_FREE) writeonly buffer Out { vec4 corners[]; };
uniform uint object;
uniform uint outBase;
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint triangle = i / 3u, corner = i % 3u;
    if (triangle >= sceneObjects[object].triangleCount) return;
    corners[outBase + i] = vec4(sceneWorldCorner(object, triangle, corner), sceneObjectActive(object) ? 1.0 : 0.0);
}
)";

class GpuSceneTest : public GlTest {
protected:
    void SetUp() override {
        GlTest::SetUp();
        if (HasFatalFailure()) return;
        isc::test::writeTestShader("test_corners.comp.glsl", kCornersComp);
        auto p = gl::Program::create({{GL_COMPUTE_SHADER, "test_corners.comp.glsl"}});
        ASSERT_TRUE(p.has_value()) << p.error().message;
        program = std::move(*p);
        box = scene.addMesh(std::make_shared<Mesh>(shapes::box({0.5f, 1.0f, 1.5f})));
        tet = scene.addMesh(std::make_shared<Mesh>(tetra()));
        Pose a;
        a.position = {1.0f, 2.0f, 3.0f};
        a.rotation = glm::angleAxis(0.7f, glm::normalize(Vec3(1, 2, 3)));
        Pose b;
        b.position = {-4.0f, 0.5f, 0.0f};
        b.rotation = glm::angleAxis(-2.1f, Vec3(0, 1, 0));
        Pose c;
        c.position = {0.0f, 0.0f, 10.0f};
        o0 = scene.addObject(box, a);
        o1 = scene.addObject(tet, b);
        o2 = scene.addObject(box, c);
    }

    // Runs the compute shader over every object and compares with Pose::apply on the CPU.
    void expectCornersMatchCpu(const gl::GpuScene& gpu) {
        std::size_t total = 0;
        for (ObjectId o = 0; o < scene.objectCount(); ++o) total += scene.objectMesh(o).triangleCount() * 3;
        gl::Buffer out("test corners");
        out.allocate(total * sizeof(Vec4));
        out.bindBase(GL_SHADER_STORAGE_BUFFER, ISC_BINDING_FIRST_FREE);
        gpu.bind();
        std::size_t base = 0;
        for (ObjectId o = 0; o < scene.objectCount(); ++o) {
            const unsigned n = unsigned(scene.objectMesh(o).triangleCount() * 3);
            program.setUniform("object", unsigned(o));
            program.setUniform("outBase", unsigned(base));
            program.dispatch((n + 63) / 64);
            base += n;
        }
        glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
        std::vector<Vec4> got(total);
        out.read(0, std::span(got));
        base = 0;
        for (ObjectId o = 0; o < scene.objectCount(); ++o) {
            const auto verts = scene.localVertices(o);
            const auto tris = scene.objectMesh(o).triangles();
            for (std::size_t t = 0; t < tris.size(); ++t)
                for (int c = 0; c < 3; ++c) {
                    const Vec3 want = scene.pose(o).apply(verts[tris[t][c]]);
                    const Vec4 g = got[base + t * 3 + c];
                    ASSERT_NEAR(g.x, want.x, 1e-5f) << "object " << o << " triangle " << t << " corner " << c;
                    ASSERT_NEAR(g.y, want.y, 1e-5f) << "object " << o << " triangle " << t << " corner " << c;
                    ASSERT_NEAR(g.z, want.z, 1e-5f) << "object " << o << " triangle " << t << " corner " << c;
                    ASSERT_EQ(g.w, 1.0f);
                }
            base += tris.size() * 3;
        }
    }

    Scene scene;
    gl::Program program;
    MeshId box = 0, tet = 0;
    ObjectId o0 = 0, o1 = 0, o2 = 0;
};

}  // namespace

TEST_F(GpuSceneTest, LayoutSharesMeshesBetweenObjects) {
    gl::GpuScene gpu("test scene");
    gpu.sync(scene);
    ASSERT_EQ(gpu.objectCount(), 3u);
    EXPECT_EQ(gpu.totalTriangles(), 12u + 4u + 12u);
    EXPECT_EQ(gpu.totalVertices(), scene.mesh(box).vertexCount() + 4u);  // each mesh once
    EXPECT_EQ(gpu.object(o0).firstVertex, gpu.object(o2).firstVertex);
    EXPECT_EQ(gpu.object(o0).firstTriangle, gpu.object(o2).firstTriangle);
    EXPECT_EQ(gpu.object(o1).firstTriangle, 12u);
    EXPECT_EQ(gpu.object(o1).triangleCount, 4u);
    std::vector<gl::GpuObject> records(3);
    gpu.objectBuffer().read(0, std::span(records));
    EXPECT_EQ(records[1].firstTriangle, 12u);
    EXPECT_EQ(records[1].meshId, tet);
    EXPECT_EQ(records[2].model[3], Vec4(0, 0, 10, 1));
    const std::vector<ObjectId> ids{o2, o1};
    const auto cmds = gpu.drawCommands(ids);
    ASSERT_EQ(cmds.size(), 2u);
    EXPECT_EQ(cmds[0].count, 36u);
    EXPECT_EQ(cmds[0].baseInstance, o2);
    EXPECT_EQ(cmds[1].firstIndex, 36u);
    EXPECT_EQ(cmds[1].baseVertex, std::int32_t(gpu.object(o1).firstVertex));
}

TEST_F(GpuSceneTest, ComputeTransformMatchesPoseApply) {
    gl::GpuScene gpu("test scene");
    gpu.sync(scene);
    expectCornersMatchCpu(gpu);
    // Poses change every step: the records follow.
    Pose moved = scene.pose(o1);
    moved.position += Vec3(0.25f, -1.0f, 2.0f);
    moved.rotation = glm::normalize(moved.rotation * glm::angleAxis(0.3f, Vec3(1, 0, 0)));
    scene.setPose(o1, moved);
    gpu.sync(scene);
    expectCornersMatchCpu(gpu);
}

TEST_F(GpuSceneTest, DeformedVerticesUpdateInPlace) {
    // Deform object 2 (a box): its own range, the other box keeps the mesh's.
    std::vector<Vec3> v(scene.localVertices(o2).begin(), scene.localVertices(o2).end());
    for (Vec3& p : v) p *= 1.5f;
    scene.setVertices(o2, v);
    gl::GpuScene gpu("test scene");
    gpu.sync(scene);
    EXPECT_TRUE(gpu.object(o2).deformed);
    EXPECT_NE(gpu.object(o2).firstVertex, gpu.object(o0).firstVertex);
    EXPECT_EQ(gpu.deformedUploads(), 1u);
    expectCornersMatchCpu(gpu);

    const GLuint vertexName = gpu.vertexBuffer().id();
    const GLuint indexName = gpu.indexBuffer().id();
    const GLuint objectName = gpu.objectBuffer().id();
    // A sync without a new version uploads nothing.
    gpu.sync(scene);
    EXPECT_EQ(gpu.deformedUploads(), 1u);
    for (int step = 0; step < 3; ++step) {
        for (Vec3& p : v) p += Vec3(0.01f * p.y, 0.0f, -0.02f * p.x);
        scene.setVertices(o2, v);
        gpu.sync(scene);
        expectCornersMatchCpu(gpu);
    }
    EXPECT_EQ(gpu.deformedUploads(), 4u);
    // No buffer was re-created.
    EXPECT_EQ(gpu.vertexBuffer().id(), vertexName);
    EXPECT_EQ(gpu.indexBuffer().id(), indexName);
    EXPECT_EQ(gpu.objectBuffer().id(), objectName);
}

// Two deformed objects around a rigid one: each sync copies only what changed (one staging
// copy per run of changed objects), and the unchanged deformed object keeps its vertices.
TEST_F(GpuSceneTest, DeformedObjectsChangingApartEachKeepTheirVertices) {
    std::vector<Vec3> v0(scene.localVertices(o0).begin(), scene.localVertices(o0).end());
    std::vector<Vec3> v2(scene.localVertices(o2).begin(), scene.localVertices(o2).end());
    for (Vec3& p : v0) p *= 0.5f;
    for (Vec3& p : v2) p *= 2.0f;
    scene.setVertices(o0, v0);
    scene.setVertices(o2, v2);
    gl::GpuScene gpu("test scene");
    gpu.sync(scene);
    EXPECT_EQ(gpu.deformedUploads(), 2u);
    expectCornersMatchCpu(gpu);
    for (int step = 0; step < 4; ++step) {
        std::vector<Vec3>& v = step % 2 == 0 ? v2 : v0;
        for (Vec3& p : v) p += Vec3(0.03f * p.z, -0.01f, 0.02f * p.x);
        scene.setVertices(step % 2 == 0 ? o2 : o0, v);
        gpu.sync(scene);
        expectCornersMatchCpu(gpu);
    }
    EXPECT_EQ(gpu.deformedUploads(), 6u);
}

// sync() in three steps (beginSync, convert from several threads in any order, endSync), as
// peel does beside its cluster boxes: the GPU's world corners match the CPU's, as after sync();
// with nothing changed, beginSync lists nothing and the records still follow the poses.
TEST_F(GpuSceneTest, SyncInStepsMatchesTheCpu) {
    std::vector<Vec3> v0(scene.localVertices(o0).begin(), scene.localVertices(o0).end());
    std::vector<Vec3> v2(scene.localVertices(o2).begin(), scene.localVertices(o2).end());
    gl::GpuScene gpu("test scene");
    for (int step = 0; step < 3; ++step) {
        for (Vec3& p : v0) p += Vec3(0.02f * p.y, 0.01f, -0.03f * p.x);
        for (Vec3& p : v2) p *= 1.1f;
        scene.setVertices(o0, v0);
        scene.setVertices(o2, v2);
        const auto changed = gpu.beginSync(scene);
        ASSERT_EQ(changed.size(), 2u) << step;
        std::vector<std::thread> threads;  // the last changed object first, each on its own thread
        for (std::size_t k = changed.size(); k-- > 0;) threads.emplace_back([&, k] { gpu.convert(scene, k); });
        for (std::thread& t : threads) t.join();
        gpu.endSync();
        expectCornersMatchCpu(gpu);
    }
    EXPECT_EQ(gpu.deformedUploads(), 6u);
    Pose p = scene.pose(o1);
    p.position += Vec3(0.5f, 0.0f, 0.0f);
    scene.setPose(o1, p);
    EXPECT_TRUE(gpu.beginSync(scene).empty());
    gpu.endSync();
    expectCornersMatchCpu(gpu);
}

// convertStreaming() (non-temporal stores, peel's fused region): the same steps from several
// threads give the GPU the same world corners as the CPU's, as convert() does.
TEST_F(GpuSceneTest, SyncInStepsWithStreamingStoresMatchesTheCpu) {
    std::vector<Vec3> v0(scene.localVertices(o0).begin(), scene.localVertices(o0).end());
    std::vector<Vec3> v2(scene.localVertices(o2).begin(), scene.localVertices(o2).end());
    gl::GpuScene gpu("test scene");
    for (int step = 0; step < 3; ++step) {
        for (Vec3& p : v0) p += Vec3(-0.01f * p.z, 0.02f, 0.03f * p.y);
        for (Vec3& p : v2) p *= 0.9f;
        scene.setVertices(o0, v0);
        scene.setVertices(o2, v2);
        const auto changed = gpu.beginSync(scene);
        ASSERT_EQ(changed.size(), 2u) << step;
        std::vector<std::thread> threads;
        for (std::size_t k = changed.size(); k-- > 0;)
            threads.emplace_back([&, k] { gpu.convertStreaming(scene, k); });
        for (std::thread& t : threads) t.join();
        gpu.endSync();
        expectCornersMatchCpu(gpu);
    }
    EXPECT_EQ(gpu.deformedUploads(), 6u);
}

// gl::ConversionTeam (peel's and cullide's fused set-up): 12 deformed objects converted by a
// team of four threads, the GL thread recording the copy in pieces. Each object's `after` runs
// once, the copies recorded in the loop are at most what the pieces allow (none with one
// piece), and the GPU's vertices are the CPU's.
TEST_F(GpuSceneTest, ConversionTeamConvertsEachObjectOnceAndCopiesInPieces) {
    std::vector<ObjectId> deformed{o0, o2};
    for (int i = 0; i < 10; ++i) {
        Pose p;
        p.position = {2.0f * float(i), -3.0f, 1.0f};
        deformed.push_back(scene.addObject(box, p));
    }
    std::vector<std::vector<Vec3>> vertices;
    for (ObjectId o : deformed) vertices.emplace_back(scene.localVertices(o).begin(), scene.localVertices(o).end());
    gl::GpuScene gpu("test scene");
    std::vector<std::uint8_t> flags;
    for (const int pieces : {4, 1}) {
        for (int step = 0; step < 2; ++step) {
            for (std::size_t d = 0; d < deformed.size(); ++d) {
                for (Vec3& v : vertices[d]) v += Vec3(0.01f * float(d), -0.02f * v.x, 0.03f * float(step + 1));
                scene.setVertices(deformed[d], vertices[d]);
            }
            const auto changed = gpu.beginSync(scene);
            ASSERT_EQ(changed.size(), deformed.size());
            std::vector<std::atomic<int>> afters(changed.size());
            gl::ConversionTeam team(gpu, scene, changed.size(), pieces, step == 1, flags,
                                    [&](std::size_t k) { afters[k].fetch_add(1); });
            std::vector<std::thread> others;
            for (int t = 0; t < 3; ++t)
                others.emplace_back([&] {
                    while (team.convertNext()) {
                    }
                });
            const std::int64_t copies = team.convertAndCopy();  // this thread holds the GL context
            for (std::thread& t : others) t.join();
            gpu.endSync();
            for (std::size_t k = 0; k < afters.size(); ++k) EXPECT_EQ(afters[k].load(), 1) << "object " << k;
            if (pieces == 1)
                EXPECT_EQ(copies, 0);
            else
                EXPECT_LE(copies, std::int64_t(changed.size()) / (std::int64_t(changed.size()) / pieces));
            expectCornersMatchCpu(gpu);
        }
    }
}

TEST_F(GpuSceneTest, InactiveAndNonFinitePosesAreFlagged) {
    scene.setActive(o0, false);
    Pose bad;
    bad.position = {NAN, 0, 0};
    scene.setPose(o1, bad);
    gl::GpuScene gpu;
    gpu.sync(scene);
    EXPECT_FALSE(gpu.object(o0).active);
    EXPECT_FALSE(gpu.object(o1).active);
    EXPECT_TRUE(gpu.object(o2).active);
    std::vector<gl::GpuObject> records(3);
    gpu.objectBuffer().read(0, std::span(records));
    EXPECT_NE(records[0].meshId & ISC_OBJECT_INACTIVE, 0u);
    EXPECT_NE(records[1].meshId & ISC_OBJECT_INACTIVE, 0u);
    EXPECT_EQ(records[2].meshId, box);
    const std::vector<ObjectId> all{o0, o1, o2};
    const auto cmds = gpu.drawCommands(all);
    EXPECT_EQ(cmds[0].count, 0u);
    EXPECT_EQ(cmds[1].count, 0u);
    EXPECT_EQ(cmds[2].count, 36u);
}

TEST_F(GpuSceneTest, MovedFromSceneHoldsZero) {
    gl::GpuScene gpu;
    gpu.sync(scene);
    const GLuint name = gpu.vertexBuffer().id();
    gl::GpuScene other = std::move(gpu);
    EXPECT_EQ(gpu.vertexBuffer().id(), 0u);
    EXPECT_EQ(other.vertexBuffer().id(), name);
    EXPECT_EQ(other.objectCount(), 3u);
}
