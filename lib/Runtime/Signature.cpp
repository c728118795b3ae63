//===- Signature.cpp - Triton-style AOT signature strings -----------------===//

#include "tilec/Runtime/Signature.h"

#include <cctype>
#include <cstdlib>

namespace tilec::runtime {

namespace {
bool isIntegerLiteral(const std::string &text) {
  std::size_t i = (text[0] == '+' || text[0] == '-') ? 1 : 0;
  if (i == text.size())
    return false;
  for (; i < text.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(text[i])))
      return false;
  return true;
}

bool isFloatLiteral(const std::string &text) {
  const char *begin = text.c_str();
  char *end = nullptr;
  std::strtod(begin, &end);
  if (end != begin + text.size())
    return false;
  // strtod also reads "inf", "nan" and hex floats; a literal needs a digit.
  for (char c : text)
    if (std::isdigit(static_cast<unsigned char>(c)))
      return true;
  return false;
}

Status entryError(std::size_t index, const std::string &text,
                  const std::string &what) {
  return Status::error(ErrorCode::InvalidArgument,
                       "signature entry " + std::to_string(index + 1) + " ('" +
                           text + "'): " + what);
}

Expected<SignatureEntry> parseEntry(std::size_t index, std::string text) {
  SignatureEntry entry;
  entry.text = text;
  if (text.empty())
    return entryError(index, text, "empty entry");

  if (text == "True" || text == "False" || isIntegerLiteral(text) ||
      isFloatLiteral(text)) {
    entry.kind = SignatureEntry::Kind::Constexpr;
    entry.literal = text;
    return entry;
  }

  // A string constexpr ('leaky_relu' or "leaky_relu"); its literal is the
  // JSON form the metadata records ("leaky_relu").
  if (text.size() >= 2 && (text[0] == '\'' || text[0] == '"') &&
      text.back() == text[0]) {
    std::string inner = text.substr(1, text.size() - 2);
    if (inner.find_first_of("\"'\\") != std::string::npos)
      return entryError(index, text,
                        "a string constexpr with quotes or backslashes "
                        "inside is not supported");
    entry.kind = SignatureEntry::Kind::Constexpr;
    entry.literal = "\"" + inner + "\"";
    return entry;
  }

  std::string body = text;
  if (body[0] == '*') {
    entry.kind = SignatureEntry::Kind::Pointer;
    body = body.substr(1);
  } else {
    entry.kind = SignatureEntry::Kind::Scalar;
  }

  std::size_t colon = body.find(':');
  std::string typeName = body.substr(0, colon);
  if (colon != std::string::npos) {
    std::string hint = body.substr(colon + 1);
    if (hint.empty() || !isIntegerLiteral(hint) || hint[0] == '-' ||
        hint[0] == '+')
      return entryError(index, text,
                        "divisibility hint '" + hint +
                            "' is not a positive integer");
    unsigned long value = std::strtoul(hint.c_str(), nullptr, 10);
    if (value == 1)
      return entryError(index, text,
                        "':1' (Triton's equal-to-1 hint) is not supported; "
                        "write the literal 1 to make the parameter a "
                        "constexpr");
    if (value < 2 || value > (1ul << 20) || (value & (value - 1)) != 0)
      return entryError(index, text,
                        "divisibility hint " + hint +
                            " is not a power of two >= 2");
    entry.divisibility = static_cast<unsigned>(value);
  }

  std::optional<ScalarType> type = parseScalarType(typeName);
  if (!type)
    return entryError(index, text,
                      "unknown type '" + typeName +
                          "' (expected one of i1 i8 i16 i32 i64 u8 u16 u32 "
                          "u64 fp16 bf16 fp32 fp64 fp8e4nv fp8e5)");
  entry.type = *type;
  return entry;
}
} // namespace

Expected<std::vector<SignatureEntry>> parseSignature(std::string_view text) {
  std::vector<SignatureEntry> entries;
  std::string compact;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c)))
      compact.push_back(c);
  if (compact.empty())
    return entries;

  std::size_t start = 0;
  while (true) {
    std::size_t comma = compact.find(',', start);
    std::string piece = compact.substr(
        start, comma == std::string::npos ? std::string::npos : comma - start);
    Expected<SignatureEntry> entry = parseEntry(entries.size(), piece);
    if (!entry)
      return entry.status();
    entries.push_back(entry.take());
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return entries;
}

} // namespace tilec::runtime
