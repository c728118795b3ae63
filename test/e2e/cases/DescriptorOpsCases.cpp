//===- DescriptorOpsCases.cpp - examples/ops/descriptor_ops.tile ----------===//
//
// Tensor descriptors' padding_option="nan", atomics, gather and scatter,
// each at the edges of the tensor: every element of every output checked,
// those the kernel must not write included (they keep their poison, NaN,
// or the copy of their initial value).
//
//===----------------------------------------------------------------------===//

#include "../Case.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>

namespace tilec::e2e {

using runtime::ScalarType;

static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// descriptor_nan_pad: the blocks of an M x N tensor read through a
/// NaN-padded and a zero-padded descriptor, over a grid of BM x BN blocks
/// whose last row and column hang over the edges.
static CaseSpec nanPad(const std::string &name, ScalarType dtype,
                       const std::string &sigType, std::int64_t m,
                       std::int64_t n, std::int64_t bm, std::int64_t bn) {
  CaseSpec c;
  c.name = name;
  c.family = "descriptor_ops";
  c.file = "ops/descriptor_ops.tile";
  c.kernel = "descriptor_nan_pad";
  c.signature = "*" + sigType + ":16, *" + sigType + ":16, *" + sigType +
                ":16, " + i32Entry(m) + ", " + i32Entry(n) + ", " +
                std::to_string(bm) + ", " + std::to_string(bn);
  c.dtype = sigType;
  c.sizes = {{"M", m}, {"N", n}};
  const std::int64_t gm = cdiv(m, bm), gn = cdiv(n, bn);
  const std::int64_t rows = gm * bm, ld = gn * bn;
  c.setup = [=](Rng &rng) {
    Problem p;
    p.input("x", dtype, {m, n}, rng, -1, 1);
    // Values are only moved.
    p.output("out", dtype, {rows, ld}, {0, 0});
    p.output("flag", dtype, {rows, ld}, {0, 0});
    p.i32(m);
    p.i32(n);
    p.grid = {static_cast<unsigned>(gm), static_cast<unsigned>(gn), 1};
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    const HostTensor &x = p.tensor("x");
    std::vector<double> &out = expected["out"];
    std::vector<double> &flag = expected["flag"];
    out.assign(static_cast<std::size_t>(rows * ld), kNaN);
    flag.assign(static_cast<std::size_t>(rows * ld), -1.0);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double v = x.get(static_cast<std::size_t>(i * n + j));
        out[i * ld + j] = v;
        flag[i * ld + j] = v;
      }
  };
  return c;
}

/// descriptor_atomics: three BM x BN blocks combined into an M x N corner
/// of ROWS x LD buffers by every descriptor atomic; the first block hangs
/// over the top-left corner, the second is at (om, on), the third hangs
/// over the bottom-right corner.
static CaseSpec atomics(const std::string &name, std::int64_t m, std::int64_t n,
                        std::int64_t om, std::int64_t on) {
  const std::int64_t rows = 64, ld = 64, bm = 16, bn = 32;
  CaseSpec c;
  c.name = name;
  c.family = "descriptor_ops";
  c.file = "ops/descriptor_ops.tile";
  c.kernel = "descriptor_atomics";
  c.signature = "*fp32:16, *i32:16, *fp32:16, *i32:16, *fp32:16, *i32:16, " +
                i32Entry(m) + ", " + i32Entry(n) + ", " + i32Entry(om) + ", " +
                i32Entry(on) + ", " + std::to_string(rows) + ", " +
                std::to_string(ld) + ", " + std::to_string(bm) + ", " +
                std::to_string(bn);
  c.dtype = "fp32/i32";
  c.sizes = {{"M", m}, {"N", n}};
  const std::int64_t plane = rows * ld, block = bm * bn;
  c.setup = [=](Rng &rng) {
    Problem p;
    p.input("init_f", ScalarType::FP32, {rows, ld}, rng, -1, 1);
    p.input("init_i", ScalarType::I32, {6, rows, ld}, rng, -1000, 1000);
    p.input("val_f", ScalarType::FP32, {3, bm, bn}, rng, -1, 1);
    p.input("val_i", ScalarType::I32, {3, bm, bn}, rng, -1000, 1000);
    // Three fp32 additions per element at most, in program order.
    p.output("out_f", ScalarType::FP32, {rows, ld}, {kRtolFp32, 1e-6});
    p.output("out_i", ScalarType::I32, {6, rows, ld}, {0, 0});
    p.i32(m);
    p.i32(n);
    p.i32(om);
    p.i32(on);
    p.grid = {1, 1, 1};
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    std::vector<double> &f = expected["out_f"];
    std::vector<double> &iv = expected["out_i"];
    f = p.tensor("init_f").toDoubles();
    iv = p.tensor("init_i").toDoubles();
    const HostTensor &valF = p.tensor("val_f");
    const HostTensor &valI = p.tensor("val_i");
    const std::int64_t origins[3][2] = {{-3, -5}, {om, on}, {m - 5, n - 7}};
    for (std::int64_t j = 0; j < 3; ++j)
      for (std::int64_t r = 0; r < bm; ++r)
        for (std::int64_t col = 0; col < bn; ++col) {
          std::int64_t row = origins[j][0] + r, column = origins[j][1] + col;
          if (row < 0 || row >= m || column < 0 || column >= n)
            continue;
          std::size_t at = static_cast<std::size_t>(row * ld + column);
          std::size_t from = static_cast<std::size_t>(j * block + r * bn + col);
          f[at] += valF.get(from);
          auto v = static_cast<std::int32_t>(valI.get(from));
          auto get = [&](int k) {
            return static_cast<std::int32_t>(iv[k * plane + at]);
          };
          iv[0 * plane + at] = static_cast<double>(get(0) + v);
          iv[1 * plane + at] = static_cast<double>(std::min(get(1), v));
          iv[2 * plane + at] = static_cast<double>(std::max(get(2), v));
          iv[3 * plane + at] = static_cast<double>(get(3) & v);
          iv[4 * plane + at] = static_cast<double>(get(4) | v);
          iv[5 * plane + at] = static_cast<double>(get(5) ^ v);
        }
  };
  return c;
}

