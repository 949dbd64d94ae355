# The engine's float matrix products go through OpenBLAS's sgemm (chosen by measurement on AVX-512
# cores: tests/bench/gemm_paths.sh; it allocates nothing per call, unlike oneDNN's sgemm). Only the
# OpenMP build will do: the engine sizes its OpenMP teams per replica thread, and OpenBLAS's OpenMP
# build follows them, where its pthreads build would start threads of its own beside them. So the
# library is taken from Debian's openblas-openmp folder, and that folder is put on the RPATH so the
# libblas alternative (which may point at the pthreads build) does not decide at run time.
set(DISTLAB_OPENBLAS_DIR "/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/openblas-openmp" CACHE PATH
    "Folder of OpenBLAS's OpenMP build (libopenblas.so)")
find_library(DISTLAB_OPENBLAS_LIBRARY NAMES openblas PATHS ${DISTLAB_OPENBLAS_DIR} NO_DEFAULT_PATH)
find_path(DISTLAB_OPENBLAS_INCLUDE_DIR cblas.h
  PATHS /usr/include/${CMAKE_LIBRARY_ARCHITECTURE}/openblas-openmp NO_DEFAULT_PATH)
if(NOT DISTLAB_OPENBLAS_LIBRARY OR NOT DISTLAB_OPENBLAS_INCLUDE_DIR)
  message(FATAL_ERROR "OpenBLAS (OpenMP build) not found under ${DISTLAB_OPENBLAS_DIR}: "
                      "apt-get install libopenblas-openmp-dev (packaging/setup-debian.sh does)")
endif()
message(STATUS "DistLab: OpenBLAS (OpenMP build): ${DISTLAB_OPENBLAS_LIBRARY}")
add_library(distlab_blas INTERFACE)
target_include_directories(distlab_blas SYSTEM INTERFACE ${DISTLAB_OPENBLAS_INCLUDE_DIR})
target_link_libraries(distlab_blas INTERFACE ${DISTLAB_OPENBLAS_LIBRARY})
# Installed binaries find the OpenMP build first too (the build tree gets it from CMake's build RPATH).
set(CMAKE_INSTALL_RPATH "${DISTLAB_OPENBLAS_DIR}")
