//===- Signature.cpp - Triton AOT signature strings -----------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Signature.h"
#include "tilec/Support/ScalarType.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace tilec::frontend;
using llvm::StringRef;

/// The type names, for messages: "i1 i8 ... fp8e5".
static std::string getTypeList() {
  std::string list;
  for (const tilec::ScalarTypeInfo &info : tilec::kScalarTypes) {
    if (!list.empty())
      list += ' ';
    list += info.name;
  }
  return list;
}

/// The signature spelling of a type written as in triton.language
/// (`float32` -> `fp32`) or as MLIR prints it (`f32`), or "".
static StringRef getSignatureSpellingOf(StringRef name) {
  StringRef n = name;
  n.consume_front("tl.");
  for (const tilec::ScalarTypeInfo &info : tilec::kScalarTypes)
    if (n == StringRef(info.languageName) ||
        (info.isFloat && n == StringRef(info.mlirName)))
      return StringRef(info.name);
  // Python's and C's names.
  return llvm::StringSwitch<StringRef>(n)
      .Case("bool", "i1")
      .Case("int", "i32")
      .Case("half", "fp16")
      .Case("bf", "bf16")
      .Case("float", "fp32")
      .Case("double", "fp64")
      .Default("");
}

bool tilec::frontend::isSignatureTypeName(StringRef name) {
  return tilec::parseScalarType(name).has_value();
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
    // triton.language's spelling of a type.
    StringRef alias = getSignatureSpellingOf(typeName);
    if (!alias.empty())
      return makeError("unknown type '" + typeName +
                       "'; the signature spells it '" + alias + "'");
    // A close misspelling (one edit for short names, two for longer ones).
    unsigned maxDist = typeName.size() >= 5 ? 2 : 1;
    StringRef best;
    unsigned bestDist = maxDist + 1;
    for (const tilec::ScalarTypeInfo &info : tilec::kScalarTypes) {
      StringRef candidate(info.name);
      unsigned dist = typeName.edit_distance(candidate, true, maxDist);
      if (dist < bestDist) {
        bestDist = dist;
        best = candidate;
      }
    }
    if (!best.empty())
      return makeError("unknown type '" + typeName + "'; did you mean '" +
                       best + "'?");
    if (entry.kind == SignatureEntry::Kind::Pointer ||
        text.contains(':'))
      return makeError("unknown type '" + typeName + "' (expected one of " +
                       getTypeList() + ")");
    return makeError("'" + typeName +
                     "' is neither a type nor a literal: an entry is a type (" +
                     getTypeList() +
                     "), '*' and a type for a pointer, or a literal such as "
                     "1024, 1.5, True or 'name'");
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
        !tilec::isIntegerType(*tilec::parseScalarType(entry.type)))
      return makeError("a divisibility hint needs a pointer or an integer, "
                       "not '" +
                       entry.type + "'");
    entry.divisibility = static_cast<int64_t>(divisibility);
  }
  return entry;
}

/// If `piece` (which failed to parse as one entry) is several valid entries
/// separated by spaces (`*fp32 i32 128`), returns them joined by ", ";
/// otherwise "". A lone `*` belongs to the word after it and a `:N` to the
/// word before it.
static std::string splitSpaceSeparatedEntries(StringRef piece) {
  if (piece.trim().starts_with("'") || piece.trim().starts_with("\""))
    return "";
  llvm::SmallVector<StringRef> words;
  llvm::SplitString(piece, words);
  llvm::SmallVector<std::string> entries;
  bool glueNext = false;
  for (StringRef word : words) {
    word = word.trim();
    if (word.empty())
      continue;
    if (glueNext || (word.starts_with(":") && !entries.empty())) {
      entries.back() += word.str();
    } else {
      entries.push_back(word.str());
    }
    glueNext = word == "*" || word.ends_with(":");
  }
  if (entries.size() < 2)
    return "";
  std::string joined;
  for (const std::string &entry : entries) {
    llvm::Expected<SignatureEntry> parsed = parseSignatureEntry(entry);
    if (!parsed) {
      llvm::consumeError(parsed.takeError());
      return "";
    }
    if (!joined.empty())
      joined += ", ";
    joined += entry;
  }
  return joined;
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
      std::string withCommas = splitSpaceSeparatedEntries(piece);
      if (!withCommas.empty())
        msg = "entries must be separated by commas; did you mean '" +
              withCommas + "'?";
      return makeError("signature entry " + llvm::Twine(index + 1) + " ('" +
                       piece.trim() + "'): " + msg);
    }
    signature.entries.push_back(std::move(*entry));
  }
  return signature;
}
