//===- KernelInterface.h - what a compiled kernel takes ----------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The parameters of a specialized kernel, as the frontend resolved them from
// the signature (DESIGN.md §1) and as the metadata (docs/metadata.md)
// describes them to the runtime. No MLIR dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_COMPILER_KERNELINTERFACE_H
#define TILEC_COMPILER_KERNELINTERFACE_H

#include <cstdint>
#include <string>
#include <vector>

namespace tilec {

/// One source parameter of a kernel.
struct KernelParameter {
  enum class Kind { Pointer, Scalar, Constexpr };
  std::string name;
  Kind kind = Kind::Scalar;
  /// Signature type name: for a pointer the pointee (`fp32` for `*fp32`),
  /// for a scalar its type (`i32`), for a constexpr the literal's type
  /// (`i32`, `fp32`, `i1`).
  std::string type;
  /// The `:16` promise (pointers: byte alignment of the address; integers:
  /// the value), 1 when none.
  int64_t divisibility = 1;
  /// For a constexpr: the value as a JSON literal (`1024`, `1.5`, `true`).
  std::string value;

  bool isRuntime() const { return kind != Kind::Constexpr; }
};

/// A specialized kernel's entry point.
struct KernelInterface {
  /// The kernel's name in the source and its PTX `.entry` symbol.
  std::string name;
  /// Source parameters in order, constexprs included.
  std::vector<KernelParameter> parameters;
  /// The signature string it was specialized for (normalized).
  std::string signature;
  /// Where the source came from, and a hash of its bytes (hex).
  std::string sourcePath, sourceHash;
  /// What the kernel's `@triton.autotune` / `@triton.heuristics`
  /// decorators say, as a JSON object text with the keys `autotune` and
  /// `heuristics` (docs/metadata.md), copied into the metadata; empty
  /// without such decorators.
  std::string tuningJson;
};

} // namespace tilec

#endif // TILEC_COMPILER_KERNELINTERFACE_H
