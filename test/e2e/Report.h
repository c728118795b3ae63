//===- Report.h - Results of a harness run ----------------------*- C++ -*-===//

#ifndef TILEC_E2E_REPORT_H
#define TILEC_E2E_REPORT_H

#include "Case.h"
#include "Compare.h"

#include <optional>
#include <string>
#include <vector>

namespace tilec::e2e {

/// Everything known about one case after the run.
struct CaseResult {
  const CaseSpec *spec = nullptr;

  // Compile step.
  bool compiled = false;
  std::string compileError; ///< Also metadata/artifact problems.
  double compileSeconds = 0;
  std::string commandLine;

  // From the artifacts.
  int registers = -1;          ///< ptxas (or the loader), -1 if unknown.
  long long sharedBytes = -1;  ///< Static + dynamic, -1 if unknown.
  std::string notable;         ///< Notable PTX instructions.

  // Run step.
  bool ran = false;
  std::string runError;   ///< The run failed.
  std::string skipReason; ///< Not run, and why.
  std::vector<CheckResult> checks;
  std::uint64_t seed = 0;
  double micros = 0; ///< Median, 0 when not timed.
  int timedRuns = 0;
  double bytesMoved = 0;
  double flops = 0;
  std::optional<double> baselineMicros;
  bool loadedFromPtx = false;

  bool failed() const {
    if (!compiled || !runError.empty())
      return true;
    for (const CheckResult &check : checks)
      if (!check.pass)
        return true;
    return false;
  }
  bool passed() const { return ran && !failed(); }
  /// "PASS", "FAIL" or "SKIP" (compiled, not run).
  const char *status() const {
    return failed() ? "FAIL" : ran ? "PASS" : "SKIP";
  }
  /// The worst output's figures.
  double maxRelErr() const;
  double relL2() const;
  double rtol() const;
  /// "123.4 GB/s" or "456.7 TFLOP/s" ("" when not timed).
  std::string throughput() const;
};

/// One line for a finished case; a skip whose reason is `sharedSkipReason`
/// (printed once before the cases, e.g. "no CUDA driver") is not repeated.
std::string caseLine(const CaseResult &result,
                     const std::string &sharedSkipReason = "");

/// The markdown table DESIGN.md §6 asks for, one row per case.
std::string markdownTable(const std::vector<CaseResult> &results);

/// Writes every result (and the run's settings) as JSON.
bool writeJson(const std::string &path, const std::vector<CaseResult> &results,
               std::uint64_t seed, const std::string &device);

} // namespace tilec::e2e

#endif // TILEC_E2E_REPORT_H
