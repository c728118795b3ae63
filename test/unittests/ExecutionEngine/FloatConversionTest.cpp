//===- FloatConversionTest.cpp - CPU backend float rounding, bit-exact ----===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Every conversion and f16/bf16 operation of the CPU backend must round the
// way the GPU does (to nearest even, one rounding per operation; fp8
// saturating like cvt.rn.satfinite), so these tests compare bit patterns with
// llvm::APFloat on many inputs: ties, subnormals, overflow, infinities,
// NaN, and random bits.
//
//===----------------------------------------------------------------------===//

#include "CpuKernelTestUtils.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/bit.h"

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace tilec;
using namespace tilec::cpu;
using namespace tilec::cpu::testing;
using llvm::APFloat;

namespace {

constexpr int kBlock = 1024;

unsigned gridFor(std::size_t n) {
  return static_cast<unsigned>((n + kBlock - 1) / kBlock);
}

/// `x` rounded to nearest even in `semantics`, as bits.
std::uint64_t roundTo(const llvm::fltSemantics &semantics, float x) {
  APFloat f(x);
  bool losesInfo = false;
  (void)f.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
  return f.bitcastToAPInt().getZExtValue();
}

/// Hopper's cvt.rn.satfinite to an fp8 format: nearest even, magnitudes
/// beyond the largest finite value (infinities too) saturate, NaN is 0x7f.
std::uint8_t satfinite(const llvm::fltSemantics &semantics, std::uint8_t max,
                       float x) {
  if (std::isnan(x))
    return 0x7f;
  APFloat f(x);
  bool losesInfo = false;
  APFloat::opStatus status =
      f.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
  if (f.isInfinity() || f.isNaN() || (status & APFloat::opOverflow))
    return (std::signbit(x) ? 0x80 : 0) | max;
  return static_cast<std::uint8_t>(f.bitcastToAPInt().getZExtValue());
}

bool isNaNBits(const llvm::fltSemantics &semantics, std::uint64_t bits) {
  return APFloat(semantics,
                 llvm::APInt(APFloat::getSizeInBits(semantics), bits))
      .isNaN();
}

/// Values every narrowing must get right: each format's ties and their
/// neighbours, the edges of its range, specials, and random bit patterns.
std::vector<float> narrowingInputs() {
  std::vector<float> values = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN,
                               FLT_MAX, -FLT_MAX, FLT_MIN, 1e-45f, -1e-45f,
                               448.0f, 464.0f, 464.0001f, 480.0f, -500.0f,
                               57344.0f, 61440.0f, 61439.0f, 65504.0f,
                               65519.99f, 65520.0f, 1.0f / 512, 1.0f / 1024,
                               3.0f / 1024, 1.5f / 65536, 1e-8f};
  const llvm::fltSemantics *formats[] = {
      &APFloat::IEEEhalf(), &APFloat::BFloat(), &APFloat::Float8E4M3FN(),
      &APFloat::Float8E5M2()};
  for (const llvm::fltSemantics *semantics : formats) {
    unsigned bits = APFloat::getSizeInBits(*semantics);
    for (std::uint64_t code = 0; code + 1 < (1u << bits); ++code) {
      APFloat lo(*semantics, llvm::APInt(bits, code));
      APFloat hi(*semantics, llvm::APInt(bits, code + 1));
      if (!lo.isFinite() || !hi.isFinite() || lo.isNegative())
        continue;
      bool lost = false;
      (void)lo.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                       &lost);
      (void)hi.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                       &lost);
      float a = lo.convertToFloat(), b = hi.convertToFloat();
      // Sample the 16-bit formats, take every fp8 code.
      if (bits == 16 && code % 97 != 0)
        continue;
      float mid = 0.5f * (a + b);
      for (float v : {mid, std::nextafter(mid, a), std::nextafter(mid, b)}) {
        values.push_back(v);
        values.push_back(-v);
      }
    }
  }
  std::mt19937 rng(42);
  for (int i = 0; i < 20000; ++i)
    values.push_back(llvm::bit_cast<float>(static_cast<std::uint32_t>(rng())));
  return values;
}

const char *kNarrowKernel = R"(
import triton
import triton.language as tl

@triton.jit
def narrow(x_ptr, h_ptr, b_ptr, e4_ptr, e5_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(h_ptr + offs, x.to(tl.float16), mask=m)
    tl.store(b_ptr + offs, x.to(tl.bfloat16), mask=m)
    tl.store(e4_ptr + offs, x.to(tl.float8e4nv), mask=m)
    tl.store(e5_ptr + offs, x.to(tl.float8e5), mask=m)
)";

