# bench_overhead_smoke: runs `bench_overhead --quick --out OUT` (tiny inputs, one run
# each way) and checks that it exited with 0 and wrote valid JSON with the keys the
# suite promises. No timing is ever checked: CI machines are noisy.
#
#   cmake -DBENCH_OVERHEAD=<driver> -DWORKLOAD_ON=<program> -DWORKLOAD_OFF=<program>
#         -DOUT=<json file> [-DPYTHON=<python3>] -P overhead_smoke_check.cmake
#
# With PYTHON the document is parsed strictly by Python's json module; without it,
# by CMake's string(JSON) (3.19+).
cmake_minimum_required(VERSION 3.14)

foreach(var BENCH_OVERHEAD WORKLOAD_ON WORKLOAD_OFF OUT)
  if(NOT ${var})
    message(FATAL_ERROR "overhead_smoke_check.cmake: pass -D${var}=...")
  endif()
endforeach()

file(REMOVE "${OUT}" "${OUT}.tmp")
execute_process(
  COMMAND "${BENCH_OVERHEAD}" --quick --on "${WORKLOAD_ON}" --off "${WORKLOAD_OFF}" --out "${OUT}"
  RESULT_VARIABLE rc)
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "bench_overhead --quick failed (exit status: ${rc})")
endif()
if(NOT EXISTS "${OUT}")
  message(FATAL_ERROR "bench_overhead --quick exited with 0 but wrote no ${OUT}")
endif()
if(EXISTS "${OUT}.tmp")
  message(FATAL_ERROR "bench_overhead --quick left its temporary file ${OUT}.tmp behind")
endif()

set(top_keys machine compiler date tbb comparisons event_cost memory papers goals)
set(bench_keys name backend threads off_s on_s ratio events ns_per_event peak_rss_off peak_rss_on)
set(comparison_keys name backend threads skipped benchmarks geomean_ratio max_ratio)

if(PYTHON AND EXISTS "${PYTHON}")
  string(REPLACE ";" " " top_words "${top_keys}")
  string(REPLACE ";" " " bench_words "${bench_keys}")
  string(REPLACE ";" " " comparison_words "${comparison_keys}")
  set(check [=[
import json, sys
def constant(name):
    raise ValueError("non-standard JSON constant " + name)
try:
    with open(sys.argv[1], encoding="utf-8") as f:
        doc = json.load(f, parse_constant=constant)
except (OSError, ValueError) as e:
    sys.exit("invalid JSON: %s" % e)
top, bench, comp = (s.split() for s in sys.argv[2:5])
if not isinstance(doc, dict):
    sys.exit("the document is not a JSON object")
for k in top:
    if k not in doc:
        sys.exit('no "%s" in the document' % k)
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
  execute_process(COMMAND "${PYTHON}" -c "${check}" "${OUT}" "${top_words}" "${bench_words}" "${comparison_words}"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "${OUT} is not valid: ${err}")
  endif()
  message(STATUS "bench_overhead --quick wrote valid JSON (checked by ${PYTHON}): ${OUT}")
  return()
endif()

file(READ "${OUT}" text)
if(CMAKE_VERSION VERSION_LESS 3.19)
  if(NOT text MATCHES "^{" OR NOT text MATCHES "}[ \t\r\n]*$")
    message(FATAL_ERROR "${OUT} does not look like a JSON object")
  endif()
  message(STATUS "no JSON parser available; checked the outline of ${OUT} only")
  return()
endif()
string(JSON type ERROR_VARIABLE err TYPE "${text}")
if(err OR NOT type STREQUAL "OBJECT")
  message(FATAL_ERROR "${OUT} is not a valid JSON object: ${err}")
endif()
foreach(key IN LISTS top_keys)
  string(JSON ignored ERROR_VARIABLE err TYPE "${text}" ${key})
  if(err)
    message(FATAL_ERROR "${OUT} has no \"${key}\": ${err}")
  endif()
endforeach()
string(JSON ncomp LENGTH "${text}" comparisons)
if(NOT ncomp EQUAL 3)
  message(FATAL_ERROR "${OUT}: expected 3 comparisons, found ${ncomp}")
endif()
math(EXPR last "${ncomp} - 1")
foreach(i RANGE ${last})
  foreach(key IN LISTS comparison_keys)
    string(JSON ignored ERROR_VARIABLE err TYPE "${text}" comparisons ${i} ${key})
    if(err)
      message(FATAL_ERROR "${OUT}: comparison ${i} has no \"${key}\"")
    endif()
  endforeach()
  string(JSON skipped GET "${text}" comparisons ${i} skipped)
  if(NOT skipped)
    string(JSON nb LENGTH "${text}" comparisons ${i} benchmarks)
    if(NOT nb EQUAL 8)
      message(FATAL_ERROR "${OUT}: comparison ${i} has ${nb} benchmarks, not 8")
    endif()
    foreach(key IN LISTS bench_keys)
      string(JSON ignored ERROR_VARIABLE err TYPE "${text}" comparisons ${i} benchmarks 0 ${key})
      if(err)
        message(FATAL_ERROR "${OUT}: comparison ${i}, benchmark 0 has no \"${key}\"")
      endif()
    endforeach()
  endif()
endforeach()
string(JSON ignored ERROR_VARIABLE err TYPE "${text}" event_cost what_if)
if(err)
  message(FATAL_ERROR "${OUT}: event_cost has no what_if slot")
endif()
message(STATUS "bench_overhead --quick wrote valid JSON (checked by CMake's string(JSON)): ${OUT}")
