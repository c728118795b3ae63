//===- MatmulGroupedCases.cpp - examples/matmul_grouped.tile --------------===//
//
// Triton's tutorial 03 `matmul_kernel`, unchanged: tiles of pointers
// advanced along K, masks on K, rows/columns wrapped (% M, % N) on the
// loads, grouped program order, fp16 output, optional leaky_relu.
//
//===----------------------------------------------------------------------===//

#include "../Case.h"

namespace tilec::e2e {

using runtime::ScalarType;

static CaseSpec matmulGrouped(const std::string &name, std::int64_t m,
                              std::int64_t n, std::int64_t k,
                              std::int64_t blockM, std::int64_t blockN,
                              std::int64_t blockK, std::int64_t group,
                              bool leakyRelu, int warps, bool large) {
  CaseSpec c;
  c.name = name;
  c.family = leakyRelu ? "matmul_leaky_relu" : "matmul_fp16";
  c.file = "matmul_grouped.tile";
  c.kernel = "matmul_kernel";
  // (a, b, c, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
  //  stride_cm, stride_cn, BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K,
  //  GROUP_SIZE_M, ACTIVATION): row-major, unit strides as the literal 1.
  c.signature = "*fp16:16, *fp16:16, *fp16:16, " + i32Entry(m) + ", " +
                i32Entry(n) + ", " + i32Entry(k) + ", " + i32Entry(k) +
                ", 1, " + i32Entry(n) + ", 1, " + i32Entry(n) + ", 1, " +
                std::to_string(blockM) + ", " + std::to_string(blockN) + ", " +
                std::to_string(blockK) + ", " + std::to_string(group) + ", " +
                (leakyRelu ? "'leaky_relu'" : "''");
  c.numWarps = warps;
  c.dtype = "fp16->fp16";
  c.sizes = {{"M", m}, {"N", n}, {"K", k}};
  c.large = large;
  c.setup = [=](Rng &rng) {
    Problem p;
    p.input("a", ScalarType::FP16, {m, k}, rng, -1, 1);
    p.input("b", ScalarType::FP16, {k, n}, rng, -1, 1);
    // fp16 output: fp32 accumulation rounded once to fp16.
    p.output("c", ScalarType::FP16, {m, n},
             {kRtolFp16, kRtolFp16 * dotScale(k)});
    p.i32(m);
    p.i32(n);
    p.i32(k);
    p.i32(k); // stride_am
    p.i32(n); // stride_bk
    p.i32(n); // stride_cm
    p.grid = {static_cast<unsigned>(cdiv(m, blockM) * cdiv(n, blockN)), 1, 1};
    p.flops = 2.0 * m * n * k;
    p.bytesMoved = 2.0 * (m * k + k * n + m * n);
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    std::vector<double> a = p.tensor("a").toDoubles();
    std::vector<double> b = p.tensor("b").toDoubles();
    std::vector<double> &out = expected["c"];
    out.assign(static_cast<std::size_t>(m * n), 0.0);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t l = 0; l < k; ++l) {
        double ail = a[i * k + l];
        double *orow = &out[i * n];
        for (std::int64_t j = 0; j < n; ++j)
          orow[j] += ail * b[l * n + j];
      }
    if (leakyRelu)
      for (double &v : out)
        v = v >= 0 ? v : 0.01 * v;
  };
  return c;
}

void addMatmulGroupedCases(std::vector<CaseSpec> &cases) {
  // 10 x 7 tiles in groups of 8 rows: a full group and a ragged one of 2
  // (the `min` in the grouping); K = 100 masks the last K step.
  cases.push_back(matmulGrouped("matmul_grouped_small", 300, 200, 100, 32, 32,
                                32, 8, false, 4, false));
  cases.push_back(matmulGrouped("matmul_grouped_leaky_relu", 77, 50, 100, 32,
                                32, 32, 4, true, 4, false));
  // The tutorial's first Hopper config (wgmma-sized blocks), ragged edges.
  cases.push_back(matmulGrouped("matmul_grouped_wgmma", 200, 144, 208, 128,
                                128, 64, 8, true, 8, false));
  cases.push_back(matmulGrouped("matmul_grouped_1024", 1024, 1024, 1024, 128,
                                256, 64, 8, false, 8, true));
  // One K step (a 3-stage pipeline with one iteration); rows and columns
  // past M and N wrap (% M) in the source and read zeros through TMA.
  cases.push_back(matmulGrouped("matmul_grouped_k64", 200, 144, 64, 128, 128,
                                64, 8, true, 8, false));
}

} // namespace tilec::e2e
