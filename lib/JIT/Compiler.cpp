//===- Compiler.cpp - The embedded JIT compiler ---------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Compiler::compileSource parses and describes the kernel (KernelSource.h);
// CompilerImpl::compile turns (kernel, signature) into a CompiledKernel
// through three levels: the in-memory map, the disk cache, and the compiler
// itself. The MLIR context is created by the first compilation, so a process
// whose kernels all come from the disk cache never builds one.
//
//===----------------------------------------------------------------------===//

#include "CompilerImpl.h"

#include "tilec/Compiler/Compiler.h"
#include "tilec/Compiler/Registration.h"
#include "tilec/Frontend/Frontend.h"
#include "tilec/Frontend/Parser.h"
#include "tilec/Frontend/Signature.h"
#include "tilec/JIT/CacheKey.h"
#include "tilec/Runtime/Device.h"
#include "tilec/Runtime/Kernel.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <chrono>
#include <cstdlib>

using namespace tilec;
using namespace tilec::jit;
using namespace tilec::jit::detail;

namespace {

/// Debug mode of a compilation: the option, or `TRITON_DEBUG=1` as Triton
/// reads it.
bool isDebugMode(const CompilerOptions &options) {
  const char *env = std::getenv("TRITON_DEBUG");
  return options.debug || (env && llvm::StringRef(env) == "1");
}


double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// The pipeline's options of a compilation with `options`.
PipelineOptions getPipelineOptions(const CompilerOptions &options) {
  PipelineOptions pipeline;
  static_cast<PassSwitches &>(pipeline) = options;
  pipeline.numWarps = options.numWarps;
  pipeline.numStages = options.numStages;
  pipeline.lineInfo = options.lineInfo;
  return pipeline;
}

llvm::Error validate(const CompilerOptions &options) {
  if (llvm::Error err = verifyPipelineOptions(getPipelineOptions(options),
                                              OptionSpelling::Field))
    return err;
  if (llvm::Expected<unsigned> ptx = resolvePTXVersion(
          options.arch, options.ptxVersion, OptionSpelling::Field);
      !ptx)
    return ptx.takeError();
  std::string regexError;
  if (!options.dumpKernel.empty() &&
      !llvm::Regex(options.dumpKernel).isValid(regexError))
    return llvm::createStringError("dumpKernel '" + options.dumpKernel +
                                   "' is not a valid regular expression: " +
                                   regexError);
  return llvm::Error::success();
}

} // namespace

//===----------------------------------------------------------------------===//
// CompilerImpl
//===----------------------------------------------------------------------===//

CompilerImpl::CompilerImpl(CompilerOptions opts)
    : options(std::move(opts)), disk(options.cacheDir) {}

CompilerImpl::~CompilerImpl() = default;

llvm::Expected<std::shared_ptr<KernelState>>
CompilerImpl::getKernel(llvm::StringRef source, llvm::StringRef kernelName,
                        llvm::StringRef fileName) {
  // The exact text, name and file identify the kernel: a hit needs no parse.
  std::string id =
      llvm::utohexstr(llvm::xxh3_64bits(source) ^
                      llvm::xxh3_64bits((fileName + "\n" + kernelName).str()));
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = sources.find(id);
    if (it != sources.end())
      for (const std::shared_ptr<KernelState> &state : it->second)
        if (state->source == source && state->fileName == fileName &&
            state->requestedName == kernelName) {
          ++stats.sourceHits;
          return state;
        }
  }

  auto state = std::make_shared<KernelState>();
  state->source = source.str();
  state->fileName = fileName.str();
  state->requestedName = kernelName.str();
  llvm::SourceMgr srcMgr;
  unsigned bufferId = srcMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(state->source, state->fileName,
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  frontend::SourceMgrDiagnosticSink sink(srcMgr, os);
  std::unique_ptr<frontend::ModuleAST> module =
      frontend::parseModule(srcMgr, bufferId, sink);
  if (!module)
    return llvm::createStringError(llvm::StringRef(diagnostics).rtrim());
  llvm::Expected<frontend::KernelSource> info =
      frontend::describeKernelSource(srcMgr, bufferId, *module, kernelName);
  if (!info)
    return info.takeError();
  state->info = std::move(*info);

  std::lock_guard<std::mutex> lock(mutex);
  ++stats.sourceMisses;
  sources[id].push_back(state);
  return state;
}

