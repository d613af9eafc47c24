#include "CinderExact.h"

#include "isc/scene/Scene.h"

#include <algorithm>
#include <omp.h>
#include <unordered_map>

namespace isc::cinder {

std::vector<MeshEdge> meshEdges(const Mesh& mesh) {
    std::unordered_map<std::uint64_t, std::uint32_t> index;
    std::vector<MeshEdge> edges;
    const auto tris = mesh.triangles();
    index.reserve(tris.size() * 2);
    edges.reserve(tris.size() * 3 / 2 + 1);
    for (std::uint32_t t = 0; t < tris.size(); ++t) {
        const std::uint32_t v[3] = {tris[t].x, tris[t].y, tris[t].z};
        for (int k = 0; k < 3; ++k) {
            const std::uint32_t a = std::min(v[k], v[(k + 1) % 3]), b = std::max(v[k], v[(k + 1) % 3]);
            const std::uint64_t key = (std::uint64_t(a) << 32) | b;
            auto [it, inserted] = index.try_emplace(key, std::uint32_t(edges.size()));
            if (inserted) {
                edges.push_back(MeshEdge(a, b, t, t));
            } else {
                edges[it->second].w = t;
            }
        }
    }
    return edges;
}

const geometry::PosedMesh& CinderExact::posed(const Scene& scene, ObjectId o) {
    if (posed_.size() < scene.objectCount()) {
        posed_.resize(scene.objectCount());
        posedMesh_.resize(scene.objectCount(), nullptr);
        posedStamp_.resize(scene.objectCount(), 0);
    }
    if (!posed_[o] || posedMesh_[o] != &scene.objectMesh(o)) {
        posed_[o] = std::make_unique<geometry::PosedMesh>(scene.objectMesh(o));
        posedMesh_[o] = &scene.objectMesh(o);
        posedStamp_[o] = 0;
    }
    if (posedStamp_[o] == generation_) return *posed_[o];
    posedStamp_[o] = generation_;
    if (scene.isDeformed(o)) {
        posed_[o]->update(scene.pose(o), scene.localVertices(o));
    } else {
        posed_[o]->update(scene.pose(o));
    }
    return *posed_[o];
}

namespace {

// Calls f(triangle) for every triangle of `bvh` whose box overlaps [lo, hi].
template <class F>
void queryBox(const geometry::Bvh& bvh, const DVec3& lo, const DVec3& hi, F&& f) {
    const auto nodes = bvh.nodes();
    if (nodes.empty()) return;
    std::uint32_t stack[128];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const geometry::Bvh::Node& n = nodes[stack[--top]];
        bool overlap = true;
        for (int k = 0; k < 3 && overlap; ++k) overlap = double(n.box.min[k]) <= hi[k] && double(n.box.max[k]) >= lo[k];
        if (!overlap) continue;
        if (n.isLeaf()) {
            for (std::uint32_t s = n.first; s < n.first + n.count; ++s) {
                const geometry::Bvh::Box& b = bvh.slotBoxes()[s];
                bool o = true;
                for (int k = 0; k < 3 && o; ++k) o = double(b.min[k]) <= hi[k] && double(b.max[k]) >= lo[k];
                if (o) f(bvh.slotTriangles()[s]);
            }
        } else if (top + 2 <= 128) {
            stack[top++] = n.first;
            stack[top++] = n.first + 1;
        }
    }
}

}  // namespace

