//===- Signature.h - Triton AOT signature strings ---------------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The frontend's parser of specialization signatures (DESIGN.md §1), Triton's
// AOT form: one comma-separated entry per kernel parameter, in order, spaces
// ignored.
//
//   "*fp32:16, *fp32:16, i32, 1024"
//
//   *T       a pointer to T in global memory
//   T        a scalar of type T (i1 i8 i16 i32 i64 u8 u16 u32 u64 fp16 bf16
//            fp32 fp64 fp8e4nv fp8e5)
//   :N       after a pointer or scalar: the value (for a pointer, the byte
//            address) is a multiple of N, a power of two >= 2
//   literal  `1024`, `-3`, `1.5`, `True`/`False`, or a quoted string
//            (`'leaky_relu'`, no commas): the parameter becomes a constexpr
//            with that value (an integer parameter given as `1` is the
//            constexpr 1, as Triton's JIT specializes it)
//
// No MLIR dependency: the runtime, the CLI and the Python package can share
// it.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_SIGNATURE_H
#define TILEC_FRONTEND_SIGNATURE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tilec::frontend {

/// One parsed signature entry.
struct SignatureEntry {
  enum class Kind { Pointer, Scalar, Constexpr };
  /// What a constexpr literal is.
  enum class LiteralKind { Int, Float, Bool, Str };

  Kind kind = Kind::Scalar;
  /// For a pointer its pointee type name, for a scalar its type name
  /// (`fp32`, `i32`); for a constexpr the literal's type (`i32`, or `i64`
  /// when the integer does not fit in 32 bits, `fp32`, `i1`).
  std::string type;
  /// The `:N` promise; 1 when absent.
  int64_t divisibility = 1;
  /// The literal of a constexpr entry.
  LiteralKind literalKind = LiteralKind::Int;
  int64_t intValue = 0;
  double floatValue = 0.0;
  bool boolValue = false;
  std::string strValue;
  /// The entry as written, without spaces (for messages).
  std::string text;

  bool isPointer() const { return kind == Kind::Pointer; }
  bool isScalar() const { return kind == Kind::Scalar; }
  bool isConstexpr() const { return kind == Kind::Constexpr; }
  /// The constexpr's value as a JSON literal: `1024`, `1.5`, `true`,
  /// `"leaky_relu"`.
  std::string getJSONValue() const;
};

/// A parsed signature: its entries in parameter order.
struct Signature {
  std::vector<SignatureEntry> entries;

  /// The entries joined by ", " (`*fp32:16, i32, 1024`).
  std::string str() const;
};

/// Whether `name` is one of the signature's type names (`i32`, `fp16`, ...).
bool isSignatureTypeName(llvm::StringRef name);

/// Parses one entry (already split at commas; spaces are ignored). The
/// error message says what is wrong with it, e.g. "unknown type 'fp31'".
llvm::Expected<SignatureEntry> parseSignatureEntry(llvm::StringRef text);

/// Parses a whole signature. An empty (or all-blank) string has no entries.
/// Errors name the entry by 1-based position and text:
///   "signature entry 3 ('*fp31'): unknown type 'fp31'".
llvm::Expected<Signature> parseSignature(llvm::StringRef text);

} // namespace tilec::frontend

#endif // TILEC_FRONTEND_SIGNATURE_H
