//===- Lexer.cpp - Python tokenizer for .tile files -----------------------===//
//
// Part of the tilec project.
//
//===----------------------------------------------------------------------===//
//
// A hand-written Python 3 tokenizer modelled on CPython's Parser/tokenizer.c:
// the same layout rules (NEWLINE/INDENT/DEDENT, implicit line joining,
// tab stops of 8 checked against tab width 1), the same literal syntax, and
// messages worded like CPython's where it has one.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Lexer.h"

#include "tilec/Frontend/Diagnostics.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Token kinds
//===----------------------------------------------------------------------===//

StringRef tilec::frontend::getTokenKindName(TokenKind kind) {
  switch (kind) {
#define TOK(NAME)                                                              \
  case TokenKind::NAME:                                                        \
    return #NAME;
#include "tilec/Frontend/TokenKinds.def"
  }
  return "unknown";
}

StringRef tilec::frontend::getTokenSpelling(TokenKind kind) {
  switch (kind) {
#define KEYWORD(SPELLING)                                                      \
  case TokenKind::kw_##SPELLING:                                               \
    return #SPELLING;
#define PUNCT(NAME, SPELLING)                                                  \
  case TokenKind::NAME:                                                        \
    return SPELLING;
#include "tilec/Frontend/TokenKinds.def"
  default:
    return "";
  }
}

bool Token::isKeyword() const {
  switch (kind) {
#define KEYWORD(SPELLING) case TokenKind::kw_##SPELLING:
#include "tilec/Frontend/TokenKinds.def"
    return true;
  default:
    return false;
  }
}

//===----------------------------------------------------------------------===//
// Character classification
//===----------------------------------------------------------------------===//

static bool isAsciiIdentifierStart(char c) {
  return llvm::isAlpha(c) || c == '_';
}

static bool isAsciiIdentifierChar(char c) {
  return llvm::isAlnum(c) || c == '_';
}

/// Decodes one UTF-8 sequence at `ptr` (before `end`). Returns its length, or
/// 0 if the bytes are not valid UTF-8 (overlong forms and surrogates
/// included).
static unsigned decodeUtf8(const char *ptr, const char *end,
                           uint32_t &codePoint) {
  auto byte = [&](unsigned i) -> uint8_t {
    return static_cast<uint8_t>(ptr[i]);
  };
  uint8_t lead = byte(0);
  unsigned length;
  uint32_t min;
  if (lead < 0x80) {
    codePoint = lead;
    return 1;
  }
  if ((lead & 0xE0) == 0xC0) {
    length = 2;
    codePoint = lead & 0x1F;
    min = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3;
    codePoint = lead & 0x0F;
    min = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4;
    codePoint = lead & 0x07;
    min = 0x10000;
  } else {
    return 0;
  }
  if (end - ptr < static_cast<ptrdiff_t>(length))
    return 0;
  for (unsigned i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0) != 0x80)
      return 0;
    codePoint = (codePoint << 6) | (byte(i) & 0x3F);
  }
  if (codePoint < min || codePoint > 0x10FFFF ||
      (codePoint >= 0xD800 && codePoint <= 0xDFFF))
    return 0;
  return length;
}

/// Whether a non-ASCII code point may appear in an identifier. Python uses
/// the Unicode XID properties; this approximation accepts letters of every
/// script and rejects the punctuation and symbol blocks that show up in
/// copy-pasted code (smart quotes, full-width commas, ideographic spaces,
/// arrows, box drawing, emoji).
static bool isIdentifierCodePoint(uint32_t cp) {
  if (cp < 0x80)
    return isAsciiIdentifierChar(static_cast<char>(cp));
  if (cp <= 0xBF)
    return cp == 0xAA || cp == 0xB5 || cp == 0xBA;
  if (cp == 0xD7 || cp == 0xF7)
    return false;
  auto in = [cp](uint32_t lo, uint32_t hi) { return cp >= lo && cp <= hi; };
  if (in(0x2000, 0x206F) || in(0x20A0, 0x20CF) || in(0x2190, 0x23FF) ||
      in(0x2500, 0x27BF) || in(0x2900, 0x2BFF) || in(0x2E00, 0x2E7F) ||
      in(0x3000, 0x3004) || in(0x3008, 0x303F) || in(0xE000, 0xF8FF) ||
      in(0xFE10, 0xFE1F) || in(0xFE30, 0xFE4F) || in(0xFE50, 0xFE6F) ||
      cp == 0xFEFF || in(0xFF00, 0xFF0F) || in(0xFF1A, 0xFF20) ||
      in(0xFF3B, 0xFF40) || in(0xFF5B, 0xFF65) || in(0xFFF0, 0xFFFF) ||
      in(0x1F000, 0x1FAFF))
    return false;
  return true;
}