llvm::Error CompilerImpl::resolveToolchain() {
  // Called with `mutex` held.
  if (toolchainResolved)
    return llvm::Error::success();
  if (!options.ptxOnly) {
    if (!options.ptxas.empty())
      ptxasPath = options.ptxas;
    else if (std::optional<std::string> found = findPtxas())
      ptxasPath = *found;
  }
  if (!ptxasPath.empty()) {
    llvm::Expected<std::string> description = describePtxas(
        ptxasPath, options.diskCache ? disk.getDirectory() : llvm::StringRef());
    if (!description)
      return description.takeError();
    ptxasDescription = std::move(*description);
  } else {
    ptxasDescription = "none";
  }
  libdevice = describeLibdevice();
  toolchainResolved = true;
  return llvm::Error::success();
}

llvm::Expected<std::shared_ptr<const CompiledKernel>>
CompilerImpl::compile(const KernelState &state, llvm::StringRef signature) {
  llvm::Expected<frontend::Signature> parsed =
      frontend::parseSignature(signature);
  if (!parsed)
    return llvm::createStringError(
        "kernel '" + state.info.name +
        "': invalid signature: " + llvm::toString(parsed.takeError()));
  CacheKeyInputs inputs;
  static_cast<PassSwitches &>(inputs) = options;
  inputs.compiler = getCompilerIdentity();
  inputs.kernelName = state.info.name;
  inputs.sourceHash = state.info.hash;
  inputs.signature = parsed->str();
  inputs.arch = options.arch;
  inputs.ptxVersion = options.ptxVersion;
  inputs.numWarps = options.numWarps;
  inputs.numStages = options.numStages;
  inputs.lineInfo = options.lineInfo;
  inputs.debug = isDebugMode(options);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (llvm::Error err = resolveToolchain())
      return std::move(err);
    inputs.ptxas = ptxasDescription;
    inputs.libdevice = libdevice;
  }
  std::string keyText = getCacheKeyText(inputs);
  std::string key = getCacheKey(inputs);

  bool dumping = !options.dumpDir.empty() &&
                 (options.dumpKernel.empty() ||
                  llvm::Regex(options.dumpKernel).match(state.info.name));
  llvm::SmallString<256> dumpDir;
  if (dumping) {
    dumpDir = options.dumpDir;
    llvm::sys::path::append(dumpDir, state.info.name + "-" + key.substr(0, 12));
  }
  // A cached kernel's dump directory says where it came from.
  auto noteCacheHit = [&](llvm::StringRef origin, llvm::StringRef from) {
    if (!dumping || llvm::sys::fs::create_directories(dumpDir))
      return;
    llvm::SmallString<256> path(dumpDir);
    llvm::sys::path::append(path, "cache-hit.json");
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec)
      return;
    os << llvm::formatv(
              "{0:2}",
              llvm::json::Value(llvm::json::Object{
                  {"format", "tilec-cache-hit"},
                  {"kernel", state.info.name},
                  {"signature", inputs.signature},
                  {"key", key},
                  {"origin", origin},
                  {"from", from},
                  {"note", "not recompiled, so no passes were dumped; set "
                           "TILEC_DUMP_ON_CACHE_HIT=1 (dumpOnCacheHit) to "
                           "recompile a disk-cached kernel and dump it"}}))
       << "\n";
  };
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = compiled.find(key);
    if (it != compiled.end()) {
      ++stats.memoryHits;
      // Compiled (and dumped, if it was) by this process already.
      if (dumping && it->second->dumpDir != dumpDir.str())
        noteCacheHit("memory", it->second->dumpDir);
      return it->second;
    }
  }
  if (options.diskCache && !(dumping && options.dumpOnCacheHit)) {
    auto start = std::chrono::steady_clock::now();
    CacheLookup found = disk.lookup(key, keyText);
    if (found.status == CacheLookup::Status::Hit) {
      auto kernel = std::make_shared<CompiledKernel>();
      kernel->name = state.info.name;
      kernel->signature = inputs.signature;
      kernel->key = key;
      kernel->keyText = keyText;
      kernel->metadata = std::move(found.entry.metadata);
      kernel->ptx = std::move(found.entry.ptx);
      kernel->cubin = std::move(found.entry.cubin);
      kernel->ptxasLog = std::move(found.entry.ptxasLog);
      kernel->origin = CacheOrigin::Disk;
      kernel->diskSeconds = secondsSince(start);
      if (dumping) {
        noteCacheHit("disk", disk.getEntryPath(key));
        kernel->dumpDir = dumpDir.str().str();
      }
      std::lock_guard<std::mutex> lock(mutex);
      ++stats.diskHits;
      auto [it, inserted] = compiled.try_emplace(key, std::move(kernel));
      return it->second;
    }
    if (found.status == CacheLookup::Status::Corrupt) {
      std::lock_guard<std::mutex> lock(mutex);
      ++stats.diskCorrupt;
    }
  }
  return compileNow(state, inputs.signature, key, keyText, dumpDir);
}

