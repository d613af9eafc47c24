// Bad input through the isc commands: a mesh file with a NaN vertex, a bad --set value, a
// detector option that does not exist. Each: a non-zero exit and a message naming the thing.
#include "../tools/ToolRun.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

using isc::test::runTool;
using isc::test::tempPath;

namespace {

bool has(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST(ToolRobustness, NanVertexInAMeshFileIsAnErrorNamingTheFile) {
    const std::string path = tempPath("isc_nan", ".obj");
    {
        std::ofstream f(path);
        f << "v 0 0 0\nv 1 0 0\nv 0 nan 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n";
    }
    int code = 0;
    for (const std::string& cmd : {"demo bunny-pile --headless --steps 1 --detector cpu --mesh " + path,
                                   "accuracy --detector cpu --poses 2 --mesh " + path}) {
        const std::string out = runTool(cmd, code);
        EXPECT_NE(code, 0) << out;
        EXPECT_TRUE(has(out, path)) << out;
        EXPECT_TRUE(has(out, "non-finite") || has(out, "NaN") || has(out, "nan")) << out;
    }
    std::filesystem::remove(path);
}

TEST(ToolRobustness, BadSetValuesAndUnknownOptionsAreErrorsNamingThem) {
    int code = 0;
    std::string out = runTool("accuracy --detector cpu --poses 2 --set no_such_option=1", code);
    EXPECT_NE(code, 0) << out;
    EXPECT_TRUE(has(out, "no_such_option")) << out;
    out = runTool("accuracy --detector cpu --poses 2 --set justtext", code);
    EXPECT_NE(code, 0) << out;
    EXPECT_TRUE(has(out, "name=value")) << out;
    out = runTool("demo bunny-pile --headless --steps 1 --detector peel --set resolution=banana", code);
    EXPECT_NE(code, 0) << out;
    EXPECT_TRUE(has(out, "resolution=banana")) << out;
}
