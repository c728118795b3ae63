//===- AttentionBackwardCases.cpp - the attention backward examples ------===//
//
// Triton's tutorial 06 fused attention backward, unchanged
// (examples/attention_backward.tile): the preprocess (Delta = rowsum(Out *
// dO)) and `_attn_bwd` (dQ, dK, dV of causal attention from Q, K pre-scaled
// by sm_scale / ln 2, V, dO, the forward's base-2 logsumexp M and Delta);
// and FlashAttention-2's one sweep (examples/attention_backward_atomic.tile:
// dQ / ln 2 added into a zeroed fp32 buffer, causal or not, and its
// conversion), checked against the gradients computed in float64 from the
// math.
//
//===----------------------------------------------------------------------===//

#include "../Case.h"

#include <algorithm>
#include <cmath>

namespace tilec::e2e {

using runtime::ScalarType;

namespace {

/// Float64 attention of one problem, in the backward kernel's terms:
/// logits Q Ks^T in base 2 (Ks = K * sm_scale / ln 2, what the kernel is
/// given), P = 2^(logits - M) row-wise, Out = P V; causal (row i sees keys
/// 0..i) unless told otherwise.
struct CausalAttention {
  std::int64_t bh, nCtx, d;
  std::vector<double> q, ks, v, dO;
  std::vector<double> p;     ///< bh x nCtx x nCtx, 0 above the diagonal.
  std::vector<double> lse2;  ///< bh x nCtx: M, the base-2 logsumexp.
  std::vector<double> delta; ///< bh x nCtx: rowsum(Out * dO).
  bool causal = true;

  /// The last key row `i` sees.
  std::int64_t lastKey(std::int64_t i) const { return causal ? i : nCtx - 1; }

  void run() {
    p.assign(bh * nCtx * nCtx, 0.0);
    lse2.assign(bh * nCtx, 0.0);
    delta.assign(bh * nCtx, 0.0);
    for (std::int64_t b = 0; b < bh; ++b) {
      const std::size_t t = b * nCtx * d;
      for (std::int64_t i = 0; i < nCtx; ++i) {
        double *row = &p[(b * nCtx + i) * nCtx];
        double max = -INFINITY;
        for (std::int64_t j = 0; j <= lastKey(i); ++j) {
          double s = 0;
          for (std::int64_t l = 0; l < d; ++l)
            s += q[t + i * d + l] * ks[t + j * d + l];
          row[j] = s;
          max = std::max(max, s);
        }
        double sum = 0;
        for (std::int64_t j = 0; j <= lastKey(i); ++j)
          sum += std::exp2(row[j] - max);
        double m = max + std::log2(sum);
        lse2[b * nCtx + i] = m;
        for (std::int64_t j = 0; j <= lastKey(i); ++j)
          row[j] = std::exp2(row[j] - m);
        double dsum = 0;
        for (std::int64_t l = 0; l < d; ++l) {
          double out = 0;
          for (std::int64_t j = 0; j <= lastKey(i); ++j)
            out += row[j] * v[t + j * d + l];
          dsum += out * dO[t + i * d + l];
        }
        delta[b * nCtx + i] = dsum;
      }
    }
  }

