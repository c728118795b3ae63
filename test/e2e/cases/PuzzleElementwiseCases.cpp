//===- PuzzleElementwiseCases.cpp - Triton-Puzzles 1-6 --------------------===//
//
// examples/puzzles/{constant_add,outer_add,outer_mul_relu}.tile. Every output
// element is one correctly rounded fp32 operation on the inputs, so the
// check is relative only.
//
//===----------------------------------------------------------------------===//

#include "../Case.h"

#include <algorithm>

namespace tilec::e2e {

using runtime::ScalarType;

namespace {

/// Puzzles 1 and 2: z = x + 10. Puzzle 1 runs one program covering N0
/// elements with a block of `block` >= N0; puzzle 2 tiles N0 by `block`.
CaseSpec constantAdd(const std::string &name, const std::string &kernel,
                     std::int64_t n0, std::int64_t block) {
  CaseSpec c = puzzleCase(name, "constant_add", "constant_add.tile", kernel,
                      "*fp32:16, *fp32:16, " + i32Entry(n0) + ", " +
                          std::to_string(block),
                      {{"N0", n0}, {"B0", block}});
  c.setup = [=](Rng &rng) {
    Problem p;
    p.input("x", ScalarType::FP32, {n0}, rng, -1, 1);
    p.output("z", ScalarType::FP32, {n0}, {kRtolFp32, 0});
    p.i32(n0);
    p.grid = {static_cast<unsigned>(cdiv(n0, block)), 1, 1};
    p.bytesMoved = 8.0 * n0;
    return p;
  };
  c.reference = [](const Problem &p, Expectations &expected) {
    const HostTensor &x = p.tensor("x");
    std::vector<double> &z = expected["z"];
    z.resize(x.numel());
    for (std::size_t i = 0; i < z.size(); ++i)
      z[i] = x.get(i) + 10.0;
  };
  return c;
}

enum class OuterOp { Add, MulRelu };

/// Puzzles 3, 4 and 5: z[j, i] = op(x[i], y[j]), z is N1 x N0.
CaseSpec outer(const std::string &name, const std::string &kernel,
               OuterOp op, std::int64_t n0, std::int64_t n1, std::int64_t b0,
               std::int64_t b1) {
  bool add = op == OuterOp::Add;
  CaseSpec c = puzzleCase(name, add ? "outer_add" : "outer_mul_relu",
                      add ? "outer_add.tile" : "outer_mul_relu.tile", kernel,
                      "*fp32:16, *fp32:16, *fp32:16, " + i32Entry(n0) + ", " +
                          i32Entry(n1) + ", " + std::to_string(b0) + ", " +
                          std::to_string(b1),
                      {{"N0", n0}, {"N1", n1}, {"B0", b0}, {"B1", b1}});
  c.setup = [=](Rng &rng) {
    Problem p;
    p.input("x", ScalarType::FP32, {n0}, rng, -1, 1);
    p.input("y", ScalarType::FP32, {n1}, rng, -1, 1);
    p.output("z", ScalarType::FP32, {n1, n0}, {kRtolFp32, 0});
    p.i32(n0);
    p.i32(n1);
    p.grid = {static_cast<unsigned>(cdiv(n0, b0)),
              static_cast<unsigned>(cdiv(n1, b1)), 1};
    p.bytesMoved = 4.0 * (n0 + n1 + n0 * n1);
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    const HostTensor &x = p.tensor("x"), &y = p.tensor("y");
    std::vector<double> &z = expected["z"];
    z.resize(static_cast<std::size_t>(n0 * n1));
    for (std::int64_t j = 0; j < n1; ++j)
      for (std::int64_t i = 0; i < n0; ++i)
        z[j * n0 + i] = add ? x.get(i) + y.get(j)
                            : std::max(0.0, x.get(i) * y.get(j));
  };
  return c;
}

/// Puzzle 6: dx[j, i] = 1(x[j, i] * y[j] > 0) * y[j] * dz[j, i].
CaseSpec outerMulReluBackward(const std::string &name, std::int64_t n0,
                              std::int64_t n1, std::int64_t b0,
                              std::int64_t b1) {
  CaseSpec c = puzzleCase(name, "outer_mul_relu_bwd", "outer_mul_relu.tile",
                      "mul_relu_block_back_kernel",
                      "*fp32:16, *fp32:16, *fp32:16, *fp32:16, " +
                          i32Entry(n0) + ", " + i32Entry(n1) + ", " +
                          std::to_string(b0) + ", " + std::to_string(b1),
                      {{"N0", n0}, {"N1", n1}, {"B0", b0}, {"B1", b1}});
  c.setup = [=](Rng &rng) {
    Problem p;
    p.input("x", ScalarType::FP32, {n1, n0}, rng, -1, 1);
    p.input("y", ScalarType::FP32, {n1}, rng, -1, 1);
    p.input("dz", ScalarType::FP32, {n1, n0}, rng, -1, 1);
    p.output("dx", ScalarType::FP32, {n1, n0}, {kRtolFp32, 0});
    p.i32(n0);
    p.i32(n1);
    p.grid = {static_cast<unsigned>(cdiv(n0, b0)),
              static_cast<unsigned>(cdiv(n1, b1)), 1};
    p.bytesMoved = 4.0 * (3 * n0 * n1 + n1);
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    const HostTensor &x = p.tensor("x"), &y = p.tensor("y"),
                     &dz = p.tensor("dz");
    std::vector<double> &dx = expected["dx"];
    dx.resize(static_cast<std::size_t>(n0 * n1));
    for (std::int64_t j = 0; j < n1; ++j)
      for (std::int64_t i = 0; i < n0; ++i) {
        std::int64_t at = j * n0 + i;
        dx[at] = x.get(at) * y.get(j) > 0 ? y.get(j) * dz.get(at) : 0.0;
      }
  };
  return c;
}

} // namespace

void addPuzzleElementwiseCases(std::vector<CaseSpec> &cases) {
  cases.push_back(constantAdd("puzzle01_constant_add_small", "add_kernel",
                              100, 128));
  cases.push_back(constantAdd("puzzle01_constant_add_medium", "add_kernel",
                              3000, 4096));
  cases.push_back(constantAdd("puzzle02_constant_add_block_small",
                              "add_mask2_kernel", 200, 32));
  cases.push_back(constantAdd("puzzle02_constant_add_block_medium",
                              "add_mask2_kernel", 1000003, 1024));
  cases.push_back(outer("puzzle03_outer_add_small", "add_vec_kernel",
                        OuterOp::Add, 100, 90, 128, 128));
  cases.push_back(outer("puzzle03_outer_add_medium", "add_vec_kernel",
                        OuterOp::Add, 37, 61, 64, 64));
  cases.push_back(outer("puzzle04_outer_add_block_small",
                        "add_vec_block_kernel", OuterOp::Add, 100, 90, 32,
                        32));
  cases.push_back(outer("puzzle04_outer_add_block_medium",
                        "add_vec_block_kernel", OuterOp::Add, 1000, 777, 64,
                        32));
  cases.push_back(outer("puzzle05_outer_mul_relu_small",
                        "mul_relu_block_kernel", OuterOp::MulRelu, 100, 90,
                        32, 32));
  cases.push_back(outer("puzzle05_outer_mul_relu_medium",
                        "mul_relu_block_kernel", OuterOp::MulRelu, 1000, 777,
                        64, 32));
  cases.push_back(outerMulReluBackward("puzzle06_outer_mul_relu_bwd_small",
                                       100, 90, 32, 32));
  cases.push_back(outerMulReluBackward("puzzle06_outer_mul_relu_bwd_medium",
                                       1000, 777, 64, 32));
}

} // namespace tilec::e2e
