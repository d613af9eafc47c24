include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
install(TARGETS isc_all isc_bullet isc_particles isc_detect isc_gl isc_glad isc_geometry isc_scene isc_mesh isc_core
        EXPORT iscTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY plugin/include/isc integration/include/isc DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${ISC_GLAD_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/isc/third_party)
# GLSL/C++ shared binding points (isc/gl/Bindings.h includes it).
install(FILES shaders/common/bindings.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/isc/shaders/common)
install(EXPORT iscTargets NAMESPACE isc:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/isc)
configure_package_config_file(cmake/iscConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/iscConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/isc)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/iscConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/iscConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/iscConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/isc)
