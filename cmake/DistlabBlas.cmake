# The engine's float matrix products go through OpenBLAS's sgemm (chosen by measurement on these
# cores: tests/bench/gemm_paths.sh; it allocates nothing per call, unlike oneDNN's). Only the OpenMP
# build will do: the engine sizes its OpenMP teams per replica thread and OpenBLAS's OpenMP build
# follows them, where its pthreads build would start threads of its own beside them. The engine
# loads it by full path at start-up (model/matrix_product.cpp says why it is not linked), so the
# libblas alternative, which may point at the pthreads build, does not decide.
set(DISTLAB_OPENBLAS_DIR "/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/openblas-openmp" CACHE PATH
    "Folder of OpenBLAS's OpenMP build (libopenblas.so.0)")
find_file(DISTLAB_OPENBLAS_LIBRARY libopenblas.so.0 PATHS ${DISTLAB_OPENBLAS_DIR} NO_DEFAULT_PATH)
find_path(DISTLAB_OPENBLAS_INCLUDE_DIR cblas.h
  PATHS /usr/include/${CMAKE_LIBRARY_ARCHITECTURE}/openblas-openmp NO_DEFAULT_PATH)
if(NOT DISTLAB_OPENBLAS_LIBRARY OR NOT DISTLAB_OPENBLAS_INCLUDE_DIR)
  message(FATAL_ERROR "OpenBLAS (OpenMP build) not found under ${DISTLAB_OPENBLAS_DIR}: "
                      "apt-get install libopenblas-openmp-dev (packaging/setup-debian.sh does)")
endif()
message(STATUS "DistLab: OpenBLAS (OpenMP build): ${DISTLAB_OPENBLAS_LIBRARY}")
add_library(distlab_blas INTERFACE)
target_include_directories(distlab_blas SYSTEM INTERFACE ${DISTLAB_OPENBLAS_INCLUDE_DIR})
target_compile_definitions(distlab_blas INTERFACE DISTLAB_OPENBLAS_LIBRARY="${DISTLAB_OPENBLAS_LIBRARY}")
target_link_libraries(distlab_blas INTERFACE ${CMAKE_DL_LIBS})
# Loaded at run time, so dpkg-shlibdeps cannot see it: the package names it.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libopenblas0-openmp")
