//===- OpsCases.cpp - examples/ops/*.tile ---------------------------------===//
//
// One block through each tl op, every result row checked against its
// float64 reference: the ops tilec builds from other tile ops (scans, flip,
// pow, join/split/interleave/cat), the elementwise math, casts and integer
// arithmetic (math_ops), and the reductions (reduce_ops).
//
//===----------------------------------------------------------------------===//

#include "../Case.h"

#include "tilec/Runtime/FloatConversion.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace tilec::e2e {

using runtime::ScalarType;

static CaseSpec shapeScanOps(const std::string &name, std::int64_t block,
                             int warps) {
  CaseSpec c;
  c.name = name;
  c.family = "shape_scan_ops";
  c.file = "ops/shape_scan_ops.tile";
  c.kernel = "shape_scan_ops";
  c.signature = "*fp32:16, *fp32:16, *fp32:16, " + std::to_string(block);
  c.numWarps = warps;
  c.dtype = "fp32";
  c.sizes = {{"BLOCK", block}};
  const std::int64_t b = block;
  c.setup = [=](Rng &rng) {
    Problem p;
    // Positive bases for pow; cumprod of values around 1 stays in range.
    p.input("x", ScalarType::FP32, {b}, rng, 0.5, 1.5);
    p.input("y", ScalarType::FP32, {b}, rng, -2, 2);
    // Scans add up to BLOCK terms in another order than the reference
    // (products: relative error ~ BLOCK * 2^-24).
    p.output("out", ScalarType::FP32, {13, b}, {kRtolFp32Long, 1e-6});
    p.grid = {1, 1, 1};
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    std::vector<double> x = p.tensor("x").toDoubles();
    std::vector<double> y = p.tensor("y").toDoubles();
    std::vector<double> &o = expected["out"];
    o.assign(static_cast<std::size_t>(13 * b), 0.0);
    auto row = [&](int r) { return &o[static_cast<std::size_t>(r * b)]; };
    double sum = 0, prod = 1;
    for (std::int64_t i = 0; i < b; ++i)
      row(0)[i] = sum += x[i];
    for (std::int64_t i = b - 1; i >= 0; --i)
      row(1)[i] = prod *= x[i];
    for (std::int64_t i = 0; i < b; ++i) {
      row(2)[i] = x[b - 1 - i];
      row(3)[i] = std::pow(x[i], y[i]);
      row(4)[2 * i] = x[i]; // interleave: two rows
      row(4)[2 * i + 1] = y[i];
      row(6)[i] = x[i]; // cat: x then y
      row(7)[i] = y[i];
      row(8)[i] = y[i] - 2 * x[i];
    }
    double max = -INFINITY;
    std::int64_t arg = 0;
    for (std::int64_t i = 0; i < b; ++i) {
      if (y[i] > max) {
        max = y[i];
        arg = i;
      }
      row(9)[i] = max;
      row(10)[i] = static_cast<double>(arg);
    }
    // x as 8 x (b/8): row 11 cumsum along axis 1 reversed, row 12 the rows
    // in reverse order.
    std::int64_t cols = b / 8;
    for (std::int64_t r = 0; r < 8; ++r) {
      double s = 0;
      for (std::int64_t k = cols - 1; k >= 0; --k)
        row(11)[r * cols + k] = s += x[r * cols + k];
      for (std::int64_t k = 0; k < cols; ++k)
        row(12)[r * cols + k] = x[(7 - r) * cols + k];
    }
  };
  return c;
}

/// `value` rounded toward zero to a binary float with `mantissaBits`
/// stored mantissa bits and smallest normal exponent `minExponent` (fp16:
/// 10, -14; bf16: 7, -126), in range.
static double truncateToFloatGrid(double value, int mantissaBits, int minExponent) {
  if (value == 0)
    return value;
  int exponent = std::max(static_cast<int>(std::floor(std::log2(std::fabs(value)))),
                          minExponent);
  double ulp = std::ldexp(1.0, exponent - mantissaBits);
  return std::trunc(value / ulp) * ulp;
}

