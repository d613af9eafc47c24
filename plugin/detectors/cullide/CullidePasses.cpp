#include "CullidePasses.h"

#include "isc/core/Assert.h"
#include "isc/scene/Scene.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <tuple>

namespace isc::cullide {

static_assert(sizeof(gl::CullideItem) == 32, "CullideItem must match its std430 layout");

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

constexpr GLuint kGroup = 64;  // local_size_x of every cullide compute shader
constexpr GLuint kBoxLanes = 16;  // threads per box in the box splat (CULLIDE_LANES)
constexpr std::size_t kMaxViewsAtOnce = 3;  // CULLIDE_MAX_VIEWS in raster.glsl

GLuint groupsFor(std::size_t n) { return static_cast<GLuint>((n + kGroup - 1) / kGroup); }

// Bits of a depth key that name the group: enough for groupCount distinct groups, with the
// all-ones pattern (the cleared front key) naming none.
std::uint32_t idBitsFor(std::uint32_t groupCount) {
    std::uint32_t bits = 1;
    while ((1u << bits) <= groupCount) ++bits;
    return bits;
}

}  // namespace

Passes::~Passes() = default;

Result<void> Passes::compile(bool queries, int selfLayers, int queryPool) {
    queries_ = queries;
    selfLayers_ = selfLayers;
    queryPool_ = queryPool;
    // Variants of the splat pass: triangles or boxes (kBoxLanes threads per box), one view per
    // dispatch or all of a level's views at once.
    const std::string lanes = "#define CULLIDE_LANES " + std::to_string(kBoxLanes) + "\n";
    struct Variant {
        gl::Program* program;
        std::string defines;
        const char* label;
    };
    for (const Variant& v : {Variant{&splat_, "", "cullide splat"},
                             Variant{&splatBoxes_, "#define CULLIDE_BOXES 1\n" + lanes, "cullide splat (boxes)"},
                             Variant{&splatMulti_, "#define CULLIDE_MULTIVIEW 1\n", "cullide splat (views at once)"},
                             Variant{&splatBoxesMulti_, "#define CULLIDE_MULTIVIEW 1\n#define CULLIDE_BOXES 1\n" + lanes,
                                     "cullide splat (boxes, views at once)"}}) {
        auto p = gl::Program::create({{GL_COMPUTE_SHADER, "cullide/splat.glsl"}}, v.defines, v.label);
        if (!p) return fail(p.error().message);
        *v.program = std::move(*p);
    }
    // The triangles' splat of one view (the chain's cluster level) from a program per mode for
    // the key (with the second pushed) and the query (splat.glsl CULLIDE_SPLAT_MODE): the driver
    // then allocates registers for that mode's path only (the assembly's vec4 temporaries 14 and
    // 21 against 28 for the program of every mode), and more workgroups fit an SM: the key's pass
    // 0.041-0.043 ms against 0.049-0.051 on the pile at an H200's idle clock (cullide.md, "The
    // lead's rounds of 2026-11-29, eighth session"). Mode 1 (ISC_CULLIDE_PUSH_SECOND=0) keeps the
    // program of every mode. Test hook ISC_CULLIDE_SPLAT_PER_MODE=0: that program for every mode.
    const char* perMode = std::getenv("ISC_CULLIDE_SPLAT_PER_MODE");
    splatPerMode_ = perMode == nullptr || *perMode != '0';
    splatPrograms_ = {&splat_, &splatBoxes_, &splatMulti_, &splatBoxesMulti_};
    if (splatPerMode_) {
        for (auto [program, mode, label] : {std::tuple{&splatKey_, 0u, "cullide splat (key and second)"},
                                            std::tuple{&splatQuery_, 2u, "cullide splat (query)"}}) {
            auto p = gl::Program::create({{GL_COMPUTE_SHADER, "cullide/splat.glsl"}},
                                         "#define CULLIDE_SPLAT_MODE " + std::to_string(mode) + "u\n", label);
            if (!p) return fail(p.error().message);
            *program = std::move(*p);
            splatPrograms_.push_back(program);
        }
    }
    auto u = gl::Program::create({{GL_COMPUTE_SHADER, "cullide/update.glsl"}}, {}, "cullide update");
    if (!u) return fail(u.error().message);
    update_ = std::move(*u);
    auto ch = gl::Program::create({{GL_COMPUTE_SHADER, "cullide/chain.glsl"}}, {}, "cullide chain");
    if (!ch) return fail(ch.error().message);
    chain_ = std::move(*ch);
    auto po = gl::Program::create({{GL_COMPUTE_SHADER, "cullide/pose.glsl"}}, {}, "cullide pose");
    if (!po) return fail(po.error().message);
    pose_ = std::move(*po);
    auto fl = gl::Program::create({{GL_COMPUTE_SHADER, "cullide/filter.glsl"}}, {}, "cullide filter");
    if (!fl) return fail(fl.error().message);
    filter_ = std::move(*fl);
    auto fw = gl::Program::create({{GL_COMPUTE_SHADER, "cullide/filter.glsl"}}, "#define CULLIDE_FILTER_WIDE 1\n",
                                  "cullide filter (wide)");
    if (!fw) return fail(fw.error().message);
    filterWide_ = std::move(*fw);
    auto f = gl::Program::create({{GL_COMPUTE_SHADER, "cullide/self.glsl"}}, {}, "cullide self");
    if (!f) return fail(f.error().message);
    self_ = std::move(*f);
    if (queries_) {
        auto q = gl::Program::create({{GL_VERTEX_SHADER, "cullide/query.vert.glsl"},
                                      {GL_FRAGMENT_SHADER, "cullide/query.frag.glsl"}},
                                     {}, "cullide query draw");
        if (!q) return fail(q.error().message);
        queryDraw_ = std::move(*q);
        auto qu = gl::Program::create({{GL_COMPUTE_SHADER, "cullide/update.glsl"}}, "#define CULLIDE_QUERIES 1\n",
                                      "cullide query update");
        if (!qu) return fail(qu.error().message);
        queryUpdate_ = std::move(*qu);
        pool_.reserve(std::size_t(queryPool_));
        for (int i = 0; i < queryPool_; ++i) pool_.emplace_back("cullide occlusion query", GL_ANY_SAMPLES_PASSED_CONSERVATIVE);
        framebuffer_ = gl::Framebuffer("cullide query depth");
    }
    GLint maxGroups = 65535;
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &maxGroups);
    maxGroupsX_ = static_cast<std::uint32_t>(std::max(maxGroups, 65535));
    vao_ = gl::VertexArray("cullide vao (vertex pulling)");
    counters_.allocate(CULLIDE_COUNTER_COUNT * sizeof(std::uint32_t));
    begin_ = gl::Query("cullide level begin", GL_TIMESTAMP);
    mid_ = gl::Query("cullide chain middle", GL_TIMESTAMP);
    posed_ = gl::Query("cullide chain pose pass", GL_TIMESTAMP);
    clustered_ = gl::Query("cullide chain cluster level", GL_TIMESTAMP);
    filterEnd_ = gl::Query("cullide filter end", GL_TIMESTAMP);
    end_ = gl::Query("cullide level end", GL_TIMESTAMP);
    done_ = gl::Query("cullide chain done", GL_TIMESTAMP);
    for (gl::Query& q : passQ_) q = gl::Query("cullide cluster level pass", GL_TIMESTAMP);
    earlyPaired_ = gl::Query("cullide chain early pair pass", GL_TIMESTAMP);
    return {};
}

void Passes::sync(const Scene& scene, const Slots& slots, bool slotsChanged) {
    // (Another scene handed to the detector: GpuScene lays it out afresh, test
    // AnotherSceneWithTheMeshesSwappedIsMirroredAgain.)
    scene_.sync(scene);
    uploadSlots(slots, slotsChanged);
}

void Passes::endSync(const Slots& slots, bool slotsChanged) {
    scene_.endSync();
    uploadSlots(slots, slotsChanged);
}

void Passes::uploadSlots(const Slots& slots, bool slotsChanged) {
    if (slotsChanged || slots_.size() < std::max<std::size_t>(4, slots.triangles.size_bytes())) {
        slots_.reserve(std::max<std::size_t>(4, slots.triangles.size_bytes()));
        if (!slots.triangles.empty()) slots_.upload(0, slots.triangles.size_bytes(), slots.triangles.data());
    }
    if (slotsChanged || slotCorners_.size() < std::max<std::size_t>(16, slots.corners.size_bytes())) {
        slotCorners_.reserve(std::max<std::size_t>(16, slots.corners.size_bytes()));
        if (!slots.corners.empty()) slotCorners_.upload(0, slots.corners.size_bytes(), slots.corners.data());
    }
}

