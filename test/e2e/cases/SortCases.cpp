//===- SortCases.cpp - examples/ops/sort_ops.tile -------------------------===//
//
// tl.sort, tl.topk, tl.gather and tl.histogram on one block, every result
// row checked exactly against its reference (they only move or count
// values).
//
//===----------------------------------------------------------------------===//

#include "../Case.h"

#include <algorithm>
#include <functional>

namespace tilec::e2e {

using runtime::ScalarType;

static CaseSpec sortOps(const std::string &name, std::int64_t block,
                        int warps) {
  CaseSpec c;
  c.name = name;
  c.family = "sort_ops";
  c.file = "ops/sort_ops.tile";
  c.kernel = "sort_ops";
  c.signature =
      "*fp32:16, *i32:16, *fp32:16, *i32:16, " + std::to_string(block);
  c.numWarps = warps;
  c.dtype = "fp32/i32";
  c.sizes = {{"BLOCK", block}};
  const std::int64_t b = block;
  c.setup = [=](Rng &rng) {
    Problem p;
    p.input("x", ScalarType::FP32, {b}, rng, -10, 10);
    p.input("i", ScalarType::I32, {b}, rng, 0, 100000);
    p.output("out", ScalarType::FP32, {6, b}, {0, 0});
    p.output("iout", ScalarType::I32, {b + 32}, {0, 0});
    p.grid = {1, 1, 1};
    return p;
  };
  c.reference = [=](const Problem &p, Expectations &expected) {
    std::vector<double> x = p.tensor("x").toDoubles();
    std::vector<double> iv = p.tensor("i").toDoubles();
    std::vector<std::int64_t> i(iv.begin(), iv.end());
    std::vector<double> &o = expected["out"];
    o.assign(static_cast<std::size_t>(6 * b), 0.0);
    auto row = [&](int r) { return o.begin() + r * b; };
    std::vector<double> s = x;
    std::sort(s.begin(), s.end());
    std::copy(s.begin(), s.end(), row(0));
    std::copy(s.rbegin(), s.rend(), row(1));
    std::int64_t cols = b / 4;
    for (std::int64_t r = 0; r < 4; ++r) {
      std::vector<double> part(x.begin() + r * cols, x.begin() + (r + 1) * cols);
      std::sort(part.begin(), part.end());
      std::copy(part.begin(), part.end(), row(2) + r * cols);
      // topk(x2, b / 8): the largest b / 8 of each row, descending.
      std::int64_t k = b / 8;
      for (std::int64_t j = 0; j < k; ++j)
        row(3)[r * k + j] = part[cols - 1 - j];
    }
    for (std::int64_t j = 0; j < b / 2; ++j)
      row(3)[b / 2 + j] = s[b - 1 - j];
    for (std::int64_t e = 0; e < b; ++e) {
      row(4)[e] = x[i[e] % b];
      std::int64_t r = e / 4;
      row(5)[e] = x[r * 4 + i[e] % 4];
    }
    std::vector<double> &io = expected["iout"];
    io.assign(static_cast<std::size_t>(b + 32), 0.0);
    std::vector<std::int64_t> si = i;
    std::sort(si.begin(), si.end(), std::greater<>());
    for (std::int64_t e = 0; e < b; ++e) {
      io[e] = static_cast<double>(si[e]);
      io[b + i[e] % 16] += 1;
      if (x[e] > 0)
        io[b + 16 + i[e] % 16] += 1;
    }
  };
  return c;
}

void addSortCases(std::vector<CaseSpec> &cases) {
  cases.push_back(sortOps("sort_ops_16", 16, 4));
  cases.push_back(sortOps("sort_ops_64", 64, 4));
}

} // namespace tilec::e2e
