# bench_fine_grain_smoke: runs `bench_fine_grain --quick --out OUT` and checks that
# it exited with 0 and wrote a valid JSON document with a row per leaf size whose
# figures are positive numbers. The ratios are never checked against their goals
# (they are the benchmark's figures, not a test's).
#
#   cmake -DBENCH_FINE_GRAIN=<program> -DOUT=<json file> [-DPYTHON=<python3>] -P fine_grain_smoke_check.cmake
cmake_minimum_required(VERSION 3.14)
include("${CMAKE_CURRENT_LIST_DIR}/smoke_common.cmake")

if(NOT BENCH_FINE_GRAIN OR NOT OUT)
  message(FATAL_ERROR "fine_grain_smoke_check.cmake: pass -DBENCH_FINE_GRAIN=<program> -DOUT=<file>")
endif()

bench_smoke_run(bench_fine_grain "${OUT}" "${BENCH_FINE_GRAIN}" --quick --out "${OUT}")

set(keys machine cores rows goal_met)
set(check [=[
rows = doc["rows"]
if [r["leaf"] for r in rows] != ["4us", "150ns", "40ns"]:
    sys.exit("rows are %s, expected 4us, 150ns, 40ns" % [r["leaf"] for r in rows])
for r in rows:
    for k in ("ratio", "goal", "spin_iterations"):
        if not isinstance(r[k], (int, float)) or r[k] <= 0:
            sys.exit("%s: %s is %r" % (r["leaf"], k, r[k]))
    if not r["plain_cpu_ns"] or not r["work_ns"]:
        sys.exit("%s: no runs" % r["leaf"])
]=])
bench_smoke_check_json(bench_fine_grain "${OUT}" keys check)
