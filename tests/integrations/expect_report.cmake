# expect_report.cmake: run a test program whose assertions fail on purpose and
# check what it reports.
#
#   cmake -DEXE=<program> -DSOURCE=<its source file> -P expect_report.cmake [-- <arguments...>]
#
# The program must exit with a non-zero status. For every line of SOURCE that
# carries a comment "expect-report: <text>", the output (stdout and stderr) must
# name the site — <file name>:<line> (GoogleTest, doctest --gnu-file-line) or
# <file name>(<line>) (doctest) — and <text> must follow it before the next
# reported site of the file. Lines marked "expect-pass" must not be reported,
# and no "expect-absent: <text>" may appear in the output.
cmake_minimum_required(VERSION 3.14)

if(NOT DEFINED EXE OR NOT DEFINED SOURCE)
  message(FATAL_ERROR "expect_report.cmake: pass -DEXE=<program> -DSOURCE=<file>")
endif()

set(args "")
set(after_dashes OFF)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE 0 ${last})
  if(after_dashes)
    list(APPEND args "${CMAKE_ARGV${i}}")
  elseif(CMAKE_ARGV${i} STREQUAL "--")
    set(after_dashes ON)
  endif()
endforeach()

execute_process(COMMAND "${EXE}" ${args}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}\n${err}")
string(REPLACE "\r" "" all "${all}")
if(rc STREQUAL "0")
  message(FATAL_ERROR "${EXE} was expected to fail, but exited with 0:\n${all}")
endif()
if(NOT rc MATCHES "^[0-9]+$")
  message(FATAL_ERROR "${EXE} did not exit normally (${rc}):\n${all}")
endif()

get_filename_component(name "${SOURCE}" NAME)
string(REGEX REPLACE "([][.+*?()^$|\\\\])" "\\\\\\1" name_re "${name}")

# The source, one list element per line (semicolons and brackets defused).
file(READ "${SOURCE}" text)
string(REPLACE ";" "<semicolon>" text "${text}")
string(REPLACE "[" "<lb>" text "${text}")
string(REPLACE "]" "<rb>" text "${text}")
string(REPLACE "\n" ";" lines "${text}")

set(failures "")
set(reports 0)
set(line_number 0)
foreach(line IN LISTS lines)
  math(EXPR line_number "${line_number} + 1")
  string(REPLACE "<semicolon>" ";" line "${line}")
  string(REPLACE "<lb>" "[" line "${line}")
  string(REPLACE "<rb>" "]" line "${line}")
  set(site_re "${name_re}(:${line_number}[^0-9]|\\(${line_number}\\))")
  if(line MATCHES "// expect-report: (.*)$")
    set(expected "${CMAKE_MATCH_1}")
    math(EXPR reports "${reports} + 1")
    if(NOT all MATCHES "${site_re}")
      string(APPEND failures "line ${line_number}: no report at ${name}:${line_number}\n")
      continue()
    endif()
    # The text that follows the site, up to the next site of this file.
    string(FIND "${all}" "${CMAKE_MATCH_0}" at)
    string(LENGTH "${CMAKE_MATCH_0}" site_length)
    math(EXPR at "${at} + ${site_length}")
    string(SUBSTRING "${all}" ${at} -1 after)
    string(FIND "${after}" "${name}:" next_colon)
    string(FIND "${after}" "${name}(" next_paren)
    set(next -1)
    foreach(candidate ${next_colon} ${next_paren})
      if(NOT candidate EQUAL -1 AND (next EQUAL -1 OR candidate LESS next))
        set(next ${candidate})
      endif()
    endforeach()
    if(NOT next EQUAL -1)
      string(SUBSTRING "${after}" 0 ${next} after)
    endif()
    string(FIND "${after}" "${expected}" found)
    if(found EQUAL -1)
      string(APPEND failures "line ${line_number}: the report at ${name}:${line_number} lacks '${expected}':\n${after}\n")
    else()
      message(STATUS "${name}:${line_number}: reported with '${expected}'")
    endif()
  elseif(line MATCHES "// expect-pass")
    if(all MATCHES "${site_re}")
      string(APPEND failures "line ${line_number}: a passing check was reported\n")
    endif()
  endif()
  if(line MATCHES "// expect-absent: (.*)$")
    string(FIND "${all}" "${CMAKE_MATCH_1}" found)
    if(NOT found EQUAL -1)
      string(APPEND failures "line ${line_number}: '${CMAKE_MATCH_1}' was printed\n")
    endif()
  endif()
endforeach()

if(reports EQUAL 0)
  message(FATAL_ERROR "${SOURCE} has no 'expect-report:' line")
endif()
if(failures)
  message(FATAL_ERROR "${EXE} (exit status ${rc}):\n${failures}\nfull output:\n${all}")
endif()
message(STATUS "${EXE} failed as expected (exit status ${rc}); ${reports} report(s) checked")
