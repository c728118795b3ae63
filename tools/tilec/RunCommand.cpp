//===- RunCommand.cpp - `tilec run`: compile a kernel and run it ----------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "RunCommand.h"

#include "KernelSource.h"
#include "PipelineFlags.h"

#include "tilec/Compiler/Registration.h"
#include "tilec/ExecutionEngine/CpuKernel.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

using namespace tilec;
using namespace tilec::tool;
namespace cl = llvm::cl;

// The subcommand first: its options below refer to it during static
// initialization.
static cl::SubCommand runCommand(
    "run", "Compile a kernel and run it on the CPU (JIT) or the GPU, on "
           "random or given inputs; print a checksum of every buffer");
static cl::OptionCategory runCategory("tilec run options");

cl::SubCommand &tool::getRunSubCommand() { return runCommand; }
cl::OptionCategory &tool::getRunCategory() { return runCategory; }

// The input and --grid are required of every run, checked in runOnce rather
// than by the parser: `tilec run --batch` has neither.
static cl::opt<std::string> runInput(cl::Positional,
                                     cl::desc("<input .tile, .py or .mlir>"),
                                     cl::sub(runCommand), cl::cat(runCategory));
static cl::opt<std::string>
    runKernel("kernel", cl::desc("Kernel to run (default: the only one)"),
              cl::value_desc("name"), cl::sub(runCommand),
              cl::cat(runCategory));
static cl::opt<std::string> runSignature(
    "signature",
    cl::desc("Types of the parameters, Triton AOT style: \"*fp32:16, i32, 1024\""),
    cl::value_desc("sig"), cl::sub(runCommand), cl::cat(runCategory));
static cl::opt<std::string> runGrid("grid",
                                    cl::desc("Programs along axes 0, 1, 2 (required)"),
                                    cl::value_desc("X[,Y[,Z]]"),
                                    cl::sub(runCommand), cl::cat(runCategory));
static cl::opt<std::string> runBackend("backend", cl::init("cpu"),
                                       cl::desc("Where to run: cpu or gpu"),
                                       cl::sub(runCommand),
                                       cl::cat(runCategory));
static cl::list<std::string>
    runArgs("arg", cl::CommaSeparated,
            cl::desc("Value of a scalar parameter (every one needs one)"),
            cl::value_desc("name=value"), cl::sub(runCommand),
            cl::cat(runCategory));
static cl::opt<std::uint64_t> runBufferSize(
    "buffer-size", cl::init(1 << 20),
    cl::desc("Elements of every pointer parameter's buffer without its own "
             "--buffer or --input (default 1048576)"),
    cl::sub(runCommand), cl::cat(runCategory));
static cl::list<std::string>
    runBuffers("buffer", cl::CommaSeparated,
               cl::desc("Elements of one pointer parameter's buffer"),
               cl::value_desc("name=count"), cl::sub(runCommand),
               cl::cat(runCategory));
static cl::list<std::string> runInputs(
    "input",
    cl::desc("Initial contents of a buffer: a raw little-endian file (its "
             "size gives the element count)"),
    cl::value_desc("name=file"), cl::sub(runCommand), cl::cat(runCategory));
static cl::list<std::string>
    runOutputs("output", cl::desc("Write a buffer's bytes after the run"),
               cl::value_desc("name=file"), cl::sub(runCommand),
               cl::cat(runCategory));
static cl::opt<std::uint64_t>
    runSeed("seed", cl::init(1),
            cl::desc("Seed of the random buffer contents (default 1)"),
            cl::sub(runCommand), cl::cat(runCategory));
static cl::opt<bool> runSanitize(
    "sanitize",
    cl::desc("CPU: check every accessed address against the buffers; report "
             "out-of-bounds accesses and fail"),
    cl::sub(runCommand), cl::cat(runCategory));
static cl::opt<unsigned>
    runThreads("threads", cl::init(0),
               cl::desc("CPU: worker threads (default: one per hardware "
                        "thread)"),
               cl::sub(runCommand), cl::cat(runCategory));
static cl::opt<unsigned> runRepeat(
    "repeat", cl::init(0),
    cl::desc("Time this many launches after the first; print the median"),
    cl::sub(runCommand), cl::cat(runCategory));
static cl::opt<unsigned> runNumWarps("num-warps", cl::init(4),
                                     cl::desc("GPU: warps per program"),
                                     cl::sub(runCommand),
                                     cl::cat(runCategory));
