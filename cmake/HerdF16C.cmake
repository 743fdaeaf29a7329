# Whether herd::half converts with the x86-64 F16C instructions (-mf16c) or with integer operations.
#
# Both give the same bits, but on a CPU one instruction each way against a dozen integer operations
# decides whether half storage is faster than float at all (docs/benchmarks.md, "Half
# conversions"). Baseline x86-64, which compilers target unless told otherwise, has no F16C; every
# x86-64 CPU since 2012 does. AUTO adds -mf16c when the build is for the CPU it runs on: an x86-64
# host-only Kokkos (GPU builds pass host flags through nvcc or hipcc, and choose their CPU with
# Kokkos_ARCH_* anyway), not cross-compiling, and a building CPU with F16C and AVX (-mf16c implies
# AVX). A build that already targets F16C (-march=native, Kokkos_ARCH_HSW and later) uses it
# whatever this option says.
#
# The flag is PUBLIC: whether half converts through F16C is decided in the headers, which models
# and users' kernels include, and every translation unit must decide alike.
function(herd_decide_f16c result)
  string(TOUPPER "${Herd_ENABLE_F16C}" choice)
  if(NOT choice MATCHES "^(AUTO|ON|OFF)$")
    message(FATAL_ERROR "Herd: Herd_ENABLE_F16C is '${Herd_ENABLE_F16C}'; it must be AUTO, ON or OFF")
  endif()
  set(${result} OFF PARENT_SCOPE)
  if(choice STREQUAL "OFF")
    return()
  endif()

  include(CheckCXXCompilerFlag)
  check_cxx_compiler_flag(-mf16c HERD_COMPILER_ACCEPTS_MF16C)
  if(choice STREQUAL "ON")
    if(NOT HERD_COMPILER_ACCEPTS_MF16C)
      message(FATAL_ERROR "Herd: Herd_ENABLE_F16C is ON but ${CMAKE_CXX_COMPILER} rejects -mf16c")
    endif()
    set(${result} ON PARENT_SCOPE)
    return()
  endif()

  if(NOT HERD_COMPILER_ACCEPTS_MF16C OR CMAKE_CROSSCOMPILING OR NOT CMAKE_SYSTEM_PROCESSOR MATCHES
                                                                   "^(x86_64|AMD64|amd64)$")
    return()
  endif()
  foreach(device CUDA HIP SYCL OPENMPTARGET)
    if(device IN_LIST Kokkos_DEVICES)
      return()
    endif()
  endforeach()
  if(NOT DEFINED HERD_BUILDING_CPU_HAS_F16C)
    set(probe ${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/herd_probe_f16c.cpp)
    file(WRITE ${probe} "#include <herd/core/cpu_features.hpp>\n"
                        "int main() { return herd::Details::cpu_has_f16c() ? 0 : 1; }\n")
    try_run(exit_code compiled ${CMAKE_CURRENT_BINARY_DIR} ${probe}
            CMAKE_FLAGS "-DINCLUDE_DIRECTORIES=${PROJECT_SOURCE_DIR}/include")
    if(compiled AND exit_code EQUAL 0)
      set(HERD_BUILDING_CPU_HAS_F16C ON CACHE INTERNAL "The CPU configuring Herd has F16C and AVX")
    else()
      set(HERD_BUILDING_CPU_HAS_F16C OFF CACHE INTERNAL "The CPU configuring Herd has F16C and AVX")
    endif()
  endif()
  set(${result} ${HERD_BUILDING_CPU_HAS_F16C} PARENT_SCOPE)
endfunction()

herd_decide_f16c(HERD_HALF_F16C)
if(HERD_HALF_F16C)
  message(STATUS "Herd: half conversions use F16C (-mf16c; Herd_ENABLE_F16C=${Herd_ENABLE_F16C})")
else()
  message(STATUS "Herd: half conversions use integer operations unless the compiler flags target F16C "
                 "(Herd_ENABLE_F16C=${Herd_ENABLE_F16C})")
endif()
