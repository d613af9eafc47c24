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

    int slowMade = 0;

    // cpu: 0.01 ms + 0.008 ms a pair; gpu: 1 ms + 0.002 ms a pair (even at 167 pairs);
    // with `slow`, a third at 20 ms a call.
    Result<std::unique_ptr<Detector>> make(AutoTuning tuning = {}, bool slow = false) {
        tuning.clockMs = [c = clock] { return c->ms; };
        std::vector<AutoCandidate> list;
        list.push_back({"cpu", false, [this]() -> Result<std::unique_ptr<Detector>> {
                            return std::unique_ptr<Detector>(new FakeDetector("cpu", clock, 0.01, 0.008, &cpuMade));
                        }});
        list.push_back({"gpu", false, [this]() -> Result<std::unique_ptr<Detector>> {
                            return std::unique_ptr<Detector>(new FakeDetector("gpu", clock, 1.0, 0.002, &gpuMade));
                        }});
        if (slow)
            list.push_back({"slow", false, [this]() -> Result<std::unique_ptr<Detector>> {
                                return std::unique_ptr<Detector>(new FakeDetector("slow", clock, 20.0, 0.0, &slowMade));
                            }});
        return createAutoDetector(std::move(list), tuning, "fake GL");
    }
};

std::vector<ObjectPair> pairsOf(std::size_t n) {
    std::vector<ObjectPair> p;
    for (std::uint32_t i = 0; i < n; ++i) p.push_back({i, i + 1});
    return p;
}

// A fake whose calls cost the given milliseconds in turn (the last one repeated).
class Sequence final : public Detector {
public:
    Sequence(std::shared_ptr<FakeClock> clock, std::vector<double> costs) : clock_(std::move(clock)), costs_(std::move(costs)) {}
    std::string_view name() const override { return "late"; }
    bool usesGl() const override { return false; }
    bool reportsTrianglePairs() const override { return true; }
    bool needsClosedMeshes() const override { return false; }
    Result<void> detect(const Scene&, std::span<const ObjectPair>, DetectionOutput& out) override {
        out = DetectionOutput{};
        clock_->ms += costs_[std::min(calls_++, costs_.size() - 1)];
        return {};
    }

private:
    std::shared_ptr<FakeClock> clock_;
    std::vector<double> costs_;
    std::size_t calls_ = 0;
};

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
    // cpu's calls up to twice as dear as when chosen (20 pairs: 0.17 against 0.09 ms): no new round.
    for (int k = 0; k < 5; ++k) ASSERT_TRUE(a->detect(scene, pairsOf(20), out));
    EXPECT_TRUE(a->decided());
    EXPECT_EQ(a->rounds(), 1);
    // 300 pairs (cpu 2.4 ms, gpu 1.6 ms): after 3 such calls a new round, the gpu detector
    // made again, warmed, timed 3 times and chosen.
    for (int k = 0; k < 3; ++k) ASSERT_TRUE(a->detect(scene, pairsOf(300), out));
    EXPECT_FALSE(a->decided());
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
    for (int k = 0; k < 12; ++k) ASSERT_TRUE(b->detect(scene, pairsOf(300), out));
    EXPECT_EQ(b->current(), "cpu");
    EXPECT_EQ(b->rounds(), 1);
}