// At most the pixels a world box can reach in `view`: its extent in pixels across the view plus
// 2 pixels of slack each side (growth, float round-off), each side capped by the view's.
static float pixelsOf(const Aabb& b, const View& view, float invPixel) {
    const int u = (view.axis + 1) % 3, v = (view.axis + 2) % 3;
    const float nu = std::min((b.max[u] - b.min[u]) * invPixel + 5.0f, float(view.width));
    const float nv = std::min((b.max[v] - b.min[v]) * invPixel + 5.0f, float(view.height));
    return nu * nv;
}

std::uint32_t Passes::splitItems(const Level& level) {
    const bool split = !level.self && !level.queries && level.itemBoxes.size() == level.items.size();
    const std::uint64_t lanes = level.byBoxes ? kBoxLanes : 1;
    if (split && level.itemExtent >= 0.0f) {
        // Items laid out unsplit whose largest box fits one thread in every view: as they are
        // (no copy; the upload is skipped when the buffer holds them already).
        float invMax = 0.0f;
        for (const View& v : level.views) invMax = std::max(invMax, 1.0f / v.pixel);
        const float smallSide = std::sqrt(float(CULLIDE_PIXELS_PER_THREAD) * float(lanes)) - 5.0f;
        const std::uint64_t maxThreads =
            std::min<std::uint64_t>(std::uint64_t(maxGroupsX_) * kGroup, 0x7FFFFFFFu) / lanes;
        if (level.itemExtent * invMax <= smallSide && level.workCount <= maxThreads) {
            levelItems_ = level.items;
            itemPerGroup_ = !level.byBoxes && level.maxSlotCount > 0 && level.maxSlotCount <= kGroup &&
                            level.items.size() <= maxGroupsX_;
            return level.workCount;
        }
    }
    itemPerGroup_ = false;
    splitItems_.assign(level.items.begin(), level.items.end());
    levelItems_ = splitItems_;
    // The dispatch's x dimension holds at most GL_MAX_COMPUTE_WORK_GROUP_COUNT groups (65535 on
    // llvmpipe, the GL minimum): past that, one thread per slot, and the cut counter keeps the
    // level conservative.
    const std::uint64_t maxThreads = std::min<std::uint64_t>(std::uint64_t(maxGroupsX_) * kGroup, 0x7FFFFFFFu) / lanes;
    std::uint64_t threads = 0;
    std::uint32_t members = 0;
    const float per = float(CULLIDE_PIXELS_PER_THREAD) * float(lanes);
    std::vector<float> inv(level.views.size());
    float invMax = 0.0f;
    for (std::size_t v = 0; v < level.views.size(); ++v) {
        inv[v] = 1.0f / level.views[v].pixel;
        invMax = std::max(invMax, inv[v]);
    }
    // Every item this small in pixels along its longest side fits one thread in any view: the
    // common case (a pile's clusters), one test per item. (On the H100's host the per-view
    // bound for every item, in double, cost 0.8 ms a call at the cluster level:
    // bench/results/h100-2026-11-25-round-c-cullide.json, run_cluster_ms.)
    const float smallSide = std::sqrt(float(CULLIDE_PIXELS_PER_THREAD) * float(lanes)) - 5.0f;
    for (std::size_t i = 0; i < splitItems_.size(); ++i) {
        gl::CullideItem& it = splitItems_[i];
        float pixels = 0.0f;
        if (split) {
            const Vec3 e = level.itemBoxes[i].max - level.itemBoxes[i].min;
            if (std::max({e.x, e.y, e.z}) * invMax > smallSide)
                for (std::size_t v = 0; v < level.views.size(); ++v)
                    pixels = std::max(pixels, pixelsOf(level.itemBoxes[i], level.views[v], inv[v]));
        }
        const std::uint64_t k =
            pixels <= per ? 1 : std::clamp<std::uint64_t>(std::uint64_t(std::ceil(double(pixels) / per)), 1, 0xFFFF);
        it.flags = (it.flags & ((1u << CULLIDE_ITEM_SPLIT_SHIFT) - 1u)) | (k > 1 ? std::uint32_t(k) << CULLIDE_ITEM_SPLIT_SHIFT : 0u);
        it.memberStart = members;
        it.workStart = static_cast<std::uint32_t>(std::min<std::uint64_t>(threads, 0xFFFFFFFFu));
        members += it.slotCount;
        threads += std::uint64_t(it.slotCount) * k;
    }
    if (threads > maxThreads) {
        threads = 0;
        for (gl::CullideItem& it : splitItems_) {
            it.flags &= (1u << CULLIDE_ITEM_SPLIT_SHIFT) - 1u;
            it.workStart = static_cast<std::uint32_t>(threads);
            threads += it.slotCount;
        }
    }
    return static_cast<std::uint32_t>(threads);
}

void Passes::bindCommon(const Level& level, std::span<const gl::CullideItem> items, gl::Buffer& itemsBuffer,
                        gl::Buffer& aliveBuffer, bool seeded, bool clear) {
    scene_.bind();
    // (A split level's items are its own copy: no version.)
    uploadItems(itemsBuffer, items, &itemsBuffer == &items_ ? itemsHeld_ : chainItemsHeld_,
                items.data() == level.items.data() ? level.itemsVersion : 0);
    bindMembers(itemsBuffer, aliveBuffer, level.members(), !seeded, clear);
}

void Passes::bindMembers(gl::Buffer& itemsBuffer, gl::Buffer& aliveBuffer, std::size_t members, bool fillAlive,
                         bool clear) {
    aliveBuffer.reserveWithHeadroom(std::max<std::size_t>(4, members * 4));
    marks_.reserveWithHeadroom(std::max<std::size_t>(4, members * 4));
    // Every member starts in the PCS (unless seeded by the chain), unmarked.
    const GLuint one = 1;
    if (fillAlive)
        glClearNamedBufferSubData(aliveBuffer.id(), GL_R32UI, 0, static_cast<GLsizeiptr>(members * 4), GL_RED_INTEGER,
                                  GL_UNSIGNED_INT, &one);
    if (clear) {
        marks_.clearZero(0, members * 4);
        counters_.clearZero();
    }
    itemsBuffer.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_ITEMS);
    slots_.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_SLOTS);
    aliveBuffer.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_ALIVE);
    marks_.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_MARKS);
    counters_.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_COUNTERS);
}

void Passes::uploadItems(gl::Buffer& buffer, std::span<const gl::CullideItem> items,
                         std::vector<gl::CullideItem>& last, std::uint64_t version) {
    // The same items as last call (a pile whose pairs kept their objects): no upload.
    std::uint64_t& held = &buffer == &items_ ? itemsHeldVersion_ : chainItemsHeldVersion_;
    if (buffer.reserveWithHeadroom(std::max<std::size_t>(32, items.size_bytes()))) last.clear(), held = 0;
    if (version != 0 && held == version && last.size() == items.size()) return;
    held = version;
    if (last.size() == items.size() && std::memcmp(last.data(), items.data(), items.size_bytes()) == 0) return;
    buffer.upload(0, items.size_bytes(), items.data());
    last.assign(items.begin(), items.end());
}

void Passes::uploadStaticBoxes(std::size_t worldBytes) {
    // [static local boxes | this call's world boxes]; a re-created buffer gets the static ones again.
    const std::size_t staticBytes = staticBoxes_.size() * sizeof(glm::vec4);
    if (boxes_.reserveWithHeadroom(std::max<std::size_t>(32, staticBytes + worldBytes))) staticBoxesUploaded_ = false;
    if (!staticBoxesUploaded_ && staticBytes > 0) boxes_.upload(0, staticBytes, staticBoxes_.data());
    staticBoxesUploaded_ = true;
    boxes_.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_BOXES);
}

void Passes::setView(gl::Program& program, const View& view, float epsilon) const {
    program.setUniform("uAxis", static_cast<unsigned>(view.axis));
    program.setUniform("uOrigin", view.origin);
    program.setUniform("uInvPixel", 1.0f / view.pixel);
    program.setUniform("uInvDepth", 1.0f / view.depth);
    program.setUniform("uSize", glm::uvec2(view.width, view.height));
    program.setUniform("uEpsilon", epsilon);
}

