# compare_backends.cmake: an example must print the same parallelism profile
# whatever backend runs it, under the deterministic cost clock.
#
#   cmake -DEXE=<example> [-DBACKENDS=serial,threads,tbb,openmp]
#         -P compare_backends.cmake -- <common arguments...>
#
# Runs EXE with the common arguments plus "--clock cost" once per variant of each
# backend in BACKENDS (comma-separated; default "serial,threads": what every
# build has): "--backend serial"; "--backend threads --threads 2" and "--backend
# threads --threads 8" (real std::threads even on a one-core machine);
# "--backend tbb --threads 4"; "--backend openmp --threads 4". Fails unless every
# run exits with 0 and prints identical Work, Span, Burdened span, Spawns and
# Syncs lines. The first backend listed is the reference (serial: the serial
# elision).
cmake_minimum_required(VERSION 3.14)

if(NOT DEFINED EXE)
  message(FATAL_ERROR "compare_backends.cmake: pass -DEXE=<program>")
endif()

set(common "")
set(after_dashes OFF)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE 0 ${last})
  if(after_dashes)
    list(APPEND common "${CMAKE_ARGV${i}}")
  elseif(CMAKE_ARGV${i} STREQUAL "--")
    set(after_dashes ON)
  endif()
endforeach()

if(NOT DEFINED BACKENDS OR BACKENDS STREQUAL "")
  set(BACKENDS "serial,threads")
endif()
string(REPLACE "," ";" backends "${BACKENDS}")
set(variants "")
foreach(backend IN LISTS backends)
  if(backend STREQUAL "serial")
    list(APPEND variants "serial")
  elseif(backend STREQUAL "threads")
    list(APPEND variants "threads2" "threads8")
  elseif(backend STREQUAL "tbb" OR backend STREQUAL "openmp")
    list(APPEND variants "${backend}4")
  else()
    message(FATAL_ERROR "compare_backends.cmake: unknown backend '${backend}' in BACKENDS=${BACKENDS}")
  endif()
endforeach()

set(reference "")
foreach(variant IN LISTS variants)
  # "threads8" -> --backend threads --threads 8
  if(variant MATCHES "^([a-z]+)([0-9]+)$")
    set(backend_args --backend ${CMAKE_MATCH_1} --threads ${CMAKE_MATCH_2})
  else()
    set(backend_args --backend ${variant})
  endif()
  execute_process(
    COMMAND "${EXE}" ${common} --clock cost ${backend_args}
    RESULT_VARIABLE rc
    OUTPUT_VARIABLE out
    ERROR_VARIABLE err)
  if(NOT rc STREQUAL "0")
    string(JOIN " " ran "${EXE}" ${common} --clock cost ${backend_args})
    message(FATAL_ERROR "${ran} exited with '${rc}'\n"
                        "stdout:\n${out}\nstderr:\n${err}")
  endif()

  # The profile lines that must not depend on the backend.
  string(REPLACE "\r" "" out "${out}")
  string(REPLACE ";" "," out "${out}")
  string(REPLACE "\n" ";" lines "${out}")
  set(profile "")
  foreach(name "Work:" "Span:" "Burdened span:" "Spawns:" "Syncs:")
    set(found "")
    foreach(line IN LISTS lines)
      string(FIND "${line}" "  ${name}" at)
      if(at EQUAL 0)
        set(found "${line}")
        break()
      endif()
    endforeach()
    if(found STREQUAL "")
      message(FATAL_ERROR "${EXE} (${variant}) printed no '  ${name}' line:\n${out}")
    endif()
    string(APPEND profile "${found}\n")
  endforeach()

  message(STATUS "${variant}:\n${profile}")
  if(reference STREQUAL "")
    set(reference "${profile}")
    set(reference_variant "${variant}")
  elseif(NOT profile STREQUAL reference)
    message(FATAL_ERROR "backends disagree under the cost clock:\n"
                        "${reference_variant}:\n${reference}\n${variant}:\n${profile}")
  endif()
endforeach()