TEST(FloatConversion, NarrowingFromF32RoundsLikeTheGpu) {
  auto kernel = compileKernel(kNarrowKernel, "narrow",
                              "*fp32, *fp16, *bf16, *fp8e4nv, *fp8e5, i32, 1024");
  ASSERT_TRUE(kernel);
  std::vector<float> x = narrowingInputs();
  std::size_t n = x.size();
  std::vector<std::uint16_t> h(n), b(n);
  std::vector<std::uint8_t> e4(n), e5(n);
  auto count = static_cast<std::int32_t>(n);
  llvm::Error err = kernel->launch(
      {gridFor(n), 1, 1},
      {CpuArgument::pointer(x.data()), CpuArgument::pointer(h.data()),
       CpuArgument::pointer(b.data()), CpuArgument::pointer(e4.data()),
       CpuArgument::pointer(e5.data()), CpuArgument::scalar(count)});
  ASSERT_FALSE(err) << llvm::toString(std::move(err));

  unsigned failures = 0;
  auto expectBits = [&](const char *what, const llvm::fltSemantics &semantics,
                        std::size_t i, std::uint64_t got,
                        std::uint64_t want) {
    if (got == want ||
        (isNaNBits(semantics, got) && isNaNBits(semantics, want)))
      return;
    if (++failures <= 20)
      ADD_FAILURE() << what << "(" << x[i] << " = 0x" << std::hex
                    << llvm::bit_cast<std::uint32_t>(x[i]) << "): got 0x"
                    << got << ", want 0x" << want << std::dec;
  };
  for (std::size_t i = 0; i < n; ++i) {
    expectBits("fp16", APFloat::IEEEhalf(), i, h[i],
               roundTo(APFloat::IEEEhalf(), x[i]));
    expectBits("bf16", APFloat::BFloat(), i, b[i],
               roundTo(APFloat::BFloat(), x[i]));
    // Saturated fp8 NaN is 0x7f exactly, not any NaN.
    std::uint8_t want4 = satfinite(APFloat::Float8E4M3FN(), 0x7e, x[i]);
    std::uint8_t want5 = satfinite(APFloat::Float8E5M2(), 0x7b, x[i]);
    if (e4[i] != want4 && ++failures <= 20)
      ADD_FAILURE() << "fp8e4nv(" << x[i] << "): got 0x" << std::hex
                    << int(e4[i]) << ", want 0x" << int(want4) << std::dec;
    if (e5[i] != want5 && ++failures <= 20)
      ADD_FAILURE() << "fp8e5(" << x[i] << "): got 0x" << std::hex
                    << int(e5[i]) << ", want 0x" << int(want5) << std::dec;
  }
  EXPECT_EQ(failures, 0u) << "of " << n << " inputs";
}

const char *kWidenKernel = R"(
import triton
import triton.language as tl

@triton.jit
def widen(h_ptr, b_ptr, e4_ptr, e5_ptr, oh, ob, o4, o5, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(oh + offs, tl.load(h_ptr + offs, mask=m).to(tl.float32), mask=m)
    tl.store(ob + offs, tl.load(b_ptr + offs, mask=m).to(tl.float32), mask=m)
    m8 = offs < 256
    tl.store(o4 + offs, tl.load(e4_ptr + offs, mask=m8).to(tl.float32), mask=m8)
    tl.store(o5 + offs, tl.load(e5_ptr + offs, mask=m8).to(tl.float32), mask=m8)
)";

TEST(FloatConversion, WideningToF32IsExact) {
  auto kernel = compileKernel(
      kWidenKernel, "widen",
      "*fp16, *bf16, *fp8e4nv, *fp8e5, *fp32, *fp32, *fp32, *fp32, i32, 1024");
  ASSERT_TRUE(kernel);
  constexpr std::size_t n = 1 << 16;
  std::vector<std::uint16_t> codes16(n);
  std::vector<std::uint8_t> codes8(256);
  for (std::size_t i = 0; i < n; ++i)
    codes16[i] = static_cast<std::uint16_t>(i);
  for (std::size_t i = 0; i < 256; ++i)
    codes8[i] = static_cast<std::uint8_t>(i);
  std::vector<float> oh(n), ob(n), o4(256), o5(256);
  auto count = static_cast<std::int32_t>(n);
  llvm::Error err = kernel->launch(
      {gridFor(n), 1, 1},
      {CpuArgument::pointer(codes16.data()), CpuArgument::pointer(codes16.data()),
       CpuArgument::pointer(codes8.data()), CpuArgument::pointer(codes8.data()),
       CpuArgument::pointer(oh.data()), CpuArgument::pointer(ob.data()),
       CpuArgument::pointer(o4.data()), CpuArgument::pointer(o5.data()),
       CpuArgument::scalar(count)});
  ASSERT_FALSE(err) << llvm::toString(std::move(err));

  auto expected = [](const llvm::fltSemantics &semantics, std::uint64_t code) {
    APFloat f(semantics,
              llvm::APInt(APFloat::getSizeInBits(semantics), code));
    bool losesInfo = false;
    (void)f.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                    &losesInfo);
    return f.convertToFloat();
  };
  auto same = [](float a, float b) {
    return (std::isnan(a) && std::isnan(b)) ||
           llvm::bit_cast<std::uint32_t>(a) == llvm::bit_cast<std::uint32_t>(b);
  };
  unsigned failures = 0;
  auto check = [&](const char *what, float got, float want, std::uint64_t code) {
    if (!same(got, want) && ++failures <= 20)
      ADD_FAILURE() << what << " code 0x" << std::hex << code << std::dec
                    << ": got " << got << ", want " << want;
  };
  for (std::size_t i = 0; i < n; ++i) {
    check("fp16", oh[i], expected(APFloat::IEEEhalf(), i), i);
    check("bf16", ob[i], expected(APFloat::BFloat(), i), i);
  }
  for (std::size_t i = 0; i < 256; ++i) {
    check("fp8e4nv", o4[i], expected(APFloat::Float8E4M3FN(), i), i);
    check("fp8e5", o5[i], expected(APFloat::Float8E5M2(), i), i);
  }
  EXPECT_EQ(failures, 0u);
}

