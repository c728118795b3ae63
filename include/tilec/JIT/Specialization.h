//===- Specialization.h - Launch arguments to a signature -------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Triton's JIT specialization, applied to the actual arguments of a launch
// (DESIGN.md §1): one signature entry per kernel parameter.
//
//   pointer, address % 16 == 0       *T:16      (else *T)
//   integer == 1                     1          (a constexpr: specialized away)
//   integer % 16 == 0                T:16       (else T; 0 is a multiple)
//   bool                             i1
//   float / double                   fp32 / fp64
//   parameter annotated constexpr    its literal: 1024, 1.5, True, 'str'
//
// A parameter without an argument takes its default (a literal) as a
// constexpr. The signature string is what the frontend compiles and what the
// cache key names, so two launches share a compiled kernel exactly when
// their signatures are equal.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_JIT_SPECIALIZATION_H
#define TILEC_JIT_SPECIALIZATION_H

#include "tilec/Frontend/KernelSource.h"
#include "tilec/JIT/Argument.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace tilec::jit {

/// The signature entry for `arg` passed to a parameter that is (or is not)
/// annotated `tl.constexpr`. Errors: a string for a non-constexpr
/// parameter; a pointer for a constexpr one.
llvm::Expected<std::string> specializeArgument(const Arg &arg,
                                               bool isConstexprParameter);

/// The signature for a launch of `kernel` with `args` (one per parameter, or
/// fewer when the rest have literal defaults). Errors name the parameter:
/// "kernel 'add': parameter 'n' (4th): no argument and no default".
llvm::Expected<std::string>
specializeSignature(const frontend::KernelSource &kernel,
                    llvm::ArrayRef<Arg> args);

} // namespace tilec::jit

#endif // TILEC_JIT_SPECIALIZATION_H