static cl::opt<unsigned>
    runNumStages("num-stages", cl::init(3),
                 cl::desc("GPU: software-pipelining depth (1 = none)"),
                 cl::sub(runCommand), cl::cat(runCategory));
// --disable-wgmma, --ping-pong, --longest-first, ... (PipelineFlags.h).
static PipelineFlags runFlags(runCommand, runCategory);
static cl::opt<bool> runDebug(
    "debug",
    cl::desc("Debug mode, Triton's debug=True (also TRITON_DEBUG=1): "
             "tl.device_assert checks its condition; a failure fails the run"),
    cl::sub(runCommand), cl::cat(runCategory));
static cl::opt<std::string> runDumpIR(
    "dump-ir", cl::desc("Write the IR after every pass to this directory"),
    cl::value_desc("dir"), cl::sub(runCommand), cl::cat(runCategory));
static cl::opt<bool> runBatchMode(
    "batch",
    cl::desc("Run many requests in one process: read one per line from stdin "
             "(a JSON array of the arguments of a `tilec run`), write one "
             "JSON result per line to stdout (docs/cli.md)"),
    cl::sub(runCommand), cl::cat(runCategory));

bool tool::isBatchRequested() { return runBatchMode; }
llvm::StringRef tool::getRunInput() { return runInput; }

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

llvm::Expected<std::array<unsigned, 3>> parseGrid(llvm::StringRef text) {
  std::array<unsigned, 3> grid = {1, 1, 1};
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, ',');
  if (parts.empty() || parts.size() > 3)
    return llvm::createStringError("--grid needs 1 to 3 extents, got '" +
                                   text + "'");
  for (auto [i, part] : llvm::enumerate(parts))
    if (part.trim().getAsInteger(10, grid[i]) || grid[i] == 0)
      return llvm::createStringError("--grid: '" + part +
                                     "' is not a positive integer");
  return grid;
}

/// Splits every "name=value" of `list` into a map; an error names `option`.
llvm::Expected<llvm::StringMap<std::string>>
parseAssignments(const cl::list<std::string> &list, llvm::StringRef option,
                 const KernelInterface &interface, bool wantPointer) {
  llvm::StringMap<std::string> map;
  for (const std::string &item : list) {
    auto [name, value] = llvm::StringRef(item).split('=');
    name = name.trim();
    if (value.empty())
      return llvm::createStringError("--" + option + " '" + item +
                                     "' is not name=value");
    const KernelParameter *found = nullptr;
    for (const KernelParameter &param : interface.parameters)
      if (param.name == name)
        found = &param;
    if (!found || !found->isRuntime())
      return llvm::createStringError(
          "--" + option + ": kernel '" + interface.name +
          "' has no run-time parameter '" + name + "'");
    if ((found->kind == KernelParameter::Kind::Pointer) != wantPointer)
      return llvm::createStringError(
          "--" + option + ": '" + name + "' is " +
          (wantPointer ? "a scalar (use --arg)" : "a pointer"));
    map[name] = value.trim().str();
  }
  return map;
}

