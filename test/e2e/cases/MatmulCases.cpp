//===- MatmulCases.cpp - examples/matmul.tile -----------------------------===//

#include "../Case.h"

namespace tilec::e2e {

using runtime::ScalarType;

/// The operands' element type and B's storage order.
struct Operands {
  ScalarType dtype = ScalarType::FP16;
  /// B stored column-major (as B^T, N x K row-major: stride_bk = 1,
  /// stride_bn = K), the order wgmma reads 8-bit and tf32 B in.
  bool bColumnMajor = false;
};

static CaseSpec matmul(const std::string &name, std::int64_t m,
                       std::int64_t n, std::int64_t k, std::int64_t blockM,
                       std::int64_t blockN, std::int64_t blockK,
                       std::int64_t group, int warps, bool large,
                       Operands operands = {}) {
  CaseSpec c;
  c.name = name;
  c.family = "matmul";
  c.file = "matmul.tile";
  c.kernel = "matmul_kernel";
  std::string type = runtime::scalarTypeName(operands.dtype);
  bool colB = operands.bColumnMajor;
  // (a, b, c, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
  //  stride_cm, stride_cn, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_SIZE_M): the
  // unit strides are specialized as the literal 1.
  std::string bStrides = colB ? "1, " + i32Entry(k) : i32Entry(n) + ", 1";
  c.signature = "*" + type + ":16, *" + type + ":16, *fp32:16, " + i32Entry(m) +
                ", " + i32Entry(n) + ", " + i32Entry(k) + ", " + i32Entry(k) +
                ", 1, " + bStrides + ", " + i32Entry(n) + ", 1, " +
                std::to_string(blockM) + ", " + std::to_string(blockN) + ", " +
                std::to_string(blockK) + ", " + std::to_string(group);
  c.numWarps = warps;
  c.dtype = type + (colB ? " (B col-major)" : "") + "->fp32" +
            (operands.dtype == ScalarType::FP32 ? " (tf32 dot)" : "");
  c.sizes = {{"M", m}, {"N", n}, {"K", k}};
  c.large = large;
  // fp16: fp32 accumulation of exact products; tf32 rounds the inputs; fp8
  // products are exact but Hopper's fp8 wgmma adds them with a shorter
  // accumulator than fp32.
  bool fp8 = runtime::scalarTypeSize(operands.dtype) == 1;
  double rtol = operands.dtype == ScalarType::FP32 ? kRtolTf32
                : fp8                              ? kRtolFp8Dot
                                                   : kRtolFp16;
  std::int64_t bytes = static_cast<std::int64_t>(runtime::scalarTypeSize(operands.dtype));
  c.setup = [=](Rng &rng) {
    Problem p;
    p.input("a", operands.dtype, {m, k}, rng, -1, 1);
    p.input("b", operands.dtype, colB ? std::vector<std::int64_t>{n, k}
                                      : std::vector<std::int64_t>{k, n},
            rng, -1, 1);
    p.output("c", ScalarType::FP32, {m, n}, {rtol, rtol * dotScale(k)});
    p.i32(m);
    p.i32(n);
    p.i32(k);
    p.i32(k);                // stride_am
    p.i32(colB ? k : n);     // stride_bn (col-major B) or stride_bk
    p.i32(n);                // stride_cm
    p.grid = {static_cast<unsigned>(cdiv(m, blockM) * cdiv(n, blockN)), 1, 1};
    p.flops = 2.0 * m * n * k;
    p.bytesMoved = double(bytes) * (m * k + k * n) + 4.0 * m * n;
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
          orow[j] += ail * (colB ? b[j * k + l] : b[l * n + j]);
      }
  };
  return c;
}

