#include "test_common.hpp"

#include <cmath>
#include <vector>

namespace {

// Known-answer vectors of Philox-4x32-10 from the Random123 distribution (kat_vectors).
TEST(Philox, MatchesReferenceVectors) {
  using herd::Details::philox4x32_10;
  auto out = philox4x32_10({{0, 0, 0, 0}}, 0, 0);
  EXPECT_EQ(out.v[0], 0x6627e8d5u);
  EXPECT_EQ(out.v[1], 0xe169c58du);
  EXPECT_EQ(out.v[2], 0xbc57ac4cu);
  EXPECT_EQ(out.v[3], 0x9b00dbd8u);
  out = philox4x32_10({{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}}, 0xffffffffu, 0xffffffffu);
  EXPECT_EQ(out.v[0], 0x408f276du);
  EXPECT_EQ(out.v[1], 0x41c83b0eu);
  EXPECT_EQ(out.v[2], 0xa20bc7c6u);
  EXPECT_EQ(out.v[3], 0x6d5451fdu);
  out = philox4x32_10({{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}}, 0xa4093822u, 0x299f31d0u);
  EXPECT_EQ(out.v[0], 0xd16cfe09u);
  EXPECT_EQ(out.v[1], 0x94fdccebu);
  EXPECT_EQ(out.v[2], 0x5001e420u);
  EXPECT_EQ(out.v[3], 0x24126ea1u);
}

TEST(CounterRng, DrawsAreUniform) {
  herd::CounterRng const rng{42};
  int const n = 200000, bins = 16;
  std::vector<int> count(bins, 0);
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    auto const r = rng.bits(i, 3, 17, i % 7);
    ++count[r >> 28];
    sum += r / 4294967296.0;
  }
  // Chi-square with 15 degrees of freedom: 99.9 % quantile is 37.7.
  double chi2 = 0;
  for (int c : count) chi2 += (c - n / double(bins)) * (c - n / double(bins)) / (n / double(bins));
  EXPECT_LT(chi2, 37.7);
  EXPECT_NEAR(sum / n, 0.5, 5 * std::sqrt(1.0 / 12 / n));
}

TEST(CounterRng, DistinctCountersGiveDistinctStreams) {
  herd::CounterRng const a{1}, b{2};
  EXPECT_NE(a.bits(5, 0, 16, 0), b.bits(5, 0, 16, 0));
  EXPECT_NE(a.bits(5, 0, 16, 0), a.bits(6, 0, 16, 0));
  EXPECT_NE(a.bits(5, 0, 16, 0), a.bits(5, 1, 16, 0));
  EXPECT_NE(a.bits(5, 0, 16, 0), a.bits(5, 0, 17, 0));
  EXPECT_NE(a.bits(5, 0, 16, 0), a.bits(5, 0, 16, 1));
  EXPECT_NE(a.bits(5, 0, 16, 0), a.bits(5, 0, 16, 4));
}

TEST(CounterRng, ThresholdsAndUniformBelow) {
  EXPECT_FALSE(herd::happens(0, herd::to_threshold(0.0)));
  EXPECT_TRUE(herd::happens(0xffffffffu, herd::to_threshold(1.0)));
  EXPECT_EQ(herd::uniform_below(0xffffffffu, 10), 9u);
  EXPECT_EQ(herd::uniform_below(0, 10), 0u);
  EXPECT_EQ(herd::uniform_below64(~0ull, 1000000007ull), 1000000006ull);
  EXPECT_EQ(herd::uniform_below64(1ull << 63, 1000ull), 500ull);
}

