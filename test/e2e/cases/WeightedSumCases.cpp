//===- WeightedSumCases.cpp - examples/weighted_sum.tile ------------------===//

#include "../Case.h"

#include <algorithm>

namespace tilec::e2e {

using runtime::ScalarType;

static CaseSpec weightedSumForward(const std::string &name, std::int64_t rows,
                                   std::int64_t d, std::int64_t rowsTile,
                                   std::int64_t dTile, bool large) {
  CaseSpec c;
  c.name = name;
  c.family = "weighted_sum_fwd";
  c.file = "weighted_sum.tile";
  c.kernel = "weighted_sum_fwd";
  // (x, w, y, stride_xr, stride_xd, stride_w, stride_y, ROWS, D, ROWS_TILE,
  //  D_TILE); contiguous, so the inner strides are the literal 1.
  c.signature = "*fp32:16, *fp32:16, *fp32:16, " + i32Entry(d) +
                ", 1, 1, 1, " + i32Entry(rows) + ", " + i32Entry(d) + ", " +
                std::to_string(rowsTile) + ", " + std::to_string(dTile);
  c.numWarps = 4;
  c.dtype = "fp32";
  c.sizes = {{"ROWS", rows}, {"D", d}};
  c.large = large;
  c.setup = [=](Rng &rng) {
    Problem p;
    double rtol = d >= 1000 ? kRtolFp32Long : kRtolFp32;
    p.input("x", ScalarType::FP32, {rows, d}, rng, -1, 1);
    p.input("w", ScalarType::FP32, {d}, rng, -1, 1);
    p.output("y", ScalarType::FP32, {rows}, {rtol, rtol * dotScale(d)});
    p.i32(d); // stride_xr
    p.i32(rows);
    p.i32(d);
    p.grid = {static_cast<unsigned>(cdiv(rows, rowsTile)), 1, 1};
    p.bytesMoved = 4.0 * (rows * d + d + rows);
    p.flops = 2.0 * rows * d;
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    const HostTensor &x = p.tensor("x"), &w = p.tensor("w");
    std::vector<double> &y = expected["y"];
    y.assign(static_cast<std::size_t>(rows), 0.0);
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t j = 0; j < d; ++j)
        y[r] += x.get(r * d + j) * w.get(j);
  };
  return c;
}

static CaseSpec weightedSumBackward(const std::string &name, std::int64_t rows,
                                    std::int64_t d, std::int64_t rowsTile,
                                    std::int64_t dTile, bool large) {
  std::int64_t tiles = cdiv(rows, rowsTile);
  CaseSpec c;
  c.name = name;
  c.family = "weighted_sum_bwd";
  c.file = "weighted_sum.tile";
  c.kernel = "weighted_sum_bwd";
  // (x, w, grad_y, grad_x, partial_grad_w, stride_xr, stride_xd, stride_w,
  //  stride_gy, stride_gxr, stride_gxd, stride_pr, stride_pd, ROWS, D,
  //  ROWS_TILE, D_TILE)
  std::string strideD = i32Entry(d);
  c.signature = "*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, " +
                strideD + ", 1, 1, 1, " + strideD + ", 1, " + strideD +
                ", 1, " + i32Entry(rows) + ", " + strideD + ", " +
                std::to_string(rowsTile) + ", " + std::to_string(dTile);
  c.numWarps = 4;
  c.dtype = "fp32";
  c.sizes = {{"ROWS", rows}, {"D", d}};
  c.large = large;
  c.setup = [=](Rng &rng) {
    Problem p;
    p.input("x", ScalarType::FP32, {rows, d}, rng, -1, 1);
    p.input("w", ScalarType::FP32, {d}, rng, -1, 1);
    p.input("grad_y", ScalarType::FP32, {rows}, rng, -1, 1);
    p.output("grad_x", ScalarType::FP32, {rows, d}, {kRtolFp32, 0});
    p.output("partial_grad_w", ScalarType::FP32, {tiles, d},
             {kRtolFp32, kRtolFp32 * dotScale(rowsTile)});
    p.i32(d); // stride_xr
    p.i32(d); // stride_gxr
    p.i32(d); // stride_pr
    p.i32(rows);
    p.i32(d);
    p.grid = {static_cast<unsigned>(tiles), 1, 1};
    p.bytesMoved = 4.0 * (2 * rows * d + d + rows + tiles * d);
    p.flops = 2.0 * rows * d;
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    const HostTensor &x = p.tensor("x"), &w = p.tensor("w"),
                     &gy = p.tensor("grad_y");
    std::vector<double> &gx = expected["grad_x"];
    gx.resize(static_cast<std::size_t>(rows * d));
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t j = 0; j < d; ++j)
        gx[r * d + j] = gy.get(r) * w.get(j);
    // Row t of partial_grad_w: the share of grad_w from rows
    // [t * ROWS_TILE, (t + 1) * ROWS_TILE).
    std::vector<double> &partial = expected["partial_grad_w"];
    partial.assign(static_cast<std::size_t>(tiles * d), 0.0);
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t j = 0; j < d; ++j)
        partial[(r / rowsTile) * d + j] += x.get(r * d + j) * gy.get(r);
  };
  return c;
}

void addWeightedSumCases(std::vector<CaseSpec> &cases) {
  cases.push_back(
      weightedSumForward("weighted_sum_fwd_small", 100, 77, 16, 32, false));
  cases.push_back(
      weightedSumForward("weighted_sum_fwd_large", 16381, 1023, 16, 128, true));
  cases.push_back(
      weightedSumBackward("weighted_sum_bwd_small", 100, 77, 16, 32, false));
  cases.push_back(weightedSumBackward("weighted_sum_bwd_large", 16381, 1023,
                                      16, 128, true));
}

} // namespace tilec::e2e
