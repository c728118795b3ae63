//===- CompilerImpl.h - The state behind Compiler and Kernel ----*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/JIT. Ownership: a Compiler and every Kernel it made hold a
// shared_ptr to one CompilerImpl; the CompilerImpl holds its KernelStates
// (the in-memory source cache), and each KernelState its loaded
// specializations. Members are declared so that loaded kernels are
// destroyed before the device they were loaded on.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_JIT_COMPILERIMPL_H
#define TILEC_LIB_JIT_COMPILERIMPL_H

#include "tilec/JIT/Compiler.h"
#include "tilec/JIT/DiskCache.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace tilec::runtime {
class Device;
class Kernel;
} // namespace tilec::runtime

namespace tilec::jit::detail {

/// What a launch's arguments look like to the specialization rules: equal
/// keys (and equal constexpr strings) give the same signature.
struct SpecializationKey {
  llvm::SmallVector<std::uint64_t, 16> words;
  llvm::SmallVector<std::string_view, 2> strings;
};

/// One specialization of a kernel, loaded on the device.
struct LoadedSpecialization {
  llvm::SmallVector<std::uint64_t, 16> words;
  std::vector<std::string> strings;
  std::shared_ptr<const CompiledKernel> compiled;
  /// The device it is loaded on (owned by the CompilerImpl).
  runtime::Device *device = nullptr;
  std::unique_ptr<runtime::Kernel> kernel;
  /// The launch arguments the compiled kernel takes (the others were
  /// specialized away), as indices into the launch's argument list.
  llvm::SmallVector<std::uint32_t, 16> passed;

  bool matches(const SpecializationKey &key) const;
};

/// One kernel of one source (what a Kernel handle refers to).
struct KernelState {
  std::string source;
  std::string fileName;
  /// The kernel name the caller asked for ("" = the only one).
  std::string requestedName;
  frontend::KernelSource info;

  std::mutex mutex;
  std::vector<std::unique_ptr<LoadedSpecialization>> loaded;
};

class CompilerImpl {
public:
  explicit CompilerImpl(CompilerOptions options);
  ~CompilerImpl();

  llvm::Expected<std::shared_ptr<KernelState>>
  getKernel(llvm::StringRef source, llvm::StringRef kernelName,
            llvm::StringRef fileName);

  /// The kernel of `state` specialized for `signature`: memory, disk, or a
  /// compilation.
  llvm::Expected<std::shared_ptr<const CompiledKernel>>
  compile(const KernelState &state, llvm::StringRef signature);

  /// The specialization of `state` for `args`, loading it the first time.
  llvm::Expected<LoadedSpecialization *>
  getLoaded(KernelState &state, llvm::ArrayRef<Arg> args,
            const SpecializationKey &key);

  /// The device launches go to, opened on first use.
  llvm::Expected<runtime::Device *> getDevice();

  CompilerOptions options;
  DiskCache disk;

  mutable std::mutex mutex; // Guards everything below.
  CacheStats stats;
  std::string lastStoreError;

private:
  /// The toolchain part of the cache key (ptxas, libdevice), once.
  llvm::Error resolveToolchain();
  llvm::Expected<std::shared_ptr<const CompiledKernel>>
  compileNow(const KernelState &state, llvm::StringRef signature,
             const std::string &key, const std::string &keyText,
             llvm::StringRef dumpDir);

  // The device first, so that it is destroyed last.
  std::unique_ptr<runtime::Device> device;
  std::optional<std::string> deviceError;

  std::unique_ptr<mlir::MLIRContext> context; // Created by the first compile.
  std::mutex compileMutex;                    // One compilation at a time.

  bool toolchainResolved = false;
  std::string ptxasPath, ptxasDescription, libdevice;

  llvm::StringMap<std::shared_ptr<const CompiledKernel>> compiled;
  llvm::StringMap<std::vector<std::shared_ptr<KernelState>>> sources;
};

/// The key of a launch's arguments for `state`'s parameters.
void computeSpecializationKey(const KernelState &state,
                              llvm::ArrayRef<Arg> args, SpecializationKey &key);

} // namespace tilec::jit::detail

#endif // TILEC_LIB_JIT_COMPILERIMPL_H