void addMatmulCases(std::vector<CaseSpec> &cases) {
  // GROUP_SIZE_M = 1 takes the kernel's plain (static else) ordering.
  cases.push_back(matmul("matmul_small", 77, 50, 100, 64, 64, 32, 1, 4,
                         false));
  cases.push_back(matmul("matmul_1024", 1024, 1024, 1024, 128, 128, 64, 8, 8,
                         true));
  // The TMA path with boxes hanging over every edge: rows of 208 and 144
  // halfs are 16-byte aligned (i32:16), M, N and K are not multiples of the
  // blocks, so the copies zero-fill; 3 stages over 4 K steps.
  cases.push_back(matmul("matmul_tma_small", 200, 144, 208, 128, 128, 64, 1, 4,
                         false));
  cases.push_back(matmul("matmul_tma_edges", 1000, 1040, 1008, 128, 256, 64, 8,
                         8, true));
  // Persistent (tilegpu-persistent): the K loop's rings continue from one
  // program (output block) to the next; 8 x 9 = 72 programs over edges,
  // 2048 x 2048 x 1024 in 128 x 256 blocks, warp-specialized: 128 programs.
  {
    CaseSpec edges = matmul("matmul_persistent_edges", 1000, 1040, 1008, 128,
                            128, 64, 8, 8, true);
    edges.tilecOptions = {"--persistent"};
    cases.push_back(edges);
    CaseSpec big = matmul("matmul_persistent_2048", 2048, 2048, 1024, 128, 256,
                          64, 8, 8, true);
    big.tilecOptions = {"--persistent"};
    cases.push_back(big);
    // 256 programs of 4 K steps: two rounds or more per CTA.
    CaseSpec rounds = matmul("matmul_persistent_rounds", 2048, 2048, 256, 128,
                             128, 64, 8, 8, true);
    rounds.tilecOptions = {"--persistent"};
    cases.push_back(rounds);
  }
  // C through shared memory by TMA (tilegpu-store-via-tma): the edges'
  // rows and columns past M and N are not written (the TMA box clips at
  // the tensor's sizes, the mask's bounds); persistent: the staging buffer
  // reused program after program.
  {
    CaseSpec edges = matmul("matmul_tma_store_edges", 1000, 1040, 1008, 128, 128,
                            64, 8, 8, true);
    edges.tilecOptions = {"--tma-store"};
    cases.push_back(edges);
    CaseSpec rounds = matmul("matmul_persistent_tma_store_edges", 1000, 1040, 1008,
                             128, 128, 64, 8, 8, true);
    rounds.tilecOptions = {"--persistent", "--tma-store"};
    cases.push_back(rounds);
  }
  // K unsigned (u32:16): the K loop compares its bounds unsigned, which
  // tilegpu-pipeline leaves single-stage (TMA copies and wgmma, one copy
  // in flight) with a remark.
  {
    CaseSpec u = matmul("matmul_unsigned_k", 1000, 1040, 1008, 128, 128, 64, 8, 8, true);
    // The sixth entry, K's: "i32:16" -> "u32:16".
    std::size_t at = 0;
    for (int i = 0; i < 5; ++i)
      at = u.signature.find(", ", at) + 2;
    u.signature.replace(at, 3, "u32");
    cases.push_back(u);
  }
  // Rows of B and C are 997 halfs / floats: not 16-byte aligned, so no TMA.
  cases.push_back(matmul("matmul_ragged", 1531, 997, 1000, 128, 128, 64, 8, 8,
                         true));
  // Hopper operand orders and types beyond f16 x row-major B: B column-major
  // (its TMA box and shared tile are the block transposed, wgmma reads it
  // K-major), fp8 e4m3 (k32 wgmma; B must be K-major: through TMA when
  // column-major, else through registers stored transposed) and tf32.
  cases.push_back(matmul("matmul_bt_tma", 200, 144, 208, 128, 128, 64, 1, 4,
                         false, {ScalarType::BF16, true}));
  cases.push_back(matmul("matmul_fp8_tma", 200, 144, 208, 128, 128, 64, 1, 4,
                         false, {ScalarType::FP8E4NV, true}));
  cases.push_back(matmul("matmul_fp8_regs", 200, 144, 208, 128, 128, 64, 1, 4,
                         false, {ScalarType::FP8E4NV, false}));
  cases.push_back(matmul("matmul_tf32_tma", 200, 144, 208, 64, 64, 32, 1, 4,
                         false, {ScalarType::FP32, true}));
  // 32-row blocks are too small for wgmma: mma.sync.m16n8k16 (2x2 warps),
  // ragged edges; bf16 with 16x128 blocks (1x4 warps along N).
  cases.push_back(matmul("matmul_mma_sync", 77, 50, 100, 32, 64, 32, 1, 4,
                         false));
  cases.push_back(matmul("matmul_mma_sync_bf16", 77, 200, 96, 16, 128, 32, 1, 4,
                         false, {ScalarType::BF16, false}));
  cases.push_back(matmul("matmul_fp8_edges", 1000, 1040, 1008, 128, 256, 128, 8,
                         8, true, {ScalarType::FP8E4NV, true}));
  // With --num-ctas 2 (the GPU checks), neighbouring programs share B's
  // block where the grouped order gives them one column of blocks: 11
  // blocks of M make a last group of 3, where programs 2k and 2k + 1 of
  // the group get different columns every other time (each copies its
  // own B) and the same ones the others (multicast); 44 programs.
  cases.push_back(matmul("matmul_cluster_tail", 1300, 1024, 320, 128, 256, 64,
                         8, 8, false));
}

} // namespace tilec::e2e
