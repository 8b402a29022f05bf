# bench_engine_smoke: runs `bench_engine --quick --out OUT` and checks that it exited
# with 0 and wrote a valid JSON document with every section. Timings are never checked.
#
#   cmake -DBENCH_ENGINE=<program> -DOUT=<json file> [-DPYTHON=<python3>] -P smoke_check.cmake
#
# With PYTHON the document is parsed by Python's json module, strictly (no NaN or
# Infinity either). Without it, by CMake's string(JSON) (3.19+), which catches most
# errors but tolerates a few (trailing commas, text after the document). The shared
# steps are in smoke_common.cmake.
cmake_minimum_required(VERSION 3.14)
include("${CMAKE_CURRENT_LIST_DIR}/smoke_common.cmake")

if(NOT BENCH_ENGINE OR NOT OUT)
  message(FATAL_ERROR "smoke_check.cmake: pass -DBENCH_ENGINE=<program> -DOUT=<file>")
endif()

bench_smoke_run(bench_engine "${OUT}" "${BENCH_ENGINE}" --quick --out "${OUT}")

set(sections machine compiler date clock tsc_calibration event_cost memory accuracy site_profiles)
set(check [=[
for section, member in (("event_cost", "events"), ("memory", "cases"), ("accuracy", "cases"),
                        ("site_profiles", "events")):
    if not doc[section].get(member):
        sys.exit("\"%s\".\"%s\" is missing or empty" % (section, member))
]=])
bench_smoke_check_json(bench_engine "${OUT}" sections check)
if(bench_smoke_done)
  return()
endif()

foreach(path "event_cost;events" "memory;cases" "accuracy;cases" "site_profiles;events")
  string(JSON n ERROR_VARIABLE err LENGTH "${bench_smoke_text}" ${path})
  if(err OR n EQUAL 0)
    message(FATAL_ERROR "${OUT}: \"${path}\" is missing or empty ${err}")
  endif()
endforeach()
message(STATUS "bench_engine --quick wrote valid JSON (checked by CMake's string(JSON)): ${OUT}")