void CinderExact::run(const Scene& scene, std::span<const ObjectPair> candidates, std::vector<EdgeHit>& hits,
                      std::span<const std::uint32_t> fullPairs, std::span<const std::vector<MeshEdge>> edges,
                      bool wantSegments, DetectionOutput& out) {
    ++generation_;
    // Sorted and unique: a counting sort by candidate, then each candidate's hits sorted in
    // parallel (one std::sort of the pile's 298K hits took most of the check's time).
    {
        std::vector<std::uint32_t> start(candidates.size() + 1, 0);
        for (const EdgeHit& h : hits) ++start[h.candidate + 1];
        for (std::size_t c = 0; c < candidates.size(); ++c) start[c + 1] += start[c];
        sorted_.resize(hits.size());
        std::vector<std::uint32_t> cursor(start.begin(), start.end() - 1);
        for (const EdgeHit& h : hits) sorted_[cursor[h.candidate]++] = h;
        const auto candidateCount = static_cast<std::int64_t>(candidates.size());
#pragma omp parallel for schedule(dynamic, 16) if (hits.size() > 4096)
        for (std::int64_t c = 0; c < candidateCount; ++c)
            std::sort(sorted_.begin() + start[std::size_t(c)], sorted_.begin() + start[std::size_t(c) + 1]);
        hits.swap(sorted_);
        hits.erase(std::unique(hits.begin(), hits.end()), hits.end());
    }
    std::vector<char> full(candidates.size(), 0);
    for (std::uint32_t c : fullPairs) full[c] = 1;
    found_.clear();
    // Pose every object the hits name first (posed() and the trees build lazily: not from
    // several threads), then the queries in parallel, each thread over a contiguous range of
    // the sorted hits, joined in order (the same candidates in the same order as one thread).
    for (const EdgeHit& h : hits) {
        if (full[h.candidate]) continue;
        const ObjectPair p = candidates[h.candidate];
        for (ObjectId o : {p.a, p.b}) {
            const geometry::PosedMesh& pm = posed(scene, o);
            if (scene.isDeformed(o)) (void)pm.bvh();
            else (void)pm.localBvh();
        }
    }
    const auto hitCount = static_cast<std::int64_t>(hits.size());
    const int threads = hitCount > 4096 ? omp_get_max_threads() : 1;
    if (threadFound_.size() < std::size_t(threads)) threadFound_.resize(std::size_t(threads));
#pragma omp parallel num_threads(threads)
    {
        std::vector<peel::TrianglePairCandidate>& mine = threadFound_[std::size_t(omp_get_thread_num())];
        mine.clear();
#pragma omp for schedule(static)
    for (std::int64_t k = 0; k < hitCount; ++k) {
        const EdgeHit& h = hits[std::size_t(k)];
        if (full[h.candidate]) continue;
        const ObjectPair p = candidates[h.candidate];
        const ObjectId x = h.side == 0 ? p.a : p.b, y = h.side == 0 ? p.b : p.a;
        const geometry::PosedMesh& px = *posed_[x];
        const geometry::PosedMesh& py = *posed_[y];
        const MeshEdge& e = edges[scene.meshOf(x)][h.edge];
        const auto vx = scene.localVertices(x);
        DVec3 w0 = px.pose().applyDouble(vx[e.x]), w1 = px.pose().applyDouble(vx[e.y]);
        const geometry::Bvh* bvh = &py.bvh();
        if (!scene.isDeformed(y)) {  // into y's local frame: its local tree, no refit
            const Pose& q = py.pose();
            const glm::dquat inv = glm::inverse(glm::dquat(q.rotation.w, q.rotation.x, q.rotation.y, q.rotation.z));
            w0 = inv * (w0 - DVec3(q.position));
            w1 = inv * (w1 - DVec3(q.position));
            bvh = &py.localBvh();
        }
        const double pad = 1e-6 * (py.localRadius() + glm::length(DVec3(py.pose().position))) + 1e-12;
        const DVec3 lo = glm::min(w0, w1) - pad, hi = glm::max(w0, w1) + pad;
        queryBox(*bvh, lo, hi, [&](std::uint32_t u) {
            for (std::uint32_t t : {e.z, e.w}) {
                if (t == e.w && e.w == e.z) break;
                if (h.side == 0) {
                    mine.push_back({h.candidate, t, u});
                } else {
                    mine.push_back({h.candidate, u, t});
                }
            }
        });
    }
    }
    for (int t = 0; t < threads; ++t)
        found_.insert(found_.end(), threadFound_[std::size_t(t)].begin(), threadFound_[std::size_t(t)].end());
    exact_.run(scene, candidates, found_, wantSegments, out);
    double fullCount = 0;
    for (std::uint32_t c : fullPairs) {
        const ObjectPair p = candidates[c];
        PairResult r;
        r.pair = p;
        geometry::intersect(posed(scene, p.a), posed(scene, p.b), r.triangles, wantSegments ? &r.segments : nullptr);
        fullCount += 1;
        if (!r.triangles.empty()) out.pairs.push_back(std::move(r));
    }
    out.stats.count("full_exact_pairs", fullCount);
}

}  // namespace isc::cinder
