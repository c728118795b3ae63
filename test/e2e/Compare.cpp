//===- Compare.cpp - Checking outputs against the reference ---------------===//

#include "Compare.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace tilec::e2e {

namespace {

/// "[3, 17]" for a flat index into `shape`.
std::string indexText(std::size_t flat, const std::vector<std::int64_t> &shape) {
  std::vector<std::int64_t> index(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    index[d] = static_cast<std::int64_t>(flat % shape[d]);
    flat /= shape[d];
  }
  std::string text = "[";
  for (std::size_t d = 0; d < index.size(); ++d)
    text += (d ? ", " : "") + std::to_string(index[d]);
  return text + "]";
}

std::string number(double value) {
  char buffer[48];
  std::snprintf(buffer, sizeof(buffer), "%.9g", value);
  return buffer;
}

} // namespace

CheckResult compareOutput(const HostTensor &actual,
                          const std::vector<double> &expected,
                          Tolerance tolerance) {
  CheckResult result;
  result.tensor = actual.name();
  result.tolerance = tolerance;
  result.elements = actual.numel();
  const double inf = std::numeric_limits<double>::infinity();
  if (expected.size() != actual.numel()) {
    result.examples.push_back("reference has " +
                              std::to_string(expected.size()) +
                              " elements, output has " +
                              std::to_string(actual.numel()));
    result.maxRelErr = result.relL2 = inf;
    return result;
  }

  bool exact = tolerance.rtol == 0 || runtime::isIntegerType(actual.dtype());
  double floor = exact ? 0 : tolerance.atol / tolerance.rtol;
  double diffSquares = 0, refSquares = 0;
  bool nonFinite = false;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    double out = actual.get(i);
    double ref = expected[i];
    bool ok;
    double relErr;
    if (std::isnan(ref)) {
      ok = std::isnan(out);
      relErr = ok ? 0 : inf;
    } else if (std::isnan(out)) {
      ok = false;
      relErr = inf;
      ++result.unexpectedNaN;
      nonFinite = true;
    } else if (std::isinf(ref) || std::isinf(out)) {
      ok = out == ref;
      relErr = ok ? 0 : inf;
      nonFinite |= !ok;
    } else {
      double err = std::fabs(out - ref);
      if (exact) {
        ok = err == 0 && !actual.isIntegerPoison(i);
        relErr = ok ? 0 : inf;
      } else {
        ok = err <= tolerance.atol + tolerance.rtol * std::fabs(ref);
        double denominator = std::fabs(ref) + floor;
        relErr = denominator > 0 ? err / denominator : (err > 0 ? inf : 0);
      }
      diffSquares += err * err;
      refSquares += ref * ref;
    }
    if (relErr > result.maxRelErr)
      result.maxRelErr = relErr;
    if (!ok) {
      ++result.failures;
      if (result.examples.size() < 3)
        result.examples.push_back(actual.name() +
                                  indexText(i, actual.shape()) + ": got " +
                                  number(out) + ", expected " + number(ref));
    }
  }

  if (nonFinite)
    result.relL2 = inf;
  else if (refSquares > 0)
    result.relL2 = std::sqrt(diffSquares / refSquares);
  else
    result.relL2 = std::sqrt(diffSquares); // All-zero reference: absolute.

  bool l2Ok = exact ? result.relL2 == 0 : result.relL2 < tolerance.rtol;
  result.pass = result.failures == 0 && l2Ok;
  if (result.failures == 0 && !l2Ok)
    result.examples.push_back("relative L2 error " + number(result.relL2) +
                              " is not below rtol " +
                              number(tolerance.rtol));
  return result;
}

} // namespace tilec::e2e