const char *kArithKernel = R"(
import triton
import triton.language as tl

@triton.jit
def arith(x_ptr, y_ptr, s_ptr, d_ptr, p_ptr, q_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(s_ptr + offs, x + y, mask=m)
    tl.store(d_ptr + offs, x - y, mask=m)
    tl.store(p_ptr + offs, x * y, mask=m)
    tl.store(q_ptr + offs, x / y, mask=m)
)";

/// f16 and bf16 arithmetic stays in its type: every operation is rounded to
/// nearest even in that type (what the GPU's add/sub/mul.rn.f16/bf16
/// compute), never kept in f32 across operations.
void checkHalfArithmetic(const char *type, const llvm::fltSemantics &semantics) {
  std::string t(type);
  auto kernel = compileKernel(kArithKernel, "arith",
                              "*" + t + ", *" + t + ", *" + t + ", *" + t +
                                  ", *" + t + ", *" + t + ", i32, 1024");
  ASSERT_TRUE(kernel);
  constexpr std::size_t n = 1 << 16;
  std::mt19937 rng(7);
  std::vector<std::uint16_t> x(n), y(n), s(n), d(n), p(n), q(n);
  for (std::size_t i = 0; i < n; ++i) {
    // Half of the pairs are close in magnitude (cancellation, ties).
    x[i] = static_cast<std::uint16_t>(rng());
    y[i] = i % 2 ? static_cast<std::uint16_t>(rng())
                 : static_cast<std::uint16_t>(x[i] + (rng() % 64) - 32);
  }
  auto count = static_cast<std::int32_t>(n);
  llvm::Error err = kernel->launch(
      {gridFor(n), 1, 1},
      {CpuArgument::pointer(x.data()), CpuArgument::pointer(y.data()),
       CpuArgument::pointer(s.data()), CpuArgument::pointer(d.data()),
       CpuArgument::pointer(p.data()), CpuArgument::pointer(q.data()),
       CpuArgument::scalar(count)});
  ASSERT_FALSE(err) << llvm::toString(std::move(err));

  unsigned failures = 0;
  auto value = [&](std::uint16_t bits) {
    return APFloat(semantics, llvm::APInt(16, bits));
  };
  auto check = [&](const char *op, std::size_t i, std::uint16_t got,
                   APFloat want) {
    std::uint64_t wantBits = want.bitcastToAPInt().getZExtValue();
    if (got == wantBits || (isNaNBits(semantics, got) && want.isNaN()))
      return;
    if (++failures <= 20)
      ADD_FAILURE() << type << " 0x" << std::hex << x[i] << " " << op
                    << " 0x" << y[i] << ": got 0x" << got << ", want 0x"
                    << wantBits << std::dec;
  };
  auto rm = APFloat::rmNearestTiesToEven;
  for (std::size_t i = 0; i < n; ++i) {
    APFloat a = value(x[i]), b = value(y[i]);
    APFloat r = a;
    (void)r.add(b, rm);
    check("+", i, s[i], r);
    r = a;
    (void)r.subtract(b, rm);
    check("-", i, d[i], r);
    r = a;
    (void)r.multiply(b, rm);
    check("*", i, p[i], r);
    r = a;
    (void)r.divide(b, rm);
    check("/", i, q[i], r);
  }
  EXPECT_EQ(failures, 0u) << "of " << n << " pairs";
}

TEST(FloatConversion, Float16ArithmeticRoundsEveryOperation) {
  checkHalfArithmetic("fp16", APFloat::IEEEhalf());
}

TEST(FloatConversion, BFloat16ArithmeticRoundsEveryOperation) {
  checkHalfArithmetic("bf16", APFloat::BFloat());
}

} // namespace
