#include "PeelClusters.h"

#include "isc/core/Assert.h"
#include "isc/geometry/Bvh.h"
#include "isc/mesh/Mesh.h"
#include "isc/scene/Scene.h"

#include <algorithm>
#include <bit>

#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>  // SSE2 (every x86-64)
#endif

namespace isc {

PeelClusters::MeshTree PeelClusters::build(const Mesh& mesh, std::vector<gl::PeelClusterNode>& nodes,
                                           std::vector<std::uint32_t>& slots) {
    MeshTree tree;
    tree.firstNode = static_cast<std::uint32_t>(nodes.size());
    tree.firstSlot = static_cast<std::uint32_t>(slots.size());
    if (mesh.triangleCount() == 0) return tree;
    double edges = 0.0;
    for (const UVec3& t : mesh.triangles())
        for (int k = 0; k < 3; ++k) edges += double(glm::length(mesh.vertices()[t[k]] - mesh.vertices()[t[(k + 1) % 3]]));
    tree.meanEdge = float(edges / (3.0 * double(mesh.triangleCount())));
    geometry::Bvh bvh;
    bvh.build(mesh.vertices(), mesh.triangles(), 4);
    const auto bvhNodes = bvh.nodes();
    const auto bvhSlots = bvh.slotTriangles();
    // Triangles under each BVH node (children have larger indices: one reverse sweep).
    std::vector<std::uint32_t> under(bvhNodes.size(), 0);
    for (std::size_t i = bvhNodes.size(); i-- > 0;) {
        const geometry::Bvh::Node& n = bvhNodes[i];
        under[i] = n.isLeaf() ? n.count : under[n.first] + under[n.first + 1];
    }
    // Depth-first from the root: a node with at most kMaxClusterTriangles triangles (or a BVH
    // leaf) is a cluster, its triangles appended to the slots in BVH leaf order; an inner node
    // gets two children. Slots of any node are then one contiguous range.
    struct Item {
        std::uint32_t bvhNode;
        std::uint32_t node;  // index relative to tree.firstNode
        std::uint32_t depth;
    };
    const std::uint32_t base = tree.firstNode;
    const std::uint32_t slotBase = tree.firstSlot;
    nodes.push_back({PEEL_NO_NODE, PEEL_NO_NODE, PEEL_NO_NODE, 0, 0, 0, 0, 0});
    std::vector<Item> stack{{0, 0, 0}};
    std::vector<std::uint32_t> leafStack;
    while (!stack.empty()) {
        const Item it = stack.back();
        stack.pop_back();
        const geometry::Bvh::Node& b = bvhNodes[it.bvhNode];
        gl::PeelClusterNode& n = nodes[base + it.node];
        n.firstSlot = static_cast<std::uint32_t>(slots.size()) - slotBase;
        tree.height = std::max(tree.height, it.depth);
        if (b.isLeaf() || under[it.bvhNode] <= kMaxClusterTriangles) {
            // A cluster: append its triangles (its BVH leaves in order).
            leafStack.assign(1, it.bvhNode);
            while (!leafStack.empty()) {
                const std::uint32_t k = leafStack.back();
                leafStack.pop_back();
                const geometry::Bvh::Node& x = bvhNodes[k];
                if (x.isLeaf()) {
                    for (std::uint32_t s = x.first; s < x.first + x.count; ++s) slots.push_back(bvhSlots[s]);
                } else {
                    leafStack.push_back(x.first + 1);  // left first
                    leafStack.push_back(x.first);
                }
            }
            n.slotCount = static_cast<std::uint32_t>(slots.size()) - slotBase - n.firstSlot;
            ISC_ASSERT(n.slotCount <= kMaxClusterTriangles, "PeelClusters::build(): a BVH leaf larger than a cluster");
            ++tree.clusterCount;
            continue;
        }
        // Inner: children get the next two node indices; the right one is expanded after the
        // left one's whole subtree, so the parent's slot range is set once both are done
        // (below, bottom-up).
        const auto left = static_cast<std::uint32_t>(nodes.size()) - base;
        nodes.push_back({PEEL_NO_NODE, PEEL_NO_NODE, it.node, 0, 0, 0, 0, 0});
        nodes.push_back({PEEL_NO_NODE, PEEL_NO_NODE, it.node, 0, 0, 0, 0, 0});
        nodes[base + it.node].left = left;
        nodes[base + it.node].right = left + 1;
        stack.push_back({b.first + 1, left + 1, it.depth + 1});
        stack.push_back({b.first, left, it.depth + 1});
    }
    tree.nodeCount = static_cast<std::uint32_t>(nodes.size()) - base;
    // Inner nodes' slot ranges from their children (children have larger indices).
    for (std::uint32_t i = tree.nodeCount; i-- > 0;) {
        gl::PeelClusterNode& n = nodes[base + i];
        if (n.left == PEEL_NO_NODE) continue;
        const gl::PeelClusterNode& l = nodes[base + n.left];
        const gl::PeelClusterNode& r = nodes[base + n.right];
        ISC_ASSERT(l.firstSlot + l.slotCount == r.firstSlot, "PeelClusters::build(): children's slots not contiguous");
        n.firstSlot = l.firstSlot;
        n.slotCount = l.slotCount + r.slotCount;
    }
    ISC_ASSERT(nodes[base].slotCount == mesh.triangleCount(), "PeelClusters::build(): triangles lost");
    return tree;
}

bool PeelClusters::update(const Scene& scene) {
    if (trees_.size() == scene.meshCount()) return false;
    std::vector<std::uint32_t> corners;
    for (MeshId m = static_cast<MeshId>(trees_.size()); m < scene.meshCount(); ++m) {
        const Mesh& mesh = scene.mesh(m);
        trees_.push_back(build(mesh, nodes_, slots_));
        const MeshTree& tree = trees_.back();
        for (std::size_t k = tree.firstSlot; k < slots_.size(); ++k) {
            const UVec3 t = mesh.triangles()[slots_[k]];
            slotTriangles_.emplace_back(slots_[k], t.x, t.y, t.z);
        }
        // Each cluster's distinct corners, for refit().
        for (std::uint32_t i = 0; i < tree.nodeCount; ++i) {
            const gl::PeelClusterNode& n = nodes_[tree.firstNode + i];
            if (n.left == PEEL_NO_NODE) {
                corners.clear();
                for (std::uint32_t k = 0; k < n.slotCount; ++k) {
                    const glm::uvec4& t = slotTriangles_[tree.firstSlot + n.firstSlot + k];
                    corners.insert(corners.end(), {t.y, t.z, t.w});
                }
                std::sort(corners.begin(), corners.end());
                corners.erase(std::unique(corners.begin(), corners.end()), corners.end());
                refs_.insert(refs_.end(), corners.begin(), corners.end());
            }
            refBegin_.push_back(static_cast<std::uint32_t>(refs_.size()));
        }
    }
    return true;
}

void PeelClusters::refitScalar(MeshId mesh, std::span<const Vec3> local, const Mat4& model, gl::PeelBox* out) const {
    const MeshTree& tree = trees_[mesh];
    // Every vertex turned once (the affine part of the model matrix: within float rounding of
    // the shaders' model x (v, 1), which is all the walk's tolerance needs), then each
    // cluster's box over its distinct corners.
    thread_local std::vector<Vec3> world;
    world.resize(local.size());
    const Vec3 c0(model[0]), c1(model[1]), c2(model[2]), c3(model[3]);
    for (std::size_t v = 0; v < local.size(); ++v) world[v] = c0 * local[v].x + c1 * local[v].y + c2 * local[v].z + c3;
    // Children have larger indices than their parent: one reverse sweep.
    for (std::uint32_t i = tree.nodeCount; i-- > 0;) {
        const gl::PeelClusterNode& n = nodes_[tree.firstNode + i];
        Vec3 lo(3.4e38f), hi(-3.4e38f);
        if (n.left == PEEL_NO_NODE) {
            const std::uint32_t end = refBegin_[tree.firstNode + i + 1];
            for (std::uint32_t r = refBegin_[tree.firstNode + i]; r < end; ++r) {
                const Vec3 w = world[refs_[r]];
                lo = glm::min(lo, w);
                hi = glm::max(hi, w);
            }
        } else {
            const gl::PeelBox& a = out[n.left];
            const gl::PeelBox& b = out[n.right];
            lo = glm::min(Vec3(a.lo), Vec3(b.lo));
            hi = glm::max(Vec3(a.hi), Vec3(b.hi));
        }
        out[i] = gl::PeelBox{Vec4(lo, 0.0f), Vec4(hi, 0.0f)};
    }
}
void PeelClusters::refit(MeshId mesh, std::span<const Vec3> local, const Mat4& model, gl::PeelBox* out,
                         bool stream, gl::PeelBox* copy) const {
#if !defined(__SSE2__)
    (void)stream;
    if (copy != nullptr) {
        refitScalar(mesh, local, model, copy);  // no SSE2 (not x86-64): the scalar code
        if (out != nullptr) std::copy(copy, copy + trees_[mesh].nodeCount, out);
    } else {
        refitScalar(mesh, local, model, out);
    }
#else
    const MeshTree& tree = trees_[mesh];
    // As refitScalar(), four components at once. Each vertex: ((c0 x + c1 y) + c2 z) + c3, the
    // same products and sums in the same order as glm's c0 * x + c1 * y + c2 * z + c3 (no
    // fused multiply-add either way), so the same floats. _mm_min_ps(w, lo) is glm::min(lo, w)
    // (w < lo ? w : lo) and _mm_max_ps(w, hi) glm::max(hi, w) (hi < w ? w : hi), signed zeros
    // included. The w lane is 0 * x + 0 * y + 0 * z + 0 = 0, as the boxes' w.
    thread_local std::vector<Vec4> world, lo, hi;  // __m128 each (loadu/storeu)
    world.resize(local.size());
    lo.resize(tree.nodeCount);
    hi.resize(tree.nodeCount);
    const __m128 c0 = _mm_setr_ps(model[0][0], model[0][1], model[0][2], 0.0f);
    const __m128 c1 = _mm_setr_ps(model[1][0], model[1][1], model[1][2], 0.0f);
    const __m128 c2 = _mm_setr_ps(model[2][0], model[2][1], model[2][2], 0.0f);
    const __m128 c3 = _mm_setr_ps(model[3][0], model[3][1], model[3][2], 0.0f);
    const Vec3* src = local.data();
    for (std::size_t v = 0; v < local.size(); ++v) {
        const __m128 x = _mm_set1_ps(src[v].x), y = _mm_set1_ps(src[v].y), z = _mm_set1_ps(src[v].z);
        _mm_storeu_ps(&world[v].x,
                      _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(c0, x), _mm_mul_ps(c1, y)), _mm_mul_ps(c2, z)), c3));
    }
    const bool streamed = stream && out != nullptr && (reinterpret_cast<std::uintptr_t>(out) & 15u) == 0;
    const gl::PeelClusterNode* nodes = nodes_.data() + tree.firstNode;
    const std::uint32_t* begin = refBegin_.data() + tree.firstNode;
    for (std::uint32_t i = tree.nodeCount; i-- > 0;) {
        const gl::PeelClusterNode& n = nodes[i];
        __m128 l, h;
        if (n.left == PEEL_NO_NODE) {
            // Four independent minima and maxima (the corners' chains of dependent min/max
            // were most of the time), united at the end: a minimum is exact whatever the order,
            // so the box is the same floats (only a zero's sign may differ where +0 and -0
            // tie, which compare equal).
            __m128 l0 = _mm_set1_ps(3.4e38f), l1 = l0, l2 = l0, l3 = l0;
            __m128 h0 = _mm_set1_ps(-3.4e38f), h1 = h0, h2 = h0, h3 = h0;
            const std::uint32_t end = begin[i + 1];
            std::uint32_t r = begin[i];
            for (; r + 4 <= end; r += 4) {
                const __m128 w0 = _mm_loadu_ps(&world[refs_[r]].x), w1 = _mm_loadu_ps(&world[refs_[r + 1]].x);
                const __m128 w2 = _mm_loadu_ps(&world[refs_[r + 2]].x), w3 = _mm_loadu_ps(&world[refs_[r + 3]].x);
                l0 = _mm_min_ps(w0, l0);
                h0 = _mm_max_ps(w0, h0);
                l1 = _mm_min_ps(w1, l1);
                h1 = _mm_max_ps(w1, h1);
                l2 = _mm_min_ps(w2, l2);
                h2 = _mm_max_ps(w2, h2);
                l3 = _mm_min_ps(w3, l3);
                h3 = _mm_max_ps(w3, h3);
            }
            for (; r < end; ++r) {
                const __m128 w = _mm_loadu_ps(&world[refs_[r]].x);
                l0 = _mm_min_ps(w, l0);
                h0 = _mm_max_ps(w, h0);
            }
            l = _mm_min_ps(_mm_min_ps(l0, l1), _mm_min_ps(l2, l3));
            h = _mm_max_ps(_mm_max_ps(h0, h1), _mm_max_ps(h2, h3));
        } else {
            l = _mm_min_ps(_mm_loadu_ps(&lo[n.right].x), _mm_loadu_ps(&lo[n.left].x));  // glm::min(a.lo, b.lo)
            h = _mm_max_ps(_mm_loadu_ps(&hi[n.right].x), _mm_loadu_ps(&hi[n.left].x));  // glm::max(a.hi, b.hi)
        }
        _mm_storeu_ps(&lo[i].x, l);
        _mm_storeu_ps(&hi[i].x, h);
        if (copy != nullptr) {
            _mm_storeu_ps(&copy[i].lo.x, l);
            _mm_storeu_ps(&copy[i].hi.x, h);
        }
        if (out == nullptr) continue;
        float* o = &out[i].lo.x;
        if (streamed) {
            _mm_stream_ps(o, l);
            _mm_stream_ps(o + 4, h);
        } else {
            _mm_storeu_ps(o, l);
            _mm_storeu_ps(o + 4, h);
        }
    }
    if (streamed) _mm_sfence();