Result<void> Passes::setFilterSubCount(bool on) {
    filterSubCount_ = on;
    if (!on || filterWideCount_.id() != 0) return {};
    auto p = gl::Program::create({{GL_COMPUTE_SHADER, "cullide/filter.glsl"}},
                                 "#define CULLIDE_FILTER_WIDE 1\n#define CULLIDE_FILTER_SUBCOUNT 1\n",
                                 "cullide filter (wide, sub-box counts)");
    if (!p) return fail(p.error().message);
    filterWideCount_ = std::move(*p);
    return {};
}

void Passes::setStaticBoxes(std::span<const glm::vec4> boxes) {
    staticBoxes_.assign(boxes.begin(), boxes.end());
    staticBoxesUploaded_ = false;
}

Result<void> Passes::run(const Level& level, std::vector<std::uint32_t>& alive, LevelResult& result) {
    issue(level, result);
    return collect(level.members(), level.name, alive, result);
}

void Passes::issue(const Level& level, LevelResult& result) {
    issuedAt_ = Clock::now();
    result = {};
    issued_ = false;
    if (level.items.empty() || level.workCount == 0 || level.views.empty()) return;
    glQueryCounter(begin_.id(), GL_TIMESTAMP);
    queueLevel(level, items_, alive_, Seed::All, true);
    result.threads = threads_;
    if (level.queries) result.queries = double(queriesIssued_);
    glQueryCounter(end_.id(), GL_TIMESTAMP);
    // The survivors and the counters into the mapped read-back buffer, then one fence.
    const std::size_t members = level.members();
    // (A mapping that fails shows at collect(): no data.)
    static_cast<void>(readback_.reserve((CULLIDE_COUNTER_COUNT + members) * 4));
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_CLIENT_MAPPED_BUFFER_BARRIER_BIT);
    readback_.copyFrom(counters_, 0, CULLIDE_COUNTER_COUNT * 4, 0);
    readback_.copyFrom(alive_, 0, members * 4, CULLIDE_COUNTER_COUNT * 4);
    fence_ = gl::Fence::insert();  // flushes
    readbackMembers_ = members;
    issued_ = true;
}

void Passes::queueLevel(const Level& level, gl::Buffer& itemsBuffer, gl::Buffer& aliveBuffer, Seed seed,
                        bool uploadClip) {
    queriesIssued_ = 0;
    ISC_ASSERT(!level.queries || !level.perSlot, "cullide::Passes::issue(): queries are per item");
    ISC_ASSERT(!level.byBoxes || (!level.queries && !level.self), "cullide::Passes::issue(): boxes are compute only");
    if (level.byBoxes) {
        const std::size_t staticBytes = staticBoxes_.size() * sizeof(glm::vec4);
        uploadStaticBoxes(level.boxes.size_bytes());
        if (!level.boxes.empty()) boxes_.upload(staticBytes, level.boxes.size_bytes(), level.boxes.data());
        for (gl::Program* p : {&splatBoxes_, &splatBoxesMulti_})
            p->setUniform("uWorldBoxBase", static_cast<unsigned>(staticBoxes_.size() / 2));
    }
    const unsigned clip = level.clip.empty() ? 0u : 1u;
    ISC_ASSERT(level.clip.empty() || level.clip.size() == 2 * (level.clipPerGroup ? level.groupCount : level.items.size()),
               "cullide::Passes::issue(): one clip box per item (or per group)");
    if (uploadClip) {
        clip_.reserveWithHeadroom(std::max<std::size_t>(32, level.clip.size_bytes()));
        if (clip) clip_.upload(0, level.clip.size_bytes(), level.clip.data());
    }
    clip_.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_CLIP);  // bound even when unused
    for (gl::Program* p : splatPrograms_) {
        p->setUniform("uClip", clip);
        p->setUniform("uClipPerGroup", level.clipPerGroup ? 1u : 0u);
    }
    threads_ = splitItems(level);
    for (gl::Program* p : splatPrograms_) p->setUniform("uItemPerGroup", itemPerGroup_ ? 1u : 0u);
    ISC_ASSERT(level.groupCount < (1u << 24), "cullide::Passes::issue(): too many groups");
    ISC_ASSERT(!level.queries || queries_, "cullide::Passes::issue(): the query programs were not compiled");
    bindCommon(level, levelItems_, itemsBuffer, aliveBuffer, seed != Seed::All, seed != Seed::PosedEarly);
    if (seed == Seed::Wanted) {
        // The chain's seed pass: the members of the wanted clusters start in the PCS.
        wanted_.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_WANTED);
        dispatchChain(1u, static_cast<std::uint32_t>(level.items.size()));
    } else if (seed == Seed::Posed) {
        // The pose pass (pose.glsl): the items' world boxes, and which reach a partner (its
        // buffers bound by runChain).
        dispatchPose(static_cast<std::uint32_t>(level.items.size()), level.epsilon);
    }
    const bool atOnce = level.viewsAtOnce && !level.self && !level.queries && level.views.size() > 1 &&
                        level.views.size() <= kMaxViewsAtOnce;
    if (atOnce) runComputeViews(level);
    LevelResult queryCount;
    for (std::size_t i = 0; i < level.views.size() && !atOnce; ++i) {
        const bool last = i + 1 == level.views.size();
        if (level.self) runSelfView(level, level.views[i], last);
        else if (level.queries) runQueryView(level, level.views[i], last, queryCount);
        else runComputeView(level, level.views[i], last);
    }
    queriesIssued_ = static_cast<std::size_t>(queryCount.queries);
}

std::size_t Passes::chainBoxVec4s(std::size_t items, std::size_t objectBoxes, bool posed) const {
    // The items' boxes (min, max), the groups' object boxes, then (posed, setObbPosed) the items'
    // oriented boxes, four vec4s each.
    return items * 2 + objectBoxes + (posed && obbPosed_ && obbPairs_ ? items * 4 : 0);
}

void Passes::dispatchPose(std::uint32_t n, float epsilon) {
    // With a deformed item: one workgroup per item (its triangles refit in parallel).
    const std::uint64_t groups = poseGroupPerItem_ ? n : (std::uint64_t(n) + kGroup - 1) / kGroup;
    const std::uint64_t x = std::min<std::uint64_t>(groups, maxGroupsX_);
    pose_.setUniform("uEpsilon", epsilon);
    pose_.setUniform("uCount", n);
    pose_.setUniform("uGroupPerItem", poseGroupPerItem_ ? 1u : 0u);
    pose_.setUniform("uCorners", poseCorners_ && !staticClusterVertices_.empty() ? 1u : 0u);
    pose_.setUniform("uLanePartners", posePartners_ ? 1u : 0u);
    pose_.setUniform("uObbBase", obbPosed_ && obbPairs_ ? obbBase_ : 0u);
    pose_.setUniform("uPairSeeds", pairSeedsCall_ ? 1u : 0u);
    pose_.use();
    if (n > 0) pose_.dispatch(static_cast<GLuint>(x), static_cast<GLuint>((groups + x - 1) / x));
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    glQueryCounter(posed_.id(), GL_TIMESTAMP);
}

