//===- CpuKernel.cpp - a tile kernel compiled for and run on the host -----===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/ExecutionEngine/CpuKernel.h"

#include "DeviceDebug.h"
#include "GridLauncher.h"
#include "HostSymbols.h"
#include "Sanitizer.h"

#include "tilec/Conversion/TileToLinalg/TileToLinalg.h"
#include "tilec/Support/ScalarType.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <chrono>
#include <cstdio>
#include <mutex>
#include <optional>

using namespace tilec;
using namespace tilec::cpu;

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

void initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

/// Writes `module` to `<dir>/<name>` (IR dumps; failures only warn).
void dumpLLVMModule(llvm::StringRef dir, llvm::StringRef name,
                    llvm::Module &module) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    llvm::errs() << "tilec: warning: cannot write " << path << ": "
                 << ec.message() << "\n";
    return;
  }
  module.print(os, nullptr);
}

} // namespace

CpuKernel::~CpuKernel() = default;

llvm::Expected<std::unique_ptr<CpuKernel>>
CpuKernel::compile(mlir::ModuleOp module, const KernelInterface &kernel,
                   const CpuCompileOptions &options) {
  std::unique_ptr<CpuKernel> result(new CpuKernel());
  result->interface_ = kernel;
  result->sanitized_ = options.pipeline.sanitize;

  auto start = std::chrono::steady_clock::now();
  if (auto err = lowerModuleForCpu(module, kernel, options.debug,
                                   options.pipeline))
    return std::move(err);
  result->pipelineSeconds_ = secondsSince(start);

  start = std::chrono::steady_clock::now();
  initializeNativeTarget();
  // The host's CPU and features, for LLVM's cost models (vector width) and
  // code generation alike.
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  // AVX512-BF16's (and AVX-NE-CONVERT's) f32 -> bf16 conversions flush
  // subnormals to zero whatever MXCSR says; LLVM uses them when it moves
  // bf16 values through f32 registers (phis, selects). Without them it calls
  // __truncsfbf2 (HostSymbols), which rounds like the GPU.
  builder->getFeatures().AddFeature("avx512bf16", false);
  builder->getFeatures().AddFeature("avxneconvert", false);
  std::string cpuName = builder->getCPU();
  std::string features = builder->getFeatures().getString();
  auto targetMachine = builder->createTargetMachine();
  if (!targetMachine)
    return targetMachine.takeError();
  auto optimize = mlir::makeOptimizingTransformer(options.optLevel,
                                                  /*sizeLevel=*/0,
                                                  targetMachine->get());
  const std::string &dumpDir = options.debug.dumpDir;
  auto transform = [&](llvm::Module *llvmModule) -> llvm::Error {
    // The JIT's code generator targets the host with every feature; these
    // attributes make it use the same CPU and features as the optimizer.
    for (llvm::Function &function : *llvmModule)
      if (!function.isDeclaration()) {
        function.addFnAttr("target-cpu", cpuName);
        function.addFnAttr("target-features", features);
      }
    if (!dumpDir.empty())
      dumpLLVMModule(dumpDir, "cpu-llvm-ir.ll", *llvmModule);
    if (auto err = optimize(llvmModule))
      return err;
    if (!dumpDir.empty())
      dumpLLVMModule(dumpDir, "cpu-llvm-ir-opt.ll", *llvmModule);
    return llvm::Error::success();
  };
  mlir::ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transform;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  engineOptions.enableGDBNotificationListener = false;
  engineOptions.enablePerfNotificationListener = false;
  auto engine = mlir::ExecutionEngine::create(module, engineOptions);
  if (!engine)
    return llvm::joinErrors(
        llvm::createStringError("JIT compilation of '" + kernel.name +
                                "' for the host failed"),
        engine.takeError());
  (*engine)->registerSymbols(getHostSymbols);
  (*engine)->initialize();
  auto function = (*engine)->lookupPacked(kernel.name);
  if (!function)
    return function.takeError();
  result->engine_ = std::move(*engine);
  result->function_ = *function;
  result->jitSeconds_ = secondsSince(start);
  return result;
}

