# isc_add_detector(NAME SOURCES src...): called once from plugin/detectors/<NAME>/CMakeLists.txt.
# Adds the detector's sources to isc_detect and checks that the rest of the detector is where
# the layout says (a missing piece is a configure error, so tests and docs cannot vanish
# silently): its tests tests/detectors/<NAME>/CMakeLists.txt and its page
# docs/detectors/<NAME>.md. Its sources define isc::DetectorInfo isc::detectors::<NAME>Info()
# (the generated registry calls it); its GLSL lives in shaders/<NAME>/ (embedded with the rest).
function(isc_add_detector name)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  foreach(required tests/detectors/${name}/CMakeLists.txt docs/detectors/${name}.md)
    if(NOT EXISTS ${PROJECT_SOURCE_DIR}/${required})
      message(FATAL_ERROR "detector '${name}': ${required} is missing. Every detector in the registry "
                          "(plugin/detectors/CMakeLists.txt) has its tests and its page; add them or take "
                          "the detector out of the registry.")
    endif()
  endforeach()
  list(TRANSFORM ARG_SOURCES PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/)
  target_sources(isc_detect PRIVATE ${ARG_SOURCES})
  set_property(GLOBAL APPEND PROPERTY ISC_DETECTOR_NAMES ${name})
endfunction()
