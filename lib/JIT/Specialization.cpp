//===- Specialization.cpp - Launch arguments to a signature ---------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/JIT/Specialization.h"

#include "tilec/Frontend/Signature.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <cstdio>

using namespace tilec;
using namespace tilec::jit;

/// Triton's divisibility specialization (`:16`).
static constexpr std::uint64_t kDivisibility = 16;

/// A float literal the signature parser reads back as a float.
static llvm::Expected<std::string> floatLiteral(double value) {
  if (!std::isfinite(value))
    return llvm::createStringError(
        "a non-finite float cannot be a constexpr value");
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.17g", value);
  std::string text = buffer;
  if (text.find_first_of(".e") == std::string::npos)
    text += ".0";
  return text;
}

llvm::Expected<std::string>
tilec::jit::specializeArgument(const Arg &arg, bool isConstexprParameter) {
  const char *type = runtime::scalarTypeName(arg.type());
  if (isConstexprParameter) {
    switch (arg.kind()) {
    case Arg::Kind::Pointer:
      return llvm::createStringError(
          "got a pointer for a tl.constexpr parameter");
    case Arg::Kind::Int:
      if (arg.hasRawBits())
        return llvm::createStringError(
            "raw scalar bits cannot be a constexpr value");
      if (arg.type() == ScalarType::U64)
        return std::to_string(arg.bits());
      return std::to_string(arg.intValue());
    case Arg::Kind::Float:
      if (arg.hasRawBits())
        return llvm::createStringError(
            "raw scalar bits cannot be a constexpr value");
      return floatLiteral(arg.floatValue());
    case Arg::Kind::Bool:
      return std::string(arg.bits() ? "True" : "False");
    case Arg::Kind::String: {
      std::string_view text = arg.text();
      if (text.find_first_of(",'\"\\") != std::string_view::npos)
        return llvm::createStringError(
            "a constexpr string cannot contain commas, quotes or "
            "backslashes");
      return "'" + std::string(text) + "'";
    }
    }
  }
  switch (arg.kind()) {
  case Arg::Kind::Pointer:
    return std::string("*") + type +
           (arg.bits() % kDivisibility == 0 ? ":16" : "");
  case Arg::Kind::Int: {
    if (arg.hasRawBits())
      return std::string(type);
    bool isUnsigned64 = arg.type() == ScalarType::U64;
    // A multiple of 16 either way; unsigned arithmetic has no overflow.
    std::uint64_t magnitude =
        isUnsigned64 || arg.intValue() >= 0
            ? static_cast<std::uint64_t>(arg.intValue())
            : 0 - static_cast<std::uint64_t>(arg.intValue());
    if (!isUnsigned64 ? arg.intValue() == 1 : arg.bits() == 1)
      return std::string("1");
    return std::string(type) + (magnitude % kDivisibility == 0 ? ":16" : "");
  }
  case Arg::Kind::Float:
  case Arg::Kind::Bool:
    return std::string(type);
  case Arg::Kind::String:
    return llvm::createStringError(
        "a string can only be passed to a tl.constexpr parameter");
  }
  return llvm::createStringError("unknown argument kind");
}

static std::string ordinal(size_t n) {
  const char *suffix = "th";
  if (n % 100 < 11 || n % 100 > 13)
    suffix = n % 10 == 1   ? "st"
             : n % 10 == 2 ? "nd"
             : n % 10 == 3 ? "rd"
                           : "th";
  return std::to_string(n) + suffix;
}

llvm::Expected<std::string>
tilec::jit::specializeSignature(const frontend::KernelSource &kernel,
                                llvm::ArrayRef<Arg> args) {
  const auto &params = kernel.parameters;
  if (args.size() > params.size())
    return llvm::createStringError("kernel '" + kernel.name + "' takes " +
                                   std::to_string(params.size()) + " argument" +
                                   (params.size() == 1 ? "" : "s") + ", got " +
                                   std::to_string(args.size()));
  std::string signature;
  for (size_t i = 0; i < params.size(); ++i) {
    const frontend::KernelSourceParameter &param = params[i];
    auto where = [&] {
      return "kernel '" + kernel.name + "', parameter '" + param.name + "' (" +
             ordinal(i + 1) + "): ";
    };
    std::string entry;
    if (i < args.size()) {
      llvm::Expected<std::string> specialized =
          specializeArgument(args[i], param.isConstexpr);
      if (!specialized)
        return llvm::createStringError(where() +
                                       llvm::toString(specialized.takeError()) +
                                       " (" + args[i].describe() + ")");
      entry = std::move(*specialized);
    } else {
      if (param.defaultText.empty())
        return llvm::createStringError(where() + "no argument and no default");
      llvm::Expected<frontend::SignatureEntry> literal =
          frontend::parseSignatureEntry(param.defaultText);
      if (!literal || !literal->isConstexpr()) {
        if (!literal)
          llvm::consumeError(literal.takeError());
        return llvm::createStringError(
            where() + "no argument, and its default '" + param.defaultText +
            "' is not a literal; pass it");
      }
      entry = param.defaultText;
    }
    if (!signature.empty())
      signature += ", ";
    signature += entry;
  }
  return signature;
}
