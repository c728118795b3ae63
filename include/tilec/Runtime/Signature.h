//===- Signature.h - Triton-style AOT signature strings ---------*- C++ -*-===//
//
// A signature specializes a kernel: one comma-separated entry per source
// parameter, in order, spaces ignored (DESIGN.md §1):
//
//   "*fp32:16, *fp32:16, i32, 1024"
//
//   *T      a pointer to T in global memory
//   T       a scalar of type T, passed by value
//   :N      after a pointer or scalar: promises divisibility by N (a power of
//           two >= 2; for a pointer, an N-byte aligned address). Triton's
//           ":1" ("equal to 1") is rejected: write the literal 1 instead.
//   literal an integer, float, True/False or a quoted string ('relu',
//           recorded as the JSON string "relu"): the parameter becomes a
//           constexpr with that value and is not passed at launch.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_SIGNATURE_H
#define TILEC_RUNTIME_SIGNATURE_H

#include "tilec/Runtime/ScalarType.h"
#include "tilec/Runtime/Status.h"

#include <string>
#include <string_view>
#include <vector>

namespace tilec::runtime {

/// One parsed signature entry.
struct SignatureEntry {
  enum class Kind { Pointer, Scalar, Constexpr };
  Kind kind = Kind::Scalar;
  /// Pointee type for a pointer, the type for a scalar; unused (I32) for a
  /// constexpr.
  ScalarType type = ScalarType::I32;
  /// The `:N` hint, 1 when absent.
  unsigned divisibility = 1;
  /// The literal text of a constexpr entry ("1024", "1.5", "True").
  std::string literal;
  /// The entry as written, trimmed (for messages).
  std::string text;
};

/// Parses a signature string. Errors (`InvalidArgument`) name the entry by
/// 1-based position and text, e.g.
///   "signature entry 3 ('*fp31'): unknown type 'fp31'".
Expected<std::vector<SignatureEntry>> parseSignature(std::string_view text);

} // namespace tilec::runtime

#endif // TILEC_RUNTIME_SIGNATURE_H
