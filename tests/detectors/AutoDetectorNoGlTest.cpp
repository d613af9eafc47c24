// The "auto" detector in a process that has no GL context (nothing here makes one): cpu, and
// the GL detectors named as left out; naming only GL candidates is an error that says why.
#include "isc/detect/AutoDetector.h"
#include "isc/detect/Registry.h"
#include "isc/gl/Context.h"

#include <gtest/gtest.h>

namespace isc {
namespace {

TEST(AutoDetectorNoGl, PicksCpuAndSaysWhy) {
    ASSERT_EQ(gl::Context::currentInfo(), nullptr);
    auto made = createDetector("auto");
    ASSERT_TRUE(made) << made.error().message;
    auto* a = dynamic_cast<AutoDetector*>(made->get());
    ASSERT_NE(a, nullptr);
    EXPECT_TRUE(a->decided());
    EXPECT_EQ(a->current(), "cpu");
    EXPECT_EQ(a->describe().rfind("auto -> cpu (no current GL context", 0), 0u) << a->describe();
    for (const DetectorInfo& d : registeredDetectors())
        if (d.usesGl && d.reportsTrianglePairs) {
            EXPECT_NE(a->reason().find(d.name), std::string::npos) << a->reason();
        }

    auto glOnly = createDetector("auto", {.options = {{"candidates", "peel"}}});
    ASSERT_FALSE(glOnly);
    EXPECT_NE(glOnly.error().message.find("GL 4.5 context"), std::string::npos) << glOnly.error().message;
}

TEST(AutoDetectorNoGl, SoftwareRenderersAreRecognised) {
    EXPECT_TRUE(isSoftwareRenderer("llvmpipe (LLVM 15.0.6, 256 bits)"));
    EXPECT_TRUE(isSoftwareRenderer("softpipe"));
    EXPECT_TRUE(isSoftwareRenderer("Google SwiftShader"));
    EXPECT_FALSE(isSoftwareRenderer("NVIDIA H100 80GB HBM3/PCIe/SSE2"));
    EXPECT_FALSE(isSoftwareRenderer("AMD Radeon RX 7900 XTX (radeonsi, navi31, LLVM 15.0.7, DRM 3.54)"));
}

}  // namespace
}  // namespace isc