void Passes::putPoseInputs(std::uint64_t itemsVersion, std::span<const std::uint32_t> itemBoxes,
                           std::span<const glm::vec4> objectBoxes, std::span<const std::uint32_t> partners) {
    auto put = [](gl::Buffer& b, const void* data, std::size_t bytes, GLuint binding) {
        b.reserveWithHeadroom(std::max<std::size_t>(32, bytes));
        if (bytes > 0) b.upload(0, bytes, data);
        b.bindBase(GL_SHADER_STORAGE_BUFFER, binding);
    };
    // The item boxes' indices go with the items (Level::itemsVersion): uploaded only when the
    // items were laid out again (cullide-10; a pile's calls keep them).
    if (itemsVersion == 0 || itemsVersion != itemBoxesVersion_ || itemBoxes_.size() < itemBoxes.size_bytes()) {
        itemBoxesVersion_ = 0;
        put(itemBoxes_, itemBoxes.data(), itemBoxes.size_bytes(), CULLIDE_BINDING_ITEM_BOXES);
        poseGroupPerItem_ = std::any_of(itemBoxes.begin(), itemBoxes.end(),
                                        [](std::uint32_t b) { return (b & CULLIDE_ITEM_BOX_DEFORMED_BIT) != 0; });
        itemBoxesVersion_ = itemsVersion;
    } else {
        itemBoxes_.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_ITEM_BOXES);
    }
    // The groups' object boxes after the items' boxes in chainBoxes_ (reserved by the caller):
    // the pose pass writes the items' part and reads these, the pair pass's object cut too.
    if (!objectBoxes.empty())
        chainBoxes_.upload(itemBoxes.size() * 2 * sizeof(glm::vec4), objectBoxes.size_bytes(), objectBoxes.data());
    // The items' oriented boxes after them (setObbPosed: room reserved by the caller, chainBoxVec4s).
    obbBase_ = static_cast<std::uint32_t>(itemBoxes.size() * 2 + objectBoxes.size());
    put(partners_, partners.data(), partners.size_bytes(), CULLIDE_BINDING_PARTNERS);
    uploadStaticBoxes(0);
    // The static clusters' corners (deformed boxes, setPoseCorners): once per set of meshes.
    if (clusterVertices_.reserve(std::max<std::size_t>(32, staticClusterVertices_.size() * 4)))
        staticClusterVerticesUploaded_ = false;
    if (!staticClusterVerticesUploaded_ && !staticClusterVertices_.empty())
        clusterVertices_.upload(0, staticClusterVertices_.size() * 4, staticClusterVertices_.data());
    staticClusterVerticesUploaded_ = true;
    clusterVertices_.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_CLUSTER_VERTICES);
    chainBoxes_.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_CHAIN_BOXES);
}

void Passes::markFirstFlush() {
    glFlush();
    flushedAt_ = Clock::now();
    if (timeline_) glGetInteger64v(GL_TIMESTAMP, &gpuAtFlush_);
}

void Passes::startChain(const ChainStart& start) {
    // runChain's first steps up to its pose pass, for the cluster level's items as laid out: the
    // items, the pose pass's inputs, the members' flags and the counters (bindCommon's part).
    const std::size_t nItems = start.items.size();
    pairSeedsCall_ = pairSeeds_ && earlyPairs_ && start.earlyPairsNext;
    ISC_ASSERT(pairSeedsCall_ || !start.partners.empty(),
               "cullide::Passes::startChain(): the partner cut needs the partner lists");
    glQueryCounter(begin_.id(), GL_TIMESTAMP);
    chainBoxes_.reserveWithHeadroom(
        std::max<std::size_t>(32, chainBoxVec4s(nItems, start.objectBoxes.size(), true) * sizeof(glm::vec4)));
    putPoseInputs(start.itemsVersion, start.itemBoxes, start.objectBoxes, start.partners);
    scene_.bind();
    uploadItems(items_, start.items, itemsHeld_, start.itemsVersion);
    bindMembers(items_, alive_, nItems, /*fillAlive=*/false, /*clear=*/true);  // the pose pass seeds the flags
    dispatchPose(static_cast<std::uint32_t>(nItems), start.epsilon);
    earlyPairsQueued_ = false;
    markFirstFlush();
}

void Passes::queueEarlyPairs(std::span<const gl::CullideChainPair> pairs, std::uint32_t pairThreads,
                             std::uint32_t pairSplit, std::size_t nItems, float epsilon) {
    if (!earlyPairs_ || pairs.empty()) return;
    // (The filter's list, checked for survivors later.)
    queuePairPass(pairs, pairThreads, pairSplit, nItems, true, true, epsilon, true);
    glQueryCounter(earlyPaired_.id(), GL_TIMESTAMP);
    earlyPairsQueued_ = true;
    glFlush();
}

void Passes::queuePairPass(std::span<const gl::CullideChainPair> pairs, std::uint32_t pairThreads,
                           std::uint32_t pairSplit, std::size_t nItems, bool filter, bool posed, float epsilon,
                           bool early) {
    const std::size_t nPairs = pairs.size();
    chainPairs_.reserveWithHeadroom(std::max<std::size_t>(32, pairs.size_bytes()));
    chainPairs_.upload(0, pairs.size_bytes(), pairs.data());
    wanted_.reserveWithHeadroom(std::max<std::size_t>(4, nItems * 4));
    wanted_.clearZero(0, nItems * 4);
    keep_.reserveWithHeadroom(std::max<std::size_t>(4, nPairs * 4));
    keep_.clearZero(0, nPairs * 4);
    chainPairs_.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_CHAIN_PAIRS);
    chainBoxes_.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_CHAIN_BOXES);
    wanted_.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_WANTED);
    keep_.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_KEEP);
    chainCounters_.reserve(CULLIDE_CHAIN_COUNTER_COUNT * 4);
    chainCounters_.clearZero(0, CULLIDE_CHAIN_COUNTER_COUNT * 4);
    chainCounters_.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_CHAIN_COUNTERS);
    clusterPairs_.reserve(std::size_t(filter ? clusterPairCapacity_ : 1u) * 16);
    clusterPairs_.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_CLUSTER_PAIRS);
    chain_.setUniform("uClusterPairCapacity", filter ? clusterPairCapacity_ : 0u);
    chain_.setUniform("uPairCount", static_cast<unsigned>(nPairs));
    // (A split past 2^31 threads falls back to one thread per cluster of A.)
    const std::uint32_t split = std::uint64_t(pairThreads) * std::max<std::uint32_t>(1u, pairSplit) < (1ull << 31)
                                    ? std::max<std::uint32_t>(1u, pairSplit)
                                    : 1u;
    chain_.setUniform("uPairSplit", split);
    chain_.setUniform("uObbPairs", obbPairs_ && posed ? 1u : 0u);  // (the item boxes are bound)
    chain_.setUniform("uObbBase", obbPairs_ && posed && obbPosed_ ? obbBase_ : 0u);  // (the pose pass wrote them)
    // (The object boxes are the pose pass's, bound by putPoseInputs: `posed` only.)
    chain_.setUniform("uObjectCut", objectCut_ && posed ? 1u : 0u);
    chain_.setUniform("uObjectBoxBase", static_cast<unsigned>(nItems));
    chain_.setUniform("uEpsilon", epsilon);
    chain_.setUniform("uEarly", early ? 1u : 0u);
    chain_.setUniform("uPairSeeds", early && pairSeedsCall_ ? 1u : 0u);
    // Pair rows (setPairRows): a row of workgroups per pair, as long as the longest pair's threads,
    // while the rows' threads are at most twice those needed (a pile's pairs are alike; one pair
    // of many clusters among small ones would leave most rows idle: then the search).
    std::uint64_t longest = 0;
    for (const gl::CullideChainPair& p : pairs) longest = std::max<std::uint64_t>(longest, p.countA);
    const std::uint64_t rowGroups = (longest * split + kGroup - 1) / kGroup;
    const bool rows = pairRows_ && nPairs > 0 && nPairs <= 65535 && rowGroups <= maxGroupsX_ &&
                      nPairs * rowGroups * kGroup <= 2 * (std::uint64_t(pairThreads) * split + kGroup);
    chain_.setUniform("uPairRows", rows ? 1u : 0u);
    chain_.setUniform("uPairLoads", pairLoads_ ? 1u : 0u);
    pairRowsUsed_ = rows;
    dispatchChain(0u, pairThreads * split, rows ? rowGroups : 0, nPairs);
}

void Passes::dispatchChain(unsigned mode, std::uint32_t threads, std::uint64_t rowGroups, std::uint64_t rowCount) {
    if (threads == 0) return;
    const std::uint64_t groups = (std::uint64_t(threads) + kGroup - 1) / kGroup;
    const std::uint64_t x = rowGroups > 0 ? rowGroups : std::min<std::uint64_t>(groups, maxGroupsX_);
    const std::uint64_t y = rowGroups > 0 ? rowCount : (groups + x - 1) / x;
    chain_.setUniform("uMode", mode);
    chain_.setUniform("uCount", threads);
    chain_.use();
    chain_.dispatch(static_cast<GLuint>(x), static_cast<GLuint>(y));
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
}

