// The "auto" detector in a process that has no GL context (nothing here makes one): cpu, and
// the GL detectors named as left out; naming only GL candidates is an error that says why.
#include "isc/detect/AutoDetector.h"
#include "isc/detect/Registry.h"
#include "isc/gl/Context.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace isc {
namespace {

TEST(AutoDetectorNoGl, PicksCpuAndSaysWhy) {
    ASSERT_EQ(gl::Context::currentInfo(), nullptr);
    auto made = createDetector("auto");
    ASSERT_TRUE(made) << made.error().message;
    auto* a = dynamic_cast<AutoDetector*>(made->get());
    ASSERT_NE(a, nullptr);
    EXPECT_TRUE(a->decided());
    EXPECT_EQ(a->current(), "cpu");
    EXPECT_EQ(a->describe().rfind("auto -> cpu (no current GL context", 0), 0u) << a->describe();
    for (const DetectorInfo& d : registeredDetectors())
        if (d.usesGl && d.reportsTrianglePairs) {
            EXPECT_NE(a->reason().find(d.name), std::string::npos) << a->reason();
        }

    auto glOnly = createDetector("auto", {.options = {{"candidates", "peel"}}});
    ASSERT_FALSE(glOnly);
    EXPECT_NE(glOnly.error().message.find("GL 4.5 context"), std::string::npos) << glOnly.error().message;
}

TEST(AutoDetectorNoGl, SoftwareRenderersAreRecognised) {
    EXPECT_TRUE(isSoftwareRenderer("llvmpipe (LLVM 15.0.6, 256 bits)"));
    EXPECT_TRUE(isSoftwareRenderer("softpipe"));
    EXPECT_TRUE(isSoftwareRenderer("Google SwiftShader"));
    EXPECT_FALSE(isSoftwareRenderer("NVIDIA H100 80GB HBM3/PCIe/SSE2"));
    EXPECT_FALSE(isSoftwareRenderer("AMD Radeon RX 7900 XTX (radeonsi, navi31, LLVM 15.0.7, DRM 3.54)"));
}


// Fake candidates on an injected clock: each call advances the clock by its cost, a function
// of the call's candidate pairs (no timing of real work; the numbers are made up to match the
// H100's demo: cpu cheap on few pairs, the GPU detector cheaper on many).
struct FakeClock {
    double ms = 0.0;
};

class FakeDetector final : public Detector {
public:
    FakeDetector(std::string name, std::shared_ptr<FakeClock> clock, double fixedMs, double perPairMs, int* made)
        : name_(std::move(name)), clock_(std::move(clock)), fixed_(fixedMs), perPair_(perPairMs) {
        ++*made;
    }
    std::string_view name() const override { return name_; }
    bool usesGl() const override { return false; }
    bool reportsTrianglePairs() const override { return true; }
    bool needsClosedMeshes() const override { return false; }
    Result<void> detect(const Scene&, std::span<const ObjectPair> candidates, DetectionOutput& out) override {
        out = DetectionOutput{};
        clock_->ms += fixed_ + perPair_ * double(candidates.size());
        ++calls;
        return {};
    }
    int calls = 0;

private:
    std::string name_;
    std::shared_ptr<FakeClock> clock_;
    double fixed_, perPair_;
};

struct FakePair {
    std::shared_ptr<FakeClock> clock = std::make_shared<FakeClock>();
    int cpuMade = 0, gpuMade = 0;

