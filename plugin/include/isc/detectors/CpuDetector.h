#pragma once
/// The exact CPU reference as a detector ("cpu"): per candidate object pair, every
/// intersecting triangle pair (BVH over each object, refitted per call; exact
/// triangle–triangle tests in double) with its intersection segment. Parallel over
/// object pairs (OpenMP). It is the oracle the GPU detectors are measured against.
#include "isc/detect/Detector.h"

#include <array>
#include <functional>
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

    /// The next detect() runs `work` exactly once on its calling thread, as a member of its
    /// OpenMP team: the team's other threads start posing the objects and testing the pairs,
    /// the calling thread joins them when `work` returns (and runs it at once when detect()
    /// has no team to start: no pairs, an error). `work` must touch nothing detect() reads.
    /// CollisionDispatcher hands it a broadphase's deferred GPU pruning (set-up, issue,
    /// read-back on the GL thread) so that the pruning and the detector run side by side with
    /// no thread more than the team (docs/integration.md, "broadphase-10").
    void runAlongside(std::function<void()> work) { alongside_ = std::move(work); }

private:
    /// Per object: its posed copy (BVH topology kept across calls, refitted each call).
    struct Cached {
        std::unique_ptr<geometry::PosedMesh> posed;
        const Mesh* mesh = nullptr;
        // Rigid, posed at `pose` by the last call: the same pose again keeps what was built
        // from it (world vertices, refitted tree), bit for bit what posing again would build.
        bool rigid = false;
        Pose pose{};
    };
    /// Per mesh (MeshId): one posed copy built from it (its BVH topology), which the objects'
    /// copies are copied from (PosedMesh::copyOf); made when an object first needs it, gone
    /// when the scene's mesh of that id is another (retired).
    struct Shape {
        std::unique_ptr<geometry::PosedMesh> posed;
        const Mesh* mesh = nullptr;
    };
    DetectorSettings settings_;
    std::vector<Cached> cache_;
    std::vector<Shape> shapes_;
    bool copyShapes_ = true;  // test hook ISC_CPU_COPY_SHAPES=0: every copy built, on one thread
    std::function<void()> alongside_;  // runAlongside(), for the next detect()
    std::vector<PairResult> spent_;    // the last call's pairs (DetectionOutput::clearInto), freed in the team
};

}  // namespace isc