#endif
}

namespace {

// cluster_walk.glsl's meet(): a.lo <= b.hi + margin and b.lo <= a.hi + margin on x, y, z, each
// sum rounded to float (as the shader's; SSE has no excess precision). w is not compared.
inline bool meet(const gl::PeelBox& a, const gl::PeelBox& b, float margin) {
#if defined(__SSE2__)
    const __m128 m = _mm_set1_ps(margin);
    const __m128 one = _mm_cmple_ps(_mm_loadu_ps(&a.lo.x), _mm_add_ps(_mm_loadu_ps(&b.hi.x), m));
    const __m128 two = _mm_cmple_ps(_mm_loadu_ps(&b.lo.x), _mm_add_ps(_mm_loadu_ps(&a.hi.x), m));
    return (_mm_movemask_ps(_mm_and_ps(one, two)) & 7) == 7;
#else
    for (int k = 0; k < 3; ++k)
        if (!(a.lo[k] <= b.hi[k] + margin) || !(b.lo[k] <= a.hi[k] + margin)) return false;
    return true;
#endif
}

// The records of one meeting leaf pair (leaf x of part pa against leaf y of part pb, node
// indices ab): the pair's head, the two slot ranges and node indices, and with `withBoxes` the
// two leaves' boxes (three uvec4 more).
void pushLeafRecords(std::vector<glm::uvec4>& records, const glm::uvec4& head, const gl::PeelPart& pa,
                     const gl::PeelPart& pb, const gl::PeelClusterNode& x, const gl::PeelClusterNode& y,
                     glm::uvec2 ab, const gl::PeelBox* ba, const gl::PeelBox* bb, bool withBoxes) {
    records.push_back(head);
    records.emplace_back((pa.firstSlot + x.firstSlot) | ((x.slotCount - 1u) << 27),
                         (pb.firstSlot + y.firstSlot) | ((y.slotCount - 1u) << 27), pa.nodeBase + ab.x,
                         pb.nodeBase + ab.y);
    if (!withBoxes) return;
    const gl::PeelBox& p = ba[ab.x];
    const gl::PeelBox& q = bb[ab.y];
    auto bits = [](float f) { return std::bit_cast<std::uint32_t>(f); };
    records.emplace_back(bits(p.lo.x), bits(p.lo.y), bits(p.lo.z), bits(p.hi.x));
    records.emplace_back(bits(p.hi.y), bits(p.hi.z), bits(q.lo.x), bits(q.lo.y));
    records.emplace_back(bits(q.lo.z), bits(q.hi.x), bits(q.hi.y), bits(q.hi.z));
}

}  // namespace

