//===- MatmulDescriptorCases.cpp - examples/matmul_descriptor.tile --------===//

#include "../Case.h"

namespace tilec::e2e {

using runtime::ScalarType;

static CaseSpec matmulDescriptor(const std::string &name, std::int64_t m,
                                 std::int64_t n, std::int64_t k,
                                 std::int64_t blockM, std::int64_t blockN,
                                 std::int64_t blockK, std::int64_t group,
                                 int warps, bool large) {
  CaseSpec c;
  c.name = name;
  c.family = "matmul";
  c.file = "matmul_descriptor.tile";
  c.kernel = "matmul_descriptor_kernel";
  // (a, b, c, M, N, K, stride_am, stride_bk, stride_cm, BLOCK_M, BLOCK_N,
  //  BLOCK_K, GROUP_SIZE_M), all row-major (the descriptors' last strides
  // are the literal 1 in the kernel).
  c.signature = "*fp16:16, *fp16:16, *fp32:16, " + i32Entry(m) + ", " +
                i32Entry(n) + ", " + i32Entry(k) + ", " + i32Entry(k) + ", " +
                i32Entry(n) + ", " + i32Entry(n) + ", " +
                std::to_string(blockM) + ", " + std::to_string(blockN) + ", " +
                std::to_string(blockK) + ", " + std::to_string(group);
  c.numWarps = warps;
  c.dtype = "fp16->fp32";
  c.sizes = {{"M", m}, {"N", n}, {"K", k}};
  c.large = large;
  c.setup = [=](Rng &rng) {
    Problem p;
    p.input("a", ScalarType::FP16, {m, k}, rng, -1, 1);
    p.input("b", ScalarType::FP16, {k, n}, rng, -1, 1);
    p.output("c", ScalarType::FP32, {m, n},
             {kRtolFp16, kRtolFp16 * dotScale(k)});
    p.i32(m);
    p.i32(n);
    p.i32(k);
    p.i32(k); // stride_am
    p.i32(n); // stride_bk
    p.i32(n); // stride_cm
    p.grid = {static_cast<unsigned>(cdiv(m, blockM) * cdiv(n, blockN)), 1, 1};
    p.flops = 2.0 * m * n * k;
    p.bytesMoved = 2.0 * m * k + 2.0 * k * n + 4.0 * m * n;
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
        const double *brow = &b[l * n];
        double *orow = &out[i * n];
        for (std::int64_t j = 0; j < n; ++j)
          orow[j] += ail * brow[j];
      }
  };
  return c;
}

void addMatmulDescriptorCases(std::vector<CaseSpec> &cases) {
  // Ragged and small: rows of 100 halfs and 50 floats are not 16-byte
  // aligned, so the descriptor loads are masked loads (no TMA); every block
  // hangs over an edge, whose elements must read as zero and not be stored.
  cases.push_back(matmulDescriptor("matmul_desc_small", 77, 50, 100, 64, 64,
                                   32, 1, 4, false));
  // The TMA path (16-byte aligned rows, i32:16) with boxes hanging over
  // every edge: the copies zero-fill; 4 K steps.
  cases.push_back(matmulDescriptor("matmul_desc_tma_small", 200, 144, 208,
                                   128, 128, 64, 1, 4, false));
  // 1024-ish, grouped program ids, 8 warps on 128x256 tiles; M, N and K
  // are not multiples of the blocks.
  cases.push_back(matmulDescriptor("matmul_desc_tma_edges", 1000, 1040, 1008,
                                   128, 256, 64, 8, 8, true));
  cases.push_back(matmulDescriptor("matmul_desc_1024", 1024, 1024, 1024, 128,
                                   128, 64, 8, 8, true));
}

} // namespace tilec::e2e
