//===- Explain.h - `tilec explain`: the decisions that matter for speed -*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The short answer to "why is my kernel slow", read from the compiler's own
// IR and remarks, never from printed text: for each load how its data
// reaches the threads (TMA, cp.async, registers) and why, for each dot which
// unit runs it (wgmma, mma.sync, FMA) and why, for each loop whether it is
// software-pipelined and with how many stages or why not, then the
// registers, spills and shared memory ptxas and the allocator report.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_COMPILER_EXPLAIN_H
#define TILEC_COMPILER_EXPLAIN_H

#include "tilec/Compiler/Compiler.h"

#include "mlir/IR/Location.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace tilec {

/// A remark of the compilation (what the passes said about a decision).
struct ExplainRemark {
  mlir::Location loc;
  std::string message;
};

/// One decision: where in the source (`file:line:col` and the line's text),
/// what was decided and why.
struct ExplainEntry {
  std::string location, sourceText, decision, why;
  unsigned line = 0, column = 0;
};

/// Everything `tilec explain` prints: global loads, stores of tiles, dots
/// and loops.
struct KernelExplanation {
  std::vector<ExplainEntry> loads, stores, dots, loops;
  /// Remarks and warnings that no entry above took.
  std::vector<std::string> otherRemarks;
  /// From the full compilation; -1 when unknown (no ptxas).
  int64_t registers = -1, spillStores = -1, spillLoads = -1, stackFrame = -1;
  int64_t sharedMemoryBytes = 0;
  /// ptxas's performance warnings (wgmma serialized or waited for: C75xx).
  std::vector<std::string> ptxasWarnings;
};

/// Explains `tilegpu` (a kernel module compiled to the end of the tilegpu
/// stage, after tilegpu-allocate-shared) with the `remarks` its passes
/// emitted and, when given, the `result` of compiling it all the way
/// (registers, spills). `sourceText` gives the lines' text (may be empty).
KernelExplanation explainKernel(mlir::ModuleOp tilegpu,
                                llvm::ArrayRef<ExplainRemark> remarks,
                                const CompileResult *result,
                                llvm::StringRef sourceText);

/// The explanation as text (what `tilec explain` prints) or JSON.
std::string formatExplanation(const KernelExplanation &explanation,
                              const KernelInterface &kernel,
                              const CompileOptions &options);
llvm::json::Value explanationToJSON(const KernelExplanation &explanation);

} // namespace tilec

#endif // TILEC_COMPILER_EXPLAIN_H