// A pile that fills gradually (2 to 300 candidate pairs, 5 % more each call, then dense):
// each doubling starts a round, and the default cap (8) is enough to reach the dense calls,
// where the gpu detector wins (crossover with the 10 % margin at 190 pairs).
TEST(AutoDetectorNoGl, AGraduallyFillingPileEndsOnTheFasterDetectorForTheDenseCalls) {
    FakePair fakes;
    auto made = fakes.make();
    ASSERT_TRUE(made);
    auto* a = dynamic_cast<AutoDetector*>(made->get());
    Scene scene;
    DetectionOutput out;
    double w = 2.0;
    for (; w < 300.0; w *= 1.05) ASSERT_TRUE(a->detect(scene, pairsOf(std::size_t(w)), out));
    for (int k = 0; k < 30; ++k) ASSERT_TRUE(a->detect(scene, pairsOf(300), out));
    EXPECT_TRUE(a->decided());
    EXPECT_EQ(a->current(), "gpu") << a->describe();
    EXPECT_GE(a->rounds(), 6);
    EXPECT_LE(a->rounds(), 9);
    // With only 4 later rounds the last one is measured at about 55 pairs: cpu stays.
    FakePair capped;
    auto few = capped.make(AutoTuning{.remeasureMax = 4});
    ASSERT_TRUE(few);
    auto* b = dynamic_cast<AutoDetector*>(few->get());
    for (w = 2.0; w < 300.0; w *= 1.05) ASSERT_TRUE(b->detect(scene, pairsOf(std::size_t(w)), out));
    for (int k = 0; k < 30; ++k) ASSERT_TRUE(b->detect(scene, pairsOf(300), out));
    EXPECT_EQ(b->current(), "cpu") << b->describe();
    EXPECT_EQ(b->rounds(), 5);
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
    for (int k = 0; k < 7; ++k) ASSERT_TRUE(a->detect(scene, pairsOf(175), out));
    ASSERT_TRUE(a->decided());
    EXPECT_EQ(a->rounds(), 2);
    EXPECT_EQ(a->current(), "cpu") << a->describe();
    EXPECT_NE(a->describe().find("kept cpu"), std::string::npos) << a->describe();
    ASSERT_TRUE(a->detect(scene, {}, out));  // no pairs: no round
    EXPECT_EQ(a->rounds(), 2);
    // 1000 pairs: the last allowed round, gpu chosen.
    for (int k = 0; k < 7; ++k) ASSERT_TRUE(a->detect(scene, pairsOf(1000), out));
    EXPECT_EQ(a->rounds(), 3);
    EXPECT_EQ(a->current(), "gpu");
    // Back to 10 pairs (gpu 1.02 ms, a third of its 3 ms when chosen): the cap is reached,
    // no more rounds.
    for (int k = 0; k < 7; ++k) ASSERT_TRUE(a->detect(scene, pairsOf(10), out));
    EXPECT_EQ(a->rounds(), 3);
    EXPECT_EQ(a->current(), "gpu");
}

// The same rule on each measuring call: a candidate timed more than 10 times and 5 ms slower
// than the fastest on the same call twice in a row leaves at once (one cold call and two timed, not
// four calls), its timing kept in the record; one 11 times slower but by less than 5 ms (gpu on few
// pairs) stays. Worked out on the fake clock: 4 calls of 10 pairs cost cpu 4 x 0.09, gpu 4 x 1.02
// and slow 3 x 20 ms = 64.44 ms (all four of slow's: 84.44).
TEST(AutoDetectorNoGl, AHopelesslySlowCandidateLeavesAfterTwoTimedCalls) {
    FakePair fakes;
    auto made = fakes.make({}, true);
    ASSERT_TRUE(made);
    auto* a = dynamic_cast<AutoDetector*>(made->get());
    Scene scene;
    DetectionOutput out;
    ASSERT_TRUE(a->detect(scene, pairsOf(10), out));  // cold: nobody timed
    ASSERT_TRUE(a->detect(scene, pairsOf(10), out));  // first timed call: slow stays
    EXPECT_NE(a->describe().find("measuring cpu, gpu, slow"), std::string::npos) << a->describe();
    ASSERT_TRUE(a->detect(scene, pairsOf(10), out));  // the second: slow leaves
    EXPECT_NE(a->describe().find("measuring cpu, gpu ("), std::string::npos) << a->describe();
    ASSERT_TRUE(a->detect(scene, pairsOf(10), out));
    ASSERT_TRUE(a->decided());
    EXPECT_EQ(a->current(), "cpu");
    EXPECT_NEAR(fakes.clock->ms, 64.44, 1e-9);
    EXPECT_NE(a->describe().find("slow left out (more than 10x slower than cpu on the same call, 20.0 ms against 0.09 ms "
                                 "at 10 pairs, the second call in a row)"),
              std::string::npos)
        << a->describe();
    ASSERT_EQ(a->timings().size(), 3u);  // cpu and gpu (3 calls each), slow (its 2)
    EXPECT_EQ(a->timings()[2].name, "slow");
    EXPECT_EQ(a->timings()[2].calls, 2);
    EXPECT_EQ(a->timings()[1].name, "gpu");
    EXPECT_EQ(a->timings()[1].calls, 3);
    // Not measured again: the next round (300 pairs) makes gpu again, not slow.
    for (int k = 0; k < 7; ++k) ASSERT_TRUE(a->detect(scene, pairsOf(300), out));
    EXPECT_EQ(a->current(), "gpu") << a->describe();
    EXPECT_EQ(fakes.slowMade, 1);
    EXPECT_EQ(fakes.gpuMade, 2);
    EXPECT_EQ(a->timings().size(), 2u);  // the deciding round's: cpu and gpu
}

