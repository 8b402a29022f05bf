# The tests that need LLVM's libomp (with its tools interface, OMPT), for the
# sub-project tests/ompt/libomp and for tests/ompt/CMakeLists.txt when the
# project compiler is itself Clang with libomp.
#
# forkscale_ompt_libomp_tests(<prefix> <sanitize>)
#   <prefix>ompt_cases       by-hand programs (test_ompt_cases.cpp)
#   <prefix>ompt_random      random programs against the oracle, and the same
#                            programs through the annotated adapter (test_ompt_random.cpp)
#   <prefix>ompt_startup     FORKSCALE_OMPT=1 reports, the one-line messages (test_ompt_startup.cpp)
#   <prefix>ompt_disabled    forkscale/ompt.hpp with FORKSCALE_ENABLE=0: no message, no tool
#   <prefix>ompt_stress      BOTS-style programs (bots_programs.cpp), whole-program, three runs
#                            each at 1 and 2 threads (ompt_stress.py); the target
#                            <prefix>ompt_stress_run runs fifty each, by hand
#   <prefix>openmp_annotated the adapter's schedules, taskloop, depend on libomp (test_openmp_annotated.cpp)
# <sanitize> "thread": only the annotated test, with Archer behind
# tests/openmp/tsan_libomp_tool.cpp; every OMPT-mode test is registered as
# skipped (forkscale's tool and Archer are both OMPT tools, and libomp starts
# one tool per process: TSan could not see OpenMP's synchronization).
set(FORKSCALE_OMPT_TEST_DIR "${CMAKE_CURRENT_LIST_DIR}")

# Every test here has a time limit, so that a program that hangs in the runtime
# or in the tool (as untied tasks once did: issue 30) fails instead of blocking
# the run. Each takes a few seconds; the limit is far above that, and above
# what the sanitizers add.
set(FORKSCALE_OMPT_TEST_TIMEOUT 120)
function(forkscale_ompt_time_limit sanitize)
  set(limit ${FORKSCALE_OMPT_TEST_TIMEOUT})
  if(NOT "${sanitize}" STREQUAL "")
    math(EXPR limit "${limit} * 5")
  endif()
  set_tests_properties(${ARGN} PROPERTIES TIMEOUT ${limit})
endfunction()

function(forkscale_ompt_skipped name reason)
  add_test(NAME ${name} COMMAND "${CMAKE_COMMAND}" -E echo "SKIPPED: ${reason}")
  set_tests_properties(${name} PROPERTIES SKIP_REGULAR_EXPRESSION "SKIPPED: " LABELS ompt
    TIMEOUT ${FORKSCALE_OMPT_TEST_TIMEOUT})
endfunction()

# The compiled form where the project has it (the writers and the end of a
# measurement compiled once, with this compiler), else the header-only one.
if(TARGET forkscale::compiled)
  set(FORKSCALE_OMPT_LIBRARY forkscale::compiled)
else()
  set(FORKSCALE_OMPT_LIBRARY forkscale::forkscale)
endif()

# -g: the tests check that every site is named by its file and line; with full
# debug information clang also passes each construct's source location to the
# runtime (how the tool names a region the program reached by a tail call).
function(forkscale_ompt_executable target source)
  add_executable(${target} "${FORKSCALE_OMPT_TEST_DIR}/${source}")
  target_link_libraries(${target} PRIVATE ${FORKSCALE_OMPT_LIBRARY} OpenMP::OpenMP_CXX ${ARGN})
  target_compile_options(${target} PRIVATE -g -Wall -Wextra -Wpedantic -Werror)
endfunction()

