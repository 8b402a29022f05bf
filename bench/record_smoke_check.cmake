# bench_record_smoke: runs `bench_record --quick --out OUT` and checks that it exited
# with 0 and wrote a valid JSON document with a row per event, a record size, two
# trace writes (whole and bounded, the bounded one smaller) and a traced quicksort.
# Timings are never checked (they are the benchmark's figures, not a test's).
#
#   cmake -DBENCH_RECORD=<program> -DOUT=<json file> [-DPYTHON=<python3>] -P record_smoke_check.cmake
cmake_minimum_required(VERSION 3.14)
include("${CMAKE_CURRENT_LIST_DIR}/smoke_common.cmake")

if(NOT BENCH_RECORD OR NOT OUT)
  message(FATAL_ERROR "record_smoke_check.cmake: pass -DBENCH_RECORD=<program> -DOUT=<file>")
endif()

bench_smoke_run(bench_record "${OUT}" "${BENCH_RECORD}" --quick --out "${OUT}")

set(keys machine events record_size method trace_write traced_quicksort)
set(check [=[
events = {r["event"] for r in doc["events"]}
if events != {"spawn", "sync", "call"}:
    sys.exit("events cover %s" % sorted(events))
for r in doc["events"]:
    for k in ("record_off_ns", "record_on_ns", "ratio_on_off"):
        if not isinstance(r[k], (int, float)) or r[k] <= 0:
            sys.exit("%s: %s is %r" % (r["event"], k, r[k]))
for s in doc["record_size"]:
    if s["strands"] <= 0 or s["bytes"] <= 0:
        sys.exit("record_size row without strands or bytes: %r" % s)
if len(doc["trace_write"]) != 2 or any(w["bytes"] <= 0 or w["ns_per_strand"] <= 0 for w in doc["trace_write"]):
    sys.exit("trace_write should have two rows with bytes and ns per strand: %r" % doc["trace_write"])
if doc["trace_write"][1]["bytes"] >= doc["trace_write"][0]["bytes"]:
    sys.exit("the bounded trace is not smaller than the whole one")
if len(doc["traced_quicksort"]) != 2:
    sys.exit("traced_quicksort should have a row for the automatic clock and one for tsc")
for q in doc["traced_quicksort"]:
    if q["strands"] <= 0 or q["trace_bytes"] <= 0 or not q["ratio"] > 0 or not q["clock"]:
        sys.exit("traced_quicksort without strands, a trace, a ratio or a clock: %r" % q)
]=])
bench_smoke_check_json(bench_record "${OUT}" keys check)
if(bench_smoke_done)
  return()
endif()
string(JSON n ERROR_VARIABLE err LENGTH "${bench_smoke_text}" events)
if(err OR NOT n EQUAL 3)
  message(FATAL_ERROR "${OUT}: \"events\" should have 3 rows ${err}")
endif()
message(STATUS "bench_record --quick wrote valid JSON (checked by CMake's string(JSON)): ${OUT}")
