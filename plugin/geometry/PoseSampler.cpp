#include "isc/geometry/PoseSampler.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <numbers>
#include <random>
#include <sstream>

namespace isc::geometry {
namespace {

// Top 53 bits to [0, 1): the same double everywhere (std::uniform_real_distribution is not).
inline double unit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// Uniform random rotation (Shoemake 1992).
Quat randomRotation(std::mt19937_64& rng) {
    const double u1 = unit(rng), u2 = unit(rng), u3 = unit(rng);
    const double twoPi = 2.0 * std::numbers::pi;
    const double a = std::sqrt(1.0 - u1), b = std::sqrt(u1);
    const glm::dquat q(b * std::cos(twoPi * u3), a * std::sin(twoPi * u2), a * std::cos(twoPi * u2),
                       b * std::sin(twoPi * u3));
    return Quat(glm::normalize(glm::quat(q)));
}

DVec3 randomDirection(std::mt19937_64& rng) {
    const double z = 2.0 * unit(rng) - 1.0;
    const double phi = 2.0 * std::numbers::pi * unit(rng);
    const double r = std::sqrt(std::max(0.0, 1.0 - z * z));
    return {r * std::cos(phi), r * std::sin(phi), z};
}

struct Sphere {
    Vec3 center;
    double radius;
};

Sphere boundingSphere(const Mesh& m) {
    const Vec3 c = m.localBounds().center();
    double r = 0.0;
    for (const Vec3& v : m.vertices()) r = std::max(r, static_cast<double>(glm::length(v - c)));
    return {c, r};
}

Aabb worldBounds(const Mesh& m, const Pose& pose) {
    Aabb box;
    for (const Vec3& v : m.vertices()) box.grow(pose.apply(v));
    return box;
}

std::string where(const std::string& path, int line) { return path + ":" + std::to_string(line) + ": "; }

}  // namespace

std::vector<std::pair<Pose, Pose>> sampleClosePoses(const Mesh& a, const Mesh& b, int count, std::uint64_t seed,
                                                    double shellInner, double shellOuter) {
    std::vector<std::pair<Pose, Pose>> out;
    if (count <= 0) return out;
    out.reserve(static_cast<std::size_t>(count));
    std::mt19937_64 rng(seed);
    const Sphere sa = boundingSphere(a), sb = boundingSphere(b);
    const double reach = sa.radius + sb.radius;
    while (static_cast<int>(out.size()) < count) {
        Pose pa, pb;
        pa.rotation = randomRotation(rng);
        pb.rotation = randomRotation(rng);
        const DVec3 ca(sa.radius * (2.0 * unit(rng) - 1.0), sa.radius * (2.0 * unit(rng) - 1.0),
                       sa.radius * (2.0 * unit(rng) - 1.0));
        const DVec3 dir = randomDirection(rng);
        // Uniform in the shell's volume (not in radius): the outer, glancing poses dominate.
        const double i3 = shellInner * shellInner * shellInner, o3 = shellOuter * shellOuter * shellOuter;
        const double dist = reach * std::cbrt(i3 + (o3 - i3) * unit(rng));
        const DVec3 cb = ca + dist * dir;
        pa.position = Vec3(ca) - pa.rotation * sa.center;
        pb.position = Vec3(cb) - pb.rotation * sb.center;
        if (!worldBounds(a, pa).overlaps(worldBounds(b, pb))) continue;
        out.emplace_back(pa, pb);
    }
    return out;
}

Result<std::vector<std::pair<Pose, Pose>>> readPosesFile(const std::string& path) {
    std::ifstream in(path);
    if (!in) return fail("readPosesFile(): cannot open '" + path + "': check the path");
    std::vector<std::pair<Pose, Pose>> poses;
    std::string line;
    int lineNo = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
        float v[14];
        int n = 0;
        const char* p = line.data();
        const char* end = p + line.size();
        while (true) {
            while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == ',')) ++p;
            if (p == end) break;
            const char* tokenEnd = p;
            while (tokenEnd < end && *tokenEnd != ' ' && *tokenEnd != '\t' && *tokenEnd != '\r' && *tokenEnd != ',')
                ++tokenEnd;
            const std::string token(p, tokenEnd);
            if (n == 14) {
                return fail("readPosesFile(): " + where(path, lineNo) +
                            "more than 14 numbers; a line is 'tx ty tz qw qx qy qz' for A then for B");
            }
            // Parsed straight to float: the shortest form written reads back to the same bits.
            float x = 0.0f;
            const char* start = (*p == '+') ? p + 1 : p;
            const auto r = std::from_chars(start, tokenEnd, x);
            if (r.ec == std::errc::result_out_of_range) {
                return fail("readPosesFile(): " + where(path, lineNo) + "'" + token + "' is out of float range");
            }
            if (r.ec != std::errc() || r.ptr != tokenEnd) {
                return fail("readPosesFile(): " + where(path, lineNo) + "'" + token + "' is not a number");
            }
            if (!std::isfinite(x)) {
                return fail("readPosesFile(): " + where(path, lineNo) + "'" + token +
                            "' is not finite; poses need finite numbers");
            }
            v[n++] = x;
            p = tokenEnd;
        }
        if (n == 0) continue;
        if (n != 14) {
            return fail("readPosesFile(): " + where(path, lineNo) + "found " + std::to_string(n) +
                        " numbers, expected 14 ('tx ty tz qw qx qy qz' for A then for B)");
        }
        Pose pose[2];
        for (int k = 0; k < 2; ++k) {
            double w[7];
            for (int i = 0; i < 7; ++i) w[i] = v[7 * k + i];
            const double len = std::sqrt(w[3] * w[3] + w[4] * w[4] + w[5] * w[5] + w[6] * w[6]);
            if (!(len > 1e-12) || !std::isfinite(len)) {
                return fail("readPosesFile(): " + where(path, lineNo) + "the quaternion of " + (k ? "B" : "A") +
                            " has length " + std::to_string(len) + "; it must be a rotation (non-zero)");
            }
            // Unit within float precision: keep the bits as written (exact round trip).
            const double s = std::fabs(len - 1.0) <= 1e-6 ? 1.0 : 1.0 / len;
            pose[k].position = Vec3(v[7 * k], v[7 * k + 1], v[7 * k + 2]);
            pose[k].rotation = s == 1.0 ? Quat(v[7 * k + 3], v[7 * k + 4], v[7 * k + 5], v[7 * k + 6])
                                        : Quat(static_cast<float>(w[3] * s), static_cast<float>(w[4] * s),
                                               static_cast<float>(w[5] * s), static_cast<float>(w[6] * s));
        }
        poses.emplace_back(pose[0], pose[1]);
    }
    if (in.bad()) return fail("readPosesFile(): reading '" + path + "' failed");
    return poses;
}

Result<void> writePosesFile(const std::string& path, const std::vector<std::pair<Pose, Pose>>& poses) {
    std::ofstream out(path);
    if (!out) return fail("writePosesFile(): cannot write '" + path + "': check the folder exists and is writable");
    out << "# bullet-isc poses: tx ty tz qw qx qy qz of mesh A, then of mesh B\n";
    auto put = [&](float x) {
        char buf[32];
        const auto r = std::to_chars(buf, buf + sizeof buf, x);
        out.write(buf, r.ptr - buf);
    };
    for (const auto& [a, b] : poses) {
        const Pose* p[2] = {&a, &b};
        for (int k = 0; k < 2; ++k) {
            const float v[7] = {p[k]->position.x, p[k]->position.y, p[k]->position.z, p[k]->rotation.w,
                                p[k]->rotation.x, p[k]->rotation.y, p[k]->rotation.z};
            for (int i = 0; i < 7; ++i) {
                if (k || i) out << ' ';
                put(v[i]);
            }
        }
        out << '\n';
    }
    out.flush();
    if (!out) return fail("writePosesFile(): writing '" + path + "' failed (disk full?)");
    return {};
}

}  // namespace isc::geometry
