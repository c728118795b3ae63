//===- DescriptorScaleCases.cpp - examples/descriptor_scale.tile ----------===//

#include "../Case.h"

#include <cmath>
#include <limits>

namespace tilec::e2e {

using runtime::ScalarType;

/// Y = fp16(alpha * X) through tensor descriptors. X is M x N in rows of
/// `ldx` floats; Y is allocated with `extraRows` more rows than M, in rows of
/// `ldy` halfs. Everything of Y outside the M x N tensor the descriptor
/// names must keep its poison (NaN): the stores of the blocks that hang over
/// the edges must not write there.
static CaseSpec descriptorScale(const std::string &name, std::int64_t m,
                                std::int64_t n, std::int64_t ldx,
                                std::int64_t ldy, std::int64_t extraRows,
                                std::int64_t blockM, std::int64_t blockN,
                                bool large) {
  CaseSpec c;
  c.name = name;
  c.family = "descriptor_scale";
  c.file = "descriptor_scale.tile";
  c.kernel = "descriptor_scale_kernel";
  // (x, y, M, N, stride_xm, stride_ym, alpha, BLOCK_M, BLOCK_N)
  c.signature = "*fp32:16, *fp16:16, " + i32Entry(m) + ", " + i32Entry(n) +
                ", " + i32Entry(ldx) + ", " + i32Entry(ldy) + ", fp32, " +
                std::to_string(blockM) + ", " + std::to_string(blockN);
  c.numWarps = 4;
  c.dtype = "fp32->fp16";
  c.sizes = {{"M", m}, {"N", n}};
  c.large = large;
  const double alpha = 1.5;
  c.setup = [=](Rng &rng) {
    Problem p;
    p.input("x", ScalarType::FP32, {m, ldx}, rng, -1, 1);
    // One fp16 rounding: 2^-11 relative; values that round to fp16
    // subnormals are off by up to 2^-25 absolute.
    p.output("y", ScalarType::FP16, {m + extraRows, ldy}, {2e-3, 1e-6});
    p.i32(m);
    p.i32(n);
    p.i32(ldx);
    p.i32(ldy);
    p.scalar(runtime::KernelArg::scalar(static_cast<float>(alpha)));
    p.grid = {static_cast<unsigned>(cdiv(m, blockM)),
              static_cast<unsigned>(cdiv(n, blockN)), 1};
    p.bytesMoved = 4.0 * m * n + 2.0 * m * n;
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    const HostTensor &x = p.tensor("x");
    std::vector<double> &out = expected["y"];
    out.assign(static_cast<std::size_t>((m + extraRows) * ldy),
               std::numeric_limits<double>::quiet_NaN());
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j)
        out[i * ldy + j] = alpha * x.get(static_cast<std::size_t>(i * ldx + j));
  };
  return c;
}

void addDescriptorScaleCases(std::vector<CaseSpec> &cases) {
  // Ragged: every block at the right and bottom edges hangs over; padded
  // rows on both sides, 5 rows after Y's last.
  cases.push_back(descriptorScale("descriptor_scale_small", 77, 50, 64, 56, 5,
                                  32, 32, false));
  // 1000 x 1000 in 64 x 128 blocks (1000 is a multiple of neither), padded
  // rows of 1024 and 1008 elements.
  cases.push_back(descriptorScale("descriptor_scale_edges", 1000, 1000, 1024,
                                  1008, 3, 64, 128, false));
}

} // namespace tilec::e2e
