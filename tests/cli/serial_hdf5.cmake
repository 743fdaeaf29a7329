# Herd without MPI, with HDF5 (serial HDF5 where installed: Debian libhdf5-dev, spack +hdf5 ~mpi):
# builds the herd command alone in BUILD_DIR and runs the HDF5 command-line tests on it, one
# process each. Run by the cli.serial_hdf5 test:
#   cmake -DSOURCE_DIR=... -DBUILD_DIR=... -DKokkos_ROOT=... -DCXX_COMPILER=... -DGENERATOR=... -DPYTHON=... -P serial_hdf5.cmake
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${BUILD_DIR} -G ${GENERATOR}
                        -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DKokkos_ROOT=${Kokkos_ROOT}
                        -DHerd_ENABLE_MPI=OFF -DHerd_ENABLE_HDF5=ON -DHerd_ENABLE_KOKKOSKERNELS=OFF
                        -DHerd_ENABLE_TESTS=OFF -DHerd_ENABLE_BENCHMARKS=OFF -DHerd_ENABLE_EXAMPLES=OFF
                        -DHerd_WARNINGS_AS_ERRORS=ON
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "configuring Herd without MPI, with HDF5, failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target herd_cli RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "building herd without MPI, with HDF5, failed")
endif()
# The build links no MPI: files are written through HDF5's default driver.
file(STRINGS ${BUILD_DIR}/CMakeCache.txt hdf5_libraries REGEX "^HDF5_C_LIBRARY_hdf5")
message(STATUS "HDF5: ${hdf5_libraries}")
foreach(test test_cli_hdf5 test_cli_population test_cli_outputs)
  execute_process(COMMAND ${PYTHON} ${SOURCE_DIR}/tests/cli/${test}.py ${BUILD_DIR}/bin/herd RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${test} failed on herd built without MPI")
  endif()
endforeach()
