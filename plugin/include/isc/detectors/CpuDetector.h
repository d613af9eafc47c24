#pragma once
/// The exact CPU reference as a detector ("cpu"): per candidate object pair, every
/// intersecting triangle pair (BVH over each object, refitted per call; exact
/// triangle–triangle tests in double) with its intersection segment. Parallel over
/// object pairs (OpenMP). It is the oracle the GPU detectors are measured against.
#include "isc/detect/Detector.h"

#include <array>
#include <memory>
#include <vector>

namespace isc {

/// The cpu detector has no settings of its own (DetectorSettings covers it).
struct CpuSettings {
    static constexpr std::array<SettingField<CpuSettings>, 0> fields{};
};

namespace geometry {
class PosedMesh;
}

class CpuDetector final : public Detector {
public:
    explicit CpuDetector(const DetectorSettings& settings = {});
    ~CpuDetector() override;

    std::string_view name() const override { return "cpu"; }
    bool usesGl() const override { return false; }
    bool reportsTrianglePairs() const override { return true; }
    bool needsClosedMeshes() const override { return false; }
    [[nodiscard]] Result<void> detect(const Scene& scene, std::span<const ObjectPair> candidates,
                                      DetectionOutput& out) override;

private:
    /// Per object: its posed copy (BVH topology kept across calls, refitted each call).
    struct Cached {
        std::unique_ptr<geometry::PosedMesh> posed;
        const Mesh* mesh = nullptr;
    };
    DetectorSettings settings_;
    std::vector<Cached> cache_;
};

}  // namespace isc
