//===- QuantizeFp8Cases.cpp - examples/quantize_fp8.tile ------------------===//
//
// fp32 -> fp8 e4m3 conversion on the GPU (and the CPU backend): rounding to
// nearest even and saturation at ±448, checked exactly against the float64
// reference (inputs up to ±600 so that some saturate), and the widening back.
//
//===----------------------------------------------------------------------===//

#include "../Case.h"

namespace tilec::e2e {

using runtime::ScalarType;

static CaseSpec quantizeFp8(const std::string &name, std::int64_t n,
                            float scale) {
  CaseSpec c;
  c.name = name;
  c.family = "quantize_fp8";
  c.file = "quantize_fp8.tile";
  c.kernel = "quantize_fp8_kernel";
  c.signature = "*fp32:16, *fp8e4nv:16, *fp32:16, fp32, " + i32Entry(n) + ", 1024";
  c.numWarps = 4;
  c.dtype = "fp32->fp8e4nv";
  c.sizes = {{"n", n}};
  c.setup = [=](Rng &rng) {
    Problem p;
    p.input("x", ScalarType::FP32, {n}, rng, -600.0 / scale, 600.0 / scale);
    // Exact: the kernel rounds once (x * scale in fp32, then to fp8).
    p.output("q", ScalarType::FP8E4NV, {n}, {0, 0});
    p.output("r", ScalarType::FP32, {n}, {kRtolFp32, 0});
    p.scalar(runtime::KernelArg::scalar(scale));
    p.i32(n);
    p.grid = {static_cast<unsigned>(cdiv(n, 1024)), 1, 1};
    p.bytesMoved = 9.0 * n;
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    const HostTensor &x = p.tensor("x");
    // The fp8 value nearest to fp32(x * scale), through the host tensor's
    // own rounding (ties to even, saturating).
    HostTensor q("q", ScalarType::FP8E4NV, {n}, HostTensor::Role::Output);
    std::vector<double> &qs = expected["q"];
    std::vector<double> &rs = expected["r"];
    qs.resize(x.numel());
    rs.resize(x.numel());
    for (std::size_t i = 0; i < x.numel(); ++i) {
      q.set(i, static_cast<double>(static_cast<float>(x.get(i)) * scale));
      qs[i] = q.get(i);
      rs[i] = static_cast<double>(static_cast<float>(qs[i]) / scale);
    }
  };
  return c;
}

void addQuantizeFp8Cases(std::vector<CaseSpec> &cases) {
  cases.push_back(quantizeFp8("quantize_fp8_unit", 100003, 1.0f));
  cases.push_back(quantizeFp8("quantize_fp8_scaled", 4099, 0.0625f));
}

} // namespace tilec::e2e
