# One interface target carries the project's warnings and CPU tuning, so every target opts in the same way.
add_library(distlab_warnings INTERFACE)
target_compile_options(distlab_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wno-missing-field-initializers>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wno-maybe-uninitialized>)
# The ci preset turns the project's own warnings into errors (not third-party headers: Qt, Eigen and
# CLI11 come in as system includes), so a change that warns does not pass CI.
option(DISTLAB_WARNINGS_AS_ERRORS "Treat warnings in DistLab's own C++ code as errors" OFF)
if(DISTLAB_WARNINGS_AS_ERRORS)
  target_compile_options(distlab_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
endif()
add_library(distlab_tuning INTERFACE)
if(DISTLAB_NATIVE)
  target_compile_options(distlab_tuning INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-march=native>)
endif()
target_compile_options(distlab_tuning INTERFACE $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CONFIG:Release>>:-O3>)