/// Whether `ptr` starts an identifier character (ASCII or a valid UTF-8
/// identifier code point); sets `length` to its byte length.
static bool isIdentifierCharAt(const char *ptr, const char *end,
                               unsigned &length) {
  if (ptr >= end)
    return false;
  if (static_cast<uint8_t>(*ptr) < 0x80) {
    length = 1;
    return isAsciiIdentifierChar(*ptr);
  }
  uint32_t cp;
  length = decodeUtf8(ptr, end, cp);
  return length != 0 && isIdentifierCodePoint(cp);
}

static bool isStringPrefix(StringRef text) {
  std::string lower = text.lower();
  return llvm::StringSwitch<bool>(lower)
      .Cases({"r", "u", "f", "b", "br", "rb", "fr", "rf"}, true)
      .Default(false);
}

static TokenKind getKeywordKind(StringRef text) {
  return llvm::StringSwitch<TokenKind>(text)
#define KEYWORD(SPELLING) .Case(#SPELLING, TokenKind::kw_##SPELLING)
#include "tilec/Frontend/TokenKinds.def"
      .Default(TokenKind::identifier);
}

/// Length of the line terminator at `ptr` ("\n" or "\r\n"), or 0.
static unsigned newlineLength(const char *ptr, const char *end) {
  if (ptr < end && *ptr == '\n')
    return 1;
  if (ptr + 1 < end && ptr[0] == '\r' && ptr[1] == '\n')
    return 2;
  return 0;
}

static std::string describeChar(uint32_t cp) {
  std::string result;
  llvm::raw_string_ostream os(result);
  if (cp >= 0x20 && cp < 0x7F)
    os << "'" << static_cast<char>(cp) << "'";
  else
    os << llvm::format("U+%04X", cp);
  return result;
}

//===----------------------------------------------------------------------===//
// Lexer
//===----------------------------------------------------------------------===//

Lexer::Lexer(const llvm::SourceMgr &srcMgr, unsigned bufferId,
             DiagnosticSink &diags)
    : srcMgr(srcMgr), bufferId(bufferId), diags(diags) {
  const llvm::MemoryBuffer *buffer = srcMgr.getMemoryBuffer(bufferId);
  bufStart = buffer->getBufferStart();
  bufEnd = buffer->getBufferEnd();
  curPtr = bufStart;
  // A UTF-8 byte order mark is allowed at the very start.
  if (StringRef(bufStart, bufEnd - bufStart).starts_with("\xEF\xBB\xBF"))
    curPtr += 3;
}

Lexer::Lexer(const llvm::SourceMgr &srcMgr, unsigned bufferId,
             DiagnosticSink &diags, StringRef range)
    : srcMgr(srcMgr), bufferId(bufferId), diags(diags) {
  bufStart = range.begin();
  bufEnd = range.end();
  curPtr = bufStart;
  atLineStart = false;
  embedded = true;
}

std::vector<Token> Lexer::lexAll(const llvm::SourceMgr &srcMgr,
                                 unsigned bufferId, DiagnosticSink &diags) {
  Lexer lexer(srcMgr, bufferId, diags);
  std::vector<Token> tokens;
  do {
    tokens.push_back(lexer.lex());
  } while (tokens.back().isNot(TokenKind::eof));
  return tokens;
}

unsigned Lexer::getLineNumber(const char *ptr) const {
  return srcMgr.FindLineNumber(SMLoc::getFromPointer(ptr), bufferId);
}

void Lexer::report(const char *loc, const llvm::Twine &msg) {
  if (!dryRun)
    diags.error(SMLoc::getFromPointer(loc), msg);
}

Token Lexer::emitError(const char *start, const llvm::Twine &msg) {
  report(start, msg);
  lineHasTokens = true;
  return makeToken(TokenKind::error, start);
}

