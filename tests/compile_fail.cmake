# Compiles SOURCE twice: as it is (must succeed, so the test cannot pass on a
# broken include path) and with FORKSCALE_EXPECT_COMPILE_ERROR (must fail).
# Both with FORKSCALE_COMPILED_LIB: the guards are the same code in both forms,
# and the compiled form's declarations parse in a fifth of the header-only time.
foreach(v CXX SOURCE INCLUDE)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "compile_fail.cmake: ${v} is not set")
  endif()
endforeach()
execute_process(COMMAND "${CXX}" -std=c++17 -fsyntax-only -DFORKSCALE_COMPILED_LIB "-I${INCLUDE}" "${SOURCE}"
                RESULT_VARIABLE ok_result ERROR_VARIABLE ok_err)
if(NOT ok_result EQUAL 0)
  message(FATAL_ERROR "${SOURCE} does not compile even without the error:\n${ok_err}")
endif()
execute_process(COMMAND "${CXX}" -std=c++17 -fsyntax-only -DFORKSCALE_COMPILED_LIB "-I${INCLUDE}"
                        -DFORKSCALE_EXPECT_COMPILE_ERROR "${SOURCE}"
                RESULT_VARIABLE bad_result ERROR_VARIABLE bad_err)
if(bad_result EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled with FORKSCALE_EXPECT_COMPILE_ERROR; it must not")
endif()
message(STATUS "${SOURCE}: rejected as expected")