llvm::Expected<std::shared_ptr<const CompiledKernel>>
CompilerImpl::compileNow(const KernelState &state, llvm::StringRef signature,
                         const std::string &key, const std::string &keyText,
                         llvm::StringRef dumpDir) {
  std::lock_guard<std::mutex> compileLock(compileMutex);
  {
    // Another thread may have compiled it while this one waited.
    std::lock_guard<std::mutex> lock(mutex);
    auto it = compiled.find(key);
    if (it != compiled.end()) {
      ++stats.memoryHits;
      return it->second;
    }
  }
  if (!context) {
    mlir::DialectRegistry registry;
    registerAllDialects(registry);
    context = std::make_unique<mlir::MLIRContext>(
        registry, mlir::MLIRContext::Threading::DISABLED);
    context->loadAllAvailableDialects();
  }

  llvm::SourceMgr srcMgr;
  unsigned bufferId = srcMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(state.source, state.fileName,
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  std::string diagnostics;
  llvm::raw_string_ostream diagOS(diagnostics);
  frontend::SourceMgrDiagnosticSink sink(srcMgr, diagOS);
  mlir::SourceMgrDiagnosticHandler handler(srcMgr, context.get(), diagOS);
  auto failure = [&](llvm::Error err) -> llvm::Error {
    std::string message = llvm::toString(std::move(err));
    std::string text = llvm::StringRef(diagnostics).rtrim().str();
    return llvm::createStringError(text.empty() ? message
                                                : text + "\n" + message);
  };

  auto frontendStart = std::chrono::steady_clock::now();
  mlir::FailureOr<frontend::KernelModule> kernelModule = frontend::emitKernel(
      srcMgr, bufferId, state.info.name, signature, *context, sink,
      frontend::EmitOptions{isDebugMode(options)});
  double frontendSeconds = secondsSince(frontendStart);
  if (mlir::failed(kernelModule))
    return failure(llvm::createStringError(
        "kernel '" + state.info.name + "' does not compile for signature '" +
        signature + "'"));
  KernelInterface interface = std::move(kernelModule->interface);

  CompileOptions compileOptions;
  compileOptions.pipeline = getPipelineOptions(options);
  compileOptions.target.chip = options.arch;
  compileOptions.target.features = "+ptx" + std::to_string(options.ptxVersion);
  std::string ptxas;
  {
    std::lock_guard<std::mutex> lock(mutex);
    ptxas = ptxasPath;
  }
  compileOptions.emit = ptxas.empty() ? EmitKind::PTX : EmitKind::Cubin;
  compileOptions.ptxas = ptxas;
  if (!dumpDir.empty()) {
    compileOptions.dumpDir = dumpDir.str();
    compileOptions.dumpSourceText = state.source;
  }
  llvm::Expected<CompileResult> result =
      compileModule(*kernelModule->module, interface, compileOptions);
  if (!result)
    return failure(result.takeError());

  auto kernel = std::make_shared<CompiledKernel>();
  kernel->name = interface.name;
  kernel->signature = signature.str();
  kernel->key = key;
  kernel->keyText = keyText;
  {
    llvm::raw_string_ostream os(kernel->metadata);
    os << llvm::json::Value(
        buildKernelMetadata(interface, compileOptions, *result, {}));
  }
  kernel->ptx = std::move(result->ptx);
  if (result->ptxas) {
    kernel->cubin.assign(result->ptxas->cubin.begin(),
                         result->ptxas->cubin.end());
    kernel->ptxasLog = std::move(result->ptxas->log);
  }
  kernel->dumpDir = compileOptions.dumpDir;
  kernel->origin = CacheOrigin::Compiled;
  kernel->times = result->times;
  kernel->times.frontend = frontendSeconds;

  std::string storeError;
  if (options.diskCache) {
    CacheEntry entry{keyText, kernel->metadata, kernel->ptx, kernel->cubin,
                     kernel->ptxasLog};
    if (llvm::Error err = disk.store(key, entry))
      storeError = llvm::toString(std::move(err));
  }
  std::lock_guard<std::mutex> lock(mutex);
  ++stats.compiles;
  if (!storeError.empty()) {
    ++stats.diskStoreErrors;
    lastStoreError = storeError;
  }
  auto [it, inserted] = compiled.try_emplace(key, std::move(kernel));
  return it->second;
}

llvm::Expected<runtime::Device *> CompilerImpl::getDevice() {
  std::lock_guard<std::mutex> lock(mutex);
  if (device)
    return device.get();
  if (deviceError)
    return llvm::createStringError(*deviceError);
  runtime::Expected<std::unique_ptr<runtime::Device>> opened =
      runtime::Device::open(options.device);
  if (!opened) {
    deviceError = opened.status().message();
    return llvm::createStringError(*deviceError);
  }
  device = opened.take();
  return device.get();
}

//===----------------------------------------------------------------------===//
// Compiler
//===----------------------------------------------------------------------===//

Compiler::Compiler(std::shared_ptr<CompilerImpl> impl)
    : impl(std::move(impl)) {}
Compiler::Compiler(Compiler &&) noexcept = default;
Compiler &Compiler::operator=(Compiler &&) noexcept = default;
Compiler::~Compiler() = default;

llvm::Expected<Compiler> Compiler::create(CompilerOptions options) {
  if (llvm::Error err = validate(options))
    return std::move(err);
  if (options.cacheDir.empty())
    options.cacheDir = DiskCache::getDefaultDirectory();
  if (options.dumpDir.empty())
    if (const char *env = std::getenv("TILEC_DUMP_DIR"); env && *env)
      options.dumpDir = env;
  if (options.dumpKernel.empty())
    if (const char *env = std::getenv("TILEC_DUMP_KERNEL"); env && *env)
      options.dumpKernel = env;
  if (const char *env = std::getenv("TILEC_DUMP_ON_CACHE_HIT");
      env && llvm::StringRef(env) == "1")
    options.dumpOnCacheHit = true;
  return Compiler(std::make_shared<CompilerImpl>(std::move(options)));
}

llvm::Expected<Kernel> Compiler::compileSource(llvm::StringRef source,
                                               llvm::StringRef kernelName,
                                               llvm::StringRef fileName) {
  llvm::Expected<std::shared_ptr<KernelState>> state =
      impl->getKernel(source, kernelName, fileName);
  if (!state)
    return state.takeError();
  return Kernel(impl, std::move(*state));
}

llvm::Expected<Kernel> Compiler::compileFile(llvm::StringRef path,
                                             llvm::StringRef kernelName) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return llvm::createStringError(buffer.getError(),
                                   "cannot read '" + path +
                                       "': " + buffer.getError().message());
  llvm::SmallString<256> absolute(path);
  llvm::sys::fs::make_absolute(absolute);
  return compileSource((*buffer)->getBuffer(), kernelName, absolute);
}

const CompilerOptions &Compiler::getOptions() const { return impl->options; }

CacheStats Compiler::getStats() const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->stats;
}

std::string Compiler::getLastStoreError() const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->lastStoreError;
}