Token Lexer::lex() {
  // Past the error limit nothing more is reported: end the buffer here
  // (closing the open lines and blocks, so that layout tokens balance).
  if (!stopped && diags.hasReachedErrorLimit()) {
    stopped = true;
    curPtr = bufEnd;
    brackets.clear();
    pendingNewlineAfterError = false;
    atLineStart = false;
  }
  if (pendingDedents > 0) {
    --pendingDedents;
    return Token(TokenKind::dedent, StringRef(pendingDedentLoc, 0));
  }
  if (pendingNewlineAfterError) {
    // The line's brackets were never closed (see endsUnclosedStatement): end
    // the logical line at the newline and start the next one normally.
    pendingNewlineAfterError = false;
    atLineStart = true;
    lineHasTokens = false;
    return Token(TokenKind::newline, StringRef(pendingNewlineLoc, 0));
  }

  while (true) {
    if (atLineStart) {
      if (std::optional<Token> layout = lexLineStart())
        return *layout;
    }
    const char *tokStart = curPtr;
    if (atEnd())
      return lexEndOfBuffer();

    char c = *curPtr;
    switch (c) {
    case ' ':
    case '\t':
    case '\f':
      ++curPtr;
      continue;
    case '#':
      while (!atEnd() && *curPtr != '\n' && !newlineLength(curPtr, bufEnd))
        ++curPtr;
      continue;
    case '\\': {
      unsigned nl = newlineLength(curPtr + 1, bufEnd);
      if (nl) {
        curPtr += 1 + nl;
        continue;
      }
      ++curPtr;
      if (atEnd())
        return emitError(tokStart,
                         "unexpected end of file after line continuation "
                         "character");
      return emitError(tokStart, "unexpected character after line continuation "
                                 "character");
    }
    case '\r':
    case '\n': {
      unsigned nl = newlineLength(curPtr, bufEnd);
      if (!nl) {
        // A lone carriage return is treated as whitespace.
        ++curPtr;
        continue;
      }
      curPtr += nl;
      if (embedded)
        continue; // Inside the brackets of a replacement field.
      if (!brackets.empty()) {
        // Implicit line joining, unless the brackets are never closed and
        // the next line starts a new statement.
        if (endsUnclosedStatement()) {
          reportNeverClosed();
          pendingNewlineAfterError = true;
          pendingNewlineLoc = tokStart;
          lineHasTokens = true;
          return Token(TokenKind::error, StringRef(tokStart, 0));
        }
        continue;
      }
      if (!lineHasTokens) {
        // Only a backslash continuation on this line.
        atLineStart = true;
        continue;
      }
      atLineStart = true;
      lineHasTokens = false;
      return makeToken(TokenKind::newline, tokStart);
    }
    default:
      break;
    }

    lineHasTokens = true;
    if (c == '\0')
      break; // Embedded NUL: diagnosed below.
    if (isAsciiIdentifierStart(c))
      return lexIdentifierOrKeyword(tokStart);
    if (llvm::isDigit(c) || (c == '.' && llvm::isDigit(peekChar(1))))
      return lexNumber(tokStart);
    if (c == '\'' || c == '"')
      return lexString(tokStart, StringRef());
    if (static_cast<uint8_t>(c) >= 0x80)
      return lexNonAscii(tokStart);
    return lexPunctuation(tokStart);
  }

  // Embedded NUL bytes: diagnose a run of them once.
  const char *start = curPtr;
  while (!atEnd() && *curPtr == '\0')
    ++curPtr;
  return emitError(start, "source code cannot contain null bytes");
}

std::optional<Token> Lexer::lexLineStart() {
  unsigned col = 0, altCol = 0;
  while (true) {
    col = altCol = 0;
    while (!atEnd()) {
      char c = *curPtr;
      if (c == ' ') {
        ++col;
        ++altCol;
      } else if (c == '\t') {
        col = (col / 8 + 1) * 8;
        ++altCol;
      } else if (c == '\f') {
        col = altCol = 0;
      } else if (c == '\r' && !newlineLength(curPtr, bufEnd)) {
        // Lone carriage return: whitespace of no width.
      } else {
        break;
      }
      ++curPtr;
    }
    if (atEnd())
      return std::nullopt;
    if (*curPtr == '#') {
      while (!atEnd() && *curPtr != '\n' && !newlineLength(curPtr, bufEnd))
        ++curPtr;
    }
    if (unsigned nl = newlineLength(curPtr, bufEnd)) {
      curPtr += nl; // Blank or comment-only line: no tokens.
      continue;
    }
    if (atEnd())
      return std::nullopt;
    break;
  }

  atLineStart = false;
  currentLineIndent = col;
  const char *first = curPtr;
  auto checkTabs = [&](unsigned expectedAlt, bool deeper) {
    if (deeper ? altCol <= expectedAlt : altCol != expectedAlt)
      report(first, "inconsistent use of tabs and spaces in indentation");
  };

  IndentLevel &top = indents.back();
  if (col == top.aliasCol)
    return std::nullopt; // Already diagnosed.
  if (col == top.col) {
    checkTabs(top.altCol, /*deeper=*/false);
    return std::nullopt;
  }
  if (col > top.col) {
    // No limit here: the parser bounds how deeply statements nest, and
    // reports it once.
    checkTabs(top.altCol, /*deeper=*/true);
    indents.push_back({col, altCol, ~0u});
    lineHasTokens = true;
    return Token(TokenKind::indent, StringRef(first, 0));
  }

  unsigned numDedents = 0;
  while (indents.size() > 1 && col < indents.back().col &&
         col != indents.back().aliasCol) {
    indents.pop_back();
    ++numDedents;
  }
  IndentLevel &outer = indents.back();
  if (col == outer.aliasCol) {
    // Already diagnosed.
  } else if (col != outer.col) {
    report(first, "unindent does not match any outer indentation level");
    // Recover: from now on this column also means the outer level.
    outer.aliasCol = col;
  } else {
    checkTabs(outer.altCol, /*deeper=*/false);
  }
  lineHasTokens = true;
  if (numDedents == 0)
    return std::nullopt;
  pendingDedents = numDedents - 1;
  pendingDedentLoc = first;
  return Token(TokenKind::dedent, StringRef(first, 0));
}