static CaseSpec mathOps(const std::string &name, std::int64_t block, int warps) {
  CaseSpec c;
  c.name = name;
  c.family = "math_ops";
  c.file = "ops/math_ops.tile";
  c.kernel = "math_ops";
  c.signature = "*fp32:16, *fp32:16, *i32:16, *i32:16, *u32:16, *u32:16, "
                "*fp32:16, *i32:16, *u32:16, " +
                std::to_string(block);
  c.numWarps = warps;
  c.dtype = "fp32/i32/u32";
  c.sizes = {{"BLOCK", block}};
  const std::int64_t b = block;
  constexpr int kFloatRows = 26, kIntRows = 10, kUintRows = 8;
  c.setup = [=](Rng &rng) {
    Problem p;
    p.input("x", ScalarType::FP32, {b}, rng, 0.25, 2);
    p.input("y", ScalarType::FP32, {b}, rng, -3, 3);
    p.input("a", ScalarType::I32, {b}, rng, -1000, 1000);
    p.input("b", ScalarType::I32, {b}, rng, -9, 9);
    p.input("u", ScalarType::U32, {b}, rng, 0, 4294967295.0);
    p.input("v", ScalarType::U32, {b}, rng, 0, 4294967295.0);
    // Approximate exp/log/sin/cos on the GPU: absolute error ~1e-7 where
    // the value crosses zero.
    p.output("fout", ScalarType::FP32, {kFloatRows, b}, {kRtolFp32, 1e-6});
    p.output("iout", ScalarType::I32, {kIntRows, b}, {0, 0});
    p.output("uout", ScalarType::U32, {kUintRows, b}, {0, 0});
    p.grid = {1, 1, 1};
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    std::vector<double> xs = p.tensor("x").toDoubles(), ys = p.tensor("y").toDoubles(),
                        as = p.tensor("a").toDoubles(), bs = p.tensor("b").toDoubles(),
                        us = p.tensor("u").toDoubles(), vs = p.tensor("v").toDoubles();
    std::vector<double> &fo = expected["fout"], &io = expected["iout"],
                        &uo = expected["uout"];
    fo.assign(static_cast<std::size_t>(kFloatRows * b), 0.0);
    io.assign(static_cast<std::size_t>(kIntRows * b), 0.0);
    uo.assign(static_cast<std::size_t>(kUintRows * b), 0.0);
    for (std::int64_t e = 0; e < b; ++e) {
      auto at = [&](std::vector<double> &o, int row) -> double & {
        return o[static_cast<std::size_t>(row * b + e)];
      };
      double x = xs[e], y = ys[e];
      auto a = static_cast<std::int32_t>(as[e]);
      auto bv = static_cast<std::int32_t>(bs[e]);
      if (bv == 0)
        bv = 7;
      auto u = static_cast<std::uint32_t>(us[e]);
      std::uint32_t v = static_cast<std::uint32_t>(vs[e]) | 1u;
      const double values[kFloatRows] = {
          std::exp(y), std::exp2(y), std::log(x), std::log2(x), std::sqrt(x),
          1 / std::sqrt(x), std::sin(y), std::cos(y), std::fabs(y),
          std::floor(y), std::ceil(y), x * y + x, std::erf(y),
          1 / (1 + std::exp(-y)), std::max(x, y), std::min(x, y),
          std::clamp(y, -1.0, 1.0), y > 0 ? x : y, y / x, y / x,
          double(a) / double(bv),
          runtime::halfBitsToFloat(
              runtime::floatToHalfBits(static_cast<float>(y) * 1000.0f)),
          runtime::bfloat16BitsToFloat(
              runtime::floatToBFloat16Bits(static_cast<float>(y))),
          std::exp(y) - std::sqrt(x),
          truncateToFloatGrid(static_cast<float>(y) * 1000.0f, 10, -14),
          truncateToFloatGrid(static_cast<float>(y), 7, -126)};
      for (int r = 0; r < kFloatRows; ++r)
        at(fo, r) = values[r];
      const std::int32_t ints[kIntRows] = {
          a / bv, a % bv, (a >> 2) + (a << 3), (a & bv) ^ (a | 5),
          static_cast<std::int32_t>(runtime::floatToBits(static_cast<float>(x))),
          static_cast<std::int32_t>(static_cast<float>(y) * 100.0f),
          std::max(a, bv * 50) - std::min(a, -bv), std::abs(a),
          static_cast<std::int8_t>(static_cast<std::uint8_t>(a * 3)),
          -a / 4 + a % 3};
      for (int r = 0; r < kIntRows; ++r)
        at(io, r) = ints[r];
      std::uint32_t uints[kUintRows] = {
          static_cast<std::uint32_t>((std::uint64_t(u) * v) >> 32), u / v, u % v,
          u >> 5, u + v, u * 2654435761u, 0, 0};
      // 64-bit umulhi, its high and low words.
      std::uint64_t p64 = (std::uint64_t(u) << 32) | v,
                    q64 = (std::uint64_t(v) << 32) | (u ^ v);
      auto high = static_cast<std::uint64_t>(
          (static_cast<unsigned __int128>(p64) * q64) >> 64);
      uints[6] = static_cast<std::uint32_t>(high >> 32);
      uints[7] = static_cast<std::uint32_t>(high);
      for (int r = 0; r < kUintRows; ++r)
        at(uo, r) = uints[r];
    }
  };
  return c;
}

