//===- ParserErrorTest.cpp - Diagnostics of the .tile parser --------------===//
//
// Part of the tilec project.
//
//===----------------------------------------------------------------------===//
//
// Each malformed input lists every diagnostic it must produce, as
// "line:col: message", in order: the parser reports independent errors in
// one run and no follow-on noise.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Parser.h"

#include "FrontendTestUtils.h"

#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

using namespace tilec::frontend;
using namespace tilec::frontend::testing;

namespace {

using Diags = std::vector<std::string>;

struct ErrorCase {
  const char *name;
  const char *source;
  Diags expected;
};

/// Prefix that makes the following lines the body of a jit kernel; its body
/// starts on line 3.
#define KERNEL "@triton.jit\ndef k(x, y, p):\n"

const ErrorCase kErrorCases[] = {
    {"MissingColonAfterIf",
     KERNEL "    if x > 0\n        return x\n",
     {"3:13: expected ':' after 'if' condition, found end of line"}},
    {"MissingColonAfterElif",
     KERNEL "    if x:\n        pass\n    elif y\n        pass\n",
     {"5:11: expected ':' after 'elif' condition, found end of line"}},
    {"MissingColonAfterWhile",
     KERNEL "    while x < y\n        x += 1\n",
     {"3:16: expected ':' after 'while' condition, found end of line"}},
    {"MissingColonAfterFor",
     KERNEL "    for i in range(3) pass\n",
     {"3:23: expected ':' after 'for' iterable, found keyword 'pass'"}},
    {"MissingInAfterForTarget",
     KERNEL "    for i range(3):\n        pass\n",
     {"3:11: expected 'in' after 'for' target, found identifier 'range'"}},
    {"MissingColonAfterElse",
     KERNEL "    if x:\n        pass\n    else\n        pass\n",
     {"5:9: expected ':' after 'else', found end of line"}},
    {"MissingColonAfterSignature",
     KERNEL "    pass\n@triton.jit\ndef g(a) -> int\n    pass\n",
     {"5:16: expected ':' after function signature, found end of line"}},
    {"MissingParenAfterFunctionName",
     "@triton.jit\ndef k x:\n    pass\n",
     {"2:7: expected '(' after function name, found identifier 'x'"}},
    {"UnindentMismatch",
     KERNEL "    if x:\n        y = 1\n      z = 2\n",
     {"5:7: unindent does not match any outer indentation level"}},
    {"UnexpectedIndent",
     KERNEL "    x = 1\n        y = 2\n    z = 3\n",
     {"4:9: unexpected indent"}},
    {"UnexpectedIndentAtModuleLevel",
     "  import triton\n",
     {"1:3: unexpected indent"}},
    {"MissingIndentedBlock",
     KERNEL "    for i in range(3):\n    y = i\n",
     {"4:5: expected an indented block after 'for' statement on line 3"}},
    {"MissingFunctionBodyAtEndOfFile",
     "@triton.jit\ndef k():\n",
     {"3:1: expected an indented block after function definition on line 2"}},
    {"MissingElseBlock",
     KERNEL "    if x:\n        pass\n    else:\n    return\n",
     {"6:5: expected an indented block after 'else' statement on line 5"}},
    {"UnterminatedString",
     KERNEL "    s = \"abc\n    return s\n",
     {"3:9: unterminated string literal (detected at line 3)"}},
    {"UnterminatedTripleQuotedString",
     KERNEL "    \"\"\"docstring\n    return x\n",
     {"3:5: unterminated triple-quoted string literal (detected at line 5)"}},
    {"UnclosedParenAtEndOfFile",
     KERNEL "    y = f(x",
     {"3:10: '(' was never closed"}},
    {"UnclosedBracketBeforeNextStatement",
     KERNEL "    y = [x, 1\n    z = 2\n    return z +\n",
     {"3:9: '[' was never closed",
      "5:15: expected expression after '+', found end of line"}},
    {"UnclosedCallWithContinuationLines",
     KERNEL "    y = f(x,\n          1\n    z = y\n    return z\n",
     {"3:10: '(' was never closed"}},
    {"UnclosedCallBeforeDef",
     KERNEL "    return f(x,\n@triton.jit\ndef g(x): return x +\n",
     {"3:13: '(' was never closed",
      "5:21: expected expression after '+', found end of line"}},
    {"UnmatchedClosingParen", KERNEL "    y = x)\n", {"3:10: unmatched ')'"}},
    {"MismatchedBrackets",
     KERNEL "    y = (x]\n",
     {"3:11: closing parenthesis ']' does not match opening parenthesis '('"}},
    {"LoneBackslash",
     KERNEL "    y = x \\ + 1\n",
     {"3:11: unexpected character after line continuation character"}},
    {"BadParameter",
     KERNEL "    pass\n@triton.jit\ndef g(a, 1):\n    return a +\n",
     {"5:10: expected parameter name, found number '1'",
      "6:15: expected expression after '+', found end of line"}},
    {"NonDefaultAfterDefault",
     "@jit\ndef k(a=1, b):\n    pass\n",
     {"2:12: parameter without a default follows parameter with a default"}},
    {"DuplicateParameter",
     "@jit\ndef k(a, b, a):\n    pass\n",
     {"2:13: duplicate argument 'a' in function definition"}},
    {"BareStarWithoutNamedArguments",
     "@jit\ndef k(a, *):\n    pass\n",
     {"2:10: named arguments must follow bare *"}},
    {"MissingElseInConditionalExpression",
     KERNEL "    y = x if p\n",
     {"3:15: expected 'else' after 'if' expression, found end of line"}},
    {"MissingExpressionAfterEqual",
     KERNEL "    y =\n",
     {"3:8: expected expression after '=', found end of line"}},
    {"MissingAttributeName",
     KERNEL "    y = tl.\n",
     {"3:12: expected attribute name after '.', found end of line"}},
    {"MissingCommaInCall",
     KERNEL "    tl.store(p x)\n",
     {"3:16: expected ',' or ')' after argument, found identifier 'x'"}},
    {"MissingCommaInSubscript",
     KERNEL "    y = x[1 2]\n",
     {"3:13: expected ',' or ']' in subscript, found number '2'"}},
    {"AssignToCall",
     KERNEL "    f(x) = 1\n",
     {"3:5: cannot assign to function call"}},
    {"AssignToLiteral",
     KERNEL "    x, 1 = y\n",
     {"3:8: cannot assign to literal"}},
    {"AssignToComparison",
     KERNEL "    x < y = 1\n",
     {"3:5: cannot assign to comparison"}},
    {"AssignToCallInForTarget",
     KERNEL "    for f(i) in p:\n        pass\n",
     {"3:9: cannot assign to function call"}},
    {"AugmentedAssignToTuple",
     KERNEL "    x, y += 1\n",
     {"3:5: 'tuple' is an illegal expression for augmented assignment"}},
    {"AnnotatedTuple",
     KERNEL "    x, y: int = 1, 2\n",
     {"3:5: only single target (not tuple) can be annotated"}},
    {"BreakOutsideLoop",
     KERNEL "    if x:\n        break\n",
     {"4:9: 'break' outside loop"}},
    {"ContinueInNestedFunctionOutsideLoop",
     KERNEL "    for i in x:\n        def g():\n            continue\n",
     {"5:13: 'continue' not properly in loop"}},
    {"PositionalAfterKeyword",
     KERNEL "    tl.load(p, mask=x, y)\n",
     {"3:24: positional argument follows keyword argument"}},
    {"RepeatedKeyword",
     KERNEL "    tl.load(p, mask=x, mask=y)\n",
     {"3:24: keyword argument repeated: mask"}},
    {"AssignmentInArgument",
     KERNEL "    f(x + 1 = 2)\n",
     {"3:7: expression cannot contain assignment, perhaps you meant \"==\"?"}},
    {"UnparenthesizedGenerator",
     KERNEL "    f(x for x in y, 1)\n",
     {"3:7: generator expression must be parenthesized"}},
    {"InvalidCharacter",
     KERNEL "    y = x $ 1\n",
     {"3:11: invalid character '$'"}},
    {"InvalidDecimalLiteral",
     KERNEL "    y = 1abc\n",
     {"3:9: invalid decimal literal"}},
    {"LeadingZeros",
     KERNEL "    y = 012\n",
     {"3:9: leading zeros in decimal integer literals are not permitted; use "
      "an 0o prefix for octal integers"}},
    {"ElseWithoutIf",
     KERNEL "    x = 1\n    else:\n        x = 2\n    return x\n",
     {"4:5: 'else' without a matching 'if', 'for' or 'while'"}},
    {"ElifWithoutIf",
     KERNEL "    elif x:\n        pass\n",
     {"3:5: 'elif' without a matching 'if'"}},
    {"StatementStartingWithOperator",
     KERNEL "    = x\n",
     {"3:5: expected statement, found '='"}},
    {"ExtraTokensAfterStatement",
     KERNEL "    y = x 2\n",
     {"3:11: expected end of line after statement, found number '2'"}},
    {"FStringEmptyField",
     KERNEL "    s = f'a{}'\n",
     {"3:13: f-string: valid expression required before '}'"}},
    {"FStringSingleBrace",
     KERNEL "    s = f'a}b'\n",
     {"3:12: f-string: single '}' is not allowed"}},
    {"FStringBadConversion",
     KERNEL "    s = f'{x!z}'\n",
     {"3:14: f-string: invalid conversion character 'z': expected 's', 'r', "
      "or 'a'"}},
    {"FStringBadExpression",
     KERNEL "    s = f'{x y}'\n",
     {"3:14: expected '}' after the f-string expression, found identifier "
      "'y'"}},
    {"FStringErrorInNestedSpec",
     KERNEL "    s = f'{x:{+}}'\n",
     {"3:16: expected expression after unary '+', found the end of the "
      "f-string field"}},
    {"MixedBytesAndStr",
     KERNEL "    s = b'a' 'b'\n",
     {"3:14: cannot mix bytes and nonbytes literals"}},
    {"MissingModuleName",
     KERNEL "    import\n",
     {"3:11: expected module name after 'import', found end of line"}},
    {"LambdaMissingColon",
     KERNEL "    f = lambda a b: a\n",
     {"3:18: expected ',' or ':' after parameter, found identifier 'b'"}},
    {"CompoundStatementAfterColon",
     KERNEL "    if x: for i in y: pass\n",
     {"3:11: a compound statement cannot follow ':' on the same line"}},
    {"InconsistentTabs",
     KERNEL "\tif x:\n\t\ty = 1\n        \tz = 2\n",
     {"5:10: inconsistent use of tabs and spaces in indentation"}},
    {"NullByte",
     nullptr, // Built in the test (embedded NUL).
     {"3:10: source code cannot contain null bytes"}},
    {"InvalidUtf8", KERNEL "    y = \xff\n", {"3:9: invalid UTF-8 byte 0xFF"}},
    {"ErrorInDecoratorOfJitFunction",
     "@triton.jit(\ndef k():\n    pass\n",
     {"1:12: '(' was never closed"}},
};

class ParserErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ParserErrorTest, ReportsExactDiagnostics) {
  const ErrorCase &c = GetParam();
  std::string source;
  if (c.source)
    source = c.source;
  else {
    static const char body[] = "    y = x\0 + 1\n";
    source = KERNEL + std::string(body, sizeof(body) - 1);
  }
  ParseResult r = parse(source);
  EXPECT_EQ(r.diagnostics, c.expected);
  EXPECT_FALSE(r.module) << "a failed parse must not return a module";
}

