#include "GlTest.h"

#include "isc/mesh/Shapes.h"
#include "isc/scene/Scene.h"
#include "render/SceneRenderer.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include <glm/gtc/matrix_transform.hpp>

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

// Three objects seen from an angle, each in its own pure colour on a black background (no
// grid): each object's centre, projected with the renderer's camera (the same
// perspective * lookAt), shows that object's colour (at least the 0.25 ambient: a face in
// shadow reads 64) and nothing of the other two channels; each covers a fair share of the
// frame and has faces lit above the ambient; the corners show the background; and drawing
// again gives the same picture (no state leaks between frames).
TEST_F(GlTest, ThreeObjectsFromAnAngle) {
    const int width = 320, height = 200;
    auto renderer = render::SceneRenderer::create(width, height);
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
    renderer->options().groundGrid = false;
    renderer->options().clearColor = {0.0f, 0.0f, 0.0f, 1.0f};
    const Vec3 colours[3] = {{1.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}, {0.0f, 0.0f, 1.0f}};
    for (ObjectId o = 0; o < 3; ++o) renderer->setObjectColor(o, colours[o]);
    renderer->camera().eye = {3.0f, 3.0f, 5.0f};
    renderer->camera().target = {0.0f, 0.6f, 0.0f};
    ASSERT_TRUE(renderer->render(scene).has_value());
    if (const char* pngDir = std::getenv("ISC_RENDER_TEST_PNG")) {
        ASSERT_TRUE(renderer->writePng(std::string(pngDir) + "/three.png").has_value());
    }
    const auto first = renderer->readPixels();
    ASSERT_EQ(first.size(), std::size_t(width) * height * 4);

    const render::Camera& cam = renderer->camera();
    const Mat4 viewProj = glm::perspective(glm::radians(cam.fovYDegrees), float(width) / float(height),
                                           cam.nearPlane, cam.farPlane) *
                          glm::lookAt(cam.eye, cam.target, cam.up);
    int covered[3] = {0, 0, 0}, brightest[3] = {0, 0, 0};
    for (std::size_t i = 0; i < first.size(); i += 4)
        for (int c = 0; c < 3; ++c) {
            const int v = first[i + std::size_t(c)];
            if (v > 40 && first[i + std::size_t((c + 1) % 3)] == 0 && first[i + std::size_t((c + 2) % 3)] == 0) {
                ++covered[c];
                brightest[c] = std::max(brightest[c], v);
            }
        }
    for (ObjectId o = 0; o < 3; ++o) {
        const Vec4 clip = viewProj * Vec4(scene.pose(o).position, 1.0f);
        const int x = int((clip.x / clip.w * 0.5f + 0.5f) * float(width));
        const int y = int((0.5f - clip.y / clip.w * 0.5f) * float(height));  // rows top to bottom
        ASSERT_TRUE(x >= 0 && x < width && y >= 0 && y < height) << "object " << o << " off screen";
        const auto centre = pixel(first, width, x, y);
        const int c = int(o);
        EXPECT_GE(centre[c], 60) << "object " << o << " at " << x << "," << y << " not in its colour";
        EXPECT_EQ(centre[(c + 1) % 3], 0) << "object " << o << " at " << x << "," << y;
        EXPECT_EQ(centre[(c + 2) % 3], 0) << "object " << o << " at " << x << "," << y;
        // Each object is some 40-100 pixels across here: at least 1000 pixels of its colour.
        EXPECT_GT(covered[c], 1000) << "object " << o;
        EXPECT_GT(brightest[c], 120) << "object " << o << " has no lit face";
    }
    EXPECT_LT(covered[0] + covered[1] + covered[2], width * height / 2);  // the background shows
    for (auto [x, y] : {std::pair{0, 0}, std::pair{width - 1, 0}, std::pair{0, height - 1}, std::pair{width - 1, height - 1}})
        EXPECT_EQ(pixel(first, width, x, y), (std::array<int, 4>{0, 0, 0, 255})) << x << "," << y;

    ASSERT_TRUE(renderer->render(scene).has_value());
    EXPECT_EQ(renderer->readPixels(), first);
}