/// The arrays and arguments of the launch, from the options.
llvm::Expected<RunInputs> buildInputs(const KernelInterface &interface) {
  RunInputs inputs;
  auto grid = parseGrid(runGrid);
  if (!grid)
    return grid.takeError();
  inputs.grid = *grid;
  inputs.repeat = runRepeat;
  auto scalars = parseAssignments(runArgs, "arg", interface, false);
  if (!scalars)
    return scalars.takeError();
  auto sizes = parseAssignments(runBuffers, "buffer", interface, true);
  if (!sizes)
    return sizes.takeError();
  auto files = parseAssignments(runInputs, "input", interface, true);
  if (!files)
    return files.takeError();

  std::vector<std::string> missing;
  std::uint64_t seed = runSeed;
  for (const KernelParameter &param : interface.parameters) {
    if (!param.isRuntime())
      continue;
    RunArgument arg;
    arg.parameter = &param;
    if (param.kind == KernelParameter::Kind::Scalar) {
      auto it = scalars->find(param.name);
      if (it == scalars->end()) {
        missing.push_back(param.name + ": " + param.type);
        continue;
      }
      auto bits = parseScalar(param.type, it->second);
      if (!bits)
        return llvm::createStringError("--arg " + param.name + ": " +
                                       llvm::toString(bits.takeError()));
      arg.bits = *bits;
      inputs.args.push_back(arg);
      continue;
    }
    std::size_t elementBytes = scalarTypeSize(param.type);
    if (elementBytes == 0)
      return llvm::createStringError("'" + param.name +
                                     "' points to unsupported type " +
                                     param.type);
    std::uint64_t count = runBufferSize;
    auto file = files->find(param.name);
    if (file != files->end()) {
      std::uint64_t fileBytes = 0;
      if (std::error_code ec = llvm::sys::fs::file_size(file->second, fileBytes))
        return llvm::createStringError(ec, "cannot read '" + file->second +
                                               "'");
      if (fileBytes % elementBytes)
        return llvm::createStringError(
            "'" + file->second + "' (" + std::to_string(fileBytes) +
            " bytes) is not a whole number of " + param.type + " elements");
      count = fileBytes / elementBytes;
    } else if (auto size = sizes->find(param.name); size != sizes->end()) {
      if (llvm::StringRef(size->second).getAsInteger(10, count))
        return llvm::createStringError("--buffer " + param.name + ": '" +
                                       size->second + "' is not a count");
    }
    arg.array = inputs.arrays.size();
    inputs.arrays.emplace_back(param.name, param.type, count);
    HostArray &array = inputs.arrays.back();
    if (file != files->end()) {
      if (auto err = array.readFile(file->second))
        return std::move(err);
    } else {
      // Every buffer gets its own stream of values.
      array.fillRandom(seed + 0x9e3779b97f4a7c15ull * (arg.array + 1));
    }
    inputs.args.push_back(arg);
  }
  if (!missing.empty()) {
    std::string list;
    for (const std::string &name : missing)
      list += "\n  --arg " + name.substr(0, name.find(':')) + "=… (" +
              name.substr(name.find(':') + 2) + ")";
    return llvm::createStringError("missing scalar arguments:" + list);
  }
  return inputs;
}

llvm::Error runOnCpu(KernelSource &source, RunInputs &inputs, RunTimes &times,
                     std::string &device) {
  cpu::CpuCompileOptions options;
  options.pipeline.sanitize = runSanitize;
  options.debug.dumpDir = runDumpIR;
  auto kernel = cpu::CpuKernel::compile(source.module(), source.interface(),
                                        options);
  if (!kernel)
    return kernel.takeError();
  times.passes = (*kernel)->pipelineSeconds();
  times.codegen = (*kernel)->jitSeconds();

  std::vector<cpu::CpuArgument> args;
  cpu::CpuLaunchOptions launch;
  launch.threads = runThreads;
  for (const RunArgument &arg : inputs.args) {
    if (arg.array >= 0) {
      HostArray &array = inputs.arrays[arg.array];
      args.push_back(cpu::CpuArgument::pointer(array.data()));
      launch.buffers.push_back({array.name(), array.data(), array.bytes()});
    } else {
      args.push_back(cpu::CpuArgument::scalarBytes(
          &arg.bits, scalarTypeSize(arg.parameter->type)));
    }
  }
  unsigned workers = launch.threads
                         ? launch.threads
                         : llvm::hardware_concurrency().compute_thread_count();
  device = "cpu (" + std::to_string(workers) + " threads" +
           (runSanitize ? ", sanitizer" : "") + ")";

  // A crash inside the kernel is the kernel's (an unmasked out-of-bounds
  // access, usually), not LLVM's: say so instead of LLVM's bug-report line.
  const char *bugReportMsg = llvm::getBugReportMsg();
  llvm::setBugReportMsg(
      runSanitize ? "tilec: the kernel crashed on the CPU backend.\n"
                  : "tilec: the kernel crashed on the CPU backend, most "
                    "likely through an out-of-bounds memory access; rerun "
                    "with --sanitize to find the access.\n");
  auto restore = llvm::make_scope_exit(
      [&] { llvm::setBugReportMsg(bugReportMsg); });
  auto start = Clock::now();
  if (auto err = (*kernel)->launch(inputs.grid, args, launch))
    return err;
  times.first = secondsSince(start);
  // Timed runs overwrite the outputs with the same values (kernels are
  // deterministic functions of their inputs, unless they read what they
  // write).
  std::vector<double> seconds;
  for (unsigned i = 0; i < inputs.repeat; ++i) {
    start = Clock::now();
    if (auto err = (*kernel)->launch(inputs.grid, args, launch))
      return err;
    seconds.push_back(secondsSince(start));
  }
  if (!seconds.empty()) {
    times.median = median(seconds);
    times.min = *std::min_element(seconds.begin(), seconds.end());
    times.timedRuns = seconds.size();
    for (double t : seconds)
      times.timedTotal += t;
  }
  return llvm::Error::success();
}

