# Compile options Herd applies to its own targets.

# Bitwise-identical trajectories across backends need every floating-point operation rounded the
# same way: no contraction of a*b+c into one fused multiply-add, which GCC does by default on
# targets with FMA and nvcc does on GPUs. The option is PUBLIC because models are compiled in the
# user's translation units.
function(herd_strict_floating_point target)
  if(NOT Herd_STRICT_FLOATING_POINT)
    return()
  endif()
  if(Kokkos_ENABLE_CUDA OR "CUDA" IN_LIST Kokkos_DEVICES)
    target_compile_options(${target} PUBLIC
      $<$<COMPILE_LANGUAGE:CXX>:$<IF:$<CXX_COMPILER_ID:Clang>,-ffp-contract=off,--fmad=false>>)
  else()
    target_compile_options(${target} PUBLIC $<$<COMPILE_LANGUAGE:CXX>:-ffp-contract=off>)
  endif()
endfunction()

# Warnings are errors-in-waiting in Herd's own code; they stay off for users' code.
function(herd_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra)
  endif()
endfunction()
