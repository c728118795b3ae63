//===- FloatConversion.cpp - Host fp16 / bf16 conversions -----------------===//

#include "tilec/Runtime/FloatConversion.h"

#include <cstring>

namespace tilec::runtime {

std::uint32_t floatToBits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

float bitsToFloat(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

/// Shifts `mantissa` right by `shift` (1..31), rounding to nearest even.
static std::uint32_t shiftRightRoundEven(std::uint32_t mantissa,
                                         unsigned shift) {
  std::uint32_t kept = mantissa >> shift;
  std::uint32_t rest = mantissa & ((1u << shift) - 1);
  std::uint32_t half = 1u << (shift - 1);
  if (rest > half || (rest == half && (kept & 1)))
    ++kept;
  return kept;
}

std::uint16_t floatToHalfBits(float value) {
  std::uint32_t x = floatToBits(value);
  std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000);
  std::uint32_t abs = x & 0x7fffffffu;

  if (abs > 0x7f800000u) // NaN: quiet it, keep the top 9 payload bits.
    return sign | 0x7e00 | static_cast<std::uint16_t>((abs >> 13) & 0x1ff);
  // 65520 = 65504 + half an ulp: it and everything above round to infinity
  // (65504 has an odd mantissa, so the tie goes up).
  if (abs >= 0x477ff000u)
    return sign | 0x7c00;
  // 2^-25 (half the smallest subnormal) and below round to zero; the tie at
  // exactly 2^-25 goes to the even neighbour, zero.
  if (abs <= 0x33000000u)
    return sign;
  if (abs < 0x38800000u) {
    // Result is a binary16 subnormal (or rounds up to the smallest normal):
    // its unit is 2^-24, and value = mantissa * 2^(exponent - 150).
    std::uint32_t exponent = abs >> 23;
    std::uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
    return sign | static_cast<std::uint16_t>(
                      shiftRightRoundEven(mantissa, 126 - exponent));
  }
  // Normal: rebias the exponent (127 -> 15) and round 23 mantissa bits to 10.
  // A carry out of the mantissa correctly bumps the exponent.
  std::uint32_t rebased = abs - (112u << 23);
  return sign | static_cast<std::uint16_t>(shiftRightRoundEven(rebased, 13));
}

float halfBitsToFloat(std::uint16_t bits) {
  std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000) << 16;
  std::uint32_t exponent = (bits >> 10) & 0x1f;
  std::uint32_t mantissa = bits & 0x3ff;
  if (exponent == 0x1f) // Infinity or NaN (payload kept).
    return bitsToFloat(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {
    if (mantissa == 0)
      return bitsToFloat(sign);
    // Subnormal: normalize.
    int shift = 0;
    while (!(mantissa & 0x400)) {
      mantissa <<= 1;
      ++shift;
    }
    mantissa &= 0x3ff;
    return bitsToFloat(sign | ((113u - shift) << 23) | (mantissa << 13));
  }
  return bitsToFloat(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

std::uint16_t floatToBFloat16Bits(float value) {
  std::uint32_t x = floatToBits(value);
  if ((x & 0x7fffffffu) > 0x7f800000u) // NaN: quiet it, keep sign/payload.
    return static_cast<std::uint16_t>((x >> 16) | 0x40);
  // Round to nearest even on the low 16 bits; a carry propagates into the
  // exponent and overflows to infinity as it should.
  std::uint32_t rounded = x + 0x7fffu + ((x >> 16) & 1);
  return static_cast<std::uint16_t>(rounded >> 16);
}

float bfloat16BitsToFloat(std::uint16_t bits) {
  return bitsToFloat(static_cast<std::uint32_t>(bits) << 16);
}

} // namespace tilec::runtime
