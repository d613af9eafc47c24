#pragma once
// Pair tiles (sampling "pairs", and "peeling": the paper's multi-pass depth peeling): one tile
// per (candidate pair, axis) over the intersection of the pair's boxes, every triangle of the
// two objects whose screen box reaches the tile drawn (no 3-D cull), batches of equal-size
// tiles, records read back per batch and paired on the CPU (PeelNarrowphase). Kept for
// comparison with the paper's own form; scene sampling (PeelScenePass) is the default.
#include "PeelGl.h"
#include "PeelNarrowphase.h"
#include "PeelSetup.h"

#include "isc/gl/Framebuffer.h"
#include "isc/gl/GpuScene.h"
#include "isc/gl/VertexArray.h"

namespace isc::peel {

class PeelPairTilePass {
public:
    /// Compiles the passes' programs. Needs a current GL 4.5 context.
    [[nodiscard]] Result<void> create(const PeelSettings& settings, const DetectorSettings& common,
                                      bool conservativeRaster);
    [[nodiscard]] Result<void> run(const Scene& scene, gl::GpuScene& gpu, std::span<const ObjectPair> candidates,
                                   const CallObjects& objects, DetectionOutput& out);

private:
    // One batch of equal-size tiles: cull, raster (peeling: counting and peeling passes),
    // resolve, mipmap, separation; its records appended to outRecords (owners call-global).
    [[nodiscard]] Result<void> runBatch(const gl::GpuScene& gpu, std::span<const Tile> batch, std::uint32_t firstTile,
                                        std::vector<gl::PeelRecord>& outRecords, DetectorStats& stats,
                                        double& readbackMs);

    PeelSettings settings_;
    DetectorSettings common_;
    bool packing_ = false;
    bool peeling_ = false;
    bool conservativeRaster_ = false;
    gl::Program cull_, raster_, resolve_, mip_, separate_, packCount_, packMove_;
    gl::Program rasterCount_, rasterPeel_, depthMax_, peelLayer_;  // sampling "peeling"
    gl::VertexArray vao_;  // element buffer: the culled index lists
    gl::Framebuffer framebuffer_;
    gl::Buffer tiles_{"peel tiles"}, draws_{"peel draws"}, drawIds_{"peel draw ids"}, indirect_{"peel indirect"},
heads_{"peel pixel counts"}, nodes_{"peel pixel slots"},
        counters_{"peel counters"}, mask_{"peel mask"}, pyramid_{"peel pyramid"}, segments_{"peel segments"},
        records_{"peel records"}, rowCounts_{"peel row counts"}, rowOffsets_{"peel row offsets"},
        packed_{"peel packed"}, culled_{"peel culled indices"}, peelState_{"peel peeling state"},
        peelLayers_{"peel peeled layer"};
    std::size_t recordCapacity_ = 1 << 14;
    StageClock clock_;
    PeelNarrowphase narrowphase_;
};

}  // namespace isc::peel
