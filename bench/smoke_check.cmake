# bench_engine_smoke: runs `bench_engine --quick --out OUT` and checks that it exited
# with 0 and wrote a valid JSON document with every section. Timings are never checked.
#
#   cmake -DBENCH_ENGINE=<program> -DOUT=<json file> [-DPYTHON=<python3>] -P smoke_check.cmake
#
# With PYTHON the document is parsed by Python's json module, strictly (no NaN or
# Infinity either). Without it, by CMake's string(JSON) (3.19+), which catches most
# errors but tolerates a few (trailing commas, text after the document).
cmake_minimum_required(VERSION 3.14)

if(NOT BENCH_ENGINE OR NOT OUT)
  message(FATAL_ERROR "smoke_check.cmake: pass -DBENCH_ENGINE=<program> -DOUT=<file>")
endif()

file(REMOVE "${OUT}" "${OUT}.tmp")
execute_process(COMMAND "${BENCH_ENGINE}" --quick --out "${OUT}" RESULT_VARIABLE rc)
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "bench_engine --quick failed (exit status: ${rc})")
endif()
if(NOT EXISTS "${OUT}")
  message(FATAL_ERROR "bench_engine --quick exited with 0 but wrote no ${OUT}")
endif()
if(EXISTS "${OUT}.tmp")
  message(FATAL_ERROR "bench_engine --quick left its temporary file ${OUT}.tmp behind")
endif()

set(sections machine compiler date clock tsc_calibration event_cost memory accuracy site_profiles)

if(PYTHON AND EXISTS "${PYTHON}")
  string(REPLACE ";" " " section_words "${sections}")
  set(check [=[
import json, sys
def constant(name):
    raise ValueError("non-standard JSON constant " + name)
try:
    with open(sys.argv[1], encoding="utf-8") as f:
        doc = json.load(f, parse_constant=constant)
except (OSError, ValueError) as e:
    sys.exit("invalid JSON: %s" % e)
if not isinstance(doc, dict):
    sys.exit("the document is not a JSON object")
for key in sys.argv[2].split():
    if key not in doc:
        sys.exit("no \"%s\" in the document" % key)
for section, member in (("event_cost", "events"), ("memory", "cases"), ("accuracy", "cases"),
                        ("site_profiles", "events")):
    if not doc[section].get(member):
        sys.exit("\"%s\".\"%s\" is missing or empty" % (section, member))
]=])
  execute_process(COMMAND "${PYTHON}" -c "${check}" "${OUT}" "${section_words}"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "${OUT} is not valid: ${err}")
  endif()
  message(STATUS "bench_engine --quick wrote valid JSON (checked by ${PYTHON}): ${OUT}")
  return()
endif()

file(READ "${OUT}" text)
if(CMAKE_VERSION VERSION_LESS 3.19)
  # Neither Python nor string(JSON): check the outline only.
  if(NOT text MATCHES "^{" OR NOT text MATCHES "}[ \t\r\n]*$")
    message(FATAL_ERROR "${OUT} does not look like a JSON object")
  endif()
  message(STATUS "no JSON parser available (no Python, CMake ${CMAKE_VERSION}); checked the outline of ${OUT} only")
  return()
endif()

# string(JSON) parses the whole document on every call.
string(JSON type ERROR_VARIABLE err TYPE "${text}")
if(err OR NOT type STREQUAL "OBJECT")
  message(FATAL_ERROR "${OUT} is not a valid JSON object: ${err}")
endif()
foreach(key IN LISTS sections)
  string(JSON type ERROR_VARIABLE err TYPE "${text}" ${key})
  if(err)
    message(FATAL_ERROR "${OUT} has no \"${key}\": ${err}")
  endif()
endforeach()
foreach(path "event_cost;events" "memory;cases" "accuracy;cases" "site_profiles;events")
  string(JSON n ERROR_VARIABLE err LENGTH "${text}" ${path})
  if(err OR n EQUAL 0)
    message(FATAL_ERROR "${OUT}: \"${path}\" is missing or empty ${err}")
  endif()
endforeach()
message(STATUS "bench_engine --quick wrote valid JSON (checked by CMake's string(JSON)): ${OUT}")