INSTANTIATE_TEST_SUITE_P(Malformed, ParserErrorTest,
                         ::testing::ValuesIn(kErrorCases),
                         [](const ::testing::TestParamInfo<ErrorCase> &info) {
                           return std::string(info.param.name);
                         });

TEST(ParserErrorsTest, ReportsEveryIndependentError) {
  ParseResult r = parse("import triton\n"
                        "@triton.jit\n"
                        "def a(x):\n"
                        "    y = x +\n"      // 1
                        "    if y > 0\n"     // 2
                        "        return )\n" // (skipped with the if)
                        "    z = [1, 2\n"    // 3
                        "    return z\n"
                        "\n"
                        "@triton.jit\n"
                        "def b(x):\n"
                        "    for i in range(3):\n"
                        "        x += $\n" // 4
                        "    f(x) = 1\n"   // 5
                        "    return x\n"
                        "class Host:\n"
                        "    pass\n"
                        "@triton.jit\n"
                        "def c(x):\n"
                        "    while x\n" // 6
                        "        x -= 1\n"
                        "    else:\n"
                        "        pass\n"
                        "    return x if x else\n"); // 7
  EXPECT_EQ(r.diagnostics,
            (Diags{"4:12: expected expression after '+', found end of line",
                   "5:13: expected ':' after 'if' condition, found end of line",
                   // The lexer still checks the skipped block.
                   "6:16: unmatched ')'", "7:9: '[' was never closed",
                   "13:14: invalid character '$'",
                   "14:5: cannot assign to function call",
                   "20:12: expected ':' after 'while' condition, found end of "
                   "line",
                   "24:23: expected expression after 'else', found end of "
                   "line"}));
  EXPECT_FALSE(r.module);
}

