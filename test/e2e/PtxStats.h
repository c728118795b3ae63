//===- PtxStats.h - Notable instructions in generated PTX -------*- C++ -*-===//

#ifndef TILEC_E2E_PTXSTATS_H
#define TILEC_E2E_PTXSTATS_H

#include <string>
#include <utility>
#include <vector>

namespace tilec::e2e {

/// How many PTX instructions of each notable kind a kernel has (static
/// counts, not executions): vector loads/stores, shuffles, barriers, the
/// approximate exp2, FMAs, MMA / WGMMA, async and TMA copies, mbarriers.
struct PtxStats {
  bool found = false; ///< False when the PTX file could not be read.
  std::vector<std::pair<std::string, int>> counts; ///< Non-zero kinds only.

  /// "ld.global.v4 x4, fma.rn x12" ("-" when none, "no PTX" if not found).
  std::string summary() const;
};

/// Scans a PTX file, ignoring comments.
PtxStats scanPtx(const std::string &path);

} // namespace tilec::e2e

#endif // TILEC_E2E_PTXSTATS_H
