#pragma once

// 16-bit floating-point storage types that take 2 bytes on every backend.
//
// Kokkos' half_t is a 4-byte float on CPU-only builds, so it cannot halve memory traffic there.
// herd::half (IEEE 754 binary16) and herd::bfloat16 hold only the bits; arithmetic happens in
// float after a load, and a store rounds to nearest, ties to even. The conversions use integer
// operations only, so a value rounds the same way on every backend. On x86-64 CPUs built with F16C
// (-mf16c, or -march= any CPU since 2012) half uses the conversion instructions instead, one each
// way, which give the same bits (tested against the integer conversions).

#include <herd/core/bit_cast.hpp>
#include <herd/core/device_pass.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

// Host code only: device passes of CUDA and HIP see no F16C.
#if defined(__F16C__) && !HERD_DEVICE_PASS
#define HERD_HALF_USES_F16C 1
#include <immintrin.h>
#else
#define HERD_HALF_USES_F16C 0
#endif

namespace herd {

namespace Details {

KOKKOS_INLINE_FUNCTION std::uint16_t float_to_half_bits(float value) {
  std::uint32_t const x = bit_cast<std::uint32_t>(value);
  std::uint16_t const sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  std::uint32_t const magnitude = x & 0x7fffffffu;
  if (magnitude >= 0x7f800000u) {  // infinity or NaN; a NaN stays a (quiet) NaN
    std::uint32_t const nan_bits = magnitude > 0x7f800000u ? (0x200u | ((magnitude >> 13) & 0x3ffu)) : 0u;
    return static_cast<std::uint16_t>(sign | 0x7c00u | nan_bits);
  }
  // 65520 lies half way between the largest half (65504) and 2^16; ties go to even, i.e. infinity.
  if (magnitude >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (magnitude >= 0x38800000u) {  // normal half: rebias the exponent, round the mantissa
    std::uint32_t bits = (magnitude - 0x38000000u) >> 13;
    std::uint32_t const rest = magnitude & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (bits & 1u))) ++bits;
    return static_cast<std::uint16_t>(sign | bits);
  }
  if (magnitude < 0x33000000u) return sign;  // at most 2^-25: rounds to (signed) zero
  // Subnormal half: value = h * 2^-24 with h = mantissa * 2^(exponent - 126).
  std::uint32_t const exponent = magnitude >> 23;
  std::uint32_t const mantissa = (magnitude & 0x7fffffu) | 0x800000u;
  std::uint32_t const shift = 126u - exponent;
  std::uint32_t bits = mantissa >> shift;
  std::uint32_t const rest = mantissa & ((1u << shift) - 1u);
  std::uint32_t const halfway = 1u << (shift - 1u);
  if (rest > halfway || (rest == halfway && (bits & 1u))) ++bits;
  return static_cast<std::uint16_t>(sign | bits);
}

KOKKOS_INLINE_FUNCTION float half_bits_to_float(std::uint16_t bits) {
  std::uint32_t const sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  std::uint32_t const exponent = (bits >> 10) & 0x1fu;
  std::uint32_t const mantissa = bits & 0x3ffu;
  if (exponent == 0x1fu) {  // infinity, or a NaN made quiet (as the conversion instructions do)
    std::uint32_t const quiet = mantissa != 0 ? 0x400000u : 0u;
    return bit_cast<float>(sign | 0x7f800000u | quiet | (mantissa << 13));
  }
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24 is exact in float
    float const magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    return sign ? -magnitude : magnitude;
  }
  return bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

KOKKOS_INLINE_FUNCTION std::uint16_t float_to_bfloat16_bits(float value) {
  std::uint32_t const x = bit_cast<std::uint32_t>(value);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  std::uint32_t const rounding = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<std::uint16_t>((x + rounding) >> 16);
}

KOKKOS_INLINE_FUNCTION float bfloat16_bits_to_float(std::uint16_t bits) {
  return bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

// The conversions half uses: the instructions where the build targets F16C, else the integer ones.
KOKKOS_INLINE_FUNCTION std::uint16_t float_to_half(float value) {
#if HERD_HALF_USES_F16C
  return static_cast<std::uint16_t>(_cvtss_sh(value, _MM_FROUND_TO_NEAREST_INT));
#else
  return float_to_half_bits(value);
#endif
}

KOKKOS_INLINE_FUNCTION float half_to_float(std::uint16_t bits) {
#if HERD_HALF_USES_F16C
  return _cvtsh_ss(bits);
#else
  return half_bits_to_float(bits);
#endif
}

}  // namespace Details

/// IEEE 754 binary16 storage: 2 bytes, converted to and from float with round-to-nearest-even.
struct half {
  std::uint16_t bits;

  half() = default;
  KOKKOS_INLINE_FUNCTION explicit half(float value) : bits(Details::float_to_half(value)) {}
  KOKKOS_INLINE_FUNCTION explicit operator float() const { return Details::half_to_float(bits); }
  KOKKOS_INLINE_FUNCTION static half from_bits(std::uint16_t b) {
    half h;
    h.bits = b;
    return h;
  }
};

/// bfloat16 storage: float's exponent range with an 8-bit significand, 2 bytes.
struct bfloat16 {
  std::uint16_t bits;

  bfloat16() = default;
  KOKKOS_INLINE_FUNCTION explicit bfloat16(float value) : bits(Details::float_to_bfloat16_bits(value)) {}
  KOKKOS_INLINE_FUNCTION explicit operator float() const { return Details::bfloat16_bits_to_float(bits); }
  KOKKOS_INLINE_FUNCTION static bfloat16 from_bits(std::uint16_t b) {
    bfloat16 h;
    h.bits = b;
    return h;
  }
};

static_assert(sizeof(half) == 2 && sizeof(bfloat16) == 2, "16-bit storage must take 2 bytes");

/// How a stored value is computed with: 16-bit floats load as float; every other type as itself.
template <class Storage>
struct storage_traits {
  using compute_type = Storage;
  KOKKOS_INLINE_FUNCTION static compute_type load(Storage v) { return v; }
  KOKKOS_INLINE_FUNCTION static Storage store(compute_type v) { return v; }
};

template <>
struct storage_traits<half> {
  using compute_type = float;
  KOKKOS_INLINE_FUNCTION static float load(half v) { return static_cast<float>(v); }
  KOKKOS_INLINE_FUNCTION static half store(float v) { return half(v); }
};

template <>
struct storage_traits<bfloat16> {
  using compute_type = float;
  KOKKOS_INLINE_FUNCTION static float load(bfloat16 v) { return static_cast<float>(v); }
  KOKKOS_INLINE_FUNCTION static bfloat16 store(float v) { return bfloat16(v); }
};

}  // namespace herd
