# bench_predict_smoke: runs `bench_predict --quick --out OUT` and checks that it
# exited with 0 and wrote a valid JSON document with a case for every kernel and
# backend, each with a prediction at P = 2. Times and errors are never checked
# (they are the benchmark's figures, not a test's).
#
#   cmake -DBENCH_PREDICT=<program> -DOUT=<json file> [-DWITH_TBB=TRUE] [-DPYTHON=<python3>]
#         -P predict_smoke_check.cmake
cmake_minimum_required(VERSION 3.14)
include("${CMAKE_CURRENT_LIST_DIR}/smoke_common.cmake")

if(NOT BENCH_PREDICT OR NOT OUT)
  message(FATAL_ERROR "predict_smoke_check.cmake: pass -DBENCH_PREDICT=<program> -DOUT=<file>")
endif()

bench_smoke_run(bench_predict "${OUT}" "${BENCH_PREDICT}" --quick --out "${OUT}")

if(WITH_TBB)
  set(backends "std_thread tbb")
  set(expected 10)
else()
  set(backends "std_thread")
  set(expected 5)
endif()
set(keys machine cores calibrations cases goal goal_met)
set(check [=[
cases = doc["cases"]
backends = sys.argv[3].split()
seen = {(c["kernel"], c["backend"]) for c in cases}
want = {(k, b) for k in ("fib", "quicksort", "treesum", "stencil", "matmul") for b in backends}
if seen != want:
    sys.exit("cases cover %s, expected %s" % (sorted(seen), sorted(want)))
for c in cases:
    where = "%s/%s" % (c["kernel"], c["backend"])
    if c["prediction_note"]:
        sys.exit(where + ": no prediction: " + c["prediction_note"])
    for k in ("t1_ns", "t2_ns", "predicted_t2_ns", "replay_work_ns"):
        if not isinstance(c.get(k), (int, float)) or c[k] <= 0:
            sys.exit("%s: %s is %r" % (where, k, c.get(k)))
    if not isinstance(c.get("within_goal"), bool):
        sys.exit(where + ": within_goal is not a boolean")
    if [p["processors"] for p in c["predicted_speedup"]] != [1, 2, 4, 8, 16, 32, 64]:
        sys.exit(where + ": the predicted curve is not P = 1, 2, 4, ..., 64")
if sorted(m["backend"] for m in doc["calibrations"]) != sorted(backends):
    sys.exit("calibrations: %r" % doc["calibrations"])
]=])
bench_smoke_check_json(bench_predict "${OUT}" keys check ${backends})
if(bench_smoke_done)
  return()
endif()
string(JSON n ERROR_VARIABLE err LENGTH "${bench_smoke_text}" cases)
if(err OR NOT n EQUAL expected)
  message(FATAL_ERROR "${OUT}: \"cases\" should have ${expected} rows ${err}")
endif()
message(STATUS "bench_predict --quick wrote valid JSON (checked by CMake's string(JSON)): ${OUT}")
