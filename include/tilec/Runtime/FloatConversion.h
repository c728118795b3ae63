//===- FloatConversion.h - Host fp16 / bf16 conversions ---------*- C++ -*-===//
//
// Bit-exact host conversions between binary32 and the 16-bit float formats,
// so that host programs (tests, the e2e harness) can build fp16 / bf16
// buffers without a compiler `_Float16` or CUDA's headers.
//
// Narrowing (float -> 16 bits) rounds to nearest, ties to even, like
// `cvt.rn.f16.f32` / `cvt.rn.bf16.f32` on the GPU and like IEEE 754's default
// rounding: overflow gives +-infinity, values too small for the smallest
// subnormal round to +-0 (fp16 keeps subnormals; bf16 has binary32's
// exponent range and keeps subnormals too), the sign of zero is kept, and a
// NaN stays a NaN (quiet, sign kept, top payload bits kept). Widening
// (16 bits -> float) is exact.
//
// Narrow from `float` only: going double -> float -> fp16 can round twice.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_FLOATCONVERSION_H
#define TILEC_RUNTIME_FLOATCONVERSION_H

#include <cstdint>

namespace tilec::runtime {

/// The IEEE binary16 bits nearest to `value` (ties to even).
std::uint16_t floatToHalfBits(float value);

/// The exact binary32 value of the binary16 `bits`.
float halfBitsToFloat(std::uint16_t bits);

/// The bfloat16 bits nearest to `value` (ties to even).
std::uint16_t floatToBFloat16Bits(float value);

/// The exact binary32 value of the bfloat16 `bits`.
float bfloat16BitsToFloat(std::uint16_t bits);

/// The bits of a binary32 value, and back.
std::uint32_t floatToBits(float value);
float bitsToFloat(std::uint32_t bits);

} // namespace tilec::runtime

#endif // TILEC_RUNTIME_FLOATCONVERSION_H
