//===- ViewScanDotCases.cpp - examples/ops/{view_ops,scan_ops,small_dot} --===//
//
// The view ops on every dtype of the language (exact: views move bits),
// large transposes, scans along each axis for lengths 16 to 16384, and
// dots of shapes the tensor cores do not take (the FMA path), each against
// float64.
//
//===----------------------------------------------------------------------===//

#include "../Case.h"

#include <cmath>

namespace tilec::e2e {

using runtime::ScalarType;

namespace {

struct ViewDType {
  const char *name; ///< The signature's name.
  ScalarType type;
  double lo, hi; ///< Range of the random inputs.
};

constexpr ViewDType kViewDTypes[] = {
    {"i1", ScalarType::I1, 0, 2},
    // 8- and 16-bit ranges leave out the poison bytes (0xA5, 0xA5A5), which
    // the check takes for unwritten elements.
    {"i8", ScalarType::I8, -90, 120},
    {"i16", ScalarType::I16, -20000, 20000},
    {"i32", ScalarType::I32, -2e9, 2e9},
    {"i64", ScalarType::I64, -9e15, 9e15},
    {"u8", ScalarType::U8, 0, 160},
    {"u16", ScalarType::U16, 0, 40000},
    {"u32", ScalarType::U32, 0, 4e9},
    {"u64", ScalarType::U64, 0, 9e15},
    {"fp16", ScalarType::FP16, -1000, 1000},
    {"bf16", ScalarType::BF16, -1e6, 1e6},
    {"fp32", ScalarType::FP32, -1e6, 1e6},
    {"fp64", ScalarType::FP64, -1e6, 1e6},
    {"fp8e4nv", ScalarType::FP8E4NV, -400, 400},
    {"fp8e5", ScalarType::FP8E5, -50000, 50000},
};

constexpr int kViewBlocks = 13;

/// A case of `kernel` in ops/view_ops.tile on one [m, n] tile of dtype `d`
/// with `pointers` pointer parameters, then M and N.
CaseSpec viewCase(const char *kernel, const ViewDType &d, int pointers,
                  std::int64_t m, std::int64_t n, int warps) {
  CaseSpec c;
  c.name = std::string(kernel) + "_" + d.name + "_" + std::to_string(m) + "x" +
           std::to_string(n) + "_w" + std::to_string(warps);
  c.family = kernel;
  c.file = "ops/view_ops.tile";
  c.kernel = kernel;
  for (int i = 0; i < pointers; ++i)
    c.signature += std::string("*") + d.name + ":16, ";
  c.signature += std::to_string(m) + ", " + std::to_string(n);
  c.numWarps = warps;
  c.dtype = d.name;
  c.sizes = {{"M", m}, {"N", n}};
  return c;
}

CaseSpec viewOps(const ViewDType &d, std::int64_t m, std::int64_t n,
                 int warps) {
  CaseSpec c = viewCase("view_ops", d, 3, m, n, warps);
  const ViewDType dt = d;
  c.setup = [=](Rng &rng) {
    Problem p;
    p.input("x", dt.type, {m, n}, rng, dt.lo, dt.hi);
    p.input("y", dt.type, {m, n}, rng, dt.lo, dt.hi);
    p.output("out", dt.type, {kViewBlocks, m * n}, {0, 0});
    p.grid = {1, 1, 1};
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    std::vector<double> x = p.tensor("x").toDoubles();
    std::vector<double> y = p.tensor("y").toDoubles();
    std::vector<double> &o = expected["out"];
    const std::int64_t mn = m * n, h = n / 2;
    o.assign(static_cast<std::size_t>(kViewBlocks * mn), 0.0);
    auto X = [&](std::int64_t i, std::int64_t j) { return x[i * n + j]; };
    auto Y = [&](std::int64_t i, std::int64_t j) { return y[i * n + j]; };
    auto block = [&](int b) { return &o[static_cast<std::size_t>(b * mn)]; };
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        block(0)[j * m + i] = X(i, j);
        // x[i, j] is x3[i, j / h, j % h], at p[j % h, i, j / h].
        block(1)[(j % h) * 2 * m + i * 2 + j / h] = X(i, j);
        block(2)[i * n + j] = X(i, j);
        block(3)[(i * n + j) * 2] = X(i, j);
        block(3)[(i * n + j) * 2 + 1] = Y(i, j);
        block(5)[i * n + j] = Y(i, j);
        block(6)[i * n + j] = X(i, j);
        block(7)[i * n + j] = X(0, j);
        block(8)[i * n + j] = X(i, j);
        block(9)[i * n + j] = Y(i, j);
        block(10)[i * 2 * n + 2 * j] = X(i, j);
        block(10)[i * 2 * n + 2 * j + 1] = Y(i, j);
        block(12)[i * n + j] = X(i, j);
      }
  };
  return c;
}

/// trans_2d: one [m, n] tile transposed; 128 KB and more go through
/// shared memory in rounds.
CaseSpec trans2d(const ViewDType &d, std::int64_t m, std::int64_t n,
                 int warps) {
  CaseSpec c = viewCase("trans_2d", d, 2, m, n, warps);
  const ViewDType dt = d;
  c.setup = [=](Rng &rng) {
    Problem p;
    p.input("x", dt.type, {m, n}, rng, dt.lo, dt.hi);
    p.output("out", dt.type, {n, m}, {0, 0});
    p.grid = {1, 1, 1};
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    std::vector<double> x = p.tensor("x").toDoubles();
    std::vector<double> &o = expected["out"];
    o.assign(static_cast<std::size_t>(m * n), 0.0);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j)
        o[static_cast<std::size_t>(j * m + i)] = x[static_cast<std::size_t>(i * n + j)];
  };
  return c;
}