static CaseSpec reduceOps(const std::string &name, std::int64_t block, int warps) {
  CaseSpec c;
  c.name = name;
  c.family = "reduce_ops";
  c.file = "ops/reduce_ops.tile";
  c.kernel = "reduce_ops";
  c.signature = "*fp32:16, *i32:16, *fp32:16, " + std::to_string(block);
  c.numWarps = warps;
  c.dtype = "fp32/i32";
  c.sizes = {{"BLOCK", block}};
  const std::int64_t n = block;
  constexpr int kRows = 13;
  c.setup = [=](Rng &rng) {
    Problem p;
    p.input("x", ScalarType::FP32, {n, n}, rng, -2, 2);
    p.input("k", ScalarType::I32, {n, n}, rng, 0, (1 << 20) - 1);
    // Sums of up to BLOCK^2 terms that can cancel: an absolute floor.
    p.output("out", ScalarType::FP32, {kRows, n}, {kRtolFp32, 1e-5 * dotScale(n * n)});
    p.grid = {1, 1, 1};
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    std::vector<double> x = p.tensor("x").toDoubles(), k = p.tensor("k").toDoubles();
    std::vector<double> &o = expected["out"];
    o.assign(static_cast<std::size_t>(kRows * n), 0.0);
    auto X = [&](std::int64_t r, std::int64_t col) { return x[r * n + col]; };
    auto out = [&](int row, std::int64_t i) -> double & {
      return o[static_cast<std::size_t>(row * n + i)];
    };
    // tl.softmax(x): along dim 0 (Triton's default), per column.
    std::vector<double> softmax(x.size());
    for (std::int64_t col = 0; col < n; ++col) {
      double max = -INFINITY, denominator = 0;
      for (std::int64_t r = 0; r < n; ++r)
        max = std::max(max, X(r, col));
      for (std::int64_t r = 0; r < n; ++r)
        denominator += std::exp(X(r, col) - max);
      for (std::int64_t r = 0; r < n; ++r)
        softmax[r * n + col] = std::exp(X(r, col) - max) / denominator;
    }
    double total = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      double rowSum = 0, colSum = 0, rowMax = -INFINITY, colMin = INFINITY,
             colMax = -INFINITY, maxAbs = 0;
      std::int64_t rowArgMax = 0, colArgMin = 0, colArgMax = 0;
      std::int64_t kXor = 0, kMax = 0;
      for (std::int64_t j = 0; j < n; ++j) {
        rowSum += X(i, j);
        colSum += X(j, i);
        if (X(i, j) > rowMax) {
          rowMax = X(i, j);
          rowArgMax = j;
        }
        if (X(j, i) < colMin) {
          colMin = X(j, i);
          colArgMin = j;
        }
        if (X(j, i) > colMax) {
          colMax = X(j, i);
          colArgMax = j;
        }
        maxAbs = std::max(maxAbs, std::fabs(X(i, j)));
        kXor ^= static_cast<std::int64_t>(k[i * n + j]);
        kMax = std::max(kMax, static_cast<std::int64_t>(k[j * n + i]));
        total += X(i, j);
      }
      double expectation = 0;
      for (std::int64_t j = 0; j < n; ++j)
        expectation += softmax[i * n + j] * X(i, j);
      out(0, i) = rowSum;
      out(1, i) = colSum;
      out(2, i) = rowMax;
      out(3, i) = colMin;
      out(4, i) = static_cast<double>(rowArgMax);
      out(5, i) = static_cast<double>(colArgMin);
      out(6, i) = maxAbs;
      out(7, i) = colMax;
      out(8, i) = static_cast<double>(colArgMax);
      out(9, i) = static_cast<double>(kXor);
      out(10, i) = static_cast<double>(kMax);
      out(11, i) = expectation;
    }
    for (std::int64_t i = 0; i < n; ++i)
      out(12, i) = total;
  };
  return c;
}

void addOpsCases(std::vector<CaseSpec> &cases) {
  cases.push_back(mathOps("math_ops_64", 64, 4));
  cases.push_back(mathOps("math_ops_256", 256, 4));
  cases.push_back(reduceOps("reduce_ops_16", 16, 4));
  cases.push_back(reduceOps("reduce_ops_64", 64, 4));
  cases.push_back(shapeScanOps("shape_scan_ops_16", 16, 4));
  cases.push_back(shapeScanOps("shape_scan_ops_128", 128, 4));
}

} // namespace tilec::e2e
