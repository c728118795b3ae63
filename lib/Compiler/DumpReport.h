//===- DumpReport.h - the --dump-ir report ----------------------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// What `--dump-ir DIR` (CompileOptions::dumpDir) writes (docs/cli.md,
// "Debugging the passes"): numbered stages in pipeline order — the input,
// one per pass, then the backend's LLVM IR, PTX, ptxas log, cubin and
// metadata — where a pass that changed nothing gets no file (unless
// `dumpAll`) and a pass that did gets `NN-<pass>.mlir` and `NN-<pass>.diff`
// (a unified diff against the stage before it); then `index.json` (every
// stage with its pass, options, wall time, whether it changed the IR, op
// counts per dialect before and after, its files; every remark, warning and
// error with its source location and the stage that emitted it; the source
// lines each stage's ops and the PTX's `.loc` lines come from; the layout
// pictures) and `index.html`, the same as a self-contained page.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_COMPILER_DUMPREPORT_H
#define TILEC_LIB_COMPILER_DUMPREPORT_H

#include "tilec/Compiler/Compiler.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Regex.h"

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
class Pass;
class PassManager;
} // namespace mlir

namespace tilec {

/// One op of a stage that carries a location in the kernel's source.
struct DumpOpRef {
  unsigned sourceLine = 0;
  /// 1-based line of the op in the stage's dump file.
  unsigned dumpLine = 0;
  /// The op's first printed line (trimmed, at most 200 characters).
  std::string text;
};

/// One stage of the report (see the file comment).
struct DumpStage {
  unsigned index = 0;
  /// "input", "pass" or "artifact".
  std::string kind;
  /// The pass argument (`canonicalize`) or the artifact's name
  /// (`llvm-ir.ll`).
  std::string name;
  /// The pass's C++ name and its options as a textual pipeline.
  std::string passName, pipeline;
  double seconds = 0;
  bool changed = true, failed = false, filtered = false;
  std::map<std::string, int64_t> opsBefore, opsAfter;
  /// Files in the dump directory ("" when not written).
  std::string dump, diff;
  int64_t diffAdded = 0, diffRemoved = 0;
  std::vector<DumpOpRef> ops;
};

/// A diagnostic of the compilation.
struct DumpDiagnostic {
  std::string severity, message, file;
  unsigned line = 0, column = 0;
  /// Index of the stage that emitted it (-1: outside the passes).
  int stage = -1;
};

/// Collects the stages of one compilation into a dump directory and writes
/// its index (see the file comment). Inactive when `options.dumpDir` is
/// empty.
class DumpReport {
public:
  DumpReport(const CompileOptions &options, const KernelInterface &kernel);
  ~DumpReport();

  bool enabled() const { return !dir.empty(); }
  /// Creates the directory; an error for a bad directory or filter.
  llvm::Error create();

  /// Records the frontend's module as stage 00.
  void recordInput(mlir::ModuleOp module);
  /// Adds the instrumentation recording one stage per module-level pass to
  /// `pm`.
  void instrument(mlir::PassManager &pm);
  /// Writes `NN-<name>` (always: backend artifacts are not elided) and
  /// returns its name ("" on failure). `text` artifacts take part in the
  /// source view (`ptx`: its `.loc` lines); `diffAgainst` names an earlier
  /// artifact to diff with.
  std::string writeArtifact(llvm::StringRef name, llvm::StringRef contents,
                            llvm::StringRef diffAgainst = "");
  /// Records a diagnostic (called by the compilation's handler).
  void recordDiagnostic(mlir::Diagnostic &diagnostic);

  /// Extra facts for the index (registers, spills, shared memory).
  void setResult(const CompileResult &result) { this->result = &result; }
  /// The PTX, for the `.loc` map.
  void setPTX(llvm::StringRef ptx, llvm::StringRef file) {
    this->ptx = ptx.str();
    ptxFile = file.str();
  }
  /// Layout pictures of the distinct layouts of `module` (the first call
  /// only: the last tilegpu IR), written to layouts/ and embedded in the
  /// HTML; and `tilec explain`'s decisions on it.
  struct Layout {
    std::string name, description, svg, file;
    std::vector<unsigned> sourceLines;
  };
  void addLayouts(mlir::ModuleOp module);

  /// Writes index.json and index.html (also after a failed compilation:
  /// the errors are in it).
  void finish(bool succeeded);

  /// The index as JSON (what index.json holds).
  llvm::json::Value buildIndex(bool succeeded) const;

  // For the instrumentation.
  void beginPass(mlir::Pass *pass);
  void endPass(mlir::Pass *pass, mlir::ModuleOp module, bool failed);

private:
  std::string writeFile(llvm::StringRef file, llvm::StringRef contents);
  void recordModule(DumpStage &stage, mlir::ModuleOp module);
  bool matchesSource(llvm::StringRef file) const;
  /// The kernel's source text (options.dumpSourceText, else its file).
  std::string sourceText() const;

  std::string dir;
  bool dumpAll = false;
  std::optional<llvm::Regex> filter;
  std::string filterText;
  const KernelInterface &kernel;
  const CompileOptions &options;
  const CompileResult *result = nullptr;
  unsigned counter = 0;
  std::vector<DumpStage> stages;
  std::vector<DumpDiagnostic> diagnostics;
  std::vector<Layout> layouts;
  /// The remarks and warnings so far, for tilec explain's decisions.
  std::vector<std::pair<mlir::Location, std::string>> remarks;
  /// explainKernel on the last tilegpu IR (explanationToJSON), or null.
  llvm::json::Value decisions = nullptr;
  /// The text and op counts of the last stage of the passes.
  std::string lastText, lastName;
  std::map<std::string, int64_t> lastOps;
  /// Artifacts' texts by name, for `diffAgainst`.
  llvm::StringMap<std::string> artifactTexts;
  std::string ptx, ptxFile;
  int currentStage = -1;
  bool layoutsTaken = false;
  std::chrono::steady_clock::time_point passStart;
};

/// index.html for `index` (the value of DumpReport::buildIndex), with the
/// kernel's source text and the layout SVGs embedded: one self-contained
/// page (no network, no external scripts or fonts).
std::string renderDumpReportHTML(const llvm::json::Value &index,
                                 llvm::StringRef sourceText,
                                 llvm::ArrayRef<DumpReport::Layout> layouts);

} // namespace tilec

#endif // TILEC_LIB_COMPILER_DUMPREPORT_H