Token Lexer::lexEndOfBuffer() {
  if (dryRun)
    return Token(TokenKind::eof, StringRef(bufEnd, 0));
  if (embedded && brackets.empty())
    return Token(TokenKind::eof, StringRef(bufEnd, 0));
  if (!brackets.empty()) {
    reportNeverClosed();
    lineHasTokens = true;
    return Token(TokenKind::error, StringRef(bufEnd, 0));
  }
  if (lineHasTokens) {
    lineHasTokens = false;
    return Token(TokenKind::newline, StringRef(bufEnd, 0));
  }
  if (indents.size() > 1) {
    pendingDedents = indents.size() - 2;
    pendingDedentLoc = bufEnd;
    indents.resize(1);
    return Token(TokenKind::dedent, StringRef(bufEnd, 0));
  }
  return Token(TokenKind::eof, StringRef(bufEnd, 0));
}

void Lexer::reportNeverClosed() {
  const OpenBracket &innermost = brackets.back();
  report(innermost.loc,
         llvm::Twine("'") + llvm::Twine(innermost.kind) + "' was never closed");
  brackets.clear();
}

std::optional<Lexer::CodeLine> Lexer::findNextCodeLine(const char *ptr) const {
  while (true) {
    unsigned col = 0;
    while (ptr < bufEnd && (*ptr == ' ' || *ptr == '\t' || *ptr == '\f')) {
      col = *ptr == '\t' ? (col / 8 + 1) * 8 : (*ptr == ' ' ? col + 1 : 0);
      ++ptr;
    }
    if (ptr < bufEnd && *ptr == '#')
      while (ptr < bufEnd && *ptr != '\n')
        ++ptr;
    if (unsigned nl = newlineLength(ptr, bufEnd)) {
      ptr += nl;
      continue;
    }
    if (ptr >= bufEnd)
      return std::nullopt;
    const char *wordEnd = ptr;
    while (wordEnd < bufEnd && isAsciiIdentifierChar(*wordEnd))
      ++wordEnd;
    return CodeLine{col, StringRef(ptr, wordEnd - ptr)};
  }
}

/// Keywords that can only start a statement, never continue an expression.
static bool isStatementKeyword(StringRef word) {
  return llvm::StringSwitch<bool>(word)
      .Cases({"def", "class", "return", "import", "pass", "break", "continue",
              "raise", "try", "while", "with", "assert", "del", "global",
              "nonlocal", "elif", "except", "finally"},
             true)
      .Default(false);
}

bool Lexer::endsUnclosedStatement() {
  std::optional<CodeLine> next = findNextCodeLine(curPtr);
  if (!next)
    return false; // The end of the buffer reports the bracket.
  if (isStatementKeyword(next->word)) {
    if (dryRun)
      probeFoundStatement = true;
    return !dryRun;
  }
  if (dryRun) {
    ++probeLines;
    return false;
  }
  // A line that is not indented past the statement holding the outermost
  // bracket ends that statement, if the bracket is known never to close.
  const OpenBracket &outermost = brackets.front();
  if (next->indent > outermost.lineIndent)
    return false;
  if (probedBracket != outermost.loc) {
    probedBracket = outermost.loc;
    probedNeverCloses = probeNeverCloses();
  }
  return probedNeverCloses;
}

bool Lexer::probeNeverCloses() const {
  // Lex ahead without reporting anything, until the brackets close (valid
  // code), a statement keyword starts a line or the buffer ends (never
  // closed), or the look-ahead budget runs out (assume valid).
  Lexer probe(*this);
  probe.dryRun = true;
  probe.probeLines = 0;
  probe.probeFoundStatement = false;
  while (true) {
    Token token = probe.lex();
    if (probe.probeFoundStatement || token.is(TokenKind::eof))
      return true;
    if (probe.brackets.empty())
      return false;
    if (probe.probeLines > kMaxProbeLines)
      return false;
  }
}

