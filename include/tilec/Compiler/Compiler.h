//===- Compiler.h - the tile-to-cubin pipeline ------------------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The pass pipeline of DESIGN.md §3 and the backend after it, shared by the
// `tilec` CLI (and later the JIT API): a module holding one kernel in the
// `tile` dialect goes to `tilegpu`, LLVM, PTX and a cubin, with per-pass IR
// dumps and the kernel metadata (docs/metadata.md).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_COMPILER_COMPILER_H
#define TILEC_COMPILER_COMPILER_H

#include "tilec/Compiler/CpuPipeline.h"
#include "tilec/Compiler/KernelInterface.h"
#include "tilec/Target/PTX.h"
#include "tilec/Target/Ptxas.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
class OpPassManager;
class PassManager;
} // namespace mlir

namespace tilec {

/// How far to compile.
enum class EmitKind { Tile, TileGPU, LLVM, PTX, Cubin };

/// Parses `tile`, `tilegpu`, `llvm`, `ptx`, `cubin`.
std::optional<EmitKind> parseEmitKind(llvm::StringRef text);
/// The file extension of an artifact (`.mlir`, `.ll`, `.ptx`, `.cubin`).
llvm::StringRef getArtifactExtension(EmitKind kind);

/// Options of the passes (DESIGN.md §3).
struct PipelineOptions {
  /// Warps per CTA (one program instance per CTA).
  unsigned numWarps = 4;
  /// Software-pipelining depth (used by tilegpu-pipeline; 1 = none).
  unsigned numStages = 3;
};

/// Adds the tile-level passes both backends start with: cleanups, then
/// `tile-rewrite-block-pointers` (block pointers become pointer tiles and
/// masks), cleanups and loop-invariant code motion.
void buildTileLevelPipeline(mlir::OpPassManager &pm);

/// Adds the passes from the frontend's `tile` IR to the end of `stop`'s
/// stage (Tile: cleanups; TileGPU: layouts; LLVM and later: the LLVM
/// dialect) to `pm`.
void buildPipeline(mlir::OpPassManager &pm, const PipelineOptions &options,
                   EmitKind stop);

/// Everything that shapes one compilation.
struct CompileOptions {
  PipelineOptions pipeline;
  PTXTarget target;
  EmitKind emit = EmitKind::Cubin;
  /// When set: `NN-<pass>.mlir` after every pass, then the LLVM IR, PTX,
  /// ptxas report and metadata, numbered in pipeline order.
  std::string dumpDir;
  bool printIRAfterAll = false;
  /// Pass arguments (e.g. `convert-tile-to-tilegpu`) to print after/before.
  std::vector<std::string> printIRAfter, printIRBefore;
  /// Print MLIR's pass timing report to stderr.
  bool timing = false;
  /// ptxas to use; empty = findPtxas().
  std::string ptxas;
};

/// The artifacts of one compilation, up to `CompileOptions::emit`.
struct CompileResult {
  /// Textual IR at the stop stage (for Tile/TileGPU/LLVM: the MLIR module;
  /// LLVM also fills `llvmIR`).
  std::string mlir;
  std::string llvmIR;
  std::string ptx;
  std::optional<PtxasResult> ptxas;
  /// Bytes of dynamic shared memory the kernel needs.
  int64_t sharedMemoryBytes = 0;
  unsigned numThreads = 0;
  std::string ptxasVersion;
};

/// Compiles `module` (one kernel in the `tile` dialect, described by
/// `kernel`). MLIR diagnostics go to the context's handler; the error says
/// which stage failed.
llvm::Expected<CompileResult> compileModule(mlir::ModuleOp module,
                                            const KernelInterface &kernel,
                                            const CompileOptions &options);

/// Lowers `module` (one kernel in the `tile` dialect) in place to the LLVM
/// dialect for the host CPU (buildCpuPipeline), with the IR dumps, printing
/// and timing of `options` (its pipeline, target and emit fields are not
/// used).
llvm::Error lowerModuleForCpu(mlir::ModuleOp module,
                              const KernelInterface &kernel,
                              const CompileOptions &options,
                              const CpuPipelineOptions &cpu);

/// The metadata of a compiled kernel (docs/metadata.md). `artifacts` maps
/// `ptx`/`cubin` to file names.
llvm::json::Object
buildKernelMetadata(const KernelInterface &kernel, const CompileOptions &options,
                    const CompileResult &result,
                    const std::vector<std::pair<std::string, std::string>> &artifacts);

/// tilec's version string.
llvm::StringRef getTilecVersion();

} // namespace tilec

#endif // TILEC_COMPILER_COMPILER_H
