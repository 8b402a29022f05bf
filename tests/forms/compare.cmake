# Runs the two builds of forms_program.cpp (HEADER_ONLY and COMPILED) and fails
# unless they print the same, byte for byte.
foreach(form HEADER_ONLY COMPILED)
  execute_process(COMMAND "${${form}}" OUTPUT_VARIABLE out_${form} RESULT_VARIABLE rc_${form})
  if(NOT rc_${form} EQUAL 0)
    message(FATAL_ERROR "${${form}} exited with ${rc_${form}}")
  endif()
endforeach()
string(LENGTH "${out_HEADER_ONLY}" length)
if(length LESS 1000)
  message(FATAL_ERROR "the header-only build printed only ${length} bytes")
endif()
if(NOT out_HEADER_ONLY STREQUAL out_COMPILED)
  file(WRITE "${WORK_DIR}/forms_header_only.txt" "${out_HEADER_ONLY}")
  file(WRITE "${WORK_DIR}/forms_compiled.txt" "${out_COMPILED}")
  message(FATAL_ERROR "the header-only and the compiled form print different reports: "
                      "see ${WORK_DIR}/forms_header_only.txt and forms_compiled.txt")
endif()
message(STATUS "both forms printed the same ${length} bytes")
