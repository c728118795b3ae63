//===- Signature.cpp - Triton AOT signature strings -----------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Signature.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace tilec::frontend;
using llvm::StringRef;

static constexpr StringRef kTypeNames[] = {
    "i1",  "i8",   "i16",  "i32",  "i64",  "u8",      "u16",  "u32",
    "u64", "fp16", "bf16", "fp32", "fp64", "fp8e4nv", "fp8e5"};

bool tilec::frontend::isSignatureTypeName(StringRef name) {
  return llvm::is_contained(kTypeNames, name);
}

static llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

std::string SignatureEntry::getJSONValue() const {
  switch (literalKind) {
  case LiteralKind::Int:
    return std::to_string(intValue);
  case LiteralKind::Bool:
    return boolValue ? "true" : "false";
  case LiteralKind::Str: {
    std::string s = "\"";
    for (char c : strValue) {
      if (c == '"' || c == '\\')
        s += '\\';
      s += c;
    }
    return s + "\"";
  }
  case LiteralKind::Float: {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << llvm::format("%.17g", floatValue);
    // Keep it recognizably a float ("2" -> "2.0").
    if (s.find_first_of(".eE") == std::string::npos)
      s += ".0";
    return s;
  }
  }
  return "";
}

std::string Signature::str() const {
  std::string result;
  for (const SignatureEntry &entry : entries) {
    if (!result.empty())
      result += ", ";
    result += entry.text;
  }
  return result;
}

/// Parses a Python integer literal (decimal, 0x, 0o, 0b, underscores, an
/// optional sign) into an int64_t.
static bool parseIntLiteral(StringRef text, int64_t &value) {
  bool negative = false;
  if (text.consume_front("-"))
    negative = true;
  else
    text.consume_front("+");
  if (text.empty() || !llvm::isDigit(text.front()))
    return false;
  std::string digits;
  for (char c : text)
    if (c != '_')
      digits.push_back(c);
  StringRef d(digits);
  unsigned radix = 10;
  if (d.size() > 1 && d[0] == '0' && llvm::isAlpha(d[1])) {
    char r = llvm::toLower(d[1]);
    radix = r == 'x' ? 16 : r == 'o' ? 8 : r == 'b' ? 2 : 0;
    if (!radix)
      return false;
    d = d.drop_front(2);
  }
  uint64_t magnitude;
  if (d.getAsInteger(radix, magnitude))
    return false;
  if (negative) {
    if (magnitude > uint64_t(INT64_MAX) + 1)
      return false;
    value = static_cast<int64_t>(0 - magnitude);
    return true;
  }
  if (magnitude > uint64_t(INT64_MAX))
    return false;
  value = static_cast<int64_t>(magnitude);
  return true;
}

