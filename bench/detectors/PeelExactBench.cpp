// isc_bench_peel_exact: peel's exact CPU stage (PeelExact) alone, no GL, on the deforming
// 100-bunny pile of isc_bench_peel (the same scene, wobble and candidates): the list it tests is
// the reference's intersecting triangle pairs of the call plus those of the previous call that
// no longer intersect (about what the GPU hands it: most of the list intersects, no duplicates),
// shuffled as the GPU's appends are.
// It times run() per call (threads: ISC_PEEL_EXACT_THREADS, default every core) and the
// speculative test of the previous call's pairs (PeelExact::speculate) the way the detector
// runs it during the GPU wait. Made to find where the ~0.5 µs per pair per core goes (run it
// under callgrind or perf with ISC_PEEL_EXACT_THREADS=1).
// Usage: isc_bench_peel_exact [calls=200] [bodies=100]; env ISC_BUNNY_OBJ (the bunny).
#include "DensePile.h"
#include "BunnyWobble.h"
#include "PeelExact.h"

#include "isc/detectors/CpuDetector.h"
#include "isc/mesh/MeshIo.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <tuple>
#include <vector>

#include <omp.h>

using namespace isc;

namespace {

Scene densePile(const std::shared_ptr<const Mesh>& bunny, int bodies) { return bench::densePile(bunny, bodies); }

double msSince(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

int main(int argc, char** argv) {
    const int calls = argc > 1 ? std::max(1, std::atoi(argv[1])) : 200;
    const int threads = std::getenv("ISC_PEEL_EXACT_THREADS") ? std::atoi(std::getenv("ISC_PEEL_EXACT_THREADS")) : 0;
    auto b = loadBunny(0.1f);
    if (!b) {
        std::fprintf(stderr, "isc_bench_peel_exact: %s\n", b.error().message.c_str());
        return 1;
    }
    auto bunny = std::make_shared<const Mesh>(std::move(*b));
    const int bodies = argc > 2 ? std::max(2, std::atoi(argv[2])) : 100;
    Scene scene = densePile(bunny, bodies);
    scenes::BunnyWobble wobble(bunny);
    std::vector<Vec3> v;
    auto step = [&](int s) {
        for (ObjectId o = 0; o < scene.objectCount(); ++o) {
            wobble.vertices(o, float(s) / 60.0f, v);
            scene.setVertices(o, v);
        }
    };
    step(0);
    const std::vector<ObjectPair> candidates = scene.overlappingPairs();
    CpuDetector cpu;
    peel::PeelExact exact, speculating;
    // ISC_PEEL_EXACT_LOOKUP=0: the exact stage before 2026-11-27 late night (the whole list
    // grouped and sorted; the intersecting pairs speculated only).
    if (const char* l = std::getenv("ISC_PEEL_EXACT_LOOKUP"); l != nullptr && *l == '0') speculating.setLookup(false);
    // ISC_PEEL_EXACT_HASH=0: the lookup searches the groups instead of the hash table.
    if (const char* h = std::getenv("ISC_PEEL_EXACT_HASH"); h != nullptr && *h == '0') speculating.setHash(false);
    // ISC_PEEL_EXACT_MERGE=0: each listed pair looked up one by one (before 2026-11-28).
    if (const char* m = std::getenv("ISC_PEEL_EXACT_MERGE"); m != nullptr && *m == '0') speculating.setMerge(false);
    // ISC_PEEL_EXACT_ROOM=0: the room of the next call's pairs made anew every call (before
    // branch peel-exact-12) instead of kept.
    if (const char* r = std::getenv("ISC_PEEL_EXACT_ROOM"); r != nullptr && *r == '0') speculating.setKeepRoom(false);
    // ISC_PEEL_EXACT_OWNED=0: one shared speculation sweep, the candidates taken by any thread
    // after it (before branch peel-exact-13).
    if (const char* o = std::getenv("ISC_PEEL_EXACT_OWNED"); o != nullptr && *o == '0') speculating.setOwned(false);
    std::mt19937 rng(11);
    double runMs = 0, specMs = 0, afterMs = 0, rememberMs = 0, pairs = 0, reused = 0;
    std::vector<peel::TrianglePairCandidate> prev, found;
    for (int s = 1; s <= calls + 1; ++s) {
        step(s);
        DetectionOutput truth;
        if (auto r = cpu.detect(scene, candidates, truth); !r) return 1;
        // The list: this call's true pairs and last call's (a few no longer intersect).
        found.clear();
        for (const PairResult& r : truth.pairs) {
            const auto c = static_cast<std::uint32_t>(std::find(candidates.begin(), candidates.end(), r.pair) -
                                                      candidates.begin());
            for (const TrianglePair& t : r.triangles) found.push_back({c, t.a, t.b});
        }
        const std::vector<peel::TrianglePairCandidate> truePairs = found;
        auto key = [](const peel::TrianglePairCandidate& x) { return std::tuple(x.candidate, x.low, x.high); };
        auto less = [&](const peel::TrianglePairCandidate& x, const peel::TrianglePairCandidate& y) {
            return key(x) < key(y);
        };
        std::vector<peel::TrianglePairCandidate> sortedTrue = truePairs;
        std::sort(sortedTrue.begin(), sortedTrue.end(), less);
        for (const auto& p : prev)  // last call's pairs that no longer intersect: no duplicates
            if (!std::binary_search(sortedTrue.begin(), sortedTrue.end(), p, less)) found.push_back(p);
        std::shuffle(found.begin(), found.end(), rng);
        prev = truePairs;
        // Plain run().
        DetectionOutput out;
        auto t0 = std::chrono::steady_clock::now();
        exact.run(scene, candidates, found, true, out, threads);
        const double ms = msSince(t0);
        // Speculation of the last call's results, then run() with them.
        DetectionOutput out2;
        speculating.beginCall(true);
        std::atomic<bool> stop{false};
        t0 = std::chrono::steady_clock::now();
        const int team = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel num_threads(team)
        speculating.speculate(scene, stop);
        const double sms = msSince(t0);
        speculating.prepare(candidates);  // the detector does this during the wait
        t0 = std::chrono::steady_clock::now();
        speculating.run(scene, candidates, found, true, out2, threads);
        const double ams = msSince(t0);
        t0 = std::chrono::steady_clock::now();
        speculating.rememberCall(out2.pairs);
        const double rms = msSince(t0);
        if (out2.pairs.size() != out.pairs.size()) {
            std::fprintf(stderr, "isc_bench_peel_exact: speculation changed the answer\n");
            return 1;
        }
        for (std::size_t i = 0; i < out.pairs.size(); ++i)
            if (out.pairs[i].pair != out2.pairs[i].pair || out.pairs[i].triangles != out2.pairs[i].triangles ||
                std::memcmp(out.pairs[i].segments.data(), out2.pairs[i].segments.data(),
                            out.pairs[i].segments.size() * sizeof(Segment)) != 0) {
                std::fprintf(stderr, "isc_bench_peel_exact: speculation changed the answer\n");
                return 1;
            }
        if (s == 1) continue;  // warm-up
        runMs += ms;
        specMs += sms;
        afterMs += ams;
        rememberMs += rms;
        pairs += double(found.size());
        reused += out2.stats.counter("exact_reused");
    }
    const double n = double(calls);
    std::printf("calls=%d threads=%d list=%.0f run_ms=%.4f us_per_pair_core=%.3f speculate_ms=%.4f "
                "run_after_speculation_ms=%.4f remember_ms=%.4f reused=%.0f\n",
                calls, threads, pairs / n, runMs / n,
                1000.0 * runMs / pairs * double(threads > 0 ? threads : omp_get_max_threads()), specMs / n,
                afterMs / n, rememberMs / n, reused / n);
    return 0;
}
