#pragma once
// Shared GL test fixture: one headless context per test executable, debug output on,
// glGetError() == GL_NO_ERROR checked after every test.
//
//   #include "GlTest.h"
//   TEST_F(GlTest, Something) { ... GL calls ... }      // or: class MyTest : public isc::test::GlTest {}
#include "isc/gl/Context.h"
#include "isc/gl/Gl.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace isc::test {

/// The executable's headless context (made on first call, debug output on, current on the
/// calling thread). Null with `error` set when no context could be made.
gl::Context* glContext(std::string* error = nullptr);

/// Number of GL debug messages of type error seen since the context was made.
int glDebugErrorCount();

/// Folder (made once per process) that ISC_SHADER_DIR points at; writeTestShader puts test-only
/// shaders there. Files not found there still come from the embedded table.
const std::string& testShaderDir();
/// Writes `text` as `name` into testShaderDir() (overwrites).
void writeTestShader(std::string_view name, std::string_view text);

/// Fixture: fails the test (body skipped) when no context can be made; after the test,
/// expects no pending GL error and no new debug error message.
class GlTest : public ::testing::Test {
protected:
    void SetUp() override;
    void TearDown() override;

private:
    int debugErrorsBefore_ = 0;
};

}  // namespace isc::test

using isc::test::GlTest;
