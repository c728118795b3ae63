//===- TileToLinalg.h - tile dialect to host code ---------------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The contract between `convert-tile-to-linalg` (the first pass of the CPU
// backend, docs/cpu-backend.md) and the code that calls the kernels it
// produces: the per-program function's arguments and the sanitizer hook.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_CONVERSION_TILETOLINALG_TILETOLINALG_H
#define TILEC_CONVERSION_TILETOLINALG_TILETOLINALG_H

#include "llvm/ADT/StringRef.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace tilec::cpu {

/// Every function converted by `convert-tile-to-linalg` takes, after its
/// source arguments (pointers as i64 addresses, scalars in their type), these
/// many i32 arguments: the program id along axes 0, 1, 2, then the number of
/// programs along axes 0, 1, 2 (`tl.program_id`, `tl.num_programs`).
inline constexpr unsigned kNumGridArguments = 6;

/// With the pass option `sanitize`, every element a load, store or atomic
/// would access (unmasked, or masked in) is first checked by calling
///
///   int32_t __tilec_cpu_check_access(uint64_t address, uint64_t bytes,
///                                    int32_t kind, int64_t element,
///                                    const char *site);
///
/// `kind` is an AccessKind.
/// `element` is the row-major index of the element in its tile (0 for a
/// scalar access) and `site` a NUL-terminated description of the access
/// ("load of tensor<128xf32> at softmax.tile:21:11"). A zero result means the
/// address is outside every buffer the caller registered: the access is
/// skipped (a load yields its `other` value, or zero) and the caller reports
/// the violation.
inline constexpr llvm::StringLiteral kCheckAccessFunction =
    "__tilec_cpu_check_access";
/// What a checked access does.
enum AccessKind : int32_t { AccessLoad, AccessStore, AccessAtomic };
/// "load", "store" or "atomic".
inline const char *getAccessKindName(int32_t kind) {
  return kind == AccessLoad ? "load" : kind == AccessStore ? "store" : "atomic";
}

/// Declares that `llvm.intr.masked.load`, which loads of contiguous rows
/// become, only reads memory (upstream it has no memory-effect interface,
/// which the buffer deallocation pass refuses as unknown effects).
void registerTileToLinalgInterfaces(mlir::DialectRegistry &registry);

/// The host function CPU kernels call for one element of an atomic (the
/// buffer deallocation pipeline does not accept LLVM's atomic ops in
/// kernels):
///
///   uint64_t __tilec_cpu_atomic(int32_t op, int32_t type, void *address,
///                               uint64_t a, uint64_t b);
///
/// `op` is an AtomicOpCode, `type` an AtomicTypeCode; `a` and `b` hold the
/// operand bits (zero-extended): the value, or for cas the compared value
/// and the new one. Returns the old value's bits. Sequentially consistent.
inline constexpr llvm::StringLiteral kAtomicFunction = "__tilec_cpu_atomic";
enum AtomicOpCode : int32_t {
  AtomicAdd, AtomicMax, AtomicMin, AtomicAnd, AtomicOr, AtomicXor,
  AtomicXchg, AtomicCas
};
enum AtomicTypeCode : int32_t {
  AtomicI32, AtomicU32, AtomicI64, AtomicU64, AtomicF32, AtomicF64,
  AtomicI16, AtomicU16, AtomicF16, AtomicBF16
};

/// `tile.print` calls, for every element (row-major) of every operand,
///
///   void __tilec_cpu_print(const char *desc, int64_t index, uint64_t bits);
///
/// `desc` describes the operand, as text: `<kind> <hexDigits> <operand>
/// <numOperands> <rank> <dim>...|<prefix>` where kind is `s` (signed
/// integer, `bits` sign-extended), `u` (unsigned or bool, zero-extended),
/// `f` (a float, `bits` are the f64's), `x` (hex: the value's own bits,
/// hexDigits of them), `p` (an address) or `n` (no operands: one line per
/// program); `index` is the element's row-major index (0 for a scalar). The
/// host prints the line the GPU would (`pid (x, y, z) idx (i, j)<prefix>
/// <value>`, docs/language.md) for the calling thread's program.
inline constexpr llvm::StringLiteral kPrintFunction = "__tilec_cpu_print";

/// `tile.assert` calls, for every false element (row-major) of its
/// condition,
///
///   void __tilec_cpu_assert_fail(const char *desc, int64_t index);
///
/// `desc` is `<rank> <dim>... <line>` then, each after a `\x1f`, the file,
/// the function and the message. The host records the failure for the
/// calling thread's program; the launch then fails with the report.
inline constexpr llvm::StringLiteral kAssertFailFunction =
    "__tilec_cpu_assert_fail";

} // namespace tilec::cpu

#endif // TILEC_CONVERSION_TILETOLINALG_TILETOLINALG_H
