# ThreadSanitizer runs of the libomp test (tests/openmp/CMakeLists.txt when the
# project compiler is Clang with libomp, tests/openmp/libomp/CMakeLists.txt
# otherwise). See tsan_libomp_tool.cpp for why the tool is needed.
#
# forkscale_openmp_tsan_check(<libomp library> <why variable>)
#   Finds Archer (libarcher.so) and ompt-multiplex.h next to libomp. Sets <why
#   variable> to the reason when one is missing (the caller then registers a
#   skipped test), to "" otherwise.
# forkscale_openmp_tsan_setup(<target> <test>)
#   Links tsan_libomp_tool.cpp (compiled without TSan) into <target> and gives
#   <test> the environment that loads Archer behind it.
set(FORKSCALE_OPENMP_TOOL_DIR "${CMAKE_CURRENT_LIST_DIR}")

function(forkscale_openmp_tsan_check libomp why_var)
  get_filename_component(libomp_dir "${libomp}" DIRECTORY)
  find_library(FORKSCALE_ARCHER_LIBRARY NAMES archer
               HINTS "${libomp_dir}" DOC "LLVM's Archer (libarcher.so), the OMPT tool for TSan")
  find_path(FORKSCALE_OMPT_MULTIPLEX_DIR ompt-multiplex.h
            HINTS "${libomp_dir}/../include" "${libomp_dir}/../../include"
            DOC "the directory of LLVM's ompt-multiplex.h")
  if(NOT FORKSCALE_ARCHER_LIBRARY)
    set(${why_var} "Archer (libarcher.so) was not found next to ${libomp}; without it TSan cannot see OpenMP's synchronization" PARENT_SCOPE)
  elseif(NOT FORKSCALE_OMPT_MULTIPLEX_DIR)
    set(${why_var} "ompt-multiplex.h (LLVM's OpenMP development files) was not found near ${libomp}" PARENT_SCOPE)
  else()
    set(${why_var} "" PARENT_SCOPE)
  endif()
endfunction()

function(forkscale_openmp_tsan_setup target test)
  add_library(${target}_tsan_tool OBJECT "${FORKSCALE_OPENMP_TOOL_DIR}/tsan_libomp_tool.cpp")
  target_include_directories(${target}_tsan_tool PRIVATE "${FORKSCALE_OMPT_MULTIPLEX_DIR}")
  target_link_libraries(${target}_tsan_tool PRIVATE OpenMP::OpenMP_CXX)
  target_compile_features(${target}_tsan_tool PRIVATE cxx_std_17)
  target_compile_options(${target}_tsan_tool PRIVATE -fno-sanitize=thread)
  target_link_libraries(${target} PRIVATE ${target}_tsan_tool ${CMAKE_DL_LIBS})
  set_tests_properties(${test} PROPERTIES ENVIRONMENT
    "TSAN_OPTIONS=halt_on_error=1 ignore_noninstrumented_modules=1;ARCHER_OPTIONS=verbose=1;FORKSCALE_ARCHER_LIBRARY=${FORKSCALE_ARCHER_LIBRARY}")
endfunction()