    // cpu: 0.01 ms + 0.008 ms a pair; gpu: 1 ms + 0.002 ms a pair (even at 167 pairs).
    Result<std::unique_ptr<Detector>> make(AutoTuning tuning = {}) {
        tuning.clockMs = [c = clock] { return c->ms; };
        std::vector<AutoCandidate> list;
        list.push_back({"cpu", false, [this]() -> Result<std::unique_ptr<Detector>> {
                            return std::unique_ptr<Detector>(new FakeDetector("cpu", clock, 0.01, 0.008, &cpuMade));
                        }});
        list.push_back({"gpu", false, [this]() -> Result<std::unique_ptr<Detector>> {
                            return std::unique_ptr<Detector>(new FakeDetector("gpu", clock, 1.0, 0.002, &gpuMade));
                        }});
        return createAutoDetector(std::move(list), tuning, "fake GL");
    }
};

std::vector<ObjectPair> pairsOf(std::size_t n) {
    std::vector<ObjectPair> p;
    for (std::uint32_t i = 0; i < n; ++i) p.push_back({i, i + 1});
    return p;
}

// A pile: sparse first calls (cpu fastest), then dense ones (the GPU detector fastest). The
// choice follows the dense calls; the same scene with re-measuring off keeps the first choice.
TEST(AutoDetectorNoGl, MeasuresAgainWhenTheCallsGrowDense) {
    FakePair fakes;
    auto made = fakes.make();
    ASSERT_TRUE(made) << made.error().message;
    auto* a = dynamic_cast<AutoDetector*>(made->get());
    ASSERT_NE(a, nullptr);
    Scene scene;
    DetectionOutput out;
    for (int k = 0; k < 4; ++k) ASSERT_TRUE(a->detect(scene, pairsOf(10), out));  // 1 untimed + 3 timed
    ASSERT_TRUE(a->decided());
    EXPECT_EQ(a->current(), "cpu") << a->describe();
    EXPECT_EQ(a->rounds(), 1);
    EXPECT_EQ(fakes.gpuMade, 1);
    // Up to twice the pairs: no new round.
    ASSERT_TRUE(a->detect(scene, pairsOf(20), out));
    EXPECT_TRUE(a->decided());
    EXPECT_EQ(a->rounds(), 1);
    // 300 pairs (cpu 2.4 ms, gpu 1.6 ms): a new round, the gpu detector made again and chosen.
    for (int k = 0; k < 4; ++k) ASSERT_TRUE(a->detect(scene, pairsOf(300), out));
    ASSERT_TRUE(a->decided()) << a->describe();
    EXPECT_EQ(a->rounds(), 2);
    EXPECT_EQ(a->current(), "gpu") << a->describe();
    EXPECT_EQ(fakes.gpuMade, 2);
    EXPECT_NE(a->describe().find("300 candidate pairs a call"), std::string::npos) << a->describe();
    EXPECT_NE(a->describe().find("after cpu at 10 pairs"), std::string::npos) << a->describe();
    // It stays there while the calls stay dense.
    for (int k = 0; k < 10; ++k) ASSERT_TRUE(a->detect(scene, pairsOf(250 + 20 * (k % 3)), out));
    EXPECT_EQ(a->rounds(), 2);
    EXPECT_EQ(a->current(), "gpu");

    FakePair once;
    auto off = once.make(AutoTuning{.remeasureAt = 0.0});
    ASSERT_TRUE(off);
    auto* b = dynamic_cast<AutoDetector*>(off->get());
    for (int k = 0; k < 4; ++k) ASSERT_TRUE(b->detect(scene, pairsOf(10), out));
    for (int k = 0; k < 8; ++k) ASSERT_TRUE(b->detect(scene, pairsOf(300), out));
    EXPECT_EQ(b->current(), "cpu");
    EXPECT_EQ(b->rounds(), 1);
}

// Hysteresis and the cap: a later round whose winner is less than 10 % faster keeps the
// choice; rounds stop after remeasureMax; calls without pairs never start one.
TEST(AutoDetectorNoGl, LaterRoundsNeedAClearWinnerAndAreCapped) {
    FakePair fakes;
    auto made = fakes.make(AutoTuning{.remeasureMax = 2});
    ASSERT_TRUE(made);
    auto* a = dynamic_cast<AutoDetector*>(made->get());
    Scene scene;
    DetectionOutput out;
    for (int k = 0; k < 4; ++k) ASSERT_TRUE(a->detect(scene, pairsOf(10), out));
    EXPECT_EQ(a->current(), "cpu");
    // 175 pairs: cpu 1.41 ms, gpu 1.35 ms: gpu faster by 4 %, cpu kept.
    for (int k = 0; k < 4; ++k) ASSERT_TRUE(a->detect(scene, pairsOf(175), out));
    ASSERT_TRUE(a->decided());
    EXPECT_EQ(a->rounds(), 2);
    EXPECT_EQ(a->current(), "cpu") << a->describe();
    EXPECT_NE(a->describe().find("kept cpu"), std::string::npos) << a->describe();
    ASSERT_TRUE(a->detect(scene, {}, out));  // no pairs: no round
    EXPECT_EQ(a->rounds(), 2);
    // 1000 pairs: the last allowed round, gpu chosen.
    for (int k = 0; k < 4; ++k) ASSERT_TRUE(a->detect(scene, pairsOf(1000), out));
    EXPECT_EQ(a->rounds(), 3);
    EXPECT_EQ(a->current(), "gpu");
    // Back to 10 pairs: the cap is reached, no more rounds.
    for (int k = 0; k < 4; ++k) ASSERT_TRUE(a->detect(scene, pairsOf(10), out));
    EXPECT_EQ(a->rounds(), 3);
    EXPECT_EQ(a->current(), "gpu");
}

TEST(AutoDetectorNoGl, RemeasureOptionsAreChecked) {
    EXPECT_TRUE(createDetector("auto", {.options = {{"remeasureAt", "3"}, {"remeasureMax", "1"}}}));
    EXPECT_TRUE(createDetector("auto", {.options = {{"remeasureAt", "0"}}}));
    auto bad = createDetector("auto", {.options = {{"remeasureAt", "0.5"}}});
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("remeasureAt=0.5"), std::string::npos) << bad.error().message;
    EXPECT_FALSE(createDetector("auto", {.options = {{"remeasureMax", "-1"}}}));
}

}  // namespace
}  // namespace isc