Token Lexer::lexIdentifierOrKeyword(const char *start) {
  unsigned length;
  while (isIdentifierCharAt(curPtr, bufEnd, length))
    curPtr += length;
  StringRef text(start, curPtr - start);
  if ((peekChar() == '\'' || peekChar() == '"') && isStringPrefix(text))
    return lexString(start, text);
  return makeToken(getKeywordKind(text), start);
}

Token Lexer::lexNonAscii(const char *start) {
  uint32_t cp;
  unsigned length = decodeUtf8(curPtr, bufEnd, cp);
  if (length == 0) {
    // Skip the whole run of undecodable bytes.
    std::string msg;
    llvm::raw_string_ostream os(msg);
    os << "invalid UTF-8 byte "
       << llvm::format("0x%02X", static_cast<uint8_t>(*curPtr));
    ++curPtr;
    while (!atEnd() && static_cast<uint8_t>(*curPtr) >= 0x80 &&
           decodeUtf8(curPtr, bufEnd, cp) == 0)
      ++curPtr;
    return emitError(start, os.str());
  }
  if (isIdentifierCodePoint(cp))
    return lexIdentifierOrKeyword(start);
  curPtr += length;
  return emitError(start, llvm::Twine("invalid character '") +
                              StringRef(start, length) + "' (" +
                              describeChar(cp) + ")");
}

Token Lexer::lexInvalidCharacter(const char *start) {
  ++curPtr;
  char c = *start;
  if (llvm::isPrint(c))
    return emitError(start,
                     llvm::Twine("invalid character '") + llvm::Twine(c) + "'");
  return emitError(start, "invalid character " +
                              describeChar(static_cast<uint8_t>(c)));
}

Token Lexer::lexNumber(const char *start) {
  auto isDigitOf = [](char c, unsigned radix) {
    switch (radix) {
    case 2:
      return c == '0' || c == '1';
    case 8:
      return c >= '0' && c <= '7';
    case 16:
      return llvm::isHexDigit(c);
    default:
      return llvm::isDigit(c);
    }
  };
  // Digits with single underscores between them.
  auto scanDigits = [&](unsigned radix) {
    while (true) {
      if (isDigitOf(peekChar(), radix))
        ++curPtr;
      else if (peekChar() == '_' && isDigitOf(peekChar(1), radix))
        curPtr += 2;
      else
        break;
    }
  };
  auto skipIdentifierChars = [&] {
    unsigned length;
    while (isIdentifierCharAt(curPtr, bufEnd, length))
      curPtr += length;
  };
  auto startsIdentifierChar = [&] {
    unsigned length;
    return isIdentifierCharAt(curPtr, bufEnd, length);
  };

  char second = peekChar(1);
  if (*curPtr == '0' && llvm::StringRef("xXoObB").contains(second) &&
      second != '\0') {
    unsigned radix = (second == 'x' || second == 'X')   ? 16
                     : (second == 'o' || second == 'O') ? 8
                                                        : 2;
    StringRef name = radix == 16  ? "hexadecimal"
                     : radix == 8 ? "octal"
                                  : "binary";
    curPtr += 2;
    if (peekChar() == '_')
      ++curPtr;
    if (!isDigitOf(peekChar(), radix)) {
      if (radix != 16 && llvm::isDigit(peekChar())) {
        const char *digit = curPtr;
        skipIdentifierChars();
        return emitError(digit, llvm::Twine("invalid digit '") +
                                    llvm::Twine(*digit) + "' in " + name +
                                    " literal");
      }
      skipIdentifierChars();
      return emitError(start, "invalid " + name + " literal");
    }
    scanDigits(radix);
    if (radix != 16 && llvm::isDigit(peekChar())) {
      const char *digit = curPtr;
      skipIdentifierChars();
      return emitError(digit, llvm::Twine("invalid digit '") +
                                  llvm::Twine(*digit) + "' in " + name +
                                  " literal");
    }
    if (startsIdentifierChar()) {
      skipIdentifierChars();
      return emitError(start, "invalid " + name + " literal");
    }
    return makeToken(TokenKind::integer, start);
  }

  bool isFloat = false;
  if (*curPtr == '.') {
    ++curPtr;
    scanDigits(10);
    isFloat = true;
  } else {
    scanDigits(10);
    if (peekChar() == '.') {
      ++curPtr;
      isFloat = true;
      scanDigits(10);
    }
  }
  if (peekChar() == 'e' || peekChar() == 'E') {
    const char *exponent = curPtr;
    ++curPtr;
    if (peekChar() == '+' || peekChar() == '-')
      ++curPtr;
    if (!llvm::isDigit(peekChar())) {
      curPtr = exponent;
      skipIdentifierChars();
      return emitError(start, "invalid decimal literal");
    }
    scanDigits(10);
    isFloat = true;
  }
  TokenKind kind = isFloat ? TokenKind::floating : TokenKind::integer;
  if (peekChar() == 'j' || peekChar() == 'J') {
    ++curPtr;
    kind = TokenKind::imaginary;
  }
  if (startsIdentifierChar()) {
    skipIdentifierChars();
    return emitError(start, kind == TokenKind::imaginary
                                ? "invalid imaginary literal"
                                : "invalid decimal literal");
  }
  StringRef text(start, curPtr - start);
  if (kind == TokenKind::integer && text.size() > 1 && text.front() == '0' &&
      text.find_first_not_of("0_") != StringRef::npos)
    return emitError(start, "leading zeros in decimal integer literals are "
                            "not permitted; use an 0o prefix for octal "
                            "integers");
  return makeToken(kind, start);
}

