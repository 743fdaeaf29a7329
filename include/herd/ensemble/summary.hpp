#pragma once

// What an ensemble's members have in common: the seeds they run with, and the statistics that
// summarise an observable over them.

#include <herd/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace herd {

/// The seed of replicate `replicate` of an ensemble given `seed`: seed + replicate, so that
/// replicate r is the single run with that seed (and replicate 0 the run with `seed` itself).
/// Every point of a sweep uses the same seeds: the points differ by their parameters only.
constexpr std::uint64_t replicate_seed(std::uint64_t seed, std::uint64_t replicate) { return seed + replicate; }

namespace Details {
// The p-quantile of values already in ascending order. Interpolated from the nearer order
// statistic, as numpy does: exact at either end, and numpy's value to the last bit.
inline double sorted_quantile(std::vector<double> const& values, double p) {
  double const at = p * static_cast<double>(values.size() - 1);
  auto const below = static_cast<std::size_t>(std::floor(at));
  auto const above = std::min(below + 1, values.size() - 1);
  double const t = at - static_cast<double>(below), step = values[above] - values[below];
  return t >= 0.5 ? values[above] - (1.0 - t) * step : values[below] + t * step;
}
}  // namespace Details

/// The `p`-quantile (0 <= p <= 1) of `values`, linear between order statistics: the sample
/// quantile numpy and R compute by default (Hyndman and Fan's type 7).
inline double quantile(std::vector<double> values, double p) {
  require(!values.empty(), "the quantile of no values");
  require(p >= 0.0 && p <= 1.0, "a quantile's probability lies in [0, 1]");
  std::sort(values.begin(), values.end());
  return Details::sorted_quantile(values, p);
}

/// An observable over the members: its mean and its 5, 25, 50, 75 and 95 % quantiles.
struct Spread {
  static constexpr double levels[] = {0.05, 0.25, 0.50, 0.75, 0.95};  ///< the quantiles' probabilities
  double mean = 0.0;
  double quantiles[5] = {};  ///< at `levels`
};

/// The Spread of `values` (not empty).
inline Spread spread(std::vector<double> values) {
  require(!values.empty(), "the spread of no values");
  Spread s;
  double sum = 0.0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(values.size());
  std::sort(values.begin(), values.end());
  for (std::size_t k = 0; k < 5; ++k) s.quantiles[k] = Details::sorted_quantile(values, Spread::levels[k]);
  return s;
}

}  // namespace herd
