#pragma once

// Counter-based random numbers (Philox-4x32-10, Salmon et al., SC'11).
//
// A draw is a pure function of (seed, step, global agent id, phase, draw index): there is no
// generator state to store, split or communicate, so a trajectory does not depend on which thread,
// backend or MPI rank updates an agent. Only 32-bit integer multiplies and xors are used.

#include <herd/core/error.hpp>
#include <herd/core/portable_math.hpp>
#include <herd/core/types.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>

namespace herd {

namespace Details {

struct Philox4x32 {
  std::uint32_t v[4];
};

KOKKOS_INLINE_FUNCTION void mulhilo32(std::uint32_t a, std::uint32_t b, std::uint32_t& hi, std::uint32_t& lo) {
  std::uint64_t const product = static_cast<std::uint64_t>(a) * b;
  hi = static_cast<std::uint32_t>(product >> 32);
  lo = static_cast<std::uint32_t>(product);
}

KOKKOS_INLINE_FUNCTION Philox4x32 philox4x32_10(Philox4x32 counter, std::uint32_t key0, std::uint32_t key1) {
  for (int round = 0; round < 10; ++round) {
    std::uint32_t hi0, lo0, hi1, lo1;
    mulhilo32(0xD2511F53u, counter.v[0], hi0, lo0);
    mulhilo32(0xCD9E8D57u, counter.v[2], hi1, lo1);
    counter = Philox4x32{{hi1 ^ counter.v[1] ^ key0, lo1, hi0 ^ counter.v[3] ^ key1, lo0}};
    key0 += 0x9E3779B9u;
    key1 += 0xBB67AE85u;
  }
  return counter;
}

}  // namespace Details

/// The random stream of one simulation: a seed, and draws addressed by counters.
struct CounterRng {
  /// The counter's last word packs the stream in 12 bits and the draw in 22 (four draws per
  /// block): beyond these, two draws would share their bits.
  static constexpr std::uint32_t max_streams = 1u << 12;
  static constexpr std::uint32_t max_draws = 1u << 22;

  std::uint64_t seed = 0;

  /// 32 random bits for (agent, step, stream, draw). `stream` separates phases and purposes.
  KOKKOS_INLINE_FUNCTION std::uint32_t bits(global_id agent, std::uint32_t step, std::uint32_t stream,
                                            std::uint32_t draw) const {
    // Checked in every build, not only where Kokkos asserts: past these, draws would silently
    // repeat another stream's. A predicted branch beside ten Philox rounds.
    if (stream >= max_streams || draw >= max_draws)
      Kokkos::abort(
          "herd::CounterRng: a draw index of 2^22 (max_draws) or more, or a stream of 2^12 (max_streams) "
          "or more: the counter cannot tell it from another draw");
    auto const id = static_cast<std::uint64_t>(agent);
    Details::Philox4x32 const counter{
        {static_cast<std::uint32_t>(id), static_cast<std::uint32_t>(id >> 32), step, (stream << 20) | (draw >> 2)}};
    auto const out =
        Details::philox4x32_10(counter, static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
    return out.v[draw & 3u];
  }

  /// 64 random bits, from two consecutive 32-bit draws.
  KOKKOS_INLINE_FUNCTION std::uint64_t bits64(global_id agent, std::uint32_t step, std::uint32_t stream,
                                              std::uint32_t draw) const {
    return (static_cast<std::uint64_t>(bits(agent, step, stream, 2 * draw)) << 32) |
           bits(agent, step, stream, 2 * draw + 1);
  }
};

/// A probability as a 33-bit threshold: an event with probability p happens when a 32-bit draw r
/// satisfies r < threshold. Thresholds are computed once on the host, so every backend compares the
/// same integers.
using probability_threshold = std::uint64_t;

/// The threshold of probability `p`: at or below 0, never; at or above 1, always (a product of
/// rates may round past 1). Throws herd::Error for NaN, which no comparison could keep.
inline probability_threshold to_threshold(double p) {
  require(!std::isnan(p), "to_threshold: the probability is NaN");
  if (!(p > 0.0)) return 0;
  if (p >= 1.0) return std::uint64_t{1} << 32;
  return static_cast<std::uint64_t>(p * 4294967296.0);
}

KOKKOS_INLINE_FUNCTION bool happens(std::uint32_t draw, probability_threshold threshold) {
  return static_cast<std::uint64_t>(draw) < threshold;
}

/// Whether an event of hazard x >= 0 (probability 1 - e^-x) happens for a 32-bit draw: exactly
/// `draw < (1 - portable::exp_neg(x)) 2^32`, the same bits on every backend.
///
/// The exponential (16 dependent divisions) dominated a step where many agents draw. With X = x 2^32,
/// the probability times 2^32 lies between X - X x / 2 and X (alternating Taylor series), and
/// exp_neg's error moves it by under 10^-5 of a unit; so a draw at least one unit above X never
/// happens, one at least one unit below the lower bound always does, and only the draws in between
/// (a fraction x^2 / 2 of them) need the exponential. The answer is the exact test's, bit for bit.
KOKKOS_INLINE_FUNCTION bool happens_at_hazard(std::uint32_t draw, double x) {
  double const d = static_cast<double>(draw);
  double const scaled = x * 4294967296.0;
  if (d >= scaled + 1.0) return false;
  if (d + 1.0 < scaled - scaled * x * 0.5) return true;
  return d < (1.0 - portable::exp_neg(x)) * 4294967296.0;
}

/// Uniform integer in [0, n) from 32 random bits (multiply-shift; bias below n / 2^32).
KOKKOS_INLINE_FUNCTION std::uint32_t uniform_below(std::uint32_t draw, std::uint32_t n) {
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(draw) * n) >> 32);
}

/// Uniform integer in [0, n) from 64 random bits (bias below n / 2^64).
KOKKOS_INLINE_FUNCTION std::uint64_t uniform_below64(std::uint64_t draw, std::uint64_t n) {
  // 128-bit product high word from 32-bit halves: portable to every backend.
  std::uint64_t const a_lo = draw & 0xffffffffu, a_hi = draw >> 32;
  std::uint64_t const b_lo = n & 0xffffffffu, b_hi = n >> 32;
  std::uint64_t const lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo, lo_hi = a_lo * b_hi, hi_hi = a_hi * b_hi;
  std::uint64_t const cross = (lo_lo >> 32) + (hi_lo & 0xffffffffu) + lo_hi;
  return hi_hi + (hi_lo >> 32) + (cross >> 32);
}

/// Random streams reserved by Herd itself; models number theirs from `first_model_stream`.
namespace streams {
inline constexpr std::uint32_t initial_state = 1;
inline constexpr std::uint32_t graph = 2;
inline constexpr std::uint32_t scenario = 3;  ///< a scenario's events (herd/scenario)
inline constexpr std::uint32_t first_model_stream = 16;
}  // namespace streams

}  // namespace herd
