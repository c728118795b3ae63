//===- LayerNormCases.cpp - examples/layer_norm.tile ----------------------===//
//
// Triton's tutorial 05 kernel `_layer_norm_fwd_fused`, unchanged: Y, and the
// per-row Mean and Rstd it saves for the backward pass.
//
//===----------------------------------------------------------------------===//

#include "../Case.h"

#include <cmath>

namespace tilec::e2e {

using runtime::ScalarType;

static CaseSpec layerNorm(const std::string &name, std::int64_t rows,
                          std::int64_t n, std::int64_t block, int warps,
                          ScalarType type, bool large) {
  std::string t = runtime::scalarTypeName(type);
  const double eps = 1e-5;
  CaseSpec c;
  c.name = name;
  c.family = "layer_norm";
  c.file = "layer_norm.tile";
  c.kernel = "_layer_norm_fwd_fused";
  // (X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE): X, Y, W, B of the
  // tensor type, Mean and Rstd fp32 (as the tutorial allocates them).
  c.signature = "*" + t + ":16, *" + t + ":16, *" + t + ":16, *" + t +
                ":16, *fp32:16, *fp32:16, " + i32Entry(n) + ", " +
                i32Entry(n) + ", fp32, " + std::to_string(block);
  c.numWarps = warps;
  c.dtype = t;
  c.sizes = {{"M", rows}, {"N", n}};
  c.large = large;
  bool half = type != ScalarType::FP32;
  c.setup = [=](Rng &rng) {
    Problem p;
    HostTensor &x = p.input("X", type, {rows, n}, rng, -2, 2);
    // A per-row offset and scale, so the mean and the variance differ from
    // row to row (a kernel mixing rows, or skipping the mean, fails).
    for (std::int64_t r = 0; r < rows; ++r) {
      double offset = rng.uniform(-3, 3), scale = rng.uniform(0.25, 4);
      for (std::int64_t col = 0; col < n; ++col)
        x.set(r * n + col, x.get(r * n + col) * scale + offset);
    }
    // fp16 outputs: rounded to fp16 (2^-11 relative); values near zero
    // get an absolute 2^-11 of the output's scale (a few units).
    p.output("Y", type, {rows, n},
             half ? Tolerance{kRtolFp16, 4e-3} : Tolerance{kRtolFp32Long, 1e-5});
    p.input("W", type, {n}, rng, 0.5, 1.5);
    p.input("B", type, {n}, rng, -1, 1);
    p.output("Mean", ScalarType::FP32, {rows}, {kRtolFp32Long, 1e-5});
    p.output("Rstd", ScalarType::FP32, {rows}, {kRtolFp32Long, 0});
    p.i32(n); // stride: rows are contiguous
    p.i32(n);
    p.scalar(runtime::KernelArg::scalar(static_cast<float>(eps)));
    p.grid = {static_cast<unsigned>(rows), 1, 1};
    p.bytesMoved = double(runtime::scalarTypeSize(type)) * 2 * rows * n;
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    std::vector<double> x = p.tensor("X").toDoubles();
    std::vector<double> w = p.tensor("W").toDoubles();
    std::vector<double> b = p.tensor("B").toDoubles();
    std::vector<double> &y = expected["Y"];
    std::vector<double> &mean = expected["Mean"];
    std::vector<double> &rstd = expected["Rstd"];
    y.resize(rows * n);
    mean.resize(rows);
    rstd.resize(rows);
    for (std::int64_t r = 0; r < rows; ++r) {
      const double *row = &x[r * n];
      double sum = 0;
      for (std::int64_t col = 0; col < n; ++col)
        sum += row[col];
      double mu = sum / n, var = 0;
      for (std::int64_t col = 0; col < n; ++col)
        var += (row[col] - mu) * (row[col] - mu);
      var /= n;
      double rs = 1 / std::sqrt(var + double(float(eps)));
      mean[r] = mu;
      rstd[r] = rs;
      for (std::int64_t col = 0; col < n; ++col)
        y[r * n + col] = (row[col] - mu) * rs * w[col] + b[col];
    }
  };
  return c;
}

void addLayerNormCases(std::vector<CaseSpec> &cases) {
  // 781 columns in blocks of 256: three full chunks and a ragged one per
  // sweep; one block wider than the row; fp16 as in the tutorial.
  cases.push_back(layerNorm("layer_norm_small", 37, 781, 256, 4,
                            ScalarType::FP32, false));
  cases.push_back(layerNorm("layer_norm_one_block", 5, 1000, 1024, 4,
                            ScalarType::FP32, false));
  cases.push_back(layerNorm("layer_norm_fp16_small", 19, 333, 128, 4,
                            ScalarType::FP16, false));
  // The tutorial's benchmark shape (N up to 64 KB of fp16 per block).
  cases.push_back(layerNorm("layer_norm_fp16_4096", 4096, 4096, 4096, 8,
                            ScalarType::FP16, true));
}

} // namespace tilec::e2e