std::size_t PeelClusters::walkPair(const gl::PeelPart& pa, const gl::PeelPart& pb, const gl::PeelPair& pair,
                                   const gl::PeelBox* boxes, std::vector<glm::uvec4>& records,
                                   std::vector<glm::uvec2>& stack, bool withBoxes) const {
    const float margin = pair.margin;
    const gl::PeelBox* ba = boxes + pa.nodeBase;
    const gl::PeelBox* bb = boxes + pb.nodeBase;
    const gl::PeelClusterNode* na = nodes_.data() + pa.firstNode;
    const gl::PeelClusterNode* nb = nodes_.data() + pb.firstNode;
    std::size_t tests = 1;
    if (pa.nodeCount == 0 || pb.nodeCount == 0 || !meet(ba[0], bb[0], margin)) return tests;
    stack.clear();
    stack.emplace_back(0u, 0u);
    const glm::uvec4 head(pair.candidate, std::bit_cast<std::uint32_t>(margin), pa.object, pb.object);
    auto visit = [&](std::uint32_t a, std::uint32_t b) {
        ++tests;
        if (meet(ba[a], bb[b], margin)) stack.emplace_back(a, b);
    };
    while (!stack.empty()) {
        const glm::uvec2 ab = stack.back();
        stack.pop_back();
        const gl::PeelClusterNode& x = na[ab.x];
        const gl::PeelClusterNode& y = nb[ab.y];
        const bool leafA = x.left == PEEL_NO_NODE, leafB = y.left == PEEL_NO_NODE;
        if (leafA && leafB) {
            pushLeafRecords(records, head, pa, pb, x, y, ab, ba, bb, withBoxes);
        } else if (!leafA && !leafB) {
            visit(x.left, y.left);
            visit(x.left, y.right);
            visit(x.right, y.left);
            visit(x.right, y.right);
        } else if (leafA) {
            visit(ab.x, y.left);
            visit(ab.x, y.right);
        } else {
            visit(x.left, ab.y);
            visit(x.right, ab.y);
        }
    }
    return tests;
}