TEST(ParserErrorsTest, PrintsLikeSourceMgr) {
  auto srcMgr = makeSourceMgr("@triton.jit\n"
                              "def k(x):\n"
                              "    if x > 0\n"
                              "        return x\n");
  std::string out;
  llvm::raw_string_ostream os(out);
  SourceMgrDiagnosticSink sink(*srcMgr, os);
  EXPECT_FALSE(parseModule(*srcMgr, 1, sink));
  EXPECT_EQ(sink.getNumErrors(), 1u);
  EXPECT_EQ(out, "test.tile:3:13: error: expected ':' after 'if' condition, "
                 "found end of line\n"
                 "    if x > 0\n"
                 "            ^\n");
}

TEST(ParserErrorsTest, SinkCountsOnlyErrors) {
  auto srcMgr = makeSourceMgr("x = 1\n");
  StoringDiagnosticSink sink;
  llvm::SMLoc loc =
      llvm::SMLoc::getFromPointer(srcMgr->getMemoryBuffer(1)->getBufferStart());
  sink.note(loc, "a note");
  sink.warning(loc, "a warning");
  EXPECT_EQ(sink.getNumErrors(), 0u);
  sink.error(loc, "an error");
  EXPECT_EQ(sink.getNumErrors(), 1u);
  ASSERT_EQ(sink.getDiagnostics().size(), 3u);
  EXPECT_EQ(sink.getDiagnostics()[0].severity, DiagSeverity::Note);
  EXPECT_EQ(sink.getDiagnostics()[2].message, "an error");

  std::string out;
  llvm::raw_string_ostream os(out);
  SourceMgrDiagnosticSink printer(*srcMgr, os);
  printer.note(loc, "called from here");
  EXPECT_EQ(out, "test.tile:1:1: note: called from here\nx = 1\n^\n");
}

