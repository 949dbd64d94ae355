# Desktop integration, man pages, example runs and the Debian package (CPack DEB).
#
#   cmake --build build/release && (cd build/release && cpack -G DEB)
#
# makes distlab_<version>_<arch>.deb: distlab and distlab-cli in /usr/bin, the desktop entry, icon,
# AppStream metainfo, gzipped man pages and the example runs under /usr/share/distlab/examples.
# Dependencies are computed from the binaries by dpkg-shlibdeps. Included from the root
# CMakeLists.txt after the subdirectories (the targets' own install() rules put the binaries in bin).
include(GNUInstallDirs)

# The one place the project's homepage is set. The AppStream metainfo uses it as the base of its
# screenshot URLs; tests/packaging/test_deb_package.sh checks that the two agree.
set(DISTLAB_HOMEPAGE_URL "https://github.com/distlab/distlab")
set(DISTLAB_APP_ID "io.github.distlab.DistLab")  # AppStream id = desktop file name = icon name
set(DISTLAB_PACKAGE_MAINTAINER "DistLab maintainers <maintainers@users.noreply.a-seed-ffc5659d.example>"
    CACHE STRING "Maintainer field of the Debian package (Name <email>)")

set(_distlab_packaging_dir ${PROJECT_SOURCE_DIR}/packaging)

