#include "isc/mesh/MeshIo.h"

#include <tiny_obj_loader.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <utility>

#ifndef ISC_BUNNY_OBJ_DEFAULT
#error "ISC_BUNNY_OBJ_DEFAULT must be defined by plugin/mesh/CMakeLists.txt"
#endif

namespace isc {

namespace {

std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
    return s;
}

// tinyobjloader reads a coordinate it cannot parse ("nan", "abc") as 0 without a word,
// which would silently move a vertex. So the 'v' lines are checked here first: the first
// three fields must be finite numbers. Returns an empty string when all are.
std::string checkVertexLines(const std::string& text) {
    std::size_t vertex = 0;
    std::size_t lineNumber = 0;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        ++lineNumber;
        const std::size_t start = line.find_first_not_of(" \t");
        const bool isVertex = start != std::string::npos && (line.compare(start, 2, "v ") == 0 ||
                                                             line.compare(start, 2, "v\t") == 0);
        if (!isVertex) continue;
        ++vertex;
        std::istringstream fields(line.substr(start + 2));
        for (int axis = 0; axis < 3; ++axis) {
            std::string field;
            if (!(fields >> field)) {
                return "vertex " + std::to_string(vertex) + " (1-based, line " + std::to_string(lineNumber) +
                       ") has fewer than 3 coordinates";
            }
            char* end = nullptr;
            const double value = std::strtod(field.c_str(), &end);
            if (end != field.c_str() + field.size() || !std::isfinite(value) ||
                !std::isfinite(float(value))) {
                return "vertex " + std::to_string(vertex) + " (1-based, line " + std::to_string(lineNumber) +
                       ") has coordinate '" + field + "', not a finite number";
            }
        }
    }
    return {};
}

}  // namespace

Result<Mesh> loadObj(const std::string& path) {
    const std::string where = "loadObj(\"" + path + "\"): ";
    std::error_code ec;
    const std::filesystem::file_status status = std::filesystem::status(path, ec);
    if (!std::filesystem::exists(status)) {
        return fail(where + "no such file; check the path (relative paths are resolved "
                            "against the working directory)");
    }
    if (!std::filesystem::is_regular_file(status)) {
        return fail(where + "not a regular file");
    }

    std::ifstream file(path, std::ios::binary);
    std::ostringstream contents;
    contents << file.rdbuf();
    if (!file) return fail(where + "could not read it (permissions?)");
    const std::string text = std::move(contents).str();
    if (std::string bad = checkVertexLines(text); !bad.empty()) {
        return fail(where + bad + "; fix the file");
    }

    tinyobj::ObjReaderConfig config;
    config.triangulate = true;
    config.vertex_color = false;
    // Materials are not used, so no .mtl is read (ParseFromString ignores mtllib).
    tinyobj::ObjReader reader;
    if (!reader.ParseFromString(text, "", config)) {
        const std::string message = trimmed(reader.Error());
        return fail(where + "tinyobjloader could not parse it: " +
                    (message.empty() ? std::string("(no message)") : message));
    }

    const tinyobj::attrib_t& attrib = reader.GetAttrib();
    const std::size_t vertexCount = attrib.vertices.size() / 3;
    std::vector<Vec3> vertices;
    vertices.reserve(vertexCount);
    for (std::size_t i = 0; i < vertexCount; ++i) {
        vertices.emplace_back(float(attrib.vertices[3 * i]), float(attrib.vertices[3 * i + 1]),
                              float(attrib.vertices[3 * i + 2]));
    }

    std::vector<UVec3> triangles;
    for (const tinyobj::shape_t& shape : reader.GetShapes()) {
        std::size_t first = 0;
        for (std::size_t f = 0; f < shape.mesh.num_face_vertices.size(); ++f) {
            const std::size_t n = shape.mesh.num_face_vertices[f];
            std::vector<std::uint32_t> face;
            face.reserve(n);
            for (std::size_t k = 0; k < n; ++k) {
                const int index = shape.mesh.indices[first + k].vertex_index;
                if (index < 0 || std::size_t(index) >= vertexCount) {
                    return fail(where + "face " + std::to_string(f) + " of shape \"" + shape.name +
                                "\" refers to vertex " + std::to_string(index + 1) +
                                " (1-based) but the file has " + std::to_string(vertexCount) +
                                " vertices");
                }
                face.push_back(std::uint32_t(index));
            }
            first += n;
            // tinyobjloader already triangulated polygons; fan anything it left.
            for (std::size_t k = 1; k + 1 < face.size(); ++k) {
                triangles.push_back({face[0], face[k], face[k + 1]});
            }
        }
    }
    if (triangles.empty()) {
        return fail(where + "no faces ('f' lines) found: " + std::to_string(vertexCount) +
                    " vertices, 0 triangles; the OBJ must contain a surface");
    }

    std::string name = std::filesystem::path(path).stem().string();
    Result<Mesh> mesh = Mesh::create(std::move(name), std::move(vertices), std::move(triangles));
    if (!mesh) return fail(where + mesh.error().message);
    return mesh;
}

std::string bunnyPath() {
    if (const char* env = std::getenv("ISC_BUNNY_OBJ"); env != nullptr && env[0] != '\0') {
        return env;
    }
    return ISC_BUNNY_OBJ_DEFAULT;
}

Result<Mesh> loadBunny(float scale) {
    if (!std::isfinite(scale) || scale <= 0.0f) {
        return fail("loadBunny(): scale " + std::to_string(scale) +
                    " must be finite and positive");
    }
    const std::string path = bunnyPath();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
        return fail("loadBunny(): the bunny mesh is missing at \"" + path +
                    "\". Re-run cmake configure (cmake -S <source> -B <build>): it fetches npm "
                    "package bunny@1.0.1 with npm and converts it to OBJ. Or set ISC_BUNNY_OBJ "
                    "to the path of a copy of bunny.obj.");
    }
    Result<Mesh> mesh = loadObj(path);
    if (!mesh) return fail("loadBunny(): " + mesh.error().message);
    return mesh->centered().scaled(scale);
}

}  // namespace isc
