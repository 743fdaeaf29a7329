#pragma once

// The regularised lower incomplete gamma function P(a, x), on the host: the CDF of a gamma
// distribution, which models use to turn an infectiousness profile over days into per-step weights.
// Series for x < a + 1, continued fraction (modified Lentz) above; both converge to double precision
// within a few hundred terms for the shapes epidemic models use (a from 0.1 to 1000).

#include <herd/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace herd {

/// P(a, x) = gamma(a, x) / Gamma(a) for a > 0, x >= 0 (0 for x <= 0).
inline double regularised_gamma_p(double a, double x) {
  require(a > 0.0 && std::isfinite(a), "incomplete gamma: shape must be positive, got " + number_text(a));
  if (!(x > 0.0)) return 0.0;
  constexpr int max_terms = 1000;
  constexpr double eps = std::numeric_limits<double>::epsilon();
  // log of x^a e^-x / Gamma(a): the common prefactor of both expansions.
  double const log_prefactor = a * std::log(x) - x - std::lgamma(a);
  if (x < a + 1.0) {
    // P = prefactor / a * sum_n x^n / ((a+1)...(a+n))
    double term = 1.0 / a, sum = term;
    for (int n = 1; n < max_terms && std::abs(term) > std::abs(sum) * eps; ++n) {
      term *= x / (a + n);
      sum += term;
    }
    return std::min(1.0, sum * std::exp(log_prefactor));
  }
  // Q = prefactor * 1 / (x + 1 - a - 1(1-a) / (x + 3 - a - 2(2-a) / (x + 5 - a - ...)))
  constexpr double tiny = 1e-300;
  double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;
  for (int n = 1; n < max_terms; ++n) {
    double const an = -n * (n - a);
    b += 2.0;
    d = an * d + b;
    if (std::abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1.0 / d;
    double const delta = d * c;
    h *= delta;
    if (std::abs(delta - 1.0) < eps) break;
  }
  return std::max(0.0, 1.0 - std::exp(log_prefactor) * h);
}

/// CDF at x of the gamma distribution with the given mean and standard deviation.
inline double gamma_cdf(double mean, double sd, double x) {
  require(mean > 0.0 && sd > 0.0, "gamma distribution: mean and standard deviation must be positive");
  double const scale = sd * sd / mean, shape = mean / scale;
  return regularised_gamma_p(shape, x / scale);
}

}  // namespace herd
