#include "isc/detectors/CinderDetector.h"

#include "isc/detect/Registry.h"

#include "CinderExact.h"

#include "isc/core/Assert.h"
#include "isc/gl/Bindings.h"
#include "isc/gl/Buffer.h"
#include "isc/gl/Framebuffer.h"
#include "isc/gl/Gl.h"
#include "isc/gl/GpuScene.h"
#include "isc/gl/Program.h"
#include "isc/gl/Query.h"
#include "isc/gl/ReadbackBuffer.h"
#include "isc/gl/VertexArray.h"

#include "cinder/bindings.h"  // shaders/: CdView, CdDraw, CdHit

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <tuple>
#include <unordered_map>

namespace isc {

static_assert(sizeof(gl::CdView) == 192, "CdView must match its std430 layout");
static_assert(sizeof(gl::CdDraw) == 16, "CdDraw must match its std430 layout");
static_assert(sizeof(gl::CdHit) == 48, "CdHit must match its std430 layout");

Vec3 decodeCinderNormal(std::uint32_t code) {
    auto unpack = [](std::uint32_t v) { return std::clamp(float(std::int16_t(v & 0xFFFFu)) / 32767.0f, -1.0f, 1.0f); };
    Vec3 n(unpack(code), unpack(code >> 16), 0.0f);
    n.z = 1.0f - std::abs(n.x) - std::abs(n.y);
    if (n.z < 0.0f) {
        const float x = n.x, y = n.y;
        n.x = (1.0f - std::abs(y)) * (x >= 0.0f ? 1.0f : -1.0f);
        n.y = (1.0f - std::abs(x)) * (y >= 0.0f ? 1.0f : -1.0f);
    }
    const float len = glm::length(n);
    return len > 0.0f ? n / len : Vec3(0.0f, 0.0f, 1.0f);
}

std::uint32_t encodeCinderNormal(const Vec3& nIn) {
    Vec3 n = nIn / std::max(std::abs(nIn.x) + std::abs(nIn.y) + std::abs(nIn.z), 1e-30f);
    float ex = n.x, ey = n.y;
    if (n.z < 0.0f) {
        ex = (1.0f - std::abs(n.y)) * (n.x >= 0.0f ? 1.0f : -1.0f);
        ey = (1.0f - std::abs(n.x)) * (n.y >= 0.0f ? 1.0f : -1.0f);
    }
    // packSnorm2x16: round(clamp(v, -1, 1) * 32767)
    auto pack = [](float v) { return std::uint32_t(std::uint16_t(std::int16_t(std::lround(std::clamp(v, -1.0f, 1.0f) * 32767.0f)))); };
    return pack(ex) | (pack(ey) << 16);
}

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

void addCount(DetectorStats& stats, std::string_view name, double value) {
    stats.count(name, stats.counter(name) + value);
}

// Per batch, bytes of per-pixel storage allowed (counts and slots); a single tile may exceed it.
// Each batch ends with a blocking read (its hit count), so few large batches keep the GPU busy:
// 2 GB is 240 tiles of 128^2 at 32 layers (the 100-bunny pile's 2385 tiles in 10 batches, not
// the 40 of 512 MB); GL_MAX_SHADER_STORAGE_BLOCK_SIZE bounds each slot buffer as well.
constexpr std::size_t kBatchBytes = std::size_t(2) << 30;
constexpr std::uint32_t kMaxAtlasSide = 8192;

// Per batch, bytes of the cull's index lists and ids (every primitive of every draw could be kept).
constexpr std::size_t kCullBytes = std::size_t(256) << 20;

constexpr int kStages = 4;
constexpr const char* kStageCounters[kStages] = {"gpu_cull_ms", "gpu_edges_ms", "gpu_surfaces_ms", "gpu_resolve_ms"};
struct StageTimer {
    gl::Query marks[kStages + 1] = {{"cinder stage", GL_TIMESTAMP},
                                    {"cinder stage", GL_TIMESTAMP},
                                    {"cinder stage", GL_TIMESTAMP},
                                    {"cinder stage", GL_TIMESTAMP},
                                    {"cinder stage", GL_TIMESTAMP}};
    void mark(int k) { glQueryCounter(marks[k].id(), GL_TIMESTAMP); }
    double stageMs(int k) const { return double(marks[k + 1].result() - marks[k].result()) * 1e-6; }
};

// A view group: objects seen together (slots = positions in `objects`) and the candidate
// pairs it serves; its tiles' box across each axis and depth along it.
struct Group {
    std::vector<ObjectId> objects;
    std::vector<std::uint32_t> candidates;
    Aabb across;  // where the pairs can meet (the union of the candidates' box overlaps)
    Aabb whole;   // every object of the group (the depth range)
};

// World box of object o, from its local box (tight for the rotation: |R| times the half extents).
Aabb worldBox(const Aabb& local, const Pose& pose) {
    const Mat3 r = glm::mat3_cast(pose.rotation);
    const Vec3 c = pose.apply(local.center());
    const Vec3 h = 0.5f * local.extent();
    Vec3 e(0.0f);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) e[i] += std::abs(r[j][i]) * h[j];
    Aabb b;
    b.min = c - e;
    b.max = c + e;
    return b;
}

// One point of an edge read back: the edge (side << 31 | index), its flags (CD_HIT_*), the
// other object's triangle reported there, the point, that triangle's outward normal (decoded)
// and the point's signed distance to its plane.
struct EdgePoint {
    std::uint32_t key;
    std::uint32_t flags;
    std::uint32_t triangle;
    Vec3 point;
    Vec3 normal;
    float distance;
    float rayDistance;  // along the view ray to the other object's nearest surface: bounds the depth
};

