//===- OpsCases.cpp - examples/ops/*.tile ---------------------------------===//
//
// One block through each tl op tilec builds from other tile ops (scans,
// flip, pow, join/split/interleave/cat), every result row checked against
// its float64 reference.
//
//===----------------------------------------------------------------------===//

#include "../Case.h"

#include <algorithm>
#include <cmath>

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

void addOpsCases(std::vector<CaseSpec> &cases) {
  cases.push_back(shapeScanOps("shape_scan_ops_16", 16, 4));
  cases.push_back(shapeScanOps("shape_scan_ops_128", 128, 4));
}

} // namespace tilec::e2e