TEST(ParserErrorsTest, SinkStopsAtTheErrorLimit) {
  auto srcMgr = makeSourceMgr("x = 1\n");
  llvm::SMLoc loc =
      llvm::SMLoc::getFromPointer(srcMgr->getMemoryBuffer(1)->getBufferStart());
  StoringDiagnosticSink sink;
  EXPECT_EQ(sink.getErrorLimit(), DiagnosticSink::kDefaultErrorLimit);
  sink.setErrorLimit(2);
  sink.error(loc, "one");
  sink.note(loc, "a note of one");
  sink.error(loc, "two");
  sink.note(loc, "a note of two");
  EXPECT_FALSE(sink.hasReachedErrorLimit());
  sink.error(loc, "three");
  EXPECT_TRUE(sink.hasReachedErrorLimit());
  sink.note(loc, "a note of three");
  sink.error(loc, "four");
  ASSERT_EQ(sink.getDiagnostics().size(), 5u);
  EXPECT_EQ(sink.getDiagnostics()[3].message, "a note of two");
  EXPECT_EQ(sink.getDiagnostics()[4].message,
            "too many errors emitted, stopping now");
  EXPECT_FALSE(sink.getDiagnostics()[4].loc.isValid());

  // 0: no limit. The parser of a file with many errors reports them all.
  std::string source = "@triton.jit\ndef k(x):\n";
  for (int i = 0; i < 30; ++i)
    source += "    y = x +\n";
  auto many = makeSourceMgr(source);
  StoringDiagnosticSink unlimited;
  unlimited.setErrorLimit(0);
  EXPECT_FALSE(parseModule(*many, 1, unlimited));
  EXPECT_EQ(unlimited.getNumErrors(), 30u);
  StoringDiagnosticSink limited;
  EXPECT_FALSE(parseModule(*many, 1, limited));
  EXPECT_EQ(limited.getDiagnostics().size(), 21u);
}

