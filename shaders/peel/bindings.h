// Peel detector (papers/003): storage binding points and std430 structs shared by C++
// (plugin/detectors/peel) and GLSL (#include "peel/bindings.h"). Valid in both languages.
#ifndef ISC_SHADERS_PEEL_BINDINGS_H
#define ISC_SHADERS_PEEL_BINDINGS_H

#ifdef __cplusplus
namespace isc::gl {
#endif

// Binding points 0..2 are the GpuScene's (bindings.h); the peel detector uses 4..15.
#define PEEL_BINDING_TILES 4       // PeelTile tiles[]
#define PEEL_BINDING_DRAWS 5       // PeelDraw draws[] (indexed by the draw-id attribute)
#define PEEL_BINDING_HEADS 6       // uint counts[atlas pixels]: fragments that reached the pixel
#define PEEL_BINDING_NODES 7       // uint slots[atlas pixels * MAX_LAYERS]: packed fragments, pixel-major
#define PEEL_BINDING_COUNTERS 8    // uint counters[PEEL_COUNTER_COUNT]
#define PEEL_BINDING_MASK 9        // uint mask[]: collision-ray bits, tile-major, R*R/32 words per tile
#define PEEL_BINDING_PYRAMID 10    // uvec2 pyramid[]: bounding-box mipmap levels 1..log2(R) per tile
#define PEEL_BINDING_SEGMENTS 11   // PeelSegment segments[]: triangle ranges of (tile, side)
#define PEEL_BINDING_RECORDS 12    // PeelRecord records[]: compacted (atomic) or sparse (packing)
#define PEEL_BINDING_ROW_COUNTS 13 // uint rowCounts[] (packing: counting)
#define PEEL_BINDING_ROW_OFFSETS 14 // uint rowOffsets[] (packing: moving)
#define PEEL_BINDING_PACKED 15     // PeelRecord packed[] (packing: moved result)
#define PEEL_BINDING_CULLED 16     // uint culled[]: per-draw index lists of triangles inside the tile
#define PEEL_BINDING_COMMANDS 17   // uint commands[5 * draws]: the indirect draws (count written by the cull)
#define PEEL_BINDING_PAIRS 18      // uvec4 pairTable[]: scene sampling, open-addressing hash of the candidate
                                   // pairs: (a, b, candidate index, 0) with a <= b; a == 0xFFFFFFFF is empty
#define PEEL_BINDING_HITS 19       // uint hits[]: scene sampling, per candidate pair "has a collision ray",
                                   // then per tile of the call "a ray overflowed the layer cap"
#define PEEL_BINDING_PEEL_STATE 20 // uvec4 peelState[atlas pixels]: sampling "peeling", per ray between
                                   // passes: (lo, ~hi, peeled front | back << 8 | PEEL_RAY_*, windings)
#define PEEL_BINDING_PEEL_LAYER 21 // uvec2 peelLayer[atlas pixels]: sampling "peeling", the pass's
                                   // (~nearest key, farthest key + 1) beyond the peeled layers (0: none)

// Scene sampling's 3-D cull and GPU narrowphase (plugin/detectors/peel/PeelCull.cpp,
// PeelPairing.cpp). A shader declares at most 16 storage blocks (llvmpipe's per-stage limit).
#define PEEL_BINDING_PARTS 22          // PeelPart parts[]: the objects taking part in the call
#define PEEL_BINDING_WORLD 23          // vec4 world[]: their vertices in world space (per part: vertexBase + v)
#define PEEL_BINDING_CLUSTER_NODES 24  // PeelClusterNode clusterNodes[]: every mesh's cluster tree
#define PEEL_BINDING_CLUSTER_SLOTS 25  // uint clusterSlots[]: mesh triangle of each slot (cluster order)
#define PEEL_BINDING_NODE_BOXES 26     // PeelBox nodeBoxes[]: per part (nodeBase + node), world space
#define PEEL_BINDING_NODE_VISITS 27    // uint nodeVisits[]: per part node, bottom-up refit arrivals
#define PEEL_BINDING_PAIR_LIST 28      // PeelPair pairList[]: the call's pairs of parts
#define PEEL_BINDING_ITEMS_IN 29       // uvec4 itemsIn[]: node pairs (pair, nodeA, nodeB, 0) to expand
#define PEEL_BINDING_ITEMS_OUT 30      // uvec4 itemsOut[]
#define PEEL_BINDING_CLUSTER_PAIRS 31  // uvec4 clusterPairs[]: (pair, leaf node of A, leaf node of B, 0); the fused walk
                                       // without rays (PEEL_WALK_RECORDS) writes two uvec4 per cluster pair instead:
                                       // (candidate, margin bits, object A, object B), (first slot of A | its
                                       // triangles - 1 << 27, the same of B, box of A in nodeBoxes[], of B),
                                       // slots absolute in clusterSlots[] (below 2^27)
#define PEEL_BINDING_ARGS 32           // uint args[]: indirect dispatch arguments and list counts
#define PEEL_BINDING_KEPT_BITS 33      // uint keptBits[]: per part triangle (triangleBase + t), kept by the cull
#define PEEL_BINDING_KEPT_INDICES 34   // uint keptIndices[]: 3 per kept triangle, absolute world[] indices
#define PEEL_BINDING_KEPT_TRIANGLES 35 // uint keptTriangles[]: mesh triangle of each kept slot
#define PEEL_BINDING_KEPT_COUNTS 36    // uint keptCounts[]: per part, triangles kept
#define PEEL_BINDING_CELL_STARTS 37    // uint cellStarts[]: pairing grid, entries per hash bucket, scanned in
                                       // place into each bucket's first entry (+ the total)
#define PEEL_BINDING_CELL_FILL 38      // uint cellFill[]: per bucket, entries written so far
#define PEEL_BINDING_CELL_ITEMS 39     // uint cellItems[]: record index per cell entry
#define PEEL_BINDING_OUTPUT 40         // uint output[]: 3 per candidate triangle pair (candidate, triangle of a, of b)
#define PEEL_BINDING_SCAN 41           // uint scanData[]: the generic exclusive scan (peel/scan.glsl)
#define PEEL_BINDING_PAIR_FLAGS 42     // uint pairFlags[]: per pair of parts, 1 once it has a cluster pair
#define PEEL_BINDING_RECORD_BOXES 43   // PeelBox recordBoxes[]: per record, its triangle's world box (w of lo: grid level)
#define PEEL_BINDING_SLOT_TRIANGLES 44 // uvec4 slotTriangles[]: per slot (as clusterSlots), (mesh triangle, its 3 vertex indices)

#define PEEL_ATTRIB_DRAW_ID 0      // uint vertex attribute, divisor 1: = baseInstance = draw index

// Slots of counters[].
#define PEEL_COUNTER_FRAGMENTS 0       // fragments of all rays (summed by the resolve pass)
#define PEEL_COUNTER_COLLISION_RAYS 1  // rays marked colliding
#define PEEL_COUNTER_RECORDS 2         // triangles appended by primitive separation
#define PEEL_COUNTER_MAX_DEPTH 3       // longest fragment list (depth complexity)
#define PEEL_COUNTER_OVERFLOW_RAYS 4   // rays over the layer cap (marked colliding)
#define PEEL_COUNTER_RASTER_TRIANGLES 5  // triangles kept by the per-tile cull
// Scene sampling (3-D cull, GPU narrowphase).
#define PEEL_COUNTER_KEPT 6               // triangles kept by the 3-D cull (all parts)
#define PEEL_COUNTER_CLUSTER_PAIRS 7      // leaf cluster pairs within the margin (written: min(count, capacity))
#define PEEL_COUNTER_ITEM_OVERFLOW 8      // node pairs that did not fit the traversal lists
#define PEEL_COUNTER_CLUSTER_OVERFLOW 9   // cluster pairs that did not fit
#define PEEL_COUNTER_CELL_ENTRIES 10      // (record, cell) entries of the pairing grid
#define PEEL_COUNTER_CELL_OVERFLOW 11     // entries that did not fit
#define PEEL_COUNTER_SCREEN_PAIRS 12      // triangle pairs of flagged pairs whose screen and world boxes overlap
#define PEEL_COUNTER_OUTPUT 13            // of them, not proven apart by the float test (written: min(count, capacity))
#define PEEL_COUNTER_CLUSTER_SPLIT 14     // split call (overlap): cluster pairs of the first half (copied after it)
#define PEEL_COUNTER_OUTPUT_B 15          // split call: the second half's triangle pairs (its own list)
#define PEEL_COUNTER_PAIRS_WITH_RAYS 16    // candidate pairs flagged by a collision ray
#define PEEL_COUNTER_PAIRS_WITH_CLUSTERS 17  // pairs of parts the 3-D cull left something of
#define PEEL_COUNTER_WALK_CUT 18          // fused walk (peel/cluster_walk.glsl): invocations that gave up (stack
                                          // full or iteration budget spent); the call is redone with the levels walk
#define PEEL_COUNTER_COUNT 20

// The fused walk (peel/cluster_walk.glsl): node pairs a round's frontier holds in shared
// memory, and expansions one invocation may make (below llvmpipe's silent loop cut at 65535).
#define PEEL_WALK_QUEUE 512u
#define PEEL_WALK_BUDGET 50000u

// Levels of the pairing grid: cells of level L are 8^L times the finest (a record sits at the
// level where its box spans at most two cells a side). At least PEEL_GRID_LEVELS; more
// (uGridLevels, up to PEEL_GRID_MAX_LEVELS) where a call's longest object needs them.
#define PEEL_GRID_LEVELS 4u
#define PEEL_GRID_MAX_LEVELS 10u

// Tile flags.
#define PEEL_TILE_SELF 1u       // one object against itself (paper's facing rule)
#define PEEL_TILE_OPEN 2u       // open meshes: depth proximity only (paper 8.2)
#define PEEL_TILE_PROXIMITY 4u  // conservative: fragments of A and B within depthEpsilon mark the ray
#define PEEL_TILE_SCENE 8u      // scene sampling: every object of the view, object ids in the fragments

// Sampling "peeling" (the paper's multi-pass depth peeling, section 4.1, front and back at
// once, section 4.2): peelState[].z bits above the two 8-bit layer counts.
#define PEEL_RAY_COLLIDING 0x10000u  // the ray is a collision ray: later passes skip it
// Largest depth key a peeled fragment may carry (keys are compared as ~key and key + 1,
// both of which must stay non-zero and not wrap).
#define PEEL_MAX_PEEL_KEY 0xFFFFFFFBu

// Scene sampling (the paper's set-up: all candidate objects of a view at once) stores a
// fragment as uvec2(depth << 1 | facing, object id); the pair tiles store one uint
// (depth << 2 | side << 1 | facing). Either way the first word sorts by depth, and at
// equal depth a back face (leaving) sorts before a front face (entering), so touching
// surfaces are not "inside both".

// Fragment encoding: depth quantised to 30 bits, then the side bit (0 = A, 1 = B), then
// the facing bit (1 = front). Sorting the packed words sorts by depth.
#define PEEL_DEPTH_SCALE 1073741823.0

// One tile of the atlas, std430, 96 bytes: a (candidate pair, axis) tile, or with
// PEEL_TILE_SCENE a square window of one view (one axis over a cluster of candidate objects).
struct PeelTile {
    mat4 viewProj;        // world -> tile clip space, orthographic, [-1, 1]^3
    uint originX;         // atlas pixel of the tile's corner
    uint originY;
    uint flags;           // PEEL_TILE_*
    float depthEpsilon;   // proximity threshold in normalised depth [0, 1]
    uint objectA;         // pair tiles only
    uint objectB;
    uint pad0;
    uint size;            // scene sampling: side in pixels
};

// One indirect draw: one object into one tile, std430, 16 bytes.
struct PeelDraw {
    uint tile;
    uint side;
    uint object;
    uint pad;
};

// Triangles [firstItem, next segment's firstItem) of `object` in `tile` as `side`, 16 bytes.
// side | PEEL_SEGMENT_WHOLE: the object lies inside the tile (not culled, drawn as a whole).
#define PEEL_SEGMENT_WHOLE 0x80000000u
struct PeelSegment {
    uint firstItem;
    uint tile;
    uint side;
    uint object;
};

// A potentially colliding triangle: tile * 2 + side (pair tiles) or the segment index
// (scene sampling: the segment names tile and object), triangle index in its object's mesh,
// and its clipped screen box in tile pixels (inclusive), x0 | y0 << 16 and x1 | y1 << 16.
// triangle == 0xFFFFFFFF marks an empty texel of the sparse (packing) layout.
struct PeelRecord {
    uint tileSide;
    uint triangle;
    uint boxLo;
    uint boxHi;
};

// Scene sampling: one object taking part in the call, std430, 48 bytes.
#define PEEL_PART_KEEP_ALL 1u  // drawn whole (self-collision pairs: the facing rule needs every face)
struct PeelPart {
    uint object;         // ObjectId
    uint vertexBase;     // first entry of its vertices in world[]
    uint vertexCount;
    uint nodeBase;       // first entry of its cluster-tree boxes in nodeBoxes[]
    uint firstNode;      // its mesh's tree in clusterNodes[] (node n of the part is firstNode + n)
    uint nodeCount;
    uint firstSlot;      // its mesh's slots in clusterSlots[]
    uint triangleBase;   // first entry in keptBits (bits), keptTriangles, keptIndices (x 3)
    uint triangleCount;
    uint flags;          // PEEL_PART_*
    float errorScale;    // |translation| + local radius: bounds the float rounding of world[] (world units)
    uint pad;
};

// A node of a mesh's cluster tree (the top of its BVH down to clusters of at most
// PeelClusters::kMaxClusterTriangles triangles), std430, 32 bytes. Node 0 is the root.
#define PEEL_NO_NODE 0xFFFFFFFFu
struct PeelClusterNode {
    uint left;        // children (PEEL_NO_NODE for a cluster, i.e. a leaf)
    uint right;
    uint parent;      // PEEL_NO_NODE for the root
    uint firstSlot;   // its triangles: slots [firstSlot, firstSlot + slotCount) of the mesh
    uint slotCount;
    uint pad0;
    uint pad1;
    uint pad2;
};

// A world-space box, std430, 32 bytes (w unused).
struct PeelBox {
    vec4 lo;
    vec4 hi;
};

// A pair of parts to cull against each other, std430, 16 bytes.
struct PeelPair {
    uint candidate;  // index into the call's candidates
    uint partA;      // parts[] of candidates[candidate].a
    uint partB;
    float margin;    // world units: boxes nearer than this count as overlapping (two pixels)
};

// Scene sampling's draw: one object's kept triangles into one tile, std430, 16 bytes (the
// PeelDraw of the pair tiles read as: tile, part, object, firstItem of its separation items).

#ifdef __cplusplus
}  // namespace isc::gl
#endif

#endif
