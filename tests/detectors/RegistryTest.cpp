// The registry and the uniform settings: names, options by name, errors that name what is
// wrong, and the validate wrapper counting what a detector misses against cpu.
#include "isc/detect/Registry.h"
#include "isc/detectors/CpuDetector.h"
#include "isc/detectors/PeelDetector.h"
#include "isc/mesh/Shapes.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace isc {
namespace {

TEST(DetectorRegistry, UnknownNameListsTheKnownOnes) {
    auto d = createDetector("nope");
    ASSERT_FALSE(d);
    for (const std::string& name : detectorNames())
        EXPECT_NE(d.error().message.find(name), std::string::npos) << d.error().message;
    auto cpu = createDetector("cpu");
    ASSERT_TRUE(cpu) << cpu.error().message;
    EXPECT_EQ((*cpu)->name(), "cpu");
    EXPECT_FALSE(detectorUsesGl("cpu"));
}

TEST(DetectorRegistry, EveryEntryDescribesItself) {
    const auto names = detectorNames();
    ASSERT_FALSE(names.empty());
    EXPECT_EQ(names.front(), "cpu");
    for (const DetectorInfo& d : registeredDetectors()) {
        EXPECT_FALSE(d.summary.empty()) << d.name;
        EXPECT_TRUE(d.create) << d.name;
        EXPECT_TRUE(d.reportsTrianglePairs || d.reportsContactSamples) << d.name << " reports nothing";
        EXPECT_EQ(std::count(names.begin(), names.end(), d.name), 1) << d.name;
        EXPECT_EQ(findDetector(d.name), &d);
    }
    EXPECT_EQ(findDetector("nope"), nullptr);
    ASSERT_NE(findDetector("peel"), nullptr);
    EXPECT_TRUE(findDetector("peel")->usesGl);
    EXPECT_TRUE(findDetector("peel")->needsClosedMeshes);
}

TEST(DetectorSettings, OptionsParseByName) {
    PeelSettings s;
    ASSERT_TRUE(applyOptions(s, {{"resolution", "128"}, {"axes", "1"}, {"sampling", "pairs"},
                                 {"openMeshes", "true"}, {"depthProximity", "off"}},
                             "peel"));
    EXPECT_EQ(s.resolution, 128);
    EXPECT_EQ(s.axes, 1);
    EXPECT_EQ(s.sampling, "pairs");
    EXPECT_TRUE(s.openMeshes);
    EXPECT_FALSE(s.depthProximity);
    // A later entry of the same name wins; toOptions round-trips.
    ASSERT_TRUE(applyOptions(s, {{"axes", "3"}, {"axes", "1"}}, "peel"));
    EXPECT_EQ(s.axes, 1);
    PeelSettings back;
    ASSERT_TRUE(applyOptions(back, toOptions(s), "peel"));
    EXPECT_EQ(back.resolution, 128);
    EXPECT_EQ(back.sampling, "pairs");
    EXPECT_TRUE(back.openMeshes);
}

TEST(DetectorSettings, ErrorsNameTheOptionAndWhatIsAccepted) {
    PeelSettings s;
    auto unknown = applyOptions(s, {{"resolutoin", "128"}}, "peel");
    ASSERT_FALSE(unknown);
    EXPECT_NE(unknown.error().message.find("resolutoin"), std::string::npos);
    EXPECT_NE(unknown.error().message.find("resolution"), std::string::npos) << "lists the known options";
    auto badInt = applyOptions(s, {{"resolution", "12x"}}, "peel");
    ASSERT_FALSE(badInt);
    EXPECT_NE(badInt.error().message.find("int"), std::string::npos) << badInt.error().message;
    auto badBool = applyOptions(s, {{"openMeshes", "maybe"}}, "peel");
    ASSERT_FALSE(badBool);
    EXPECT_NE(badBool.error().message.find("bool"), std::string::npos) << badBool.error().message;
    // Through the registry: cpu has no options, so any is an error.
    auto cpu = createDetector("cpu", {.options = {{"resolution", "128"}}});
    ASSERT_FALSE(cpu);
    EXPECT_NE(cpu.error().message.find("none"), std::string::npos) << cpu.error().message;
    EXPECT_FALSE(parseOption("resolution"));
    auto kv = parseOption("sampling=scene");
    ASSERT_TRUE(kv);
    EXPECT_EQ(kv->first, "sampling");
    EXPECT_EQ(kv->second, "scene");
}

TEST(DetectorSettings, DescribedWithDefaults) {
    const std::vector<SettingDoc> docs = describeSettings<PeelSettings>();
    ASSERT_EQ(docs.size(), PeelSettings::fields.size());
    EXPECT_EQ(docs[0].name, "resolution");
    EXPECT_EQ(docs[0].type, "int");
    EXPECT_EQ(docs[0].defaultValue, std::to_string(PeelSettings{}.resolution));
    for (const SettingDoc& d : docs) EXPECT_FALSE(d.doc.empty()) << d.name;
}

// A detector that drops one triangle pair of each colliding pair and invents one: the
// wrapper must count exactly those against cpu.
class LossyDetector final : public Detector {
public:
    std::string_view name() const override { return "lossy"; }
    bool usesGl() const override { return false; }
    bool reportsTrianglePairs() const override { return true; }
    bool needsClosedMeshes() const override { return false; }
    Result<void> detect(const Scene& scene, std::span<const ObjectPair> candidates, DetectionOutput& out) override {
        if (auto r = exact_.detect(scene, candidates, out); !r) return r;
        for (PairResult& p : out.pairs) {
            p.triangles.erase(p.triangles.begin());
            p.triangles.push_back({999999, 999999});
        }
        return {};
    }

private:
    CpuDetector exact_;
};

TEST(ValidatingDetector, CountsMissedAndInventedPairs) {
    Scene scene;
    const MeshId box = scene.addMesh(std::make_shared<Mesh>(shapes::box(Vec3(0.5f))));
    scene.addObject(box, Pose{});
    Pose shifted;
    shifted.position = Vec3(0.7f, 0.2f, 0.1f);
    scene.addObject(box, shifted);
    const ObjectPair pair{0, 1};
    DetectionOutput out;
    auto checked = wrapValidating(std::make_unique<LossyDetector>(), {});
    ASSERT_TRUE(checked->detect(scene, {&pair, 1}, out));
    ASSERT_EQ(out.pairs.size(), 1u);
    EXPECT_EQ(out.stats.counter("validate_missed_pairs"), 1.0);
    EXPECT_EQ(out.stats.counter("validate_extra_pairs"), 1.0);
    EXPECT_FALSE(out.stats.warnings.empty());
    // The exact detector itself validates clean.
    auto cpu = createDetector("cpu", {.validate = true});
    ASSERT_TRUE(cpu);
    ASSERT_TRUE((*cpu)->detect(scene, {&pair, 1}, out));
    EXPECT_FALSE(out.pairs.empty());
    EXPECT_EQ(out.stats.counter("validate_missed_pairs"), 0.0);
    EXPECT_EQ(out.stats.counter("validate_extra_pairs"), 0.0);
    EXPECT_TRUE(out.stats.warnings.empty());
}

}  // namespace
}  // namespace isc
