// The peel detector's shared shader pieces against CPU oracles: the conservative float
// triangle-triangle filter (common/tritri.glsl) against the exact test in double, and the
// one-workgroup scan (peel/scan.glsl) against std::exclusive_scan.
#include "isc/geometry/TriangleTriangle.h"
#include "isc/gl/Bindings.h"
#include "isc/gl/Buffer.h"
#include "isc/gl/Program.h"

#include "peel/bindings.h"

#include "GlTest.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

namespace isc {
namespace {

class PeelShadersTest : public GlTest {};

// One invocation per triangle pair: 6 corners (vec4) and the tolerance in w of the first.
constexpr const char* kFilterShader = R"(
#include "common/tritri.glsl"
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Pairs { vec4 corners[]; };
layout(std430, binding = 1) writeonly buffer Verdicts { uint verdicts[]; };
uniform uint uCount;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= uCount) return;
    vec4 c[6];
    for (int k = 0; k < 6; ++k) c[k] = corners[6u * i + uint(k)];
    verdicts[i] = iscTrianglesMayIntersect(c[0].xyz, c[1].xyz, c[2].xyz, c[3].xyz, c[4].xyz, c[5].xyz, c[0].w) ? 1u : 0u;
}
)";

struct PairCase {
    DVec3 p[3], q[3];
};

// Pairs that cover the filter's hard cases: random triangles around one point (about half
// intersect), triangles sharing a vertex or an edge (touching counts as intersecting),
// coplanar overlapping ones, and near misses 1e-9..1e-2 apart along a normal; each set also
// moved 100 m away (larger rounding).
std::vector<PairCase> makeCases() {
    std::vector<PairCase> cases;
    std::mt19937 rng(17);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    auto point = [&](double s) { return DVec3(u(rng), u(rng), u(rng)) * s; };
    for (int i = 0; i < 3000; ++i) {
        PairCase c;
        const double s = i % 3 == 0 ? 0.01 : (i % 3 == 1 ? 0.1 : 1.0);
        for (int k = 0; k < 3; ++k) c.p[k] = point(s), c.q[k] = point(s);
        cases.push_back(c);
    }
    for (int i = 0; i < 500; ++i) {  // a shared vertex, then a shared edge
        PairCase c;
        for (int k = 0; k < 3; ++k) c.p[k] = point(0.5), c.q[k] = point(0.5);
        c.q[0] = c.p[1];
        cases.push_back(c);
        c.q[1] = c.p[2];
        cases.push_back(c);
    }
    for (int i = 0; i < 500; ++i) {  // coplanar (z = 0.3), overlapping or not
        PairCase c;
        for (int k = 0; k < 3; ++k) {
            c.p[k] = DVec3(u(rng), u(rng), 0.3);
            c.q[k] = DVec3(u(rng), u(rng), 0.3);
        }
        cases.push_back(c);
    }
    for (int i = 0; i < 1000; ++i) {  // q above p's plane by d, its projection inside p
        PairCase c;
        for (int k = 0; k < 3; ++k) c.p[k] = point(0.5);
        const DVec3 n = glm::normalize(glm::cross(c.p[1] - c.p[0], c.p[2] - c.p[0]));
        const DVec3 centre = (c.p[0] + c.p[1] + c.p[2]) / 3.0;
        const double d = std::pow(10.0, -9.0 + 7.0 * double(i % 8) / 7.0) * (i % 2 == 0 ? 1.0 : -1.0);
        for (int k = 0; k < 3; ++k) c.q[k] = centre + d * n + point(0.05) - glm::dot(point(0.05), n) * n;
        cases.push_back(c);
    }
    const std::size_t n = cases.size();
    for (std::size_t i = 0; i < n; ++i) {
        PairCase c = cases[i];
        for (int k = 0; k < 3; ++k) c.p[k] += DVec3(100.0, -50.0, 30.0), c.q[k] += DVec3(100.0, -50.0, 30.0);
        cases.push_back(c);
    }
    return cases;
}