// The bounds that spare the exponential must never change a decision: compare with the exact test
// on the draws next to the true threshold and next to each bound, and on random draws, for hazards
// from tiny to past the point where the bounds stop deciding anything.
TEST(CounterRng, HazardDecisionsMatchTheExactTest) {
  auto exact = [](std::uint32_t draw, double x) {
    return static_cast<double>(draw) < (1.0 - herd::portable::exp_neg(x)) * 4294967296.0;
  };
  std::vector<double> hazards = {
      0.0,   1e-12, 2.3283064365386963e-10, 1e-9, 1e-6, 1e-3, 0.03, 0.1, 0.5, 0.99, 1.0, 1.5, 2.0, 2.5, 10.0,
      699.0, 800.0};
  herd::CounterRng rng{2024};
  for (std::uint32_t k = 0; k < 2000; ++k) {  // hazards spread over 2^-32 .. 4 on a log scale
    hazards.push_back(std::ldexp(1.0 + rng.bits(k, 0, 0, 0) * 0x1p-32, -32 + static_cast<int>(k % 34)));
  }
  int checked = 0;
  for (std::size_t h = 0; h < hazards.size(); ++h) {
    double const x = hazards[h];
    double const scaled = x * 4294967296.0;
    double const threshold = (1.0 - herd::portable::exp_neg(x)) * 4294967296.0;
    for (double centre : {threshold, scaled, scaled - scaled * x * 0.5}) {
      for (double offset = -3.0; offset <= 3.0; offset += 1.0) {
        double const d = std::floor(centre) + offset;
        if (d < 0.0 || d > 4294967295.0) continue;
        auto const draw = static_cast<std::uint32_t>(d);
        ASSERT_EQ(herd::happens_at_hazard(draw, x), exact(draw, x)) << "draw " << draw << ", hazard " << x;
        ++checked;
      }
    }
    for (std::uint32_t k = 0; k < 64; ++k) {
      std::uint32_t const draw = rng.bits(static_cast<herd::global_id>(h), 1, 0, k);
      ASSERT_EQ(herd::happens_at_hazard(draw, x), exact(draw, x)) << "draw " << draw << ", hazard " << x;
      ++checked;
    }
  }
  EXPECT_GT(checked, 100000);
}

TEST(PortableMath, ExpAndLogAreAccurate) {
  for (double x : {0.0, 1e-12, 1e-5, 0.1, 0.5, 0.693, 1.0, 2.5, 10.0, 50.0, 300.0, 699.0}) {
    double const e = herd::portable::exp_neg(x);
    EXPECT_NEAR(e, std::exp(-x), 4e-16 * std::exp(-x)) << x;
  }
  EXPECT_EQ(herd::portable::exp_neg(800.0), 0.0);
  for (double x : {1e-300, 1e-10, 0.001, 0.5, 0.70710678, 0.9999999, 1.0, 1.0000001, 1.5, 2.0, 1e10, 1e300}) {
    EXPECT_NEAR(herd::portable::log(x), std::log(x), 4e-16 * std::max(1.0, std::fabs(std::log(x)))) << x;
  }
  EXPECT_EQ(herd::portable::log(1.0), 0.0);
  EXPECT_TRUE(std::isinf(herd::portable::log(0.0)));
  EXPECT_TRUE(std::isnan(herd::portable::log(-1.0)));
  EXPECT_NEAR(herd::portable::log(4.9e-324), std::log(4.9e-324), 1e-12);
}

// The short series for small probabilities against a long-double reference: within 2 ulp over the
// whole range it serves (a coefficient or a term short fails near its upper end), and the
// logarithm's result above it.
TEST(PortableMath, HazardOfAProbabilityIsAccurate) {
  herd::CounterRng const rng{11};
  int checked = 0;
  for (std::uint32_t k = 0; k < 200000; ++k) {
    double const u = static_cast<double>(rng.bits(k, 0, 0, 0)) * (1.0 / 4294967296.0);
    double const p = k % 3 == 0   ? 0.125 * u                                              // the series' range
                     : k % 3 == 1 ? 0.125 * (1.0 - 1e-3 * u)                               // its upper end
                                  : std::ldexp(1.0 + u, -static_cast<int>(k % 1000) - 4);  // down to 1e-300
    long double const exact = -std::log1p(-static_cast<long double>(p));
    double const h = herd::portable::neg_log1m(p);
    ASSERT_LE(std::fabs(static_cast<long double>(h) - exact), 4.5e-16L * exact) << "p = " << p;
    ++checked;
  }
  EXPECT_EQ(checked, 200000);
  for (double p : {0.125000001, 0.2, 0.5, 0.9, 0.999999}) {
    EXPECT_EQ(herd::portable::neg_log1m(p), -herd::portable::log(1.0 - p)) << p;
  }
  EXPECT_EQ(herd::portable::neg_log1m(0.0), 0.0);
  EXPECT_TRUE(std::isinf(herd::portable::neg_log1m(1.0)));
  EXPECT_TRUE(std::isnan(herd::portable::neg_log1m(1.5)));
  EXPECT_TRUE(std::isnan(herd::portable::neg_log1m(std::nan(""))));
}

}  // namespace
