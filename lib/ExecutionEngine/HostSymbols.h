//===- HostSymbols.h - what JIT-compiled kernels may call -------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_EXECUTIONENGINE_HOSTSYMBOLS_H
#define TILEC_LIB_EXECUTIONENGINE_HOSTSYMBOLS_H

#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"

namespace tilec::cpu {

/// The functions lowered kernels call, bound to this process's definitions:
/// the sanitizer hook, malloc/free and the mem* functions, libm, and
/// libgcc's half-precision conversions (used by LLVM on hosts without F16C).
/// The JIT also searches the process's exported symbols, but a statically
/// linked tool exports none of these, so they are given explicitly.
llvm::orc::SymbolMap getHostSymbols(llvm::orc::MangleAndInterner interner);

} // namespace tilec::cpu

#endif // TILEC_LIB_EXECUTIONENGINE_HOSTSYMBOLS_H
