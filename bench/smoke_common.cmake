# smoke_common.cmake: what the two benchmark smoke checks (smoke_check.cmake,
# overhead_smoke_check.cmake) share: run the program, check that it exited with 0
# and wrote its JSON file (and no FILE.tmp), then check the document: strictly by
# Python's json module when PYTHON is set (no NaN or Infinity either), otherwise by
# CMake's string(JSON) (3.19+), which catches most errors but tolerates a few
# (trailing commas, text after the document); with neither, the outline only.
# Timings are never checked.

# bench_smoke_run(<name> <out> <command>...): removes <out> and <out>.tmp, runs the
# command; a fatal error unless it exited with 0, wrote <out> and left no <out>.tmp.
function(bench_smoke_run name out)
  file(REMOVE "${out}" "${out}.tmp")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "${name} --quick failed (exit status: ${rc})")
  endif()
  if(NOT EXISTS "${out}")
    message(FATAL_ERROR "${name} --quick exited with 0 but wrote no ${out}")
  endif()
  if(EXISTS "${out}.tmp")
    message(FATAL_ERROR "${name} --quick left its temporary file ${out}.tmp behind")
  endif()
endfunction()

# bench_smoke_check_json(<name> <out> <top_keys_var> <python_check_var> [<python_arg>...])
# checks that <out> is a JSON object holding every key of the list <top_keys_var>.
# With PYTHON, it also runs the Python code in <python_check_var>, after a prelude
# that has loaded the document into `doc`; sys.argv[3:] are the <python_arg>s.
# Sets bench_smoke_done in the caller: TRUE when nothing more can be checked (the
# Python check ran, or neither parser was available), FALSE when the caller should
# go on with string(JSON) checks on bench_smoke_text, the document.
function(bench_smoke_check_json name out top_keys_var python_check_var)
  set(bench_smoke_done TRUE PARENT_SCOPE)
  if(PYTHON AND EXISTS "${PYTHON}")
    string(REPLACE ";" " " top_words "${${top_keys_var}}")
    set(prelude [=[
import json, sys
def constant(name):
    raise ValueError("non-standard JSON constant " + name)
try:
    with open(sys.argv[1], encoding="utf-8") as f:
        doc = json.load(f, parse_constant=constant)
except (OSError, ValueError) as e:
    sys.exit("invalid JSON: %s" % e)
if not isinstance(doc, dict):
    sys.exit("the document is not a JSON object")
for key in sys.argv[2].split():
    if key not in doc:
        sys.exit("no \"%s\" in the document" % key)
]=])
    execute_process(COMMAND "${PYTHON}" -c "${prelude}${${python_check_var}}" "${out}" "${top_words}" ${ARGN}
                    RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc STREQUAL "0")
      message(FATAL_ERROR "${out} is not valid: ${err}")
    endif()
    message(STATUS "${name} --quick wrote valid JSON (checked by ${PYTHON}): ${out}")
    return()
  endif()

  file(READ "${out}" text)
  if(CMAKE_VERSION VERSION_LESS 3.19)
    # Neither Python nor string(JSON): check the outline only.
    if(NOT text MATCHES "^{" OR NOT text MATCHES "}[ \t\r\n]*$")
      message(FATAL_ERROR "${out} does not look like a JSON object")
    endif()
    message(STATUS "no JSON parser available (no Python, CMake ${CMAKE_VERSION}); checked the outline of ${out} only")
    return()
  endif()

  # string(JSON) parses the whole document on every call.
  string(JSON type ERROR_VARIABLE err TYPE "${text}")
  if(err OR NOT type STREQUAL "OBJECT")
    message(FATAL_ERROR "${out} is not a valid JSON object: ${err}")
  endif()
  foreach(key IN LISTS ${top_keys_var})
    string(JSON type ERROR_VARIABLE err TYPE "${text}" ${key})
    if(err)
      message(FATAL_ERROR "${out} has no \"${key}\": ${err}")
    endif()
  endforeach()
  set(bench_smoke_text "${text}" PARENT_SCOPE)
  set(bench_smoke_done FALSE PARENT_SCOPE)
endfunction()