// Contact samples of one pair from its edges' points. Per edge (and side) with an inside point,
// one sample at its deepest inside point. A point's depth is the least deep of two estimates,
// each clamped by a true bound on it: (1) below the plane of the crossing nearest it (the edge's
// own crossing where it has one, else the pair's crossing of that side nearest the edge; a
// crossing lies on the other surface, so its distance bounds the depth), and (2) below the plane
// of the face its own ray found nearest (that face's plane distance, bounded by the distance
// along the ray to the surface). For a convex volume every face plane's distance is at least the
// depth, so the least deep is the better one, and neither alone suffices: (1) extrapolates a
// curved surface's tangent plane (metres off far from the crossing), (2) depends on the ray (a
// point under a box's top, seen along its long side, finds the side faces metres away). Edges
// wholly inside give samples too: with the margin's swelling every resting contact overlaps by
// about a margin, more than a bunny's edges are long, so the deepest points lie on edges with no
// crossing; without them the depth stopped at the crossing edges' inner ends, about 8 mm short
// of the truth for a bunny resting on the ground, and the contact settled that much too deep.
// A side with no crossing at all gives no sample (nothing anchors the estimates).
void makeSamples(std::span<EdgePoint> points, std::span<const cinder::MeshEdge> edgesA,
                 std::span<const cinder::MeshEdge> edgesB, std::vector<ContactSample>& out) {
    // Each inside point of an edge: its depth estimate (< 0 inside), normal and triangle.
    struct Estimate {
        float along;  // position along the edge
        float depth;
        Vec3 point, normal;
        std::uint32_t triangle;
    };
    std::vector<Estimate> est;
    // The GPU appends points in whatever order its atomics ran: order them fully (not just by
    // edge), so that ties below pick the same point every run and the contacts, and the
    // physics built on them, do not change from run to run.
    std::sort(points.begin(), points.end(), [](const EdgePoint& x, const EdgePoint& y) {
        return std::tie(x.key, x.triangle, x.flags, x.point.x, x.point.y, x.point.z, x.distance, x.rayDistance) <
               std::tie(y.key, y.triangle, y.flags, y.point.x, y.point.y, y.point.z, y.distance, y.rayDistance);
    });
    std::vector<std::uint32_t> crossings[2];  // per side, the crossing points (indices into points)
    for (std::uint32_t k = 0; k < points.size(); ++k)
        if (points[k].flags & CD_HIT_CROSSING) crossings[points[k].key >> 31].push_back(k);
    // Depth of point q below the plane of crossing c, bounded by their distance.
    auto belowCrossing = [](const EdgePoint& c, const EdgePoint& q) {
        const Vec3 onPlane = c.point - c.normal * c.distance;
        return std::max(glm::dot(c.normal, q.point - onPlane), -glm::length(q.point - c.point));
    };
    for (std::size_t i = 0; i < points.size();) {
        std::size_t j = i;
        while (j < points.size() && points[j].key == points[i].key) ++j;
        const std::uint32_t side = points[i].key >> 31;
        bool anyCross = false, anyInside = false;
        std::size_t firstInside = j;
        for (std::size_t k = i; k < j; ++k) {
            anyCross = anyCross || (points[k].flags & CD_HIT_CROSSING);
            if ((points[k].flags & CD_HIT_INSIDE) && !anyInside) firstInside = k;
            anyInside = anyInside || (points[k].flags & CD_HIT_INSIDE);
        }
        if (!anyInside || crossings[side].empty()) {
            i = j;
            continue;
        }
        // An edge with no crossing of its own: the pair's crossing nearest its first inside point.
        const EdgePoint* pairCross = nullptr;
        if (!anyCross) {
            float best = INFINITY;
            for (std::uint32_t m : crossings[side]) {
                const float gap = glm::length(points[m].point - points[firstInside].point);
                if (gap < best) {
                    best = gap;
                    pairCross = &points[m];
                }
            }
        }
        est.clear();
        Vec3 axis(0.0f);
        for (std::size_t k = i; k < j; ++k)
            if ((points[k].flags & CD_HIT_INSIDE) && glm::length(points[k].point - points[firstInside].point) > glm::length(axis))
                axis = points[k].point - points[firstInside].point;
        for (std::size_t k = i; k < j; ++k) {
            const EdgePoint& q = points[k];
            if (!(q.flags & CD_HIT_INSIDE)) continue;
            const EdgePoint* cross = pairCross;
            if (anyCross) {  // the edge's own crossing nearest the point (an edge may enter and leave)
                float best = INFINITY;
                for (std::size_t m = i; m < j; ++m) {
                    if (!(points[m].flags & CD_HIT_CROSSING)) continue;
                    const float gap = glm::length(points[m].point - q.point);
                    if (gap < best) {
                        best = gap;
                        cross = &points[m];
                    }
                }
            }
            // (1) below the crossing's plane; (2) below the plane of the face the ray found.
            const float d1 = belowCrossing(*cross, q);
            const float d2 = std::max(q.distance, -q.rayDistance);
            const bool useRay = d2 > d1;
            est.push_back({glm::dot(axis, q.point), useRay ? d2 : d1, q.point, useRay ? q.normal : cross->normal,
                           useRay ? q.triangle : cross->triangle});
        }
        // The depth below a surface changes by at most the distance moved (it is a distance): a
        // point's estimate is bounded by each other point's plus the gap between them. A point
        // whose own ray and crossing both lie far (a ground's edge inside a bunny, seen along
        // the ground) gets its bound, and its normal, from a neighbour seen along a better axis.
        // Two sweeps along the edge give every point the least bound over all the others.
        std::sort(est.begin(), est.end(), [](const Estimate& x, const Estimate& y) {
            return std::tie(x.along, x.depth) < std::tie(y.along, y.depth);
        });
        auto relax = [](Estimate& to, const Estimate& from) {
            const float bound = from.depth - glm::length(to.point - from.point);  // depths are negative
            if (bound > to.depth) {
                to.depth = bound;
                to.normal = from.normal;
                to.triangle = from.triangle;
            }
        };
        for (std::size_t k = 1; k < est.size(); ++k) relax(est[k], est[k - 1]);
        for (std::size_t k = est.size(); k-- > 1;) relax(est[k - 1], est[k]);
        Vec3 n(0.0f), deepest(0.0f);
        float depth = 0.0f;
        std::uint32_t triangle = 0;
        bool ok = false;
        for (const Estimate& e : est)
            if (e.depth < depth) {
                depth = e.depth;
                deepest = e.point;
                n = e.normal;
                triangle = e.triangle;
                ok = true;
            }
        if (ok) {
            const std::uint32_t edge = points[i].key & 0x7FFFFFFFu;
            ContactSample cs;
            cs.depth = depth;
            if (side == 1) {  // an edge of the pair's b inside a: B's point on the edge, B's normal the reverse
                cs.pointOnB = deepest;
                cs.normalOnB = -n;
                cs.triangleA = triangle;
                cs.triangleB = edge < edgesB.size() ? edgesB[edge].z : UINT32_MAX;
            } else {  // an edge of a inside b: B's point on its surface's plane
                cs.pointOnB = deepest - n * depth;
                cs.normalOnB = n;
                cs.triangleA = edge < edgesA.size() ? edgesA[edge].z : UINT32_MAX;
                cs.triangleB = triangle;
            }
            out.push_back(cs);
        }
        i = j;
    }
}

}  // namespace

struct CinderDetector::Impl {
    DetectorSettings common;
    CinderSettings settings;
    bool sceneLayout = false, mipmap = false;
    gl::Program edgeRaster, surfRaster, resolve, mip, cullEdges, cullSurfaces;
    gl::GpuScene scene{"cinder scene"};
    std::vector<const Mesh*> syncedMeshes;
    std::vector<std::vector<cinder::MeshEdge>> edgesOf;  // per MeshId
    gl::VertexArray vaoEdges, vaoSurfaces;
    gl::Framebuffer framebuffer;
    gl::Buffer views{"cinder views"}, draws{"cinder draws"}, drawIds{"cinder draw ids"},
        edgeIndirect{"cinder edge draws"}, surfIndirect{"cinder surface draws"}, counts{"cinder counts"},
        edgeSlots{"cinder edge slots"}, surfSlots{"cinder surface slots"}, hits{"cinder hits"},
        counters{"cinder counters"}, edges{"cinder edges"}, edgeIndices{"cinder edge indices"},
        viewObjects{"cinder view objects"}, colour{"cinder colour"}, meshEdgeFirst{"cinder mesh edges"},
        viewFlags{"cinder view flags"}, cullEdgeIndices{"cinder kept edge indices"},
        cullSurfIndices{"cinder kept triangle indices"}, cullEdgeIds{"cinder kept edge ids"},
        cullSurfIds{"cinder kept triangle ids"};
    std::size_t hitCapacity = 1 << 14;
    // The batch's read-back: counters, view flags and hits (or the mip-map's last level) copied
    // on the GPU into one mapped host buffer before one fence (no glGetBufferSubData: NVIDIA's
    // driver moved buffers read that way to host memory, and the resolve's atomics with them).
    // Hits are copied as far as the last batch found (`hitCopy`); more take a second copy.
    gl::MappedCopy readback{"cinder read-back"};
    std::size_t hitCopy = 1024;
    std::vector<std::unique_ptr<StageTimer>> stageTimers;
    std::size_t stageTimersUsed = 0;
    cinder::CinderExact exact;
    std::vector<Aabb> localBoxes;  // per MeshId
    int lastWidth = 0, lastHeight = 0;
    std::size_t maxBlockBytes = 0;  // GL_MAX_SHADER_STORAGE_BLOCK_SIZE: each slot buffer's limit
    std::size_t batchPixelsMost = 0;  // pixels of the largest batch's atlas (this call's batch size)

    Result<void> compile();
    void syncScene(const Scene& sc);
    struct Tile {
        std::uint32_t group;
        int axis;
    };
    struct BatchResult {
        std::vector<gl::CdHit> hits;
        std::vector<std::uint32_t> codes;  // mipmap: reduced codes with their tile index << 16... see below
        std::vector<std::pair<std::uint32_t, std::uint32_t>> mipPairs;  // (group, code & 0xFFFF)
    };
    Result<void> runBatch(std::span<const Tile> tiles, std::span<const Group> groups, BatchResult& result,
                          DetectorStats& stats, double& readbackMs);

