# check_benchmark_json.cmake: run benchmark_counters with Google Benchmark's JSON
# output and check that forkscale's counters are in it, with the exact values
# the cost clock gives (derived in benchmark_counters.cpp).
#
#   cmake -DEXE=<benchmark_counters> -DOUT=<file.json> -P check_benchmark_json.cmake
#
# Needs string(JSON) (CMake 3.19+); older CMake reports the test as skipped.
cmake_minimum_required(VERSION 3.14)

if(NOT DEFINED EXE OR NOT DEFINED OUT)
  message(FATAL_ERROR "check_benchmark_json.cmake: pass -DEXE=<program> -DOUT=<file>")
endif()
if(CMAKE_VERSION VERSION_LESS 3.19)
  message("SKIPPED: CMake ${CMAKE_VERSION} has no string(JSON); cannot read the benchmark's JSON")
  return()
endif()

file(REMOVE "${OUT}")
execute_process(
  COMMAND "${EXE}" "--benchmark_out=${OUT}" --benchmark_out_format=json
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "${EXE} exited with '${rc}'\nstdout:\n${out}\nstderr:\n${err}")
endif()
message(STATUS "console output:\n${out}")
if(NOT EXISTS "${OUT}")
  message(FATAL_ERROR "${EXE} wrote no ${OUT}")
endif()
file(READ "${OUT}" json)

# Each expectation: "<benchmark name>|<counter>|<value>", the value compared as a
# double (if(EQUAL) parses both sides as numbers); "-" means the counter must be
# absent, "+" that it must be there (any value). Ratios are written with enough
# digits to round to the same double as the division in forkscale. The times'
# names carry the report's unit: _units under the cost clock, _ns under a timed
# one.
set(expectations
  "BM_fan_out/iterations:3|work_units|4000"
  "BM_fan_out/iterations:3|span_units|1000"
  "BM_fan_out/iterations:3|burdened_span_units|2500"
  "BM_fan_out/iterations:3|parallelism|4"
  "BM_fan_out/iterations:3|burdened_parallelism|1.6"
  "BM_fan_out/iterations:3|work|-"
  "BM_fan_out/iterations:3|work_ns|-"
  "BM_fan_out_threads/iterations:3/threads:2|work_units|2000"
  "BM_fan_out_threads/iterations:3/threads:2|span_units|250"
  "BM_fan_out_threads/iterations:3/threads:2|burdened_span_units|950"
  "BM_fan_out_threads/iterations:3/threads:2|parallelism|8"
  "BM_fan_out_threads/iterations:3/threads:2|burdened_parallelism|2.10526315789473684211"
  "BM_regions/iterations:3|work_units|6000"
  "BM_regions/iterations:3|span_units|4000"
  "BM_regions/iterations:3|burdened_span_units|48000"
  "BM_regions/iterations:3|parallelism|1.5"
  "BM_regions/iterations:3|burdened_parallelism|0.125"
  "BM_regions/iterations:3|serial.work_units|3000"
  "BM_regions/iterations:3|serial.span_units|3000"
  "BM_regions/iterations:3|serial.burdened_span_units|3000"
  "BM_regions/iterations:3|serial.parallelism|1"
  "BM_regions/iterations:3|serial.burdened_parallelism|1"
  "BM_regions/iterations:3|parallel.work_units|3000"
  "BM_regions/iterations:3|parallel.span_units|1000"
  "BM_regions/iterations:3|parallel.burdened_span_units|45000"
  "BM_regions/iterations:3|parallel.parallelism|3"
  "BM_regions/iterations:3|parallel.burdened_parallelism|0.0666666666666666666667"
  "BM_row_alone/iterations:3|work|3000"
  "BM_row_alone/iterations:3|span|3000"
  "BM_row_alone/iterations:3|parallelism|1"
  "BM_timed/iterations:3|work_ns|+"
  "BM_timed/iterations:3|span_ns|+"
  "BM_timed/iterations:3|burdened_span_ns|+"
  "BM_timed/iterations:3|parallelism|+"
  "BM_timed/iterations:3|burdened_parallelism|+"
  "BM_timed/iterations:3|work_units|-"
  "BM_timed/iterations:3|work|-"
  "BM_empty_report/iterations:3|work_units|-"
  "BM_empty_report/iterations:3|parallelism|-")

string(JSON count ERROR_VARIABLE err LENGTH "${json}" benchmarks)
if(err)
  message(FATAL_ERROR "${OUT} has no \"benchmarks\" array: ${err}")
endif()

set(failures "")
foreach(e IN LISTS expectations)
  string(REPLACE "|" ";" e "${e}")
  list(GET e 0 name)
  list(GET e 1 counter)
  list(GET e 2 expected)
  set(found -1)
  if(count GREATER 0)
    math(EXPR last "${count} - 1")
    foreach(i RANGE 0 ${last})
      string(JSON n GET "${json}" benchmarks ${i} name)
      if(n STREQUAL name)
        set(found ${i})
        break()
      endif()
    endforeach()
  endif()
  if(found EQUAL -1)
    string(APPEND failures "no benchmark named '${name}' in ${OUT}\n")
    continue()
  endif()
  string(JSON error_message ERROR_VARIABLE no_error GET "${json}" benchmarks ${found} error_message)
  if(NOT no_error)
    string(APPEND failures "${name}: ${error_message}\n")
    continue()
  endif()
  string(JSON value ERROR_VARIABLE missing GET "${json}" benchmarks ${found} "${counter}")
  if(expected STREQUAL "-")
    if(NOT missing)
      string(APPEND failures "${name}: counter '${counter}' should be absent, is ${value}\n")
    endif()
  elseif(missing)
    string(APPEND failures "${name}: no counter '${counter}'\n")
  elseif(expected STREQUAL "+")
    message(STATUS "${name}: ${counter} = ${value}")
  elseif(NOT value EQUAL expected)
    string(APPEND failures "${name}: counter '${counter}' is ${value}, expected ${expected}\n")
  else()
    message(STATUS "${name}: ${counter} = ${value}")
  endif()
endforeach()

if(failures)
  message(FATAL_ERROR "forkscale counters in ${OUT}:\n${failures}")
endif()
message(STATUS "every forkscale counter is in ${OUT} with the expected value")
