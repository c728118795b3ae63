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
#include "tilec/Compiler/PassSwitches.h"
#include "tilec/Compiler/StageTimes.h"
#include "tilec/Target/PTX.h"
#include "tilec/Target/Ptxas.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
class Type;
class OpPassManager;
class PassManager;
} // namespace mlir

namespace tilec {

/// How far to compile. CHeader compiles to a cubin (compileModule treats it
/// as Cubin); the CLI then wraps the cubin in a C header (CHeader.h).
enum class EmitKind { Tile, TileGPU, LLVM, PTX, Cubin, CHeader };

/// Parses `tile`, `tilegpu`, `llvm`, `ptx`, `cubin`, `c-header`.
std::optional<EmitKind> parseEmitKind(llvm::StringRef text);
/// The file extension of an artifact (`.mlir`, `.ll`, `.ptx`, `.cubin`,
/// `.h`).
llvm::StringRef getArtifactExtension(EmitKind kind);

/// Options of the passes (DESIGN.md §3): the pass switches and the shape of
/// the kernel's programs.
struct PipelineOptions : PassSwitches {
  /// Warps per CTA (one program instance per CTA).
  unsigned numWarps = 4;
  /// Software-pipelining depth (used by tilegpu-pipeline; 1 = none).
  unsigned numStages = 3;
  /// Give every LLVM function a debug-info scope (line tables only, no
  /// variables) so that the PTX carries `.file`/`.loc` directives mapping
  /// instructions to `.tile` lines, and ptxas keeps them (`-lineinfo`) for
  /// cuobjdump, Nsight Compute and compute-sanitizer. Changes no code.
  bool lineInfo = true;
  /// The target has `red.global.add.v2/.v4.f32` (sm_90 or newer with PTX
  /// 8.1 or newer); compile() sets it from CompileOptions::target.
  bool vectorReductions = false;
};

/// How a message names an option: as the `tilec` flag (`--num-warps`) or as
/// the field of the C++ API's options (`numWarps`).
enum class OptionSpelling { Flag, Field };

/// Checks the options every entry point shares (`tilec`, `tilec run`,
/// `tilec explain`, the JIT and the C API): num_warps a power of two from 1
/// to 32 (tilegpu::isValidNumWarps, what `tilegpu.num_warps` accepts),
/// num_stages at least 1, num_ctas 1, 2, 4 or 8, the warp-specialize mode,
/// the ping-pong and intra-warpgroup-overlap modes (off, auto, on) and a
/// mbarrier spin limit that is not negative. compileModule checks them too.
llvm::Error verifyPipelineOptions(const PipelineOptions &options,
                                  OptionSpelling spelling);

/// Checks a GPU architecture (`sm_NN` or `sm_NNa`, NN >= 70) and a PTX ISA
/// version times 10 (one LLVM 22 knows, new enough for the architecture)
/// and returns the version; without one, the first version that knows the
/// architecture (80 for sm_90a).
llvm::Expected<unsigned> resolvePTXVersion(llvm::StringRef arch,
                                           std::optional<unsigned> ptxVersion,
                                           OptionSpelling spelling);

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
  /// When set: the dump report (docs/cli.md, "Debugging the passes"):
  /// `NN-<pass>.mlir` and `NN-<pass>.diff` after every pass that changed
  /// the IR, then the LLVM IR, PTX, ptxas report and metadata, numbered in
  /// pipeline order, and `index.json` / `index.html`.
  std::string dumpDir;
  /// Dump passes that changed nothing too (`--dump-ir-all`).
  bool dumpAll = false;
  /// When set, only passes whose argument this regular expression matches
  /// get dump and diff files (`--dump-ir-filter`); all are in the index.
  std::string dumpFilter;
  /// The kernel's source text for the report's source view (empty: read
  /// from the kernel's source path).
  std::string dumpSourceText;
  bool printIRAfterAll = false;
  /// Pass arguments (e.g. `convert-tile-to-tilegpu`) to print after/before.
  std::vector<std::string> printIRAfter, printIRBefore;
  /// Print MLIR's pass timing report to stderr.
  bool timing = false;
  /// When set and a pass fails (or crashes), write a self-contained
  /// reproducer to this file: the IR right before the failing pass and, in
  /// its `mlir_reproducer` resource, that pass with its options, for
  /// `tilec-opt --run-reproducer FILE`. Needs the module's context to run
  /// without multithreading (compileModule turns it off).
  std::string reproducerFile;
  /// ptxas to use; empty = findPtxas().
  std::string ptxas;
};

/// The artifacts of one compilation, up to `CompileOptions::emit`.
struct CompileResult {
  /// Textual IR at the stop stage (for Tile/TileGPU: the MLIR module; for
  /// LLVM: `llvmIR`, the optimized LLVM IR, left empty for later stages).
  std::string mlir;
  std::string llvmIR;
  std::string ptx;
  std::optional<PtxasResult> ptxas;
  /// Bytes of dynamic shared memory the kernel needs.
  int64_t sharedMemoryBytes = 0;
  unsigned numThreads = 0;
  /// The kernel's thread-block cluster (x, y, z CTAs; 1, 1, 1: none).
  std::array<unsigned, 3> clusterDims = {1, 1, 1};
  /// The kernel loops over the programs of the caller's grid
  /// (tilegpu-persistent): the metadata's `persistent`.
  bool persistent = false;
  std::string ptxasVersion;
  /// The `hidden_parameters` of the metadata (TMA descriptors), in the order
  /// of the kernel's trailing parameters.
  llvm::json::Array hiddenParameters;
  /// Where the time went (frontend left at 0).
  StageTimes times;
};

/// Compiles `module` (one kernel in the `tile` dialect, described by
/// `kernel`). MLIR diagnostics go to the context's handler; the error says
/// which stage failed. With `options.dumpDir`, the directory gets
/// `00-input.mlir`, `NN-<pass>.mlir` and `NN-<pass>.diff` for each pass that
/// changed the IR (printed with their locations; every pass has its number),
/// `NN-llvm-ir.ll`, `NN-llvm-ir-opt.ll`, `NN-kernel.ptx`, `NN-ptxas.log`,
/// `NN-kernel.cubin` and `NN-kernel.json` (the metadata, naming the numbered
/// PTX and cubin), each as soon as its stage is done, then `index.json`,
/// `index.html` and `layouts/*.svg` (also when compilation fails).
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

/// The signature's name of an element type (`fp32` for f32, `bf16`,
/// `fp8e4nv`, `i32`; MLIR's spelling for anything else).
std::string getSignatureTypeName(mlir::Type type);

/// tilec's version string.
llvm::StringRef getTilecVersion();

} // namespace tilec

#endif // TILEC_COMPILER_COMPILER_H
