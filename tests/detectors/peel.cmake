# The depth-peeling detector's tests (included from tests/detectors/CMakeLists.txt).
isc_add_test(isc_test_peel SOURCES ${CMAKE_CURRENT_LIST_DIR}/PeelDetectorTest.cpp LIBS isc_detect isc_test_gl)
