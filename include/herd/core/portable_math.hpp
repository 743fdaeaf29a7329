#pragma once

// exp and log that give the same bits on every backend.
//
// libm, CUDA's and HIP's device libraries may round transcendental functions differently in the
// last place; one different bit decides a different random event and the trajectories part. These
// versions use only +, -, *, / (correctly rounded everywhere, with contraction into FMA disabled by
// Herd's build flags) and exact bit manipulation. Accuracy is a few ulp, ample for probabilities.

#include <herd/core/bit_cast.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace herd::portable {

/// e^-x for x >= 0.
KOKKOS_INLINE_FUNCTION double exp_neg(double x) {
  if (!(x < 700.0)) return 0.0;  // also catches NaN
  // ln 2 split in two (Cody and Waite): k * ln2_high is exact for k < 2^11, so r keeps full accuracy.
  constexpr double ln2_high = 6.93147180369123816490e-01;
  constexpr double ln2_low = 1.90821492927058770002e-10;
  constexpr double inv_ln2 = 1.44269504088896340735992468100;
  // x = k ln2 + r with |r| <= ln2/2, so e^-x = 2^-k e^-r.
  // x >= 0 here, so truncating x/ln2 + 0.5 rounds to nearest with plain operations every backend has.
  auto const k = static_cast<std::int64_t>(x * inv_ln2 + 0.5);  // NOLINT(bugprone-incorrect-roundings)
  double const r = (x - static_cast<double>(k) * ln2_high) - static_cast<double>(k) * ln2_low;
  // Taylor series of e^-r to r^16: error below 1e-17 for |r| <= 0.35.
  double term = 1.0, sum = 1.0;
  for (int i = 1; i <= 16; ++i) {
    term = term * (-r) / static_cast<double>(i);
    sum = sum + term;
  }
  // Scale by 2^-k in two exact steps to stay clear of subnormal exponents.
  std::int64_t const k1 = k / 2, k2 = k - k1;
  double const s1 = Details::bit_cast<double>(static_cast<std::uint64_t>(1023 - k1) << 52);
  double const s2 = Details::bit_cast<double>(static_cast<std::uint64_t>(1023 - k2) << 52);
  return sum * s1 * s2;
}

/// Natural logarithm for x > 0 (returns -inf for 0 and NaN for negative input).
KOKKOS_INLINE_FUNCTION double log(double x) {
  if (!(x > 0.0)) {
    return Details::bit_cast<double>(x == 0.0 ? 0xfff0000000000000ull : 0x7ff8000000000000ull);
  }
  auto bits = Details::bit_cast<std::uint64_t>(x);
  std::int64_t exponent = static_cast<std::int64_t>(bits >> 52) - 1023;
  if (exponent == -1023) {        // subnormal: normalise first
    x = x * 18014398509481984.0;  // 2^54
    bits = Details::bit_cast<std::uint64_t>(x);
    exponent = static_cast<std::int64_t>(bits >> 52) - 1023 - 54;
  }
  // Mantissa m in [sqrt(1/2), sqrt(2)), x = m 2^e.
  double m = Details::bit_cast<double>((bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
  if (m > 1.41421356237309504880) {
    m = m * 0.5;
    exponent = exponent + 1;
  }
  // log m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172: the series to s^25 is exact to 1e-19.
  double const s = (m - 1.0) / (m + 1.0);
  double const s2 = s * s;
  double power = s, sum = 0.0;
  for (int i = 1; i <= 25; i += 2) {
    sum = sum + power / static_cast<double>(i);
    power = power * s2;
  }
  constexpr double ln2 = 0.693147180559945309417232121458;
  return 2.0 * sum + static_cast<double>(exponent) * ln2;
}

/// -ln(1 - p), the hazard of an event of probability p, for p < 1 (+inf at 1, NaN above).
/// Small p, the common case of a contact's infection probability, takes a short series with
/// multiplications only: `log` divides a dozen times, where a third of the SEIR step's profile on a
/// weighted graph sat. Larger p goes through `log`.
KOKKOS_INLINE_FUNCTION double neg_log1m(double p) {
  if (!(p >= 0.0 && p <= 0.125)) return -log(1.0 - p);
  // -ln(1 - p) = 2 atanh(s), s = p / (2 - p) <= 1/15: the series to s^13 leaves a relative error
  // below s^14 / 15 < 3e-18. The coefficients are constants folded at compile time.
  double const s = p / (2.0 - p);
  double const s2 = s * s;
  double sum = 1.0 / 13.0;
  sum = sum * s2 + 1.0 / 11.0;
  sum = sum * s2 + 1.0 / 9.0;
  sum = sum * s2 + 1.0 / 7.0;
  sum = sum * s2 + 1.0 / 5.0;
  sum = sum * s2 + 1.0 / 3.0;
  sum = sum * s2 + 1.0;
  return 2.0 * s * sum;
}

}  // namespace herd::portable