/// descriptor_atomics_half: two BM x BN blocks of 16-bit floats combined
/// by add, min and max into an M x N corner of three ROWS x LD planes, one
/// block over the top-left corner and one over the bottom-right corner.
static CaseSpec atomicsHalf(const std::string &name, ScalarType dtype,
                            const std::string &sigType, Tolerance addTolerance,
                            std::int64_t m, std::int64_t n) {
  const std::int64_t rows = 32, ld = 64, bm = 16, bn = 32;
  CaseSpec c;
  c.name = name;
  c.family = "descriptor_ops";
  c.file = "ops/descriptor_ops.tile";
  c.kernel = "descriptor_atomics_half";
  c.signature = "*" + sigType + ":16, *" + sigType + ":16, *" + sigType +
                ":16, " + i32Entry(m) + ", " + i32Entry(n) + ", " +
                std::to_string(rows) + ", " + std::to_string(ld) + ", " +
                std::to_string(bm) + ", " + std::to_string(bn);
  c.dtype = sigType;
  c.sizes = {{"M", m}, {"N", n}};
  const std::int64_t plane = rows * ld, block = bm * bn;
  c.setup = [=](Rng &rng) {
    Problem p;
    p.input("init", dtype, {3, rows, ld}, rng, -1, 1);
    p.input("val", dtype, {2, bm, bn}, rng, -1, 1);
    // min and max are exact; the adds round once or twice to 16 bits.
    p.output("out", dtype, {3, rows, ld}, addTolerance);
    p.i32(m);
    p.i32(n);
    p.grid = {1, 1, 1};
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    std::vector<double> &out = expected["out"];
    out = p.tensor("init").toDoubles();
    const HostTensor &val = p.tensor("val");
    const std::int64_t origins[2][2] = {{-3, -5}, {m - 5, n - 7}};
    for (std::int64_t j = 0; j < 2; ++j)
      for (std::int64_t r = 0; r < bm; ++r)
        for (std::int64_t col = 0; col < bn; ++col) {
          std::int64_t row = origins[j][0] + r, column = origins[j][1] + col;
          if (row < 0 || row >= m || column < 0 || column >= n)
            continue;
          std::size_t at = static_cast<std::size_t>(row * ld + column);
          double v =
              val.get(static_cast<std::size_t>(j * block + r * bn + col));
          out[at] += v;
          out[plane + at] = std::min(out[plane + at], v);
          out[2 * plane + at] = std::max(out[2 * plane + at], v);
        }
  };
  return c;
}