std::string formatMillis(double seconds) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.3f ms", seconds * 1e3);
  return text;
}

} // namespace

int tool::runMain() {
  if (runBatchMode)
    return runBatch();
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  RunSummary summary;
  return runOnce(context, summary);
}

int tool::runOnce(mlir::MLIRContext &context, RunSummary &summary) {
  if (runInput.empty())
    return fail("tilec run needs an input file: tilec run FILE --grid "
                "X[,Y[,Z]] [options]");
  if (runGrid.getNumOccurrences() == 0)
    return fail("tilec run needs --grid X[,Y[,Z]] (the programs along axes "
                "0, 1, 2)");
  if (runBackend != "cpu" && runBackend != "gpu")
    return fail("unknown --backend '" + runBackend + "' (expected cpu or gpu)");
  // The CPU backend ignores them (num_warps, num_stages and the pass
  // switches), but a run is a compile too: the same values are accepted on
  // both backends.
  PipelineOptions pipeline;
  pipeline.numWarps = runNumWarps;
  pipeline.numStages = runNumStages;
  if (llvm::Error err = runFlags.apply(pipeline))
    return fail(llvm::toString(std::move(err)));

  auto start = Clock::now();
  auto source = KernelSource::load(
      runInput, runKernel, runSignature, context,
      frontend::DiagnosticSink::kDefaultErrorLimit, getEmitOptions(runDebug));
  if (!source)
    return 1;
  double frontendSeconds = secondsSince(start);
  summary.frontend = frontendSeconds;

  auto inputs = buildInputs(source->interface());
  if (!inputs)
    return fail(llvm::toString(inputs.takeError()));
  // What the kernel changes is marked in the report.
  std::vector<std::uint64_t> hashesBefore;
  for (const HostArray &array : inputs->arrays)
    hashesBefore.push_back(array.hash());

  RunTimes times;
  std::string device;
  llvm::Error err =
      runBackend == "cpu"
          ? runOnCpu(*source, *inputs, times, device)
          : runOnGpu(*source, pipeline, runDumpIR, *inputs, times, device);
  summary.compile = times.passes + times.codegen;
  summary.launch =
      times.first + times.timedTotal;
  summary.deviceFault = times.deviceFault;
  if (err)
    return fail(llvm::toString(std::move(err)));

  llvm::raw_ostream &os = llvm::outs();
  const std::array<unsigned, 3> &grid = inputs->grid;
  os << "kernel '" << source->interface().name << "' on " << device
     << ", grid (" << grid[0] << ", " << grid[1] << ", " << grid[2] << ")\n";
  os << "compile: frontend " << formatMillis(frontendSeconds);
  if (runBackend == "cpu")
    os << ", passes " << formatMillis(times.passes) << ", LLVM -O3 + JIT "
       << formatMillis(times.codegen) << "\n";
  else
    os << ", passes + PTX + ptxas " << formatMillis(times.codegen) << "\n";
  os << "run: " << formatMillis(times.first) << " (first launch)";
  if (times.timedRuns)
    os << "; median " << formatMillis(times.median) << ", min "
       << formatMillis(times.min) << " over " << times.timedRuns
       << " launches";
  os << "\n";
  for (auto [i, array] : llvm::enumerate(inputs->arrays)) {
    bool written = array.hash() != hashesBefore[i];
    os << llvm::format("%-20s %10zu x %-7s %-8s sum %.9g  fnv1a 0x%016llx\n",
                       array.name().c_str(), array.count(),
                       array.type().c_str(), written ? "written" : "",
                       array.sum(),
                       static_cast<unsigned long long>(array.hash()));
  }
  for (const std::string &item : runOutputs) {
    auto [name, path] = llvm::StringRef(item).split('=');
    auto it = llvm::find_if(inputs->arrays, [&](const HostArray &array) {
      return array.name() == name.trim();
    });
    if (it == inputs->arrays.end() || path.empty())
      return fail("--output '" + item + "': expected name=file for a pointer "
                  "parameter");
    if (auto error = it->writeFile(path.trim()))
      return fail(llvm::toString(std::move(error)));
  }
  return 0;
}
