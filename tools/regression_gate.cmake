# regression_gate.cmake: the README's CI recipe ("keep a baseline report in the
# repo, fail CI on a 10% parallelism drop") run for real.
#
#   cmake -DQUICKSORT=<examples/quicksort> -DREPORT=<forkscale-report> -DDIR=<scratch dir>
#         -P regression_gate.cmake
#
# The baseline is examples/quicksort on 1,000,000 integers under the cost clock
# (deterministic). Two later runs stand in for changes to the program: one on
# 1,100,000 integers, whose parallelism is within 10% of the baseline's, and one
# on 20,000 integers, whose parallelism is far lower (quicksort's parallelism
# grows with the input). The expected parallelism values are recomputed here
# from each report's work and span. Checks: compare --fail-if exits 0 within
# the threshold and 1 on the seeded regression, with one line naming the
# metric, both values, the change and the rule (and, with --to github, an
# ::error annotation); 2 with one line on a bad rule or a region in neither
# report; without --fail-if compare still exits 0.
cmake_minimum_required(VERSION 3.19)  # string(JSON)

foreach(var QUICKSORT REPORT DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "regression_gate.cmake: pass -DQUICKSORT=<exe> -DREPORT=<exe> -DDIR=<dir>")
  endif()
endforeach()
file(REMOVE_RECURSE "${DIR}")
set(failures "")

# run(<name> <exe> <args>...): sets <name>_rc, <name>_out, <name>_err.
macro(run name exe)
  execute_process(COMMAND "${exe}" ${ARGN} RESULT_VARIABLE ${name}_rc OUTPUT_VARIABLE ${name}_out
                  ERROR_VARIABLE ${name}_err)
endmacro()

# fail(<what>): one more failed check.
macro(fail what)
  string(APPEND failures "\n  ${what}")
endmacro()

# A report's whole-program parallelism with two decimals, from its work and span.
function(parallelism_of json out_var)
  file(READ "${json}" text)
  string(JSON work GET "${text}" regions 0 work)
  string(JSON span GET "${text}" regions 0 span)
  math(EXPR hundredths "(${work} * 100 + ${span} / 2) / ${span}")
  math(EXPR whole "${hundredths} / 100")
  math(EXPR cents "${hundredths} % 100")
  if(cents LESS 10)
    set(cents "0${cents}")
  endif()
  set(${out_var} "${whole}.${cents}" PARENT_SCOPE)
endfunction()

# --- the reports ---------------------------------------------------------------
foreach(run_case "baseline|1000000" "within|1100000" "regressed|20000")
  string(REPLACE "|" ";" run_case "${run_case}")
  list(GET run_case 0 name)
  list(GET run_case 1 n)
  run(make "${QUICKSORT}" ${n} --clock cost --out "${DIR}/${name}")
  if(NOT make_rc STREQUAL "0" OR NOT EXISTS "${DIR}/${name}/quicksort.json")
    message(FATAL_ERROR "quicksort ${n} --clock cost --out ${DIR}/${name} failed (${make_rc}):\n${make_err}")
  endif()
endforeach()
set(baseline "${DIR}/baseline/quicksort.json")
parallelism_of("${baseline}" before)
parallelism_of("${DIR}/regressed/quicksort.json" after)
message(STATUS "parallelism: baseline ${before}, regressed ${after}")

# --- within the threshold: exit 0, nothing on stderr ------------------------------
run(ok "${REPORT}" compare "${baseline}" "${DIR}/within/quicksort.json" --fail-if "parallelism<-10%"
    --fail-if "span>+50%")
if(NOT (ok_rc STREQUAL 0))
  fail("within 10%: exit status 0 (got ${ok_rc}; stderr: ${ok_err})")
endif()
if(NOT (ok_err STREQUAL ""))
  fail("within 10%: nothing on stderr (got: ${ok_err})")
endif()
if(NOT (ok_out MATCHES "Parallelism"))
  fail("within 10%: the comparison on stdout")
endif()

# --- the seeded regression: exit 1, one line per regression -----------------------
string(REGEX REPLACE "([.+*?()])" "\\\\\\1" before_re "${before}")
string(REGEX REPLACE "([.+*?()])" "\\\\\\1" after_re "${after}")
set(line_re "^forkscale-report: regression: parallelism of 'quicksort': ${before_re} before, ${after_re} after, "
            "-[0-9]+\\.[0-9]% \\(rule parallelism<-10%\\)\n$")
