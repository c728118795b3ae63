//===- Lexer.h - Python tokenizer for .tile files ---------------*- C++ -*-===//
//
// Part of the tilec project.
//
//===----------------------------------------------------------------------===//
//
// The lexer turns a `.tile` (or Triton `.py`) buffer into Python 3 tokens,
// including the layout tokens NEWLINE / INDENT / DEDENT:
//
// - Indentation is measured in columns, a tab advancing to the next multiple
//   of 8 (and, as in CPython, a second measure with tabs of width 1 must
//   agree, otherwise the indentation mixes tabs and spaces ambiguously).
// - Inside (), [] and {} newlines and indentation are ignored (implicit line
//   joining), as after a backslash at the end of a line.
// - Blank lines and comment-only lines produce no tokens.
// - At the end of the buffer the lexer emits a NEWLINE if the last logical
//   line was not terminated, one DEDENT per open indentation level, then EOF
//   forever.
//
// Malformed input never stops the lexer: it reports the problem to the
// DiagnosticSink, returns a `error` token covering the offending characters,
// and continues after them. A parser therefore never reports a second error
// at an `error` token.
//
// Every token's spelling is a StringRef into the source buffer, so its
// location is `getLoc()` and the buffer must outlive the tokens.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_LEXER_H
#define TILEC_FRONTEND_LEXER_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace tilec::frontend {

class DiagnosticSink;

/// The kind of a token; see TokenKinds.def.
enum class TokenKind : uint8_t {
#define TOK(NAME) NAME,
#include "tilec/Frontend/TokenKinds.def"
};

/// Returns the enumerator name of `kind` ("l_paren", "kw_def", "newline").
llvm::StringRef getTokenKindName(TokenKind kind);

/// Returns the fixed spelling of a keyword or punctuation kind ("def", "**"),
/// or an empty string for kinds without a fixed spelling.
llvm::StringRef getTokenSpelling(TokenKind kind);

/// One token: a kind and its spelling in the source buffer. Layout tokens
/// (NEWLINE at the end of the buffer, INDENT, DEDENT, EOF) have an empty
/// spelling located where they apply: INDENT and DEDENT at the first
/// character of the line that changes the indentation.
class Token {
public:
  Token() = default;
  Token(TokenKind kind, llvm::StringRef spelling)
      : kind(kind), spelling(spelling) {}

  TokenKind getKind() const { return kind; }
  bool is(TokenKind k) const { return kind == k; }
  bool isNot(TokenKind k) const { return kind != k; }
  template <typename... Kinds> bool isAny(Kinds... ks) const {
    return ((kind == ks) || ...);
  }
  /// True for the Python keywords (`def`, `True`, `and`, ...). Soft keywords
  /// (`match`, `case`, `type`, `_`) are identifiers.
  bool isKeyword() const;

  /// The characters of the token, including a string's prefix and quotes.
  llvm::StringRef getSpelling() const { return spelling; }
  llvm::SMLoc getLoc() const {
    return llvm::SMLoc::getFromPointer(spelling.data());
  }
  /// One past the last character.
  llvm::SMLoc getEndLoc() const {
    return llvm::SMLoc::getFromPointer(spelling.data() + spelling.size());
  }
  llvm::SMRange getRange() const { return {getLoc(), getEndLoc()}; }

private:
  TokenKind kind = TokenKind::eof;
  llvm::StringRef spelling;
};

/// Streams the tokens of one SourceMgr buffer. See the file comment for the
/// layout rules and error handling.
class Lexer {
public:
  /// Deepest nesting of f-string replacement fields the lexer follows.
  static constexpr unsigned kMaxFStringNesting = 32;
  /// How many lines the lexer looks ahead to decide whether a bracket that
  /// spans lines is ever closed.
  static constexpr unsigned kMaxProbeLines = 256;

  Lexer(const llvm::SourceMgr &srcMgr, unsigned bufferId,
        DiagnosticSink &diags);
  /// Lexes only `range`, characters of buffer `bufferId`, as the inside of
  /// brackets (an f-string replacement field): newlines are whitespace, there
  /// are no NEWLINE/INDENT/DEDENT tokens, and `eof` comes at the end of the
  /// range. Token locations point into the buffer.
  Lexer(const llvm::SourceMgr &srcMgr, unsigned bufferId, DiagnosticSink &diags,
        llvm::StringRef range);

  /// Returns the next token. After the end of the buffer, returns `eof`
  /// forever.
  Token lex();

  /// Convenience: all tokens of a buffer, the final `eof` included.
  static std::vector<Token> lexAll(const llvm::SourceMgr &srcMgr,
                                   unsigned bufferId, DiagnosticSink &diags);

private:
  struct OpenBracket {
    char kind;
    const char *loc;
    /// Indentation (columns) of the line holding the bracket.
    unsigned lineIndent;
  };

  Token makeToken(TokenKind kind, const char *start) const {
    return Token(kind, llvm::StringRef(start, curPtr - start));
  }
  Token emitError(const char *start, const llvm::Twine &msg);
  bool atEnd() const { return curPtr >= bufEnd; }
  char peekChar(unsigned offset = 0) const {
    return curPtr + offset < bufEnd ? curPtr[offset] : '\0';
  }
  /// Number of the line (1-based) holding `ptr`.
  unsigned getLineNumber(const char *ptr) const;

