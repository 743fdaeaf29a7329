# Run with cmake -P: installs the build tree into a scratch prefix, then configures, builds and
# runs examples/sis_model against the installed Herd, as a user's project would, and runs the
# installed herd command.
#   -DBUILD_DIR=... -DSOURCE_DIR=... -DKokkos_ROOT=... [-DKokkosKernels_ROOT=...] [-DGENERATOR=...]
#   [-DCXX_COMPILER=...]: the compiler Herd was built with, which a user's project would use too
#   (nvcc_wrapper for CUDA; a Kokkos may not work with another compiler's code)
set(prefix ${BUILD_DIR}/downstream/install)
file(REMOVE_RECURSE ${BUILD_DIR}/downstream)
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "downstream test: '${ARGN}' failed:\n${out}")
  endif()
endfunction()
step(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(header herd/herd.hpp herd/config.hpp)
  if(NOT EXISTS ${prefix}/include/${header})
    message(FATAL_ERROR "downstream test: include/${header} was not installed")
  endif()
endforeach()
# The installed command runs as it is, without LD_LIBRARY_PATH (installed RPATHs).
if(EXISTS ${prefix}/bin/herd)
  step(${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH ${prefix}/bin/herd --version)
endif()
# The package files go under the platform's library folder (GNUInstallDirs: lib or lib64).
foreach(file HerdConfig.cmake HerdConfigVersion.cmake)
  file(GLOB found ${prefix}/lib*/cmake/Herd/${file})
  if(NOT found)
    message(FATAL_ERROR "downstream test: lib*/cmake/Herd/${file} was not installed")
  endif()
endforeach()
# Components: those this Herd was built with are found; another, or an unknown one, is refused
# with a message that names it.
file(WRITE ${BUILD_DIR}/downstream/components/CMakeLists.txt [=[
cmake_minimum_required(VERSION 3.16)
project(components LANGUAGES CXX)
find_package(Herd REQUIRED)
set(built)
set(missing NoSuchPart)
foreach(component MPI HDF5 METIS)
  string(TOUPPER ${component} upper)
  if(Herd_ENABLE_${upper})
    list(APPEND built ${component})
  else()
    list(APPEND missing ${component})
  endif()
endforeach()
find_package(Herd REQUIRED COMPONENTS ${built})
foreach(component ${missing})
  unset(Herd_NOT_FOUND_MESSAGE)
  find_package(Herd QUIET COMPONENTS ${component})
  if(Herd_FOUND OR NOT Herd_NOT_FOUND_MESSAGE MATCHES "${component}")
    message(FATAL_ERROR "component ${component}: found ${Herd_FOUND}, message '${Herd_NOT_FOUND_MESSAGE}'")
  endif()
endforeach()
]=])
set(compiler)
if(CXX_COMPILER)
  set(compiler -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
endif()
step(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/sis_model -B ${BUILD_DIR}/downstream/build -G ${GENERATOR}
     -DCMAKE_PREFIX_PATH=${prefix} -DKokkos_ROOT=${Kokkos_ROOT} -DKokkosKernels_ROOT=${KokkosKernels_ROOT}
     -DCMAKE_BUILD_TYPE=Release ${compiler})
step(${CMAKE_COMMAND} -S ${BUILD_DIR}/downstream/components -B ${BUILD_DIR}/downstream/components/build
     -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${prefix} -DKokkos_ROOT=${Kokkos_ROOT}
     -DKokkosKernels_ROOT=${KokkosKernels_ROOT} ${compiler})
step(${CMAKE_COMMAND} --build ${BUILD_DIR}/downstream/build)
step(${BUILD_DIR}/downstream/build/sis)
message(STATUS "downstream test: built and ran examples/sis_model against ${prefix}")