/// The affine-map scan b[i] = a[i] * b[i-1] + y[i] (forward) or
/// b[i] = a[i] * b[i+1] + y[i] (reverse), a = x / 2.
std::vector<double> affineScan(const std::vector<double> &x,
                               const std::vector<double> &y,
                               std::int64_t start, std::int64_t stride,
                               std::int64_t count, bool reverse) {
  std::vector<double> out(static_cast<std::size_t>(count));
  double b = 0;
  for (std::int64_t s = 0; s < count; ++s) {
    std::int64_t i = reverse ? count - 1 - s : s;
    std::int64_t at = start + i * stride;
    b = s == 0 ? y[at] : 0.5 * x[at] * b + y[at];
    out[static_cast<std::size_t>(i)] = b;
  }
  return out;
}

/// A case of `kernel` in ops/scan_ops.tile on one block of `block`
/// elements: `pointers` (the signature's pointer entries), then BLOCK.
CaseSpec blockScanCase(const char *kernel, const std::string &pointers,
                       const char *dtype, std::int64_t block, int warps) {
  CaseSpec c;
  c.name = std::string(kernel) + "_" + std::to_string(block) + "_w" +
           std::to_string(warps);
  c.family = kernel;
  c.file = "ops/scan_ops.tile";
  c.kernel = kernel;
  c.signature = pointers + std::to_string(block);
  c.numWarps = warps;
  c.dtype = dtype;
  c.sizes = {{"BLOCK", block}};
  return c;
}

CaseSpec scan1d(std::int64_t block, int warps) {
  CaseSpec c = blockScanCase("scan_1d", "*fp32:16, *fp32:16, *i32:16, *fp32:16, ",
                             "fp32/i32", block, warps);
  c.setup = [=](Rng &rng) {
    Problem p;
    // Positive terms: partial sums grow, so fp32's error stays relative.
    p.input("x", ScalarType::FP32, {block}, rng, 0, 1);
    p.input("y", ScalarType::FP32, {block}, rng, 0, 1);
    p.input("k", ScalarType::I32, {block}, rng, -1000, 1000);
    p.output("out", ScalarType::FP32, {6, block}, {kRtolFp32Long, 1e-6});
    p.grid = {1, 1, 1};
    p.bytesMoved = 4.0 * block * (3 + 6);
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    std::vector<double> x = p.tensor("x").toDoubles();
    std::vector<double> y = p.tensor("y").toDoubles();
    std::vector<double> k = p.tensor("k").toDoubles();
    std::vector<double> &o = expected["out"];
    o.assign(static_cast<std::size_t>(6 * block), 0.0);
    auto row = [&](int r) { return &o[static_cast<std::size_t>(r * block)]; };
    double s = 0, ks = 0, mx = -INFINITY;
    for (std::int64_t i = 0; i < block; ++i) {
      row(0)[i] = s += x[i];
      row(4)[i] = ks += k[i];
      row(5)[i] = mx = std::max(mx, y[i]);
    }
    s = 0;
    for (std::int64_t i = block - 1; i >= 0; --i)
      row(1)[i] = s += x[i];
    std::vector<double> f = affineScan(x, y, 0, 1, block, false);
    std::vector<double> r = affineScan(x, y, 0, 1, block, true);
    for (std::int64_t i = 0; i < block; ++i) {
      row(2)[i] = f[i];
      row(3)[i] = r[i];
    }
  };
  return c;
}

