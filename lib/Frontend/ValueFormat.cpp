//===- ValueFormat.cpp - Python formatting of constexprs ------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// What f-strings need to turn compile-time values into text the way Python
// does: repr() and ascii() of strings, and format(value, spec) with the
// format-spec mini-language (PEP 3101) for ints, bools, floats and strings.
//
//===----------------------------------------------------------------------===//

#include "Value.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

using namespace tilec::frontend;
using llvm::StringRef;

/// Decodes the UTF-8 character at `text[i]`; returns its length (1 for an
/// invalid byte, whose value is then the byte itself).
static unsigned decodeChar(StringRef text, size_t i, uint32_t &cp) {
  auto byte = [&](size_t j) { return static_cast<uint8_t>(text[j]); };
  uint8_t lead = byte(i);
  unsigned length = lead < 0x80           ? 1
                    : (lead & 0xE0) == 0xC0 ? 2
                    : (lead & 0xF0) == 0xE0 ? 3
                    : (lead & 0xF8) == 0xF0 ? 4
                                            : 0;
  if (length == 1) {
    cp = lead;
    return 1;
  }
  if (length == 0 || i + length > text.size()) {
    cp = lead;
    return 1;
  }
  cp = lead & (0x7F >> length);
  for (unsigned k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) {
      cp = lead;
      return 1;
    }
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  return length;
}

/// Number of characters (code points) of UTF-8 text.
static size_t countChars(StringRef text) {
  size_t count = 0;
  uint32_t cp;
  for (size_t i = 0; i < text.size(); i += decodeChar(text, i, cp))
    ++count;
  return count;
}

std::string tilec::frontend::pythonStringRepr(StringRef text) {
  char quote = text.contains('\'') && !text.contains('"') ? '"' : '\'';
  std::string out(1, quote);
  llvm::raw_string_ostream os(out);
  for (char c : text) {
    auto byte = static_cast<uint8_t>(c);
    if (c == quote || c == '\\')
      os << '\\' << c;
    else if (c == '\n')
      os << "\\n";
    else if (c == '\r')
      os << "\\r";
    else if (c == '\t')
      os << "\\t";
    else if (byte < 0x20 || byte == 0x7F)
      os << llvm::format("\\x%02x", byte);
    else
      os << c;
  }
  os << quote;
  return out;
}

std::string tilec::frontend::pythonAscii(StringRef repr) {
  std::string out;
  llvm::raw_string_ostream os(out);
  uint32_t cp;
  for (size_t i = 0; i < repr.size();) {
    unsigned length = decodeChar(repr, i, cp);
    if (cp < 0x80)
      os << repr[i];
    else if (cp <= 0xFF)
      os << llvm::format("\\x%02x", cp);
    else if (cp <= 0xFFFF)
      os << llvm::format("\\u%04x", cp);
    else
      os << llvm::format("\\U%08x", cp);
    i += length;
  }
  return out;
}

namespace {
/// A parsed format spec.
struct FormatSpec {
  std::string fill = " ";
  char align = 0;
  char sign = 0;
  bool negativeZero = false; // 'z'
  bool alternate = false;    // '#'
  size_t width = 0;
  char grouping = 0;
  std::optional<size_t> precision;
  char type = 0;
};
} // namespace

/// Parses `spec` for a value of Python type `typeName`.
static bool parseSpec(StringRef spec, StringRef typeName, FormatSpec &result,
                      std::string &error) {
  size_t i = 0;
  auto isAlign = [](char c) {
    return c == '<' || c == '>' || c == '=' || c == '^';
  };
  // [[fill]align]: the fill may be any character.
  uint32_t cp;
  unsigned fillLength = spec.empty() ? 0 : decodeChar(spec, 0, cp);
  if (spec.size() > fillLength && isAlign(spec[fillLength])) {
    result.fill = spec.substr(0, fillLength).str();
    result.align = spec[fillLength];
    i = fillLength + 1;
  } else if (!spec.empty() && isAlign(spec[0])) {
    result.align = spec[0];
    i = 1;
  }
  if (i < spec.size() && (spec[i] == '+' || spec[i] == '-' || spec[i] == ' '))
    result.sign = spec[i++];
  if (i < spec.size() && spec[i] == 'z') {
    result.negativeZero = true;
    ++i;
  }
  if (i < spec.size() && spec[i] == '#') {
    result.alternate = true;
    ++i;
  }
  if (i < spec.size() && spec[i] == '0') {
    if (!result.align) {
      result.fill = "0";
      result.align = typeName == "str" ? '<' : '=';
    }
    ++i;
  }
  auto readNumber = [&](size_t &value) {
    size_t start = i;
    value = 0;
    while (i < spec.size() && llvm::isDigit(spec[i])) {
      if (value > 100000) {
        error = "Too many decimal digits in format string";
        return false;
      }
      value = value * 10 + (spec[i++] - '0');
    }
    return i > start;
  };
  size_t width;
  if (readNumber(width))
    result.width = width;
  if (!error.empty())
    return false;
  if (i < spec.size() && (spec[i] == ',' || spec[i] == '_'))
    result.grouping = spec[i++];
  if (i < spec.size() && spec[i] == '.') {
    ++i;
    size_t precision;
    if (!readNumber(precision)) {
      if (error.empty())
        error = "Format specifier missing precision";
      return false;
    }
    result.precision = precision;
  }
  if (i < spec.size())
    result.type = spec[i++];
  if (i < spec.size()) {
    error = ("Invalid format specifier '" + spec + "' for object of type '" +
             typeName + "'")
                .str();
    return false;
  }
  return true;
}

