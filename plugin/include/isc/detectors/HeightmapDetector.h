#pragma once
/// The height-map detector ("heightmap"): Fabrizio, "Easy Real-Time Collision Detection"
/// (papers/002). An object against its environment: the environment is the scene's static
/// objects (Scene::isStatic; in Bullet, static bodies), the objects are everything else.
/// Per moving object and projection direction, one orthographic view of the object's box:
/// the object's height map So and the environment's Se in the same pixels, compared per
/// pixel; where the environment's surface lies inside the object, a contact sample
/// (PairResult::samples: point, normal, depth, the environment's triangle). It reports no
/// triangle pairs.
///
/// Paper sections and where this implementation departs (docs/detectors/heightmap.md has why):
/// - §2 the initial algorithm: So by rendering the object into its box "with the inverted
///   depth test and culling", Se by rendering the environment restricted to the box with the
///   regular ones, compared in a compute shader. Here the object pass keeps every fragment
///   (settings.maxLayers slots per pixel, no depth test) and a compute pass sorts them:
///   So is the largest depth (the paper's map), and the column's next crossings tell where
///   the object's lowest solid interval ends. The environment pass is the paper's (depth
///   test LESS, back faces culled), its fragments restricted per pixel to that interval.
/// - §2 variants: the stencil restriction (the environment pass drops pixels the object does
///   not cover, in the shader); several projections (settings.directions: 1 = along
///   gravity, the paper's car on the floor, Fig. 3e; 2 = both ways along the up axis; 6 =
///   the six cube directions); the ID and normal buffers of "Interaction" (an RG32UI
///   attachment names the environment draw and triangle, the normal comes from the triangle
///   in the sample pass); deformable objects (re-rendered every call from the scene's
///   vertices: nothing is cached per object); articulated objects (one scene object per part).
/// - §2 limitation (concavities along the projection): a column that crosses the object more
///   than twice is an overhang, which the paper's single map cannot serve. Here the column's
///   sorted crossings say which solid interval or gap the environment's surface is in: in a
///   gap it is no contact, in an upper interval a contact against that interval (counters
///   overhang_pairs, overhang_contact_pixels); with settings.serveOverhangs false such a pair
///   goes to DetectionOutput::unserved instead (the paper's rule). What cannot be served at
///   all: a column with more crossings than maxLayers that the environment reaches: that pair
///   is unserved (counter overflow_pairs). A column with an odd count (a pixel centre on a
///   silhouette edge: the raster rules give it to one of the edge's two triangles) is skipped.
///   The paper's Fig. 2c (the object's column wholly inside the environment: a thin part sunk
///   deeper than it is thick) is not detected by the paper's maps; here (settings.immersed) a
///   third raster pass keeps the environment surface nearest above each column, either
///   facing: one facing the view's start means the column is inside a closed environment, a
///   contact (counter immersed_contact_pixels); one facing away (the environment's own
///   overhang) means free space.
/// - Beyond the paper: the depth along the normal (the plane distance of the object's
///   extreme point to the environment triangle) rather than along the axis, so that samples
///   of different directions agree; the samples reduced on the GPU (settings.reduce) to the
///   deepest pixel and the extremes of the pixels at least half as deep, per pair and direction.
/// Pairs of two moving objects (and of two static ones), self pairs and moving objects with
/// open meshes go to DetectionOutput::unserved (the dispatcher sends them to `cpu`).
#include "isc/detect/Detector.h"

#include <array>
#include <memory>
#include <string>

namespace isc {

/// The heightmap detector's own settings (DetectorSettings::options by these names;
/// docs/detectors/heightmap.md has what each costs and gains).
struct HeightmapSettings {
    int resolution = 64;  ///< pixels across a view (the object's box, or less where the environment is narrower), 8..1024
    /// Projection directions per moving object: 1 (against `up`: the environment below), 2
    /// (both ways along `up`), or 6 (+-x, +-y, +-z).
    int directions = 1;
    std::string up = "+y";  ///< the world's up axis: +x, -x, +y, -y, +z or -z (gravity points the other way)
    int maxLayers = 16;     ///< object crossings kept per pixel, 2..32 (more: the column is not served)
    /// Reduce each pair's samples on the GPU to at most 9 per direction (the deepest pixel and
    /// the extremes, along 8 directions, of the pixels at least half as deep); false: one
    /// sample per contact pixel.
    bool reduce = true;
    /// Contacts of the environment with an upper interval of a column (an overhang along the
    /// projection) are served; false: such a pair is returned unserved (the paper's rule).
    bool serveOverhangs = true;
    /// A column wholly under an environment surface that faces the view's start (within the
    /// view's depth range) is a contact; false: the paper's rule (not detected).
    bool immersed = true;

    static constexpr std::array<SettingField<HeightmapSettings>, 7> fields{{
        {"resolution", &HeightmapSettings::resolution, "pixels across a view (8..1024)"},
        {"directions", &HeightmapSettings::directions, "projection directions: 1 (down), 2 (down and up) or 6 (cube)"},
        {"up", &HeightmapSettings::up, "up axis: +x, -x, +y, -y, +z or -z"},
        {"maxLayers", &HeightmapSettings::maxLayers, "object crossings kept per pixel, 2..32"},
        {"reduce", &HeightmapSettings::reduce, "reduce samples on the GPU (deepest + extremes per pair and direction)"},
        {"serveOverhangs", &HeightmapSettings::serveOverhangs, "serve contacts in a column's upper intervals (false: unserved)"},
        {"immersed", &HeightmapSettings::immersed, "columns wholly inside the environment are contacts (a third raster pass)"},
    }};
};

/// The heightmap detector. Needs a current GL 4.5 context at creation and at every detect()
/// (the same context).
class HeightmapDetector final : public Detector {
public:
    ~HeightmapDetector() override;

    std::string_view name() const override { return "heightmap"; }
    bool usesGl() const override { return true; }
    bool reportsTrianglePairs() const override { return false; }
    /// False: the environment may be open (a terrain sheet); a moving object with an open
    /// mesh has its pairs returned unserved.
    bool needsClosedMeshes() const override { return false; }
    /// Counters per call: candidate_pairs, served_pairs, unserved_pairs, moving_pairs,
    /// overhang_pairs, overflow_pairs, odd_column_pairs (pairs with a skipped column of odd
    /// crossing count: a pixel centre on a silhouette edge), open_object_pairs, views, batches,
    /// object_triangles_drawn, environment_triangles_drawn, environment_bvh_builds,
    /// contact_pixels, overhang_contact_pixels, immersed_contact_pixels, samples, colliding_pairs; gpu_ms split as gpu_object_ms,
    /// gpu_environment_ms, gpu_samples_ms.
    [[nodiscard]] Result<void> detect(const Scene& scene, std::span<const ObjectPair> candidates,
                                      DetectionOutput& out) override;

    struct Impl;

private:
    friend Result<std::unique_ptr<Detector>> createHeightmapDetector(const DetectorSettings&, const HeightmapSettings&);
    explicit HeightmapDetector(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

/// Creates the heightmap detector: checks the settings (resolution in [8, 1024], directions
/// 1, 2 or 6, up one of +x, -x, +y, -y, +z, -z, maxLayers in [2, 32]) and compiles its
/// shaders. Needs a current GL 4.5 context; errors carry the driver's log.
[[nodiscard]] Result<std::unique_ptr<Detector>> createHeightmapDetector(const DetectorSettings& common,
                                                                        const HeightmapSettings& settings = {});

}  // namespace isc