CaseSpec cumsum1d(std::int64_t block, int warps) {
  CaseSpec c = blockScanCase("cumsum_1d", "*fp32:16, *fp32:16, ", "fp32", block,
                             warps);
  c.setup = [=](Rng &rng) {
    Problem p;
    p.input("x", ScalarType::FP32, {block}, rng, 0, 1);
    p.output("out", ScalarType::FP32, {2, block}, {kRtolFp32Long, 1e-6});
    p.grid = {1, 1, 1};
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    std::vector<double> x = p.tensor("x").toDoubles();
    std::vector<double> &o = expected["out"];
    o.assign(static_cast<std::size_t>(2 * block), 0.0);
    double s = 0;
    for (std::int64_t i = 0; i < block; ++i)
      o[static_cast<std::size_t>(i)] = s += x[static_cast<std::size_t>(i)];
    s = 0;
    for (std::int64_t i = block - 1; i >= 0; --i)
      o[static_cast<std::size_t>(block + i)] = s += x[static_cast<std::size_t>(i)];
  };
  return c;
}

CaseSpec scan2d(std::int64_t rows, std::int64_t cols, int warps) {
  CaseSpec c;
  c.name = "scan_2d_" + std::to_string(rows) + "x" + std::to_string(cols) +
           "_w" + std::to_string(warps);
  c.family = "scan_2d";
  c.file = "ops/scan_ops.tile";
  c.kernel = "scan_2d";
  c.signature = "*fp32:16, *i32:16, *fp32:16, " + std::to_string(rows) + ", " +
                std::to_string(cols);
  c.numWarps = warps;
  c.dtype = "fp32/i32";
  c.sizes = {{"R", rows}, {"C", cols}};
  c.setup = [=](Rng &rng) {
    Problem p;
    p.input("x", ScalarType::FP32, {rows, cols}, rng, 0, 1);
    p.input("k", ScalarType::I32, {rows, cols}, rng, -1000, 1000);
    p.output("out", ScalarType::FP32, {6, rows * cols}, {kRtolFp32Long, 1e-6});
    p.grid = {1, 1, 1};
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    std::vector<double> x = p.tensor("x").toDoubles();
    std::vector<double> k = p.tensor("k").toDoubles();
    std::vector<double> &o = expected["out"];
    const std::int64_t n = rows * cols;
    o.assign(static_cast<std::size_t>(6 * n), 0.0);
    auto at = [&](int b, std::int64_t i, std::int64_t j) -> double & {
      return o[static_cast<std::size_t>(b * n + i * cols + j)];
    };
    for (std::int64_t j = 0; j < cols; ++j) {
      double s = 0, ks = 0;
      for (std::int64_t i = 0; i < rows; ++i) {
        at(0, i, j) = s += x[i * cols + j];
        at(5, i, j) = ks += k[i * cols + j];
      }
      s = 0;
      for (std::int64_t i = rows - 1; i >= 0; --i)
        at(2, i, j) = s += x[i * cols + j];
    }
    for (std::int64_t i = 0; i < rows; ++i) {
      double s = 0;
      for (std::int64_t j = 0; j < cols; ++j)
        at(1, i, j) = s += x[i * cols + j];
      s = 0;
      for (std::int64_t j = cols - 1; j >= 0; --j)
        at(3, i, j) = s += x[i * cols + j];
      std::vector<double> f = affineScan(x, x, i * cols, 1, cols, false);
      for (std::int64_t j = 0; j < cols; ++j)
        at(4, i, j) = f[j];
    }
  };
  return c;
}

