#pragma once
/// Failures of the environment or of input (no EGL display, a shader that does not
/// compile, a mesh with NaN coordinates) come back as a Result that carries a message
/// saying what is wrong and what to do. Programmer errors are asserts instead.
#include <expected>
#include <string>
#include <utility>

namespace isc {

/// What went wrong, in words a user can act on.
struct Error {
    std::string message;
};

/// A value or an Error. `[[nodiscard]]` on every function that returns one.
template <class T>
using Result = std::expected<T, Error>;

/// Builds the error side of a Result: `return isc::fail("Mesh::create(): ...");`
inline std::unexpected<Error> fail(std::string message) {
    return std::unexpected<Error>(Error{std::move(message)});
}

}  // namespace isc
