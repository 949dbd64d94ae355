# Fails when a C++ file of the project is not as .clang-format writes it, naming each such file.
#   cmake -DSOURCE_DIR=<DistLab> -DCLANG_FORMAT=clang-format -P tests/lint/check_format.cmake
# Fix: clang-format -i FILE (or every file: git ls-files '*.cpp' '*.hpp' '*.h' '*.cu' | xargs clang-format -i).
cmake_minimum_required(VERSION 3.20)
file(GLOB_RECURSE files RELATIVE "${SOURCE_DIR}"
  "${SOURCE_DIR}/engine/*.cpp" "${SOURCE_DIR}/engine/*.hpp" "${SOURCE_DIR}/engine/*.h" "${SOURCE_DIR}/engine/*.cu"
  "${SOURCE_DIR}/ui/*.cpp" "${SOURCE_DIR}/ui/*.hpp" "${SOURCE_DIR}/app/*.cpp" "${SOURCE_DIR}/app/*.hpp"
  "${SOURCE_DIR}/tests/*.cpp" "${SOURCE_DIR}/tests/*.hpp")
list(FILTER files EXCLUDE REGEX "(^|/)build/")
set(unformatted "")
foreach(file IN LISTS files)
  execute_process(COMMAND "${CLANG_FORMAT}" --dry-run --Werror "${file}"
                  WORKING_DIRECTORY "${SOURCE_DIR}" RESULT_VARIABLE result OUTPUT_QUIET ERROR_QUIET)
  if(NOT result EQUAL 0)
    string(APPEND unformatted "  ${file}\n")
  endif()
endforeach()
if(unformatted)
  message(FATAL_ERROR "not as .clang-format writes them (clang-format -i FILE):\n${unformatted}")
endif()
list(LENGTH files count)
message(STATUS "${count} files as .clang-format writes them")