CaseSpec smallDot(const char *dtype, ScalarType type, std::int64_t m,
                  std::int64_t n, std::int64_t k, int warps) {
  CaseSpec c;
  c.name = std::string("small_dot_") + dtype + "_" + std::to_string(m) + "x" +
           std::to_string(n) + "x" + std::to_string(k) + "_w" +
           std::to_string(warps);
  c.family = "small_dot";
  c.file = "ops/small_dot.tile";
  c.kernel = "small_dot";
  std::string ptr = std::string("*") + dtype + ", ";
  c.signature = ptr + ptr + "*fp32, " + std::to_string(m) + ", " +
                std::to_string(n) + ", " + std::to_string(k);
  c.numWarps = warps;
  c.dtype = std::string(dtype) + "->fp32";
  c.sizes = {{"M", m}, {"N", n}, {"K", k}};
  c.setup = [=](Rng &rng) {
    Problem p;
    p.input("a", type, {m, k}, rng, -1, 1);
    p.input("b", type, {k, n}, rng, -1, 1);
    // Products of inputs exact in fp32, sums of K terms: fp32 rounding.
    p.output("c", ScalarType::FP32, {m, n},
             {kRtolFp32, 1e-6 * static_cast<double>(k)});
    p.grid = {1, 1, 1};
    p.flops = 2.0 * m * n * k;
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    std::vector<double> a = p.tensor("a").toDoubles();
    std::vector<double> b = p.tensor("b").toDoubles();
    std::vector<double> &o = expected["c"];
    o.assign(static_cast<std::size_t>(m * n), 0.0);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (std::int64_t q = 0; q < k; ++q)
          s += a[i * k + q] * b[q * n + j];
        o[i * n + j] = s;
      }
  };
  return c;
}

} // namespace

void addViewScanDotCases(std::vector<CaseSpec> &cases) {
  for (const ViewDType &d : kViewDTypes)
    cases.push_back(viewOps(d, 16, 32, 4));
  // fp8 trans with other warp counts (the reported failure).
  cases.push_back(viewOps(kViewDTypes[13], 64, 64, 1));
  cases.push_back(viewOps(kViewDTypes[14], 32, 64, 8));
  // fp32 and fp16 transposes of 256 KB and 128 KB: two rounds each.
  cases.push_back(trans2d(kViewDTypes[11], 256, 256, 4));
  cases.push_back(trans2d(kViewDTypes[9], 256, 256, 4));
  // 8192 on 4 warps and 16384 on 8 are 16 chunks each: the chunk table.
  for (std::int64_t block : {16, 128, 1024, 4096, 8192})
    cases.push_back(scan1d(block, 4));
  cases.push_back(scan1d(16, 1));
  cases.push_back(scan1d(1024, 8));
  cases.push_back(scan1d(16384, 8));
  // 64 chunks on one warp: more table rows than threads.
  cases.push_back(cumsum1d(8192, 1));
  cases.push_back(scan2d(16, 256, 4));
  cases.push_back(scan2d(256, 16, 4));
  cases.push_back(scan2d(4096, 2, 4));
  cases.push_back(scan2d(2, 4096, 4));
  cases.push_back(smallDot("fp32", ScalarType::FP32, 8, 8, 8, 4));
  cases.push_back(smallDot("fp16", ScalarType::FP16, 8, 8, 8, 1));
  cases.push_back(smallDot("fp32", ScalarType::FP32, 1, 64, 32, 4));
  cases.push_back(smallDot("fp16", ScalarType::FP16, 1, 128, 64, 4));
  cases.push_back(smallDot("fp32", ScalarType::FP32, 4, 2, 8, 4));
  cases.push_back(smallDot("fp32", ScalarType::FP32, 1, 1, 1, 1));
  cases.push_back(smallDot("bf16", ScalarType::BF16, 32, 8, 4, 4));
}

} // namespace tilec::e2e
