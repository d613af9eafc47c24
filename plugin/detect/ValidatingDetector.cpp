#include "isc/detect/Registry.h"

#include "isc/detectors/CpuDetector.h"

#include <algorithm>
#include <map>
#include <set>

namespace isc {

namespace {

class ValidatingDetector final : public Detector {
public:
    ValidatingDetector(std::unique_ptr<Detector> inner, const DetectorSettings& settings)
        : inner_(std::move(inner)), reference_(referenceSettings(settings)) {}

    std::string_view name() const override { return inner_->name(); }
    bool usesGl() const override { return inner_->usesGl(); }
    bool reportsTrianglePairs() const override { return inner_->reportsTrianglePairs(); }
    bool needsClosedMeshes() const override { return inner_->needsClosedMeshes(); }
    std::vector<DetectorDebugView> debugViews() const override { return inner_->debugViews(); }

    Result<void> detect(const Scene& scene, std::span<const ObjectPair> candidates, DetectionOutput& out) override {
        if (auto r = inner_->detect(scene, candidates, out); !r) return r;
        const std::set<ObjectPair> unserved(out.unserved.begin(), out.unserved.end());
        std::vector<ObjectPair> served;
        for (const ObjectPair& p : candidates)
            if (!unserved.contains(p)) served.push_back(p);
        DetectionOutput truth;
        if (auto r = reference_.detect(scene, served, truth); !r) return r;

        const bool triangles = inner_->reportsTrianglePairs();
        std::map<ObjectPair, std::vector<TrianglePair>> found, expected;
        for (const PairResult& r : out.pairs) found[r.pair] = triangles ? r.triangles : std::vector<TrianglePair>{};
        for (const PairResult& r : truth.pairs) expected[r.pair] = triangles ? r.triangles : std::vector<TrianglePair>{};
        auto countMissing = [&](const auto& from, const auto& in) {
            double n = 0;
            for (const auto& [pair, tris] : from) {
                auto it = in.find(pair);
                if (!triangles) {
                    n += it == in.end() ? 1 : 0;
                    continue;
                }
                for (const TrianglePair& t : tris)
                    if (it == in.end() || !std::binary_search(it->second.begin(), it->second.end(), t)) ++n;
            }
            return n;
        };
        const double missed = countMissing(expected, found), extra = countMissing(found, expected);
        out.stats.count("validate_missed_pairs", missed);
        out.stats.count("validate_extra_pairs", extra);
        if (missed > 0 || extra > 0)
            out.stats.warnings.push_back("validate: " + std::string(inner_->name()) + " missed " +
                                         std::to_string(int(missed)) + " and invented " + std::to_string(int(extra)) +
                                         (triangles ? " triangle pairs" : " object pairs") + " against cpu this call");
        return {};
    }

private:
    static DetectorSettings referenceSettings(const DetectorSettings& s) {
        DetectorSettings r;
        r.selfCollision = s.selfCollision;
        r.wantSegments = false;
        return r;
    }
    std::unique_ptr<Detector> inner_;
    CpuDetector reference_;
};

}  // namespace

std::unique_ptr<Detector> wrapValidating(std::unique_ptr<Detector> inner, const DetectorSettings& settings) {
    return std::make_unique<ValidatingDetector>(std::move(inner), settings);
}

}  // namespace isc
