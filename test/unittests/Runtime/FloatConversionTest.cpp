//===- FloatConversionTest.cpp - Host fp16 / bf16 conversions -------------===//
//
// fp16 is checked against the compiler's _Float16 (round-to-nearest-even in
// software on x86-64) on every binary16 value and on a dense sweep of binary32
// values; bf16 against an independent reference built from long double.
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/FloatConversion.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

using namespace tilec::runtime;

namespace {

bool isNanHalf(std::uint16_t bits) {
  return (bits & 0x7c00) == 0x7c00 && (bits & 0x3ff) != 0;
}

TEST(FloatConversionTest, HalfKnownValues) {
  EXPECT_EQ(floatToHalfBits(0.0f), 0x0000);
  EXPECT_EQ(floatToHalfBits(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalfBits(1.0f), 0x3c00);
  EXPECT_EQ(floatToHalfBits(-2.0f), 0xc000);
  EXPECT_EQ(floatToHalfBits(65504.0f), 0x7bff);
  EXPECT_EQ(floatToHalfBits(65519.996f), 0x7bff); // Just below the tie.
  EXPECT_EQ(floatToHalfBits(65520.0f), 0x7c00);   // Tie rounds to infinity.
  EXPECT_EQ(floatToHalfBits(1e10f), 0x7c00);
  EXPECT_EQ(floatToHalfBits(-INFINITY), 0xfc00);
  EXPECT_EQ(floatToHalfBits(std::ldexp(1.0f, -24)), 0x0001); // Min subnormal.
  EXPECT_EQ(floatToHalfBits(std::ldexp(1.0f, -25)), 0x0000); // Tie to even.
  EXPECT_EQ(floatToHalfBits(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(floatToHalfBits(std::ldexp(3.0f, -25)), 0x0002); // Tie to even.
  EXPECT_EQ(floatToHalfBits(std::ldexp(1.0f, -14)), 0x0400); // Min normal.
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1).
  EXPECT_EQ(floatToHalfBits(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  // 1 + 3 * 2^-11 is halfway between odd and even: rounds up to even.
  EXPECT_EQ(floatToHalfBits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_TRUE(isNanHalf(floatToHalfBits(NAN)));
  EXPECT_EQ(halfBitsToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(halfBitsToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(halfBitsToFloat(0x7c00), INFINITY);
  EXPECT_TRUE(std::isnan(halfBitsToFloat(0x7e00)));
  EXPECT_TRUE(std::signbit(halfBitsToFloat(0x8000)));
}

TEST(FloatConversionTest, EveryHalfRoundTrips) {
  for (std::uint32_t bits = 0; bits <= 0xffff; ++bits) {
    std::uint16_t h = static_cast<std::uint16_t>(bits);
    float f = halfBitsToFloat(h);
    if (isNanHalf(h)) {
      EXPECT_TRUE(std::isnan(f));
      EXPECT_TRUE(isNanHalf(floatToHalfBits(f)));
      continue;
    }
    ASSERT_EQ(floatToHalfBits(f), h) << std::hex << bits;
#if defined(__FLT16_MAX__)
    ASSERT_EQ(f, static_cast<float>(static_cast<_Float16>(f)));
    _Float16 reference;
    std::memcpy(&reference, &h, sizeof(h));
    ASSERT_EQ(f, static_cast<float>(reference)) << std::hex << bits;
#endif
  }
}

#if defined(__FLT16_MAX__)
TEST(FloatConversionTest, HalfMatchesCompilerOnFloatSweep) {
  // Every 1021st binary32 pattern and its successor (1021 is prime, so the
  // low mantissa bits that decide rounding take every value across the
  // sweep), plus every pattern near the binary16 range boundaries below.
  for (std::uint64_t bits = 0; bits <= 0xffffffffull; bits += 1021) {
    for (std::uint32_t delta = 0; delta < 2; ++delta) {
      std::uint32_t b = static_cast<std::uint32_t>(bits) + delta;
      float f = bitsToFloat(b);
      std::uint16_t ours = floatToHalfBits(f);
      if (std::isnan(f)) {
        ASSERT_TRUE(isNanHalf(ours));
        continue;
      }
      _Float16 reference = static_cast<_Float16>(f);
      std::uint16_t theirs;
      std::memcpy(&theirs, &reference, sizeof(theirs));
      ASSERT_EQ(ours, theirs) << std::hex << b;
    }
  }
  // Dense around the subnormal/normal boundary, the zero tie and overflow.
  const std::uint32_t centres[] = {0x33000000u, 0x38800000u, 0x477ff000u};
  for (std::uint32_t centre : centres)
    for (std::uint32_t sign : {0u, 0x80000000u})
      for (std::uint32_t d = 0; d < (1u << 16); ++d) {
        float f = bitsToFloat((centre - (1u << 15) + d) | sign);
        _Float16 reference = static_cast<_Float16>(f);
        std::uint16_t theirs;
        std::memcpy(&theirs, &reference, sizeof(theirs));
        ASSERT_EQ(floatToHalfBits(f), theirs) << std::hex << floatToBits(f);
      }
}
#endif

/// bf16 reference: the nearest representable value by exhaustive comparison
/// of the two neighbours, ties to even mantissa.
std::uint16_t referenceBFloat16(float f) {
  std::uint32_t bits = floatToBits(f);
  std::uint16_t down = static_cast<std::uint16_t>(bits >> 16);
  std::uint16_t up = static_cast<std::uint16_t>(down + 1);
  long double value = f;
  long double lo = bfloat16BitsToFloat(down);
  long double hi = bfloat16BitsToFloat(up);
  if (std::isinf(static_cast<float>(hi)) && !std::isinf(f)) {
    // Above the largest finite bf16: the "next" value is 2^128 for rounding.
    hi = std::ldexp(1.0L, 128) * (f < 0 ? -1 : 1);
  }
  long double dLo = std::fabs(value - lo);
  long double dHi = std::fabs(hi - value);
  if (dLo < dHi)
    return down;
  if (dHi < dLo)
    return up;
  return (down & 1) ? up : down;
}

TEST(FloatConversionTest, BFloat16MatchesReference) {
  EXPECT_EQ(floatToBFloat16Bits(1.0f), 0x3f80);
  EXPECT_EQ(floatToBFloat16Bits(-0.0f), 0x8000);
  EXPECT_EQ(floatToBFloat16Bits(INFINITY), 0x7f80);
  EXPECT_EQ(floatToBFloat16Bits(std::numeric_limits<float>::max()), 0x7f80);
  std::uint16_t nan = floatToBFloat16Bits(NAN);
  EXPECT_TRUE(std::isnan(bfloat16BitsToFloat(nan)));
  // 1 + 2^-8 is a tie between 1 (even) and 1 + 2^-7: stays 1.
  EXPECT_EQ(floatToBFloat16Bits(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_EQ(floatToBFloat16Bits(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  for (std::uint64_t bits = 0; bits <= 0xffffffffull; bits += 997) {
    float f = bitsToFloat(static_cast<std::uint32_t>(bits));
    if (std::isnan(f))
      continue;
    ASSERT_EQ(floatToBFloat16Bits(f), referenceBFloat16(f)) << std::hex << bits;
  }
  for (std::uint32_t bits = 0; bits <= 0xffff; ++bits) {
    float f = bfloat16BitsToFloat(static_cast<std::uint16_t>(bits));
    if (std::isnan(f))
      continue;
    ASSERT_EQ(floatToBFloat16Bits(f), bits);
  }
}

} // namespace