string(CONCAT line_re ${line_re})
run(bad "${REPORT}" compare "${baseline}" "${DIR}/regressed/quicksort.json" --fail-if "parallelism<-10%")
if(NOT (bad_rc STREQUAL 1))
  fail("regression: exit status 1 (got ${bad_rc}; stderr: ${bad_err})")
endif()
if(NOT (bad_err MATCHES "${line_re}"))
  fail("regression: one line on stderr matching ${line_re} (got: ${bad_err})")
endif()
if(NOT (bad_out MATCHES "Parallelism"))
  fail("regression: the comparison on stdout")
endif()

# Two rules, one line each; a rule that holds adds none.
run(two "${REPORT}" compare "${baseline}" "${DIR}/regressed/quicksort.json" --fail-if "parallelism<-10%"
    --fail-if "work<-50%" --fail-if "work>+1000%")
string(REGEX MATCHALL "\n" two_lines "${two_err}")
list(LENGTH two_lines two_count)
if(NOT (two_rc STREQUAL 1))
  fail("two regressions: exit status 1 (got ${two_rc})")
endif()
if(NOT (two_count EQUAL 2))
  fail("two regressions: two lines (got: ${two_err})")
endif()
if(NOT (two_err MATCHES "regression: work of 'quicksort': [0-9,]+ before, [0-9,]+ after, -[0-9.]+% \\(rule work<-50%\\)"))
  fail("two regressions: the work line (got: ${two_err})")
endif()

# --- --to github: an ::error annotation per regression -----------------------------
run(gh "${REPORT}" compare "${baseline}" "${DIR}/regressed/quicksort.json" --fail-if "parallelism<-10%" --to github)
set(gh_re "\n::error title=forkscale regression%3A parallelism of quicksort::parallelism of 'quicksort': "
          "${before_re} before, ${after_re} after, -[0-9]+\\.[0-9]%25 \\(rule parallelism<-10%25\\)\n$")
string(CONCAT gh_re ${gh_re})
if(NOT (gh_rc STREQUAL 1))
  fail("--to github: exit status 1 (got ${gh_rc}; stderr: ${gh_err})")
endif()
if(NOT (gh_out MATCHES "${gh_re}"))
  fail("--to github: the annotation at the end of stdout (got: ${gh_out})")
endif()
if(NOT (gh_err STREQUAL ""))
  fail("--to github: nothing on stderr (got: ${gh_err})")
endif()

# --- without --fail-if: compare as before, exit 0 ---------------------------------
run(plain "${REPORT}" compare "${baseline}" "${DIR}/regressed/quicksort.json")
if(NOT (plain_rc STREQUAL 0))
  fail("without --fail-if: exit status 0 (got ${plain_rc})")
endif()

# --- bad rules: exit 2, one line naming the rule and the problem -------------------
foreach(case "parallelism<-10|the threshold must be a percentage"
             "paralelism<-10%|unknown metric 'paralelism'"
             "parallelism=-10%|expected '<' or '>'")
  string(REPLACE "|" ";" case "${case}")
  list(GET case 0 rule)
  list(GET case 1 problem)
  run(e "${REPORT}" compare "${baseline}" "${DIR}/regressed/quicksort.json" --fail-if "${rule}")
  string(REGEX REPLACE "([][.+*?()^$|\\\\])" "\\\\\\1" rule_re "${rule}")
  if(NOT (e_rc STREQUAL 2))
    fail("bad rule ${rule}: exit status 2 (got ${e_rc})")
  endif()
  if(NOT (e_err MATCHES "^forkscale-report: bad regression rule '${rule_re}': ${problem}[^\n]*\n$"))
    fail("bad rule ${rule}: one line naming it (got: ${e_err})")
  endif()
  if(NOT (e_out STREQUAL ""))
    fail("bad rule ${rule}: no comparison (got: ${e_out})")
  endif()
endforeach()
run(e "${REPORT}" compare "${baseline}" "${DIR}/regressed/quicksort.json" --fail-if "region=sortt:span>+5%")
if(NOT (e_rc STREQUAL 2))
  fail("region in neither report: exit status 2 (got ${e_rc})")
endif()
if(NOT (e_err MATCHES "^forkscale-report: regression rule 'region=sortt:span>\\+5%': no region 'sortt' in either report\n$"))
  fail("region in neither report: one line (got: ${e_err})")
endif()

if(failures)
  message(FATAL_ERROR "regression gate:${failures}")
endif()
message(STATUS "regression gate: every check passed")
