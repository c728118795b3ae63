//===- SoftmaxCases.cpp - examples/softmax.tile ---------------------------===//

#include "../Case.h"

#include <algorithm>
#include <cmath>

namespace tilec::e2e {

using runtime::ScalarType;

static CaseSpec softmax(const std::string &name, std::int64_t rows,
                        std::int64_t cols, std::int64_t block, int warps,
                        ScalarType type, bool large,
                        unsigned persistentPrograms = 0) {
  std::string t = runtime::scalarTypeName(type);
  CaseSpec c;
  c.name = name;
  c.family = "softmax";
  // persistentPrograms > 0: the tutorial's current persistent kernel
  // (softmax_persistent.tile: n_rows and num_stages parameters, each of
  // that many programs loops over rows).
  bool persistent = persistentPrograms > 0;
  c.file = persistent ? "softmax_persistent.tile" : "softmax.tile";
  c.kernel = "softmax_kernel";
  // (output_ptr, input_ptr, input_row_stride, output_row_stride, n_cols,
  //  BLOCK_SIZE); rows are contiguous, so both strides are n_cols.
  c.signature = "*" + t + ":16, *" + t + ":16, " + i32Entry(cols) + ", " +
                i32Entry(cols) + ", " +
                (persistent ? i32Entry(rows) + ", " : std::string()) +
                i32Entry(cols) + ", " + std::to_string(block) +
                (persistent ? ", 2" : "");
  c.numWarps = warps;
  c.dtype = t;
  c.sizes = {{"rows", rows}, {"cols", cols}};
  c.large = large;
  c.setup = [rows, cols, type, persistent, persistentPrograms](Rng &rng) {
    Problem p;
    // fp16 results are rounded to fp16: 2^-11 relative, and fp16
    // subnormals (below 2^-14) have an absolute spacing of 2^-24.
    Tolerance tolerance = type == ScalarType::FP16
                              ? Tolerance{kRtolFp16, std::ldexp(1.0, -24)}
                              : Tolerance{kRtolFp32, 0};
    p.output("output", type, {rows, cols}, tolerance);
    HostTensor &x = p.input("input", type, {rows, cols}, rng, -4, 4);
    // Shift each row by up to +100: exp(x) of such a row overflows fp32
    // unless the kernel subtracts the row max first.
    for (std::int64_t r = 0; r < rows; ++r) {
      double offset = rng.uniform(-50, 100);
      for (std::int64_t col = 0; col < cols; ++col)
        x.set(r * cols + col, x.get(r * cols + col) + offset);
    }
    p.i32(cols);
    p.i32(cols);
    if (persistent)
      p.i32(rows);
    p.i32(cols);
    p.grid = {persistent ? persistentPrograms : static_cast<unsigned>(rows),
              1, 1};
    p.bytesMoved = 2.0 * rows * cols * runtime::scalarTypeSize(type);
    return p;
  };
  c.reference = [rows, cols](const Problem &p, Expectations &expected) {
    const HostTensor &x = p.tensor("input");
    std::vector<double> &out = expected["output"];
    out.resize(x.numel());
    for (std::int64_t r = 0; r < rows; ++r) {
      double max = -INFINITY;
      for (std::int64_t col = 0; col < cols; ++col)
        max = std::max(max, x.get(r * cols + col));
      double sum = 0;
      for (std::int64_t col = 0; col < cols; ++col)
        sum += out[r * cols + col] = std::exp(x.get(r * cols + col) - max);
      for (std::int64_t col = 0; col < cols; ++col)
        out[r * cols + col] /= sum;
    }
  };
  return c;
}

void addSoftmaxCases(std::vector<CaseSpec> &cases) {
  cases.push_back(softmax("softmax_small", 37, 781, 1024, 4, ScalarType::FP32,
                          false));
  cases.push_back(softmax("softmax_fp16_small", 37, 781, 1024, 4,
                          ScalarType::FP16, false));
  // The same kernel checked against the other backend instead of float64:
  // on the GPU, the GPU's fp16 softmax (ex2.approx) against the CPU
  // backend's (libm) on the same inputs.
  CaseSpec crossCheck = softmax("softmax_fp16_vs_other_backend", 37, 781,
                                1024, 4, ScalarType::FP16, false);
  crossCheck.checkedAgainst = Reference::OtherBackend;
  cases.push_back(crossCheck);
  // Persistent: 5 programs over 37 rows (uneven shares), and more programs
  // than rows (some run no iteration).
  cases.push_back(softmax("softmax_persistent_small", 37, 781, 1024, 4,
                          ScalarType::FP32, false, 5));
  cases.push_back(softmax("softmax_persistent_fp16", 3, 100, 128, 4,
                          ScalarType::FP16, false, 8));
  cases.push_back(softmax("softmax_persistent_4096", 4096, 4096, 4096, 8,
                          ScalarType::FP32, true, 132 * 4));
  cases.push_back(softmax("softmax_4096", 4096, 4096, 4096, 8,
                          ScalarType::FP32, true));
  cases.push_back(softmax("softmax_ragged", 4001, 3001, 4096, 8,
                          ScalarType::FP32, true));
}

} // namespace tilec::e2e
