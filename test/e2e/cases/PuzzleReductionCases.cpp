//===- PuzzleReductionCases.cpp - Triton-Puzzles 7-11 ---------------------===//
//
// examples/puzzles/{long_sum,long_softmax,flash_attention,conv2d,
// batched_matmul}.tile. Sums can cancel to near zero, so their absolute
// tolerance is rtol times the natural scale of the sum (Case.h dotScale).
//
//===----------------------------------------------------------------------===//

#include "../Case.h"

#include <algorithm>
#include <cmath>

namespace tilec::e2e {

using runtime::ScalarType;

namespace {

/// Puzzles 7 and 8 share their signature: (x, z, N0, N1, T, B0, B1), x is
/// N0 x T; N1 is unused by the kernels (passed as 32, the puzzle's value).
std::string rowsSignature(std::int64_t n0, std::int64_t t, std::int64_t b0,
                          std::int64_t b1) {
  return "*fp32:16, *fp32:16, " + i32Entry(n0) + ", i32, " + i32Entry(t) +
         ", " + std::to_string(b0) + ", " + std::to_string(b1);
}

/// Puzzle 7: z[i] = sum_j x[i, j].
CaseSpec longSum(const std::string &name, std::int64_t n0, std::int64_t t,
                 std::int64_t b0, std::int64_t b1) {
  CaseSpec c = puzzleCase(name, "long_sum", "long_sum.tile", "sum_kernel",
                      rowsSignature(n0, t, b0, b1),
                      {{"N0", n0}, {"T", t}, {"B0", b0}, {"B1", b1}});
  c.setup = [=](Rng &rng) {
    Problem p;
    double rtol = t >= 1000 ? kRtolFp32Long : kRtolFp32;
    p.input("x", ScalarType::FP32, {n0, t}, rng, -1, 1);
    // A sum of T uniform(-1, 1) values has standard deviation sqrt(T / 3).
    p.output("z", ScalarType::FP32, {n0},
             {rtol, rtol * std::sqrt(static_cast<double>(t) / 3)});
    p.i32(n0);
    p.i32(32);
    p.i32(t);
    p.grid = {static_cast<unsigned>(cdiv(n0, b0)), 1, 1};
    p.bytesMoved = 4.0 * (n0 * t + n0);
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    const HostTensor &x = p.tensor("x");
    std::vector<double> &z = expected["z"];
    z.assign(static_cast<std::size_t>(n0), 0.0);
    for (std::int64_t i = 0; i < n0; ++i)
      for (std::int64_t j = 0; j < t; ++j)
        z[i] += x.get(i * t + j);
  };
  return c;
}

/// Puzzle 8: z[i, :] = softmax(x[i, :]).
CaseSpec longSoftmax(const std::string &name, std::int64_t n0,
                     std::int64_t t, std::int64_t b0, std::int64_t b1) {
  CaseSpec c = puzzleCase(name, "long_softmax", "long_softmax.tile",
                      "softmax_kernel", rowsSignature(n0, t, b0, b1),
                      {{"N0", n0}, {"T", t}, {"B0", b0}, {"B1", b1}});
  c.setup = [=](Rng &rng) {
    Problem p;
    double rtol = t >= 1000 ? kRtolFp32Long : kRtolFp32;
    HostTensor &x = p.input("x", ScalarType::FP32, {n0, t}, rng, -4, 4);
    // Large row offsets: without max subtraction exp overflows.
    for (std::int64_t i = 0; i < n0; ++i) {
      double offset = rng.uniform(-50, 100);
      for (std::int64_t j = 0; j < t; ++j)
        x.set(i * t + j, x.get(i * t + j) + offset);
    }
    p.output("z", ScalarType::FP32, {n0, t}, {rtol, 0});
    p.i32(n0);
    p.i32(32);
    p.i32(t);
    p.grid = {static_cast<unsigned>(cdiv(n0, b0)), 1, 1};
    // The kernel reads x twice.
    p.bytesMoved = 4.0 * 3 * n0 * t;
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    const HostTensor &x = p.tensor("x");
    std::vector<double> &z = expected["z"];
    z.resize(static_cast<std::size_t>(n0 * t));
    for (std::int64_t i = 0; i < n0; ++i) {
      double max = -INFINITY;
      for (std::int64_t j = 0; j < t; ++j)
        max = std::max(max, x.get(i * t + j));
      double sum = 0;
      for (std::int64_t j = 0; j < t; ++j)
        sum += z[i * t + j] = std::exp(x.get(i * t + j) - max);
      for (std::int64_t j = 0; j < t; ++j)
        z[i * t + j] /= sum;
    }
  };
  return c;
}

/// Puzzle 9: z[i] = sum_j softmax_j(q[i] * k[j]) * v[j].
CaseSpec flashAttention(const std::string &name, std::int64_t n0,
                        std::int64_t t, std::int64_t b0, std::int64_t b1) {
  CaseSpec c = puzzleCase(name, "flash_attention", "flash_attention.tile",
                      "flashatt_kernel",
                      "*fp32:16, *fp32:16, *fp32:16, *fp32:16, " +
                          i32Entry(n0) + ", " + i32Entry(t) + ", " +
                          std::to_string(b0) + ", " + std::to_string(b1),
                      {{"N0", n0}, {"T", t}, {"B0", b0}, {"B1", b1}});
  c.setup = [=](Rng &rng) {
    Problem p;
    double rtol = t >= 1000 ? kRtolFp32Long : kRtolFp32;
    p.input("q", ScalarType::FP32, {n0}, rng, -3, 3);
    p.input("k", ScalarType::FP32, {t}, rng, -1, 1);
    p.input("v", ScalarType::FP32, {t}, rng, -1, 1);
    // z is an average of values in [-1, 1]: absolute scale 1.
    p.output("z", ScalarType::FP32, {n0}, {rtol, rtol});
    p.i32(n0);
    p.i32(t);
    p.grid = {static_cast<unsigned>(cdiv(n0, b0)), 1, 1};
    p.bytesMoved = 4.0 * (2 * n0 + 2 * t);
    p.flops = 6.0 * n0 * t;
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    const HostTensor &q = p.tensor("q"), &k = p.tensor("k"),
                     &v = p.tensor("v");
    std::vector<double> &z = expected["z"];
    z.resize(static_cast<std::size_t>(n0));
    for (std::int64_t i = 0; i < n0; ++i) {
      double max = -INFINITY;
      for (std::int64_t j = 0; j < t; ++j)
        max = std::max(max, q.get(i) * k.get(j));
      double num = 0, den = 0;
      for (std::int64_t j = 0; j < t; ++j) {
        double e = std::exp(q.get(i) * k.get(j) - max);
        num += e * v.get(j);
        den += e;
      }
      z[i] = num / den;
    }
  };
  return c;
}

/// Puzzle 10: z[i, j, l] = sum k[oj, ol] * x[i, j + oj, l + ol] over the taps
/// inside the image.
CaseSpec conv2d(const std::string &name, std::int64_t n0, std::int64_t h,
                std::int64_t w, std::int64_t kh, std::int64_t kw,
                std::int64_t b0) {
  CaseSpec c = puzzleCase(name, "conv2d", "conv2d.tile", "conv2d_kernel",
                      "*fp32:16, *fp32:16, *fp32:16, " + i32Entry(n0) + ", " +
                          i32Entry(h) + ", " + i32Entry(w) + ", " +
                          std::to_string(kh) + ", " + std::to_string(kw) +
                          ", " + std::to_string(b0),
                      {{"N0", n0}, {"H", h}, {"W", w}, {"KH", kh}, {"KW", kw},
                       {"B0", b0}});
  c.setup = [=](Rng &rng) {
    Problem p;
    p.input("x", ScalarType::FP32, {n0, h, w}, rng, -1, 1);
    p.input("k", ScalarType::FP32, {kh, kw}, rng, -1, 1);
    p.output("z", ScalarType::FP32, {n0, h, w},
             {kRtolFp32, kRtolFp32 * dotScale(kh * kw)});
    p.i32(n0);
    p.i32(h);
    p.i32(w);
    p.grid = {static_cast<unsigned>(cdiv(n0, b0)), 1, 1};
    p.bytesMoved = 4.0 * (2 * n0 * h * w + kh * kw);
    p.flops = 2.0 * n0 * h * w * kh * kw;
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    const HostTensor &x = p.tensor("x"), &k = p.tensor("k");
    std::vector<double> &z = expected["z"];
    z.assign(static_cast<std::size_t>(n0 * h * w), 0.0);
    for (std::int64_t i = 0; i < n0; ++i)
      for (std::int64_t j = 0; j < h; ++j)
        for (std::int64_t l = 0; l < w; ++l) {
          double sum = 0;
          for (std::int64_t oj = 0; oj < kh && j + oj < h; ++oj)
            for (std::int64_t ol = 0; ol < kw && l + ol < w; ++ol)
              sum += k.get(oj * kw + ol) *
                     x.get((i * h + j + oj) * w + l + ol);
          z[(i * h + j) * w + l] = sum;
        }
  };
  return c;
}

/// Puzzle 11: z[i, j, k] = sum_l x[i, j, l] * y[i, l, k].
CaseSpec batchedMatmul(const std::string &name, std::int64_t n0,
                       std::int64_t n1, std::int64_t n2, std::int64_t mid,
                       std::int64_t b0, std::int64_t b1, std::int64_t b2,
                       std::int64_t bMid) {
  CaseSpec c = puzzleCase(
      name, "batched_matmul", "batched_matmul.tile", "dot_kernel",
      "*fp32:16, *fp32:16, *fp32:16, " + i32Entry(n0) + ", " + i32Entry(n1) +
          ", " + i32Entry(n2) + ", " + i32Entry(mid) + ", " +
          std::to_string(b0) + ", " + std::to_string(b1) + ", " +
          std::to_string(b2) + ", " + std::to_string(bMid),
      {{"N0", n0}, {"N1", n1}, {"N2", n2}, {"MID", mid}});
  c.dtype = "fp32 (tf32 dot)";
  c.setup = [=](Rng &rng) {
    Problem p;
    p.input("x", ScalarType::FP32, {n2, n0, mid}, rng, -1, 1);
    p.input("y", ScalarType::FP32, {n2, mid, n1}, rng, -1, 1);
    p.output("z", ScalarType::FP32, {n2, n0, n1},
             {kRtolTf32, kRtolTf32 * dotScale(mid)});
    p.i32(n0);
    p.i32(n1);
    p.i32(n2);
    p.i32(mid);
    p.grid = {static_cast<unsigned>(cdiv(n0, b0)),
              static_cast<unsigned>(cdiv(n1, b1)),
              static_cast<unsigned>(cdiv(n2, b2))};
    p.bytesMoved = 4.0 * n2 * (n0 * mid + mid * n1 + n0 * n1);
    p.flops = 2.0 * n2 * n0 * n1 * mid;
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    std::vector<double> x = p.tensor("x").toDoubles();
    std::vector<double> y = p.tensor("y").toDoubles();
    std::vector<double> &z = expected["z"];
    z.assign(static_cast<std::size_t>(n2 * n0 * n1), 0.0);
    for (std::int64_t i = 0; i < n2; ++i)
      for (std::int64_t j = 0; j < n0; ++j)
        for (std::int64_t l = 0; l < mid; ++l) {
          double xv = x[(i * n0 + j) * mid + l];
          for (std::int64_t k = 0; k < n1; ++k)
            z[(i * n0 + j) * n1 + k] += xv * y[(i * mid + l) * n1 + k];
        }
  };
  return c;
}

} // namespace

void addPuzzleReductionCases(std::vector<CaseSpec> &cases) {
  cases.push_back(longSum("puzzle07_long_sum_small", 7, 200, 4, 32));
  cases.push_back(longSum("puzzle07_long_sum_medium", 1000, 5000, 8, 256));
  cases.push_back(longSoftmax("puzzle08_long_softmax_small", 7, 200, 4, 32));
  cases.push_back(
      longSoftmax("puzzle08_long_softmax_medium", 1000, 5000, 8, 256));
  // The puzzle's single program: B0 >= N0.
  cases.push_back(
      flashAttention("puzzle09_flash_attention_small", 200, 200, 256, 32));
  cases.push_back(
      flashAttention("puzzle09_flash_attention_medium", 1000, 3000, 64, 128));
  cases.push_back(conv2d("puzzle10_conv2d_small", 5, 9, 11, 4, 4, 2));
  cases.push_back(conv2d("puzzle10_conv2d_medium", 37, 30, 41, 4, 4, 8));
  cases.push_back(batchedMatmul("puzzle11_batched_matmul_small", 50, 40, 3,
                                70, 16, 16, 2, 16));
  cases.push_back(batchedMatmul("puzzle11_batched_matmul_medium", 300, 200, 5,
                                333, 32, 32, 2, 32));
}

} // namespace tilec::e2e
