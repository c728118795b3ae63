//===- RunCommand.h - `tilec run`: compile a kernel and run it --*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// tilec run FILE --kernel NAME --signature SIG --grid X[,Y,Z]
//           [--backend cpu|gpu] [--arg NAME=VALUE]… [--buffer-size N]
//           [--buffer NAME=N]… [--input NAME=FILE]… [--output NAME=FILE]…
//           [--seed N] [--sanitize] [--threads N] [--repeat N]
//           [--num-warps N] [--num-stages N] [the pass switches of `tilec`:
//           --disable-wgmma, --ping-pong, ... (PipelineFlags.h)]
// tilec run --batch
//
// Compiles one kernel and runs it once on random (or file-provided) inputs,
// then prints every buffer's checksum; docs/cli.md has the details. With
// --batch, one process runs many such requests read from stdin
// (RunBatch.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TOOLS_TILEC_RUNCOMMAND_H
#define TILEC_TOOLS_TILEC_RUNCOMMAND_H

#include "HostArray.h"

#include "tilec/Compiler/Compiler.h"
#include "tilec/Compiler/KernelInterface.h"

#include "llvm/Support/CommandLine.h"

#include <array>
#include <cstdint>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace tilec::tool {

class KernelSource;

/// The `run` subcommand and its option category.
llvm::cl::SubCommand &getRunSubCommand();
llvm::cl::OptionCategory &getRunCategory();

/// Runs `tilec run` with the parsed options (`--batch`: runBatch);
/// returns the exit status.
int runMain();

/// What one `tilec run` measured, in seconds (0 where it did not get that
/// far).
struct RunSummary {
  /// Reading and specializing the kernel (the frontend).
  double frontend = 0;
  /// Passes and code generation: a JIT-compiled function on the CPU, a
  /// cubin (or PTX) on the GPU.
  double compile = 0;
  /// The launches (the first and the --repeat ones).
  double launch = 0;
  /// The GPU backend: a launch, a wait or a copy after the launch failed, so
  /// the context may hold a sticky error (an illegal address): a batch stops
  /// after this request.
  bool deviceFault = false;
};

/// Runs one `tilec run` with the options as parsed now, compiling in
/// `context`; prints the report (stdout) and errors (stderr) like the
/// command; returns its exit status.
int runOnce(mlir::MLIRContext &context, RunSummary &summary);

/// `tilec run --batch`: reads requests from stdin, one per line, and writes
/// one JSON result per request to stdout (RunBatch.cpp, docs/cli.md).
int runBatch();

/// Whether `--batch` was given.
bool isBatchRequested();

/// The input file as parsed now ("-": stdin).
llvm::StringRef getRunInput();

/// One runtime argument of a `tilec run` launch.
struct RunArgument {
  const KernelParameter *parameter = nullptr;
  /// For a pointer parameter: its buffer (index into RunInputs::arrays).
  int array = -1;
  /// For a scalar: its bits (little-endian, the type's size).
  std::uint64_t bits = 0;
};

/// What a backend runs.
struct RunInputs {
  std::vector<HostArray> arrays;
  std::vector<RunArgument> args;
  std::array<unsigned, 3> grid = {1, 1, 1};
  /// Timed launches after the first (0: none).
  unsigned repeat = 0;
};

/// Times of a backend run, in seconds (0 when not measured).
struct RunTimes {
  double passes = 0, codegen = 0;
  double first = 0;
  double median = 0, min = 0;
  unsigned timedRuns = 0;
  /// All timed launches together.
  double timedTotal = 0;
  /// See RunSummary::deviceFault.
  bool deviceFault = false;
};

/// Compiles `source` for the GPU with `pipeline` (num_warps, num_stages,
/// the pass switches) and runs it there (TilecRuntime); the arrays are
/// copied to the device and back. With `dumpDir`, the compilation writes the
/// report of the passes there (`--dump-ir`). Fails with the runtime's reason
/// when there is no GPU ("no CUDA driver …").
llvm::Error runOnGpu(KernelSource &source, const PipelineOptions &pipeline,
                     llvm::StringRef dumpDir, RunInputs &inputs,
                     RunTimes &times, std::string &device);

/// With `keep`, runOnGpu opens the device (retains its primary context) once
/// and keeps it for later calls, as a batch wants (a context costs ~0.1-0.5 s
/// to create); `keepGpuDevice(false)` releases it.
void keepGpuDevice(bool keep);

} // namespace tilec::tool

#endif // TILEC_TOOLS_TILEC_RUNCOMMAND_H
