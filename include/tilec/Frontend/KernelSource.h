//===- KernelSource.h - What a kernel's code depends on ---------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A syntactic view of one `@jit` kernel, computed without generating any IR
// (a parse and one token scan, well under a millisecond for the examples),
// for the JIT (include/tilec/JIT/) and its kernel cache:
//
// - the kernel's parameters as written: which are `tl.constexpr`, and their
//   defaults, so that launch arguments can be turned into a signature;
// - the set of module-level definitions the kernel's code can depend on:
//   the kernel, every `@jit` function it may call (directly or through other
//   functions), every constant it may read, and every import. It is an
//   over-approximation built from the identifiers in each definition's text:
//   a name is followed if any module-level statement defines it, whether or
//   not a local variable shadows it at the use. It always contains the
//   functions the code generator inlines (KernelModule::inlinedFunctions);
// - a hash of exactly that text, with each definition's first line number
//   and the file name (both end up in the line tables of the PTX), so that
//   editing a callee changes it and editing an unrelated function does not.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_KERNELSOURCE_H
#define TILEC_FRONTEND_KERNELSOURCE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace tilec::frontend {

class ModuleAST;

/// One parameter of a kernel, as written in its `def`.
struct KernelSourceParameter {
  std::string name;
  /// Annotated `tl.constexpr` (or `constexpr`, `triton.language.constexpr`,
  /// `"constexpr"`): a launch argument for it becomes a signature literal.
  bool isConstexpr = false;
  /// The source text of the default value (`128`, `True`); empty if none.
  std::string defaultText;
};

/// What one kernel's generated code can depend on in its file.
struct KernelSource {
  /// The kernel's name.
  std::string name;
  /// Its parameters in order (`*args`/`**kwargs` are rejected).
  std::vector<KernelSourceParameter> parameters;
  /// The module-level `@jit` functions the kernel may call, directly or
  /// not, in source order; the kernel itself is included.
  std::vector<std::string> functions;
  /// SHA-256 (64 lowercase hex digits) of the file name and, for every
  /// import and every reachable function and constant, its first line number
  /// and its exact text.
  std::string hash;
};

/// Describes kernel `kernelName` of `module` (parsed from buffer `bufferId`
/// of `srcMgr`). An empty name picks the file's kernel by emitKernel's rule
/// (the only `@jit` function, else the only one no other calls). Errors (no
/// such kernel, several candidates, `*args`) read like emitKernel's messages,
/// prefixed by the buffer name: "k.tile: no @jit function named 'foo' in
/// this file; it defines: add, mul".
llvm::Expected<KernelSource> describeKernelSource(const llvm::SourceMgr &srcMgr,
                                                  unsigned bufferId,
                                                  const ModuleAST &module,
                                                  llvm::StringRef kernelName);

} // namespace tilec::frontend

#endif // TILEC_FRONTEND_KERNELSOURCE_H
