//===- Compiler.h - The embedded JIT compiler -------------------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// tilec embedded in a C++ program (docs/jit-api.md):
//
//   auto compiler = tilec::jit::Compiler::create();      // once
//   if (!compiler) ... llvm::toString(compiler.takeError())
//   auto kernel = compiler->compileSource(source, "add_kernel");
//   if (!kernel) ...                      // syntax errors, unknown kernel
//   if (llvm::Error err = kernel->launch({blocks}, stream, x, y, out, n, 1024))
//     ...                                 // diagnostics, CUDA errors
//
// compileSource parses the source and finds the kernel (well under a
// millisecond); compilation happens at the first launch of each
// specialization, or with Kernel::compile. Compiling the same source again
// returns the same Kernel. Nothing throws: every error is an llvm::Error
// whose message is the diagnostic text.
//
// Thread safety: a Compiler may be used from several threads; compilations
// run one at a time.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_JIT_COMPILER_H
#define TILEC_JIT_COMPILER_H

#include "tilec/JIT/Kernel.h"
#include "tilec/JIT/Options.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>

namespace tilec::jit {

/// What a Compiler's caches did so far.
struct CacheStats {
  /// compileSource/compileFile calls answered from memory, and parsed.
  std::uint64_t sourceHits = 0, sourceMisses = 0;
  /// Specializations found in memory (another Kernel handle or launch
  /// already had them), on disk, and compiled.
  std::uint64_t memoryHits = 0, diskHits = 0, compiles = 0;
  /// Disk entries found corrupt (then rebuilt), and stores that failed
  /// (the kernel is still used; the error is in getLastStoreError()).
  std::uint64_t diskCorrupt = 0, diskStoreErrors = 0;
  /// Modules loaded on the device.
  std::uint64_t loads = 0;
};

/// Compiles tile kernels at run time, caches them in memory and on disk, and
/// loads them on a device. Movable; Kernels made by it keep its state alive.
class Compiler {
public:
  /// A compiler with `options`; empty `cacheDir`/`dumpDir` are resolved from
  /// the environment (Options.h). Errors: invalid options ("numWarps must
  /// be a power of two between 1 and 32, got 3").
  static llvm::Expected<Compiler> create(CompilerOptions options = {});

  Compiler(Compiler &&) noexcept;
  Compiler &operator=(Compiler &&) noexcept;
  ~Compiler();

  /// The kernel `kernelName` of `source` (a `.tile` file's text or a Triton
  /// `.py` module); an empty name picks the source's only kernel. The name
  /// `fileName` appears in diagnostics and in the line tables. Errors:
  /// syntax errors (with source line and caret), no such kernel.
  llvm::Expected<Kernel> compileSource(llvm::StringRef source,
                                       llvm::StringRef kernelName = "",
                                       llvm::StringRef fileName = "<source>");

  /// compileSource on a file's contents, named by its absolute path.
  llvm::Expected<Kernel> compileFile(llvm::StringRef path,
                                     llvm::StringRef kernelName = "");

  /// The options in use, with the cache and dump directories resolved.
  const CompilerOptions &getOptions() const;

  CacheStats getStats() const;
  /// The message of the last failed disk-cache store ("" if none).
  std::string getLastStoreError() const;

private:
  explicit Compiler(std::shared_ptr<detail::CompilerImpl> impl);
  std::shared_ptr<detail::CompilerImpl> impl;
};

} // namespace tilec::jit

#endif // TILEC_JIT_COMPILER_H