Result<void> Passes::runChain(const Chain& chain, ChainResult& out) {
    const auto t0 = Clock::now();
    out = {};
    ISC_ASSERT(chain.cluster != nullptr && !chain.cluster->perSlot && !chain.cluster->queries && !chain.cluster->self,
               "cullide::Passes::runChain(): the cluster level is per item, compute");
    ISC_ASSERT(chain.poseItems ? chain.itemBoxes.size() == chain.cluster->items.size()
                               : chain.clusterBoxes.size() == 2 * chain.cluster->items.size(),
               "cullide::Passes::runChain(): one box per cluster item");
    ISC_ASSERT(chain.triangle == nullptr ||
                   (chain.triangle->perSlot && chain.triangle->items.size() == chain.cluster->items.size()),
               "cullide::Passes::runChain(): the triangle level has the cluster level's items, per slot");
    const Level& cl = *chain.cluster;
    const std::size_t nPairs = chain.pairs.size();
    out.keep.assign(nPairs, 0u);
    if (cl.items.empty() || cl.workCount == 0 || cl.views.empty() || nPairs == 0) return {};
    const std::size_t nItems = cl.items.size();
    ISC_ASSERT(!chain.started || chain.poseItems, "cullide::Passes::runChain(): only the pose pass starts early");
    if (!chain.started) {  // else startChain queued the pose pass and flushed; its buffers stay bound
        pairSeedsCall_ = false;  // (the pose pass below seeds the PCS)
        glQueryCounter(begin_.id(), GL_TIMESTAMP);
        chainBoxes_.reserveWithHeadroom(std::max<std::size_t>(
            32, chainBoxVec4s(nItems, chain.poseItems ? chain.objectBoxes.size() : 0, chain.poseItems) *
                    sizeof(glm::vec4)));
        if (chain.poseItems) {
            // The pose pass's inputs (it runs at the start of the cluster level, seeding its PCS).
            putPoseInputs(cl.itemsVersion, chain.itemBoxes, chain.objectBoxes, chain.partners);
        } else {
            chainBoxes_.upload(0, chain.clusterBoxes.size_bytes(), chain.clusterBoxes.data());
        }
    }
    chainClusterLevel_ = true;
    groupUpdated_ = false;
    passQueued_ = false;
    queueLevel(cl, items_, alive_, chain.started ? Seed::PosedEarly : chain.poseItems ? Seed::Posed : Seed::All, true);
    chainClusterLevel_ = false;
    out.groupUpdate = groupUpdated_;
    out.passTimes = passTimes_ && passQueued_;
    if (out.passTimes) glQueryCounter(passQ_[4].id(), GL_TIMESTAMP);
    glQueryCounter(clustered_.id(), GL_TIMESTAMP);
    out.cluster.threads = threads_;
    // The GPU starts on the cluster level while the rest is prepared and queued (with
    // chain.started it runs the pose pass already: this flush hands it the splats).
    if (chain.started) {
        glFlush();
        out.betweenFlushesMs = msSince(flushedAt_);
    } else {
        markFirstFlush();
    }
    out.flushedAt = flushedAt_;
    const bool filter = chain.filter && chain.triangle != nullptr;
    const std::size_t members = chain.triangle != nullptr ? chain.triangle->members() : 0;
    const std::size_t words = (members + 31) / 32;
    const std::size_t chainAt = 2 * CULLIDE_COUNTER_COUNT, keepAt = chainAt + CULLIDE_CHAIN_COUNTER_COUNT,
                      bitsAt = keepAt + nPairs;
    const bool triangles = chain.triangle != nullptr && members > 0 && !chain.triangle->views.empty();
    // Without the triangle level's passes, with the filter: every triangle of a wanted cluster is
    // a survivor, and the filter only reads clusters the pair pass listed (all wanted), so neither
    // the seed nor the pack pass runs (two dependent dispatches less); the wanted flags are read
    // back instead of the bits, and the survivors made from them on the CPU where needed.
    const bool fromWanted = triangles && !chain.triangleVisibility && filter;
    // setEarlyPairs: startChain queued the pair pass already; it serves only a chain that ends in
    // the filter with the wanted flags (else the pair pass runs again here, its lists cleared).
    const bool early = chain.started && earlyPairsQueued_ && fromWanted;
    earlyPairsQueued_ = false;
    out.earlyPairs = early;
    // The pair pass: reads the cluster level's alive flags (still bound) and its cut counter.
    if (!early)
        queuePairPass(chain.pairs, chain.pairThreads, chain.pairSplit, nItems, filter, chain.poseItems,
                      cl.epsilon, false);
    out.pairRows = pairRowsUsed_;  // (this call's pair pass: queued early, or just now)
    glQueryCounter(mid_.id(), GL_TIMESTAMP);
    // The cluster level's counters before the triangle level clears them.
    const std::size_t bitsWords = fromWanted ? std::max(words, nItems) : words;
    const std::size_t outputAt = bitsAt + bitsWords;
    if (auto r = readback_.reserve((outputAt + (filter ? 3 * std::size_t(outputCapacity_) : 0)) * 4); !r) return r;
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    readback_.copyFrom(counters_, 0, CULLIDE_COUNTER_COUNT * 4, 0);
    if (triangles) {
        const Level& tl = *chain.triangle;
        if (chain.triangleVisibility) {
            // Same clusters, same clip boxes: the clip buffer is not uploaded again.
            queueLevel(tl, chainItems_, chainAlive_, Seed::Wanted, false);
            out.triangle.threads = threads_;
        } else {
            // Only the seed: the wanted clusters' triangles are the level's survivors.
            threads_ = splitItems(tl);
            if (fromWanted) {
                // Only the items, for the filter (no PCS: nothing to seed, mark or count).
                uploadItems(chainItems_, levelItems_, chainItemsHeld_,
                            levelItems_.data() == tl.items.data() ? tl.itemsVersion : 0);
                chainItems_.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_ITEMS);
            } else {
                bindCommon(tl, levelItems_, chainItems_, chainAlive_, true);
                wanted_.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_WANTED);
                dispatchChain(1u, static_cast<std::uint32_t>(tl.items.size()));
            }
        }
        if (!fromWanted) {
            bits_.reserveWithHeadroom(std::max<std::size_t>(4, words * 4));
            bits_.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_BITS);
            chainAlive_.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_ALIVE);
            chain_.setUniform("uMembers", static_cast<unsigned>(members));
            dispatchChain(2u, static_cast<std::uint32_t>(words));
        }
    }
    glQueryCounter(end_.id(), GL_TIMESTAMP);
    // The filter: indirect arguments from the cluster pairs appended, then one workgroup each
    // (items, slots, the triangle level's alive flags and the scene are still bound).
    std::uint32_t copied = 0;  // triangle pairs copied with the first fence
    if (triangles && filter) {
        output_.reserve(std::size_t(outputCapacity_) * 12);
        output_.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_OUTPUT);
        gl::Program& filterProgram = wideFilter_ ? (filterSubCount_ ? filterWideCount_ : filterWide_) : filter_;
        filterProgram.setUniform("uClusterPairCapacity", clusterPairCapacity_);
        filterProgram.setUniform("uOutputCapacity", outputCapacity_);
        filterProgram.setUniform("uMaxGroups", std::min<std::uint32_t>(maxGroupsX_, 65535u));
        filterProgram.setUniform("uTolerance", chain.tolerance);
        filterProgram.setUniform("uAllAlive", fromWanted ? 1u : 0u);
        filterProgram.setUniform("uCheckClusters", early ? 1u : 0u);
        // (slotCorners_: uploaded with the slots, uploadSlots().)
        if (slotCornersOn_) slotCorners_.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_SLOT_CORNERS);
        filterProgram.setUniform("uSlotCorners", slotCornersOn_ ? 1u : 0u);
        filterProgram.setUniform("uMode", 0u);
        filterProgram.use();
        filterProgram.dispatch(1);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_COMMAND_BARRIER_BIT);
        filterProgram.setUniform("uMode", 1u);
        glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, chainCounters_.id());
        glDispatchComputeIndirect(static_cast<GLintptr>(CULLIDE_CHAIN_ARGS * 4));
        glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, 0);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
        glQueryCounter(filterEnd_.id(), GL_TIMESTAMP);
        // The list's length is on the GPU: copy what the last call needed and some more; a
        // longer list gets a second copy below.
        copied = std::min(outputCapacity_, lastOutput_ + lastOutput_ / 4 + 4096u);
    }
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_CLIENT_MAPPED_BUFFER_BARRIER_BIT);
    if (triangles && !fromWanted)
        readback_.copyFrom(counters_, 0, CULLIDE_COUNTER_COUNT * 4, CULLIDE_COUNTER_COUNT * 4);
    readback_.copyFrom(keep_, 0, nPairs * 4, keepAt * 4);
    if (filter) {
        readback_.copyFrom(chainCounters_, 0, CULLIDE_CHAIN_COUNTER_COUNT * 4, chainAt * 4);
        if (copied > 0)
            readback_.copyFrom(output_, 0, std::size_t(copied) * 12, outputAt * 4);
    }
    if (fromWanted)
        readback_.copyFrom(wanted_, 0, nItems * 4, bitsAt * 4);
    else if (triangles && words > 0)
        readback_.copyFrom(bits_, 0, words * 4, bitsAt * 4);
    if (timeline_) glQueryCounter(done_.id(), GL_TIMESTAMP);
    fence_ = gl::Fence::insert();  // flushes
    out.issueMs = msSince(t0);
    if (spent_ != nullptr) spent_->clear();  // the caller's last pairs, freed while the GPU runs (setSpent)
    if (chain.afterIssue) {
        const auto ta = Clock::now();
        chain.afterIssue();  // the caller's CPU work while the GPU runs
        out.afterIssueMs = msSince(ta);
    }
    const auto tr = Clock::now();
    // The wait inside a team (Chain::waitTeam): its threads are awake for the exact test, and run
    // `whileWaiting` meanwhile (speculation). 60 s: a GPU reset must not hang the caller.
    const bool finished = gl::waitInTeam(fence_, std::uint64_t(60) * 1000000000, chain.waitTeam, chain.whileWaiting);
    out.waitedAt = Clock::now();
    out.waitMs = msSince(tr);
    GLint64 gpuAtWake = 0;
    if (timeline_) glGetInteger64v(GL_TIMESTAMP, &gpuAtWake);
    fence_ = gl::Fence();
    if (!finished) return fail("cullide: the GPU did not finish the chained cluster and triangle levels within 60 s");
    const std::uint32_t* map = readback_.at<std::uint32_t>(0);
    std::uint32_t counters[2][CULLIDE_COUNTER_COUNT] = {};
    std::memcpy(counters, map, sizeof(counters));
    if (fromWanted) std::fill(std::begin(counters[1]), std::end(counters[1]), 0u);  // (not copied: no triangle passes)
    std::memcpy(out.keep.data(), map + keepAt, nPairs * 4);
    // setEarlyPairs with a cluster pair list past its capacity: the filter saw only part of it, so
    // its keep and wanted flags are incomplete: every pair kept and every cluster wanted
    // (conservative; this call's survivors are tested on the CPU, below).
    const bool everyWanted = early && map[chainAt + CULLIDE_CHAIN_CLUSTER_PAIRS] > clusterPairCapacity_;
    if (everyWanted) std::fill(out.keep.begin(), out.keep.end(), 1u);
    out.bits.assign(words, 0u);
    if (triangles && words > 0 && !fromWanted) std::memcpy(out.bits.data(), map + bitsAt, words * 4);
    const double readbackMs = msSince(tr);
    out.copyMs = msSince(out.waitedAt);
    const double begin = double(begin_.result()), mid = double(mid_.result());
    out.cluster.gpuMs = (mid - begin) * 1e-6;
    if (timeline_) {
        const double done = double(done_.result());
        out.timeline = true;
        out.startLagMs = (begin - double(gpuAtFlush_)) * 1e-6;
        out.spanMs = (done - begin) * 1e-6;
        out.wakeLagMs = (double(gpuAtWake) - done) * 1e-6;
    }
    if (chain.poseItems) out.poseGpuMs = (double(posed_.result()) - begin) * 1e-6;
    if (chain.poseItems && poseChecksum_) {
        // (Test hook: the boxes bit for bit, as a sum of mixed words modulo 2^32. Reading a working
        // buffer back can make the NVIDIA driver move it to host memory, "Without the chain" in
        // cullide.md: off by default, never in a bench.)
        std::vector<std::uint32_t> boxWords(nItems * 8);
        chainBoxes_.read(0, boxWords.size() * 4, boxWords.data());
        std::uint32_t sum = 0;
        for (std::size_t i = 0; i < boxWords.size(); ++i) {
            std::uint64_t h = (std::uint64_t(boxWords[i]) + 0x9E3779B97F4A7C15ull * (i + 1)) * 0xBF58476D1CE4E5B9ull;
            sum += std::uint32_t(h >> 32);
        }
        out.poseChecksum = double(sum);
    }
    if (out.passTimes) {
        double t = chain.poseItems ? double(posed_.result()) : begin;
        for (int k = 0; k < 5; ++k) {
            const double q = double(passQ_[k].result());
            out.passMs[k] = (q - t) * 1e-6;
            t = q;
        }
    }
    out.pairGpuMs = early ? (double(earlyPaired_.result()) - double(posed_.result())) * 1e-6
                          : (mid - double(clustered_.result())) * 1e-6;
    out.cluster.readbackMs = readbackMs;
    out.cluster.fragments = counters[0][CULLIDE_COUNTER_FRAGMENTS];
    out.cluster.alive = counters[0][CULLIDE_COUNTER_ALIVE];
    out.clusterSeeded = chain.poseItems ? counters[0][CULLIDE_COUNTER_SEEDED] : static_cast<std::uint32_t>(nItems);
    out.cluster.cut = counters[0][CULLIDE_COUNTER_CUT];
    if (out.cluster.cut != 0) out.cluster.alive = static_cast<std::uint32_t>(nItems);
    if (triangles) {
        out.triangle.gpuMs = (double(end_.result()) - mid) * 1e-6;
        out.triangle.fragments = counters[1][CULLIDE_COUNTER_FRAGMENTS];
        out.triangle.alive = counters[1][CULLIDE_COUNTER_ALIVE];
        out.triangle.cut = counters[1][CULLIDE_COUNTER_CUT];
        out.seeded = counters[1][CULLIDE_COUNTER_SEEDED];
        if (fromWanted) {
            // The wanted clusters' triangles (the seed pass's count, on the CPU).
            const std::uint32_t* wanted = map + bitsAt;
            std::uint32_t seeded = 0;
            // (cullide-13) No branch: about a quarter of the flags are 0 in no pattern, and a
            // branch per item cost 0.04-0.06 ms over a pile's 7.5K items on llvmpipe's host.
            const std::span<const gl::CullideItem> items = chain.triangle->items;
            for (std::size_t i = 0; i < nItems; ++i)
                seeded += items[i].slotCount & (0u - static_cast<std::uint32_t>(wanted[i] != 0 || everyWanted));
            out.seeded = seeded;
        }
        if (!chain.triangleVisibility) out.triangle.alive = out.seeded;
        if (out.triangle.cut != 0) {
            // A thread of the triangle level had more pixels than its loop may visit: nothing of
            // the level is pruned (every member of the chained clusters stays).
            std::fill(out.bits.begin(), out.bits.end(), 0xFFFFFFFFu);
            if (members % 32 != 0) out.bits.back() = (1u << (members % 32)) - 1u;
            out.triangle.alive = static_cast<std::uint32_t>(members);
        }
    }
    if (triangles && filter) {
        std::uint32_t cc[CULLIDE_CHAIN_COUNTER_COUNT] = {};
        std::memcpy(cc, map + chainAt, sizeof(cc));
        out.clusterPairs = cc[CULLIDE_CHAIN_CLUSTER_PAIRS];
        out.boxPairs = cc[CULLIDE_CHAIN_BOX_PAIRS];
        out.emptyPairs = cc[CULLIDE_CHAIN_EMPTY_PAIRS];
        out.noSubBoxPairs = cc[CULLIDE_CHAIN_NO_SUBBOX_PAIRS];
        out.noTightPairs = cc[CULLIDE_CHAIN_NO_TIGHT_PAIRS];
        out.filterGpuMs = (double(filterEnd_.result()) - double(end_.result())) * 1e-6;
        const std::uint32_t listed = cc[CULLIDE_CHAIN_OUTPUT];
        if (cc[CULLIDE_CHAIN_CLUSTER_PAIRS] > clusterPairCapacity_ || listed > outputCapacity_ ||
            out.triangle.cut != 0 || out.cluster.cut != 0) {
            // A list overflowed (or a level kept everything): this call tests the survivors on
            // the CPU; the next one gets room for what this one needed.
            while (clusterPairCapacity_ < cc[CULLIDE_CHAIN_CLUSTER_PAIRS] && clusterPairCapacity_ < (1u << 30))
                clusterPairCapacity_ *= 2;
            while (outputCapacity_ < listed && outputCapacity_ < (1u << 28)) outputCapacity_ *= 2;
        } else {
            if (listed > copied) {
                // The rest of the list: one more copy and fence (rare: the list grew by more
                // than a quarter since the last call).
                readback_.copyFrom(output_, std::size_t(copied) * 12, std::size_t(listed - copied) * 12,
                                   outputAt * 4 + std::size_t(copied) * 12);
                if (auto r = gl::waitForGpu("cullide, copying the filter's triangle pairs"); !r) return r;
            }
            out.tests = std::span<const std::uint32_t>(map + outputAt, 3 * std::size_t(listed));
            out.listed = true;
        }
        lastOutput_ = listed;
    }
    if (fromWanted && !out.listed && out.triangle.cut == 0) {
        // The survivors for the CPU's pairing: every member of a wanted cluster (its slots in order).
        const std::uint32_t* wanted = map + bitsAt;
        for (std::size_t i = 0; i < nItems; ++i) {
            if (wanted[i] == 0 && !everyWanted) continue;
            const gl::CullideItem& it = chain.triangle->items[i];
            for (std::uint32_t m = it.memberStart; m < it.memberStart + it.slotCount; ++m) out.bits[m / 32] |= 1u << (m % 32);
        }
    }
    if (auto e = gl::checkError("after the cullide chain"); !e) return e;
    out.readMs = msSince(out.waitedAt);
    out.runMs = msSince(t0) - out.afterIssueMs;
    return {};
}