function(forkscale_ompt_libomp_tests prefix sanitize)
  forkscale_ompt_executable(${prefix}openmp_annotated_libomp test_openmp_annotated.cpp GTest::gtest_main)
  add_test(NAME ${prefix}openmp_annotated COMMAND ${prefix}openmp_annotated_libomp)
  set_tests_properties(${prefix}openmp_annotated PROPERTIES LABELS ompt)
  forkscale_ompt_time_limit("${sanitize}" ${prefix}openmp_annotated)
  if(sanitize STREQUAL "thread")
    forkscale_openmp_tsan_setup(${prefix}openmp_annotated_libomp ${prefix}openmp_annotated)
    set(why "forkscale's OMPT tool and Archer (which TSan needs to see OpenMP's synchronization) are both OMPT tools, and libomp starts one tool per process")
    foreach(t ompt_cases ompt_random ompt_startup ompt_disabled ompt_stress)
      forkscale_ompt_skipped(${prefix}${t} "${why}")
    endforeach()
    return()
  endif()
  forkscale_ompt_executable(${prefix}ompt_cases test_ompt_cases.cpp GTest::gtest_main)
  forkscale_ompt_executable(${prefix}ompt_random test_ompt_random.cpp GTest::gtest_main)
  forkscale_ompt_executable(${prefix}ompt_startup test_ompt_startup.cpp GTest::gtest)
  forkscale_ompt_executable(${prefix}ompt_disabled ompt_without_tools.cpp)
  target_compile_definitions(${prefix}ompt_disabled PRIVATE FORKSCALE_ENABLE=0)
  foreach(t ompt_cases ompt_random ompt_startup)
    add_test(NAME ${prefix}${t} COMMAND ${prefix}${t})
    set_tests_properties(${prefix}${t} PROPERTIES LABELS ompt)
  endforeach()
  # The examples of OMPT mode (examples/ompt_*.cpp), under the cost clock: each
  # checks its result and fails on a diagnostic; a schedule(static) loop on two
  # threads has exactly the parallelism of the team.
  foreach(example ompt_cholesky ompt_stencil)
    add_executable(${prefix}${example} "${FORKSCALE_OMPT_TEST_DIR}/../../examples/${example}.cpp")
    target_link_libraries(${prefix}${example} PRIVATE ${FORKSCALE_OMPT_LIBRARY} OpenMP::OpenMP_CXX)
    target_compile_options(${prefix}${example} PRIVATE -Wall -Wextra -Wpedantic -Werror)
  endforeach()
  add_test(NAME ${prefix}example.ompt_cholesky COMMAND ${prefix}ompt_cholesky 256 --tile 32 --threads 2 --clock cost)
  add_test(NAME ${prefix}example.ompt_stencil.dynamic
           COMMAND ${prefix}ompt_stencil 66 --steps 2 --schedule dynamic --chunk 4 --threads 2 --clock cost)
  add_test(NAME ${prefix}example.ompt_stencil.static
           COMMAND ${prefix}ompt_stencil 66 --steps 2 --schedule static --threads 2 --clock cost)
  set_tests_properties(${prefix}example.ompt_stencil.static PROPERTIES
    PASS_REGULAR_EXPRESSION "Parallelism: +2\\.00\n"
    FAIL_REGULAR_EXPRESSION "DIFFERS|Diagnostics: [^n]|profile self-check failed")
  # Every OMPT program's report holds the profile's self-checks (per-site span
  # within per-site work among them) with no diagnostic.
  set_tests_properties(${prefix}example.ompt_cholesky ${prefix}example.ompt_stencil.dynamic PROPERTIES
    FAIL_REGULAR_EXPRESSION "Diagnostics: [^n]|profile self-check failed")
  # Bad input: one line on stderr, exit status 2.
  add_test(NAME ${prefix}example.ompt_cholesky.bad_input
           COMMAND "${CMAKE_COMMAND}" "-DEXE=$<TARGET_FILE:${prefix}ompt_cholesky>" -DEXPECTED=2
                   "-DSTDERR_REGEX=^ompt_cholesky: N \\(100\\) must be a multiple of the tile size"
                   -P "${FORKSCALE_OMPT_TEST_DIR}/../../examples/expect_exit.cmake" -- 100 --tile 64)

  # The README's OMPT program (the ```c++ block after the line that names
  # ompt.libomp): it must build and run, and print the work and span the README
  # shows.
  file(READ "${FORKSCALE_OMPT_TEST_DIR}/../../README.md" readme)
  string(FIND "${readme}" "<!-- ompt.libomp builds this program" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "README.md has no OMPT program for ompt.libomp to build")
  endif()
  string(SUBSTRING "${readme}" ${at} -1 readme)
  string(FIND "${readme}" "```c++\n" start)
  math(EXPR start "${start} + 7")
  string(SUBSTRING "${readme}" ${start} -1 readme)
  string(FIND "${readme}" "```" end)
  string(SUBSTRING "${readme}" 0 ${end} readme_program)
  file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/readme_ompt.cpp" "${readme_program}")
  add_executable(${prefix}readme_ompt "${CMAKE_CURRENT_BINARY_DIR}/readme_ompt.cpp")
  target_link_libraries(${prefix}readme_ompt PRIVATE ${FORKSCALE_OMPT_LIBRARY} OpenMP::OpenMP_CXX)
  target_compile_options(${prefix}readme_ompt PRIVATE -g -Wall -Wextra -Wpedantic -Werror)
  add_test(NAME ${prefix}readme_ompt COMMAND ${prefix}readme_ompt)
  # The same program in the header-only form, where the tool is compiled in the
  # program's own file (the other programs here link forkscale::compiled, whose
  # library holds the tool when it was built with OMPT: FORKSCALE_COMPILED_OMPT).
  # At -O0: it proves the form, and the tool at -O2 is most of a minute of clang.
  add_executable(${prefix}readme_ompt_header_only "${CMAKE_CURRENT_BINARY_DIR}/readme_ompt.cpp")
  target_link_libraries(${prefix}readme_ompt_header_only PRIVATE forkscale::forkscale OpenMP::OpenMP_CXX)
  target_compile_options(${prefix}readme_ompt_header_only PRIVATE -g -O0 -Wall -Wextra -Wpedantic -Werror)
  add_test(NAME ${prefix}readme_ompt_header_only COMMAND ${prefix}readme_ompt_header_only)
  set_tests_properties(${prefix}readme_ompt ${prefix}readme_ompt_header_only PROPERTIES LABELS ompt
    PASS_REGULAR_EXPRESSION "Work: +33,091,000 units\n  Span: +270,000 units\n"
    FAIL_REGULAR_EXPRESSION "Diagnostics: [^n]|profile self-check failed")  # (with PASS_REGULAR_EXPRESSION the exit status is not looked at)

  # BOTS-style programs (bots_programs.cpp: untied fib, nqueens, sparselu in its
  # single and for forms, health, sort, nested regions and an untied taskloop),
  # whole-program, at one and two threads: ompt_stress.py runs each several
  # times with a time limit per run and holds every report to the program's own
  # count of its spawns, syncs and work, its sites named, no diagnostic. Three
  # runs each here; the custom target ompt_stress_run runs fifty each, and an
  # empty program fifteen times per timed clock (the serial time the
  # whole-program measurement holds), and writes bench/results/ompt_stress.json
  # (by hand: about a minute).
  forkscale_ompt_executable(${prefix}ompt_bots bots_programs.cpp)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_Interpreter_FOUND)
    set(stress "${Python3_EXECUTABLE}" "${FORKSCALE_OMPT_TEST_DIR}/ompt_stress.py" --program $<TARGET_FILE:${prefix}ompt_bots>)
    add_test(NAME ${prefix}ompt_stress COMMAND ${stress} --runs 3 --timeout 30)
    set_tests_properties(${prefix}ompt_stress PROPERTIES LABELS ompt)
    forkscale_ompt_time_limit("${sanitize}" ${prefix}ompt_stress)
    if(NOT TARGET ${prefix}ompt_stress_run)
      add_custom_target(${prefix}ompt_stress_run
        COMMAND ${stress} --runs 50 --timeout 60 --empty 15 --out "${FORKSCALE_OMPT_TEST_DIR}/../../bench/results/ompt_stress.json"
        USES_TERMINAL
        COMMENT "Running ompt_stress.py --runs 50 (writes bench/results/ompt_stress.json)")
      add_dependencies(${prefix}ompt_stress_run ${prefix}ompt_bots)
    endif()
  else()
    forkscale_ompt_skipped(${prefix}ompt_stress "no Python 3 interpreter to run tests/ompt/ompt_stress.py")
  endif()

  # Disabled: the program runs, and says nothing.
  add_test(NAME ${prefix}ompt_disabled
           COMMAND "${CMAKE_COMMAND}" "-DPROGRAM=$<TARGET_FILE:${prefix}ompt_disabled>" -DEXPECT_LINES=0
                   -P "${FORKSCALE_OMPT_TEST_DIR}/check_message.cmake")
  set_tests_properties(${prefix}ompt_disabled PROPERTIES LABELS ompt)

  forkscale_ompt_time_limit("${sanitize}"
    ${prefix}ompt_cases ${prefix}ompt_random ${prefix}ompt_startup ${prefix}ompt_disabled ${prefix}readme_ompt
    ${prefix}readme_ompt_header_only
    ${prefix}example.ompt_cholesky ${prefix}example.ompt_stencil.dynamic ${prefix}example.ompt_stencil.static
    ${prefix}example.ompt_cholesky.bad_input)
endfunction()
