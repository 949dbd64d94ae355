# Build time. CI builds three trees (ci, asan, tsan) from a fresh clone on two cores, and most of
# that time went to compiling the same headers and the same inline code again in every source: a
# test of 234 lines parsed for 12.8 s, and a CLI source spent 19 of its 34 s generating code for the
# templates of nlohmann/json and CLI11 that every other CLI source generated as well. Two remedies,
# neither of which changes what a source means (configure with both options OFF, as the dev preset
# does, to check that every source includes what it uses):
#  - unity builds: a target's sources compiled in batches of 8, so each batch parses and generates
#    the shared code once;
#  - precompiled headers: the heavy headers parsed once per target, or once per folder of tests.
# With the tests' own code at -O1 (tests/CMakeLists.txt), a fresh ci tree took 604 s instead of
# 1,173 s on the two-core development VM.
option(DISTLAB_UNITY_BUILD "Compile the libraries' and the CLI's sources in batches" ON)
option(DISTLAB_PRECOMPILED_HEADERS "Precompile the headers most sources include" ON)

# distlab_unity_build(target [EXCEPT source...]): the target's sources in batches of 8, but for the
# EXCEPT sources, which compile alone as before.
function(distlab_unity_build target)
  cmake_parse_arguments(ARG "" "" "EXCEPT" ${ARGN})
  if(NOT DISTLAB_UNITY_BUILD)
    return()
  endif()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  if(ARG_EXCEPT)
    set_source_files_properties(${ARG_EXCEPT} TARGET_DIRECTORY ${target} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  endif()
endfunction()

# The standard headers nearly every source of the CLI, the app and the tests includes.
set(DISTLAB_PCH_STANDARD_HEADERS
  <algorithm> <array> <atomic> <chrono> <cmath> <cstdint> <cstdio> <cstring> <filesystem> <functional>
  <limits> <map> <memory> <optional> <stdexcept> <string> <string_view> <thread> <utility> <vector>)

# distlab_precompile_headers(target [header...]): the standard set and the given headers, precompiled
# once for the target and used by each of its sources.
function(distlab_precompile_headers target)
  if(DISTLAB_PRECOMPILED_HEADERS)
    target_precompile_headers(${target} PRIVATE ${DISTLAB_PCH_STANDARD_HEADERS} ${ARGN})
  endif()
endfunction()

# distlab_share_precompiled_headers(target key [header...]): for executables of one source each (the
# tests), where a header precompiled per target would be parsed as often as before. The first target
# of a key precompiles the headers; later ones reuse its file. A key must name everything that sets
# compile flags (folder, libraries, definitions): a precompiled header is only valid for sources
# compiled with the flags it was made with (GCC ignores an invalid one, clang refuses it). Qt's
# generated mocs_compilation.cpp, next to empty in a test, skips it (loading it cost more than that
# file's compile).
function(distlab_share_precompiled_headers target key)
  if(NOT DISTLAB_PRECOMPILED_HEADERS)
    return()
  endif()
  string(MAKE_C_IDENTIFIER "${key}" id)
  get_property(donor GLOBAL PROPERTY DISTLAB_PCH_DONOR_${id})
  if(donor)
    target_precompile_headers(${target} REUSE_FROM ${donor})
  else()
    distlab_precompile_headers(${target} ${ARGN})
    set_property(GLOBAL PROPERTY DISTLAB_PCH_DONOR_${id} ${target})
  endif()
  set_source_files_properties(${CMAKE_CURRENT_BINARY_DIR}/${target}_autogen/mocs_compilation.cpp
                              PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
endfunction()
