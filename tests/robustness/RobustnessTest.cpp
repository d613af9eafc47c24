// Bad input at the entry points that had no test of their own (docs/robustness.md lists every
// row with its test, these and the older ones): GL buffer budget and its fallback, no GL
// context, a shader that does not compile, 10^6-triangle meshes, 10^6 m coordinates,
// duplicate vertices, empty candidate lists. Each test runs in its own process (ctest), so a
// test that makes no GL context has none.
#include "GlTest.h"
#include "TestWorld.h"

#include "isc/bullet/CollisionDispatcher.h"
#include "isc/bullet/CullideBroadphase.h"
#include "isc/detect/Registry.h"
#include "isc/geometry/TriangleTriangle.h"
#include "isc/gl/Buffer.h"
#include "isc/gl/Context.h"
#include "isc/mesh/Shapes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

using namespace isc;

namespace {

bool has(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

std::vector<std::string> glDetectors() {
    std::vector<std::string> names;
    for (const DetectorInfo& d : registeredDetectors())
        if (d.usesGl) names.push_back(d.name);
    return names;
}

// Two unit boxes 1 cm into each other; object 0 is static (the environment) so that
// object-against-environment detectors (heightmap) serve the pair too.
Scene twoBoxes(Vec3 origin = Vec3(0.0f)) {
    Scene s;
    const MeshId box = s.addMesh(std::make_shared<const Mesh>(shapes::box(Vec3(0.5f))));
    s.addObject(box, Pose{origin});
    s.addObject(box, Pose{origin + Vec3(0.0f, 0.99f, 0.0f)});
    s.setStatic(0, true);
    return s;
}

class GlRobustness : public isc::test::GlTest {};

struct LimitGuard {
    explicit LimitGuard(std::size_t bytes) { gl::setBufferByteLimit(bytes); }
    ~LimitGuard() { gl::setBufferByteLimit(0); }
};

}  // namespace

// --- no GL context ----------------------------------------------------------------------

TEST(NoGlContext, EveryGlDetectorSaysThereIsNone) {
    ASSERT_EQ(gl::Context::currentInfo(), nullptr);
    const auto names = glDetectors();
    ASSERT_FALSE(names.empty());
    for (const std::string& name : names) {
        auto d = createDetector(name);
        ASSERT_FALSE(d.has_value()) << name;
        EXPECT_TRUE(has(d.error().message, "no current GL context")) << d.error().message;
    }
    // The dispatcher keeps going without contacts for mesh pairs and says why (once).
    btDefaultCollisionConfiguration config(bullet::collisionConstructionInfo());
    bullet::DispatcherSettings s;
    s.detector = names.front();
    auto made = bullet::CollisionDispatcher::create(&config, s);
    ASSERT_FALSE(made.has_value());
    EXPECT_TRUE(has(made.error().message, "no current GL context")) << made.error().message;
}

TEST(NoGlContext, ContextThatCannotBeMadeIsAnErrorNamingTheVersion) {
    gl::ContextOptions o;
    o.glMajor = 9;  // no driver has it
    auto c = gl::Context::createHeadless(o);
    ASSERT_FALSE(c.has_value());
    EXPECT_TRUE(has(c.error().message, "OpenGL 9")) << c.error().message;
    EXPECT_EQ(gl::Context::currentInfo(), nullptr);
    // The CPU detectors and "auto" work all the same (auto picks a CPU one).
    auto a = createDetector("auto");
    ASSERT_TRUE(a.has_value()) << a.error().message;
    Scene s = twoBoxes();
    const ObjectPair p{0, 1};
    DetectionOutput out;
    ASSERT_TRUE((*a)->detect(s, std::span(&p, 1), out).has_value());
    EXPECT_EQ(out.pairs.size(), 1u);
}

// --- GL buffer budget ("out of GPU memory") ---------------------------------------------

TEST_F(GlRobustness, BufferBytesCountEveryAllocationAndFree) {
    const std::size_t before = gl::bufferBytes();
    {
        gl::Buffer a("robustness a");
        a.allocate(4096);
        EXPECT_EQ(gl::bufferBytes(), before + 4096);
        a.allocate(1024);  // immutable storage: the old one is freed
        EXPECT_EQ(gl::bufferBytes(), before + 1024);
        EXPECT_FALSE(a.reserve(512));
        gl::Buffer b = std::move(a);  // moves carry the bytes, counted once
        EXPECT_EQ(gl::bufferBytes(), before + 1024);
        EXPECT_GE(gl::bufferBytesPeak(), before + 4096);
        gl::Buffer c("robustness c");
        c.allocate(256);
        gl::Buffer d("robustness c");  // the same label: counted together
        d.allocate(512);
        std::size_t labelA = 0, labelC = 0, sum = 0;
        for (const auto& [label, bytes] : gl::bufferBytesByLabel()) {
            if (label == "robustness a") labelA = bytes;
            if (label == "robustness c") labelC = bytes;
            sum += bytes;
        }
        EXPECT_EQ(labelA, 1024u);
        EXPECT_EQ(labelC, 768u);
        EXPECT_EQ(sum, gl::bufferBytes());
    }
    EXPECT_EQ(gl::bufferBytes(), before);
    for (const auto& [label, bytes] : gl::bufferBytesByLabel())
        EXPECT_TRUE(label != "robustness a" && label != "robustness c") << label << " still holds " << bytes;
}

// Headroom for storage whose need goes up and down (the detectors' per-call buffers): half
// again, to a power of two, at least 256 bytes, capped by what the caller can ever need.
TEST(BufferHeadroom, HalfAgainToAPowerOfTwoCappedByTheMost) {
    EXPECT_EQ(gl::withHeadroom(0), 256u);
    EXPECT_EQ(gl::withHeadroom(100), 256u);
    EXPECT_EQ(gl::withHeadroom(1000), 2048u);   // 1500 -> 2048
    EXPECT_EQ(gl::withHeadroom(1365), 2048u);   // 2047 -> 2048
    EXPECT_EQ(gl::withHeadroom(1366), 4096u);   // 2049 -> 4096
    EXPECT_EQ(gl::withHeadroom(1000, 1200), 1200u);
    EXPECT_EQ(gl::withHeadroom(1000, 500), 1000u);  // never below what is needed
}

TEST_F(GlRobustness, ReserveWithHeadroomKeepsTheBufferThroughUpsAndDowns) {
    gl::Buffer b("robustness headroom");
    EXPECT_TRUE(b.reserveWithHeadroom(1000));
    EXPECT_EQ(b.size(), 2048u);
    const GLuint id = b.id();
    for (std::size_t need : {1800u, 600u, 2048u, 1200u}) {  // the pile's ups and downs
        EXPECT_FALSE(b.reserveWithHeadroom(need)) << need;
        EXPECT_EQ(b.id(), id);
    }
    EXPECT_TRUE(b.reserveWithHeadroom(2049));
    EXPECT_EQ(b.size(), 4096u);
    EXPECT_TRUE(b.reserveWithHeadroom(5000, 6000));
    EXPECT_EQ(b.size(), 6000u);
    EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
}

TEST_F(GlRobustness, OverTheBufferBudgetEveryGlDetectorFailsNamingTheLimit) {
    for (const std::string& name : glDetectors()) {
        SCOPED_TRACE(name);
        const LimitGuard limit(1);  // one byte: any buffer is over it
        auto d = createDetector(name);
        if (!d) {  // failing at creation is as good, if it says why
            EXPECT_TRUE(has(d.error().message, "ISC_GL_BUFFER_LIMIT_MB")) << d.error().message;
            continue;
        }
        Scene s = twoBoxes();
        const ObjectPair p{0, 1};
        DetectionOutput out;
        auto r = (*d)->detect(s, std::span(&p, 1), out);
        ASSERT_FALSE(r.has_value());
        EXPECT_TRUE(has(r.error().message, "over the GL buffer budget")) << r.error().message;
        EXPECT_TRUE(has(r.error().message, "the limit is 1 bytes")) << r.error().message;
    }
    // Under a budget that fits, the same call works again.
    auto d = createDetector(glDetectors().front());
    ASSERT_TRUE(d.has_value());
    Scene s = twoBoxes();
    const ObjectPair p{0, 1};
    DetectionOutput out;
    EXPECT_TRUE((*d)->detect(s, std::span(&p, 1), out).has_value());
}

// The documented fallback: the dispatcher serves the pairs of a detector over budget with
// the exact `cpu` detector, the same contacts, and says so once.
TEST_F(GlRobustness, OverTheBufferBudgetTheDispatcherServesPairsExactly) {
    auto run = [](const std::string& detector, std::size_t limit) {
        std::vector<std::string> said;
        bullet::DispatcherSettings s;
        s.detector = detector;
        s.onWarning = [&](std::string_view w) { said.emplace_back(w); };
        btDefaultCollisionConfiguration config(bullet::collisionConstructionInfo());
        auto* d = new bullet::CollisionDispatcher(&config, s);
        test::CollisionWorld world{std::unique_ptr<btCollisionDispatcher>(d)};
        auto box = std::make_shared<const Mesh>(shapes::box(Vec3(0.5f)));
        test::MeshShape a = test::makeGImpact(box), b = test::makeGImpact(box);
        world.add(a.shape.get(), test::at(0.0f, 0.99f, 0.0f));
        world.add(b.shape.get(), test::at(0.0f, 0.0f, 0.0f));
        const LimitGuard guard(limit);
        for (int i = 0; i < 3; ++i) world.world->performDiscreteCollisionDetection();
        int contacts = 0;
        float deepest = 0.0f;
        for (int i = 0; i < d->getNumManifolds(); ++i) {
            const btPersistentManifold* m = d->getManifoldByIndexInternal(i);
            contacts += m->getNumContacts();
            for (int k = 0; k < m->getNumContacts(); ++k) deepest = std::min(deepest, m->getContactPoint(k).getDistance());
        }
        return std::tuple(contacts, deepest, d->lastStats().fallbackPairs, said);
    };
    const auto [refContacts, refDeepest, refFallback, refSaid] = run("cpu", 0);
    const auto [contacts, deepest, fallback, said] = run("peel", 1);
    ASSERT_GE(refContacts, 3);
    EXPECT_EQ(refFallback, 0u);
    EXPECT_EQ(contacts, refContacts);
    EXPECT_NEAR(deepest, refDeepest, 1e-6f);
    EXPECT_EQ(fallback, 1u);
    int budgetWarnings = 0;
    for (const std::string& w : said) budgetWarnings += has(w, "over the GL buffer budget") ? 1 : 0;
    EXPECT_EQ(budgetWarnings, 1);  // once, not once per step
}

// The broadphase: a body whose transform went NaN among good ones. Bullet gives a NaN box
// no overlap; CULLIDE's pruning must neither crash nor lose the good touching pair.
TEST_F(GlRobustness, CullideBroadphaseWithANanBodyKeepsTheGoodPair) {
    btDefaultCollisionConfiguration config{bullet::collisionConstructionInfo()};
    auto dispatcher = bullet::CollisionDispatcher::create(&config, {.detector = "cpu"});
    ASSERT_TRUE(dispatcher.has_value()) << dispatcher.error().message;
    bullet::CullideBroadphaseSettings bs;
    bs.validate = true;  // any touching pair it prunes is counted
    auto broadphase = bullet::CullideBroadphase::create(bs);
    ASSERT_TRUE(broadphase.has_value()) << broadphase.error().message;
    btCollisionWorld world(dispatcher->get(), broadphase->get(), &config);
    auto box = std::make_shared<const Mesh>(shapes::box(Vec3(0.5f)));
    test::MeshShape a = test::makeGImpact(box), b = test::makeGImpact(box), c = test::makeGImpact(box);
    btCollisionObject oa, ob, oc;
    oa.setCollisionShape(a.shape.get());
    oa.setWorldTransform(test::at(0.0f, 0.0f, 0.0f));
    ob.setCollisionShape(b.shape.get());
    ob.setWorldTransform(test::at(0.0f, 0.99f, 0.0f));
    oc.setCollisionShape(c.shape.get());
    oc.setWorldTransform(test::at(0.3f, 0.5f, 0.0f));
    world.addCollisionObject(&oa);
    world.addCollisionObject(&ob);
    world.addCollisionObject(&oc);
    world.performDiscreteCollisionDetection();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    oc.setWorldTransform(test::at(nan, 0.5f, 0.0f));
    for (int i = 0; i < 3; ++i) world.performDiscreteCollisionDetection();
    EXPECT_EQ((*broadphase)->lastStats().lostPairs, 0u);
    int contacts = 0;
    for (int i = 0; i < (*dispatcher)->getNumManifolds(); ++i) {
        const btPersistentManifold* m = (*dispatcher)->getManifoldByIndexInternal(i);
        const bool good = (m->getBody0() == &oa && m->getBody1() == &ob) || (m->getBody0() == &ob && m->getBody1() == &oa);
        if (good) contacts += m->getNumContacts();
    }
    EXPECT_EQ(contacts, 4);
    world.removeCollisionObject(&oc);
    world.removeCollisionObject(&ob);
    world.removeCollisionObject(&oa);
}

// --- a shader that does not compile (ISC_SHADER_DIR) --------------------------------------

TEST_F(GlRobustness, BrokenSharedShaderFailsEveryGlDetectorClearly) {
    // The shared files every detector includes, broken; written where ISC_SHADER_DIR points.
    const char* broken = "this is not GLSL;\n";
    const std::vector<std::string> shared = {"common/scene.glsl", "common/tritri.glsl", "common/dispatch.glsl"};
    for (const std::string& f : shared) isc::test::writeTestShader(f, broken);
    for (const std::string& name : glDetectors()) {
        SCOPED_TRACE(name);
        std::string error;
        if (auto d = createDetector(name); !d) {
            error = d.error().message;
        } else {
            Scene s = twoBoxes();
            const ObjectPair p{0, 1};
            DetectionOutput out;
            auto r = (*d)->detect(s, std::span(&p, 1), out);
            ASSERT_FALSE(r.has_value()) << "a broken shared shader went unnoticed";
            error = r.error().message;
        }
        EXPECT_TRUE(has(error, ".glsl")) << error;  // names the file
    }
    // Put the embedded text back for the other tests of this process.
    for (const std::string& f : shared) std::filesystem::remove(isc::test::testShaderDir() + "/" + f);
    while (glGetError() != GL_NO_ERROR) {
    }
}

// --- large and far input ------------------------------------------------------------------

// Two spheres of over 10^6 triangles each, crossing: the exact detector finds the crossing
// band, every reported pair really intersects, and swapping the objects gives the same pairs.
TEST(LargeInput, MillionTriangleMeshesCollideExactly) {
    auto sphere = std::make_shared<const Mesh>(shapes::uvSphere(1.0f, 1001, 501));
    ASSERT_GE(sphere->triangleCount(), 1000000u);
    ASSERT_TRUE(sphere->isClosed());
    Scene s;
    const MeshId m = s.addMesh(sphere);
    s.addObject(m, Pose{Vec3(0.0f)});
    s.addObject(m, Pose{Vec3(1.0f, 0.0f, 0.0f)});
    DetectorSettings ds;
    ds.wantSegments = false;
    auto cpu = createDetector("cpu", ds);
    ASSERT_TRUE(cpu.has_value());
    DetectionOutput ab, ba;
    const ObjectPair p{0, 1};
    ASSERT_TRUE((*cpu)->detect(s, std::span(&p, 1), ab).has_value());
    ASSERT_EQ(ab.pairs.size(), 1u);
    const auto& tris = ab.pairs[0].triangles;
    // The crossing circle (radius sqrt(3)/2) cuts about 2 * 2 pi r / edge triangles per sphere.
    EXPECT_GT(tris.size(), 2000u);
    for (std::size_t i = 0; i < tris.size(); i += 97) {
        DVec3 a[3], b[3];
        for (int k = 0; k < 3; ++k) {
            a[k] = s.pose(0).applyDouble(sphere->vertices()[sphere->triangles()[tris[i].a][k]]);
            b[k] = s.pose(1).applyDouble(sphere->vertices()[sphere->triangles()[tris[i].b][k]]);
        }
        EXPECT_TRUE(geometry::trianglesIntersect(a, b)) << "pair " << i;
    }
    Scene swapped;
    const MeshId m2 = swapped.addMesh(sphere);
    swapped.addObject(m2, Pose{Vec3(1.0f, 0.0f, 0.0f)});
    swapped.addObject(m2, Pose{Vec3(0.0f)});
    ASSERT_TRUE((*cpu)->detect(swapped, std::span(&p, 1), ba).has_value());
    ASSERT_EQ(ba.pairs.size(), 1u);
    std::vector<TrianglePair> back;
    for (const TrianglePair& t : ba.pairs[0].triangles) back.push_back({t.b, t.a});
    std::sort(back.begin(), back.end());
    EXPECT_EQ(back, tris);
}

// At 10^6 m a float position has a grain of 6 cm: the pair still gets finite contacts
// through the dispatcher, with depths within that grain of the 1 cm overlap.
TEST(LargeInput, DispatcherAtAMillionMetresGivesFiniteContacts) {
    btDefaultCollisionConfiguration config(bullet::collisionConstructionInfo());
    auto* d = new bullet::CollisionDispatcher(&config);
    test::CollisionWorld world{std::unique_ptr<btCollisionDispatcher>(d)};
    auto box = std::make_shared<const Mesh>(shapes::box(Vec3(0.5f)));
    test::MeshShape a = test::makeGImpact(box), b = test::makeGImpact(box);
    world.add(a.shape.get(), test::at(1.0e6f, 0.99f, 1.0e6f));
    world.add(b.shape.get(), test::at(1.0e6f, 0.0f, 1.0e6f));
    for (int i = 0; i < 3; ++i) world.world->performDiscreteCollisionDetection();
    btPersistentManifold* m = world.manifold();
    ASSERT_NE(m, nullptr);
    ASSERT_GE(m->getNumContacts(), 1);
    for (int i = 0; i < m->getNumContacts(); ++i) {
        const btManifoldPoint& c = m->getContactPoint(i);
        EXPECT_TRUE(std::isfinite(c.getDistance()));
        EXPECT_NEAR(c.getDistance(), -0.01f, 0.07f);
        for (int k = 0; k < 3; ++k) EXPECT_TRUE(std::isfinite(c.m_normalWorldOnB[k]));
    }
}

// --- duplicate vertices, empty input --------------------------------------------------------

// A cube whose triangles each have their own three vertices (as exported without welding):
// open by its edges (nothing shares a vertex), yet it collides exactly like the welded one.
TEST(DuplicateVertices, UnweldedCubeIsOpenAndCollidesLikeTheWeldedOne) {
    const Mesh welded = shapes::box(Vec3(0.5f));
    std::vector<Vec3> v;
    std::vector<UVec3> t;
    for (const UVec3& tri : welded.triangles()) {
        const auto base = std::uint32_t(v.size());
        for (int k = 0; k < 3; ++k) v.push_back(welded.vertices()[tri[k]]);
        t.push_back({base, base + 1, base + 2});
    }
    auto unwelded = Mesh::create("unwelded", std::move(v), std::move(t));
    ASSERT_TRUE(unwelded.has_value());
    EXPECT_FALSE(unwelded->isClosed());
    EXPECT_EQ(unwelded->report().boundaryEdges, 36u);
    auto run = [](std::shared_ptr<const Mesh> mesh) {
        Scene s;
        const MeshId m = s.addMesh(mesh);
        const MeshId box = s.addMesh(std::make_shared<const Mesh>(shapes::box(Vec3(0.5f))));
        s.addObject(m, Pose{Vec3(0.0f)});
        s.addObject(box, Pose{Vec3(0.3f, 0.9f, 0.2f)});
        auto cpu = createDetector("cpu");
        const ObjectPair p{0, 1};
        DetectionOutput out;
        EXPECT_TRUE((*cpu)->detect(s, std::span(&p, 1), out).has_value());
        return out.pairs.empty() ? std::vector<TrianglePair>{} : out.pairs[0].triangles;
    };
    const auto a = run(std::make_shared<const Mesh>(welded));
    const auto b = run(std::make_shared<const Mesh>(std::move(*unwelded)));
    ASSERT_FALSE(a.empty());
    EXPECT_EQ(a, b);  // same triangle order, so the same pairs
}

TEST(EmptyInput, NoCandidatesAndNoObjectsGiveNoPairsAndNoError) {
    for (const DetectorInfo& info : registeredDetectors()) {
        if (info.usesGl) continue;
        SCOPED_TRACE(info.name);
        auto d = createDetector(info.name);
        ASSERT_TRUE(d.has_value());
        Scene empty;
        DetectionOutput out;
        EXPECT_TRUE((*d)->detect(empty, {}, out).has_value());
        EXPECT_TRUE(out.pairs.empty());
        Scene s = twoBoxes();
        EXPECT_TRUE((*d)->detect(s, {}, out).has_value());
        EXPECT_TRUE(out.pairs.empty());
        EXPECT_TRUE(out.unserved.empty());
    }
}
