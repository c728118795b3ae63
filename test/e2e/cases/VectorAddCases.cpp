//===- VectorAddCases.cpp - examples/vector_add.tile ----------------------===//

#include "../Case.h"

namespace tilec::e2e {

using runtime::ScalarType;

static CaseSpec vectorAdd(const std::string &name, std::int64_t n,
                          bool large, bool volatileX = false) {
  CaseSpec c;
  c.name = name;
  c.family = "vector_add";
  c.file = volatileX ? "ops/volatile_ops.tile" : "vector_add.tile";
  c.kernel = volatileX ? "volatile_add_kernel" : "add_kernel";
  c.signature = "*fp32:16, *fp32:16, *fp32:16, " + i32Entry(n) + ", 1024";
  c.numWarps = 4;
  c.dtype = "fp32";
  c.sizes = {{"n", n}};
  c.large = large;
  c.setup = [n](Rng &rng) {
    Problem p;
    p.input("x", ScalarType::FP32, {n}, rng, -1, 1);
    p.input("y", ScalarType::FP32, {n}, rng, -1, 1);
    p.output("output", ScalarType::FP32, {n}, {kRtolFp32, 0});
    p.i32(n);
    p.grid = {static_cast<unsigned>(cdiv(n, 1024)), 1, 1};
    p.bytesMoved = 3.0 * 4 * n;
    return p;
  };
  c.reference = [](const Problem &p, Expectations &expected) {
    const HostTensor &x = p.tensor("x"), &y = p.tensor("y");
    std::vector<double> &out = expected["output"];
    out.resize(x.numel());
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = x.get(i) + y.get(i);
  };
  return c;
}

void addVectorAddCases(std::vector<CaseSpec> &cases) {
  cases.push_back(vectorAdd("vector_add_small", 98765, false));
  // 2^28 + 1237 elements (1 GiB per operand), not a multiple of the block.
  cases.push_back(vectorAdd("vector_add_large", (1ll << 28) + 1237, true));
  // x read with tl.load(volatile=True): ld.volatile.global.
  cases.push_back(vectorAdd("volatile_add_small", 98765, false,
                            /*volatileX=*/true));
}

} // namespace tilec::e2e