llvm::Error CpuKernel::launch(std::array<unsigned, 3> grid,
                              llvm::ArrayRef<CpuArgument> args,
                              const CpuLaunchOptions &options) {
  const std::string &name = interface_.name;
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
    return llvm::createStringError(
        "kernel '" + name + "': every grid extent must be at least 1, got (" +
        std::to_string(grid[0]) + ", " + std::to_string(grid[1]) + ", " +
        std::to_string(grid[2]) + ")");
  std::vector<const KernelParameter *> params;
  for (const KernelParameter &param : interface_.parameters)
    if (param.isRuntime())
      params.push_back(&param);
  if (args.size() != params.size()) {
    std::string names;
    for (const KernelParameter *param : params)
      names += (names.empty() ? "" : ", ") + param->name;
    return llvm::createStringError(
        "kernel '" + name + "' takes " + std::to_string(params.size()) +
        " arguments (" + names + "), got " + std::to_string(args.size()));
  }
  for (auto [param, arg] : llvm::zip(params, args)) {
    bool isPointer = param->kind == KernelParameter::Kind::Pointer;
    if (isPointer != arg.isPointer())
      return llvm::createStringError(
          "kernel '" + name + "': argument '" + param->name + "' must be " +
          (isPointer ? "a pointer" : "a scalar of type " + param->type));
    if (!isPointer && arg.size() != scalarTypeSize(param->type))
      return llvm::createStringError(
          "kernel '" + name + "': argument '" + param->name + "' is " +
          param->type + " (" + std::to_string(scalarTypeSize(param->type)) +
          " bytes), got " + std::to_string(arg.size()) + " bytes");
  }

  std::optional<SanitizerSession> session;
  if (sanitized_) {
    if (options.buffers.empty())
      return llvm::createStringError(
          "kernel '" + name +
          "' was compiled with the sanitizer: launch it with its buffers");
    session.emplace(name, options.buffers, options.maxReports);
  }

  // Failed tl.device_assert of this launch (kernels compiled in debug
  // mode), reported like the sanitizer's violations.
  AssertSession assertions(name, options.maxReports);

  // One packed argument array per worker: the values are shared and
  // read-only, the six grid arguments are the worker's own.
  unsigned workers = getNumWorkers(grid, options.threads);
  struct Frame {
    std::array<std::int32_t, kNumGridArguments> gridValues;
    std::vector<void *> packed;
  };
  std::vector<Frame> frames(workers);
  for (Frame &frame : frames) {
    frame.gridValues = {0, 0, 0, static_cast<std::int32_t>(grid[0]),
                        static_cast<std::int32_t>(grid[1]),
                        static_cast<std::int32_t>(grid[2])};
    for (const CpuArgument &arg : args)
      frame.packed.push_back(const_cast<void *>(arg.data()));
    for (std::int32_t &value : frame.gridValues)
      frame.packed.push_back(&value);
  }
  runGrid(grid, workers, [&](unsigned worker, ProgramId id) {
    Frame &frame = frames[worker];
    for (unsigned axis = 0; axis < 3; ++axis)
      frame.gridValues[axis] = static_cast<std::int32_t>(id[axis]);
    if (session)
      setSanitizerProgram(&*session, id);
    setDebugProgram(&assertions, id);
    function_(frame.packed.data());
  });
  // Worker 0 is this thread: it must not keep pointing at the sessions.
  setDebugProgram(nullptr, {0, 0, 0});
  // tl.device_print writes with stdio: flush it before the caller prints.
  std::fflush(stdout);
  llvm::Error failed = assertions.takeError();
  if (session) {
    setSanitizerProgram(nullptr, {0, 0, 0});
    return llvm::joinErrors(session->takeError(), std::move(failed));
  }
  return failed;
}