/// Inserts the grouping separator every `every` digits of `digits` (from the
/// right).
static std::string group(StringRef digits, char separator, unsigned every) {
  std::string out;
  size_t n = digits.size();
  for (size_t i = 0; i < n; ++i) {
    if (i && (n - i) % every == 0)
      out += separator;
    out += digits[i];
  }
  return out;
}

/// Pads `sign + body` to the spec's width with its fill and alignment
/// (`defaultAlign` when none was given; '=' pads between sign and body).
static std::string pad(const FormatSpec &spec, StringRef sign, StringRef body,
                       char defaultAlign) {
  size_t length = countChars(sign) + countChars(body);
  char align = spec.align ? spec.align : defaultAlign;
  if (spec.width <= length)
    return (sign + body).str();
  size_t padding = spec.width - length;
  auto fill = [&](size_t count) {
    std::string out;
    for (size_t k = 0; k < count; ++k)
      out += spec.fill;
    return out;
  };
  switch (align) {
  case '<':
    return (sign + body).str() + fill(padding);
  case '^':
    return fill(padding / 2) + (sign + body).str() +
           fill(padding - padding / 2);
  case '=':
    return sign.str() + fill(padding) + body.str();
  default:
    return fill(padding) + (sign + body).str();
  }
}

/// The sign prefix of a number.
static std::string signOf(const FormatSpec &spec, bool negative) {
  if (negative)
    return "-";
  if (spec.sign == '+')
    return "+";
  if (spec.sign == ' ')
    return " ";
  return "";
}

static bool formatFloat(double value, const FormatSpec &spec,
                        std::string &result, std::string &error,
                        StringRef typeName) {
  char type = spec.type;
  if (type && !StringRef("eEfFgGn%").contains(type)) {
    error = ("Unknown format code '" + llvm::Twine(type) +
             "' for object of type '" + typeName + "'")
                .str();
    return false;
  }
  bool negative = std::signbit(value) && !std::isnan(value);
  double magnitude = std::fabs(value);
  std::string body;
  if (std::isinf(magnitude) || std::isnan(magnitude)) {
    body = std::isnan(magnitude) ? "nan" : "inf";
    if (type == 'E' || type == 'F' || type == 'G')
      body = StringRef(body).upper();
    if (type == '%')
      body += '%';
  } else if (!type && !spec.precision) {
    // Like repr().
    body = CGValue::floating(magnitude).repr();
  } else {
    char cType = type;
    double shown = magnitude;
    size_t precision = spec.precision.value_or(6);
    bool keepPoint = false;
    if (!type || type == 'n') {
      cType = 'g';
      keepPoint = !type;
      if (!spec.precision)
        precision = 6;
    } else if (type == '%') {
      cType = 'f';
      shown = magnitude * 100;
    }
    if ((cType == 'g' || cType == 'G') && precision == 0)
      precision = 1;
    std::string format = "%";
    if (spec.alternate)
      format += '#';
    format += ".*";
    format += cType;
    int size = std::snprintf(nullptr, 0, format.c_str(),
                             static_cast<int>(precision), shown);
    body.resize(size + 1);
    std::snprintf(body.data(), body.size(), format.c_str(),
                  static_cast<int>(precision), shown);
    body.resize(size);
    if (keepPoint && body.find_first_of(".e") == std::string::npos)
      body += ".0";
    if (type == '%')
      body += '%';
  }
  if (spec.negativeZero && negative &&
      body.find_first_of("123456789") == std::string::npos)
    negative = false;
  if (spec.grouping) {
    size_t end = body.find_first_not_of("0123456789");
    if (end == std::string::npos)
      end = body.size();
    body = group(StringRef(body).take_front(end), spec.grouping, 3) +
           body.substr(end);
  }
  result = pad(spec, signOf(spec, negative), body, '>');
  return true;
}

