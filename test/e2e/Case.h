//===- Case.h - One end-to-end kernel case ----------------------*- C++ -*-===//
//
// A case names an example kernel and its specialization (signature, warps),
// and knows how to build a problem for it (random inputs, poisoned outputs,
// launch arguments and grid) and how to compute the expected outputs in
// float64 from the math, independently of the kernel. Nothing here knows
// about GPUs: a backend takes the host tensors, runs the kernel, and writes
// the outputs back into them.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_E2E_CASE_H
#define TILEC_E2E_CASE_H

#include "HostTensor.h"

#include "tilec/Runtime/KernelArg.h"

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tilec::e2e {

/// Pass rule of one output (DESIGN.md §6): every element within
/// atol + rtol * |ref|, and ||out - ref||_2 / ||ref||_2 < rtol. rtol = 0
/// means exact (integers).
struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

/// DESIGN.md §6 relative tolerances.
constexpr double kRtolFp32 = 1e-5;     ///< fp32 math.
constexpr double kRtolFp32Long = 1e-4; ///< fp32 long reductions (>= 1000).
constexpr double kRtolTf32 = 5e-3;     ///< fp32 dot at tf32 precision.
constexpr double kRtolFp16 = 2e-3;     ///< fp16 inputs, fp32 accumulate.
constexpr double kRtolFp8Dot = 1e-2;   ///< fp8 dot (Hopper's fp8 wgmma accumulator is shorter than fp32).

/// The scale of a sum of `terms` products of independent uniform(-1, 1)
/// values (standard deviation sqrt(terms) / 3): the natural absolute
/// tolerance unit for outputs that can cancel to near zero.
double dotScale(std::int64_t terms);

/// "i32:16" when `value` is a multiple of 16 (a signature may promise it),
/// else "i32".
std::string i32Entry(std::int64_t value);

/// One launch argument: a tensor (passed as a pointer to its data) or a
/// scalar value.
struct CaseArg {
  std::optional<std::size_t> tensor; ///< Index into Problem::tensors.
  std::optional<runtime::KernelArg> scalar;
};

/// One instance of a case: data, arguments, grid and cost.
struct Problem {
  /// Inputs and outputs (a deque: references stay valid as tensors are
  /// added).
  std::deque<HostTensor> tensors;
  /// Tolerance of each output, by tensor name.
  std::map<std::string, Tolerance> tolerances;
  /// One per launch parameter (the kernel's non-constexpr parameters).
  std::vector<CaseArg> args;
  std::array<unsigned, 3> grid = {1, 1, 1};
  /// Cost for the throughput column: bytes read + written by an ideal
  /// kernel, and floating-point operations. Either may be 0.
  double bytesMoved = 0;
  double flops = 0;

  /// Adds an input filled with uniform values in [lo, hi) and passes it as
  /// the next argument.
  HostTensor &input(const std::string &name, runtime::ScalarType dtype,
                    std::vector<std::int64_t> shape, Rng &rng, double lo,
                    double hi);
  /// Adds a poisoned output checked with `tolerance` and passes it as the
  /// next argument.
  HostTensor &output(const std::string &name, runtime::ScalarType dtype,
                     std::vector<std::int64_t> shape, Tolerance tolerance);
  /// Adds an output that starts at zero (the buffer of a kernel's atomic
  /// adds, cleared by the caller), checked with `tolerance`, and passes it
  /// as the next argument.
  HostTensor &accumulator(const std::string &name, runtime::ScalarType dtype,
                          std::vector<std::int64_t> shape, Tolerance tolerance);
  /// Passes a scalar as the next argument.
  void scalar(runtime::KernelArg value) { args.push_back({std::nullopt, value}); }
  /// Passes an int32 scalar (the type of most size and stride parameters).
  void i32(std::int64_t value);

  const HostTensor &tensor(const std::string &name) const;
  HostTensor &tensor(const std::string &name);
};

/// Expected output values by output tensor name, in float64.
using Expectations = std::map<std::string, std::vector<double>>;

/// What a case's outputs are compared with (each under its Tolerance).
enum class Reference {
  /// `CaseSpec::reference`: float64 values computed from the math in C++,
  /// independently of the kernel (no numpy, no other compiler).
  Float64,
  /// The same kernel, on the same inputs, on the other backend: on the GPU
  /// (tilec-e2e) the CPU backend, through `tilec run --backend cpu`; on the
  /// CPU (tilec-e2e-cpu) the GPU, so such a case is skipped, with the
  /// reason, where there is none. For kernels whose math has no practical
  /// independent reference, and to cross-check the backends.
  OtherBackend,
};

/// "float64" or "other backend".
const char *referenceName(Reference reference);

struct CaseSpec {
  std::string name;   ///< Unique; artifact files are named after it.
  std::string family; ///< What the torch baseline script computes for it.
  std::string file;   ///< Relative to the examples directory.
  std::string kernel;
  std::string signature;
  int numWarps = 4;
  int numStages = 0; ///< 0: the compiler's default (not passed).
  /// Further tilec options this case is compiled with (before --tilec-option's).
  std::vector<std::string> tilecOptions;
  std::string dtype; ///< For the table: "fp32", "fp16->fp32".
  /// Problem sizes, in order, for the table and the baseline script.
  std::vector<std::pair<std::string, std::int64_t>> sizes;
  /// Large cases take seconds of host time (data, reference).
  bool large = false;

  std::function<Problem(Rng &)> setup;
  /// What the outputs are checked against; `reference` computes them when
  /// it is Reference::Float64.
  Reference checkedAgainst = Reference::Float64;
  std::function<void(const Problem &, Expectations &)> reference;

  /// "M=1024 N=1024 K=1024".
  std::string shapeText() const;
  std::int64_t size(const std::string &key) const;
};

/// Integer ceiling division.
inline std::int64_t cdiv(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

/// A puzzle case: examples/puzzles/<file>, fp32, 4 warps.
CaseSpec puzzleCase(const std::string &name, const std::string &family,
                    const std::string &file, const std::string &kernel,
                    const std::string &signature,
                    std::vector<std::pair<std::string, std::int64_t>> sizes);

/// Every case, in a stable order. (cases/*.cpp)
std::vector<CaseSpec> allCases();

void addVectorAddCases(std::vector<CaseSpec> &cases);
void addSoftmaxCases(std::vector<CaseSpec> &cases);
void addMatmulCases(std::vector<CaseSpec> &cases);
void addMatmulDescriptorCases(std::vector<CaseSpec> &cases);
void addDescriptorScaleCases(std::vector<CaseSpec> &cases);
void addDescriptorOpsCases(std::vector<CaseSpec> &cases);
void addMatmulEpilogueCases(std::vector<CaseSpec> &cases);
void addQuantizeFp8Cases(std::vector<CaseSpec> &cases);
void addLayerNormCases(std::vector<CaseSpec> &cases);
void addMatmulGroupedCases(std::vector<CaseSpec> &cases);
void addAttentionCases(std::vector<CaseSpec> &cases);
void addAttentionBackwardCases(std::vector<CaseSpec> &cases);
void addOpsCases(std::vector<CaseSpec> &cases);
void addSortCases(std::vector<CaseSpec> &cases);
void addViewScanDotCases(std::vector<CaseSpec> &cases);
void addWeightedSumCases(std::vector<CaseSpec> &cases);
void addPuzzleElementwiseCases(std::vector<CaseSpec> &cases);
void addPuzzleReductionCases(std::vector<CaseSpec> &cases);

} // namespace tilec::e2e

#endif // TILEC_E2E_CASE_H
