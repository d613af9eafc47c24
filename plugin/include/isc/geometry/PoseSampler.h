#pragma once
/// Random close poses for two meshes (tests, accuracy runs and benchmarks), and a small
/// text format to keep a set of poses in a file. No GL, no Bullet.
#include "isc/core/Math.h"
#include "isc/core/Result.h"
#include "isc/mesh/Mesh.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace isc::geometry {

/// `count` pose pairs (pose of A, pose of B) whose world AABBs overlap, about a third of
/// them truly colliding (see docs/reference.md for measured fractions). Rotations are
/// uniform (Shoemake); A's bounding-sphere centre lands uniformly in a cube of half-size
/// rA around the origin, B's centre at a uniform distance in [shellInner, shellOuter] x
/// (rA + rB) from A's in a uniform direction, where r is the radius of the sphere about the
/// local box centre that holds every vertex; poses whose world AABBs miss are redrawn.
/// Deterministic: the same on every platform for one seed (std::mt19937_64 and our own
/// mapping to doubles; only std::sin/cos/sqrt come from the C library).
std::vector<std::pair<Pose, Pose>> sampleClosePoses(const Mesh& a, const Mesh& b, int count, std::uint64_t seed,
                                                    double shellInner = 0.5, double shellOuter = 1.05);

/// Reads a pose file: one pose pair a line, `tx ty tz qw qx qy qz` for A then the same
/// seven numbers for B; '#' starts a comment, blank lines are skipped. Quaternions are
/// normalised (those within 1e-6 of unit length are kept as written). Errors name the
/// file and the line: a missing file, a line without exactly 14 numbers, something that
/// is not a number, a NaN or Inf, a zero quaternion.
[[nodiscard]] Result<std::vector<std::pair<Pose, Pose>>> readPosesFile(const std::string& path);

/// Writes `poses` in the format readPosesFile reads, with a header comment, every float
/// in its shortest form that reads back to the same bits. Errors: the file cannot be written.
[[nodiscard]] Result<void> writePosesFile(const std::string& path, const std::vector<std::pair<Pose, Pose>>& poses);

}  // namespace isc::geometry