static bool formatInt(int64_t value, const FormatSpec &spec,
                      std::string &result, std::string &error) {
  char type = spec.type;
  if (type && StringRef("eEfFgG%").contains(type))
    return formatFloat(static_cast<double>(value), spec, result, error, "int");
  if (type && !StringRef("bcdoxXn").contains(type)) {
    error = ("Unknown format code '" + llvm::Twine(type) +
             "' for object of type 'int'")
                .str();
    return false;
  }
  if (spec.precision) {
    error = "Precision not allowed in integer format specifier";
    return false;
  }
  if (type == 'c') {
    if (spec.sign) {
      error = "Sign not allowed with integer format specifier 'c'";
      return false;
    }
    if (value < 0 || value > 0x10FFFF) {
      error = "%c arg not in range(0x110000)";
      return false;
    }
    std::string body;
    auto cp = static_cast<uint32_t>(value);
    if (cp < 0x80) {
      body += static_cast<char>(cp);
    } else if (cp < 0x800) {
      body += static_cast<char>(0xC0 | (cp >> 6));
      body += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      body += static_cast<char>(0xE0 | (cp >> 12));
      body += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      body += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      body += static_cast<char>(0xF0 | (cp >> 18));
      body += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      body += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      body += static_cast<char>(0x80 | (cp & 0x3F));
    }
    result = pad(spec, "", body, '<');
    return true;
  }
  unsigned radix = type == 'b'                   ? 2
                   : type == 'o'                 ? 8
                   : type == 'x' || type == 'X' ? 16
                                                 : 10;
  if (spec.grouping == ',' && radix != 10) {
    error = ("Cannot specify ',' with '" + llvm::Twine(type) + "'.").str();
    return false;
  }
  bool negative = value < 0;
  uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(value)
                                : static_cast<uint64_t>(value);
  std::string digits = llvm::utostr(magnitude);
  if (radix != 10) {
    digits.clear();
    do {
      digits += "0123456789abcdef"[magnitude % radix];
      magnitude /= radix;
    } while (magnitude);
    std::reverse(digits.begin(), digits.end());
    if (type == 'X')
      digits = StringRef(digits).upper();
  }
  if (spec.grouping)
    digits = group(digits, spec.grouping, radix == 10 ? 3 : 4);
  std::string prefix = signOf(spec, negative);
  if (spec.alternate && radix != 10)
    prefix += type == 'b'   ? "0b"
              : type == 'o' ? "0o"
              : type == 'X' ? "0X"
                            : "0x";
  result = pad(spec, prefix, digits, '>');
  return true;
}

static bool formatStr(StringRef text, const FormatSpec &spec,
                      std::string &result, std::string &error) {
  if (spec.type && spec.type != 's') {
    error = ("Unknown format code '" + llvm::Twine(spec.type) +
             "' for object of type 'str'")
                .str();
    return false;
  }
  if (spec.sign) {
    error = "Sign not allowed in string format specifier";
    return false;
  }
  if (spec.alternate) {
    error = "Alternate form (#) not allowed in string format specifier";
    return false;
  }
  if (spec.align == '=') {
    error = "'=' alignment not allowed in string format specifier";
    return false;
  }
  if (spec.grouping) {
    error = ("Cannot specify '" + llvm::Twine(spec.grouping) + "' with 's'.")
                .str();
    return false;
  }
  StringRef shown = text;
  if (spec.precision) {
    // Keep `precision` characters.
    size_t i = 0, count = 0;
    uint32_t cp;
    while (i < text.size() && count < *spec.precision) {
      i += decodeChar(text, i, cp);
      ++count;
    }
    shown = text.take_front(i);
  }
  result = pad(spec, "", shown, '<');
  return true;
}

/// Python's name of the type of a constexpr, for messages.
static std::string pythonTypeName(const CGValue &value) {
  switch (value.getKind()) {
  case CGValue::Kind::None:
    return "NoneType";
  case CGValue::Kind::Bool:
    return "bool";
  case CGValue::Kind::Int:
    return "int";
  case CGValue::Kind::Float:
    return "float";
  case CGValue::Kind::Str:
    return "str";
  case CGValue::Kind::Tuple:
    return "tuple";
  case CGValue::Kind::DTypeObj:
    return "dtype";
  case CGValue::Kind::Module:
    return "module";
  default:
    return "function";
  }
}

bool tilec::frontend::formatConstexpr(const CGValue &value, StringRef spec,
                                      std::string &result, std::string &error) {
  if (spec.empty()) {
    result = value.str();
    return true;
  }
  std::string typeName = pythonTypeName(value);
  FormatSpec parsed;
  if (!parseSpec(spec, typeName, parsed, error))
    return false;
  if (value.isIntLike())
    return formatInt(value.getInt(), parsed, result, error);
  if (value.isFloat())
    return formatFloat(value.getFloat(), parsed, result, error, "float");
  if (value.isStr())
    return formatStr(value.getStr(), parsed, result, error);
  error = "unsupported format string passed to " + typeName + ".__format__";
  return false;
}
