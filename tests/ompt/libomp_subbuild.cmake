# Driver for the ompt.libomp test, run by ctest as `cmake -P`: configures the
# sub-project tests/ompt/libomp with clang++ (CXX_COMPILER) from scratch, builds
# it, and runs its own ctest. Any failing step fails the test.
cmake_minimum_required(VERSION 3.20)

foreach(var SOURCE_DIR BINARY_DIR GENERATOR CXX_COMPILER CONFIG FORKSCALE_SOURCE_DIR CTEST_COMMAND)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "libomp_subbuild.cmake: -D${var}=... is required")
  endif()
endforeach()

function(step what)
  message(STATUS "[ompt.libomp] ${what}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc COMMAND_ECHO STDOUT)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "[ompt.libomp] ${what} failed (${rc})")
  endif()
endfunction()

file(REMOVE_RECURSE "${BINARY_DIR}")  # from scratch: a stale cache would hide a broken step
set(build_dir "${BINARY_DIR}/build")
string(TOUPPER "${CONFIG}" config_upper)
set(configure_args
  -S "${SOURCE_DIR}" -B "${build_dir}" -G "${GENERATOR}"
  "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
  "-DCMAKE_BUILD_TYPE=${CONFIG}"
  "-DFORKSCALE_SOURCE=${FORKSCALE_SOURCE_DIR}"
  "-DFORKSCALE_OMPT_SANITIZE=${SANITIZE}"
  # The library once, in one file: less CPU than one file per part, and this
  # build has no cores to spare for -j (the parent's tests run beside it).
  -DFORKSCALE_COMPILED_ONE_FILE=ON)
if(NOT "${CONFIG_FLAGS}" STREQUAL "")
  list(APPEND configure_args "-DCMAKE_CXX_FLAGS_${config_upper}=${CONFIG_FLAGS}")
endif()
step("configure with ${CXX_COMPILER}" "${CMAKE_COMMAND}" ${configure_args})
# At most two jobs: the machines that run this are shared.
step("build" "${CMAKE_COMMAND}" --build "${build_dir}" --config "${CONFIG}" -j 2)
step("run" "${CTEST_COMMAND}" --test-dir "${build_dir}" -C "${CONFIG}" --output-on-failure --no-tests=error)