Token Lexer::lexString(const char *start, StringRef prefix) {
  bool isFormat = prefix.contains_insensitive('f');
  char quote = *curPtr;
  bool triple = peekChar(1) == quote && peekChar(2) == quote;
  curPtr += triple ? 3 : 1;
  if (scanStringBody(quote, triple, isFormat, /*nesting=*/0))
    return makeToken(TokenKind::string, start);

  unsigned line = getLineNumber(std::min(curPtr, bufEnd));
  if (triple)
    return emitError(start, "unterminated triple-quoted string literal "
                            "(detected at line " +
                                llvm::Twine(line) + ")");
  return emitError(start, "unterminated string literal (detected at line " +
                              llvm::Twine(line) + ")");
}

bool Lexer::scanStringBody(char quote, bool triple, bool isFormat,
                           unsigned nesting) {
  while (!atEnd()) {
    char c = *curPtr;
    if (c == '\\') {
      ++curPtr;
      if (atEnd())
        return false;
      curPtr += std::max(1u, newlineLength(curPtr, bufEnd));
      continue;
    }
    if (unsigned nl = newlineLength(curPtr, bufEnd)) {
      if (!triple)
        return false;
      curPtr += nl;
      continue;
    }
    if (c == quote) {
      if (!triple) {
        ++curPtr;
        return true;
      }
      if (peekChar(1) == quote && peekChar(2) == quote) {
        curPtr += 3;
        return true;
      }
      ++curPtr;
      continue;
    }
    if (isFormat && c == '{') {
      if (peekChar(1) == '{') {
        curPtr += 2;
        continue;
      }
      ++curPtr;
      if (!scanReplacementField(triple, nesting + 1))
        return false;
      continue;
    }
    ++curPtr;
  }
  return false;
}

bool Lexer::scanReplacementField(bool triple, unsigned nesting) {
  if (nesting > kMaxFStringNesting)
    return false;
  unsigned depth = 0;
  while (!atEnd()) {
    char c = *curPtr;
    if (unsigned nl = newlineLength(curPtr, bufEnd)) {
      if (!triple)
        return false;
      curPtr += nl;
      continue;
    }
    if (c == '\'' || c == '"') {
      // A string nested in the expression (PEP 701 allows any quote).
      bool nestedFormat = false;
      for (const char *p = curPtr - 1; p >= bufStart && llvm::isAlpha(*p); --p)
        nestedFormat |= (*p == 'f' || *p == 'F');
      bool nestedTriple = peekChar(1) == c && peekChar(2) == c;
      curPtr += nestedTriple ? 3 : 1;
      if (!scanStringBody(c, nestedTriple, nestedFormat, nesting))
        return false;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']') {
      if (depth)
        --depth;
    } else if (c == '}') {
      if (depth == 0) {
        ++curPtr;
        return true;
      }
      --depth;
    }
    ++curPtr;
  }
  return false;
}

