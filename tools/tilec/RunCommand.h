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
//
// Compiles one kernel and runs it once on random (or file-provided) inputs,
// then prints every buffer's checksum; docs/cli.md has the details.
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

namespace tilec::tool {

class KernelSource;

/// The `run` subcommand and its option category.
llvm::cl::SubCommand &getRunSubCommand();
llvm::cl::OptionCategory &getRunCategory();

/// Runs `tilec run` with the parsed options; returns the exit status.
int runMain();

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
};

/// Compiles `source` for the GPU with `pipeline` (num_warps, num_stages)
/// and runs it there (TilecRuntime); the arrays are copied to the device and
/// back. Fails with the runtime's reason when there is no GPU ("no CUDA
/// driver …").
llvm::Error runOnGpu(KernelSource &source, const PipelineOptions &pipeline,
                     RunInputs &inputs, RunTimes &times,
                     std::string &device);

} // namespace tilec::tool

#endif // TILEC_TOOLS_TILEC_RUNCOMMAND_H