llvm::Expected<SignatureEntry>
tilec::frontend::parseSignatureEntry(StringRef rawText) {
  SignatureEntry entry;
  // A quoted string keeps its spaces.
  StringRef trimmed = rawText.trim();
  if (trimmed.size() >= 2 &&
      (trimmed.front() == '\'' || trimmed.front() == '"')) {
    if (trimmed.back() != trimmed.front())
      return makeError("unterminated string literal " + trimmed);
    entry.kind = SignatureEntry::Kind::Constexpr;
    entry.literalKind = SignatureEntry::LiteralKind::Str;
    entry.strValue = trimmed.drop_front().drop_back().str();
    entry.type = "str";
    entry.text = trimmed.str();
    return entry;
  }
  std::string compact;
  for (char c : rawText)
    if (!llvm::isSpace(c))
      compact.push_back(c);
  entry.text = compact;
  StringRef text(compact);
  if (text.empty())
    return makeError("empty entry");

  // Literals.
  if (text == "True" || text == "False") {
    entry.kind = SignatureEntry::Kind::Constexpr;
    entry.literalKind = SignatureEntry::LiteralKind::Bool;
    entry.boolValue = text == "True";
    entry.type = "i1";
    return entry;
  }
  char first = text.front();
  if (llvm::isDigit(first) || first == '-' || first == '+' || first == '.') {
    if (text.contains(':'))
      return makeError("a literal cannot have a ':N' divisibility hint");
    int64_t intValue;
    if (parseIntLiteral(text, intValue)) {
      entry.kind = SignatureEntry::Kind::Constexpr;
      entry.literalKind = SignatureEntry::LiteralKind::Int;
      entry.intValue = intValue;
      entry.type =
          (intValue >= INT32_MIN && intValue <= INT32_MAX) ? "i32" : "i64";
      return entry;
    }
    double floatValue;
    std::string noUnderscores;
    for (char c : text)
      if (c != '_')
        noUnderscores.push_back(c);
    bool looksFloat =
        StringRef(noUnderscores).find_first_of(".eE") != StringRef::npos;
    if (looksFloat && !StringRef(noUnderscores).getAsDouble(floatValue) &&
        std::isfinite(floatValue)) {
      entry.kind = SignatureEntry::Kind::Constexpr;
      entry.literalKind = SignatureEntry::LiteralKind::Float;
      entry.floatValue = floatValue;
      entry.type = "fp32";
      return entry;
    }
    if (!looksFloat)
      return makeError("integer literal '" + text +
                       "' does not fit in 64 bits");
    return makeError("invalid literal '" + text + "'");
  }

  // Types, with an optional divisibility.
  StringRef typeText = text;
  if (typeText.consume_front("*"))
    entry.kind = SignatureEntry::Kind::Pointer;
  else
    entry.kind = SignatureEntry::Kind::Scalar;
  auto [typeName, hint] = typeText.split(':');
  if (typeName.empty())
    return makeError("missing type name");
  if (!isSignatureTypeName(typeName)) {
    std::string msg = ("unknown type '" + typeName + "'").str();
    StringRef best;
    unsigned bestDist = 3;
    for (StringRef candidate : kTypeNames) {
      unsigned dist = typeName.edit_distance(candidate, true, bestDist);
      if (dist < bestDist) {
        bestDist = dist;
        best = candidate;
      }
    }
    if (!best.empty())
      msg += ("; did you mean '" + best + "'?").str();
    else
      msg += " (expected one of i1 i8 i16 i32 i64 u8 u16 u32 u64 fp16 bf16 "
             "fp32 fp64 fp8e4nv fp8e5)";
    return makeError(msg);
  }
  entry.type = typeName.str();
  if (typeText.contains(':')) {
    uint64_t divisibility;
    if (hint.empty() || hint.getAsInteger(10, divisibility))
      return makeError("invalid divisibility '" + hint +
                       "' (expected a power of two, e.g. ':16')");
    if (divisibility == 1)
      return makeError("':1' is not accepted; write the literal 1 to "
                       "specialize the parameter to the value 1");
    if (divisibility == 0 || (divisibility & (divisibility - 1)) != 0 ||
        divisibility > (uint64_t(1) << 32))
      return makeError("divisibility " + hint + " is not a power of two >= 2");
    if (entry.kind == SignatureEntry::Kind::Scalar &&
        !StringRef(entry.type).starts_with("i") &&
        !StringRef(entry.type).starts_with("u"))
      return makeError("a divisibility hint needs a pointer or an integer, "
                       "not '" +
                       entry.type + "'");
    entry.divisibility = static_cast<int64_t>(divisibility);
  }
  return entry;
}

llvm::Expected<Signature> tilec::frontend::parseSignature(StringRef text) {
  Signature signature;
  if (text.trim().empty())
    return signature;
  llvm::SmallVector<StringRef> pieces;
  text.split(pieces, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/true);
  for (auto [index, piece] : llvm::enumerate(pieces)) {
    llvm::Expected<SignatureEntry> entry = parseSignatureEntry(piece);
    if (!entry) {
      std::string msg = llvm::toString(entry.takeError());
      return makeError("signature entry " + llvm::Twine(index + 1) + " ('" +
                       piece.trim() + "'): " + msg);
    }
    signature.entries.push_back(std::move(*entry));
  }
  return signature;
}