  /// dQ, dK, dV (each bh x nCtx x d) for dO, after run().
  void gradients(double smScale, std::vector<double> &dq, std::vector<double> &dk,
                 std::vector<double> &dv) const {
    dq.assign(q.size(), 0.0);
    dk.assign(q.size(), 0.0);
    dv.assign(q.size(), 0.0);
    std::vector<double> ds(nCtx);
    for (std::int64_t b = 0; b < bh; ++b) {
      const std::size_t t = b * nCtx * d;
      for (std::int64_t i = 0; i < nCtx; ++i) {
        const double *row = &p[(b * nCtx + i) * nCtx];
        // dS[i, j] = P[i, j] * (dO[i] . V[j] - Delta[i]).
        for (std::int64_t j = 0; j <= lastKey(i); ++j) {
          double dp = 0;
          for (std::int64_t l = 0; l < d; ++l)
            dp += dO[t + i * d + l] * v[t + j * d + l];
          ds[j] = row[j] * (dp - delta[b * nCtx + i]);
        }
        for (std::int64_t j = 0; j <= lastKey(i); ++j)
          for (std::int64_t l = 0; l < d; ++l) {
            dv[t + j * d + l] += row[j] * dO[t + i * d + l];
            // With K = Ks * ln 2 / sm_scale: dQ = dS K sm_scale = dS Ks ln 2,
            // dK = dS^T Q sm_scale.
            dq[t + i * d + l] += ds[j] * ks[t + j * d + l] * std::log(2.0);
            dk[t + j * d + l] += ds[j] * q[t + i * d + l] * smScale;
          }
      }
    }
  }
};

} // namespace

/// Delta[bh, i] = sum_d Out[bh, i, d] * dO[bh, i, d] (preprocess kernel).
static CaseSpec attentionBwdPreprocess(const std::string &name, std::int64_t z,
                                       std::int64_t h, std::int64_t nCtx,
                                       std::int64_t d, std::int64_t blockM) {
  CaseSpec c;
  c.name = name;
  c.family = "attention_bwd_preprocess";
  c.file = "attention_backward.tile";
  c.kernel = "_attn_bwd_preprocess";
  // (O, DO, Delta, Z, H, N_CTX, BLOCK_M, HEAD_DIM)
  c.signature = "*fp16:16, *fp16:16, *fp32:16, " + i32Entry(z) + ", " +
                i32Entry(h) + ", " + i32Entry(nCtx) + ", " +
                std::to_string(blockM) + ", " + std::to_string(d);
  c.numWarps = 4;
  c.dtype = "fp16->fp32";
  c.sizes = {{"Z", z}, {"H", h}, {"N_CTX", nCtx}, {"HEAD_DIM", d}};
  c.setup = [=](Rng &rng) {
    Problem p;
    std::vector<std::int64_t> shape = {z, h, nCtx, d};
    p.input("O", ScalarType::FP16, shape, rng, -1, 1);
    p.input("DO", ScalarType::FP16, shape, rng, -1, 1);
    // fp32 sums of exact fp16 products: rounding only.
    p.output("Delta", ScalarType::FP32, {z * h, nCtx},
             {kRtolFp32, kRtolFp32 * dotScale(d)});
    p.i32(z);
    p.i32(h);
    p.i32(nCtx);
    p.grid = {static_cast<unsigned>(nCtx / blockM),
              static_cast<unsigned>(z * h), 1};
    p.bytesMoved = 2.0 * 2 * z * h * nCtx * d + 4.0 * z * h * nCtx;
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    std::vector<double> o = p.tensor("O").toDoubles();
    std::vector<double> dO = p.tensor("DO").toDoubles();
    std::vector<double> &delta = expected["Delta"];
    delta.assign(z * h * nCtx, 0.0);
    for (std::int64_t r = 0; r < z * h * nCtx; ++r)
      for (std::int64_t l = 0; l < d; ++l)
        delta[r] += o[r * d + l] * dO[r * d + l];
  };
  return c;
}

/// Which backward kernel a case runs.
struct BackwardKernel {
  /// FlashAttention-2's one sweep (`_attn_bwd_atomic`): dQ / ln 2 summed
  /// into a zeroed fp32 buffer; else the tutorial's `_attn_bwd`.
  bool atomicDq = false;
  bool causal = true;
};

/// The signature's constexprs after N_CTX: the tutorial's block sizes
/// (BLOCK_M1, BLOCK_N1, BLOCK_M2, BLOCK_N2, BLK_SLICE_FACTOR) or the one
/// sweep's (BLOCK_M, BLOCK_N), then HEAD_DIM (and CAUSAL).
static std::string backwardConstexprs(BackwardKernel kind,
                                      const std::vector<std::int64_t> &blocks,
                                      std::int64_t d) {
  std::string text;
  for (std::int64_t b : blocks)
    text += ", " + std::to_string(b);
  text += ", " + std::to_string(d);
  if (kind.atomicDq)
    text += kind.causal ? ", 1" : ", 0";
  return text;
}

/// dQ, dK, dV of attention (`_attn_bwd`, or `_attn_bwd_atomic` with its
/// dQ / ln 2 in DQ_ACC); M and Delta are computed in float64 from the
/// inputs and passed as fp32, as the forward pass and the preprocess would.
/// `blockN` is the keys a program takes (the grid's first dimension).
static CaseSpec attentionBwd(const std::string &name, BackwardKernel kind,
                             std::int64_t z, std::int64_t h, std::int64_t nCtx,
                             std::int64_t d, std::vector<std::int64_t> blocks,
                             std::int64_t blockN, int warps, int stages,
                             bool large) {
  const double smScale = 0.5;
  CaseSpec c;
  c.name = name;
  c.family = kind.causal ? "attention_bwd" : "attention_bwd_noncausal";
  c.file = kind.atomicDq ? "attention_backward_atomic.tile"
                         : "attention_backward.tile";
  c.kernel = kind.atomicDq ? "_attn_bwd_atomic" : "_attn_bwd";
  // (Q, K, V, sm_scale, DO, DQ or DQ_ACC, DK, DV, M, D, stride_z, stride_h,
  //  stride_tok, stride_d, H, N_CTX, the blocks, HEAD_DIM[, CAUSAL]):
  //  contiguous tensors, stride_d the literal 1.
  c.signature = std::string("*fp16:16, *fp16:16, *fp16:16, fp32, *fp16:16, ") +
                (kind.atomicDq ? "*fp32:16, " : "*fp16:16, ") +
                "*fp16:16, *fp16:16, *fp32:16, *fp32:16, " +
                i32Entry(h * nCtx * d) + ", " + i32Entry(nCtx * d) + ", " +
                i32Entry(d) + ", 1, " + i32Entry(h) + ", " + i32Entry(nCtx) +
                backwardConstexprs(kind, blocks, d);
  c.numWarps = warps;
  c.numStages = stages;
  c.dtype = "fp16";
  c.sizes = {{"Z", z}, {"H", h}, {"N_CTX", nCtx}, {"HEAD_DIM", d}};
  c.large = large;
  // Gradients are sums over up to N_CTX terms of P (<= 1) times O(1)
  // values; P and dS are rounded to fp16 before their dots (as in the
  // tutorial) and the results to fp16: 2^-11 relative each. The one
  // sweep's fp32 dQ sums are rounded once per block of keys.
  const Tolerance tol = {kRtolFp16, kRtolFp16};
  c.setup = [=](Rng &rng) {
    Problem p;
    std::vector<std::int64_t> shape = {z, h, nCtx, d};
    HostTensor &q = p.input("Q", ScalarType::FP16, shape, rng, -1, 1);
    HostTensor &ks = p.input("K", ScalarType::FP16, shape, rng, -1, 1);
    HostTensor &v = p.input("V", ScalarType::FP16, shape, rng, -1, 1);
    p.scalar(runtime::KernelArg::scalar(static_cast<float>(smScale)));
    HostTensor &dO = p.input("DO", ScalarType::FP16, shape, rng, -1, 1);
    if (kind.atomicDq)
      p.accumulator("DQ_ACC", ScalarType::FP32, shape, tol);
    else
      p.output("DQ", ScalarType::FP16, shape, tol);
    p.output("DK", ScalarType::FP16, shape, tol);
    p.output("DV", ScalarType::FP16, shape, tol);
    HostTensor &m = p.input("M", ScalarType::FP32, {z * h, nCtx}, rng, 0, 1);
    HostTensor &delta = p.input("D", ScalarType::FP32, {z * h, nCtx}, rng, 0, 1);
    CausalAttention a{z * h, nCtx, d, q.toDoubles(), ks.toDoubles(),
                      v.toDoubles(), dO.toDoubles(), {}, {}, {}, kind.causal};
    a.run();
    for (std::size_t i = 0; i < a.lse2.size(); ++i) {
      m.set(i, a.lse2[i]);
      delta.set(i, a.delta[i]);
    }
    p.i32(h * nCtx * d);
    p.i32(nCtx * d);
    p.i32(d);
    p.i32(h);
    p.i32(nCtx);
    p.grid = {static_cast<unsigned>(nCtx / blockN), 1,
              static_cast<unsigned>(z * h)};
    // The tutorial's count: 2.5 forward matmuls' worth, causal half.
    p.flops = 2.5 * 4.0 * double(z * h) * nCtx * nCtx * d *
              (kind.causal ? 0.5 : 1.0);
    p.bytesMoved = 2.0 * 7 * z * h * nCtx * d + 8.0 * z * h * nCtx;
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    CausalAttention a{z * h,
                      nCtx,
                      d,
                      p.tensor("Q").toDoubles(),
                      p.tensor("K").toDoubles(),
                      p.tensor("V").toDoubles(),
                      p.tensor("DO").toDoubles(),
                      {},
                      {},
                      {},
                      kind.causal};
    a.run();
    std::vector<double> dq;
    a.gradients(smScale, dq, expected["DK"], expected["DV"]);
    if (kind.atomicDq)
      for (double &x : dq)
        x /= std::log(2.0);
    expected[kind.atomicDq ? "DQ_ACC" : "DQ"] = std::move(dq);
  };
  return c;
}

/// DQ = DQ_ACC * ln 2, rounded to fp16 (`_attn_bwd_dq_convert`), over
/// `n` elements in blocks of `block` (the last one masked).
static CaseSpec attentionBwdDqConvert(const std::string &name, std::int64_t n,
                                      std::int64_t block) {
  CaseSpec c;
  c.name = name;
  c.family = "attention_bwd_dq_convert";
  c.file = "attention_backward_atomic.tile";
  c.kernel = "_attn_bwd_dq_convert";
  c.signature = "*fp32:16, *fp16:16, " + i32Entry(n) + ", " + std::to_string(block);
  c.dtype = "fp32->fp16";
  c.sizes = {{"N", n}};
  c.setup = [=](Rng &rng) {
    Problem p;
    p.input("DQ_ACC", ScalarType::FP32, {n}, rng, -4, 4);
    // One product and one rounding to fp16.
    p.output("DQ", ScalarType::FP16, {n}, {kRtolFp16, 1e-6});
    p.i32(n);
    p.grid = {static_cast<unsigned>((n + block - 1) / block), 1, 1};
    p.bytesMoved = 6.0 * n;
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    std::vector<double> dq = p.tensor("DQ_ACC").toDoubles();
    for (double &x : dq)
      x *= std::log(2.0);
    expected["DQ"] = std::move(dq);
  };
  return c;
}

void addAttentionBackwardCases(std::vector<CaseSpec> &cases) {
  const BackwardKernel tutorial{/*atomicDq=*/false, /*causal=*/true};
  const BackwardKernel oneSweep{/*atomicDq=*/true, /*causal=*/true};
  const BackwardKernel oneSweepFull{/*atomicDq=*/true, /*causal=*/false};
  cases.push_back(attentionBwdPreprocess("attention_bwd_preprocess_small", 2, 3,
                                         256, 64, 128));
  // Small blocks, one slice (the masked steps are full blocks).
  cases.push_back(attentionBwd("attention_bwd_small", tutorial, 1, 2, 64, 32,
                               {16, 32, 32, 16, 1}, 32, 4, 0, false));
  // The tutorial's configuration: 32 / 128 / 128 / 32 blocks, the diagonal
  // in half-size steps, 4 warps, 5 stages.
  cases.push_back(attentionBwd("attention_bwd_tutorial", tutorial, 1, 2, 256, 64,
                               {32, 128, 128, 32, 2}, 128, 4, 5, false));
  cases.push_back(attentionBwd("attention_bwd_1024", tutorial, 4, 8, 1024, 64,
                               {32, 128, 128, 32, 2}, 128, 4, 5, true));
  // Head dim 128 on two warpgroups, warp-specialized: four loops that hand
  // their rings on from one to the next (tilegpu.ring_handoff; asked for
  // with --warp-specialize=all: the default leaves three handoffs alone).
  CaseSpec d128 = attentionBwd("attention_bwd_d128_8w", tutorial, 1, 2, 512,
                               128, {32, 128, 128, 32, 2}, 128, 8, 5, false);
  d128.tilecOptions = {"--warp-specialize=all"};
  cases.push_back(d128);
  // The one sweep: head dim 64 = BLOCK_M (the addresses folding would tie),
  // two warpgroups; not causal, one warpgroup and 32-query steps; head dim
  // 128 warp-specialized (64 x 64 blocks), and with the benchmark's 64 x 128
  // blocks, which stay pipelined (their dots take 256 registers a thread:
  // more than a warp-specialized consumer gets).
  cases.push_back(attentionBwd("attention_bwd_atomic_small", oneSweep, 1, 2,
                               256, 64, {64, 128}, 128, 8, 3, false));
  cases.push_back(attentionBwd("attention_bwd_atomic_noncausal", oneSweepFull,
                               2, 2, 128, 32, {32, 64}, 64, 4, 3, false));
  cases.push_back(attentionBwd("attention_bwd_atomic_d128", oneSweep, 1, 2, 256,
                               128, {64, 64}, 64, 8, 3, false));
  cases.push_back(attentionBwd("attention_bwd_atomic_d128_n128", oneSweep, 1, 2,
                               256, 128, {64, 128}, 128, 8, 3, false));
  cases.push_back(attentionBwdDqConvert("attention_bwd_dq_convert", 10000, 1024));
}

} // namespace tilec::e2e