  std::optional<Token> lexLineStart();
  Token lexEndOfBuffer();
  Token lexIdentifierOrKeyword(const char *start);
  Token lexNumber(const char *start);
  Token lexString(const char *start, llvm::StringRef prefix);
  Token lexPunctuation(const char *start);
  Token lexNonAscii(const char *start);
  Token lexInvalidCharacter(const char *start);

  /// Scans the body of a string whose opening quote(s) were consumed; returns
  /// false (with curPtr at the failure point) if it is unterminated.
  bool scanStringBody(char quote, bool triple, bool isFormat, unsigned nesting);
  /// Scans an f-string replacement field after its '{'.
  bool scanReplacementField(bool triple, unsigned nesting);
  /// Reports a problem (unless this is a look-ahead probe).
  void report(const char *loc, const llvm::Twine &msg);

  // Brackets that are never closed. A newline inside brackets normally
  // joins lines; it ends the logical line instead (after "'(' was never
  // closed") when the next line starts with a keyword that only starts
  // statements (`def`, `return`, ...), or when it is not indented past the
  // bracket's statement and a look-ahead shows that the brackets never
  // close. Valid code is never cut.

  /// A line with code on it: its indentation and leading word (if any).
  struct CodeLine {
    unsigned indent;
    llvm::StringRef word;
  };
  std::optional<CodeLine> findNextCodeLine(const char *ptr) const;
  /// At a newline inside brackets: whether the logical line ends here.
  bool endsUnclosedStatement();
  /// Lexes ahead to see whether the open brackets ever close.
  bool probeNeverCloses() const;
  /// Reports the innermost open bracket as never closed and forgets all.
  void reportNeverClosed();

  const llvm::SourceMgr &srcMgr;
  unsigned bufferId;
  DiagnosticSink &diags;
  const char *bufStart;
  const char *bufEnd;
  const char *curPtr;

  /// One open indentation level.
  struct IndentLevel {
    /// Width in columns, tabs advancing to the next multiple of 8.
    unsigned col;
    /// Width with tabs counted as one column; must order lines the same way
    /// as `col`, otherwise tabs and spaces are mixed ambiguously.
    unsigned altCol;
    /// After an inconsistent dedent, the column that was accepted as this
    /// level (error recovery), or ~0u.
    unsigned aliasCol;
  };
  llvm::SmallVector<IndentLevel, 8> indents{{0, 0, ~0u}};
  llvm::SmallVector<OpenBracket, 8> brackets;
  unsigned pendingDedents = 0;
  const char *pendingDedentLoc = nullptr;
  /// Indentation of the current logical line.
  unsigned currentLineIndent = 0;
  bool atLineStart = true;
  /// Whether the current logical line has produced a token (so a NEWLINE is
  /// owed at its end).
  bool lineHasTokens = false;
  /// A NEWLINE is owed after the error token that ends a line whose
  /// brackets were found to be never closed.
  bool pendingNewlineAfterError = false;
  const char *pendingNewlineLoc = nullptr;

  /// The outermost bracket last probed, and the verdict.
  const char *probedBracket = nullptr;
  bool probedNeverCloses = false;
  /// Look-ahead state: a probe reports nothing and stops at the first
  /// statement keyword or after kMaxProbeLines lines.
  bool dryRun = false;
  bool probeFoundStatement = false;
  unsigned probeLines = 0;
  /// Lexing a sub-range of the buffer (see the range constructor).
  bool embedded = false;
  /// The diagnostic sink's error limit was reached: the rest of the buffer
  /// is skipped.
  bool stopped = false;
};

//===----------------------------------------------------------------------===//
// Literal decoding
//===----------------------------------------------------------------------===//

/// Value of an `integer` token's spelling (any radix, underscores allowed),
/// or std::nullopt if it does not fit in 64 bits.
std::optional<uint64_t> getIntegerLiteralValue(llvm::StringRef spelling);

/// Value of a `floating` token's spelling, or of the imaginary part of an
/// `imaginary` token's spelling (the trailing `j` is ignored). Values too
/// large for a double become infinity, as in Python.
double getFloatLiteralValue(llvm::StringRef spelling);

/// The parts of a `string` token's spelling.
struct StringLiteralParts {
  llvm::StringRef prefix; ///< e.g. "rb"; empty for a plain string.
  llvm::StringRef body;   ///< Characters between the quotes, undecoded.
  bool isRaw = false;
  bool isBytes = false;
  bool isFormat = false;
};

/// Splits a well-formed `string` token's spelling into prefix and body.
StringLiteralParts getStringLiteralParts(llvm::StringRef spelling);

/// Decodes the characters between the quotes of a string literal: escape
/// sequences (unless `isRaw`), `\uXXXX`-style escapes encoded as UTF-8 (not
/// in bytes), CRLF read as LF. Malformed escapes are kept as written.
std::string decodeStringBody(llvm::StringRef body, bool isRaw, bool isBytes);

/// The value of a `string` token: escape sequences decoded (unless raw),
/// `\uXXXX`-style escapes encoded as UTF-8 (not in bytes). f-strings are
/// decoded like plain strings; their replacement fields stay verbatim.
/// Malformed escapes are kept as written.
std::string decodeStringLiteral(llvm::StringRef spelling);

} // namespace tilec::frontend

#endif // TILEC_FRONTEND_LEXER_H
