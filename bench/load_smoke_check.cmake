# bench_load_smoke: runs `bench_load --quick --out OUT` and checks that it exited
# with 0 and wrote a valid JSON document with a row for every workload and timed
# clock. Parallelism and ratios are never checked (they are the benchmark's
# figures, not a test's).
#
#   cmake -DBENCH_LOAD=<program> -DOUT=<json file> [-DPYTHON=<python3>] -P load_smoke_check.cmake
cmake_minimum_required(VERSION 3.14)
include("${CMAKE_CURRENT_LIST_DIR}/smoke_common.cmake")

if(NOT BENCH_LOAD OR NOT OUT)
  message(FATAL_ERROR "load_smoke_check.cmake: pass -DBENCH_LOAD=<program> -DOUT=<file>")
endif()

bench_smoke_run(bench_load "${OUT}" "${BENCH_LOAD}" --quick --out "${OUT}")

set(keys machine cores clock_read_ns runs goal goal_met)
set(check [=[
rows = doc["runs"]
seen = {(r["workload"], r["clock"]) for r in rows}
want = {(w, c) for w in ("fib", "quicksort", "treesum") for c in ("tsc", "steady", "thread_cpu")}
if seen != want:
    sys.exit("runs cover %s, expected %s" % (sorted(seen), sorted(want)))
for r in rows:
    for k in ("parallelism_quiet", "parallelism_loaded", "ratio_loaded_quiet"):
        if not isinstance(r[k], (int, float)) or r[k] <= 0:
            sys.exit("%s/%s: %s is %r" % (r["workload"], r["clock"], k, r[k]))
    if r["clock"] == "thread_cpu" and not isinstance(r.get("goal_met"), bool):
        sys.exit("thread_cpu rows need goal_met")
for c in ("tsc", "steady", "thread_cpu"):
    if not doc["clock_read_ns"].get(c):
        sys.exit("clock_read_ns has no " + c)
]=])
bench_smoke_check_json(bench_load "${OUT}" keys check)
if(bench_smoke_done)
  return()
endif()
string(JSON n ERROR_VARIABLE err LENGTH "${bench_smoke_text}" runs)
if(err OR NOT n EQUAL 9)
  message(FATAL_ERROR "${OUT}: \"runs\" should have 9 rows ${err}")
endif()
message(STATUS "bench_load --quick wrote valid JSON (checked by CMake's string(JSON)): ${OUT}")
