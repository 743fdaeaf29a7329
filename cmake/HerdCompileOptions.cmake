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

# -mf16c where HerdF16C.cmake decided for it; PUBLIC for the same reason as above.
function(herd_half_conversions target)
  if(HERD_HALF_F16C)
    target_compile_options(${target} PUBLIC $<$<COMPILE_LANGUAGE:CXX>:-mf16c>)
  endif()
endfunction()

# Warnings are errors-in-waiting in Herd's own code; they stay off for users' code.
function(herd_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra $<$<BOOL:${Herd_WARNINGS_AS_ERRORS}>:-Werror>)
  endif()
endfunction()

# AddressSanitizer + UndefinedBehaviorSanitizer for Herd and everything linked with it (tests,
# examples, the herd command). Any report aborts the program, so a test that triggers one fails.
function(herd_sanitize target)
  if(NOT Herd_SANITIZE)
    return()
  endif()
  set(flags -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_compile_options(${target} PUBLIC $<$<COMPILE_LANGUAGE:CXX>:${flags}>)
  target_link_options(${target} PUBLIC ${flags})
endfunction()