// cpu (as FakePair's) and a Sequence named "late" with `costs`, on `clock`.
Result<std::unique_ptr<Detector>> cpuAndSequence(std::shared_ptr<FakeClock> clock, std::vector<double> costs, int* cpuMade) {
    std::vector<AutoCandidate> list;
    list.push_back({"cpu", false, [clock, cpuMade]() -> Result<std::unique_ptr<Detector>> {
                        return std::unique_ptr<Detector>(new FakeDetector("cpu", clock, 0.01, 0.008, cpuMade));
                    }});
    list.push_back({"late", false, [clock, costs]() -> Result<std::unique_ptr<Detector>> {
                        return std::unique_ptr<Detector>(new Sequence(clock, costs));
                    }});
    return createAutoDetector(std::move(list), AutoTuning{.clockMs = [clock] { return clock->ms; }}, "fake GL");
}

// A candidate whose first timed call is still cold (hopeless once: 25 ms against cpu's 0.09),
// then the fastest (0.05 ms), stays in the round and wins it.
// With two candidates, the hopeless one leaving the round ends it: a decision on what was timed,
// both medians in its line and both timings kept.
TEST(AutoDetectorNoGl, TheLastCandidateLeftByAHopelessOneIsADecision) {
    auto clock = std::make_shared<FakeClock>();
    int cpuMade = 0;
    auto made = cpuAndSequence(clock, {30.0, 20.0, 20.0}, &cpuMade);
    ASSERT_TRUE(made) << made.error().message;
    auto* a = dynamic_cast<AutoDetector*>(made->get());
    Scene scene;
    DetectionOutput out;
    for (int k = 0; k < 2; ++k) ASSERT_TRUE(a->detect(scene, pairsOf(10), out));
    EXPECT_FALSE(a->decided());
    ASSERT_TRUE(a->detect(scene, pairsOf(10), out));  // late's second hopeless call
    ASSERT_TRUE(a->decided());
    EXPECT_EQ(a->current(), "cpu");
    EXPECT_NE(a->reason().find("fastest by median wall time over 3 calls with pairs (cpu 0.09 ms, late 20.0 ms (left out)"),
              std::string::npos)
        << a->reason();
    ASSERT_EQ(a->timings().size(), 2u);
    EXPECT_EQ(a->timings()[0].calls, 2);
    EXPECT_EQ(a->timings()[1].name, "late");
    EXPECT_EQ(a->timings()[1].calls, 2);
}

TEST(AutoDetectorNoGl, OneColdTimedCallDoesNotDropACandidate) {
    auto clock = std::make_shared<FakeClock>();
    int cpuMade = 0;
    auto made = cpuAndSequence(clock, {30.0, 25.0, 0.05}, &cpuMade);
    ASSERT_TRUE(made) << made.error().message;
    auto* a = dynamic_cast<AutoDetector*>(made->get());
    Scene scene;
    DetectionOutput out;
    for (int k = 0; k < 4; ++k) ASSERT_TRUE(a->detect(scene, pairsOf(10), out));
    ASSERT_TRUE(a->decided());
    EXPECT_EQ(a->current(), "late") << a->describe();
}

// decide()'s rule on the round's medians: a candidate hopeless on every other call (never twice in
// a row, so it stays in the round) whose median is more than 10 times and 5 ms the choice's is
// left out at the decision, not measured again.
TEST(AutoDetectorNoGl, AHopelessMedianIsLeftOutAtTheDecision) {
    auto clock = std::make_shared<FakeClock>();
    int cpuMade = 0;
    auto made = cpuAndSequence(clock, {1.0, 20.0, 0.5, 20.0, 0.5, 20.0}, &cpuMade);
    ASSERT_TRUE(made) << made.error().message;
    auto* a = dynamic_cast<AutoDetector*>(made->get());
    Scene scene;
    DetectionOutput out;
    for (int k = 0; k < 4; ++k) ASSERT_TRUE(a->detect(scene, pairsOf(10), out));  // late: 20, 0.5, 20
    ASSERT_TRUE(a->decided());
    EXPECT_EQ(a->current(), "cpu");
    EXPECT_NE(a->describe().find("late left out (more than 10x slower than cpu at 10 pairs, 20.0 ms)"), std::string::npos)
        << a->describe();
    ASSERT_EQ(a->timings().size(), 2u);
    EXPECT_EQ(a->timings()[1].calls, 3);
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