    // A call's host storage, kept across calls (cleared, never shrunk): once the first calls
    // on a scene have sized it, a call allocates nothing large. Made fresh per call, the read-back
    // (hits, edge hits, points: tens of MB on the 100-bunny pile) grew the heap at every call and
    // left what it freed with the allocator (77 MiB in the H100 soak; docs/robustness.md).
    struct Scratch {
        BatchResult batch;
        std::vector<cinder::EdgeHit> edgeHits;
        std::vector<std::uint32_t> pointCandidate;  // per read-back point (in read-back order): its candidate
        std::vector<EdgePoint> pointList;           // the points, in read-back order
        std::vector<EdgePoint> points;              // the same by candidate: [pointStart[c], pointStart[c + 1])
        std::vector<std::uint32_t> pointStart;
        std::vector<char> state, boxed, full, hitPair;
        std::vector<Aabb> boxes;
        std::vector<std::int32_t> slotOf;
        std::vector<std::uint32_t> inGroup, served, fullPairs;
        // runBatch()
        std::vector<gl::CdView> viewData;
        std::vector<gl::CdDraw> drawData, surfDrawData;
        std::vector<gl::DrawElementsIndirectCommand> edgeCommands, surfCommands;
        std::vector<std::uint32_t> objectList, groupFirst, edgeFirst, flagValues;
    } scratch;
};

Result<void> CinderDetector::Impl::compile() {
    const std::string layers = "#define MAX_LAYERS " + std::to_string(settings.maxLayers) + "\n";
    auto make = [&](gl::Program& to, std::initializer_list<gl::ShaderStage> stages, const std::string& defines,
                    const char* label) -> Result<void> {
        auto p = gl::Program::create(stages, defines, label);
        if (!p) return fail(p.error().message);
        to = std::move(*p);
        return {};
    };
    const gl::ShaderStage vert{GL_VERTEX_SHADER, "cinder/raster.vert.glsl"};
    const gl::ShaderStage frag{GL_FRAGMENT_SHADER, "cinder/raster.frag.glsl"};
    if (auto r = make(edgeRaster, {vert, frag}, layers + "#define CD_EDGES 1\n", "cinder edges pass"); !r) return r;
    if (auto r = make(surfRaster, {vert, frag}, layers, "cinder surfaces pass"); !r) return r;
    std::string resolveDefines = layers;
    if (mipmap) resolveDefines += "#define CD_MIPMAP 1\n";
    if (auto r = make(resolve, {{GL_COMPUTE_SHADER, "cinder/resolve.glsl"}}, resolveDefines, "cinder resolve"); !r)
        return r;
    if (auto r = make(mip, {{GL_COMPUTE_SHADER, "cinder/mip.glsl"}}, "", "cinder mip-map"); !r) return r;
    if (auto r = make(cullEdges, {{GL_COMPUTE_SHADER, "cinder/cull.glsl"}}, "#define CD_EDGES 1\n", "cinder edge cull"); !r)
        return r;
    if (auto r = make(cullSurfaces, {{GL_COMPUTE_SHADER, "cinder/cull.glsl"}}, "", "cinder triangle cull"); !r)
        return r;
    vaoEdges = gl::VertexArray("cinder edge vao");
    vaoSurfaces = gl::VertexArray("cinder surface vao");
    framebuffer = gl::Framebuffer("cinder atlas (no attachments)");
    counters.allocate(CD_COUNTER_COUNT * sizeof(std::uint32_t));
    return {};
}

// GpuScene::sync() adds what the scene gained; a different scene (a caller that reuses the
// detector) gets a fresh mirror. The edge buffers follow the meshes.
void CinderDetector::Impl::syncScene(const Scene& sc) {
    bool same = sc.meshCount() >= syncedMeshes.size() && sc.objectCount() >= scene.objectCount();
    for (MeshId m = 0; same && m < syncedMeshes.size(); ++m) same = &sc.mesh(m) == syncedMeshes[m];
    for (ObjectId o = 0; same && o < scene.objectCount(); ++o) same = scene.object(o).mesh == sc.meshOf(o);
    if (!same) {
        scene = gl::GpuScene("cinder scene");
        syncedMeshes.clear();
        edgesOf.clear();
        localBoxes.clear();
    }
    const bool newMeshes = syncedMeshes.size() != sc.meshCount();
    syncedMeshes.resize(sc.meshCount());
    for (MeshId m = 0; m < sc.meshCount(); ++m) syncedMeshes[m] = &sc.mesh(m);
    scene.sync(sc);
    if (!newMeshes) return;
    while (edgesOf.size() < sc.meshCount()) {
        const Mesh& mesh = sc.mesh(MeshId(edgesOf.size()));
        edgesOf.push_back(cinder::meshEdges(mesh));
        Aabb box;
        for (const Vec3& v : mesh.vertices()) box.grow(v);
        localBoxes.push_back(box);
    }
    std::vector<std::uint32_t> first, indices;
    std::vector<glm::uvec4> all;
    for (const auto& list : edgesOf) {
        first.push_back(std::uint32_t(all.size()));
        for (const cinder::MeshEdge& e : list) {
            all.push_back(e);
            indices.push_back(e.x);
            indices.push_back(e.y);
        }
    }
    first.push_back(std::uint32_t(all.size()));  // the end of the last mesh's edges
    if (all.empty()) all.emplace_back(0u);
    if (indices.empty()) indices.assign(2, 0u);
    edges.allocate(all.size() * sizeof(glm::uvec4), all.data(), 0);
    edgeIndices.allocate(indices.size() * sizeof(std::uint32_t), indices.data(), 0);
    meshEdgeFirst.allocate(first.size() * sizeof(std::uint32_t), first.data(), 0);
}

