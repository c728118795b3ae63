//===- Parser.h - Parser for .tile files ------------------------*- C++ -*-===//
//
// Part of the tilec project.
//
//===----------------------------------------------------------------------===//
//
// Entry point of the syntax layer: parses a `.tile` file (or a Triton `.py`
// module) into a ModuleAST.
//
// What is parsed at the top level:
//   - `import ...` and `from ... import ...`;
//   - constant assignments: `NAME = expr`, `NAME: ann = expr`,
//     `A, B = 1, 2` (targets made only of names);
//   - functions with a jit decorator (`@triton.jit`, `@tilec.jit`, `@jit`,
//     `@triton.jit(...)`, possibly under `@triton.autotune(...)` or
//     `@triton.heuristics(...)`), including their nested functions.
// Everything else at the top level is host code: classes, plain functions,
// `if __name__ == "__main__":`, `with`, calls, other assignments. It is
// skipped by indentation without being parsed (it may use any Python
// syntax) and recorded as a SkippedStmt, so that a later "called a
// non-@jit function" error can name it. A top-level assignment whose value
// does not parse is skipped the same way, silently.
//
// Inside functions, statements that make no sense in a kernel (`try`,
// `with`, `class`, `raise`, `del`, `async ...`, `match`) become
// UnsupportedStmt nodes and `await` / `yield` become UnsupportedExpr nodes:
// they are not syntax errors; the code generator reports them when it
// compiles the function.
//
// Syntax errors are reported to the DiagnosticSink (`file:line:col: error:
// message` with the source line and a caret, through SourceMgr). The parser
// recovers at statement boundaries and reports every independent error in
// one run. It never crashes, asserts or hangs on malformed input; nesting
// beyond kMaxNestingDepth and expressions taller than kMaxExprHeight are
// reported as errors instead of overflowing the stack.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_PARSER_H
#define TILEC_FRONTEND_PARSER_H

#include "tilec/Frontend/AST.h"

#include <memory>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace tilec::frontend {

class DiagnosticSink;

/// Deepest nesting of parentheses/brackets/unary operators/conditional
/// expressions the parser follows, and of statements (indented blocks and
/// elif chains): deeper ones are reported ("statements are nested too
/// deeply", once per file) and skipped. The parser is
/// recursive-descent and uses up to about 3 KB of stack per level in a
/// release build, so about 0.3 MB at the limit: safe on secondary threads.
constexpr unsigned kMaxNestingDepth = 100;

/// Tallest expression tree the parser builds (see Expr::getHeight), so that
/// later recursive walks of a long `a + b + c + ...` chain stay bounded.
constexpr unsigned kMaxExprHeight = 1000;

/// Parses buffer `bufferId` of `srcMgr`. Returns the module, or null if any
/// error was reported (all of them are reported before returning). The
/// module refers to the buffer's text, which must outlive it.
std::unique_ptr<ModuleAST> parseModule(const llvm::SourceMgr &srcMgr,
                                       unsigned bufferId,
                                       DiagnosticSink &diags);

} // namespace tilec::frontend

#endif // TILEC_FRONTEND_PARSER_H
