#pragma once
// The peel detector's CPU set-up of one call, O(objects + pairs): which objects take part,
// their world boxes (the local box turned by the pose: conservative, no vertex is touched),
// and the tiles the image passes draw into: scene views (one per axis and cluster of
// candidate pairs) cut into square tiles, or one tile per (candidate pair, axis). Pure CPU,
// no GL: tested on its own (tests/detectors/peel/PeelSetupTest.cpp). Private to
// plugin/detectors/peel.
#include "isc/gl/Bindings.h"
#include "peel/bindings.h"

#include "isc/detect/Detector.h"
#include "isc/detectors/PeelDetector.h"

#include <cstdint>
#include <span>
#include <vector>

namespace isc::peel {

/// What a call does with each object.
enum ObjectState : char {
    kUnused = 0,    ///< in no candidate pair
    kUsed = 1,      ///< takes part
    kSkipped = 2,   ///< inactive or non-finite pose (warned)
    kUnserved = 3,  ///< open mesh without openMeshes: its pairs go to DetectionOutput::unserved
};

/// Per object of the scene: its state and (for kUsed) its conservative world box.
struct CallObjects {
    std::vector<char> state;
    std::vector<Aabb> bounds;
};

/// States and boxes of the objects in `candidates`; warnings for skipped objects and pairs
/// with an open mesh appended to out.unserved (with a warning naming the mesh). `byObject` (the
/// default since 2026-11-29, eleventh session): the pairs' objects marked in one pass without
/// branches, then each object classed, its warnings in object order, and the pairs walked again
/// only when an object is unserved; false: each pair's objects classed as the pairs come (the
/// form before, warnings in the order of the pairs; the same states, boxes and unserved pairs).
void classifyObjects(const Scene& scene, std::span<const ObjectPair> candidates, bool selfCollision,
                     bool openMeshes, CallObjects& objects, DetectionOutput& out, bool byObject = true);

/// True when candidate pair `p` takes part in the call (both objects used; self pairs only
/// with selfCollision).
inline bool pairTakesPart(const ObjectPair& p, const CallObjects& objects, bool selfCollision) {
    return (p.a != p.b || selfCollision) && objects.state[p.a] == kUsed && objects.state[p.b] == kUsed;
}

/// Margin added to a box (relative to its size, plus an absolute floor): covers the float
/// rounding of the boxes and of the view transforms.
inline float boxMargin(float size) { return 1e-4f * size + 1e-6f; }

/// One tile of the atlas.
struct Tile {
    gl::PeelTile gpu{};
    std::uint32_t candidate = 0;    ///< pair tiles: index into the call's candidates
    std::uint32_t group = 0;        ///< scene views: the cluster of candidate pairs it shows
    int axis = 0;
    std::uint32_t size = 0;         ///< side in pixels (power of two)
    std::vector<ObjectId> objects;  ///< drawn into it: (a, b), (a) for self, or a view's objects (sorted)
};

/// Scene sampling: what the views are made of.
struct SceneLayout {
    std::vector<Tile> tiles;
    /// Per object: its cluster of candidate pairs (views), or -1.
    std::vector<std::int32_t> groupOf;
    /// Per cluster: the views' pixel size (world units).
    std::vector<float> pixel;
    std::uint32_t views = 0;
    std::uint32_t coarsenedViews = 0;  ///< views whose pixels had to grow (kMaxViewSide)
};

/// Largest tile side of scene sampling and the largest view side (pixels) before a view's
/// pixels are made coarser.
constexpr std::uint32_t kMaxSceneTile = 2048;
constexpr float kMaxViewSide = 16384.0f;

/// "auto" (docs/detectors/peel.md, "Defaults"). Scene sampling: pixels of kAutoPixelPerEdge
/// times the mean edge of the view's finest mesh (the cull's margin, two pixels, is then
/// about one edge), but at least kAutoMinResolution and at most kAutoMaxResolution pixels
/// across the smallest object. Pair tiles: kAutoResolution. Axes: kAutoAxes (one axis misses
/// intersections that run along it: their triangles are edge-on).
constexpr float kAutoPixelPerEdge = 0.4f;
constexpr int kAutoMinResolution = 32;
constexpr int kAutoMaxResolution = 1024;
constexpr int kAutoResolution = 128;
constexpr int kAutoAxes = 3;
inline int effectiveAxes(const PeelSettings& s) { return s.axes == 0 ? kAutoAxes : s.axes; }
/// Scene sampling with the image passes (collision rays): "on", or "auto" with self-collision
/// (the facing rule needs them).
inline bool effectiveRays(const PeelSettings& s, bool selfCollision) {
    return s.rays == "on" || (s.rays == "auto" && selfCollision);
}
/// The pixel size (world units) of an object of longest side `size` and mean edge `edge`.
float pixelSize(const PeelSettings& s, float size, float edge);

/// Scene sampling's views: the candidate pairs whose boxes come within `marginPixels` pixels
/// are grouped into clusters (connected components); per cluster and axis one orthographic
/// view, across the rays over the union of its pairs' box intersections, along them over all
/// its objects' boxes; pixels of the finest pixelSize() of its objects (`edge`: per object,
/// its mesh's mean edge); cut into square tiles of at most `maxTile` pixels (a power of two,
/// at most kMaxSceneTile). A tile lists the cluster's objects whose box (plus the margin)
/// reaches into it.
SceneLayout makeSceneTiles(std::span<const ObjectPair> candidates, const CallObjects& objects, std::span<const float> edge,
                           const PeelSettings& settings, bool selfCollision, float marginPixels,
                           std::uint32_t maxTile = kMaxSceneTile);

/// Pair tiles: one per (candidate pair, axis) whose boxes meet; view volume across the rays
/// the intersection of the two boxes, along them their union.
std::vector<Tile> makePairTiles(std::span<const ObjectPair> candidates, const CallObjects& objects,
                                const PeelSettings& settings, bool selfCollision);

}  // namespace isc::peel