Result<void> CinderDetector::Impl::runBatch(std::span<const Tile> tiles, std::span<const Group> groups,
                                            BatchResult& result, DetectorStats& stats, double& readbackMs) {
    const auto R = static_cast<std::uint32_t>(settings.resolution);
    const auto n = static_cast<std::uint32_t>(tiles.size());
    std::uint32_t tilesX = std::max<std::uint32_t>(1, std::uint32_t(std::ceil(std::sqrt(double(n)))));
    tilesX = std::min(tilesX, kMaxAtlasSide / R);
    const std::uint32_t tilesY = (n + tilesX - 1) / tilesX;
    const std::uint32_t W = tilesX * R, H = tilesY * R;
    const std::size_t pixels = std::size_t(W) * H;
    const auto K = static_cast<std::size_t>(settings.maxLayers);

    // Views (one per tile) and draws: every object of the tile's group, edges and triangles (the
    // edge draws first, then the surface draws, each its own CdDraw), culled or whole.
    const bool culled = settings.cull;
    std::vector<gl::CdView>& viewData = scratch.viewData;
    std::vector<gl::CdDraw>& drawData = scratch.drawData;
    std::vector<gl::CdDraw>& surfDrawData = scratch.surfDrawData;
    std::vector<gl::DrawElementsIndirectCommand>& edgeCommands = scratch.edgeCommands;
    std::vector<gl::DrawElementsIndirectCommand>& surfCommands = scratch.surfCommands;
    std::vector<std::uint32_t>& objectList = scratch.objectList;
    std::vector<std::uint32_t>& groupFirst = scratch.groupFirst;
    viewData.assign(n, gl::CdView{});
    drawData.clear();
    surfDrawData.clear();
    edgeCommands.clear();
    surfCommands.clear();
    objectList.clear();
    groupFirst.assign(groups.size(), UINT32_MAX);
    double edgesIn = 0, trianglesIn = 0;
    std::uint32_t edgesListed = 0, trianglesListed = 0, maxEdges = 0, maxTriangles = 0;
    std::uint32_t meshEdgeOffset = 0;
    std::vector<std::uint32_t>& edgeFirst = scratch.edgeFirst;
    edgeFirst.resize(edgesOf.size());
    for (std::size_t m = 0; m < edgesOf.size(); ++m) {
        edgeFirst[m] = meshEdgeOffset;
        meshEdgeOffset += std::uint32_t(edgesOf[m].size());
    }
    for (std::uint32_t i = 0; i < n; ++i) {
        const Group& g = groups[tiles[i].group];
        if (groupFirst[tiles[i].group] == UINT32_MAX) {
            groupFirst[tiles[i].group] = std::uint32_t(objectList.size());
            objectList.insert(objectList.end(), g.objects.begin(), g.objects.end());
        }
        const int k = tiles[i].axis, u = (k + 1) % 3, w = (k + 2) % 3;
        // Across: the group's meeting box, at least a little wide; along: every object whole.
        const float size = std::max({g.whole.extent().x, g.whole.extent().y, g.whole.extent().z, 1e-6f});
        const float minSide = 1e-4f * size;
        Vec3 lo = g.across.min, hi = g.across.max;
        for (int a : {u, w}) {
            const float c = 0.5f * (lo[a] + hi[a]);
            const float half = 0.5f * std::max(hi[a] - lo[a], minSide) * (1.0f + 2.0f / float(R));
            lo[a] = c - half;
            hi[a] = c + half;
        }
        const float pad = 1e-3f * size;
        lo[k] = g.whole.min[k] - pad;
        hi[k] = g.whole.max[k] + pad;
        Mat4 m(0.0f);  // world -> clip: x from u, y from w, z from k (a rotation of the axes: no mirror)
        m[u][0] = 2.0f / (hi[u] - lo[u]);
        m[3][0] = -(hi[u] + lo[u]) / (hi[u] - lo[u]);
        m[w][1] = 2.0f / (hi[w] - lo[w]);
        m[3][1] = -(hi[w] + lo[w]) / (hi[w] - lo[w]);
        m[k][2] = 2.0f / (hi[k] - lo[k]);
        m[3][2] = -(hi[k] + lo[k]) / (hi[k] - lo[k]);
        m[3][3] = 1.0f;
        gl::CdView& v = viewData[i];
        v.viewProj = m;
        v.invViewProj = glm::inverse(m);
        v.originX = (i % tilesX) * R;
        v.originY = (i / tilesX) * R;
        v.firstObject = groupFirst[tiles[i].group];
        v.objectCount = std::uint32_t(g.objects.size());
        const float pixel = std::max(hi[u] - lo[u], hi[w] - lo[w]) / float(R);
        v.nearWorld = settings.proximity * pixel;
        v.depthExtent = hi[k] - lo[k];
        v.axis = std::uint32_t(k);
        v.crossWorld = 1.5f * pixel;
        // The cull's box: where the pairs meet, grown by two pixels and the proximity reach (an
        // edge point nearer than that to the other surface counts), and at least the tile across.
        const float margin = 2.0f * pixel + std::max(v.nearWorld, v.crossWorld);
        for (int a = 0; a < 3; ++a) {
            v.cullLo[a] = std::min(g.across.min[a], a == k ? g.across.min[a] : lo[a]) - margin;
            v.cullHi[a] = std::max(g.across.max[a], a == k ? g.across.max[a] : hi[a]) + margin;
        }
        v.cullLo.w = v.cullHi.w = 0.0f;
        for (std::uint32_t s = 0; s < g.objects.size(); ++s) {
            const ObjectId o = g.objects[s];
            const gl::ObjectRange& range = scene.object(o);
            const auto edgeCount = std::uint32_t(edgesOf[range.mesh].size());
            const auto draw = static_cast<std::uint32_t>(drawData.size());
            const auto vertex = static_cast<std::int32_t>(range.firstVertex);
            if (culled) {  // counts filled by the cull; each draw its own range of the kept lists
                drawData.push_back({i, o, s, edgesListed});
                surfDrawData.push_back({i, o, s, trianglesListed});
                edgeCommands.push_back({0, 1, 2 * edgesListed, vertex, draw});
                surfCommands.push_back({0, 1, 3 * trianglesListed, vertex, draw});
                edgesListed += edgeCount;
                trianglesListed += range.triangleCount;
                maxEdges = std::max(maxEdges, edgeCount);
                maxTriangles = std::max(maxTriangles, range.triangleCount);
            } else {
                drawData.push_back({i, o, s, CD_NOT_CULLED});
                surfDrawData.push_back({i, o, s, CD_NOT_CULLED});
                edgeCommands.push_back({2 * edgeCount, 1, 2 * edgeFirst[range.mesh], vertex, draw});
                surfCommands.push_back({3 * range.triangleCount, 1, 3 * range.firstTriangle, vertex, draw});
            }
            edgesIn += edgeCount;
            trianglesIn += range.triangleCount;
        }
    }
    // The surface draws follow the edge draws in draws[]: their commands' baseInstance moves.
    const auto edgeDrawCount = static_cast<std::uint32_t>(drawData.size());
    for (gl::DrawElementsIndirectCommand& c : surfCommands) c.baseInstance += edgeDrawCount;
    drawData.insert(drawData.end(), surfDrawData.begin(), surfDrawData.end());
    addCount(stats, "edges_in", edgesIn);
    addCount(stats, "triangles_in", trianglesIn);
    addCount(stats, "pixels", double(pixels));
    addCount(stats, "batches", 1);

    const auto drawCount = static_cast<std::uint32_t>(drawData.size());
    // Buffers sized with headroom (and per-pixel ones at most to the largest batch's atlas):
    // the pile's pairs go up and down, and a buffer re-made at every new high is GL memory that
    // creeps up (the soak, docs/robustness.md).
    views.assignWithHeadroom(viewData);
    draws.assignWithHeadroom(drawData);
    edgeIndirect.assignWithHeadroom(edgeCommands);
    surfIndirect.assignWithHeadroom(surfCommands);
    viewObjects.assignWithHeadroom(objectList);
    if (drawIds.reserveSequence(drawCount)) {
        for (gl::VertexArray* v : {&vaoEdges, &vaoSurfaces}) {
            v->setVertexBuffer(0, drawIds, 0, sizeof(std::uint32_t), 1);
            v->setIntegerAttribute(CD_ATTRIB_DRAW_ID, 0, 1, GL_UNSIGNED_INT);
        }
    }
    if (culled) {
        // Room for every primitive of every draw (the cull keeps a subset); reserve() keeps the
        // buffers while they are large enough, so the vertex arrays are pointed at them each batch.
        cullEdgeIndices.reserveWithHeadroom(std::max<std::size_t>(2 * std::size_t(edgesListed), 2) * sizeof(std::uint32_t),
                                            kCullBytes);
        cullEdgeIds.reserveWithHeadroom(std::max<std::size_t>(edgesListed, 1) * sizeof(std::uint32_t), kCullBytes);
        cullSurfIndices.reserveWithHeadroom(
            std::max<std::size_t>(3 * std::size_t(trianglesListed), 3) * sizeof(std::uint32_t), kCullBytes);
        cullSurfIds.reserveWithHeadroom(std::max<std::size_t>(trianglesListed, 1) * sizeof(std::uint32_t), kCullBytes);
        vaoSurfaces.setElementBuffer(cullSurfIndices);
        vaoEdges.setElementBuffer(cullEdgeIndices);
    } else {
        cullEdgeIds.reserve(sizeof(std::uint32_t));  // bound, never read
        cullSurfIds.reserve(sizeof(std::uint32_t));
        vaoSurfaces.setElementBuffer(scene.indexBuffer());  // re-set: sync() may have re-created it
        vaoEdges.setElementBuffer(edgeIndices);
    }

    const std::size_t mostPixels = std::max(pixels, batchPixelsMost);
    counts.reserveWithHeadroom(2 * pixels * sizeof(std::uint32_t), 2 * mostPixels * sizeof(std::uint32_t));
    edgeSlots.reserveWithHeadroom(pixels * K * 2 * sizeof(std::uint32_t), mostPixels * K * 2 * sizeof(std::uint32_t));
    surfSlots.reserveWithHeadroom(pixels * K * 2 * sizeof(std::uint32_t), mostPixels * K * 2 * sizeof(std::uint32_t));
    viewFlags.reserveWithHeadroom(std::size_t(n) * sizeof(std::uint32_t));
    counts.clearZero(0, 2 * pixels * sizeof(std::uint32_t));
    viewFlags.clearZero(0, std::size_t(n) * sizeof(std::uint32_t));
    counters.clearZero();
    std::size_t colourWords = 0;
    if (mipmap) {
        std::size_t w = W, h = H;
        for (int l = 0; l <= settings.mipLevels; ++l, w /= 2, h /= 2) colourWords += w * h;
        colour.reserveWithHeadroom(colourWords * sizeof(std::uint32_t));
        colour.clearZero(0, colourWords * sizeof(std::uint32_t));
    } else {
        hits.reserve(hitCapacity * sizeof(gl::CdHit));
        colour.reserve(4);
    }
    if (framebuffer.id() != 0 && (lastWidth != int(W) || lastHeight != int(H))) {
        glNamedFramebufferParameteri(framebuffer.id(), GL_FRAMEBUFFER_DEFAULT_WIDTH, GLint(W));
        glNamedFramebufferParameteri(framebuffer.id(), GL_FRAMEBUFFER_DEFAULT_HEIGHT, GLint(H));
    }
    lastWidth = int(W);
    lastHeight = int(H);
    if (auto r = framebuffer.checkComplete(); !r) return r;

    scene.bind();
    views.bindBase(GL_SHADER_STORAGE_BUFFER, CD_BINDING_VIEWS);
    draws.bindBase(GL_SHADER_STORAGE_BUFFER, CD_BINDING_DRAWS);
    counts.bindBase(GL_SHADER_STORAGE_BUFFER, CD_BINDING_COUNTS);
    edgeSlots.bindBase(GL_SHADER_STORAGE_BUFFER, CD_BINDING_EDGE_SLOTS);
    surfSlots.bindBase(GL_SHADER_STORAGE_BUFFER, CD_BINDING_SURF_SLOTS);
    if (!mipmap) hits.bindBase(GL_SHADER_STORAGE_BUFFER, CD_BINDING_HITS);
    counters.bindBase(GL_SHADER_STORAGE_BUFFER, CD_BINDING_COUNTERS);
    edges.bindBase(GL_SHADER_STORAGE_BUFFER, CD_BINDING_EDGES);
    viewObjects.bindBase(GL_SHADER_STORAGE_BUFFER, CD_BINDING_VIEW_OBJECTS);
    colour.bindBase(GL_SHADER_STORAGE_BUFFER, CD_BINDING_COLOUR);
    meshEdgeFirst.bindBase(GL_SHADER_STORAGE_BUFFER, CD_BINDING_MESH_EDGES);
    viewFlags.bindBase(GL_SHADER_STORAGE_BUFFER, CD_BINDING_VIEW_FLAGS);
    for (gl::Program* p : {&edgeRaster, &surfRaster}) {
        p->setUniform("uTileSize", R);
        p->setUniform("uAtlasSize", glm::vec2(W, H));
        p->setUniform("uAtlasWidth", W);
        p->setUniform("uPixelCount", std::uint32_t(pixels));
    }

    if (stageTimersUsed == stageTimers.size()) stageTimers.push_back(std::make_unique<StageTimer>());
    StageTimer& timer = *stageTimers[stageTimersUsed++];
    framebuffer.bind();
    glViewport(0, 0, GLsizei(W), GLsizei(H));
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_STENCIL_TEST);
    glDisable(GL_CULL_FACE);
    glDisable(GL_BLEND);
    glDisable(GL_SCISSOR_TEST);  // another user of the context may have left it on
    glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
    glDepthMask(GL_FALSE);
    for (int c = 0; c < 4; ++c) glEnable(GLenum(GL_CLIP_DISTANCE0 + c));
    timer.mark(0);
    double edgesDrawn = 0, trianglesDrawn = 0;
    if (culled) {
        // The cull: each pass's draws, one invocation per (draw, primitive); the kept counts go
        // straight into the indirect commands.
        for (int pass = 0; pass < 2; ++pass) {
            gl::Program& p = pass == 0 ? cullEdges : cullSurfaces;
            const auto commandCount = static_cast<std::uint32_t>(pass == 0 ? edgeCommands.size() : surfCommands.size());
            const std::uint32_t most = pass == 0 ? maxEdges : maxTriangles;
            if (commandCount == 0 || most == 0) continue;
            (pass == 0 ? edgeIndirect : surfIndirect).bindBase(GL_SHADER_STORAGE_BUFFER, CD_BINDING_COMMANDS);
            (pass == 0 ? cullEdgeIndices : cullSurfIndices).bindBase(GL_SHADER_STORAGE_BUFFER, CD_BINDING_CULL_INDICES);
            (pass == 0 ? cullEdgeIds : cullSurfIds).bindBase(GL_SHADER_STORAGE_BUFFER, CD_BINDING_CULL_IDS);
            p.setUniform("uDrawBase", pass == 0 ? 0u : edgeDrawCount);
            p.setUniform("uCommandCount", commandCount);
            p.dispatch((most + 63) / 64, std::min<GLuint>(commandCount, 65535u), (commandCount + 65534u) / 65535u);
        }
        glMemoryBarrier(GL_COMMAND_BARRIER_BIT | GL_ELEMENT_ARRAY_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
    } else {
        edgesDrawn = edgesIn;
        trianglesDrawn = trianglesIn;
    }
    timer.mark(1);
    // Pass 1: the edges, as lines.
    cullEdgeIds.bindBase(GL_SHADER_STORAGE_BUFFER, CD_BINDING_CULL_IDS);
    edgeRaster.use();
    vaoEdges.bind();
    edgeIndirect.bind(GL_DRAW_INDIRECT_BUFFER);
    glMultiDrawElementsIndirect(GL_LINES, GL_UNSIGNED_INT, nullptr, GLsizei(edgeCommands.size()), 0);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);  // the surfaces read the edge counts
    timer.mark(2);
    // Passes 2-3 / 5-6: the surfaces, filled, both facings (only into pixels with an edge).
    cullSurfIds.bindBase(GL_SHADER_STORAGE_BUFFER, CD_BINDING_CULL_IDS);
    surfRaster.use();
    vaoSurfaces.bind();
    surfIndirect.bind(GL_DRAW_INDIRECT_BUFFER);
    glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT, nullptr, GLsizei(surfCommands.size()), 0);
    for (int c = 0; c < 4; ++c) glDisable(GLenum(GL_CLIP_DISTANCE0 + c));
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glDepthMask(GL_TRUE);
    gl::Framebuffer::bindDefault();
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    timer.mark(3);
    // The ray casts per edge fragment, and the read-back's compaction (or the paper's colour).
    resolve.setUniform("uAtlasSize", glm::uvec2(W, H));
    resolve.setUniform("uTileSize", R);
    resolve.setUniform("uTilesX", tilesX);
    resolve.setUniform("uViewCount", n);
    std::uint32_t counterValues[CD_COUNTER_COUNT] = {};
    const GLuint groupsX = GLuint((pixels + 63) / 64);
    bool keptRead = false;
    for (;;) {
        resolve.setUniform("uHitCapacity", std::uint32_t(hitCapacity));
        resolve.dispatch(std::min<GLuint>(groupsX, 65535u), (groupsX + 65534u) / 65535u);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
        if (mipmap) {
            std::size_t src = 0, w = W, h = H;
            for (int l = 0; l < settings.mipLevels; ++l) {
                const std::size_t dst = src + w * h;
                w /= 2;
                h /= 2;
                mip.setUniform("uSrcOffset", std::uint32_t(src));
                mip.setUniform("uDstOffset", std::uint32_t(dst));
                mip.setUniform("uDstSize", glm::uvec2(w, h));
                mip.dispatch(GLuint((w * h + 63) / 64));
                glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
                src = dst;
            }
        }
        // The copies into the mapping, then the batch's one wait.
        const std::size_t countersBytes = sizeof(counterValues);
        const std::size_t flagsAt = countersBytes, flagsBytes = std::size_t(n) * sizeof(std::uint32_t);
        const std::size_t dataAt = (flagsAt + flagsBytes + 15) / 16 * 16;
        std::size_t levelAt = 0, levelWords = 0;
        if (mipmap) {
            std::size_t w = W, h = H;
            for (int l = 0; l < settings.mipLevels; ++l, w /= 2, h /= 2) levelAt += w * h;
            levelWords = w * h;
        }
        const std::size_t hitsCopied = mipmap ? 0 : std::min(hitCapacity, hitCopy);
        const std::size_t dataBytes = mipmap ? levelWords * sizeof(std::uint32_t) : hitsCopied * sizeof(gl::CdHit);
        if (auto r = readback.reserve(dataAt + dataBytes); !r) return r;
        readback.copyFrom(counters, 0, countersBytes, 0);
        readback.copyFrom(viewFlags, 0, flagsBytes, flagsAt);
        if (mipmap)
            readback.copyFrom(colour, levelAt * sizeof(std::uint32_t), dataBytes, dataAt);
        else
            readback.copyFrom(hits, 0, dataBytes, dataAt);
        const auto tr = Clock::now();
        if (auto r = gl::waitForGpu("cinder, a batch's passes"); !r) return r;
        readbackMs += msSince(tr);
        std::memcpy(counterValues, readback.data(), countersBytes);
        if (culled && !keptRead) {  // the cull's counts, before a rerun clears them
            keptRead = true;
            edgesDrawn = counterValues[CD_COUNTER_EDGES_KEPT];
            trianglesDrawn = counterValues[CD_COUNTER_TRIANGLES_KEPT];
        }
        if (mipmap || counterValues[CD_COUNTER_HITS] <= hitCapacity) {
            std::vector<std::uint32_t>& flagValues = scratch.flagValues;
            flagValues.assign(readback.at<std::uint32_t>(flagsAt), readback.at<std::uint32_t>(flagsAt) + n);
            for (std::uint32_t i = 0; i < n; ++i)
                if (flagValues[i]) addCount(stats, "overflow_views", 1);
            if (mipmap) {
                // The smallest level: tile i's reduced square, codes (slot a << 8 | slot b) | 0x10000.
                const std::size_t side = R >> settings.mipLevels;
                const std::size_t w = W >> settings.mipLevels, h = H >> settings.mipLevels;
                const std::uint32_t* level = readback.at<std::uint32_t>(dataAt);
                for (std::size_t y = 0; y < h; ++y)
                    for (std::size_t x = 0; x < w; ++x) {
                        const std::uint32_t code = level[y * w + x];
                        if (code == 0) continue;
                        const std::size_t tile = (y / side) * tilesX + x / side;
                        if (tile < n) result.mipPairs.push_back({tiles[tile].group, code & 0xFFFFu});
                    }
                addCount(stats, "mipmap_pixels_read", double(w * h));
            } else {
                const std::size_t found = counterValues[CD_COUNTER_HITS];
                if (found > hitsCopied) {  // more than the last batch: the rest in a second copy
                    const auto tl = Clock::now();
                    if (auto r = readback.reserve(dataAt + found * sizeof(gl::CdHit)); !r) return r;
                    readback.copyFrom(hits, 0, found * sizeof(gl::CdHit), dataAt);
                    if (auto r = gl::waitForGpu("cinder, copying a batch's hits"); !r) return r;
                    readbackMs += msSince(tl);
                    addCount(stats, "late_copies", 1);
                }
                const gl::CdHit* first = readback.at<gl::CdHit>(dataAt);
                result.hits.assign(first, first + found);
                hitCopy = found + found / 4 + 256;
                addCount(stats, "hits", double(found));
            }
            break;
        }
        // Grow with headroom, kept for later calls.
        hitCapacity = gl::withHeadroom(std::size_t(counterValues[CD_COUNTER_HITS]) * sizeof(gl::CdHit)) / sizeof(gl::CdHit);
        hits.reserve(hitCapacity * sizeof(gl::CdHit));
        hits.bindBase(GL_SHADER_STORAGE_BUFFER, CD_BINDING_HITS);
        counters.clearZero();
        viewFlags.clearZero(0, std::size_t(n) * sizeof(std::uint32_t));
    }
    timer.mark(4);
    addCount(stats, "edges_drawn", edgesDrawn);
    addCount(stats, "triangles_drawn", trianglesDrawn);
    addCount(stats, "inside_fragments", counterValues[CD_COUNTER_INSIDE]);
    addCount(stats, "near_fragments", counterValues[CD_COUNTER_NEAR]);
    addCount(stats, "overflow_pixels", counterValues[CD_COUNTER_OVERFLOW]);
    // Tiles index views of this batch: give hits their group through the caller (view -> tile).
    if (auto e = gl::checkError("after cinder batch"); !e) return e;
    return {};
}

