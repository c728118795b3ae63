//===- AttentionCases.cpp - examples/attention.tile -----------------------===//
//
// Triton's tutorial 06 fused attention forward (`_attn_fwd` with
// `_attn_fwd_inner`), unchanged, in its block-pointer version
// (attention.tile) and its current tensor-descriptor version
// (attention_descriptor.tile): Out = softmax(Q K^T * sm_scale) V per
// batch and head, and M, the row logsumexp in base 2; STAGE 1 is
// non-causal, STAGE 3 causal.
//
//===----------------------------------------------------------------------===//

#include "../Case.h"

#include "tilec/Runtime/FloatConversion.h"

#include <algorithm>
#include <cmath>

namespace tilec::e2e {

using runtime::ScalarType;

/// Out = softmax(Q K^T * smScale) V per batch and head (causal: row i
/// sees keys 0..i) and M, the row logsumexp in base 2, in float64. V is
/// stored N_CTX x HEAD_DIM per head, or HEAD_DIM x N_CTX (`vTransposed`).
static void attentionReference(const Problem &p, Expectations &expected,
                               std::int64_t z, std::int64_t h, std::int64_t nCtx,
                               std::int64_t d, bool causal, double smScale,
                               bool vTransposed = false) {
  std::vector<double> q = p.tensor("Q").toDoubles();
  std::vector<double> k = p.tensor("K").toDoubles();
  std::vector<double> v = p.tensor("V").toDoubles();
  std::vector<double> &out = expected["Out"];
  std::vector<double> &lse = expected["M"];
  out.assign(q.size(), 0.0);
  lse.assign(static_cast<std::size_t>(z * h * nCtx), 0.0);
  std::vector<double> s(nCtx);
  for (std::int64_t bh = 0; bh < z * h; ++bh) {
    std::size_t base = bh * nCtx * d;
    for (std::int64_t i = 0; i < nCtx; ++i) {
      std::int64_t last = causal ? i + 1 : nCtx;
      double max = -INFINITY;
      for (std::int64_t j = 0; j < last; ++j) {
        double dotp = 0;
        for (std::int64_t l = 0; l < d; ++l)
          dotp += q[base + i * d + l] * k[base + j * d + l];
        s[j] = dotp * smScale;
        max = std::max(max, s[j]);
      }
      double sum = 0;
      for (std::int64_t j = 0; j < last; ++j)
        sum += s[j] = std::exp(s[j] - max);
      for (std::int64_t j = 0; j < last; ++j)
        for (std::int64_t l = 0; l < d; ++l)
          out[base + i * d + l] +=
              s[j] / sum *
              v[base + (vTransposed ? l * nCtx + j : j * d + l)];
      lse[bh * nCtx + i] = (max + std::log(sum)) / std::log(2.0);
    }
  }
}

/// The grid (one program per BLOCK_M query rows of each batch and head)
/// and the cost of an attention problem (causal: half the pairs).
static void setAttentionLaunch(Problem &p, std::int64_t z, std::int64_t h,
                               std::int64_t nCtx, std::int64_t d,
                               std::int64_t blockM, bool causal) {
  p.grid = {static_cast<unsigned>(cdiv(nCtx, blockM)),
            static_cast<unsigned>(z * h), 1};
  double pairs = double(z * h) * nCtx * nCtx * (causal ? 0.5 : 1.0);
  p.flops = 4.0 * pairs * d;
  p.bytesMoved = 2.0 * 4 * z * h * nCtx * d + 4.0 * z * h * nCtx;
}

/// The block-pointer kernel (examples/attention.tile) in fp16, or with
/// `fp8` in e5m2 as the tutorial runs it on Hopper: Q, K, V and Out fp8, V
/// stored transposed (HEAD_DIM x N_CTX per head, the K-major operand wgmma
/// reads for 8-bit types; the kernel's block pointer takes order (0, 1) for
/// it) and P rounded to e5m2 before the second dot.
static CaseSpec attention(const std::string &name, std::int64_t z,
                          std::int64_t h, std::int64_t nCtx, std::int64_t d,
                          std::int64_t blockM, std::int64_t blockN,
                          bool causal, int warps, bool large,
                          bool fp8 = false) {
  const double smScale = 0.3;
  const ScalarType type = fp8 ? ScalarType::FP8E5 : ScalarType::FP16;
  const std::string ptr = fp8 ? "*fp8e5:16" : "*fp16:16";
  CaseSpec c;
  c.name = name;
  c.family = causal ? "attention_causal" : "attention";
  c.file = "attention.tile";
  c.kernel = "_attn_fwd";
  // (Q, K, V, sm_scale, M, Out, 4 strides each of Q, K, V, Out, Z, H,
  //  N_CTX, HEAD_DIM, BLOCK_M, BLOCK_N, STAGE): contiguous Z x H x N_CTX x
  // HEAD_DIM tensors, the innermost stride the literal 1; a transposed V:
  // (stride_vz, stride_vh, stride_vk, stride_vn) = (H N D, N D, 1, N).
  std::string strides = i32Entry(h * nCtx * d) + ", " + i32Entry(nCtx * d) +
                        ", " + i32Entry(d) + ", 1, ";
  std::string vStrides = fp8 ? i32Entry(h * nCtx * d) + ", " +
                                   i32Entry(nCtx * d) + ", 1, " +
                                   i32Entry(nCtx) + ", "
                             : strides;
  c.signature = ptr + ", " + ptr + ", " + ptr + ", fp32, *fp32:16, " + ptr +
                ", " + strides + strides + vStrides + strides + i32Entry(z) +
                ", " + i32Entry(h) + ", " + i32Entry(nCtx) + ", " +
                std::to_string(d) + ", " + std::to_string(blockM) + ", " +
                std::to_string(blockN) + ", " + (causal ? "3" : "1");
  c.numWarps = warps;
  c.dtype = fp8 ? "fp8e5" : "fp16";
  c.sizes = {{"Z", z}, {"H", h}, {"N_CTX", nCtx}, {"HEAD_DIM", d}};
  c.large = large;
  c.setup = [=](Rng &rng) {
    Problem p;
    std::vector<std::int64_t> shape = {z, h, nCtx, d};
    p.input("Q", type, shape, rng, -2, 2);
    p.input("K", type, shape, rng, -2, 2);
    p.input("V", type, fp8 ? std::vector<std::int64_t>{z, h, d, nCtx} : shape,
            rng, -1, 1);
    p.scalar(runtime::KernelArg::scalar(static_cast<float>(smScale)));
    // M: fp32 from fp32 dot products (exact fp16 products) and exp2/log2.
    // With fp8 the logits come from fp8 wgmma on the GPU, whose
    // accumulator is shorter than fp32 (bench/RESULTS.md, fp8 GEMM): ~1e-4
    // relative of the row maximum (measured on the H200: 1.6e-4 of M ~
    // 19), so 1e-3 relative and 1e-2 absolute.
    p.output("M", ScalarType::FP32, {z * h, nCtx},
             fp8 ? Tolerance{1e-3, 1e-2} : Tolerance{1e-4, 1e-4});
    // Out: P is rounded to fp16 before the second dot (as in the
    // tutorial), then Out to fp16 (2^-11 relative); 1e-3 is twice that,
    // tight enough that an accumulator rescaled by 0.999 per step fails.
    // e5m2 keeps 2 mantissa bits, so with fp8 P and Out round by up to
    // 2^-3 relative; the averaged P error stays below the output's own
    // rounding. Outputs that cancel toward 0 get an absolute allowance of
    // the same order.
    p.output("Out", type, shape,
             fp8 ? Tolerance{0.15, 0.05} : Tolerance{1e-3, 1e-3});
    for (int t = 0; t < 4; ++t) {
      p.i32(h * nCtx * d);
      p.i32(nCtx * d);
      p.i32(fp8 && t == 2 ? nCtx : d);
    }
    p.i32(z);
    p.i32(h);
    p.i32(nCtx);
    setAttentionLaunch(p, z, h, nCtx, d, blockM, causal);
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    attentionReference(p, expected, z, h, nCtx, d, causal, smScale,
                       /*vTransposed=*/fp8);
  };
  return c;
}

/// The current tutorial 06 (examples/attention_descriptor.tile): tensor
/// descriptors made in the kernel from the Q, K, V, Out pointers.
static CaseSpec attentionDescriptor(const std::string &name, std::int64_t z,
                                    std::int64_t h, std::int64_t nCtx,
                                    std::int64_t d, std::int64_t blockM,
                                    std::int64_t blockN, bool causal, int warps,
                                    bool large) {
  const double smScale = 0.3;
  CaseSpec c;
  c.name = name;
  c.family = causal ? "attention_causal" : "attention";
  c.file = "attention_descriptor.tile";
  c.kernel = "_attn_fwd";
  // (sm_scale, M, Z, H, desc_q, desc_k, desc_v, desc_o, N_CTX, HEAD_DIM,
  //  BLOCK_M, BLOCK_N, FP8_OUTPUT, STAGE, warp_specialize, IS_HOPPER).
  c.signature = "fp32, *fp32:16, " + i32Entry(z) + ", " + i32Entry(h) +
                ", *fp16:16, *fp16:16, *fp16:16, *fp16:16, " + i32Entry(nCtx) +
                ", " + std::to_string(d) + ", " + std::to_string(blockM) + ", " +
                std::to_string(blockN) + ", 0, " + (causal ? "3" : "1") +
                ", 0, 1";
  c.numWarps = warps;
  c.dtype = "fp16";
  c.sizes = {{"Z", z}, {"H", h}, {"N_CTX", nCtx}, {"HEAD_DIM", d}};
  c.large = large;
  c.setup = [=](Rng &rng) {
    Problem p;
    std::vector<std::int64_t> shape = {z, h, nCtx, d};
    p.scalar(runtime::KernelArg::scalar(static_cast<float>(smScale)));
    p.output("M", ScalarType::FP32, {z * h, nCtx}, {1e-4, 1e-4});
    p.i32(z);
    p.i32(h);
    p.input("Q", ScalarType::FP16, shape, rng, -2, 2);
    p.input("K", ScalarType::FP16, shape, rng, -2, 2);
    p.input("V", ScalarType::FP16, shape, rng, -1, 1);
    // As in attention(): P and Out are rounded to fp16.
    p.output("Out", ScalarType::FP16, shape, {1e-3, 1e-3});
    p.i32(nCtx);
    setAttentionLaunch(p, z, h, nCtx, d, blockM, causal);
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    attentionReference(p, expected, z, h, nCtx, d, causal, smScale);
  };
  return c;
}

/// examples/ops/attention_two_pv.tile's `two_pv` (issue 12's
/// intra-warpgroup overlap on a loop with a second P V): per program the
/// `block` rows of Q, per key block j S = Q K_j^T, m the running row max
/// from 0, P = exp2(S - m); O1 = sum_j exp2(S_j - m_final) V_j (the rescaled
/// accumulator), O2 = sum_j exp2(S_j - m_j) V_j (no rescale). Two stages:
/// the loop the review found the rewrite's release order wrong on. With
/// `carried` the kernel `carried` instead: O2 = sum_j 2^-(n - 1 - j) S_j
/// over the n key blocks (a dot in flight across the back edge; block ==
/// d).
static CaseSpec attentionTwoPv(const std::string &name, std::int64_t nCtx,
                               std::int64_t block, std::int64_t d,
                               bool carried = false) {
  CaseSpec c;
  c.name = name;
  c.family = "attention_two_pv"; // no torch counterpart
  c.file = "ops/attention_two_pv.tile";
  c.kernel = carried ? "carried" : "two_pv";
  c.signature = "*fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, " +
                i32Entry(nCtx) + ", " + std::to_string(block) + ", " +
                std::to_string(d);
  c.numWarps = 4;
  c.numStages = 2;
  c.dtype = "fp16->fp32";
  c.sizes = {{"N_CTX", nCtx}, {"BLOCK", block}, {"D", d}};
  c.setup = [=](Rng &rng) {
    Problem p;
    p.input("Q", ScalarType::FP16, {nCtx, d}, rng, -0.5, 0.5);
    p.input("K", ScalarType::FP16, {nCtx, d}, rng, -0.5, 0.5);
    p.input("V", ScalarType::FP16, {nCtx, d}, rng, -1, 1);
    // The reference rounds P to fp16 as the kernel does; what is left is
    // fp32 accumulation and the fp32 logits.
    p.output("O1", ScalarType::FP32, {nCtx, d}, {1e-3, 1e-3});
    p.output("O2", ScalarType::FP32, {nCtx, d}, {1e-3, 1e-3});
    p.i32(nCtx);
    p.grid = {static_cast<unsigned>(cdiv(nCtx, block)), 1, 1};
    p.flops = 6.0 * nCtx * nCtx * d;
    p.bytesMoved = 2.0 * 3 * nCtx * d + 8.0 * nCtx * d;
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    std::vector<double> q = p.tensor("Q").toDoubles();
    std::vector<double> k = p.tensor("K").toDoubles();
    std::vector<double> v = p.tensor("V").toDoubles();
    std::vector<double> &o1 = expected["O1"], &o2 = expected["O2"];
    o1.assign(q.size(), 0.0);
    o2.assign(q.size(), 0.0);
    std::vector<double> s(nCtx), mAt(nCtx);
    for (std::int64_t i = 0; i < nCtx; ++i) {
      double m = 0;
      for (std::int64_t j = 0; j < nCtx; ++j) {
        double dotp = 0;
        for (std::int64_t l = 0; l < d; ++l)
          dotp += q[i * d + l] * k[j * d + l];
        s[j] = dotp;
      }
      // The running max after each key block.
      for (std::int64_t j0 = 0; j0 < nCtx; j0 += block) {
        for (std::int64_t j = j0; j < std::min(nCtx, j0 + block); ++j)
          m = std::max(m, s[j]);
        for (std::int64_t j = j0; j < std::min(nCtx, j0 + block); ++j)
          mAt[j] = m;
      }
      // P as the kernel rounds it (fp16, before the dots); O1's later
      // rescales telescope to exp2(m_j - m_final).
      for (std::int64_t j = 0; j < nCtx; ++j) {
        double pj = runtime::halfBitsToFloat(runtime::floatToHalfBits(
            static_cast<float>(std::exp2(s[j] - mAt[j]))));
        for (std::int64_t l = 0; l < d; ++l) {
          o1[i * d + l] += pj * std::exp2(mAt[j] - m) * v[j * d + l];
          if (!carried)
            o2[i * d + l] += pj * v[j * d + l];
        }
        if (carried)
          o2[i * d + j % block] +=
              std::ldexp(s[j], -static_cast<int>(cdiv(nCtx, block) - 1 - j / block));
      }
    }
  };
  return c;
}

void addAttentionCases(std::vector<CaseSpec> &cases) {
  // Non-causal (STAGE 1): every key block for every query block.
  cases.push_back(attention("attention_small", 2, 3, 128, 64, 64, 32, false,
                            4, false));
  // Causal (STAGE 3): blocks below the diagonal, then the masked diagonal
  // block; 16-row blocks (mma.sync on the GPU).
  cases.push_back(attention("attention_causal_small", 1, 3, 96, 32, 32, 16,
                            true, 4, false));
  cases.push_back(attention("attention_blocks16", 2, 1, 48, 16, 16, 16, false,
                            4, false));
  // The tutorial's Hopper shape: 128 x 64 blocks, head dim 64.
  cases.push_back(attention("attention_1024", 4, 8, 1024, 64, 128, 64, false,
                            8, true));
  cases.push_back(attention("attention_causal_1024", 4, 8, 1024, 64, 128, 64,
                            true, 8, true));
  // Head dim 128: K and V blocks two 128-byte swizzle rows wide, what
  // --num-ctas 2 multicasts (an even number of query blocks per head).
  cases.push_back(attention("attention_d128_small", 1, 2, 256, 128, 64, 64,
                            false, 4, false));
  cases.push_back(attention("attention_d128_1024", 2, 4, 1024, 128, 128, 128,
                            false, 8, true));
  // Causal at head dim 128 (the benchmark's shape), warp-specialized: the
  // second loop continues the first one's rings (tilegpu-pipeline), so the
  // producer runs from one loop's copies into the next's.
  cases.push_back(attention("attention_causal_d128_1024", 2, 4, 1024, 128, 128,
                            128, true, 8, true));
  // Persistent (tilegpu-persistent): each CTA loops over programs, its
  // producer copying the next program's Q, K and V blocks while the
  // consumers finish this one (the K and V rings continued across the loop
  // over programs, Q's buffer released after the loop's last dot): 64
  // programs (one each on a 132-SM GPU), 256 (two or more a CTA: the
  // rings' phases and Q's release run on from program to program), 256 of
  // 2 iterations each (fewer than the 3 stages), 12 unsplit. Causal
  // attention is left as it is (its programs run different numbers of
  // iterations): compiled with --persistent, it must still run.
  {
    CaseSpec persistent = attention("attention_persistent_d128_1024", 2, 4, 1024,
                                    128, 128, 128, false, 8, true);
    persistent.tilecOptions = {"--persistent"};
    cases.push_back(persistent);
    CaseSpec rounds = attention("attention_persistent_rounds_1024", 4, 8, 1024,
                                128, 128, 128, false, 8, true);
    rounds.tilecOptions = {"--persistent"};
    cases.push_back(rounds);
    CaseSpec shortLoops = attention("attention_persistent_short_256", 2, 64, 256,
                                    128, 128, 128, false, 8, true);
    shortLoops.tilecOptions = {"--persistent"};
    cases.push_back(shortLoops);
    CaseSpec causal = attention("attention_persistent_refused_causal_2048", 2, 4,
                                2048, 128, 128, 128, true, 8, true);
    causal.tilecOptions = {"--persistent"};
    cases.push_back(causal);
    CaseSpec small = attention("attention_persistent_small", 2, 3, 128, 64, 64,
                               32, false, 4, false);
    small.tilecOptions = {"--persistent"};
    cases.push_back(small);
  }
  // O through shared memory by TMA (tilegpu-store-via-tma): in the loop
  // over programs the staging buffer is reused by each program, after the
  // previous program's copy has read it (two stages make room at head dim
  // 128); small, not persistent: one copy at the end.
  {
    CaseSpec rounds = attention("attention_persistent_tma_store_1024", 4, 8, 1024,
                                128, 128, 128, false, 8, true);
    rounds.tilecOptions = {"--persistent", "--tma-store"};
    rounds.numStages = 2;
    cases.push_back(rounds);
    CaseSpec small = attention("attention_tma_store_small", 2, 3, 128, 64, 64, 32,
                               false, 4, false);
    small.tilecOptions = {"--tma-store"};
    cases.push_back(small);
  }
  // fp8 e5m2 with V transposed (the tutorial's Hopper fp8 path).
  cases.push_back(attention("attention_fp8_small", 2, 3, 128, 64, 64, 32,
                            false, 4, false, /*fp8=*/true));
  cases.push_back(attention("attention_fp8_causal_small", 1, 3, 128, 64, 64,
                            32, true, 4, false, /*fp8=*/true));
  cases.push_back(attention("attention_fp8_1024", 4, 8, 1024, 64, 128, 64,
                            false, 8, true, /*fp8=*/true));
  // The current tutorial: descriptors made in the kernel.
  cases.push_back(attentionDescriptor("attention_desc_small", 2, 3, 128, 64, 64,
                                      32, false, 4, false));
  cases.push_back(attentionDescriptor("attention_desc_causal_small", 1, 3, 96,
                                      32, 32, 16, true, 4, false));
  cases.push_back(attentionDescriptor("attention_desc_1024", 4, 8, 1024, 64,
                                      128, 64, false, 8, true));
  cases.push_back(attentionDescriptor("attention_desc_causal_1024", 4, 8, 1024,
                                      64, 128, 64, true, 8, true));
  cases.push_back(attentionDescriptor("attention_desc_d128_small", 1, 2, 256,
                                      128, 64, 64, false, 4, false));
  // A second P V beside the rescaled one, two stages.
  cases.push_back(attentionTwoPv("attention_two_pv_small", 256, 64, 64));
  cases.push_back(attentionTwoPv("attention_carried_dot_small", 256, 64, 64,
                                 /*carried=*/true));
}

} // namespace tilec::e2e
