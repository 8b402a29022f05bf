# bench_overhead_smoke: runs `bench_overhead --quick --out OUT` (tiny inputs, one run
# each way) and checks that it exited with 0 and wrote valid JSON with the keys the
# suite promises. No timing is ever checked: CI machines are noisy.
#
#   cmake -DBENCH_OVERHEAD=<driver> -DWORKLOAD_ON=<program> -DWORKLOAD_OFF=<program>
#         -DOUT=<json file> [-DPYTHON=<python3>] -P overhead_smoke_check.cmake
#
# With PYTHON the document is parsed strictly by Python's json module; without it,
# by CMake's string(JSON) (3.19+). The shared steps are in smoke_common.cmake.
cmake_minimum_required(VERSION 3.14)
include("${CMAKE_CURRENT_LIST_DIR}/smoke_common.cmake")

foreach(var BENCH_OVERHEAD WORKLOAD_ON WORKLOAD_OFF OUT)
  if(NOT ${var})
    message(FATAL_ERROR "overhead_smoke_check.cmake: pass -D${var}=...")
  endif()
endforeach()

bench_smoke_run(bench_overhead "${OUT}"
  "${BENCH_OVERHEAD}" --quick --on "${WORKLOAD_ON}" --off "${WORKLOAD_OFF}" --out "${OUT}")

set(top_keys machine compiler date tbb comparisons event_cost memory papers goals)
set(bench_keys name backend threads off_s on_s ratio off_min_s on_min_s ratio_of_minimums pair_ratio_min pair_ratio_max events ns_per_event peak_rss_off peak_rss_on)
set(comparison_keys name backend threads skipped benchmarks geomean_ratio max_ratio)

string(REPLACE ";" " " bench_words "${bench_keys}")
string(REPLACE ";" " " comparison_words "${comparison_keys}")
set(check [=[
bench, comp = (s.split() for s in sys.argv[3:5])
for k in ("cpu_model", "cores"):
    if k not in doc["machine"]:
        sys.exit('no "machine"."%s"' % k)
comps = doc["comparisons"]
if [c.get("name") for c in comps] != ["serial_tbb_1", "parallel_tbb_2", "serial_elision"]:
    sys.exit("the comparisons are not serial_tbb_1, parallel_tbb_2, serial_elision")
ran = 0
for c in comps:
    for k in comp:
        if k not in c:
            sys.exit('comparison %s has no "%s"' % (c.get("name"), k))
    if c["skipped"]:
        if c["name"] == "serial_elision":
            sys.exit("the serial-elision comparison was skipped")
        continue
    ran += 1
    if len(c["benchmarks"]) != 8:
        sys.exit("comparison %s has %d benchmarks, not 8" % (c["name"], len(c["benchmarks"])))
    for b in c["benchmarks"]:
        if not b.get("ok"):
            sys.exit("%s / %s failed: %s" % (c["name"], b.get("name"), b.get("error")))
        for k in bench:
            if k not in b:
                sys.exit('%s / %s has no "%s"' % (c["name"], b.get("name"), k))
        if not b["events"] > 0:
            sys.exit("%s / %s: the profiled run reported no events" % (c["name"], b["name"]))
if doc["tbb"]["available"] and ran != 3:
    sys.exit("oneTBB is available but only %d comparison(s) ran" % ran)
ev = doc["event_cost"]
if not ev.get("ok") or "what_if" not in ev:
    sys.exit("event_cost is missing, failed, or has no what_if slot")
for k in ("spawn", "sync", "call_site"):
    if k not in ev["events"]:
        sys.exit('event_cost.events has no "%s"' % k)
mem = doc["memory"]["benchmarks"]
if len(mem) != 8 or not all("small" in m and "big" in m for m in mem):
    sys.exit("memory.benchmarks is incomplete")
if doc.get("failed"):
    sys.exit("the document says a run failed")
]=])
bench_smoke_check_json(bench_overhead "${OUT}" top_keys check "${bench_words}" "${comparison_words}")
if(bench_smoke_done)
  return()
endif()

string(JSON ncomp LENGTH "${bench_smoke_text}" comparisons)
if(NOT ncomp EQUAL 3)
  message(FATAL_ERROR "${OUT}: expected 3 comparisons, found ${ncomp}")
endif()
math(EXPR last "${ncomp} - 1")
foreach(i RANGE ${last})
  foreach(key IN LISTS comparison_keys)
    string(JSON ignored ERROR_VARIABLE err TYPE "${bench_smoke_text}" comparisons ${i} ${key})
    if(err)
      message(FATAL_ERROR "${OUT}: comparison ${i} has no \"${key}\"")
    endif()
  endforeach()
  string(JSON skipped GET "${bench_smoke_text}" comparisons ${i} skipped)
  if(NOT skipped)
    string(JSON nb LENGTH "${bench_smoke_text}" comparisons ${i} benchmarks)
    if(NOT nb EQUAL 8)
      message(FATAL_ERROR "${OUT}: comparison ${i} has ${nb} benchmarks, not 8")
    endif()
    foreach(key IN LISTS bench_keys)
      string(JSON ignored ERROR_VARIABLE err TYPE "${bench_smoke_text}" comparisons ${i} benchmarks 0 ${key})
      if(err)
        message(FATAL_ERROR "${OUT}: comparison ${i}, benchmark 0 has no \"${key}\"")
      endif()
    endforeach()
  endif()
endforeach()
string(JSON ignored ERROR_VARIABLE err TYPE "${bench_smoke_text}" event_cost what_if)
if(err)
  message(FATAL_ERROR "${OUT}: event_cost has no what_if slot")
endif()
message(STATUS "bench_overhead --quick wrote valid JSON (checked by CMake's string(JSON)): ${OUT}")
