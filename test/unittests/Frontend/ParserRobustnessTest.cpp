//===- ParserRobustnessTest.cpp - The parser never crashes ----------------===//
//
// Part of the tilec project.
//
//===----------------------------------------------------------------------===//
//
// Malformed and adversarial inputs: truncations and mutations of real
// kernels, random token soup, pathological nesting. The parser must return
// (no crash, no hang, no stack overflow) and must return a module exactly
// when it reported no error.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Lexer.h"
#include "tilec/Frontend/Parser.h"

#include "FrontendTestUtils.h"
#include "TestKernels.h"

#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

#include <random>

using namespace tilec::frontend;
using namespace tilec::frontend::testing;

namespace {

/// Parses `source`, checks the module/error invariant, and exercises the
/// dumper and the SourceMgr printer on the outcome. Returns whether the
/// parse succeeded.
bool parseChecked(llvm::StringRef source) {
  auto srcMgr = makeSourceMgr(source);
  std::string printed;
  llvm::raw_string_ostream os(printed);
  SourceMgrDiagnosticSink sink(*srcMgr, os);
  std::unique_ptr<ModuleAST> module = parseModule(*srcMgr, 1, sink);
  EXPECT_EQ(module == nullptr, sink.getNumErrors() > 0)
      << "source:\n"
      << source.str() << "\ndiagnostics:\n"
      << printed;
  if (module) {
    std::string dump;
    llvm::raw_string_ostream dumpOs(dump);
    dumpAST(*module, dumpOs);
    EXPECT_FALSE(dump.empty());
  }
  return module != nullptr;
}

TEST(ParserRobustnessTest, EveryTruncationOfRealKernels) {
  for (llvm::StringRef kernel :
       {kPuzzleKernels, kWeightedSumKernels, kMatmulTutorial}) {
    ASSERT_TRUE(parseChecked(kernel));
    unsigned failures = 0;
    for (size_t length = 0; length < kernel.size(); ++length)
      failures += !parseChecked(kernel.take_front(length));
    // Many prefixes are incomplete Python (cut inside a string, a call, a
    // header); a handful end at a statement boundary and parse.
    EXPECT_GT(failures, kernel.size() / 2);
    EXPECT_LT(failures, kernel.size());
  }
}

TEST(ParserRobustnessTest, EverySingleCharacterDeletion) {
  llvm::StringRef kernel = kWeightedSumKernels;
  unsigned failures = 0;
  for (size_t i = 0; i < kernel.size(); ++i) {
    std::string mutated = kernel.str();
    mutated.erase(i, 1);
    failures += !parseChecked(mutated);
  }
  // Deleting a space or a comment character is often harmless; deleting a
  // bracket, a colon or a quote is not.
  EXPECT_GT(failures, 100u);
}

TEST(ParserRobustnessTest, RandomByteMutations) {
  const std::string interesting = "()[]{}:;,.\n\n\t    \\'\"#@=+-*/<>!$?`_ax0";
  std::mt19937 rng(20261129);
  llvm::StringRef kernel = kMatmulTutorial;
  for (int iteration = 0; iteration < 1500; ++iteration) {
    std::string mutated = kernel.str();
    unsigned edits = 1 + rng() % 8;
    for (unsigned e = 0; e < edits; ++e) {
      size_t pos = rng() % mutated.size();
      switch (rng() % 4) {
      case 0:
        mutated[pos] = interesting[rng() % interesting.size()];
        break;
      case 1:
        mutated.insert(pos, 1, interesting[rng() % interesting.size()]);
        break;
      case 2:
        mutated.erase(pos, 1 + rng() % 16);
        break;
      default:
        mutated[pos] = static_cast<char>(rng() % 256);
        break;
      }
      if (mutated.empty())
        mutated = "x";
    }
    parseChecked(mutated);
  }
}

TEST(ParserRobustnessTest, RandomTokenSoup) {
  const char *pieces[] = {"@triton.jit\n",
                          "def ",
                          "f",
                          "(",
                          ")",
                          "[",
                          "]",
                          "{",
                          "}",
                          ":",
                          ",",
                          "\n",
                          "\n    ",
                          "\n        ",
                          "\t",
                          "\\\n",
                          "if ",
                          "elif ",
                          "else",
                          "for ",
                          "in ",
                          "while ",
                          "return ",
                          "lambda ",
                          "yield ",
                          "await ",
                          "not ",
                          "and ",
                          "or ",
                          "is ",
                          "x",
                          "tl.load",
                          "1",
                          "1.5",
                          "'s'",
                          "\"\"\"",
                          "f'{",
                          "=",
                          "==",
                          "+",
                          "**",
                          "-",
                          "*",
                          "@",
                          ".",
                          "...",
                          ";",
                          ":=",
                          "->",
                          "#c",
                          "class ",
                          "try",
                          "import ",
                          "from ",
                          "as ",
                          "pass",
                          "break",
                          "continue",
                          "global ",
                          "del ",
                          "async ",
                          "with ",
                          "\0",
                          "\xff"};
  std::mt19937 rng(7);
  for (int iteration = 0; iteration < 3000; ++iteration) {
    std::string source;
    unsigned count = rng() % 60;
    for (unsigned i = 0; i < count; ++i) {
      const char *piece = pieces[rng() % std::size(pieces)];
      source += *piece ? std::string(piece) : std::string(1, '\0');
    }
    parseChecked(source);
  }
}

TEST(ParserRobustnessTest, NastyInputs) {
  const char *inputs[] = {
      "",
      "\n",
      "\\",
      "\\\n",
      "\\\n\\\n",
      "(",
      ")",
      "]",
      "}",
      "((((",
      "))))",
      "'",
      "\"",
      "'''",
      "\"\"\"\n",
      "f'{",
      "f'{x",
      "f'{'",
      "rb'\\",
      "#",
      "@",
      "@\n",
      "@triton.jit",
      "@triton.jit\n",
      "@triton.jit\ndef",
      "@triton.jit\ndef f",
      "@triton.jit\ndef f(",
      "@triton.jit\ndef f():",
      "@triton.jit\ndef f():\n",
      "@triton.jit\ndef f():\n  ",
      "@triton.jit\ndef f():\n  x",
      "@triton.jit\ndef f():\n  x =",
      "@triton.jit\ndef f(*, **):\n  pass\n",
      "@jit\ndef f(/):\n pass\n",
      "@jit\ndef f(a, /, /):\n pass\n",
      "@jit\ndef f(*a, *b):\n pass\n",
      "@jit\ndef f(**k, a):\n pass\n",
      "@jit\ndef f(a, *, b, /):\n pass\n",
      "    ",
      "\t\t\n\t",
      " x\n",
      "x\n  y\n z\n",
      "if x:\nelse:\n",
      "0x",
      "0b",
      "0o",
      "1e",
      "1_",
      "1.e",
      "1j_",
      ".",
      "..",
      "....",
      "@jit\ndef f():\n return (yield)\n",
      "@jit\ndef f():\n x = [*]\n",
      "@jit\ndef f():\n x = {**}\n",
      "@jit\ndef f():\n x = {1:}\n",
      "@jit\ndef f():\n x = a[]\n",
      "@jit\ndef f():\n x = a[:::]\n",
      "@jit\ndef f():\n lambda *: 0\n",
      "@jit\ndef f():\n (*a) = 1\n",
      "@jit\ndef f():\n *a = 1\n",
      "@jit\ndef f():\n a, *b, *c = d\n",
      "@jit\ndef f():\n del\n",
      "@jit\ndef f():\n global\n",
      "@jit\ndef f():\n from . import (a,\n",
      "@jit\ndef f():\n import a.\n",
      "@jit\ndef f():\n from import x\n",
      "@jit\ndef f():\n from x import\n",
      "@jit\ndef f():\n x = not\n",
      "@jit\ndef f():\n x = a if\n",
      "@jit\ndef f():\n x = a not\n",
      "@jit\ndef f():\n x = a is not\n",
      "@jit\ndef f():\n for in x:\n  pass\n",
      "@jit\ndef f():\n @\n",
      "@jit\ndef f():\n @x\n y = 1\n",
      "@jit\ndef f():\n f(**a, *b)\n",
      "@jit\ndef f():\n f(**a, b)\n",
      "@jit\ndef f():\n f(a for a in b c)\n",
      "@jit\ndef f():\n [x for]\n",
      "@jit\ndef f():\n [x for x in]\n",
      "@jit\ndef f():\n {x: y for x in z if}\n",
      "@jit\ndef f():\n match x:\n  case 1: pass\n",
      "@jit\ndef f():\n match\n",
      "@jit\ndef f():\n match x:\n",
      "x = \"\xff\xfe\"\n",
      "\xEF\xBB\xBF",
      "\xEF\xBB",
      "\xC3",
      "\xF0\x9F\x98",
      "x = 1\r",
      "x = 1\r\r\n",
      "\f\fx\n",
  };
  for (const char *input : inputs)
    parseChecked(input);
  // Embedded NULs.
  parseChecked(llvm::StringRef("\0", 1));
  parseChecked(llvm::StringRef("@jit\ndef f():\n\0\0\0\n  x\n", 21));
}

TEST(ParserRobustnessTest, PathologicalNesting) {
  const unsigned n = 10000;
  auto repeat = [](llvm::StringRef piece, unsigned count) {
    std::string out;
    for (unsigned i = 0; i < count; ++i)
      out += piece.str();
    return out;
  };
  auto kernel = [](const std::string &line) {
    return "@jit\ndef f(x, y):\n    " + line + "\n    return x\n";
  };
  EXPECT_FALSE(parseChecked(kernel("y = " + repeat("(", n) + "x")));
  EXPECT_FALSE(
      parseChecked(kernel("y = " + repeat("[", n) + "x" + repeat("]", n))));
  EXPECT_FALSE(
      parseChecked(kernel("y = " + repeat("{", n) + "x" + repeat("}", n))));
  EXPECT_FALSE(
      parseChecked(kernel("y = " + repeat("f(", n) + "x" + repeat(")", n))));
  EXPECT_FALSE(
      parseChecked(kernel("y = " + repeat("x[", n) + "0" + repeat("]", n))));
  EXPECT_FALSE(parseChecked(kernel("y = " + repeat("not ", n) + "x")));
  EXPECT_FALSE(parseChecked(kernel("y = " + repeat("~", n) + "x")));
  EXPECT_FALSE(parseChecked(kernel("y = " + repeat("lambda: ", n) + "x")));
  EXPECT_FALSE(parseChecked(kernel("y = " + repeat("x if x else ", n) + "x")));
  EXPECT_FALSE(parseChecked(kernel("y = x" + repeat(" ** x", n))));
  EXPECT_FALSE(parseChecked(kernel("y = x" + repeat(" and x", n))));
  EXPECT_FALSE(parseChecked(kernel("y = x" + repeat(".a", n))));
  EXPECT_FALSE(parseChecked(kernel("y = x" + repeat("(x)", n))));
  EXPECT_FALSE(parseChecked(kernel("y = " + repeat("await ", n) + "x")));
  // Long but flat constructs are fine.
  EXPECT_TRUE(parseChecked(kernel("y = x" + repeat(" < x", n))));
  EXPECT_TRUE(parseChecked(kernel("y = (" + repeat("x, ", n) + ")")));
  EXPECT_TRUE(parseChecked(kernel("y = 'a'" + repeat(" 'b'", n))));
  // Nesting within the limit is fine.
  EXPECT_TRUE(
      parseChecked(kernel("y = " + repeat("(", 80) + "x" + repeat(")", 80))));
  EXPECT_TRUE(parseChecked(
      kernel("y = " + repeat("{1: ", 80) + "x" + repeat("}", 80))));
  // An elif chain nests one IfStmt per elif.
  std::string chain = "if x:\n        pass\n";
  for (unsigned i = 0; i < n; ++i)
    chain += "    elif x:\n        pass\n";
  EXPECT_FALSE(parseChecked(kernel(chain)));
  // Deep indentation.
  std::string deep = "@jit\ndef f(x):\n";
  for (unsigned i = 1; i < 1000; ++i)
    deep += std::string(i, ' ') + "if x:\n";
  deep += std::string(1000, ' ') + "pass\n";
  EXPECT_FALSE(parseChecked(deep));
  // A huge number of statements.
  EXPECT_TRUE(parseChecked(kernel(repeat("x = x + 1\n    ", n))));
}

TEST(ParserRobustnessTest, LexerAlwaysTerminatesWithEof) {
  std::mt19937 rng(99);
  for (int iteration = 0; iteration < 2000; ++iteration) {
    std::string source(rng() % 200, '\0');
    for (char &c : source)
      c = static_cast<char>(rng() % 256);
    auto srcMgr = makeSourceMgr(source);
    StoringDiagnosticSink sink;
    std::vector<Token> tokens = Lexer::lexAll(*srcMgr, 1, sink);
    ASSERT_FALSE(tokens.empty());
    EXPECT_TRUE(tokens.back().is(TokenKind::eof));
    // Every token lies inside the buffer.
    const char *begin = srcMgr->getMemoryBuffer(1)->getBufferStart();
    const char *end = srcMgr->getMemoryBuffer(1)->getBufferEnd();
    int depth = 0;
    for (const Token &token : tokens) {
      EXPECT_GE(token.getSpelling().data(), begin);
      EXPECT_LE(token.getSpelling().data() + token.getSpelling().size(), end);
      depth += token.is(TokenKind::indent) - token.is(TokenKind::dedent);
      EXPECT_GE(depth, 0);
    }
    // INDENT and DEDENT balance.
    EXPECT_EQ(depth, 0);
  }
}

} // namespace
