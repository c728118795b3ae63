//===- Argument.cpp - Launch arguments of a JIT kernel --------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/JIT/Argument.h"

#include <cstdio>

using namespace tilec::jit;

std::int64_t Arg::intValue() const {
  std::size_t size = runtime::scalarTypeSize(type_);
  bool isSigned = runtime::isSignedIntegerType(type_);
  if (size >= 8)
    return static_cast<std::int64_t>(bits_);
  unsigned shift = 64 - 8 * static_cast<unsigned>(size);
  std::uint64_t low = bits_ << shift;
  return isSigned ? static_cast<std::int64_t>(low) >> shift
                  : static_cast<std::int64_t>(low >> shift);
}

std::string Arg::describe() const {
  char buffer[64];
  switch (kind_) {
  case Kind::Pointer:
    std::snprintf(buffer, sizeof(buffer), "0x%llx",
                  static_cast<unsigned long long>(bits_));
    return std::string("pointer to ") + runtime::scalarTypeName(type_) + " " +
           buffer;
  case Kind::Int:
    if (rawBits_) {
      std::snprintf(buffer, sizeof(buffer), "0x%llx",
                    static_cast<unsigned long long>(bits_));
      return std::string(runtime::scalarTypeName(type_)) + " bits " + buffer;
    }
    if (type_ == ScalarType::U64)
      return "u64 " + std::to_string(bits_);
    return std::string(runtime::scalarTypeName(type_)) + " " +
           std::to_string(intValue());
  case Kind::Float:
    if (rawBits_) {
      std::snprintf(buffer, sizeof(buffer), "0x%llx",
                    static_cast<unsigned long long>(bits_));
      return std::string(runtime::scalarTypeName(type_)) + " bits " + buffer;
    }
    std::snprintf(buffer, sizeof(buffer), "%.9g", floatValue());
    return std::string(runtime::scalarTypeName(type_)) + " " + buffer;
  case Kind::Bool:
    return bits_ ? "bool True" : "bool False";
  case Kind::String:
    return "string '" + std::string(text()) + "'";
  }
  return "?";
}

tilec::runtime::KernelArg Arg::toRuntimeArg() const {
  switch (kind_) {
  case Kind::Pointer:
    return runtime::KernelArg::pointer(bits_);
  case Kind::Bool:
    return runtime::KernelArg::scalar(bits_ != 0);
  case Kind::Float:
    if (rawBits_)
      break;
    if (type_ == ScalarType::FP32)
      return runtime::KernelArg::scalar(static_cast<float>(floatValue()));
    return runtime::KernelArg::scalar(floatValue());
  case Kind::Int:
  case Kind::String:
    break;
  }
  return runtime::KernelArg::scalarBits(type_, bits_);
}