Result<void> Passes::collect(std::size_t members, const char* name, std::vector<std::uint32_t>& alive,
                             LevelResult& result) {
    alive.assign(members, 0u);
    if (!issued_) return {};
    issued_ = false;
    const auto tr = Clock::now();
    ISC_ASSERT(members == readbackMembers_, "cullide::Passes::collect(): not the level issued");
    if (readback_.data() == nullptr) return fail("cullide: the read-back buffer could not be mapped");
    const bool finished = fence_.wait(std::uint64_t(60) * 1000000000);  // a GPU reset must not hang the caller
    fence_ = gl::Fence();
    if (!finished) return fail(std::string("cullide: the GPU did not finish the ") + name + " level within 60 s");
    const std::uint32_t* map = readback_.at<std::uint32_t>(0);
    std::uint32_t counters[CULLIDE_COUNTER_COUNT] = {};
    std::memcpy(counters, map, sizeof(counters));
    if (members > 0) std::memcpy(alive.data(), map + CULLIDE_COUNTER_COUNT, members * 4);
    result.readbackMs = msSince(tr);
    result.gpuMs = double(end_.result() - begin_.result()) * 1e-6;
    result.fragments = counters[CULLIDE_COUNTER_FRAGMENTS];
    result.overflow = counters[CULLIDE_COUNTER_OVERFLOW];
    result.alive = counters[CULLIDE_COUNTER_ALIVE];
    result.cut = counters[CULLIDE_COUNTER_CUT];
    if (counters[CULLIDE_COUNTER_CUT] != 0) {
        // Some thread had more pixels than its loop may visit (bindings.h): its fragments may be
        // incomplete, so nothing of the level is pruned.
        alive.assign(members, 1u);
        result.alive = static_cast<std::uint32_t>(members);
    }
    if (auto e = gl::checkError(std::string("after cullide ") + name + " level"); !e) return e;
    result.runMs = msSince(issuedAt_);
    return {};
}