TEST(ParserErrorsTest, PrinterEscapesBinary) {
  auto srcMgr = makeSourceMgr("x = \x01\xff\t'\xc3\xa9' \x1b[0m\n");
  const char *start = srcMgr->getMemoryBuffer(1)->getBufferStart();
  std::string out;
  llvm::raw_string_ostream os(out);
  SourceMgrDiagnosticSink printer(*srcMgr, os);
  printer.setErrorLimit(0);
  // The caret follows the escapes; the column stays the byte column.
  printer.error(llvm::SMLoc::getFromPointer(start + 12), "bad \x07 here");
  EXPECT_EQ(out, "test.tile:1:13: error: bad \\x07 here\n"
                 "x = \\x01\\xFF    '\xc3\xa9' \\x1B[0m\n"
                 "                    ^\n");
  // A valid UTF-8 line gets its caret (SMDiagnostic would omit it).
  auto utf8 = makeSourceMgr("s = '\xcf\x80' + x\n");
  out.clear();
  SourceMgrDiagnosticSink utf8Printer(*utf8, os);
  utf8Printer.error(llvm::SMLoc::getFromPointer(
                        utf8->getMemoryBuffer(1)->getBufferStart() + 11),
                    "unknown name 'x'");
  EXPECT_EQ(out, "test.tile:1:12: error: unknown name 'x'\n"
                 "s = '\xcf\x80' + x\n"
                 "          ^\n");
}

TEST(ParserErrorsTest, DeepNestingIsAnErrorNotACrash) {
  auto inKernel = [](const std::string &line) {
    return parse(KERNEL "    " + line + "\n    return y\n").diagnostics;
  };
  EXPECT_EQ(inKernel("y = " + std::string(10000, '(') + "1" +
                     std::string(10000, ')')),
            Diags{"3:109: expression is nested too deeply (more than 100 "
                  "levels)"});
  EXPECT_EQ(inKernel("y = " + std::string(10000, '[') + "1" +
                     std::string(10000, ']')),
            Diags{"3:109: expression is nested too deeply (more than 100 "
                  "levels)"});
  EXPECT_EQ(inKernel("y = " + std::string(10000, '-') + "1"),
            Diags{"3:108: expression is nested too deeply (more than 100 "
                  "levels)"});
  std::string sum = "y = 1";
  for (int i = 0; i < 5000; ++i)
    sum += "+1";
  EXPECT_EQ(inKernel(sum),
            Diags{"3:9: expression is too deeply nested (more than 1000 "
                  "levels)"});
  // At the top level, a constant that does not parse is skipped silently
  // (it may be host code), but still recorded by name.
  ParseResult top = parse("X = " + std::string(10000, '(') + "1" +
                          std::string(10000, ')') + "\n");
  ASSERT_TRUE(top.module);
  SkippedStmt *skipped = top.module->lookupSkipped("X");
  ASSERT_TRUE(skipped);
  EXPECT_EQ(skipped->getConstruct(), "assignment");
}

} // namespace
