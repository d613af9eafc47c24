# Generates the GL 4.5 core + EGL 1.5 loaders with Debian's python3-glad at build time.
# The generated code is never committed. --reproducible keeps glad off the network.
find_program(GLAD_EXECUTABLE glad REQUIRED
  DOC "glad 2 (Debian package python3-glad): apt-get install python3-glad")
set(ISC_GLAD_DIR ${CMAKE_BINARY_DIR}/glad)
set(ISC_GLAD_OUTPUTS ${ISC_GLAD_DIR}/src/gl.c ${ISC_GLAD_DIR}/src/egl.c
    ${ISC_GLAD_DIR}/include/glad/gl.h ${ISC_GLAD_DIR}/include/glad/egl.h)
add_custom_command(
  OUTPUT ${ISC_GLAD_OUTPUTS}
  COMMAND ${GLAD_EXECUTABLE} --quiet --reproducible --api gl:core=4.5,egl=1.5
          --out-path ${ISC_GLAD_DIR} c --loader
  COMMENT "Generating GL 4.5 core and EGL 1.5 loaders with glad"
  VERBATIM)
add_library(isc_glad STATIC ${ISC_GLAD_DIR}/src/gl.c ${ISC_GLAD_DIR}/src/egl.c)
target_include_directories(isc_glad PUBLIC $<BUILD_INTERFACE:${ISC_GLAD_DIR}/include>
                                            $<INSTALL_INTERFACE:include/isc/third_party>)
target_link_libraries(isc_glad PUBLIC ${CMAKE_DL_LIBS})
