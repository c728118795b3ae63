//===- CpuKernel.h - a tile kernel compiled for and run on the host -*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The CPU backend's runtime side (docs/cpu-backend.md): a kernel in the
// `tile` dialect is lowered by the CPU pipeline (CpuPipeline.h),
// JIT-compiled for the host by MLIR's ExecutionEngine (ORC, LLVM -O3 with
// the host's CPU features) and launched over a grid: every program is one
// call of the per-program function, programs run in parallel on a small pool
// of threads, and the arguments are host addresses and scalar values.
//
//   auto kernel = cpu::CpuKernel::compile(*module, interface, {});
//   float *x = …, *z = …;
//   int32_t n = 1000;
//   llvm::Error err = (*kernel)->launch(
//       {cdiv(n, 1024), 1, 1},
//       {cpu::CpuArgument::pointer(x), cpu::CpuArgument::pointer(z),
//        cpu::CpuArgument::scalar(n)});
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_EXECUTIONENGINE_CPUKERNEL_H
#define TILEC_EXECUTIONENGINE_CPUKERNEL_H

#include "tilec/Compiler/Compiler.h"
#include "tilec/Compiler/CpuPipeline.h"
#include "tilec/Compiler/KernelInterface.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace mlir {
class ExecutionEngine;
class ModuleOp;
} // namespace mlir

namespace tilec::cpu {

/// One launch argument for a runtime parameter: a host address for a
/// pointer parameter, or the bytes of a scalar (little-endian, the size of
/// the parameter's type: 1 for i1, 2 for fp16, …).
class CpuArgument {
public:
  static CpuArgument pointer(const void *address) {
    CpuArgument arg(/*isPointer=*/true, sizeof(std::uint64_t));
    std::uint64_t bits = reinterpret_cast<std::uintptr_t>(address);
    std::memcpy(arg.bytes_, &bits, sizeof(bits));
    return arg;
  }
  /// A scalar given by its bytes (at most 8).
  static CpuArgument scalarBytes(const void *bytes, std::size_t size) {
    CpuArgument arg(/*isPointer=*/false, size > 8 ? 8 : size);
    std::memcpy(arg.bytes_, bytes, arg.size_);
    return arg;
  }
  /// A scalar of an arithmetic C++ type (`int32_t` for i32, `float` for
  /// fp32, `bool` for i1, …).
  template <typename T,
            typename = std::enable_if_t<std::is_arithmetic_v<T>>>
  static CpuArgument scalar(T value) {
    return scalarBytes(&value, sizeof(T));
  }

  bool isPointer() const { return isPointer_; }
  std::size_t size() const { return size_; }
  /// The value's storage: the packed call passes its address.
  const void *data() const { return bytes_; }
  void *data() { return bytes_; }
  /// The address of a pointer argument.
  std::uint64_t address() const {
    std::uint64_t bits;
    std::memcpy(&bits, bytes_, sizeof(bits));
    return bits;
  }

private:
  CpuArgument(bool isPointer, std::size_t size)
      : isPointer_(isPointer), size_(size) {}

  bool isPointer_;
  std::size_t size_;
  alignas(8) unsigned char bytes_[8] = {};
};

/// A host buffer a sanitized kernel may access (`[data, data + bytes)`).
struct HostBuffer {
  /// Printed in reports ("buffer 'x' is [0x…, 0x…)").
  std::string name;
  const void *data = nullptr;
  std::size_t bytes = 0;
};

/// How to compile a kernel for the host.
struct CpuCompileOptions {
  CpuPipelineOptions pipeline;
  /// IR dumps, printing and timing (the pipeline, target and emit fields
  /// are not used).
  CompileOptions debug;
  /// LLVM optimization level of the JIT (0-3).
  unsigned optLevel = 3;
};

/// How to launch.
struct CpuLaunchOptions {
  /// Worker threads (0: one per hardware thread). Never more than the
  /// number of programs.
  unsigned threads = 0;
  /// The buffers a sanitized kernel may access; accesses anywhere else are
  /// reported (and skipped). Ignored by kernels compiled without sanitizer.
  std::vector<HostBuffer> buffers;
  /// How many violations are described in the error (all are counted).
  unsigned maxReports = 10;
};

/// A kernel JIT-compiled for the host.
class CpuKernel {
public:
  /// Lowers `module` (one kernel in the `tile` dialect, as the frontend
  /// emits it, described by `kernel`) with the CPU pipeline and JIT-compiles
  /// it. Diagnostics go to the context's handler; the error says which step
  /// failed.
  static llvm::Expected<std::unique_ptr<CpuKernel>>
  compile(mlir::ModuleOp module, const KernelInterface &kernel,
          const CpuCompileOptions &options = {});

  ~CpuKernel();
  CpuKernel(const CpuKernel &) = delete;
  CpuKernel &operator=(const CpuKernel &) = delete;

  /// Runs every program of `grid` (each extent >= 1) once, in parallel;
  /// returns when all are done. `args` has one entry per runtime parameter
  /// (KernelInterface order, constexprs left out), checked against the
  /// interface. A sanitized kernel fails with one line per violation:
  ///   kernel 'k', program (3, 0, 0): out-of-bounds load of element 17 at
  ///   address 0x… (buffer 'x' is [0x…, 0x…)); load of tensor<…> at f:l:c
  /// Safe to call from one thread at a time.
  llvm::Error launch(std::array<unsigned, 3> grid,
                     llvm::ArrayRef<CpuArgument> args,
                     const CpuLaunchOptions &options = {});

  const KernelInterface &interface() const { return interface_; }
  bool isSanitized() const { return sanitized_; }
  /// Seconds spent in the pass pipeline and in the JIT (LLVM -O3 and code
  /// generation).
  double pipelineSeconds() const { return pipelineSeconds_; }
  double jitSeconds() const { return jitSeconds_; }

private:
  CpuKernel() = default;

  KernelInterface interface_;
  bool sanitized_ = false;
  double pipelineSeconds_ = 0, jitSeconds_ = 0;
  std::unique_ptr<mlir::ExecutionEngine> engine_;
  void (*function_)(void **) = nullptr;
};

} // namespace tilec::cpu

#endif // TILEC_EXECUTIONENGINE_CPUKERNEL_H
