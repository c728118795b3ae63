//===- MatmulEpilogueCases.cpp - examples/matmul_epilogue.tile ------------===//
//
// The Hopper pipeline with other work in the loop (a second read of A and
// row sums), B loaded before A, and a fused epilogue (bias, relu, fp16);
// each shape at --num-stages 3 and 1, which must give the same results.
//
//===----------------------------------------------------------------------===//

#include "../Case.h"

#include <algorithm>

namespace tilec::e2e {

using runtime::ScalarType;

static CaseSpec matmulEpilogue(const std::string &name, std::int64_t m,
                               std::int64_t n, std::int64_t k, int stages,
                               bool large) {
  const std::int64_t blockM = 128, blockN = 128, blockK = 64;
  CaseSpec c;
  c.name = name;
  c.family = "matmul_epilogue";
  c.file = "matmul_epilogue.tile";
  c.kernel = "matmul_epilogue_kernel";
  // (a, b, bias, c, rowsum, M, N, K, stride_am, stride_bk, stride_cm,
  //  BLOCK_M, BLOCK_N, BLOCK_K)
  c.signature = "*fp16:16, *fp16:16, *fp32:16, *fp16:16, *fp32:16, " +
                i32Entry(m) + ", " + i32Entry(n) + ", " + i32Entry(k) + ", " +
                i32Entry(k) + ", " + i32Entry(n) + ", " + i32Entry(n) + ", " +
                std::to_string(blockM) + ", " + std::to_string(blockN) + ", " +
                std::to_string(blockK);
  c.numWarps = 4;
  c.numStages = stages;
  c.dtype = "fp16->fp16";
  c.sizes = {{"M", m}, {"N", n}, {"K", k}};
  c.large = large;
  c.setup = [=](Rng &rng) {
    Problem p;
    p.input("a", ScalarType::FP16, {m, k}, rng, -1, 1);
    p.input("b", ScalarType::FP16, {k, n}, rng, -1, 1);
    p.input("bias", ScalarType::FP32, {n}, rng, -1, 1);
    // C is rounded to fp16 once: half an fp16 ulp on top of the dot's error,
    // and at least half the subnormal spacing (2^-25) near zero: with K = 0,
    // C is relu(bias) alone (no absolute error from the dot), and a bias of
    // 6.4e-7 rounds to the subnormal 6.6e-7 (a run on the H100 failed so).
    p.output("c", ScalarType::FP16, {m, n},
             {kRtolFp16, std::max(kRtolFp16 * dotScale(k), 0x1p-25)});
    p.output("rowsum", ScalarType::FP32, {m}, {kRtolFp32Long, 1e-5 * dotScale(k)});
    p.i32(m);
    p.i32(n);
    p.i32(k);
    p.i32(k); // stride_am
    p.i32(n); // stride_bk
    p.i32(n); // stride_cm
    p.grid = {static_cast<unsigned>(cdiv(m, blockM)),
              static_cast<unsigned>(cdiv(n, blockN)), 1};
    p.flops = 2.0 * m * n * k;
    p.bytesMoved = 2.0 * m * k * 2 + 2.0 * k * n + 2.0 * m * n;
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    std::vector<double> a = p.tensor("a").toDoubles();
    std::vector<double> b = p.tensor("b").toDoubles();
    std::vector<double> bias = p.tensor("bias").toDoubles();
    std::vector<double> &out = expected["c"];
    std::vector<double> &rowsum = expected["rowsum"];
    out.assign(static_cast<std::size_t>(m * n), 0.0);
    rowsum.assign(static_cast<std::size_t>(m), 0.0);
    for (std::int64_t i = 0; i < m; ++i) {
      double *orow = &out[i * n];
      for (std::int64_t l = 0; l < k; ++l) {
        double ail = a[i * k + l];
        rowsum[i] += ail;
        for (std::int64_t j = 0; j < n; ++j)
          orow[j] += ail * b[l * n + j];
      }
      for (std::int64_t j = 0; j < n; ++j)
        orow[j] = std::max(orow[j] + bias[j], 0.0);
    }
  };
  return c;
}

void addMatmulEpilogueCases(std::vector<CaseSpec> &cases) {
  // Ragged in M and N (TMA zero fill, masked epilogue stores), 4 K steps.
  cases.push_back(matmulEpilogue("matmul_epilogue_pipelined", 200, 144, 256, 3,
                                 false));
  cases.push_back(matmulEpilogue("matmul_epilogue_one_stage", 200, 144, 256, 1,
                                 false));
  cases.push_back(matmulEpilogue("matmul_epilogue_edges", 1000, 1040, 1008, 3,
                                 true));
  // Trip counts 0, 1 and 2 of a 3-stage pipeline: K = 0 is the epilogue
  // alone (relu of the bias), K = 64 and 128 fewer iterations than stages.
  cases.push_back(matmulEpilogue("matmul_epilogue_k0", 200, 144, 0, 3, false));
  cases.push_back(matmulEpilogue("matmul_epilogue_k64", 200, 144, 64, 3, false));
  cases.push_back(matmulEpilogue("matmul_epilogue_k128", 200, 144, 128, 3,
                                 false));
}

} // namespace tilec::e2e
