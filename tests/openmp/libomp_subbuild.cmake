# Driver for the openmp.libomp test, run by ctest as `cmake -P`: configures the
# sub-project tests/openmp/libomp with clang++ (CXX_COMPILER) from scratch, builds
# it, and runs its own ctest. Any failing step fails the test. (The same steps as
# tests/cmake_consumer.cmake, with another compiler than the parent build's.)
cmake_minimum_required(VERSION 3.20)

foreach(var SOURCE_DIR BINARY_DIR GENERATOR CXX_COMPILER CONFIG FORKSCALE_SOURCE_DIR CTEST_COMMAND)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "libomp_subbuild.cmake: -D${var}=... is required")
  endif()
endforeach()

function(run_step what)
  message(STATUS "[openmp.libomp] ${what}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc COMMAND_ECHO STDOUT)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "[openmp.libomp] ${what} failed (${rc})")
  endif()
endfunction()

# Always from scratch: a stale cache would hide a broken step.
file(REMOVE_RECURSE "${BINARY_DIR}")
set(build_dir "${BINARY_DIR}/build")
string(TOUPPER "${CONFIG}" config_upper)

set(configure_args
  -S "${SOURCE_DIR}" -B "${build_dir}"
  -G "${GENERATOR}"
  "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
  "-DCMAKE_BUILD_TYPE=${CONFIG}"
  "-DFORKSCALE_SOURCE=${FORKSCALE_SOURCE_DIR}"
  "-DFORKSCALE_OPENMP_SANITIZE=${SANITIZE}")
if(NOT "${CONFIG_FLAGS}" STREQUAL "")
  list(APPEND configure_args "-DCMAKE_CXX_FLAGS_${config_upper}=${CONFIG_FLAGS}")
endif()

run_step("configure with ${CXX_COMPILER}" "${CMAKE_COMMAND}" ${configure_args})
run_step("build" "${CMAKE_COMMAND}" --build "${build_dir}" --config "${CONFIG}")
run_step("run" "${CTEST_COMMAND}" --test-dir "${build_dir}" -C "${CONFIG}"
               --verbose --no-tests=error)
