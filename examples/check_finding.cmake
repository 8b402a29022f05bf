# check_finding.cmake: run an example with --out and check one number of its
# JSON report against a bound — the papers' qualitative findings, made exact by
# the cost clock.
#
#   cmake -DEXE=<example> -DDIR=<output dir> -DSTEM=<report name>
#         -DKEY=<region key> (-DBELOW=<bound> | -DABOVE=<bound> | -DEXACTLY=<value>)
#         [-DREGION=<path>] -P check_finding.cmake -- <arguments...>
#
# Runs EXE <arguments...> --out DIR, reads DIR/STEM.json and compares KEY (e.g.
# burdened_parallelism) of the row whose path is REGION (default: the root row)
# with the bound. Needs string(JSON) (CMake 3.19+); older CMake reports the test
# as skipped.
cmake_minimum_required(VERSION 3.14)

foreach(var EXE DIR STEM KEY)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_finding.cmake: pass -D${var}=...")
  endif()
endforeach()
if(CMAKE_VERSION VERSION_LESS 3.19)
  message("SKIPPED: CMake ${CMAKE_VERSION} has no string(JSON); cannot read the report")
  return()
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

file(REMOVE_RECURSE "${DIR}")
execute_process(COMMAND "${EXE}" ${args} --out "${DIR}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(JOIN " " ran "${EXE}" ${args} --out "${DIR}")
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "${ran}: exit status '${rc}'\nstdout:\n${out}\nstderr:\n${err}")
endif()
message(STATUS "${ran}:\n${out}")

file(READ "${DIR}/${STEM}.json" json)
string(JSON count LENGTH "${json}" regions)
set(row -1)
if(NOT DEFINED REGION)
  set(row 0)
elseif(count GREATER 0)
  math(EXPR last_row "${count} - 1")
  foreach(i RANGE 0 ${last_row})
    string(JSON path GET "${json}" regions ${i} path)
    if(path STREQUAL REGION)
      set(row ${i})
      break()
    endif()
  endforeach()
endif()
if(row EQUAL -1)
  message(FATAL_ERROR "${DIR}/${STEM}.json has no region '${REGION}'")
endif()
string(JSON path GET "${json}" regions ${row} path)
string(JSON value GET "${json}" regions ${row} ${KEY})

if(DEFINED BELOW)
  if(NOT value LESS "${BELOW}")
    message(FATAL_ERROR "${path}: ${KEY} is ${value}, expected less than ${BELOW}")
  endif()
  message(STATUS "${path}: ${KEY} = ${value} < ${BELOW}")
elseif(DEFINED ABOVE)
  if(NOT value GREATER "${ABOVE}")
    message(FATAL_ERROR "${path}: ${KEY} is ${value}, expected more than ${ABOVE}")
  endif()
  message(STATUS "${path}: ${KEY} = ${value} > ${ABOVE}")
elseif(DEFINED EXACTLY)
  if(NOT value EQUAL "${EXACTLY}")
    message(FATAL_ERROR "${path}: ${KEY} is ${value}, expected ${EXACTLY}")
  endif()
  message(STATUS "${path}: ${KEY} = ${value}")
else()
  message(FATAL_ERROR "check_finding.cmake: pass -DBELOW=, -DABOVE= or -DEXACTLY=")
endif()