Token Lexer::lexPunctuation(const char *start) {
  char c = *curPtr;
  char c1 = peekChar(1);
  char c2 = peekChar(2);
  auto make = [&](TokenKind kind, unsigned length) {
    curPtr += length;
    return makeToken(kind, start);
  };
  // `op` alone, `op=`, `opop`, `opop=` (for * / < >).
  auto withEqual = [&](TokenKind plain, TokenKind equal) {
    return c1 == '=' ? make(equal, 2) : make(plain, 1);
  };

  switch (c) {
  case '(':
  case '[':
  case '{':
    brackets.push_back({c, start, currentLineIndent});
    return make(c == '('   ? TokenKind::l_paren
                : c == '[' ? TokenKind::l_square
                           : TokenKind::l_brace,
                1);
  case ')':
  case ']':
  case '}': {
    char open = c == ')' ? '(' : c == ']' ? '[' : '{';
    TokenKind kind = c == ')'   ? TokenKind::r_paren
                     : c == ']' ? TokenKind::r_square
                                : TokenKind::r_brace;
    ++curPtr;
    if (brackets.empty())
      return emitError(start,
                       llvm::Twine("unmatched '") + llvm::Twine(c) + "'");
    OpenBracket opener = brackets.pop_back_val();
    if (opener.kind != open) {
      unsigned openLine = getLineNumber(opener.loc);
      std::string where;
      if (openLine != getLineNumber(start))
        where = " on line " + std::to_string(openLine);
      return emitError(start, llvm::Twine("closing parenthesis '") +
                                  llvm::Twine(c) +
                                  "' does not match opening parenthesis '" +
                                  llvm::Twine(opener.kind) + "'" + where);
    }
    return make(kind, 0);
  }
  case ',':
    return make(TokenKind::comma, 1);
  case ';':
    return make(TokenKind::semicolon, 1);
  case '~':
    return make(TokenKind::tilde, 1);
  case ':':
    return withEqual(TokenKind::colon, TokenKind::colon_equal);
  case '.':
    if (c1 == '.' && c2 == '.')
      return make(TokenKind::ellipsis, 3);
    return make(TokenKind::period, 1);
  case '+':
    return withEqual(TokenKind::plus, TokenKind::plus_equal);
  case '-':
    if (c1 == '>')
      return make(TokenKind::arrow, 2);
    return withEqual(TokenKind::minus, TokenKind::minus_equal);
  case '%':
    return withEqual(TokenKind::percent, TokenKind::percent_equal);
  case '@':
    return withEqual(TokenKind::at, TokenKind::at_equal);
  case '&':
    return withEqual(TokenKind::amp, TokenKind::amp_equal);
  case '|':
    return withEqual(TokenKind::pipe, TokenKind::pipe_equal);
  case '^':
    return withEqual(TokenKind::caret, TokenKind::caret_equal);
  case '=':
    return withEqual(TokenKind::equal, TokenKind::equal_equal);
  case '!':
    if (c1 == '=')
      return make(TokenKind::not_equal, 2);
    break;
  case '*':
    if (c1 == '*')
      return c2 == '=' ? make(TokenKind::star_star_equal, 3)
                       : make(TokenKind::star_star, 2);
    return withEqual(TokenKind::star, TokenKind::star_equal);
  case '/':
    if (c1 == '/')
      return c2 == '=' ? make(TokenKind::slash_slash_equal, 3)
                       : make(TokenKind::slash_slash, 2);
    return withEqual(TokenKind::slash, TokenKind::slash_equal);
  case '<':
    if (c1 == '<')
      return c2 == '=' ? make(TokenKind::less_less_equal, 3)
                       : make(TokenKind::less_less, 2);
    return withEqual(TokenKind::less, TokenKind::less_equal);
  case '>':
    if (c1 == '>')
      return c2 == '=' ? make(TokenKind::greater_greater_equal, 3)
                       : make(TokenKind::greater_greater, 2);
    return withEqual(TokenKind::greater, TokenKind::greater_equal);
  default:
    break;
  }
  return lexInvalidCharacter(start);
}

//===----------------------------------------------------------------------===//
// Literal decoding
//===----------------------------------------------------------------------===//

std::optional<uint64_t>
tilec::frontend::getIntegerLiteralValue(StringRef spelling) {
  unsigned radix = 10;
  if (spelling.size() > 2 && spelling[0] == '0') {
    switch (spelling[1]) {
    case 'x':
    case 'X':
      radix = 16;
      break;
    case 'o':
    case 'O':
      radix = 8;
      break;
    case 'b':
    case 'B':
      radix = 2;
      break;
    default:
      break;
    }
    if (radix != 10)
      spelling = spelling.drop_front(2);
  }
  uint64_t value = 0;
  bool sawDigit = false;
  for (char c : spelling) {
    if (c == '_')
      continue;
    unsigned digit;
    if (llvm::isDigit(c))
      digit = c - '0';
    else if (llvm::isHexDigit(c))
      digit = llvm::toLower(c) - 'a' + 10;
    else
      return std::nullopt;
    if (digit >= radix)
      return std::nullopt;
    if (__builtin_mul_overflow(value, uint64_t(radix), &value) ||
        __builtin_add_overflow(value, uint64_t(digit), &value))
      return std::nullopt;
    sawDigit = true;
  }
  if (!sawDigit)
    return std::nullopt;
  return value;
}