void Passes::runComputeView(const Level& level, const View& view, bool last) {
    const std::size_t pixels = std::size_t(view.width) * view.height;
    depth_.reserveWithHeadroom(pixels * 16);
    // Front words start at "nothing nearer" (all ones), back words at "nothing farther" (0).
    const GLuint clear[4] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0u, 0u};
    glClearNamedBufferSubData(depth_.id(), GL_RGBA32UI, 0, static_cast<GLsizeiptr>(pixels * 16), GL_RGBA_INTEGER,
                              GL_UNSIGNED_INT, clear);
    depth_.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_DEPTH);
    const GLuint lanes = level.byBoxes ? kBoxLanes : 1;
    // (The chain's cluster level of one view, one workgroup per item: the update in the query
    // pass's workgroups, setGroupUpdate.)
    const bool fold = chainClusterLevel_ && groupUpdate_ && last && level.views.size() == 1 && itemPerGroup_ && !level.perSlot;
    const std::uint32_t full = CULLIDE_MARK_FRONT | CULLIDE_MARK_BACK;
    // The passes' programs: one for every mode (its mode a uniform), or (triangles,
    // splatPerMode_) the key's and the query's own, mode 1 (without the pushed second) the former.
    const bool perMode = splatPerMode_ && !level.byBoxes;
    gl::Program& generic = level.byBoxes ? splatBoxes_ : splat_;
    gl::Program* programs[3] = {perMode ? &splatKey_ : &generic, pushSecond_ ? nullptr : &generic,
                                perMode ? &splatQuery_ : &generic};
    for (int k = 0; k < 3; ++k) {
        if (programs[k] == nullptr || std::find(programs, programs + k, programs[k]) != programs + k) continue;
        gl::Program& splat = *programs[k];
        setView(splat, view, level.epsilon);
        splat.setUniform("uItemCount", static_cast<unsigned>(level.items.size()));
        splat.setUniform("uWorkCount", threads_);
        splat.setUniform("uIdBits", idBitsFor(level.groupCount));
        splat.setUniform("uPerSlot", level.perSlot ? 1u : 0u);
        splat.setUniform("uGroupUpdate", fold ? 1u : 0u);
        splat.setUniform("uFullMask", full);
        splat.setUniform("uPushSecond", pushSecond_ ? 1u : 0u);
    }
    if (chainClusterLevel_ && passTimes_) glQueryCounter(passQ_[0].id(), GL_TIMESTAMP), passQueued_ = true;
    for (unsigned mode = 0; mode < 3; ++mode) {
        // (With the second pushed in mode 0 there is no mode 1 pass; its timestamp reads 0.)
        if (programs[mode] != nullptr) {
            gl::Program& splat = *programs[mode];
            splat.use();
            if (&splat == &generic) splat.setUniform("uMode", mode);
            splat.dispatch(itemPerGroup_ ? static_cast<GLuint>(level.items.size())
                                         : groupsFor(std::size_t(threads_) * lanes));
            glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
        }
        if (chainClusterLevel_ && passTimes_) glQueryCounter(passQ_[1 + mode].id(), GL_TIMESTAMP);
    }
    if (fold) {
        groupUpdated_ = true;
        return;
    }
    update_.setUniform("uUnitCount", static_cast<unsigned>(level.members()));
    update_.setUniform("uLast", last ? 1u : 0u);
    update_.setUniform("uFullMask", full);
    update_.use();
    update_.dispatch(groupsFor(level.members()));
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
}

