# One interface target carries the project's warnings and CPU tuning, so every target opts in the same way.
add_library(distlab_warnings INTERFACE)
target_compile_options(distlab_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wno-missing-field-initializers>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wno-maybe-uninitialized>)
add_library(distlab_tuning INTERFACE)
if(DISTLAB_NATIVE)
  target_compile_options(distlab_tuning INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-march=native>)
endif()
target_compile_options(distlab_tuning INTERFACE $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CONFIG:Release>>:-O3>)