double tilec::frontend::getFloatLiteralValue(StringRef spelling) {
  std::string digits;
  digits.reserve(spelling.size());
  for (char c : spelling)
    if (c != '_' && c != 'j' && c != 'J')
      digits.push_back(c);
  llvm::APFloat value(llvm::APFloat::IEEEdouble());
  auto status =
      value.convertFromString(digits, llvm::APFloat::rmNearestTiesToEven);
  if (!status) {
    llvm::consumeError(status.takeError());
    return 0.0;
  }
  return value.convertToDouble();
}

StringLiteralParts tilec::frontend::getStringLiteralParts(StringRef spelling) {
  StringLiteralParts parts;
  size_t quotePos = spelling.find_first_of("'\"");
  if (quotePos == StringRef::npos)
    return parts;
  parts.prefix = spelling.take_front(quotePos);
  parts.isRaw = parts.prefix.contains_insensitive('r');
  parts.isBytes = parts.prefix.contains_insensitive('b');
  parts.isFormat = parts.prefix.contains_insensitive('f');
  StringRef rest = spelling.drop_front(quotePos);
  char quote = rest.front();
  unsigned quoteLength =
      rest.size() >= 6 && rest[1] == quote && rest[2] == quote ? 3 : 1;
  if (rest.size() < 2 * quoteLength)
    return parts;
  parts.body = rest.drop_front(quoteLength).drop_back(quoteLength);
  return parts;
}

static void appendUtf8(std::string &out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::string tilec::frontend::decodeStringLiteral(StringRef spelling) {
  StringLiteralParts parts = getStringLiteralParts(spelling);
  return decodeStringBody(parts.body, parts.isRaw, parts.isBytes);
}

std::string tilec::frontend::decodeStringBody(StringRef body, bool isRaw,
                                              bool isBytes) {
  std::string out;
  out.reserve(body.size());
  // Appends a code point (str) or a byte (bytes).
  auto appendCode = [&](uint32_t code) {
    if (isBytes)
      out.push_back(static_cast<char>(code & 0xFF));
    else
      appendUtf8(out, code);
  };
  // Parses exactly `count` hex digits at `pos`.
  auto parseHex = [&](size_t pos, unsigned count, uint32_t &code) {
    if (pos + count > body.size())
      return false;
    code = 0;
    for (unsigned i = 0; i < count; ++i) {
      char c = body[pos + i];
      if (!llvm::isHexDigit(c))
        return false;
      code = code * 16 + llvm::hexDigitValue(c);
    }
    return true;
  };

  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c == '\r' && i + 1 < body.size() && body[i + 1] == '\n')
      continue; // Universal newlines: CRLF reads as LF.
    if (c != '\\' || isRaw || i + 1 == body.size()) {
      out.push_back(c);
      continue;
    }
    char e = body[i + 1];
    switch (e) {
    case '\n':
      ++i;
      continue;
    case '\r':
      i += (i + 2 < body.size() && body[i + 2] == '\n') ? 2 : 1;
      continue;
    case '\\':
    case '\'':
    case '"':
      out.push_back(e);
      ++i;
      continue;
    case 'a':
      out.push_back('\a');
      ++i;
      continue;
    case 'b':
      out.push_back('\b');
      ++i;
      continue;
    case 'f':
      out.push_back('\f');
      ++i;
      continue;
    case 'n':
      out.push_back('\n');
      ++i;
      continue;
    case 'r':
      out.push_back('\r');
      ++i;
      continue;
    case 't':
      out.push_back('\t');
      ++i;
      continue;
    case 'v':
      out.push_back('\v');
      ++i;
      continue;
    case 'x': {
      uint32_t code;
      if (parseHex(i + 2, 2, code)) {
        appendCode(code);
        i += 3;
        continue;
      }
      break;
    }
    case 'u':
    case 'U': {
      unsigned count = e == 'u' ? 4 : 8;
      uint32_t code;
      if (!isBytes && parseHex(i + 2, count, code) && code <= 0x10FFFF) {
        appendUtf8(out, code);
        i += 1 + count;
        continue;
      }
      break;
    }
    default:
      if (e >= '0' && e <= '7') {
        uint32_t code = 0;
        size_t j = i + 1;
        for (unsigned n = 0;
             n < 3 && j < body.size() && body[j] >= '0' && body[j] <= '7';
             ++n, ++j)
          code = code * 8 + (body[j] - '0');
        appendCode(code);
        i = j - 1;
        continue;
      }
      break;
    }
    // Unknown or malformed escape: keep it as written.
    out.push_back(c);
  }
  return out;
}
