# bench_compile_smoke: runs `bench_compile.py --quick --out OUT` and checks that it
# exited with 0 and wrote a valid JSON document with the baseline's, annotate.hpp's
# and the umbrella's compile times. Timings are never checked (they are the benchmark's
# figures, not a test's).
#
#   cmake -DPYTHON=<python3> -DSCRIPT=<bench_compile.py> -DCXX=<compiler> -DOUT=<json file>
#         -P compile_smoke_check.cmake
cmake_minimum_required(VERSION 3.14)
include("${CMAKE_CURRENT_LIST_DIR}/smoke_common.cmake")

foreach(var PYTHON SCRIPT CXX OUT)
  if(NOT ${var})
    message(FATAL_ERROR "compile_smoke_check.cmake: pass -D${var}=...")
  endif()
endforeach()

bench_smoke_run(bench_compile "${OUT}" "${PYTHON}" "${SCRIPT}" --quick --compiler "${CXX}" --out "${OUT}")

set(keys baseline annotate umbrella umbrella_compiled programs ompt_program headers compiler runs method)
set(check [=[
for part in ("baseline", "annotate", "umbrella"):
    for k in ("parse_s", "full_s"):
        if part == "umbrella" and k == "full_s" and doc["mode"] == "quick":
            if doc[part][k] is not None:  # --quick leaves the umbrella's full compile out
                sys.exit("umbrella.full_s is %r in quick mode, not null" % doc[part][k])
            continue
        if not isinstance(doc[part][k], (int, float)) or doc[part][k] <= 0:
            sys.exit("%s.%s is %r" % (part, k, doc[part][k]))
if doc["umbrella"]["header"] != "forkscale/forkscale.hpp":
    sys.exit("the umbrella row is %r" % doc["umbrella"]["header"])
if doc["annotate"]["header"] != "forkscale/annotate.hpp":
    sys.exit("the annotate row is %r" % doc["annotate"]["header"])
for part in ("annotate", "umbrella", "umbrella_compiled"):
    if not isinstance(doc[part]["goal_met"], bool):
        sys.exit("%s.goal_met is not a boolean" % part)
if not doc["umbrella_compiled"]["parse_s"] > 0:
    sys.exit("umbrella_compiled.parse_s is %r" % doc["umbrella_compiled"]["parse_s"])
names = [r["program"] for r in doc["programs"]["rows"]]
if names != ["readme", "one_measure", "annotate_only"]:
    sys.exit("the program rows are %r" % names)
for r in doc["programs"]["rows"]:
    if not r["compiled"]["cpu_s"] > 0:
        sys.exit("programs %s: compiled.cpu_s is %r" % (r["program"], r["compiled"]["cpu_s"]))
o = doc["ompt_program"]
if "skipped" not in o and not (o["compiled"]["cpu_s"] > 0 and isinstance(o["compiled"]["goal_met"], bool)):
    sys.exit("ompt_program.compiled is %r" % o["compiled"])
]=])
bench_smoke_check_json(bench_compile "${OUT}" keys check)
