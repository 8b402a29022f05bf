# calibrated_example.cmake: the README's burden workflow run for real — after
# `forkscale-report calibrate --backend std_thread`, the flagship example
# `examples/quicksort --backend threads` reports the measured burden of
# std_thread, and a calibration from another machine is not used.
#
#   cmake -DQUICKSORT=<examples/quicksort> -DREPORT=<forkscale-report> -DDIR=<scratch dir>
#         -P calibrated_example.cmake
#
# The burden file is DIR/burden.json (FORKSCALE_BURDEN_FILE), never the user's.
# calibrate gets --force: the machine running the tests may be busy, and this
# test is about where the figure goes, not what it is. Checks, on the report's
# text and JSON: before calibrating, burden "(default)" and "Backend:
# std_thread."; after, "(measured std_thread)" with the stored steal as the
# burden; with the stored entry's CPU model changed, "(default)" again and
# a note that it was measured on another machine; exit status 0 every time.
cmake_minimum_required(VERSION 3.19)  # string(JSON)

foreach(var QUICKSORT REPORT DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "calibrated_example.cmake: pass -DQUICKSORT=<exe> -DREPORT=<exe> -DDIR=<dir>")
  endif()
endforeach()
file(REMOVE_RECURSE "${DIR}")
file(MAKE_DIRECTORY "${DIR}")
set(ENV{FORKSCALE_BURDEN_FILE} "${DIR}/burden.json")
set(failures "")

macro(fail what)
  string(APPEND failures "\n  ${what}")
endmacro()

# quicksort(<name>): the flagship example on std::threads, its report in DIR/<name>.
macro(quicksort name)
  execute_process(COMMAND "${QUICKSORT}" 200000 --backend threads --threads 2 --out "${DIR}/${name}"
                  RESULT_VARIABLE ${name}_rc OUTPUT_VARIABLE ${name}_out ERROR_VARIABLE ${name}_err)
  if(NOT ${name}_rc STREQUAL "0")
    message(FATAL_ERROR "quicksort (${name}) exited with '${${name}_rc}':\n${${name}_out}\n${${name}_err}")
  endif()
  file(READ "${DIR}/${name}/quicksort.json" ${name}_json)
endmacro()

# expect(<name> <text>): the report's text says <text>.
macro(expect name text)
  # The text report wraps its notes at 80 columns (where depends on the file's
  # path): a phrase is looked for with its line breaks and indents as spaces.
  string(REGEX REPLACE "\n +" " " flat "${${name}_out}")
  string(FIND "${${name}_out}" "${text}" at)
  if(at EQUAL -1)
    string(FIND "${flat}" "${text}" at)
  endif()
  if(at EQUAL -1)
    fail("${name}: the report does not say '${text}':\n${${name}_out}")
  endif()
endmacro()

quicksort(before)
expect(before "per continuation edge (default);")
expect(before "\nBackend: std_thread.\n")

execute_process(COMMAND "${REPORT}" calibrate --backend std_thread --force RESULT_VARIABLE cal_rc
                OUTPUT_VARIABLE cal_out ERROR_VARIABLE cal_err)
if(NOT cal_rc STREQUAL "0" OR NOT EXISTS "${DIR}/burden.json")
  message(FATAL_ERROR "calibrate exited with '${cal_rc}':\n${cal_out}\n${cal_err}")
endif()
file(READ "${DIR}/burden.json" stored)
string(JSON steal GET "${stored}" backends 0 steal_ns)
string(JSON model GET "${stored}" backends 0 cpu_model)

quicksort(after)
expect(after "per continuation edge (measured std_thread);")
expect(after "\nBackend: std_thread.\n")
string(JSON source GET "${after_json}" burden_source)
string(JSON backend GET "${after_json}" backend)
string(JSON burden GET "${after_json}" burden)
string(JSON unit GET "${after_json}" unit)
if(NOT source STREQUAL "measured std_thread" OR NOT backend STREQUAL "std_thread")
  fail("after calibrate: burden_source '${source}', backend '${backend}'")
endif()
# Under a nanosecond clock the burden is the stored steal, rounded.
if(unit STREQUAL "ns")
  math(EXPR low "${burden} - 1")
  math(EXPR high "${burden} + 1")
  if(steal LESS low OR steal GREATER high)
    fail("after calibrate: burden ${burden} ns, stored steal ${steal} ns")
  endif()
endif()

# The same file, as if copied from another machine.
string(JSON other SET "${stored}" backends 0 cpu_model "\"Another CPU (not ${model})\"")
file(WRITE "${DIR}/burden.json" "${other}")
quicksort(elsewhere)
expect(elsewhere "per continuation edge (default);")
expect(elsewhere "was measured on another machine")
string(JSON note GET "${elsewhere_json}" burden_note)
if(NOT note MATCHES "another machine")
  fail("another machine's calibration: burden_note '${note}'")
endif()

if(NOT failures STREQUAL "")
  message(FATAL_ERROR "calibrated_example.cmake:${failures}")
endif()
message(STATUS "calibrated_example: quicksort --backend threads reports 'measured std_thread' (burden ${burden} ${unit})")
