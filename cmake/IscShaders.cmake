# isc_embed_shaders(target DIR dir): every .glsl and .h under dir (shaders/common/, shaders/<detector>/,
# ...) becomes a byte array in a generated source, looked up by its path relative to dir
# ("peel/resolve.glsl") through isc::gl::embeddedShader(name).
function(isc_embed_shaders target)
  cmake_parse_arguments(ARG "" "DIR" "" ${ARGN})
  file(GLOB_RECURSE shader_files CONFIGURE_DEPENDS ${ARG_DIR}/*.glsl ${ARG_DIR}/*.h)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/EmbeddedShaders.cpp)
  # "|" separates the files: a ";" list would be split into several arguments and quotes
  # would reach the script literally under VERBATIM.
  list(JOIN shader_files "|" joined)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DROOT=${ARG_DIR} -DFILES=${joined}
            -P ${PROJECT_SOURCE_DIR}/cmake/EmbedShaders.script.cmake
    DEPENDS ${shader_files} ${PROJECT_SOURCE_DIR}/cmake/EmbedShaders.script.cmake
    COMMENT "Embedding shaders"
    VERBATIM)
  target_sources(${target} PRIVATE ${out})
endfunction()
