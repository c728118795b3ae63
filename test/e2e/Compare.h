//===- Compare.h - Checking outputs against the reference -------*- C++ -*-===//

#ifndef TILEC_E2E_COMPARE_H
#define TILEC_E2E_COMPARE_H

#include "Case.h"
#include "HostTensor.h"

#include <cstddef>
#include <string>
#include <vector>

namespace tilec::e2e {

/// The outcome of checking one output tensor.
struct CheckResult {
  std::string tensor;
  Tolerance tolerance;
  bool pass = false;
  /// max_i |out_i - ref_i| / (|ref_i| + atol / rtol): an element passes
  /// exactly when this is <= rtol. (|out_i - ref_i| / |ref_i| when atol = 0;
  /// 0 or infinity for exact checks.)
  double maxRelErr = 0;
  /// ||out - ref||_2 / ||ref||_2 over all elements (infinity if a NaN or
  /// infinity appears where none is expected).
  double relL2 = 0;
  std::size_t elements = 0;
  std::size_t failures = 0;  ///< Elements outside the tolerance.
  std::size_t unexpectedNaN = 0;
  /// The first few failing elements, "z[3, 17]: got nan, expected 0.25".
  std::vector<std::string> examples;
};

/// Checks `actual` against `expected` (same element count) with the pass rule
/// of DESIGN.md §6: every element within atol + rtol * |ref| and the relative
/// L2 error below rtol; NaN passes only where NaN is expected; integers (and
/// rtol = 0) must match exactly.
CheckResult compareOutput(const HostTensor &actual,
                          const std::vector<double> &expected,
                          Tolerance tolerance);

} // namespace tilec::e2e

#endif // TILEC_E2E_COMPARE_H
