# The zero-cost check of FORKSCALE_ENABLE=0: compiles codegen/annotated.cpp (every
# guard, region, what-if region and measure(), switched off) and codegen/plain.cpp
# (the same program without them) with one compiler at -O2, then requires
#   - no undefined symbol in the annotated object that the plain one lacks (no
#     call into forkscale, no operator new),
#   - the same .text size within 16 bytes.
#
#   cmake -DCXX=<compiler> -DINCLUDE=<include dir> -DSRC=<codegen dir> -DOUT=<dir>
#         -DNM=<nm> -DSIZE=<size> -P codegen_check.cmake
cmake_minimum_required(VERSION 3.14)
foreach(v CXX INCLUDE SRC OUT NM SIZE)
  if(NOT ${v})
    message(FATAL_ERROR "codegen_check.cmake: pass -D${v}=...")
  endif()
endforeach()
file(MAKE_DIRECTORY "${OUT}")

function(compile name)
  execute_process(COMMAND "${CXX}" -std=c++17 -O2 -DFORKSCALE_ENABLE=0 "-I${INCLUDE}" -c "${SRC}/${name}.cpp"
                          -o "${OUT}/${name}.o"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "${CXX} could not compile ${name}.cpp: ${err}")
  endif()
  execute_process(COMMAND "${NM}" --undefined-only "${OUT}/${name}.o" OUTPUT_VARIABLE undefined)
  string(REGEX MATCHALL "U [^\n]+" undefined "${undefined}")
  set(${name}_undefined "${undefined}" PARENT_SCOPE)
  execute_process(COMMAND "${SIZE}" -A "${OUT}/${name}.o" OUTPUT_VARIABLE sections)
  set(text 0)
  string(REGEX MATCHALL "\n\\.text[^ \n]*[ ]+[0-9]+" rows "${sections}")
  foreach(row IN LISTS rows)
    string(REGEX MATCH "[0-9]+$" n "${row}")
    math(EXPR text "${text} + ${n}")
  endforeach()
  set(${name}_text ${text} PARENT_SCOPE)
endfunction()

compile(annotated)
compile(plain)
foreach(sym IN LISTS annotated_undefined)
  list(FIND plain_undefined "${sym}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${CXX}: the annotated program needs '${sym}', which the plain one does not")
  endif()
endforeach()
foreach(sym IN LISTS annotated_undefined)
  if(sym MATCHES "forkscale|_Znw")
    message(FATAL_ERROR "${CXX}: the annotated program calls '${sym}'")
  endif()
endforeach()
math(EXPR diff "${annotated_text} - ${plain_text}")
if(diff LESS -16 OR diff GREATER 16)
  message(FATAL_ERROR "${CXX}: .text is ${annotated_text} bytes annotated, ${plain_text} plain (more than 16 apart)")
endif()
message(STATUS "${CXX}: .text ${annotated_text} bytes annotated, ${plain_text} plain; no call into forkscale")
