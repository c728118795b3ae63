//===- CpuBackend.cpp - Running cases on the host CPU ---------------------===//

#include "CpuBackend.h"

#include "tilec/Compiler/Compiler.h"
#include "tilec/Compiler/Registration.h"
#include "tilec/ExecutionEngine/CpuKernel.h"
#include "tilec/Frontend/Frontend.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/Threading.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <chrono>

namespace tilec::e2e {

namespace {
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string kernelKey(const std::string &name, const std::string &signature) {
  return name + "(" + signature + ")";
}
} // namespace

CpuBackend::CpuBackend(Options options) : options_(options) {
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  context_ = std::make_unique<mlir::MLIRContext>(registry);
  context_->loadAllAvailableDialects();
}

CpuBackend::~CpuBackend() = default;

std::string CpuBackend::describe() const {
  unsigned threads = options_.threads
                         ? options_.threads
                         : llvm::hardware_concurrency().compute_thread_count();
  return "host CPU (" + llvm::sys::getHostCPUName().str() + ", " +
         std::to_string(threads) + " threads" +
         (options_.sanitize ? ", sanitizer" : "") + ")";
}

std::optional<runtime::KernelMetadata>
CpuBackend::compile(const CaseSpec &spec, const std::string &examplesDir,
                    double &seconds, std::string &error) {
  auto start = Clock::now();
  std::string path = examplesDir + "/" + spec.file;
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    error = "cannot read '" + path + "': " + buffer.getError().message();
    return std::nullopt;
  }
  llvm::SourceMgr srcMgr;
  unsigned bufferId = srcMgr.AddNewSourceBuffer(std::move(*buffer), {});
  std::string diagnostics;
  llvm::raw_string_ostream diagStream(diagnostics);
  mlir::SourceMgrDiagnosticHandler handler(srcMgr, context_.get(), diagStream);
  frontend::SourceMgrDiagnosticSink sink(srcMgr, diagStream);
  auto emitted = frontend::emitKernel(srcMgr, bufferId, spec.kernel,
                                      spec.signature, *context_, sink);
  if (mlir::failed(emitted)) {
    error = "frontend failed:\n" + diagnostics;
    return std::nullopt;
  }
  emitted->interface.sourcePath = path;

  cpu::CpuCompileOptions options;
  options.pipeline.sanitize = options_.sanitize;
  auto kernel = cpu::CpuKernel::compile(emitted->module.get(),
                                        emitted->interface, options);
  if (!kernel) {
    error = llvm::toString(kernel.takeError()) + "\n" + diagnostics;
    return std::nullopt;
  }

  // The metadata `tilec` would write for this kernel.
  // (num_warps and the thread count describe the GPU launch; the CPU runs
  // one program per call, but the metadata is checked the same way.)
  CompileOptions metadataOptions;
  metadataOptions.pipeline.numWarps = spec.numWarps;
  CompileResult described;
  described.numThreads = spec.numWarps * 32;
  std::string json = llvm::formatv(
      "{0}", llvm::json::Value(buildKernelMetadata(
                 emitted->interface, metadataOptions, described, {})));
  runtime::Expected<runtime::KernelMetadata> metadata =
      runtime::KernelMetadata::parse(json);
  if (!metadata) {
    error = metadata.status().message();
    return std::nullopt;
  }
  kernels_[kernelKey(metadata->name, metadata->signature)] =
      std::move(*kernel);
  seconds = secondsSince(start);
  return metadata.take();
}

RunOutcome CpuBackend::run(const runtime::KernelMetadata &metadata,
                           Problem &problem, const RunOptions &options) {
  RunOutcome outcome;
  auto it = kernels_.find(kernelKey(metadata.name, metadata.signature));
  if (it == kernels_.end()) {
    outcome.error = "kernel '" + metadata.name + "' was not compiled for the "
                    "CPU";
    return outcome;
  }
  cpu::CpuKernel &kernel = *it->second;

  std::vector<cpu::CpuArgument> args;
  for (const CaseArg &arg : problem.args) {
    if (arg.tensor)
      args.push_back(
          cpu::CpuArgument::pointer(problem.tensors[*arg.tensor].data()));
    else
      args.push_back(
          cpu::CpuArgument::scalarBytes(arg.scalar->data(), arg.scalar->size()));
  }
  cpu::CpuLaunchOptions launch;
  launch.threads = options_.threads;
  for (HostTensor &tensor : problem.tensors)
    launch.buffers.push_back({tensor.name(), tensor.data(), tensor.bytes()});

  if (llvm::Error err = kernel.launch(problem.grid, args, launch)) {
    outcome.error = llvm::toString(std::move(err));
    return outcome;
  }
  outcome.ran = true;
  if (options.repeat <= 0)
    return outcome;

  // Timing: one warm-up, then the median of `repeat` launches. The outputs
  // are rewritten with the same values.
  if (llvm::Error err = kernel.launch(problem.grid, args, launch)) {
    outcome.error = llvm::toString(std::move(err)) + " (while timing)";
    return outcome;
  }
  std::vector<double> micros;
  for (int i = 0; i < options.repeat; ++i) {
    auto start = Clock::now();
    if (llvm::Error err = kernel.launch(problem.grid, args, launch)) {
      outcome.error = llvm::toString(std::move(err)) + " (while timing)";
      return outcome;
    }
    micros.push_back(1e6 * secondsSince(start));
  }
  std::sort(micros.begin(), micros.end());
  std::size_t n = micros.size();
  outcome.timedRuns = static_cast<int>(n);
  outcome.medianMicros =
      n % 2 ? micros[n / 2] : 0.5 * (micros[n / 2 - 1] + micros[n / 2]);
  return outcome;
}

} // namespace tilec::e2e
