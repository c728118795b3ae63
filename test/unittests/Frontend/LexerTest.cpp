//===- LexerTest.cpp - Tests for the .tile lexer --------------------------===//
//
// Part of the tilec project.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Lexer.h"

#include "FrontendTestUtils.h"

#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace tilec::frontend;
using namespace tilec::frontend::testing;

namespace {

/// The tokens of a buffer and the diagnostics the lexer reported.
struct Lexed {
  std::unique_ptr<llvm::SourceMgr> srcMgr;
  std::vector<Token> tokens;
  std::vector<std::string> diagnostics;

  /// Token kinds, space separated, with identifiers/numbers/strings shown
  /// as `kind:spelling` ("identifier:x integer:1 newline eof").
  std::string kinds() const {
    std::string out;
    for (const Token &token : tokens) {
      if (!out.empty())
        out += ' ';
      out += getTokenKindName(token.getKind()).str();
      if (token.isAny(TokenKind::identifier, TokenKind::integer,
                      TokenKind::floating, TokenKind::imaginary,
                      TokenKind::string))
        out += ":" + token.getSpelling().str();
    }
    return out;
  }

  /// "line:col" of token `index`.
  std::string locOf(size_t index) const {
    auto [line, col] = srcMgr->getLineAndColumn(tokens[index].getLoc());
    return std::to_string(line) + ":" + std::to_string(col);
  }
};

Lexed lex(llvm::StringRef source) {
  Lexed result;
  result.srcMgr = makeSourceMgr(source);
  StoringDiagnosticSink sink;
  result.tokens = Lexer::lexAll(*result.srcMgr, 1, sink);
  for (const Diagnostic &diag : sink.getDiagnostics())
    result.diagnostics.push_back(formatDiagnostic(*result.srcMgr, diag));
  return result;
}

using Diags = std::vector<std::string>;

TEST(LexerTest, SimpleStatement) {
  Lexed l = lex("x = a + 1\n");
  EXPECT_EQ(l.kinds(), "identifier:x equal identifier:a plus integer:1 "
                       "newline eof");
  EXPECT_TRUE(l.diagnostics.empty());
  EXPECT_EQ(l.locOf(0), "1:1");
  EXPECT_EQ(l.locOf(3), "1:7");
  EXPECT_EQ(l.locOf(5), "1:10"); // The newline character.
}

TEST(LexerTest, EmptyAndBlankBuffers) {
  EXPECT_EQ(lex("").kinds(), "eof");
  EXPECT_EQ(lex("\n\n   \n").kinds(), "eof");
  EXPECT_EQ(lex("# only a comment").kinds(), "eof");
  EXPECT_EQ(lex("   # indented comment\n\t\n").kinds(), "eof");
}

TEST(LexerTest, MissingFinalNewline) {
  Lexed l = lex("pass");
  EXPECT_EQ(l.kinds(), "kw_pass newline eof");
  EXPECT_TRUE(l.tokens[1].getSpelling().empty());
}

TEST(LexerTest, IndentAndDedent) {
  Lexed l = lex("def f():\n"
                "    if x:\n"
                "        y\n"
                "    z\n"
                "w\n");
  EXPECT_EQ(l.kinds(), "kw_def identifier:f l_paren r_paren colon newline "
                       "indent kw_if identifier:x colon newline "
                       "indent identifier:y newline "
                       "dedent identifier:z newline "
                       "dedent identifier:w newline eof");
  EXPECT_TRUE(l.diagnostics.empty());
  // INDENT/DEDENT sit at the first token of their line.
  EXPECT_EQ(l.locOf(6), "2:5");
  EXPECT_EQ(l.locOf(15), "4:5");
  EXPECT_EQ(l.locOf(18), "5:1");
}

TEST(LexerTest, SeveralDedentsAtOnceAndAtEnd) {
  EXPECT_EQ(lex("if a:\n if b:\n  if c:\n   d\ne\n").kinds(),
            "kw_if identifier:a colon newline indent kw_if identifier:b colon "
            "newline indent kw_if identifier:c colon newline indent "
            "identifier:d newline dedent dedent dedent identifier:e newline "
            "eof");
  // At the end of the buffer without a final newline.
  EXPECT_EQ(lex("if a:\n  if b:\n    c").kinds(),
            "kw_if identifier:a colon newline indent kw_if identifier:b colon "
            "newline indent identifier:c newline dedent dedent eof");
}

TEST(LexerTest, BlankAndCommentLinesDoNotChangeIndentation) {
  EXPECT_EQ(lex("if a:\n    b\n\n  # comment\n        \n    c\n").kinds(),
            "kw_if identifier:a colon newline indent identifier:b newline "
            "identifier:c newline dedent eof");
}

TEST(LexerTest, TabsAdvanceToMultiplesOfEight) {
  // One tab is column 8; tab+tab is 16; going back to one tab dedents once.
  Lexed l = lex("if a:\n\tif b:\n\t\tc\n\td\n");
  EXPECT_EQ(l.kinds(),
            "kw_if identifier:a colon newline indent kw_if identifier:b colon "
            "newline indent identifier:c newline dedent identifier:d newline "
            "dedent eof");
  EXPECT_TRUE(l.diagnostics.empty());

  // Two spaces + tab and three spaces + tab are both column 8: the same
  // level, no INDENT. (Counting tabs as one column they would differ, which
  // is why CPython calls this ambiguous.)
  Lexed same = lex("if a:\n  \tb\n   \tc\n");
  EXPECT_EQ(same.kinds(),
            "kw_if identifier:a colon newline indent identifier:b newline "
            "identifier:c newline dedent eof");
  EXPECT_EQ(same.diagnostics,
            Diags{"3:5: inconsistent use of tabs and spaces in indentation"});

  // A tab after four spaces is column 8 too, deeper than four spaces.
  EXPECT_EQ(lex("if a:\n    if b:\n    \tc\n").kinds(),
            "kw_if identifier:a colon newline indent kw_if identifier:b colon "
            "newline indent identifier:c newline dedent dedent eof");
}

TEST(LexerTest, TabAndEightSpacesAreAmbiguous) {
  Lexed l = lex("if a:\n\tb\n        c\n");
  EXPECT_EQ(l.diagnostics,
            Diags{"3:9: inconsistent use of tabs and spaces in indentation"});
}

TEST(LexerTest, ImplicitLineJoining) {
  Lexed l = lex("x = f(a,\n"
                "      b,   # comment\n"
                "\n"
                "  [c,\n"
                "d])\n"
                "y\n");
  EXPECT_EQ(l.kinds(),
            "identifier:x equal identifier:f l_paren identifier:a comma "
            "identifier:b comma l_square identifier:c comma identifier:d "
            "r_square r_paren newline identifier:y newline eof");
  EXPECT_TRUE(l.diagnostics.empty());
}

TEST(LexerTest, BackslashContinuation) {
  Lexed l = lex("if a:\n    x = 1 + \\\n2\n    y\n");
  EXPECT_EQ(l.kinds(),
            "kw_if identifier:a colon newline indent identifier:x equal "
            "integer:1 plus integer:2 newline identifier:y newline dedent eof");
  EXPECT_TRUE(l.diagnostics.empty());
}

TEST(LexerTest, CrLfAndFormFeed) {
  Lexed l = lex("if a:\r\n    b\r\n\f\r\nc\r\n");
  EXPECT_EQ(l.kinds(), "kw_if identifier:a colon newline indent identifier:b "
                       "newline dedent identifier:c newline eof");
  EXPECT_EQ(l.tokens[3].getSpelling(), "\r\n");
  EXPECT_TRUE(l.diagnostics.empty());
}

TEST(LexerTest, ByteOrderMarkIsSkipped) {
  Lexed l = lex("\xEF\xBB\xBFx\n");
  EXPECT_EQ(l.kinds(), "identifier:x newline eof");
  EXPECT_EQ(l.locOf(0), "1:4");
}

TEST(LexerTest, Keywords) {
  Lexed l = lex("False None True and as assert async await break class "
                "continue def del elif else except finally for from global "
                "if import in is lambda nonlocal not or pass raise return try "
                "while with yield match case type _");
  EXPECT_EQ(l.kinds(),
            "kw_False kw_None kw_True kw_and kw_as kw_assert kw_async "
            "kw_await kw_break kw_class kw_continue kw_def kw_del kw_elif "
            "kw_else kw_except kw_finally kw_for kw_from kw_global kw_if "
            "kw_import kw_in kw_is kw_lambda kw_nonlocal kw_not kw_or "
            "kw_pass kw_raise kw_return kw_try kw_while kw_with kw_yield "
            "identifier:match identifier:case identifier:type identifier:_ "
            "newline eof");
  EXPECT_TRUE(l.tokens[0].isKeyword());
  EXPECT_FALSE(l.tokens[35].isKeyword());
}

TEST(LexerTest, OperatorsUseLongestMatch) {
  Lexed l = lex("** // @ -> := ... <<= >>= **= //= @= != == <= >= ~ ^ | & "
                "+= -= *= /= %= &= |= ^= << >> < > = + - * / % . , : ; "
                "( ) [ ] { }");
  EXPECT_EQ(l.kinds(),
            "star_star slash_slash at arrow colon_equal ellipsis "
            "less_less_equal greater_greater_equal star_star_equal "
            "slash_slash_equal at_equal not_equal equal_equal less_equal "
            "greater_equal tilde caret pipe amp plus_equal minus_equal "
            "star_equal slash_equal percent_equal amp_equal pipe_equal "
            "caret_equal less_less greater_greater less greater equal plus "
            "minus star slash percent period comma colon semicolon l_paren "
            "r_paren l_square r_square l_brace r_brace newline eof");
  EXPECT_TRUE(l.diagnostics.empty());
  // Without spaces: `a**-b`, `x[:,None]`, `a...b` is not an ellipsis
  // between names but `a.b` plus dots.
  EXPECT_EQ(lex("a**-b//c").kinds(),
            "identifier:a star_star minus identifier:b slash_slash "
            "identifier:c newline eof");
  EXPECT_EQ(lex("x[:,None]").kinds(),
            "identifier:x l_square colon comma kw_None r_square newline eof");
  EXPECT_EQ(lex("a..b").kinds(),
            "identifier:a period period identifier:b newline eof");
}

TEST(LexerTest, Numbers) {
  struct Case {
    const char *text;
    TokenKind kind;
  };
  const Case cases[] = {
      {"0", TokenKind::integer},          {"42", TokenKind::integer},
      {"1_000", TokenKind::integer},      {"0x_FF", TokenKind::integer},
      {"0XdeadBEEF", TokenKind::integer}, {"0o17", TokenKind::integer},
      {"0b1010", TokenKind::integer},     {"00", TokenKind::integer},
      {"0_0", TokenKind::integer},        {"1.5", TokenKind::floating},
      {".5", TokenKind::floating},        {"1.", TokenKind::floating},
      {"1e-5", TokenKind::floating},      {"1E+10", TokenKind::floating},
      {"1_0.0_1", TokenKind::floating},   {"01.5", TokenKind::floating},
      {"0e0", TokenKind::floating},       {"1j", TokenKind::imaginary},
      {"1.5J", TokenKind::imaginary},     {"1e3j", TokenKind::imaginary},
      {"09j", TokenKind::imaginary},
  };
  for (const Case &c : cases) {
    Lexed l = lex(c.text);
    ASSERT_EQ(l.tokens.size(), 3u) << c.text;
    EXPECT_EQ(l.tokens[0].getKind(), c.kind) << c.text;
    EXPECT_EQ(l.tokens[0].getSpelling(), c.text);
    EXPECT_TRUE(l.diagnostics.empty()) << c.text;
  }
}

TEST(LexerTest, IntegerValues) {
  EXPECT_EQ(getIntegerLiteralValue("0"), 0u);
  EXPECT_EQ(getIntegerLiteralValue("1_000"), 1000u);
  EXPECT_EQ(getIntegerLiteralValue("0x_FF"), 255u);
  EXPECT_EQ(getIntegerLiteralValue("0o17"), 15u);
  EXPECT_EQ(getIntegerLiteralValue("0B1010"), 10u);
  EXPECT_EQ(getIntegerLiteralValue("18446744073709551615"),
            18446744073709551615u);
  EXPECT_EQ(getIntegerLiteralValue("18446744073709551616"), std::nullopt);
  EXPECT_EQ(getIntegerLiteralValue("0x1_0000_0000_0000_0000"), std::nullopt);
}

TEST(LexerTest, FloatValues) {
  EXPECT_DOUBLE_EQ(getFloatLiteralValue("1.5"), 1.5);
  EXPECT_DOUBLE_EQ(getFloatLiteralValue(".5"), 0.5);
  EXPECT_DOUBLE_EQ(getFloatLiteralValue("1."), 1.0);
  EXPECT_DOUBLE_EQ(getFloatLiteralValue("1e-5"), 1e-5);
  EXPECT_DOUBLE_EQ(getFloatLiteralValue("1_0.2_5e1_0"), 10.25e10);
  EXPECT_DOUBLE_EQ(getFloatLiteralValue("2.5j"), 2.5);
  EXPECT_DOUBLE_EQ(getFloatLiteralValue("1.44269504"), 1.44269504);
  EXPECT_TRUE(std::isinf(getFloatLiteralValue("1e999")));
}

TEST(LexerTest, MalformedNumbers) {
  struct Case {
    const char *text;
    const char *diagnostic;
  };
  const Case cases[] = {
      {"x = 0x", "1:5: invalid hexadecimal literal"},
      {"x = 0xg1", "1:5: invalid hexadecimal literal"},
      {"x = 0o8", "1:7: invalid digit '8' in octal literal"},
      {"x = 0o17 + 0o19", "1:15: invalid digit '9' in octal literal"},
      {"x = 0b102", "1:9: invalid digit '2' in binary literal"},
      {"x = 1_", "1:5: invalid decimal literal"},
      {"x = 1__0", "1:5: invalid decimal literal"},
      {"x = 1abc", "1:5: invalid decimal literal"},
      {"x = 1e", "1:5: invalid decimal literal"},
      {"x = 1e+", "1:5: invalid decimal literal"},
      {"x = 2jk", "1:5: invalid imaginary literal"},
      {"x = 012", "1:5: leading zeros in decimal integer literals are not "
                  "permitted; use an 0o prefix for octal integers"},
  };
  for (const Case &c : cases) {
    Lexed l = lex(c.text);
    EXPECT_EQ(l.diagnostics, Diags{c.diagnostic}) << c.text;
    EXPECT_TRUE(llvm::any_of(l.tokens, [](const Token &t) {
      return t.is(TokenKind::error);
    })) << c.text;
  }
}

TEST(LexerTest, StringPrefixesAndQuotes) {
  Lexed l = lex("'a' \"b\" r'\\d' b\"\\x00\" rb'x' BR'y' Rb\"z\" f'{x}' "
                "Rf\"{y}\" u'u' F'''tri\nple''' \"\"\"doc\"\"\"");
  EXPECT_EQ(l.kinds(),
            "string:'a' string:\"b\" string:r'\\d' string:b\"\\x00\" "
            "string:rb'x' string:BR'y' string:Rb\"z\" string:f'{x}' "
            "string:Rf\"{y}\" string:u'u' string:F'''tri\nple''' "
            "string:\"\"\"doc\"\"\" newline eof");
  EXPECT_TRUE(l.diagnostics.empty());
  // A name that is not a prefix stays a name.
  EXPECT_EQ(lex("ab'x'").kinds(), "identifier:ab string:'x' newline eof");
}

TEST(LexerTest, StringValues) {
  EXPECT_EQ(decodeStringLiteral(R"('a\tb\n\\\'')"), "a\tb\n\\'");
  EXPECT_EQ(decodeStringLiteral(R"(r'a\tb\'')"), "a\\tb\\'");
  EXPECT_EQ(decodeStringLiteral(R"('\x41\101\u00e9\U0001F600')"),
            "AA\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(decodeStringLiteral(R"(b'\xff\101')"), "\xff"
                                                   "A");
  EXPECT_EQ(decodeStringLiteral("'''a\\\nb\r\nc'''"), "ab\nc");
  EXPECT_EQ(decodeStringLiteral(R"('\q\x4')"), "\\q\\x4");
  EXPECT_EQ(decodeStringLiteral(R"(f"{x!r:>{w}} {{}}")"), "{x!r:>{w}} {{}}");
  StringLiteralParts parts = getStringLiteralParts("Rb'''x'''");
  EXPECT_EQ(parts.prefix, "Rb");
  EXPECT_EQ(parts.body, "x");
  EXPECT_TRUE(parts.isRaw && parts.isBytes && !parts.isFormat);
}

TEST(LexerTest, FStringsWithNestedQuotesAreOneToken) {
  Lexed l = lex(R"(s = f"{x["a"]} and {f'{y}'} and {z:{w}}" + t)");
  EXPECT_EQ(l.kinds(), "identifier:s equal "
                       "string:f\"{x[\"a\"]} and {f'{y}'} and {z:{w}}\" "
                       "plus identifier:t newline eof");
  EXPECT_TRUE(l.diagnostics.empty());
}

TEST(LexerTest, StringsMayContainAnyBytesAndEscapedQuotes) {
  Lexed l = lex("s = '\xe2\x9c\x85 \\' \\\\' # \xff comment\n");
  EXPECT_EQ(l.tokens.size(), 5u);
  EXPECT_EQ(l.tokens[2].getKind(), TokenKind::string);
  EXPECT_TRUE(l.diagnostics.empty());
}

TEST(LexerTest, UnterminatedStrings) {
  Lexed single = lex("x = 'abc\ny = 1\n");
  EXPECT_EQ(single.diagnostics,
            Diags{"1:5: unterminated string literal (detected at line 1)"});
  // The lexer resumes on the next line.
  EXPECT_EQ(single.kinds(), "identifier:x equal error newline identifier:y "
                            "equal integer:1 newline eof");

  Lexed triple = lex("x = 1\ns = \"\"\"doc\n\nmore\n");
  EXPECT_EQ(triple.diagnostics,
            Diags{"2:5: unterminated triple-quoted string literal (detected "
                  "at line 5)"});
  EXPECT_EQ(lex("f'{x'").diagnostics,
            Diags{"1:1: unterminated string literal (detected at line 1)"});
  EXPECT_EQ(lex("'abc\\").diagnostics,
            Diags{"1:1: unterminated string literal (detected at line 1)"});
}

TEST(LexerTest, UnicodeIdentifiers) {
  Lexed l = lex("größe = 数据 + _x1\n");
  EXPECT_EQ(l.kinds(), "identifier:größe equal identifier:数据 plus "
                       "identifier:_x1 newline eof");
  EXPECT_TRUE(l.diagnostics.empty());
}

TEST(LexerTest, InvalidCharacters) {
  EXPECT_EQ(lex("x = a $ b").diagnostics, Diags{"1:7: invalid character '$'"});
  EXPECT_EQ(lex("x = a ? b").diagnostics, Diags{"1:7: invalid character '?'"});
  EXPECT_EQ(lex("x = !a").diagnostics, Diags{"1:5: invalid character '!'"});
  EXPECT_EQ(lex("x = \x01").diagnostics,
            Diags{"1:5: invalid character U+0001"});
  // Copy-pasted smart quotes and full-width commas.
  EXPECT_EQ(lex("x = \xE2\x80\x9C"
                "ab\xE2\x80\x9D")
                .diagnostics,
            (Diags{"1:5: invalid character '\xE2\x80\x9C' (U+201C)",
                   "1:10: invalid character '\xE2\x80\x9D' (U+201D)"}));
  EXPECT_EQ(lex("f(a\xEF\xBC\x8C b)").diagnostics,
            Diags{"1:4: invalid character '\xEF\xBC\x8C' (U+FF0C)"});
  EXPECT_EQ(lex("x = \xFF\xFE + 1").diagnostics,
            Diags{"1:5: invalid UTF-8 byte 0xFF"});
  Lexed nul = lex(llvm::StringRef("x = 1\0\0 + 2\n", 12));
  EXPECT_EQ(nul.diagnostics,
            Diags{"1:6: source code cannot contain null bytes"});
  EXPECT_EQ(nul.kinds(), "identifier:x equal integer:1 error plus integer:2 "
                         "newline eof");
}

TEST(LexerTest, Brackets) {
  EXPECT_EQ(lex("x = a)").diagnostics, Diags{"1:6: unmatched ')'"});
  EXPECT_EQ(lex("x = (a]").diagnostics,
            Diags{"1:7: closing parenthesis ']' does not match opening "
                  "parenthesis '('"});
  EXPECT_EQ(lex("x = {a,\n b)").diagnostics,
            Diags{"2:3: closing parenthesis ')' does not match opening "
                  "parenthesis '{' on line 1"});
  Lexed unclosed = lex("x = f(a, [b]\n");
  EXPECT_EQ(unclosed.diagnostics, Diags{"1:6: '(' was never closed"});
  EXPECT_EQ(unclosed.kinds(), "identifier:x equal identifier:f l_paren "
                              "identifier:a comma l_square identifier:b "
                              "r_square error newline eof");
}

TEST(LexerTest, NeverClosedBracketBeforeANewStatement) {
  // The next line cannot continue the expression: report the bracket and
  // resume with a fresh line.
  Lexed l = lex("def f():\n"
                "    x = g(a,\n"
                "    y = 2\n"
                "    return y\n");
  EXPECT_EQ(l.diagnostics, Diags{"2:10: '(' was never closed"});
  EXPECT_EQ(l.kinds(),
            "kw_def identifier:f l_paren r_paren colon newline indent "
            "identifier:x equal identifier:g l_paren identifier:a comma error "
            "newline identifier:y equal integer:2 newline kw_return "
            "identifier:y newline dedent eof");
  // Valid code is never cut, however its continuation lines are indented.
  EXPECT_TRUE(lex("x = g(a,\n      b=1)\n").diagnostics.empty());
  EXPECT_TRUE(lex("x = g(\na,\nb=1,\n)\n").diagnostics.empty());
  EXPECT_TRUE(lex("if a:\n    c = (a\n@ b)\n").diagnostics.empty());
  EXPECT_TRUE(lex("d = {\n'return': 1,\n'def': 2}\n").diagnostics.empty());
}

TEST(LexerTest, NeverClosedBracketEndsAtTheNextStatementLine) {
  // Continuation lines indented past the statement still belong to it; the
  // first line back at the statement's indentation starts a new one.
  Lexed l = lex("if a:\n"
                "    y = f(x,\n"
                "          1\n"
                "    z = 2\n"
                "w\n");
  EXPECT_EQ(l.diagnostics, Diags{"2:10: '(' was never closed"});
  EXPECT_EQ(l.kinds(),
            "kw_if identifier:a colon newline indent identifier:y equal "
            "identifier:f l_paren identifier:x comma integer:1 error newline "
            "identifier:z equal integer:2 newline dedent identifier:w newline "
            "eof");
}

TEST(LexerTest, BackslashErrors) {
  EXPECT_EQ(lex("x = a \\ + b").diagnostics,
            Diags{"1:7: unexpected character after line continuation "
                  "character"});
  EXPECT_EQ(lex("x = a \\").diagnostics,
            Diags{"1:7: unexpected end of file after line continuation "
                  "character"});
}

TEST(LexerTest, UnindentMismatch) {
  Lexed l = lex("if a:\n    b\n  c\n  d\ne\n");
  EXPECT_EQ(l.diagnostics,
            Diags{"3:3: unindent does not match any outer indentation level"});
  // Recovery: column 3 is taken as the outer level from then on, so `d` is
  // not an unexpected indent.
  EXPECT_EQ(l.kinds(), "kw_if identifier:a colon newline indent identifier:b "
                       "newline dedent identifier:c newline identifier:d "
                       "newline identifier:e newline eof");
}

TEST(LexerTest, DeepIndentation) {
  // The lexer follows any depth; the parser bounds how deeply statements
  // nest (and reports it once).
  std::string source;
  for (unsigned i = 0; i < 150; ++i)
    source += std::string(i, ' ') + "if x:\n";
  source += std::string(150, ' ') + "pass\n";
  Lexed l = lex(source);
  EXPECT_TRUE(l.diagnostics.empty());
  unsigned indents = 0, dedents = 0;
  for (const Token &token : l.tokens) {
    indents += token.is(TokenKind::indent);
    dedents += token.is(TokenKind::dedent);
  }
  EXPECT_EQ(indents, 150u);
  EXPECT_EQ(dedents, 150u);
}

TEST(LexerTest, TokenRanges) {
  Lexed l = lex("  if x:\n    yy = 'ab'\n");
  const Token &str = l.tokens[8];
  ASSERT_EQ(str.getKind(), TokenKind::string);
  EXPECT_EQ(str.getEndLoc().getPointer() - str.getLoc().getPointer(), 4);
  EXPECT_EQ(l.locOf(8), "2:10");
}

} // namespace
