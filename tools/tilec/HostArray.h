//===- HostArray.h - typed host buffers for `tilec run` ---------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TOOLS_TILEC_HOSTARRAY_H
#define TILEC_TOOLS_TILEC_HOSTARRAY_H

#include "tilec/Support/ScalarType.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace tilec::tool {

/// Parses `text` as a scalar of signature type `type` ("i32", "fp16", "i1",
/// …) into its little-endian bits: integers in decimal or 0x-hex, floats as
/// C's strtod reads them (rounded to nearest even), booleans as
/// true/false/1/0.
llvm::Expected<std::uint64_t> parseScalar(llvm::StringRef type,
                                          llvm::StringRef text);

/// A 64-byte aligned host array of `count` elements of a signature type,
/// the buffer behind one pointer argument of `tilec run`.
class HostArray {
public:
  HostArray(std::string name, std::string type, std::size_t count);

  const std::string &name() const { return name_; }
  const std::string &type() const { return type_; }
  std::size_t count() const { return count_; }
  std::size_t bytes() const { return count_ * elementBytes_; }
  void *data() { return data_.get(); }
  const void *data() const { return data_.get(); }

  /// Element `i` as a double (exact for every type).
  double get(std::size_t i) const;

  /// Fills with values from a generator seeded by `seed`: floats uniform in
  /// [-1, 1) (rounded to the type), signed integers in [-100, 100],
  /// unsigned ones in [0, 100], booleans 0 or 1.
  void fillRandom(std::uint64_t seed);

  /// Reads a raw little-endian file; the array must have its size.
  llvm::Error readFile(llvm::StringRef path);
  /// Writes the raw bytes.
  llvm::Error writeFile(llvm::StringRef path) const;

  /// The sum of the elements (as doubles) and FNV-1a of the bytes.
  double sum() const;
  std::uint64_t hash() const;

private:
  struct Free {
    void operator()(void *p) const;
  };
  std::string name_, type_;
  /// The type `type_` names (none for an unknown name).
  std::optional<ScalarType> scalar_;
  std::size_t count_, elementBytes_;
  std::unique_ptr<void, Free> data_;
};

} // namespace tilec::tool

#endif // TILEC_TOOLS_TILEC_HOSTARRAY_H
