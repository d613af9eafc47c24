// The exact reference (BVH + exact triangle tests) against brute force and FCL 0.7 on
// bunny-bunny: all intersecting triangle pairs, over one fixed set of sampled close poses.
// Per-pose wall times are collected inside the loop; `median_ms` is their median.
// Per pose: update both meshes (ours: rigid update(), O(1); FCL: set transforms) + all pairs.
#include "isc/geometry/PoseSampler.h"
#include "isc/geometry/Reference.h"
#include "isc/mesh/MeshIo.h"

#include <benchmark/benchmark.h>
#include <fcl/fcl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>

using namespace isc;
using namespace isc::geometry;

namespace {

constexpr int kPoses = 200;
constexpr std::uint64_t kSeed = 20240601;

struct Setup {
    Mesh bunny;
    std::vector<std::pair<Pose, Pose>> poses;
    std::shared_ptr<fcl::BVHModel<fcl::OBBRSSd>> fclModel;

    static const Setup& get() {
        static const Setup s = [] {
            Result<Mesh> m = loadBunny(0.1f);
            if (!m) {
                std::fprintf(stderr, "%s\n", m.error().message.c_str());
                std::exit(1);
            }
            Setup out{std::move(*m), {}, nullptr};
            out.poses = sampleClosePoses(out.bunny, out.bunny, kPoses, kSeed);
            out.fclModel = std::make_shared<fcl::BVHModel<fcl::OBBRSSd>>();
            std::vector<fcl::Vector3d> v;
            std::vector<fcl::Triangle> t;
            for (const Vec3& p : out.bunny.vertices()) v.emplace_back(p.x, p.y, p.z);
            for (const UVec3& f : out.bunny.triangles()) t.emplace_back(f.x, f.y, f.z);
            out.fclModel->beginModel();
            out.fclModel->addSubModel(v, t);
            out.fclModel->endModel();
            return out;
        }();
        return s;
    }
};

fcl::Transform3d toFcl(const Pose& p) {
    fcl::Transform3d tf = fcl::Transform3d::Identity();
    const fcl::Quaterniond q(p.rotation.w, p.rotation.x, p.rotation.y, p.rotation.z);
    tf.linear() = q.toRotationMatrix();
    tf.translation() = fcl::Vector3d(p.position.x, p.position.y, p.position.z);
    return tf;
}

void fclPairs(const Setup& s, const Pose& a, const Pose& b, std::vector<TrianglePair>& out) {
    fcl::CollisionObjectd oa(s.fclModel, toFcl(a)), ob(s.fclModel, toFcl(b));
    // enable_contact = false with a large contact budget: FCL records every intersecting
    // triangle pair (ids only) and never stops early.
    fcl::CollisionRequestd request(1000000, false);
    fcl::CollisionResultd result;
    fcl::collide(&oa, &ob, request, result);
    out.clear();
    for (std::size_t i = 0; i < result.numContacts(); ++i) {
        const auto& c = result.getContact(i);
        out.push_back({static_cast<std::uint32_t>(c.b1), static_cast<std::uint32_t>(c.b2)});
    }
    std::sort(out.begin(), out.end());
}

template <class PerPose>
void run(benchmark::State& state, PerPose&& perPose) {
    const Setup& s = Setup::get();
    std::vector<double> ms;
    std::size_t pairs = 0, colliding = 0;
    for (auto _ : state) {
        pairs = colliding = 0;
        for (const auto& [a, b] : s.poses) {
            const auto t0 = std::chrono::steady_clock::now();
            const std::size_t n = perPose(a, b);
            const auto t1 = std::chrono::steady_clock::now();
            ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
            pairs += n;
            colliding += n > 0;
        }
    }
    double sum = 0.0;
    for (double x : ms) sum += x;
    std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
    state.counters["median_ms"] = ms[ms.size() / 2];
    state.counters["mean_ms"] = sum / double(ms.size());
    state.counters["colliding_poses"] = double(colliding);
    state.counters["pairs"] = double(pairs);
}

void BM_Reference(benchmark::State& state) {
    const Setup& s = Setup::get();
    PosedMesh a(s.bunny), b(s.bunny);
    std::vector<TrianglePair> pairs;
    run(state, [&](const Pose& pa, const Pose& pb) {
        a.update(pa);
        b.update(pb);
        intersect(a, b, pairs);
        return pairs.size();
    });
}

// The same with both meshes posed as deformed (update(pose, vertices): every vertex to
// world space and a refit, O(n)), the path a deforming mesh takes.
void BM_ReferenceDeformed(benchmark::State& state) {
    const Setup& s = Setup::get();
    PosedMesh a(s.bunny), b(s.bunny);
    std::vector<TrianglePair> pairs;
    run(state, [&](const Pose& pa, const Pose& pb) {
        a.update(pa, s.bunny.vertices());
        b.update(pb, s.bunny.vertices());
        intersect(a, b, pairs);
        return pairs.size();
    });
}

// PosedMesh::update alone, per call: rigid (arg 0), deformed (arg 1), and rigid followed
// by worldVertices() (arg 2, materialising the world vertices on demand).
void BM_Update(benchmark::State& state) {
    const Setup& s = Setup::get();
    PosedMesh m(s.bunny);
    const int mode = static_cast<int>(state.range(0));
    std::size_t k = 0, calls = 0;
    double sink = 0.0;
    for (auto _ : state) {
        const Pose& p = (k++ & 1) ? s.poses[k % s.poses.size()].second : s.poses[k % s.poses.size()].first;
        if (mode == 1) {
            m.update(p, s.bunny.vertices());
        } else {
            m.update(p);
            if (mode == 2) sink += m.worldVertices()[0].x;
        }
        ++calls;
        benchmark::DoNotOptimize(m);
    }
    benchmark::DoNotOptimize(sink);
    state.SetItemsProcessed(static_cast<std::int64_t>(calls));
}

void BM_BruteForce(benchmark::State& state) {
    const Setup& s = Setup::get();
    PosedMesh a(s.bunny), b(s.bunny);
    std::vector<TrianglePair> pairs;
    run(state, [&](const Pose& pa, const Pose& pb) {
        a.update(pa);
        b.update(pb);
        intersectBruteForce(a, b, pairs);
        return pairs.size();
    });
}

void BM_Fcl(benchmark::State& state) {
    const Setup& s = Setup::get();
    std::vector<TrianglePair> pairs;
    run(state, [&](const Pose& pa, const Pose& pb) {
        fclPairs(s, pa, pb, pairs);
        return pairs.size();
    });
}

// Not timed: how FCL's answers compare with ours, pose by pose (FCL's triangle test is
// not exact, so touching pairs may differ).
void BM_FclAgreement(benchmark::State& state) {
    const Setup& s = Setup::get();
    PosedMesh a(s.bunny), b(s.bunny);
    std::vector<TrianglePair> ours, theirs;
    std::size_t samePoses = 0, sameVerdict = 0, onlyOurs = 0, onlyTheirs = 0;
    for (auto _ : state) {
        samePoses = sameVerdict = onlyOurs = onlyTheirs = 0;
        for (const auto& [pa, pb] : s.poses) {
            a.update(pa);
            b.update(pb);
            intersect(a, b, ours);
            fclPairs(s, pa, pb, theirs);
            samePoses += ours == theirs;
            sameVerdict += ours.empty() == theirs.empty();
            std::vector<TrianglePair> d;
            std::set_difference(ours.begin(), ours.end(), theirs.begin(), theirs.end(), std::back_inserter(d));
            onlyOurs += d.size();
            d.clear();
            std::set_difference(theirs.begin(), theirs.end(), ours.begin(), ours.end(), std::back_inserter(d));
            onlyTheirs += d.size();
        }
    }
    state.counters["poses_identical"] = double(samePoses);
    state.counters["poses_same_verdict"] = double(sameVerdict);
    state.counters["pairs_only_ours"] = double(onlyOurs);
    state.counters["pairs_only_fcl"] = double(onlyTheirs);
}

}  // namespace

BENCHMARK(BM_Reference)->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK(BM_ReferenceDeformed)->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK(BM_Update)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Fcl)->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK(BM_BruteForce)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_FclAgreement)->Unit(benchmark::kMillisecond)->Iterations(1);

BENCHMARK_MAIN();