// The filter is given the corners rounded to float (as the GPU world vertices are) and the
// detector's tolerance (1e-5 of the coordinates' scale); it must never call a pair apart that
// the exact test (on the float corners, in double) finds intersecting, and it must call
// nearly every pair apart that is separated by more than ten tolerances.
TEST_F(PeelShadersTest, FloatFilterNeverDropsIntersectingPairs) {
    test::writeTestShader("test/tritri_filter.glsl", kFilterShader);
    auto program = gl::Program::create({{GL_COMPUTE_SHADER, "test/tritri_filter.glsl"}}, {}, "tritri filter test");
    ASSERT_TRUE(program.has_value()) << program.error().message;
    const std::vector<PairCase> cases = makeCases();
    std::vector<glm::vec4> corners;
    std::vector<double> tolerance;
    std::vector<char> exact;
    std::vector<double> gap;  // separation along the best of a few axes, 0 when intersecting
    for (const PairCase& c : cases) {
        double scale = 0.0;
        DVec3 P[3], Q[3];
        for (int k = 0; k < 3; ++k) {
            P[k] = DVec3(glm::vec3(c.p[k]));
            Q[k] = DVec3(glm::vec3(c.q[k]));
            scale = std::max({scale, glm::length(P[k]), glm::length(Q[k])});
        }
        const double tol = 1e-5 * scale;
        tolerance.push_back(tol);
        exact.push_back(geometry::trianglesIntersect(P, Q) ? 1 : 0);
        // A lower bound of the distance: the largest separation over the face normals.
        double g = 0.0;
        for (const DVec3* t : {P, Q}) {
            const DVec3 n = glm::normalize(glm::cross(t[1] - t[0], t[2] - t[0]));
            double pMin = 1e300, pMax = -1e300, qMin = 1e300, qMax = -1e300;
            for (int k = 0; k < 3; ++k) {
                pMin = std::min(pMin, glm::dot(n, P[k])), pMax = std::max(pMax, glm::dot(n, P[k]));
                qMin = std::min(qMin, glm::dot(n, Q[k])), qMax = std::max(qMax, glm::dot(n, Q[k]));
            }
            g = std::max({g, qMin - pMax, pMin - qMax});
        }
        gap.push_back(g);
        for (int k = 0; k < 3; ++k) corners.emplace_back(glm::vec3(P[k]), k == 0 ? float(tol) : 0.0f);
        for (int k = 0; k < 3; ++k) corners.emplace_back(glm::vec3(Q[k]), 0.0f);
    }
    gl::Buffer in("tritri corners"), out("tritri verdicts");
    in.allocate(corners.size() * sizeof(glm::vec4), corners.data());
    out.allocate(cases.size() * sizeof(std::uint32_t));
    in.bindBase(GL_SHADER_STORAGE_BUFFER, 0);
    out.bindBase(GL_SHADER_STORAGE_BUFFER, 1);
    program->setUniform("uCount", static_cast<std::uint32_t>(cases.size()));
    program->use();
    program->dispatch(static_cast<GLuint>((cases.size() + 63) / 64));
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    std::vector<std::uint32_t> verdict(cases.size());
    out.read<std::uint32_t>(0, verdict);
    std::size_t intersecting = 0, kept = 0, farApart = 0, farDropped = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        if (exact[i]) {
            ++intersecting;
            kept += verdict[i];
            EXPECT_EQ(verdict[i], 1u) << "case " << i << ": an intersecting pair called apart";
        } else if (gap[i] > 10.0 * tolerance[i]) {
            ++farApart;
            farDropped += verdict[i] == 0 ? 1 : 0;
        }
    }
    std::printf("[ peel ] float filter: %zu cases, %zu intersecting (all kept: %zu), %zu apart by more than ten "
                "tolerances, %zu of them dropped\n",
                cases.size(), intersecting, kept, farApart, farDropped);
    EXPECT_GT(intersecting, 1000u);
    EXPECT_GT(farApart, 1000u);
    EXPECT_EQ(farDropped, farApart) << "separating axes prove every clearly separated pair apart";
}

TEST_F(PeelShadersTest, OneWorkgroupScanMatchesTheCpu) {
    auto program = gl::Program::create({{GL_COMPUTE_SHADER, "peel/scan.glsl"}}, "#define PEEL_SCAN_MAIN 1\n", "scan test");
    ASSERT_TRUE(program.has_value()) << program.error().message;
    std::mt19937 rng(3);
    for (std::uint32_t n : {1u, 5u, 1023u, 1024u, 1025u, 70001u}) {
        std::vector<std::uint32_t> data(n + 1);
        for (std::uint32_t i = 0; i < n; ++i) data[i] = rng() % 17;
        data[n] = 12345;  // overwritten with the total
        std::vector<std::uint32_t> want(n + 1);
        std::exclusive_scan(data.begin(), data.begin() + n, want.begin(), 0u);
        want[n] = want[n - 1] + data[n - 1];
        gl::Buffer buffer("scan data");
        buffer.allocate(data.size() * sizeof(std::uint32_t), data.data());
        buffer.bindBase(GL_SHADER_STORAGE_BUFFER, PEEL_BINDING_SCAN);
        program->setUniform("uScanCount", n);
        program->use();
        program->dispatch(1);
        glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
        std::vector<std::uint32_t> got(n + 1);
        buffer.read<std::uint32_t>(0, got);
        EXPECT_EQ(got, want) << "n = " << n;
    }
}

}  // namespace
}  // namespace isc
