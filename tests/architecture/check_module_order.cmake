# The engine's modules in one order, each depending only on the modules before it. Needs no build:
#   cmake -DSOURCE_DIR=/path/to/distlab -P tests/architecture/check_module_order.cmake
#
# 1. Every folder of engine/src and engine/include/distlab is a module of MODULE_ORDER below, so a
#    new module has to be given its place.
# 2. No file of a module includes a header of a module after it: neither a public header
#    ("distlab/<module>/x.hpp", <distlab/<module>/x.hpp>) nor an engine-private one
#    ("<module>/x.hpp" from engine/src).
# 3. docs/architecture.md states the same order, on its line "Module order (bottom to top): ...".
# Every violation is listed (file, line, the include) and the script exits non-zero.
cmake_minimum_required(VERSION 3.20)

# Bottom to top. A module may include itself and any module to its left.
set(MODULE_ORDER core tensor files config data optim model device comm telemetry distribute session formats exports study)

if(NOT SOURCE_DIR)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=<the DistLab source folder> -P check_module_order.cmake")
endif()
get_filename_component(SOURCE_DIR "${SOURCE_DIR}" ABSOLUTE)
set(problems "")
set(problem_count 0)
macro(report text)
  string(APPEND problems "  - ${text}\n")
  math(EXPR problem_count "${problem_count} + 1")
endmacro()

# 1. Every module folder has its place.
foreach(root IN ITEMS engine/src engine/include/distlab)
  file(GLOB entries LIST_DIRECTORIES true RELATIVE "${SOURCE_DIR}/${root}" "${SOURCE_DIR}/${root}/*")
  foreach(entry IN LISTS entries)
    if(IS_DIRECTORY "${SOURCE_DIR}/${root}/${entry}" AND NOT entry IN_LIST MODULE_ORDER)
      report("${root}/${entry}: a module missing from MODULE_ORDER (tests/architecture/check_module_order.cmake) and docs/architecture.md")
    endif()
  endforeach()
endforeach()

# 2. No include reaches up.
file(GLOB_RECURSE sources RELATIVE "${SOURCE_DIR}"
  "${SOURCE_DIR}/engine/src/*.cpp" "${SOURCE_DIR}/engine/src/*.hpp"
  "${SOURCE_DIR}/engine/include/distlab/*.hpp")
set(checked 0)
foreach(source IN LISTS sources)
  if(source MATCHES "^engine/(src|include/distlab)/([a-z_]+)/")
    set(module "${CMAKE_MATCH_2}")
  else()
    continue()
  endif()
  list(FIND MODULE_ORDER "${module}" own_rank)
  if(own_rank LESS 0)
    continue()  # reported above
  endif()
  file(STRINGS "${SOURCE_DIR}/${source}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
  set(line_number 0)
  foreach(line IN LISTS includes)
    if(line MATCHES "#[ \t]*include[ \t]*[<\"](distlab/)?([a-z_]+)/[^>\"]+[>\"]")
      set(target "${CMAKE_MATCH_2}")
      set(is_public "${CMAKE_MATCH_1}")
      list(FIND MODULE_ORDER "${target}" target_rank)
      # A private include ("comm/x.hpp") names an engine module only from engine/src; elsewhere a
      # folder of that name would be some other library's.
      if(target_rank GREATER own_rank AND (is_public OR source MATCHES "^engine/src/"))
        string(STRIP "${line}" shown)
        report("${source}: ${shown}: module '${module}' includes '${target}', which comes after it")
      endif()
    endif()
  endforeach()
  math(EXPR checked "${checked} + 1")
endforeach()

# 3. The architecture page states this order.
list(JOIN MODULE_ORDER "` → `" joined)
set(stated "Module order (bottom to top): `${joined}`")
file(READ "${SOURCE_DIR}/docs/architecture.md" architecture)
string(FIND "${architecture}" "${stated}" found)
if(found LESS 0)
  report("docs/architecture.md: lacks the line \"${stated}\"")
endif()

if(problem_count GREATER 0)
  message(FATAL_ERROR "${problem_count} module-order problem(s):\n${problems}")
endif()
message(STATUS "module order holds in ${checked} engine files: ${MODULE_ORDER}")