std::size_t PeelClusters::walkPairBranchless(const gl::PeelPart& pa, const gl::PeelPart& pb, const gl::PeelPair& pair,
                                             const gl::PeelBox* boxes, std::vector<glm::uvec4>& records,
                                             std::vector<glm::uvec2>& stack, bool withBoxes) const {
#if !defined(__SSE2__)
    return walkPair(pa, pb, pair, boxes, records, stack, withBoxes);
#else
    const float margin = pair.margin;
    const gl::PeelBox* ba = boxes + pa.nodeBase;
    const gl::PeelBox* bb = boxes + pb.nodeBase;
    const gl::PeelClusterNode* na = nodes_.data() + pa.firstNode;
    const gl::PeelClusterNode* nb = nodes_.data() + pb.firstNode;
    std::size_t tests = 1;
    if (pa.nodeCount == 0 || pb.nodeCount == 0 || !meet(ba[0], bb[0], margin)) return tests;
    // The stack as plain memory: every expansion stores its (at most four) node pairs and
    // advances the top by each test's outcome (0 or 1), so no branch follows a box test; room
    // for four more is made before each expansion (a predictable branch).
    if (stack.size() < 16) stack.resize(16);
    glm::uvec2* s = stack.data();
    std::size_t top = 0, room = stack.size();
    s[top++] = glm::uvec2(0u, 0u);
    const glm::uvec4 head(pair.candidate, std::bit_cast<std::uint32_t>(margin), pa.object, pb.object);
    const __m128 m = _mm_set1_ps(margin);
    // A box as meet() compares it: its lo, and its hi + margin (the same float sums as meet()'s:
    // the addition commutes exactly).
    struct Loaded {
        __m128 lo, hm;
    };
    const auto load = [m](const gl::PeelBox& b) {
        return Loaded{_mm_loadu_ps(&b.lo.x), _mm_add_ps(_mm_loadu_ps(&b.hi.x), m)};
    };
    // Stores node pair (a, b) on the stack's top and keeps it there exactly when the boxes meet.
    const auto push = [&s, &top](std::uint32_t a, std::uint32_t b, const Loaded& p, const Loaded& q) {
        s[top] = glm::uvec2(a, b);
        top += std::size_t((_mm_movemask_ps(_mm_and_ps(_mm_cmple_ps(p.lo, q.hm), _mm_cmple_ps(q.lo, p.hm))) & 7) == 7);
    };
    while (top > 0) {
        const glm::uvec2 ab = s[--top];
        const gl::PeelClusterNode& x = na[ab.x];
        const gl::PeelClusterNode& y = nb[ab.y];
        const bool leafA = x.left == PEEL_NO_NODE, leafB = y.left == PEEL_NO_NODE;
        if (leafA && leafB) {
            pushLeafRecords(records, head, pa, pb, x, y, ab, ba, bb, withBoxes);
            continue;
        }
        if (top + 4 > room) {
            stack.resize(2 * room);
            s = stack.data();
            room = stack.size();
        }
        // walkPair()'s order: (L, L), (L, R), (R, L), (R, R); a leaf stands for both its children.
        const std::uint32_t aL = leafA ? ab.x : x.left, bL = leafB ? ab.y : y.left;
        const Loaded al = load(ba[aL]), bl = load(bb[bL]);
        if (!leafA && !leafB) {
            const Loaded ar = load(ba[x.right]), br = load(bb[y.right]);
            push(x.left, y.left, al, bl);
            push(x.left, y.right, al, br);
            push(x.right, y.left, ar, bl);
            push(x.right, y.right, ar, br);
            tests += 4;
        } else if (leafA) {
            push(ab.x, y.left, al, bl);
            push(ab.x, y.right, al, load(bb[y.right]));
            tests += 2;
        } else {
            push(x.left, ab.y, al, bl);
            push(x.right, ab.y, load(ba[x.right]), bl);
            tests += 2;
        }
    }
    return tests;
#endif
}

}  // namespace isc