CinderDetector::CinderDetector(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CinderDetector::~CinderDetector() = default;

std::vector<DetectorDebugView> CinderDetector::debugViews() const {
    const Impl& im = *impl_;
    if (im.lastWidth == 0) return {};
    const std::size_t pixels = std::size_t(im.lastWidth) * im.lastHeight;
    DetectorDebugView edgesView{"edge fragments per pixel", "edges drawn into the pixel (pass 1)", im.counts.id(),
                                0, DetectorDebugView::Format::Counts, im.lastWidth, im.lastHeight, 0, 0, 0};
    DetectorDebugView surfView{"surface fragments per pixel", "surfaces crossed by the pixel's ray (passes 2-3; pixels with an edge only)",
                               im.counts.id(), pixels * sizeof(std::uint32_t), DetectorDebugView::Format::Counts,
                               im.lastWidth, im.lastHeight, 0, 0, 0};
    return {edgesView, surfView};
}

Result<void> CinderDetector::detect(const Scene& scene, std::span<const ObjectPair> candidates, DetectionOutput& out) {
    const auto t0 = Clock::now();
    out.clear();
    Impl& im = *impl_;
    DetectorStats& stats = out.stats;
    double readbackMs = 0.0;
    for (const ObjectPair& p : candidates)
        if (p.a >= scene.objectCount() || p.b >= scene.objectCount())
            return fail("CinderDetector::detect(): candidate pair (" + std::to_string(p.a) + ", " +
                        std::to_string(p.b) + ") names an object the scene does not have");

    // Which pairs are served: both objects active, finite, with closed meshes (the volume role).
    Impl::Scratch& sc = im.scratch;
    std::vector<char>& state = sc.state;  // 0 unseen, 1 ok, 2 skipped, 3 open
    state.assign(scene.objectCount(), 0);
    auto usable = [&](ObjectId o) {
        if (state[o] == 0) {
            state[o] = 1;
            if (!scene.isActive(o)) {
                state[o] = 2;
            } else if (!scene.pose(o).isFinite()) {
                state[o] = 2;
                stats.warnings.push_back("object " + std::to_string(o) +
                                         " has a non-finite pose (NaN or Inf): skipped this step");
            } else if (!scene.objectMesh(o).isClosed()) {
                state[o] = 3;
                stats.warnings.push_back("object " + std::to_string(o) + " has an open mesh (" +
                                         scene.objectMesh(o).report().describe() +
                                         "): cinder ray-casts through closed volumes only, so it is refused as a "
                                         "volume; its pairs are returned unserved (the dispatcher sends them to the "
                                         "exact path)");
            }
        }
        return state[o];
    };
    std::vector<std::uint32_t>& served = sc.served;
    served.clear();
    double open = 0;
    for (std::uint32_t c = 0; c < candidates.size(); ++c) {
        const ObjectPair p = candidates[c];
        if (p.a == p.b) {
            if (im.common.selfCollision) out.unserved.push_back(p);  // one volume: no other object to cast against
            continue;
        }
        const int sa = usable(p.a), sb = usable(p.b);
        if (sa == 2 || sb == 2) continue;
        if (sa == 3 || sb == 3) {
            out.unserved.push_back(p);
            open += 1;
            continue;
        }
        served.push_back(c);
    }

    const auto tc = Clock::now();
    if (!served.empty()) im.syncScene(scene);
    std::vector<Aabb>& boxes = sc.boxes;
    std::vector<char>& boxed = sc.boxed;
    boxes.assign(scene.objectCount(), Aabb{});
    boxed.assign(scene.objectCount(), 0);
    auto boxOf = [&](ObjectId o) -> const Aabb& {
        if (!boxed[o]) {
            boxed[o] = 1;
            if (scene.isDeformed(o)) {
                for (const Vec3& v : scene.localVertices(o)) boxes[o].grow(scene.pose(o).apply(v));
            } else {
                boxes[o] = worldBox(im.localBoxes[scene.meshOf(o)], scene.pose(o));
            }
        }
        return boxes[o];
    };

    // View groups: one per pair, or (scene layout) up to CD_MAX_VIEW_OBJECTS objects each.
    std::vector<Group> groups;
    std::vector<std::int32_t>& slotOf = sc.slotOf;
    std::vector<std::uint32_t>& inGroup = sc.inGroup;
    slotOf.assign(scene.objectCount(), -1);
    inGroup.assign(scene.objectCount(), UINT32_MAX);
    for (std::uint32_t c : served) {
        const ObjectPair p = candidates[c];
        const Aabb meet = boxOf(p.a).intersection(boxOf(p.b));
        if (meet.max.x < meet.min.x || meet.max.y < meet.min.y || meet.max.z < meet.min.z) continue;  // apart
        if (!im.sceneLayout) {
            Group g;
            g.objects = {p.a, p.b};
            g.candidates = {c};
            g.across = meet;
            g.whole = boxOf(p.a);
            g.whole.grow(boxOf(p.b).min);
            g.whole.grow(boxOf(p.b).max);
            groups.push_back(std::move(g));
            continue;
        }
        const auto current = static_cast<std::uint32_t>(groups.size()) - 1;
        const std::size_t need = (groups.empty() || inGroup[p.a] != current ? 1 : 0) +
                                 (groups.empty() || inGroup[p.b] != current ? 1 : 0);
        if (groups.empty() || groups.back().objects.size() + need > CD_MAX_VIEW_OBJECTS) groups.emplace_back();
        Group& g = groups.back();
        const auto gi = static_cast<std::uint32_t>(groups.size()) - 1;
        for (ObjectId o : {p.a, p.b})
            if (inGroup[o] != gi) {
                inGroup[o] = gi;
                slotOf[o] = std::int32_t(g.objects.size());
                g.objects.push_back(o);
                g.whole.grow(boxOf(o).min);
                g.whole.grow(boxOf(o).max);
            }
        g.candidates.push_back(c);
        g.across.grow(meet.min);
        g.across.grow(meet.max);
    }
    std::vector<Impl::Tile> tiles;
    for (std::uint32_t g = 0; g < groups.size(); ++g)
        for (int a = 0; a < im.settings.axes; ++a) tiles.push_back({g, im.settings.axes == 1 ? 2 : a});
    stats.count("cpu_setup_ms", msSince(tc));

    // Batches of tiles (one atlas each).
    std::vector<cinder::EdgeHit>& edgeHits = sc.edgeHits;
    std::vector<char>& full = sc.full;
    std::vector<char>& hitPair = sc.hitPair;
    edgeHits.clear();
    sc.pointCandidate.clear();  // per candidate, its edges' points (for samples): gathered, then by candidate
    sc.pointList.clear();
    full.assign(candidates.size(), 0);
    hitPair.assign(candidates.size(), 0);
    double gpuMs = 0.0, hitsMs = 0.0;
    if (!tiles.empty()) {
        im.stageTimersUsed = 0;
        const std::size_t R = std::size_t(im.settings.resolution);
        const std::size_t perTile = R * R * (8 + 16 * std::size_t(im.settings.maxLayers));
        const std::size_t slotBytes = R * R * std::size_t(im.settings.maxLayers) * 8;  // one slot buffer, one tile
        const std::size_t perBatch = std::clamp<std::size_t>(
            std::min(kBatchBytes / perTile, im.maxBlockBytes / slotBytes), 1, (kMaxAtlasSide / R) * (kMaxAtlasSide / R));
        {  // the atlas of a full batch (runBatch's layout; its pixels grow with the tile count)
            const auto most = static_cast<std::uint32_t>(perBatch);
            std::uint32_t tx = std::max<std::uint32_t>(1, std::uint32_t(std::ceil(std::sqrt(double(most)))));
            tx = std::min(tx, kMaxAtlasSide / std::uint32_t(R));
            im.batchPixelsMost = std::size_t(tx) * R * std::size_t((most + tx - 1) / tx) * R;
        }
        // Pair lookup for the scene layout (objects to the candidate).
        std::unordered_map<std::uint64_t, std::uint32_t> candidateOf;
        if (im.sceneLayout)
            for (std::uint32_t c : served)
                candidateOf[(std::uint64_t(candidates[c].a) << 32) | candidates[c].b] = c;
        auto findCandidate = [&](const Group& g, ObjectId x, ObjectId y) -> std::int64_t {
            if (!im.sceneLayout) return g.candidates[0];
            const ObjectId a = std::min(x, y), b = std::max(x, y);
            auto it = candidateOf.find((std::uint64_t(a) << 32) | b);
            return it == candidateOf.end() ? -1 : std::int64_t(it->second);
        };
        // With the cull, a batch's kept lists have room for all its primitives: bound them too.
        auto cullBytes = [&](const Impl::Tile& t) {
            std::size_t b = 0;
            for (ObjectId o : groups[t.group].objects)
                b += (3 * im.edgesOf[scene.meshOf(o)].size() + 4 * std::size_t(scene.objectMesh(o).triangleCount())) *
                     sizeof(std::uint32_t);
            return im.settings.cull ? b : 0;
        };
        for (std::size_t first = 0, count = 0; first < tiles.size(); first += count) {
            std::size_t bytes = 0;
            for (count = 0; first + count < tiles.size() && count < perBatch; ++count) {
                const std::size_t b = cullBytes(tiles[first + count]);
                if (count > 0 && bytes + b > kCullBytes) break;
                bytes += b;
            }
            const auto batch = std::span<const Impl::Tile>(tiles).subspan(first, count);
            Impl::BatchResult& br = sc.batch;
            br.hits.clear();
            br.codes.clear();
            br.mipPairs.clear();
            if (auto r = im.runBatch(batch, groups, br, stats, readbackMs); !r) return r;
            const auto th = Clock::now();
            for (const auto& [g, code] : br.mipPairs) {
                const Group& group = groups[g];
                const std::uint32_t sa = (code >> 8) & 0xFFu, sb = code & 0xFFu;
                if (sa >= group.objects.size() || sb >= group.objects.size()) continue;
                const std::int64_t c = findCandidate(group, group.objects[sa], group.objects[sb]);
                if (c >= 0) full[std::size_t(c)] = hitPair[std::size_t(c)] = 1;
            }
            for (const gl::CdHit& h : br.hits) {
                if (h.view >= batch.size()) continue;
                const Group& group = groups[batch[h.view].group];
                const std::uint32_t sa = h.slots & 0xFFu, sb = (h.slots >> 8) & 0xFFu, flags = h.slots >> 16;
                if (sa >= group.objects.size() || sb >= group.objects.size()) continue;
                const ObjectId x = group.objects[sa], y = group.objects[sb];
                const std::int64_t ci = findCandidate(group, x, y);
                if (ci < 0) continue;  // two objects of a group that are no candidate pair
                const auto c = std::uint32_t(ci);
                hitPair[c] = 1;
                const std::uint32_t side = x == candidates[c].a ? 0u : 1u;
                edgeHits.push_back({c, side, h.edge});
                if (!im.settings.samples || !(flags & (CD_HIT_INSIDE | CD_HIT_CROSSING))) continue;
                sc.pointCandidate.push_back(c);
                sc.pointList.push_back({(side << 31) | h.edge, flags, h.triangle, Vec3(h.point.x, h.point.y, h.point.z),
                                        decodeCinderNormal(h.normal), h.point.w, h.rayDistance});
            }
            hitsMs += msSince(th);
        }
        double stageMs[kStages] = {};
        for (std::size_t i = 0; i < im.stageTimersUsed; ++i)
            for (int k = 0; k < kStages; ++k) stageMs[k] += im.stageTimers[i]->stageMs(k);
        for (int k = 0; k < kStages; ++k) {
            gpuMs += stageMs[k];
            stats.count(kStageCounters[k], stageMs[k]);
        }
    }

    // The exact check: triangle pairs from the edge hits (or whole pairs), then the samples.
    const auto te = Clock::now();
    // The points by candidate (a counting sort: each pair's points contiguous, in read-back order).
    sc.pointStart.assign(candidates.size() + 1, 0);
    for (std::uint32_t c : sc.pointCandidate) ++sc.pointStart[c + 1];
    for (std::size_t c = 0; c < candidates.size(); ++c) sc.pointStart[c + 1] += sc.pointStart[c];
    sc.points.resize(sc.pointList.size());
    for (std::size_t k = 0; k < sc.pointList.size(); ++k) sc.points[sc.pointStart[sc.pointCandidate[k]]++] = sc.pointList[k];
    for (std::size_t c = candidates.size(); c > 0; --c) sc.pointStart[c] = sc.pointStart[c - 1];  // back to starts
    sc.pointStart[0] = 0;
    auto pointsOf = [&](std::uint32_t c) {
        return std::span<EdgePoint>(sc.points).subspan(sc.pointStart[c], sc.pointStart[c + 1] - sc.pointStart[c]);
    };
    std::vector<std::uint32_t>& fullPairs = sc.fullPairs;
    fullPairs.clear();
    for (std::uint32_t c = 0; c < candidates.size(); ++c)
        if (full[c]) fullPairs.push_back(c);
    if (!edgeHits.empty() || !fullPairs.empty())
        im.exact.run(scene, candidates, edgeHits, fullPairs, im.edgesOf, im.common.wantSegments, out);
    std::sort(out.pairs.begin(), out.pairs.end(), [](const PairResult& x, const PairResult& y) { return x.pair < y.pair; });
    stats.count("cpu_exact_ms", msSince(te));
    const auto ts = Clock::now();
    double sampleCount = 0;
    if (im.settings.samples) {
        std::unordered_map<std::uint64_t, std::uint32_t> candidateOfPair;
        for (std::uint32_t c = 0; c < candidates.size(); ++c)
            if (!pointsOf(c).empty())
                candidateOfPair[(std::uint64_t(candidates[c].a) << 32) | candidates[c].b] = c;
        // Pairs are independent: their samples in parallel (each pair's own points and output).
        const auto pairCount = static_cast<std::int64_t>(out.pairs.size());
#pragma omp parallel for schedule(dynamic, 1) if (pairCount > 1)
        for (std::int64_t i = 0; i < pairCount; ++i) {
            PairResult& r = out.pairs[std::size_t(i)];
            auto it = candidateOfPair.find((std::uint64_t(r.pair.a) << 32) | r.pair.b);
            if (it == candidateOfPair.end()) continue;
            const std::uint32_t c = it->second;
            makeSamples(pointsOf(c), im.edgesOf[scene.meshOf(r.pair.a)], im.edgesOf[scene.meshOf(r.pair.b)], r.samples);
        }
        for (const PairResult& r : out.pairs) sampleCount += double(r.samples.size());
    }
    stats.count("cpu_samples_ms", msSince(ts));
    stats.count("cpu_hits_ms", hitsMs);

    double pairsWithHits = 0;
    for (char h : hitPair) pairsWithHits += h ? 1 : 0;
    stats.count("candidate_pairs", double(candidates.size()));
    stats.count("unserved_pairs", double(out.unserved.size()));
    stats.count("open_mesh_pairs", open);
    stats.count("view_groups", double(groups.size()));
    stats.count("views", double(tiles.size()));
    stats.count("hit_pairs", pairsWithHits);
    if (im.mipmap) stats.count("mipmap_pairs", pairsWithHits);
    stats.count("samples", sampleCount);
    stats.count("colliding_pairs", double(out.pairs.size()));
    stats.gpuMs = gpuMs;
    stats.readbackMs = readbackMs;
    stats.totalMs = msSince(t0);
    stats.cpuMs = stats.totalMs - readbackMs;
    return {};
}

Result<std::unique_ptr<Detector>> createCinderDetector(const DetectorSettings& common, const CinderSettings& settings) {
    const int r = settings.resolution;
    if (r < 16 || r > 2048 || !std::has_single_bit(unsigned(r)))
        return fail("createCinderDetector(): resolution " + std::to_string(r) +
                    " is not a power of two in [16, 2048]; use e.g. 128");
    if (settings.axes != 1 && settings.axes != 3)
        return fail("createCinderDetector(): axes must be 1 (z) or 3 (x, y, z), got " + std::to_string(settings.axes));
    if (settings.layout != "pairs" && settings.layout != "scene")
        return fail("createCinderDetector(): layout \"" + settings.layout + "\" is not pairs or scene");
    if (settings.readback != "compact" && settings.readback != "mipmap")
        return fail("createCinderDetector(): readback \"" + settings.readback + "\" is not compact or mipmap");
    const int maxLevels = std::countr_zero(unsigned(r));
    if (settings.mipLevels < 1 || settings.mipLevels > maxLevels)
        return fail("createCinderDetector(): mipLevels " + std::to_string(settings.mipLevels) + " is outside [1, " +
                    std::to_string(maxLevels) + "] (log2 of the resolution)");
    if (settings.maxLayers < 4 || settings.maxLayers > 64)
        return fail("createCinderDetector(): maxLayers " + std::to_string(settings.maxLayers) + " is outside [4, 64]");
    if (!(settings.proximity >= 0.0f))
        return fail("createCinderDetector(): proximity must be >= 0 pixels, got " + std::to_string(settings.proximity));
    if (glad_glCreateBuffers == nullptr)
        return fail("createCinderDetector(): no current GL context; create one with isc::gl::Context first");
    GLint64 maxBlock = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &maxBlock);
    const std::size_t slotBytes = std::size_t(r) * std::size_t(r) * std::size_t(settings.maxLayers) * 8;
    if (slotBytes > std::size_t(maxBlock))
        return fail("createCinderDetector(): resolution " + std::to_string(r) + " with maxLayers " +
                    std::to_string(settings.maxLayers) + " needs " + std::to_string(slotBytes >> 20) +
                    " MB per slot buffer, over this GL's GL_MAX_SHADER_STORAGE_BLOCK_SIZE (" +
                    std::to_string(std::size_t(maxBlock) >> 20) + " MB); lower maxLayers or resolution");
    auto impl = std::make_unique<CinderDetector::Impl>();
    impl->maxBlockBytes = std::size_t(maxBlock);
    impl->common = common;
    impl->settings = settings;
    impl->sceneLayout = settings.layout == "scene";
    impl->mipmap = settings.readback == "mipmap";
    if (auto c = impl->compile(); !c) return fail(c.error().message);
    return std::unique_ptr<Detector>(new CinderDetector(std::move(impl)));
}

namespace detectors {

DetectorInfo cinderInfo() {
    DetectorInfo d;
    d.name = "cinder";
    d.summary = "edges ray-cast through the other volumes (front/back face counts, the paper's stencil), pair ids, encoded normals (CInDeR, Knott & Pai)";
    d.usesGl = true;
    d.needsClosedMeshes = true;
    d.reportsTrianglePairs = true;
    d.reportsContactSamples = true;
    // Not a defect of its answers: its cost. auto's measuring ran it on every round and
    // paid for it (docs/detectors/cinder.md, "auto").
    d.knownIssue =
        "too slow for a default on touching piles: 200-360 ms a call on an H200's 100-bunny pile, where cpu and "
        "peel take under 3 ms; name it (--detector cinder, or auto's candidates=...)";
    d.settings = describeSettings<CinderSettings>();
    d.create = [](const DetectorSettings& common) -> Result<std::unique_ptr<Detector>> {
        CinderSettings settings;
        if (auto r = applyOptions(settings, common.options, "cinder"); !r) return fail(r.error().message);
        return createCinderDetector(common, settings);
    };
    return d;
}

}  // namespace detectors

}  // namespace isc
