# Driver for the CMake consumer tests, run by ctest as `cmake -P`:
#   MODE=add_subdirectory  configure CONSUMER_SOURCE_DIR with -Dforkscale_SOURCE=<repo>
#   MODE=find_package      install the forkscale build tree into INSTALL_PREFIX, then
#                          configure CONSUMER_SOURCE_DIR with CMAKE_PREFIX_PATH=INSTALL_PREFIX
#   MODE=fetchcontent      configure CONSUMER_SOURCE_DIR, whose FetchContent_Declare is
#                          pointed at <repo> with FETCHCONTENT_SOURCE_DIR_FORKSCALE (no download)
# then build the consumer and run its own ctest. Any failing step fails the test.
cmake_minimum_required(VERSION 3.20)

foreach(var MODE CONSUMER_SOURCE_DIR CONSUMER_BINARY_DIR CONSUMER_GENERATOR
            CONSUMER_CXX_COMPILER CONSUMER_CONFIG FORKSCALE_SOURCE_DIR FORKSCALE_BINARY_DIR
            CTEST_COMMAND)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "cmake_consumer.cmake: -D${var}=... is required")
  endif()
endforeach()

function(run_step what)
  message(STATUS "[${MODE}] ${what}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc COMMAND_ECHO STDOUT)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "[${MODE}] ${what} failed (${rc})")
  endif()
endfunction()

# Always from scratch: a stale cache or install tree would hide a broken step.
file(REMOVE_RECURSE "${CONSUMER_BINARY_DIR}")
set(build_dir "${CONSUMER_BINARY_DIR}/build")

# -O0 without debug information: the consumers prove that the targets work (a
# header-only file and forkscale's static library compile in about half their
# -O1 time), and the ones that take forkscale's source build that library too.
string(TOUPPER "${CONSUMER_CONFIG}" consumer_config_upper)
set(configure_args
  -S "${CONSUMER_SOURCE_DIR}" -B "${build_dir}"
  -G "${CONSUMER_GENERATOR}"
  "-DCMAKE_CXX_COMPILER=${CONSUMER_CXX_COMPILER}"
  "-DCMAKE_BUILD_TYPE=${CONSUMER_CONFIG}"
  "-DCMAKE_CXX_FLAGS_${consumer_config_upper}=-O0")

if(MODE STREQUAL "add_subdirectory")
  # forkscale::compiled in one file (FORKSCALE_COMPILED_ONE_FILE): less CPU in
  # all than one file per part, which the parent build already proves.
  list(APPEND configure_args "-Dforkscale_SOURCE=${FORKSCALE_SOURCE_DIR}" -DFORKSCALE_COMPILED_ONE_FILE=ON)
elseif(MODE STREQUAL "fetchcontent")
  list(APPEND configure_args
    "-DFETCHCONTENT_SOURCE_DIR_FORKSCALE=${FORKSCALE_SOURCE_DIR}"
    -DFETCHCONTENT_FULLY_DISCONNECTED=ON)
elseif(MODE STREQUAL "find_package")
  if(NOT INSTALL_PREFIX)
    message(FATAL_ERROR "cmake_consumer.cmake: MODE=find_package needs -DINSTALL_PREFIX=...")
  endif()
  run_step("install forkscale into ${INSTALL_PREFIX}"
    "${CMAKE_COMMAND}" --install "${FORKSCALE_BINARY_DIR}"
                       --prefix "${INSTALL_PREFIX}" --config "${CONSUMER_CONFIG}")
  foreach(f include/forkscale/forkscale.hpp
            lib/cmake/forkscale/forkscaleConfig.cmake
            lib/cmake/forkscale/forkscaleConfigVersion.cmake
            lib/cmake/forkscale/forkscaleTargets.cmake)
    if(NOT EXISTS "${INSTALL_PREFIX}/${f}")
      message(FATAL_ERROR "[${MODE}] the install tree lacks ${f}")
    endif()
  endforeach()
  # Only the install tree may satisfy find_package: no package registry, no
  # fallback to the source tree.
  list(APPEND configure_args
    "-DCMAKE_PREFIX_PATH=${INSTALL_PREFIX}"
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
    -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)
else()
  message(FATAL_ERROR "cmake_consumer.cmake: unknown MODE '${MODE}'")
endif()

run_step("configure" "${CMAKE_COMMAND}" ${configure_args})
# At most two jobs: the machines that run this are shared.
run_step("build" "${CMAKE_COMMAND}" --build "${build_dir}" --config "${CONSUMER_CONFIG}" -j 2)
run_step("run" "${CTEST_COMMAND}" --test-dir "${build_dir}" -C "${CONSUMER_CONFIG}"
               --output-on-failure --no-tests=error)
