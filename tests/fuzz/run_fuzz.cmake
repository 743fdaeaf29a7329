# Builds the fuzz targets with clang and runs one for a fixed time from its kept corpus.
#   cmake -DHERD_SOURCE_DIR=... -DBUILD_DIR=... -DFUZZ_CXX=clang++ -DTARGET=edge_list -DSECONDS=20 -P run_fuzz.cmake
# (-DHERD_CONFIG_DIR=... for the HDF5 target; -DEXTRA=... for more libFuzzer flags)
# New inputs go to BUILD_DIR/corpus/TARGET, never into the source tree; a crash leaves its input
# in BUILD_DIR/crash-* and fails the test.
execute_process(COMMAND ${CMAKE_COMMAND} -S ${HERD_SOURCE_DIR}/tests/fuzz -B ${BUILD_DIR} -DCMAKE_BUILD_TYPE=Release
                        -DCMAKE_CXX_COMPILER=${FUZZ_CXX} -DHERD_SOURCE_DIR=${HERD_SOURCE_DIR}
                        -DHERD_CONFIG_DIR=${HERD_CONFIG_DIR}
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "configuring the fuzz targets failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target fuzz_${TARGET} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "building fuzz_${TARGET} failed")
endif()
file(MAKE_DIRECTORY ${BUILD_DIR}/corpus/${TARGET})
# A fixed seed: the same run each time, so a failure here reproduces. MPI and HDF5 keep memory
# until the process ends, which the leak checker would report: targets that use them pass -detect_leaks=0.
execute_process(COMMAND ${BUILD_DIR}/fuzz_${TARGET} -seed=1 -max_total_time=${SECONDS} -max_len=4096 ${EXTRA}
                        -print_final_stats=1 -artifact_prefix=${BUILD_DIR}/
                        ${BUILD_DIR}/corpus/${TARGET} ${HERD_SOURCE_DIR}/tests/fuzz/corpus/${TARGET}
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "fuzz_${TARGET} found a failing input (exit ${status}); see ${BUILD_DIR}/crash-*")
endif()
