# bench_ompt_smoke: runs `bench_ompt --quick --out OUT` with the three workload
# programs and checks that it exited with 0 and wrote a valid JSON document with
# every workload and its three sides. Timings are never checked.
#
#   cmake -DBENCH_OMPT=<driver> -DPLAIN=<p> -DTOOL=<t> -DANNOTATED=<a> -DOUT=<json file>
#         [-DPYTHON=<python3>] -P ompt_smoke_check.cmake
cmake_minimum_required(VERSION 3.14)
include("${CMAKE_CURRENT_LIST_DIR}/smoke_common.cmake")

foreach(var BENCH_OMPT PLAIN TOOL ANNOTATED OUT)
  if(NOT ${var})
    message(FATAL_ERROR "ompt_smoke_check.cmake: pass -D${var}=...")
  endif()
endforeach()

bench_smoke_run(bench_ompt "${OUT}" "${BENCH_OMPT}" --plain "${PLAIN}" --tool "${TOOL}" --annotated "${ANNOTATED}"
                --quick --out "${OUT}")

set(sections machine compiler clock method workloads)
set(check [=[
names = [w.get("name") for w in doc["workloads"]]
if names != ["fib_fine", "fib", "dynamic_loop", "stencil", "cholesky"]:
    sys.exit("workloads: %s" % names)
for w in doc["workloads"]:
    if "error" in w:
        sys.exit("%s: %s" % (w["name"], w["error"]))
    for side in ("plain", "tool", "annotated"):
        if not w[side]["runs_s"]:
            sys.exit("%s: no runs for %s" % (w["name"], side))
    if w["tool"]["events"] == 0:
        sys.exit("%s: OMPT mode saw no event" % w["name"])
]=])
bench_smoke_check_json(bench_ompt "${OUT}" sections check)
if(bench_smoke_done)
  return()
endif()
string(JSON n ERROR_VARIABLE err LENGTH "${bench_smoke_text}" workloads)
if(err OR NOT n EQUAL 5)
  message(FATAL_ERROR "${OUT}: \"workloads\" should list 5 workloads ${err}")
endif()
message(STATUS "bench_ompt --quick wrote valid JSON (checked by CMake's string(JSON)): ${OUT}")
