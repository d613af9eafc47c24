#include "GlTest.h"

#include "isc/mesh/Shapes.h"
#include "isc/scene/Scene.h"
#include "render/SceneRenderer.h"

#include <array>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>

using namespace isc;

namespace {
std::array<int, 4> pixel(const std::vector<std::uint8_t>& img, int width, int x, int y) {
    const std::uint8_t* p = &img[(std::size_t(y) * width + x) * 4];
    return {p[0], p[1], p[2], p[3]};
}
}  // namespace

TEST_F(GlTest, RendersOneBoxLitInTheCentre) {
    auto renderer = render::SceneRenderer::create(96, 64);
    ASSERT_TRUE(renderer.has_value()) << renderer.error().message;
    Scene scene;
    const MeshId box = scene.addMesh(std::make_shared<Mesh>(shapes::box({0.5f, 0.5f, 0.5f})));
    scene.addObject(box, {});
    renderer->options().groundGrid = false;
    renderer->options().clearColor = {0.0f, 0.0f, 1.0f, 1.0f};
    renderer->camera().eye = {2.0f, 1.5f, 2.5f};
    renderer->camera().target = {0.0f, 0.0f, 0.0f};
    renderer->setObjectColor(0, {1.0f, 0.0f, 0.0f});
    auto ok = renderer->render(scene);
    ASSERT_TRUE(ok.has_value()) << ok.error().message;
    const auto img = renderer->readPixels();
    ASSERT_EQ(img.size(), 96u * 64u * 4u);
    // Centre: the red box, lit (ambient 0.25 alone would give 64), no blue or green.
    const auto centre = pixel(img, 96, 48, 32);
    EXPECT_GT(centre[0], 70) << "centre pixel not lit";
    EXPECT_EQ(centre[1], 0);
    EXPECT_EQ(centre[2], 0);
    // Corners: the clear colour.
    for (auto [x, y] : {std::pair{0, 0}, std::pair{95, 0}, std::pair{0, 63}, std::pair{95, 63}})
        EXPECT_EQ(pixel(img, 96, x, y), (std::array<int, 4>{0, 0, 255, 255})) << x << "," << y;

    // The PNG is written and an unwritable path is an error naming it.
    const auto path = std::filesystem::temp_directory_path() / "isc_render_test.png";
    ASSERT_TRUE(renderer->writePng(path.string()).has_value());
    EXPECT_GT(std::filesystem::file_size(path), 100u);
    std::filesystem::remove(path);
    auto bad = renderer->writePng("/nonexistent-dir/x.png");
    ASSERT_FALSE(bad.has_value());
    EXPECT_NE(bad.error().message.find("/nonexistent-dir/x.png"), std::string::npos);
}

TEST_F(GlTest, GroundGridAndInactiveObjects) {
    // Set ISC_RENDER_TEST_PNG=folder to look at the pictures.
    const char* pngDir = std::getenv("ISC_RENDER_TEST_PNG");
    auto renderer = render::SceneRenderer::create(64, 64);
    ASSERT_TRUE(renderer.has_value()) << renderer.error().message;
    Scene scene;
    const MeshId box = scene.addMesh(std::make_shared<Mesh>(shapes::box({0.5f, 0.5f, 0.5f})));
    const ObjectId o = scene.addObject(box, {});
    scene.setActive(o, false);
    renderer->options().clearColor = {0.0f, 0.0f, 1.0f, 1.0f};
    renderer->camera().eye = {0.0f, 5.0f, 0.01f};  // looking down at the ground
    ASSERT_TRUE(renderer->render(scene).has_value());
    if (pngDir) {
        ASSERT_TRUE(renderer->writePng(std::string(pngDir) + "/grid.png").has_value());
    }
    const auto img = renderer->readPixels();
    // The inactive box is not drawn: the centre shows the grey ground, not the clear colour.
    const auto centre = pixel(img, 64, 32, 32);
    EXPECT_NEAR(centre[0], centre[1], 12) << "ground is grey";
    EXPECT_NEAR(centre[1], centre[2], 12) << "ground is grey";
    EXPECT_GT(centre[0], 60);
    EXPECT_LT(centre[2], 200);
}

TEST_F(GlTest, ThreeObjectsFromAnAngle) {
    auto renderer = render::SceneRenderer::create(320, 200);
    ASSERT_TRUE(renderer.has_value()) << renderer.error().message;
    Scene scene;
    const MeshId box = scene.addMesh(std::make_shared<Mesh>(shapes::box({0.5f, 0.5f, 0.5f})));
    const MeshId ball = scene.addMesh(std::make_shared<Mesh>(shapes::uvSphere(0.6f, 24, 12)));
    Pose p;
    p.position = {-1.2f, 0.5f, 0.0f};
    scene.addObject(box, p);
    p.position = {1.2f, 0.6f, 0.0f};
    scene.addObject(ball, p);
    p.position = {0.0f, 1.5f, -0.5f};
    p.rotation = glm::angleAxis(0.6f, glm::normalize(Vec3(1, 1, 0)));
    scene.addObject(box, p);
    renderer->camera().eye = {3.0f, 3.0f, 5.0f};
    renderer->camera().target = {0.0f, 0.6f, 0.0f};
    ASSERT_TRUE(renderer->render(scene).has_value());
    if (const char* pngDir = std::getenv("ISC_RENDER_TEST_PNG")) {
        ASSERT_TRUE(renderer->writePng(std::string(pngDir) + "/three.png").has_value());
    }
    // Drawing again with nothing changed gives the same picture (no state leaks between frames).
    const auto first = renderer->readPixels();
    ASSERT_TRUE(renderer->render(scene).has_value());
    EXPECT_EQ(renderer->readPixels(), first);
}
