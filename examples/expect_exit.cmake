# expect_exit.cmake: run an example and check how it ends.
#
#   cmake -DEXE=<program> -DEXPECTED=<status> [-DSTDERR_REGEX=<regex>]
#         [-DMAKE_DIR=<dir>] [-DMAKE_FILE=<file>] [-DCLEAN=<dir>]
#         [-DEXPECT_FILES_IN=<dir> -DSTEM=<name>] [-DOLD_FILES_IN=<dir> -DSTEM=<name>]
#         -P expect_exit.cmake -- <arguments...>
#
# Fails unless the exit status is exactly EXPECTED. With a non-zero EXPECTED,
# stderr must also be exactly one line matching STDERR_REGEX (default: the
# program's name or "forkscale" followed by ": "). Before the run, CLEAN is
# removed, then MAKE_DIR is created as a directory and MAKE_FILE as a regular
# file (to make an output path unwritable whoever runs the test, root included).
# With EXPECT_FILES_IN, the run must have written <dir>/<STEM>.json, .csv, .txt,
# .call_sites.csv and .spawn_sites.csv, none of them empty. With OLD_FILES_IN,
# those five files are written with old contents before the run (all but one
# MAKE_DIR took), and after it each must still hold them and the directory must
# hold no temporary file (*.tmp.*): a failed --out replaces none of them.
cmake_minimum_required(VERSION 3.14)

if(NOT DEFINED EXE OR NOT DEFINED EXPECTED)
  message(FATAL_ERROR "expect_exit.cmake: pass -DEXE=<program> and -DEXPECTED=<status>")
endif()

set(args "")
set(after_dashes OFF)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE 0 ${last})
  if(after_dashes)
    list(APPEND args "${CMAKE_ARGV${i}}")
  elseif(CMAKE_ARGV${i} STREQUAL "--")
    set(after_dashes ON)
  endif()
endforeach()

if(DEFINED CLEAN)
  file(REMOVE_RECURSE "${CLEAN}")
endif()
if(DEFINED MAKE_DIR)
  file(MAKE_DIRECTORY "${MAKE_DIR}")
endif()
if(DEFINED MAKE_FILE)
  get_filename_component(parent "${MAKE_FILE}" DIRECTORY)
  file(MAKE_DIRECTORY "${parent}")
  file(WRITE "${MAKE_FILE}" "not a directory\n")
endif()

set(report_extensions json csv txt call_sites.csv spawn_sites.csv)
if(DEFINED OLD_FILES_IN)
  foreach(ext IN LISTS report_extensions)
    set(f "${OLD_FILES_IN}/${STEM}.${ext}")
    if(NOT IS_DIRECTORY "${f}")
      file(WRITE "${f}" "old ${ext}\n")
    endif()
  endforeach()
endif()

execute_process(
  COMMAND "${EXE}" ${args}
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
string(JOIN " " ran "${EXE}" ${args})

if(NOT rc STREQUAL "${EXPECTED}")
  message(FATAL_ERROR "${ran}: exit status '${rc}', expected ${EXPECTED}\n"
                      "stdout:\n${out}\nstderr:\n${err}")
endif()

if(NOT EXPECTED STREQUAL "0")
  get_filename_component(program "${EXE}" NAME_WE)
  if(NOT DEFINED STDERR_REGEX)
    set(STDERR_REGEX "^(${program}|forkscale): ")
  endif()
  string(REGEX REPLACE "\r?\n$" "" message "${err}")
  if(message STREQUAL "" OR message MATCHES "\n")
    message(FATAL_ERROR "${ran}: expected one line on stderr, got:\n${err}")
  endif()
  if(NOT message MATCHES "${STDERR_REGEX}")
    message(FATAL_ERROR "${ran}: stderr does not match '${STDERR_REGEX}':\n${err}")
  endif()
  message(STATUS "${ran}: exit ${rc}: ${message}")
endif()

if(DEFINED OLD_FILES_IN)
  foreach(ext IN LISTS report_extensions)
    set(f "${OLD_FILES_IN}/${STEM}.${ext}")
    if(NOT IS_DIRECTORY "${f}")
      file(READ "${f}" contents)
      if(NOT contents STREQUAL "old ${ext}\n")
        message(FATAL_ERROR "${ran}: replaced ${f} although the run failed")
      endif()
    endif()
  endforeach()
  file(GLOB temporaries "${OLD_FILES_IN}/*.tmp.*")
  if(temporaries)
    message(FATAL_ERROR "${ran}: left temporary files: ${temporaries}")
  endif()
endif()

if(DEFINED EXPECT_FILES_IN)
  foreach(ext IN LISTS report_extensions)
    set(f "${EXPECT_FILES_IN}/${STEM}.${ext}")
    if(NOT EXISTS "${f}" OR IS_DIRECTORY "${f}")
      message(FATAL_ERROR "${ran}: did not write ${f}")
    endif()
    file(SIZE "${f}" size)
    if(size EQUAL 0)
      message(FATAL_ERROR "${ran}: wrote an empty ${f}")
    endif()
  endforeach()
endif()