# --- Example runs -------------------------------------------------------------------------------
file(GLOB _distlab_examples CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/resources/examples/*.json)
install(FILES ${_distlab_examples} DESTINATION ${CMAKE_INSTALL_DATADIR}/distlab/examples)
file(GLOB _distlab_lessons CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/resources/lessons/*.json)
install(FILES ${_distlab_lessons} DESTINATION ${CMAKE_INSTALL_DATADIR}/distlab/lessons)

# --- Desktop entry, icon, AppStream metainfo (only with the desktop app) -------------------------
if(DISTLAB_GUI)
  install(FILES ${_distlab_packaging_dir}/${DISTLAB_APP_ID}.desktop
          DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES ${_distlab_packaging_dir}/${DISTLAB_APP_ID}.svg
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
  install(FILES ${_distlab_packaging_dir}/${DISTLAB_APP_ID}.metainfo.xml
          DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)

  # The metainfo is hand-written (release notes need a person); say so when it falls behind.
  file(READ ${_distlab_packaging_dir}/${DISTLAB_APP_ID}.metainfo.xml _distlab_metainfo)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               ${_distlab_packaging_dir}/${DISTLAB_APP_ID}.metainfo.xml)
  if(NOT _distlab_metainfo MATCHES "<release version=\"${PROJECT_VERSION}\"")
    message(WARNING "packaging/${DISTLAB_APP_ID}.metainfo.xml has no <release version=\"${PROJECT_VERSION}\">: "
                    "add a release entry for this version")
  endif()
  if(NOT _distlab_metainfo MATCHES "<url type=\"homepage\">${DISTLAB_HOMEPAGE_URL}</url>")
    message(WARNING "packaging/${DISTLAB_APP_ID}.metainfo.xml: its homepage URL is not ${DISTLAB_HOMEPAGE_URL}")
  endif()
endif()

# --- Man pages, compressed as Debian policy asks (gzip -9n: no name or time stamp) ---------------
find_program(DISTLAB_GZIP gzip)
if(DISTLAB_GZIP)
  set(_distlab_man_pages distlab-cli.1 distlab-worker.1)
  if(DISTLAB_GUI)
    list(APPEND _distlab_man_pages distlab.1)
  endif()
  set(_distlab_man_outputs)
  foreach(page IN LISTS _distlab_man_pages)
    set(_out ${CMAKE_CURRENT_BINARY_DIR}/packaging/man/${page})
    add_custom_command(
      OUTPUT ${_out}.gz
      COMMAND ${CMAKE_COMMAND} -E copy ${_distlab_packaging_dir}/man/${page} ${_out}
      COMMAND ${DISTLAB_GZIP} -9nf ${_out}
      DEPENDS ${_distlab_packaging_dir}/man/${page}
      COMMENT "Compressing man page ${page}"
      VERBATIM)
    list(APPEND _distlab_man_outputs ${_out}.gz)
  endforeach()
  add_custom_target(distlab_man_pages ALL DEPENDS ${_distlab_man_outputs})
  install(FILES ${_distlab_man_outputs} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(WARNING "gzip not found: the man pages are not installed")
endif()

# --- CPack: the Debian package ------------------------------------------------------------------
set(CPACK_PACKAGE_NAME "distlab")
set(CPACK_PACKAGE_VENDOR "DistLab")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_HOMEPAGE_URL "${DISTLAB_HOMEPAGE_URL}")
set(CPACK_PACKAGE_CONTACT "${DISTLAB_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "desktop lab for distributed neural-network training")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_FILE_NAME "distlab-${PROJECT_VERSION}")  # other generators; DEB uses DEB-DEFAULT

# Debian control: CPack puts CPACK_PACKAGE_DESCRIPTION_SUMMARY first and indents this body.
set(_distlab_description
    "DistLab builds a small neural network, trains it on several logical devices
with a chosen distribution strategy (one device; mirrored, with a ring, tree or
hierarchical all-reduce; central storage; parameter servers, async or sync) and
shows every replica as it trains: each replica's copy of the variables, its
gradients before and after the all-reduce, the bytes it sent, a device timeline
and the throughput. The engine (Eigen on CPUs) computes what TensorFlow's
tf.distribute computes; a variable lab shows how distributed variables are read
and updated.
.
This package contains the desktop app (distlab), the headless command-line tool
(distlab-cli: train, bench, validate, varlab, devices, collectives) and example
run configs in /usr/share/distlab/examples.")
if(DISTLAB_NATIVE)
  string(APPEND _distlab_description "
.
This build was compiled with -march=native: it runs only on CPUs with the
instruction set of the machine that built it. Configure with
-DDISTLAB_NATIVE=OFF for a package that runs on any ${CMAKE_SYSTEM_PROCESSOR} machine.")
endif()
if(DISTLAB_HAVE_CUDA)
  # The CUDA backend module (engine/CMakeLists.txt) needs libcudart, cuBLAS and NCCL from NVIDIA's
  # toolkit, which no Debian package provides: dpkg-shlibdeps names no dependency for them, and the
  # programs do not need them (they load the module only when a GPU is asked for), so the package
  # installs and runs anywhere; the description tells whoever wants GPUs what to install.
  set(_distlab_cuda_libs "libcudart.so.${CUDAToolkit_VERSION_MAJOR}, libcublas.so.${CUDAToolkit_VERSION_MAJOR}")
  if(DISTLAB_NCCL_LIBRARY)
    file(REAL_PATH "${DISTLAB_NCCL_LIBRARY}" _distlab_nccl_real)
    get_filename_component(_distlab_nccl_name "${_distlab_nccl_real}" NAME)
    if(_distlab_nccl_name MATCHES "^(libnccl\\.so\\.[0-9]+)")
      string(APPEND _distlab_cuda_libs " and ${CMAKE_MATCH_1}")
    endif()
  endif()
  string(APPEND _distlab_description "
.
GPU training is in a module (/usr/${DISTLAB_GPU_BACKEND_INSTALL_DIR}/libdistlab-cuda.so) loaded
only when a run or report asks for a GPU. It needs the NVIDIA CUDA
${CUDAToolkit_VERSION_MAJOR} runtime (${_distlab_cuda_libs}),
which no Debian package provides: install NVIDIA's CUDA toolkit for GPUs.
Without it everything else runs, and 'distlab-cli devices' says why no GPU
is usable.")
  message(STATUS "DistLab: the CUDA backend module will need ${_distlab_cuda_libs} from the CUDA toolkit; "
                 "the programs and the Debian package's Depends do not")
endif()
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "${_distlab_description}")

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # distlab_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_NAME "distlab")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${DISTLAB_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION "science")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${DISTLAB_HOMEPAGE_URL}")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # Depends computed from the binaries by dpkg-shlibdeps
# The fashion_mnist data source reads Debian's data set (fashion-mnist-mirrored-4.json uses it).
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "dataset-fashion-mnist")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)  # as dpkg-deb does by default

set(CPACK_GENERATOR "DEB")
include(CPack)
