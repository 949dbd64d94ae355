# Checks that the documentation in docs/ keeps up with the code. Needs no build:
#   cmake -DSOURCE_DIR=/path/to/distlab -P tests/docs/check_docs.cmake
#
# 1. Every key the run-config reader accepts (each allowOnly({...}) list under engine/src) and every
#    key of the variable-lab script reader (its requireObject(..., {...}) lists) must appear in
#    docs/interfaces.md written as `key`.
# 2. Every mention of semantics.md or interfaces.md in engine/, ui/, app/ and tests/ must name the
#    file under docs/, and every section it cites must be a numbered heading of that file
#    ("## 4. ...", "### 4.4 ..."). A citation is the file, then sections: "docs/semantics.md §4",
#    "§4.4", a range "§1–3", and more of the same file after ", " or " and " ("§1–3 and §6.7").
#    A section sign that is not part of such a citation is an error too: the reader could not tell
#    which file it means.
# Any failure is listed (file, line, what is missing) and the script exits non-zero.
cmake_minimum_required(VERSION 3.20)

if(NOT SOURCE_DIR)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=<the DistLab source folder> -P check_docs.cmake")
endif()
get_filename_component(SOURCE_DIR "${SOURCE_DIR}" ABSOLUTE)
set(DOCS_DIR "${SOURCE_DIR}/docs")
set(SECTION_SIGN "§")
set(problems "")
set(problem_count 0)

macro(report text)
  string(APPEND problems "  - ${text}\n")
  math(EXPR problem_count "${problem_count} + 1")
endmacro()

foreach(doc IN ITEMS architecture.md semantics.md interfaces.md)
  if(NOT EXISTS "${DOCS_DIR}/${doc}")
    report("docs/${doc} is missing")
  endif()
endforeach()

# ---- 1. Config and script keys -------------------------------------------------------------
set(interfaces_text "")
if(EXISTS "${DOCS_DIR}/interfaces.md")
  file(READ "${DOCS_DIR}/interfaces.md" interfaces_text)
endif()

file(GLOB_RECURSE reader_sources LIST_DIRECTORIES false
  "${SOURCE_DIR}/engine/src/*.cpp" "${SOURCE_DIR}/engine/src/*.hpp")
list(SORT reader_sources)
set(key_count 0)
set(list_count 0)
foreach(source IN LISTS reader_sources)
  file(READ "${source}" content)
  string(FIND "${content}" "allowOnly({" has_allow)
  string(FIND "${content}" "requireObject(" has_require)
  if(has_allow EQUAL -1 AND has_require EQUAL -1)
    continue()
  endif()
  file(RELATIVE_PATH relative "${SOURCE_DIR}" "${source}")
  # allowOnly({"a", "b"}) in the run-config reader; requireObject(node, path, {"a", "b"}) in the
  # variable-lab script reader. Neither list holds a semicolon or a closing brace.
  string(REGEX MATCHALL "allowOnly\\(\\{[^};]*\\}" allow_lists "${content}")
  string(REGEX MATCHALL "requireObject\\([^;{)]*, \\{[^};]*\\}" require_lists "${content}")
  set(seen "")
  foreach(key_list IN LISTS allow_lists require_lists)
    math(EXPR list_count "${list_count} + 1")
    string(REGEX MATCHALL "\"[A-Za-z0-9_]+\"" quoted_keys "${key_list}")
    foreach(quoted IN LISTS quoted_keys)
      string(REPLACE "\"" "" key "${quoted}")
      if(key IN_LIST seen)
        continue()
      endif()
      list(APPEND seen "${key}")
      math(EXPR key_count "${key_count} + 1")
      string(FIND "${interfaces_text}" "`${key}`" documented)
      if(documented EQUAL -1)
        report("${relative}: the key \"${key}\" is accepted by the reader but docs/interfaces.md does not document it (write it as `${key}`)")
      endif()
    endforeach()
  endforeach()
endforeach()
if(list_count EQUAL 0)
  report("found no allowOnly({...}) key lists under engine/src: has the run-config reader moved? Update tests/docs/check_docs.cmake")
endif()

# ---- 2. Section citations ------------------------------------------------------------------
# The section numbers of a doc: "## 4. Title" gives 4, "### 4.4 Title" gives 4.4.
function(section_numbers doc out)
  set(numbers "")
  if(EXISTS "${DOCS_DIR}/${doc}")
    file(STRINGS "${DOCS_DIR}/${doc}" headings ENCODING UTF-8 REGEX "^#+ [0-9]")
    foreach(heading IN LISTS headings)
      if(heading MATCHES "^#+ ([0-9]+(\\.[0-9]+)*)\\.? ")
        list(APPEND numbers "${CMAKE_MATCH_1}")
      endif()
    endforeach()
  endif()
  set(${out} "${numbers}" PARENT_SCOPE)
endfunction()
section_numbers(semantics.md sections_semantics.md)
section_numbers(interfaces.md sections_interfaces.md)

file(GLOB_RECURSE cited_sources LIST_DIRECTORIES false
  "${SOURCE_DIR}/engine/*" "${SOURCE_DIR}/ui/*" "${SOURCE_DIR}/app/*" "${SOURCE_DIR}/tests/*")
