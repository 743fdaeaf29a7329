# Run with cmake -P: configures Herd with exactly the CMake arguments the spack recipe produces for
# SPEC (and this machine's Kokkos), then builds it and runs the herd command when BUILD is set, and
# on that herd the command tests named in TESTS (comma-separated, tests/cli/NAME.py, run by
# TEST_PYTHON). WERROR=ON adds Herd_WARNINGS_AS_ERRORS to the recipe's arguments.
#   -DPYTHON=... -DSOURCE_DIR=... -DWORK_DIR=... -DSPEC="+openmp" -DKokkos_ROOT=... [-DKokkosKernels_ROOT=...]
#   [-DGENERATOR=...] [-DBUILD=ON [-DWERROR=ON] [-DTESTS=a,b -DTEST_PYTHON=...]]
set(ENV{Kokkos_ROOT} ${Kokkos_ROOT})
set(ENV{KokkosKernels_ROOT} ${KokkosKernels_ROOT})
execute_process(COMMAND ${PYTHON} ${SOURCE_DIR}/tests/spack/test_spack_package.py --print-args ${SPEC}
                RESULT_VARIABLE status OUTPUT_VARIABLE args ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "spack recipe: no CMake arguments for 'herd ${SPEC}': ${err}")
endif()
string(STRIP "${args}" args)
string(REPLACE "\n" ";" args "${args}")
message(STATUS "spack recipe, herd ${SPEC}: ${args}")
if(WERROR)
  list(APPEND args -DHerd_WARNINGS_AS_ERRORS=ON)
endif()

file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR} -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release ${args}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "spack recipe: configuring with the recipe's arguments failed:\n${out}")
endif()
if(BUILD)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "spack recipe: building with the recipe's arguments failed:\n${out}")
  endif()
  execute_process(COMMAND ${WORK_DIR}/bin/herd --version RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "spack recipe: the built herd command failed:\n${out}")
  endif()
  message(STATUS "spack recipe: built and ran ${out}")
  string(REPLACE "," ";" tests "${TESTS}")
  foreach(test ${tests})
    execute_process(COMMAND ${TEST_PYTHON} ${SOURCE_DIR}/tests/cli/${test}.py ${WORK_DIR}/bin/herd RESULT_VARIABLE status)
    if(NOT status EQUAL 0)
      message(FATAL_ERROR "spack recipe: ${test} failed on herd ${SPEC}")
    endif()
  endforeach()
endif()
file(REMOVE_RECURSE ${WORK_DIR})
