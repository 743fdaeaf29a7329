#include "test_common.hpp"

#include <herd/config.hpp>
#include <herd/core/cpu_features.hpp>

#include <cmath>
#include <cstring>
#include <limits>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__) && !defined(__HIPCC__)
#include <immintrin.h>
#endif

namespace {

using herd::bfloat16;
using herd::half;

float bits_to_float(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

TEST(Half, TakesTwoBytesInAView) {
  Kokkos::View<half*> v("v", 1000);
  EXPECT_EQ(sizeof(half), 2u);
  EXPECT_EQ(v.span() * sizeof(half), 2000u);
  EXPECT_EQ(sizeof(bfloat16), 2u);
}

TEST(Half, ExactValuesRoundTrip) {
  for (float x : {0.0f, 1.0f, -2.5f, 65504.0f, 6.103515625e-05f /*smallest normal*/, 5.9604644775390625e-08f})
    EXPECT_EQ(static_cast<float>(half(x)), x) << x;
  EXPECT_EQ(half(1.0f).bits, 0x3c00);
  EXPECT_EQ(half(-2.0f).bits, 0xc000);
  EXPECT_EQ(half(65504.0f).bits, 0x7bff);
}

TEST(Half, RoundsToNearestEven) {
  // 1 + 2^-11 is half way between 1 and 1 + 2^-10: ties go to the even significand, 1.
  EXPECT_EQ(half(1.0f + std::ldexp(1.0f, -11)).bits, 0x3c00);
  // 1 + 3 * 2^-11 is half way between 1 + 2^-10 (odd) and 1 + 2^-9 (even).
  EXPECT_EQ(half(1.0f + 3 * std::ldexp(1.0f, -11)).bits, 0x3c02);
  // Just above the tie rounds up.
  EXPECT_EQ(half(std::nextafter(1.0f + std::ldexp(1.0f, -11), 2.0f)).bits, 0x3c01);
  // Overflow: 65519 rounds down to 65504, 65520 (the tie) up to infinity.
  EXPECT_EQ(half(65519.0f).bits, 0x7bff);
  EXPECT_EQ(half(65520.0f).bits, 0x7c00);
  // Subnormals: 2^-25 ties to 0, 3 * 2^-25 to 2 * 2^-24.
  EXPECT_EQ(half(std::ldexp(1.0f, -25)).bits, 0x0000);
  EXPECT_EQ(half(3 * std::ldexp(1.0f, -25)).bits, 0x0002);
  EXPECT_EQ(half(std::ldexp(1.0f, -24)).bits, 0x0001);
  EXPECT_EQ(half(-std::ldexp(1.0f, -26)).bits, 0x8000);
}

TEST(Half, SpecialValues) {
  EXPECT_EQ(half(std::numeric_limits<float>::infinity()).bits, 0x7c00);
  EXPECT_EQ(half(-std::numeric_limits<float>::infinity()).bits, 0xfc00);
  EXPECT_TRUE(std::isnan(static_cast<float>(half(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_TRUE(std::isinf(static_cast<float>(half::from_bits(0x7c00))));
}

// Every one of the 65536 half values converts to float and back unchanged, and every float in
// between two halves rounds to the nearer one (checked at the midpoints' neighbours).
TEST(Half, AllValuesRoundTripAndMidpointsRound) {
  for (std::uint32_t b = 0; b < 0x7c00; ++b) {
    half const h = half::from_bits(static_cast<std::uint16_t>(b));
    float const x = static_cast<float>(h);
    ASSERT_EQ(half(x).bits, b);
    ASSERT_EQ(half(-x).bits, b | 0x8000);
    if (b + 1 < 0x7c00) {
      float const next = static_cast<float>(half::from_bits(static_cast<std::uint16_t>(b + 1)));
      float const mid = x + (next - x) / 2;  // exact: halves have 11 significant bits
      ASSERT_EQ(half(std::nextafter(mid, 0.0f)).bits, b);
      ASSERT_EQ(half(std::nextafter(mid, 1e9f)).bits, b + 1);
      ASSERT_EQ(half(mid).bits, (b & 1) ? b + 1 : b);
    }
  }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__) && !defined(__HIPCC__)
// The conversion instructions, whatever this build targets: the test asks the CPU first.
__attribute__((target("f16c"))) std::uint16_t f16c_from_float(float x) {
  return static_cast<std::uint16_t>(_cvtss_sh(x, _MM_FROUND_TO_NEAREST_INT));
}
__attribute__((target("f16c"))) float f16c_to_float(std::uint16_t bits) { return _cvtsh_ss(bits); }

std::uint32_t float_bits(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}

// A build for F16C converts with the instructions; every other build with integer operations. The
// two must give the same bits, or trajectories would depend on the build.
TEST(Half, IntegerConversionsMatchTheF16CInstructions) {
  if (!herd::Details::cpu_has_f16c()) GTEST_SKIP() << "this CPU has no F16C (or no AVX)";
  // Every half, NaNs included (both make them quiet).
  for (std::uint32_t b = 0; b <= 0xffff; ++b) {
    auto const h = static_cast<std::uint16_t>(b);
    ASSERT_EQ(float_bits(herd::Details::half_bits_to_float(h)), float_bits(f16c_to_float(h))) << std::hex << b;
  }
  // Every sign, exponent and high 14 significand bits of a float, with low 9 bits of 0, 1, 0x100
  // and 0x1ff: exact ties and their neighbours at every rounding position (bit 13 for normal
  // halves, up to bit 23 for subnormal ones), and all the non-finite values' classes.
  for (std::uint32_t high = 0; high < (1u << 23); ++high)
    for (std::uint32_t low : {0u, 1u, 0x100u, 0x1ffu}) {
      float const x = bits_to_float(high << 9 | low);
      ASSERT_EQ(herd::Details::float_to_half_bits(x), f16c_from_float(x)) << std::hex << (high << 9 | low);
    }
}
#endif

// Herd_ENABLE_F16C adds -mf16c to Herd's public flags; a translation unit of a user of Herd (this
// one) must see it, or the headers would convert half one way here and another in libherd.
TEST(Half, TheConfiguredConversionsReachUsersCode) {
#if HERD_HALF_F16C && !HERD_DEVICE_PASS
  EXPECT_EQ(HERD_HALF_USES_F16C, 1);
#else
  GTEST_SKIP() << "this build does not configure F16C";
#endif
}

// Converts values spread over the half range on the device. (A free function: CUDA does not
// allow device lambdas in the private TestBody of a test.)
void convert_on_device(Kokkos::View<float*> in, Kokkos::View<half*> out) {
  int const n = static_cast<int>(in.extent(0));
  Kokkos::parallel_for(
      n, KOKKOS_LAMBDA(int i) {
        in(i) = static_cast<float>(i - n / 2) * 0.37f;
        out(i) = half(in(i));
      });
}

TEST(Half, AgreesWithDeviceConversionInKernels) {
  int const n = 1 << 16;
  Kokkos::View<float*> in("in", n);
  Kokkos::View<half*> out("out", n);
  convert_on_device(in, out);
  auto host_in = herd::test::to_vector(in);
  auto host_out = herd::test::to_vector(out);
  for (int i = 0; i < n; ++i) ASSERT_EQ(host_out[i].bits, half(host_in[i]).bits);
}

TEST(BFloat16, RoundsToNearestEven) {
  EXPECT_EQ(bfloat16(1.0f).bits, 0x3f80);
  EXPECT_EQ(bfloat16(bits_to_float(0x3f808000u)).bits, 0x3f80);  // tie, even stays
  EXPECT_EQ(bfloat16(bits_to_float(0x3f818000u)).bits, 0x3f82);  // tie, odd rounds up
  EXPECT_EQ(bfloat16(bits_to_float(0x3f808001u)).bits, 0x3f81);
  EXPECT_TRUE(std::isnan(static_cast<float>(bfloat16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_EQ(static_cast<float>(bfloat16(3.0f)), 3.0f);
}

}  // namespace