/// descriptor_gather_scatter: K rows gathered from an M x N tensor (random
/// row indices, some outside [0, M), repeats allowed) at columns
/// y + [0, BN), and K rows scattered to distinct random rows (some outside)
/// at the same columns.
static CaseSpec gatherScatter(const std::string &name, std::int64_t m,
                              std::int64_t n, std::int64_t y, std::int64_t k,
                              std::int64_t bn) {
  CaseSpec c;
  c.name = name;
  c.family = "descriptor_ops";
  c.file = "ops/descriptor_ops.tile";
  c.kernel = "descriptor_gather_scatter";
  c.signature = "*fp32:16, *i32:16, *i32:16, *fp32:16, *fp32:16, *fp32:16, "
                "*fp32:16, " +
                i32Entry(m) + ", " + i32Entry(n) + ", " + i32Entry(y) + ", " +
                std::to_string(k) + ", " + std::to_string(bn);
  c.dtype = "fp32";
  c.sizes = {{"M", m}, {"N", n}, {"K", k}};
  c.setup = [=](Rng &rng) {
    Problem p;
    p.input("x", ScalarType::FP32, {m, n}, rng, -1, 1);
    HostTensor &rows = p.input("rows", ScalarType::I32, {k}, rng, 0, 1);
    HostTensor &dstRows = p.input("dst_rows", ScalarType::I32, {k}, rng, 0, 1);
    // Gathered rows: uniform in [-3, M + 3). Scattered rows: the first K
    // of a random permutation of [-3, M + 3), so distinct.
    std::vector<std::int64_t> candidates(static_cast<std::size_t>(m + 6));
    std::iota(candidates.begin(), candidates.end(), -3);
    for (std::size_t i = candidates.size() - 1; i > 0; --i)
      std::swap(candidates[i], candidates[rng.next() % (i + 1)]);
    for (std::int64_t i = 0; i < k; ++i) {
      rows.set(static_cast<std::size_t>(i),
               static_cast<double>(
                   static_cast<std::int64_t>(rng.next() % (m + 6)) - 3));
      dstRows.set(static_cast<std::size_t>(i),
                  static_cast<double>(candidates[i]));
    }
    p.input("v", ScalarType::FP32, {k, bn}, rng, -1, 1);
    // Values are only moved.
    p.output("g", ScalarType::FP32, {k, bn}, {0, 0});
    p.output("gn", ScalarType::FP32, {k, bn}, {0, 0});
    p.output("s", ScalarType::FP32, {m, n}, {0, 0});
    p.i32(m);
    p.i32(n);
    p.i32(y);
    p.grid = {1, 1, 1};
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    const HostTensor &x = p.tensor("x");
    const HostTensor &rows = p.tensor("rows");
    const HostTensor &dstRows = p.tensor("dst_rows");
    const HostTensor &v = p.tensor("v");
    std::vector<double> &g = expected["g"];
    std::vector<double> &gn = expected["gn"];
    std::vector<double> &s = expected["s"];
    g.assign(static_cast<std::size_t>(k * bn), 0.0);
    gn.assign(static_cast<std::size_t>(k * bn), kNaN);
    s.assign(static_cast<std::size_t>(m * n), kNaN);
    for (std::int64_t i = 0; i < k; ++i)
      for (std::int64_t j = 0; j < bn; ++j) {
        std::int64_t column = y + j;
        if (column < 0 || column >= n)
          continue;
        std::size_t at = static_cast<std::size_t>(i * bn + j);
        auto row =
            static_cast<std::int64_t>(rows.get(static_cast<std::size_t>(i)));
        if (row >= 0 && row < m) {
          g[at] = x.get(static_cast<std::size_t>(row * n + column));
          gn[at] = g[at];
        }
        auto dst =
            static_cast<std::int64_t>(dstRows.get(static_cast<std::size_t>(i)));
        if (dst >= 0 && dst < m)
          s[static_cast<std::size_t>(dst * n + column)] = v.get(at);
      }
  };
  return c;
}

void addDescriptorOpsCases(std::vector<CaseSpec> &cases) {
  // 77 x 50 in 32 x 32 blocks: the last block row and column hang over.
  cases.push_back(nanPad("descriptor_nan_pad_fp32", ScalarType::FP32, "fp32",
                         77, 50, 32, 32));
  cases.push_back(nanPad("descriptor_nan_pad_fp16", ScalarType::FP16, "fp16",
                         45, 70, 16, 64));
  // 40 x 50 corners of 64 x 64 buffers; the middle block is inside.
  cases.push_back(atomics("descriptor_atomics", 40, 50, 12, 9));
  // 20 x 40 corners of 32 x 64 buffers.
  cases.push_back(atomicsHalf("descriptor_atomics_fp16", ScalarType::FP16,
                              "fp16", {kRtolFp16, 2e-3}, 20, 40));
  cases.push_back(atomicsHalf("descriptor_atomics_bf16", ScalarType::BF16,
                              "bf16", {1e-2, 1e-2}, 20, 40));
  // Columns 50..81 of 70 (the right edge), then -10..21 (the left edge).
  cases.push_back(
      gatherScatter("descriptor_gather_scatter_right", 100, 70, 50, 32, 32));
  cases.push_back(
      gatherScatter("descriptor_gather_scatter_left", 100, 70, -10, 16, 32));
}

} // namespace tilec::e2e
