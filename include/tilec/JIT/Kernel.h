//===- Kernel.h - A JIT kernel: specialize, compile, launch -----*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A kernel of a source handed to Compiler::compileSource/compileFile. Like a
// Triton `@jit` function, it is compiled on demand for the arguments it is
// launched with:
//
//   llvm::Error err = kernel.launch(grid, stream, x, y, out, n, 1024);
//
// specializes the arguments (Specialization.h), looks the specialization up
// (first among those this Kernel has loaded, then in the Compiler's memory,
// then on disk), compiles it only if all miss, loads it on the device once,
// and queues the launch. A launch of a loaded specialization does no
// compilation, no file access and no allocation beyond the runtime's
// argument packing (bench/RESULTS.md has the cost).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_JIT_KERNEL_H
#define TILEC_JIT_KERNEL_H

#include "tilec/Frontend/KernelSource.h"
#include "tilec/JIT/Argument.h"
#include "tilec/JIT/CompiledKernel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace tilec::jit {

namespace detail {
class CompilerImpl;
struct KernelState;
} // namespace detail

/// A handle to one kernel of one source. Cheap to copy: copies share the
/// kernel's loaded specializations, and keep the Compiler's state alive.
/// Launching one Kernel from several threads is safe, except for kernels
/// with a global-scratch hidden parameter (docs/metadata.md; none yet),
/// whose launches share one scratch buffer.
class Kernel {
public:
  /// An empty handle (from a default-constructed Kernel only).
  Kernel() = default;
  explicit operator bool() const { return state != nullptr; }

  /// The kernel's name.
  const std::string &getName() const;
  /// Its parameters as written, in order.
  const std::vector<frontend::KernelSourceParameter> &getParameters() const;

  /// The signature a launch with `args` compiles, e.g. `*fp32:16, i32, 1024`.
  /// Errors as specializeSignature's.
  llvm::Expected<std::string> specialize(llvm::ArrayRef<Arg> args) const;

  /// The kernel specialized for `signature` (Triton's AOT form, one entry per
  /// parameter): from the Compiler's memory, from the disk cache, or
  /// compiled (the frontend, the pass pipeline, LLVM and ptxas) and stored.
  /// Needs no GPU. Errors carry the compiler's diagnostics: "<file>:12:5:
  /// error: ..." with the source line and a caret.
  llvm::Expected<std::shared_ptr<const CompiledKernel>>
  compile(llvm::StringRef signature) const;

  /// Queues one launch of grid.x * grid.y * grid.z programs on `stream`
  /// with one argument per kernel parameter (trailing parameters with
  /// literal defaults may be left out); see the file comment. The first
  /// launch of a specialization compiles (or reads) and loads it. Errors:
  /// specialization and compilation errors, "no CUDA driver: ..." without a
  /// GPU, and the runtime's launch checks ("grid (0, 1, 1) out of range").
  /// The launch is asynchronous: a fault in the kernel shows at the next
  /// synchronizing CUDA call.
  template <typename... Args>
  llvm::Error launch(Grid grid, Stream stream, const Args &...args) const {
    const Arg list[] = {Arg(args)..., Arg(0)};
    return launchArgs(grid, stream, llvm::ArrayRef<Arg>(list, sizeof...(Args)));
  }

  /// launch() with the arguments in an array.
  llvm::Error launchArgs(Grid grid, Stream stream,
                         llvm::ArrayRef<Arg> args) const;

  /// How many specializations this kernel has loaded on the device.
  size_t getNumLoadedSpecializations() const;

private:
  friend class Compiler;
  Kernel(std::shared_ptr<detail::CompilerImpl> compiler,
         std::shared_ptr<detail::KernelState> state)
      : compiler(std::move(compiler)), state(std::move(state)) {}

  std::shared_ptr<detail::CompilerImpl> compiler;
  std::shared_ptr<detail::KernelState> state;
};

} // namespace tilec::jit

#endif // TILEC_JIT_KERNEL_H