list(FILTER cited_sources INCLUDE REGEX "\\.(c|cc|cpp|cxx|h|hh|hpp|cu|cuh|cmake|txt|py|sh|md|json|in)$")
list(FILTER cited_sources EXCLUDE REGEX "/tests/docs/")  # this checker quotes the patterns it looks for
list(SORT cited_sources)

# One citation: the file under docs/, then sections (4, 4.4 or a range 1–3), joined by ", " or " and ".
# Lines are matched with en dashes turned into hyphens (CMake's regex has no multi-byte classes and
# at most nine groups).
set(section_regex "${SECTION_SIGN}([0-9]+(\\.[0-9]+)*)(-([0-9]+))?")
set(citation_regex "docs/(semantics|interfaces)\\.md ${SECTION_SIGN}[0-9]+(\\.[0-9]+)*(-[0-9]+)?((,|, and| and) ${SECTION_SIGN}[0-9]+(\\.[0-9]+)*(-[0-9]+)?)*")
set(citation_count 0)
foreach(source IN LISTS cited_sources)
  file(READ "${source}" content)
  string(FIND "${content}" "${SECTION_SIGN}" has_sign)
  string(FIND "${content}" "semantics.md" has_semantics)
  string(FIND "${content}" "interfaces.md" has_interfaces)
  if(has_sign EQUAL -1 AND has_semantics EQUAL -1 AND has_interfaces EQUAL -1)
    continue()
  endif()
  file(RELATIVE_PATH relative "${SOURCE_DIR}" "${source}")
  # One list element per line: characters that CMake lists treat specially become harmless ones.
  string(REPLACE "\\" "/" content "${content}")
  string(REPLACE ";" "," content "${content}")
  string(REPLACE "[" "(" content "${content}")
  string(REPLACE "]" ")" content "${content}")
  string(REPLACE "\n" ";" lines "${content}")
  set(line_number 0)
  foreach(line IN LISTS lines)
    math(EXPR line_number "${line_number} + 1")
    string(FIND "${line}" "${SECTION_SIGN}" line_sign)
    string(FIND "${line}" ".md" line_md)
    if(line_sign EQUAL -1 AND line_md EQUAL -1)
      continue()
    endif()
    set(where "${relative}:${line_number}")
    # Every mention of the two docs must name them under docs/.
    string(REGEX MATCHALL "[A-Za-z0-9_./-]*(semantics|interfaces)\\.md" mentions "${line}")
    foreach(mention IN LISTS mentions)
      if(NOT mention MATCHES "(^|/)docs/(semantics|interfaces)\\.md$")
        string(REGEX MATCH "(semantics|interfaces)\\.md$" name "${mention}")
        report("${where}: \"${mention}\" is not a file of docs/; cite docs/${name}")
      endif()
    endforeach()
    # Every cited section must be a heading of that doc.
    string(REPLACE "–" "-" normalized "${line}")
    string(REGEX MATCHALL "${citation_regex}" citations "${normalized}")
    set(rest "${normalized}")
    foreach(citation IN LISTS citations)
      math(EXPR citation_count "${citation_count} + 1")
      string(REPLACE "${citation}" "" rest "${rest}")
      string(REGEX MATCH "^docs/(semantics|interfaces)" parsed "${citation}")
      set(doc "${CMAKE_MATCH_1}.md")
      string(REGEX MATCHALL "${section_regex}" sections "${citation}")
      set(wanted "")
      foreach(section IN LISTS sections)
        string(REGEX MATCH "${section_regex}" parsed "${section}")
        set(first "${CMAKE_MATCH_1}")
        set(last "${CMAKE_MATCH_4}")
        if(last STREQUAL "")
          list(APPEND wanted "${first}")
        elseif(NOT first MATCHES "^[0-9]+$" OR last LESS first)
          report("${where}: \"${section}\" is not a range of sections")
        else()
          foreach(number RANGE ${first} ${last})
            list(APPEND wanted "${number}")
          endforeach()
        endif()
      endforeach()
      if(NOT EXISTS "${DOCS_DIR}/${doc}")
        report("${where}: cites docs/${doc}, which does not exist")
        continue()
      endif()
      foreach(number IN LISTS wanted)
        if(NOT number IN_LIST sections_${doc})
          report("${where}: cites docs/${doc} ${SECTION_SIGN}${number}, but docs/${doc} has no heading numbered ${number}")
        endif()
      endforeach()
    endforeach()
    string(FIND "${rest}" "${SECTION_SIGN}" stray_sign)
    if(NOT stray_sign EQUAL -1)
      string(STRIP "${line}" shown)
      report("${where}: a section sign that names no file (\"${shown}\"); write docs/semantics.md ${SECTION_SIGN}N or docs/interfaces.md ${SECTION_SIGN}N")
    endif()
  endforeach()
endforeach()

if(problem_count GREATER 0)
  message(FATAL_ERROR "docs check: ${problem_count} problem(s):\n${problems}")
endif()
message(STATUS "docs check: ${key_count} reader keys are documented in docs/interfaces.md; "
               "${citation_count} section citations resolve to headings in docs/")
