//===- CHeader.h - A C header with an embedded kernel -----------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// `tilec --emit c-header` (the AOT path for C and C++ projects, like
// Triton's compile.py): one self-contained header per compiled kernel with
// the cubin embedded and typed functions that load and launch it through
// the CUDA driver API. The generated code is C99 (and valid C++), needs
// <cuda.h> and -lcuda, and nothing from tilec. docs/cli.md shows an example.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_COMPILER_CHEADER_H
#define TILEC_COMPILER_CHEADER_H

#include "tilec/Compiler/KernelInterface.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tilec {

/// What the header describes besides the kernel's parameters.
struct CHeaderKernel {
  /// Prefix of every generated name (a C identifier): `<prefix>_load`,
  /// `<prefix>_launch`, `<prefix>_t`, `<PREFIX>_NUM_THREADS`, ...
  std::string prefix;
  /// The sm_90a cubin.
  llvm::ArrayRef<char> cubin;
  /// Threads per block and dynamic shared memory bytes (the metadata's
  /// `num_threads` and `shared_memory.dynamic_bytes`).
  unsigned numThreads = 0;
  int64_t dynamicSharedBytes = 0;
  /// The target (`sm_90a`) and the metadata JSON, embedded for reference.
  std::string target;
  std::string metadataJSON;
  /// The kernel's hidden parameters as "name (recipe kind)" (the
  /// metadata's `hidden_parameters`: TMA descriptors, a persistent
  /// kernel's program grid, global scratch). The header cannot build them.
  std::vector<std::string> hiddenParameters;
};

/// Whether `name` is a valid C identifier (letters, digits, `_`, not
/// starting with a digit).
bool isCIdentifier(llvm::StringRef name);

/// The header text. The launch function takes, after the stream and the
/// grid, one argument per runtime parameter in source order: `CUdeviceptr`
/// for pointers, and for scalars `bool`, `int8_t` ... `uint64_t`, `float`,
/// `double`, or the raw bits (`uint16_t` for fp16/bf16, `uint8_t` for fp8).
/// It returns CUDA_ERROR_INVALID_VALUE without launching when an argument
/// breaks a divisibility promise of the specialization. Errors: the prefix
/// or a parameter name is not a C identifier, a parameter type is unknown,
/// the kernel has hidden parameters (the runtime builds those: TMA
/// descriptors, a persistent kernel's grid, global scratch).
llvm::Expected<std::string> emitCHeader(const KernelInterface &kernel,
                                        const CHeaderKernel &info);

} // namespace tilec

#endif // TILEC_COMPILER_CHEADER_H
