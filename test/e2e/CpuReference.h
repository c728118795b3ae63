//===- CpuReference.h - A case's expectations from the CPU backend -*- C++ -*-===//
//
// For cases checked against the other backend (Reference::OtherBackend): the
// GPU harness runs the same kernel on the same inputs on the CPU backend
// through `tilec run --backend cpu` (a child process, so that tilec-e2e
// links no compiler) and uses its outputs as the expectations.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_E2E_CPUREFERENCE_H
#define TILEC_E2E_CPUREFERENCE_H

#include "Case.h"

#include "tilec/Runtime/KernelMetadata.h"

#include <string>

namespace tilec::e2e {

/// Runs `spec`'s kernel with `tilec` (`tilec run <examples>/<file> --backend
/// cpu`) on `problem`'s inputs (the outputs start poisoned, as for the GPU)
/// and the scalar arguments and grid of `problem`; `metadata` names the
/// parameters. Files go to `workDir` (the log to <case>.cpu-reference.log).
/// On success fills `expected` with every output, as float64; else returns
/// false and sets `error`.
bool runCpuReference(const std::string &tilec, const std::string &examples,
                     const CaseSpec &spec,
                     const runtime::KernelMetadata &metadata,
                     const Problem &problem, const std::string &workDir,
                     Expectations &expected, std::string &error);

/// Runs `spec`'s kernel once on the CPU backend of the tilec CLI at `tilec`
/// (`tilec run --backend cpu`) on `problem`'s inputs, its outputs poisoned
/// first, and writes the outputs into `problem` (tilec-e2e --cpu-fallback,
/// scripts/run-examples.sh without a GPU). False with `error` if it could
/// not run.
bool runOnCpuBackend(const std::string &tilec, const std::string &examples,
                     const CaseSpec &spec,
                     const runtime::KernelMetadata &metadata, Problem &problem,
                     const std::string &workDir, std::string &error);

} // namespace tilec::e2e

#endif // TILEC_E2E_CPUREFERENCE_H