// Every view of the level in one dispatch per pass (gl_GlobalInvocationID.y: the view), each
// in its own range of depth words and its own two mark bits; one update keeps the members
// hidden from both sides in every view. One clear, three splat passes and one update for the
// level, instead of that per view.
void Passes::runComputeViews(const Level& level) {
    const std::size_t nv = level.views.size();
    std::size_t pixels = 0;
    std::uint32_t base[kMaxViewsAtOnce] = {};
    for (std::size_t v = 0; v < nv; ++v) {
        base[v] = static_cast<std::uint32_t>(pixels);
        pixels += std::size_t(level.views[v].width) * level.views[v].height;
    }
    depth_.reserveWithHeadroom(pixels * 16);
    const GLuint clear[4] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0u, 0u};
    glClearNamedBufferSubData(depth_.id(), GL_RGBA32UI, 0, static_cast<GLsizeiptr>(pixels * 16), GL_RGBA_INTEGER,
                              GL_UNSIGNED_INT, clear);
    depth_.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_DEPTH);
    gl::Program& splat = level.byBoxes ? splatBoxesMulti_ : splatMulti_;
    for (std::size_t v = 0; v < nv; ++v) {
        const View& view = level.views[v];
        // Element names of the uniform arrays ("uViewAxis[1]"); snprintf, not string sums
        // (GCC 12's -Wrestrict misfires on those at -O3).
        char name[32];
        auto at = [&](const char* array) {
            std::snprintf(name, sizeof name, "%s[%zu]", array, v);
            return std::string_view(name);
        };
        splat.setUniform(at("uViewAxis"), static_cast<unsigned>(view.axis));
        splat.setUniform(at("uViewOrigin"), view.origin);
        splat.setUniform(at("uViewInvPixel"), 1.0f / view.pixel);
        splat.setUniform(at("uViewInvDepth"), 1.0f / view.depth);
        splat.setUniform(at("uViewSize"), glm::uvec2(view.width, view.height));
        splat.setUniform(at("uViewBase"), base[v]);
    }
    splat.setUniform("uEpsilon", level.epsilon);
    splat.setUniform("uItemCount", static_cast<unsigned>(level.items.size()));
    splat.setUniform("uWorkCount", threads_);
    splat.setUniform("uIdBits", idBitsFor(level.groupCount));
    splat.setUniform("uPerSlot", level.perSlot ? 1u : 0u);
    const GLuint lanes = level.byBoxes ? kBoxLanes : 1;
    const std::uint32_t full = (1u << (2 * nv)) - 1u;
    splat.setUniform("uGroupUpdate", 0u);  // (a view's workgroups see only their view's marks)
    splat.setUniform("uFullMask", full);
    if (chainClusterLevel_ && passTimes_) glQueryCounter(passQ_[0].id(), GL_TIMESTAMP), passQueued_ = true;
    splat.setUniform("uPushSecond", pushSecond_ ? 1u : 0u);
    splat.use();
    for (unsigned mode = 0; mode < 3; ++mode) {
        if (mode != 1 || !pushSecond_) {
            splat.setUniform("uMode", mode);
            splat.dispatch(itemPerGroup_ ? static_cast<GLuint>(level.items.size())
                                         : groupsFor(std::size_t(threads_) * lanes),
                           static_cast<GLuint>(nv));
            glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
        }
        if (chainClusterLevel_ && passTimes_) glQueryCounter(passQ_[1 + mode].id(), GL_TIMESTAMP);
    }
    update_.setUniform("uUnitCount", static_cast<unsigned>(level.members()));
    update_.setUniform("uLast", 1u);
    update_.setUniform("uFullMask", full);
    update_.use();
    update_.dispatch(groupsFor(level.members()));
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
}

void Passes::runSelfView(const Level& level, const View& view, bool last) {
    const std::size_t pixels = std::size_t(view.width) * view.height;
    selfCount_.reserveWithHeadroom(pixels * 4);
    selfEntries_.reserveWithHeadroom(pixels * std::size_t(selfLayers_) * 8);
    selfCount_.clearZero(0, pixels * 4);
    selfCount_.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_SELF_COUNT);
    selfEntries_.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_SELF_ENTRIES);
    setView(self_, view, level.epsilon);
    self_.setUniform("uItemCount", static_cast<unsigned>(level.items.size()));
    self_.setUniform("uWorkCount", level.workCount);
    self_.setUniform("uLayers", static_cast<unsigned>(selfLayers_));
    self_.setUniform("uPerSlot", level.perSlot ? 1u : 0u);
    self_.use();
    for (unsigned mode = 0; mode < 2; ++mode) {
        self_.setUniform("uMode", mode);
        self_.dispatch(groupsFor(level.workCount));
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    }
    update_.setUniform("uUnitCount", static_cast<unsigned>(level.members()));
    update_.setUniform("uLast", last ? 1u : 0u);
    update_.setUniform("uFullMask", CULLIDE_MARK_FRONT | CULLIDE_MARK_BACK);
    update_.use();
    update_.dispatch(groupsFor(level.members()));
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
}

// Govindaraju et al.'s reducePCS as Boldt & Meyer's Figure 2 writes it, for one axis and
// both directions: four passes over the items (front in order, front reversed, back in
// order, back reversed), each item drawn inside an occlusion query against the depth written
// by the items before it, then writing its own depth. Items of one group (one object) must
// not hide each other, so within a pass a group's items are all queried before any of them
// writes: each item is tested against the groups before its own, then (reversed) after it,
// which is Lemma 3.2 at the granularity of groups. The results go to a query buffer (no CPU
// wait); the pool of queries is reused in rounds.
void Passes::runQueryView(const Level& level, const View& view, bool last, LevelResult& result) {
    const auto n = level.items.size();
    queryResults_.reserve(std::max<std::size_t>(16, n * 16));
    if (depthTarget_.id() == 0 || depthTarget_.width() < int(view.width) || depthTarget_.height() < int(view.height)) {
        depthTarget_ = gl::Renderbuffer("cullide query depth", GL_DEPTH_COMPONENT32F,
                                        std::max(int(view.width), depthTarget_.width()),
                                        std::max(int(view.height), depthTarget_.height()));
        framebuffer_.attachRenderbuffer(GL_DEPTH_ATTACHMENT, depthTarget_);
        glNamedFramebufferDrawBuffer(framebuffer_.id(), GL_NONE);
        glNamedFramebufferReadBuffer(framebuffer_.id(), GL_NONE);
    }
    framebuffer_.bind();
    glViewport(0, 0, static_cast<GLsizei>(view.width), static_cast<GLsizei>(view.height));
    glEnable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    glDisable(GL_BLEND);
    glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
    vao_.bind();
    setView(queryDraw_, view, level.epsilon);
    queryDraw_.use();
    // Runs of equal group (items are laid out object by object).
    std::vector<std::size_t> runStart;
    for (std::size_t i = 0; i < n; ++i)
        if (i == 0 || level.items[i].group != level.items[i - 1].group) runStart.push_back(i);
    runStart.push_back(n);
    const std::size_t runs = runStart.size() - 1;
    for (int pass = 0; pass < 4; ++pass) {
        const bool front = pass < 2, reversed = (pass & 1) != 0;
        framebuffer_.clearDepth(front ? 1.0f : 0.0f);
        for (std::size_t k = 0; k < runs; ++k) {
            const std::size_t run = reversed ? runs - 1 - k : k;
            // The queries of the group: a fragment at or behind the nearest (front) / farthest
            // (back) depth of the other groups drawn so far passes: not fully visible.
            glDepthMask(GL_FALSE);
            glDepthFunc(front ? GL_GEQUAL : GL_LEQUAL);
            queryDraw_.setUniform("uDepthOut", front ? 1u : 0u);
            for (std::size_t i = runStart[run]; i < runStart[run + 1]; ++i) {
                queryDraw_.setUniform("uItem", static_cast<unsigned>(i));
                gl::Query& q = pool_[poolNext_];
                poolNext_ = (poolNext_ + 1) % pool_.size();
                q.begin();
                glDrawArrays(GL_TRIANGLES, 0, static_cast<GLsizei>(6 * level.items[i].slotCount));
                q.end();
                glGetQueryBufferObjectuiv(q.id(), queryResults_.id(), GL_QUERY_RESULT,
                                          static_cast<GLintptr>((4 * i + std::size_t(pass)) * 4));
                result.queries += 1;
            }
            // Then the group's depth: nearest near (front) or farthest far (back).
            glDepthMask(GL_TRUE);
            glDepthFunc(front ? GL_LESS : GL_GREATER);
            queryDraw_.setUniform("uDepthOut", front ? 0u : 1u);
            for (std::size_t i = runStart[run]; i < runStart[run + 1]; ++i) {
                queryDraw_.setUniform("uItem", static_cast<unsigned>(i));
                glDrawArrays(GL_TRIANGLES, 0, static_cast<GLsizei>(6 * level.items[i].slotCount));
            }
        }
    }
    glDepthMask(GL_TRUE);
    glDepthFunc(GL_LESS);
    glDisable(GL_DEPTH_TEST);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    gl::Framebuffer::bindDefault();
    glMemoryBarrier(GL_ALL_BARRIER_BITS);
    queryResults_.bindBase(GL_SHADER_STORAGE_BUFFER, CULLIDE_BINDING_QUERY_RESULTS);
    queryUpdate_.setUniform("uUnitCount", static_cast<unsigned>(n));
    queryUpdate_.setUniform("uLast", last ? 1u : 0u);
    queryUpdate_.use();
    queryUpdate_.dispatch(groupsFor(n));
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
}

}  // namespace isc::cullide
