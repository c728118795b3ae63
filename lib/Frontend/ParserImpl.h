//===- ParserImpl.h - Recursive-descent parser internals --------*- C++ -*-===//
//
// Part of the tilec project.
//
//===----------------------------------------------------------------------===//
//
// The parser class behind parseModule(), shared by Parser.cpp (token
// plumbing, recovery, module level), ParseExpr.cpp (expressions) and
// ParseStmt.cpp (statements). Not installed.
//
// Conventions:
// - A parse function returns null (or false) after it reported an error;
//   its callers propagate the failure without reporting again. Statement
//   loops then call syncAfterError() to skip to the next statement.
// - No error is reported at an `error` token: the lexer already did.
// - While `muted` (speculative parsing of top-level assignments, which may
//   be host code), errors are recorded but not reported.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_FRONTEND_PARSERIMPL_H
#define TILEC_LIB_FRONTEND_PARSERIMPL_H

#include "tilec/Frontend/AST.h"
#include "tilec/Frontend/Diagnostics.h"
#include "tilec/Frontend/Lexer.h"
#include "tilec/Frontend/Parser.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"

#include <vector>

namespace tilec::frontend::detail {

/// The lexer's tokens, lexed on demand and kept so that the parser can look
/// ahead and backtrack.
class TokenStream {
public:
  TokenStream(const llvm::SourceMgr &srcMgr, unsigned bufferId,
              DiagnosticSink &diags)
      : lexer(srcMgr, bufferId, diags) {}
  /// The tokens of `range`, characters of the buffer (see Lexer's range
  /// constructor).
  TokenStream(const llvm::SourceMgr &srcMgr, unsigned bufferId,
              DiagnosticSink &diags, llvm::StringRef range)
      : lexer(srcMgr, bufferId, diags, range) {}

  /// The token `ahead` positions after the current one (by value: the
  /// buffer grows as tokens are lexed).
  Token peek(unsigned ahead = 0);
  /// Returns the current token and moves past it (never past `eof`).
  Token consume();
  size_t getPosition() const { return pos; }
  void setPosition(size_t position) { pos = position; }
  /// End of the last consumed token that is not a layout token, or `fallback`.
  llvm::SMLoc getPrevEndLoc(llvm::SMLoc fallback) const;

private:
  Lexer lexer;
  std::vector<Token> tokens;
  size_t pos = 0;
};

/// Recursive-descent parser for one buffer (see Parser.h for what is parsed
/// and what is skipped). Builds nodes in an ASTContext.
class Parser {
public:
  Parser(const llvm::SourceMgr &srcMgr, unsigned bufferId,
         DiagnosticSink &diags, ASTContext &ctx);
  /// A parser of `range`, characters of the buffer: an f-string replacement
  /// field's expression.
  Parser(const llvm::SourceMgr &srcMgr, unsigned bufferId,
         DiagnosticSink &diags, ASTContext &ctx, llvm::StringRef range);

  /// Parses the whole buffer into top-level statements.
  llvm::SmallVector<Stmt *> parseModuleBody();

private:
  friend class NestingGuard;
  friend class MuteScope;

  //===--------------------------------------------------------------------===//
  // Tokens and diagnostics (Parser.cpp)
  //===--------------------------------------------------------------------===//

  Token tok() { return tokens.peek(); }
  Token peek(unsigned ahead) { return tokens.peek(ahead); }
  Token consume() { return tokens.consume(); }
  bool consumeIf(TokenKind kind) {
    if (tok().isNot(kind))
      return false;
    consume();
    return true;
  }
  /// Consumes a `kind` token or reports "expected <what>, found ...".
  bool expect(TokenKind kind, const llvm::Twine &what);
  /// The range from `start` to the end of the last consumed token.
  llvm::SMRange rangeFrom(llvm::SMLoc start) const {
    return {start, tokens.getPrevEndLoc(start)};
  }
  unsigned getLine(llvm::SMLoc loc) const;

  void emitError(llvm::SMLoc loc, const llvm::Twine &msg);
  /// Reports "expected <what>, found <current token>" at the current token
  /// (nothing at an `error` token).
  void emitExpected(const llvm::Twine &what);
  static std::string describe(const Token &token);

  /// Creates an expression node, or reports and returns null if it is
  /// taller than kMaxExprHeight.
  template <typename T, typename... Args> T *createExpr(Args &&...args) {
    T *expr = ctx.create<T>(std::forward<Args>(args)...);
    if (expr->getHeight() > kMaxExprHeight) {
      emitError(expr->getLoc(), "expression is too deeply nested (more than " +
                                    llvm::Twine(kMaxExprHeight) + " levels)");
      return nullptr;
    }
    return expr;
  }
  template <typename T> llvm::ArrayRef<T> copy(llvm::ArrayRef<T> array) {
    return ctx.copyArray(array);
  }

  //===--------------------------------------------------------------------===//
  // Recovery and skipping (Parser.cpp)
  //===--------------------------------------------------------------------===//

  /// Skips to the end of the logical line (its NEWLINE included).
  void skipLine();
  /// Skips an INDENT ... DEDENT block (the current token is the INDENT).
  void skipBlock();
  /// Skips a whole statement by indentation: decorator lines, the header
  /// line, the indented block, and the clauses that continue it
  /// (`elif`/`else`/`except`/`finally`).
  void skipStatement();
  /// After an error: skips the rest of the statement, and the indented block
  /// that follows if the error was in a compound statement's header.
  void syncAfterError();
  /// Skips to the `)` closing the current parenthesized list (stopping at the
  /// end of the line).
  void skipToClosingParen();

  //===--------------------------------------------------------------------===//
  // Module level (Parser.cpp)
  //===--------------------------------------------------------------------===//

  void parseModuleItem(llvm::SmallVectorImpl<Stmt *> &body);
  void parseModuleDecorated(llvm::SmallVectorImpl<Stmt *> &body);
  /// Parses a line of simple statements at the top level and keeps it if it
  /// holds only imports and constants; otherwise skips it. Errors are
  /// reported only if `report`.
  void parseModuleSimpleLine(llvm::SmallVectorImpl<Stmt *> &body, bool report);
  /// Skips the current top-level statement, recording it as a SkippedStmt.
  void skipModuleStatement(llvm::SmallVectorImpl<Stmt *> &body);
  /// Whether the current logical line has a top-level `=` or starts with
  /// `name :` (an annotated assignment).
  bool lineLooksLikeAssignment();
  /// The names a skipped line `a, b = ...` / `a: T = ...` assigns.
  llvm::SmallVector<llvm::StringRef> scanAssignedNames();
  /// Whether the current decorator line (at `@`) is a jit decorator.
  bool decoratorLineIsJit();

  //===--------------------------------------------------------------------===//
  // Statements (ParseStmt.cpp)
  //===--------------------------------------------------------------------===//

  /// Parses one statement (a compound statement, or a line of simple
  /// statements) into `out`. Returns false after an error.
  bool parseStatement(llvm::SmallVectorImpl<Stmt *> &out);
  /// parseStatement, then recovery; always makes progress.
  void parseStatementWithRecovery(llvm::SmallVectorImpl<Stmt *> &out);
  bool parseSimpleStatements(llvm::SmallVectorImpl<Stmt *> &out);
  Stmt *parseSimpleStatement();
  Stmt *parseExpressionOrAssignment();
  /// The value after `=` or an augmented operator `op`.
  Expr *parseAssignmentValueAfter(llvm::StringRef op);
  Stmt *parseIfStmt(bool isElif);
  Stmt *parseForStmt();
  Stmt *parseWhileStmt();
  Stmt *parseDecorated();
  /// Parses `def ...` (current token) with already parsed decorators.
  FunctionDef *parseFunctionDef(llvm::ArrayRef<Expr *> decorators,
                                llvm::SMLoc start);
  bool parseDecorators(llvm::SmallVectorImpl<Expr *> &decorators);
  Stmt *parseImport();
  Stmt *parseFromImport();
  Stmt *parseGlobal();
  /// Skips a statement that has no meaning in a kernel and returns an
  /// UnsupportedStmt covering it from `start`.
  Stmt *parseUnsupported(llvm::StringRef construct, llvm::SMLoc start,
                         bool compound);
  /// Parses the block after a compound statement's `:` into `body`; `after`
  /// describes the header for the "expected an indented block" message.
  /// Returns false after an error that needs recovery.
  bool parseBlock(llvm::SmallVectorImpl<Stmt *> &body,
                  const llvm::Twine &after);
  /// Whether the current statement is a soft-keyword `match` statement.
  bool atMatchStatement();
  /// Checks that `target` can be assigned to; reports and returns false if
  /// not.
  bool checkAssignTarget(const Expr *target, bool topLevel = true);

  //===--------------------------------------------------------------------===//
  // Expressions (ParseExpr.cpp)
  //===--------------------------------------------------------------------===//

  using ExprParseFn = Expr *(Parser::*)();
  /// Calls `fn` if the current token can start an expression, otherwise
  /// reports "expected expression <context>, found ...".
  Expr *parseOperand(ExprParseFn fn, const llvm::Twine &context);
  static bool canStartExpression(const Token &token);
  static std::string describeExpr(const Expr *expr);

  Expr *parseStarExpressions();
  Expr *parseStarExpression();
  Expr *parseStarNamedExpression();
  Expr *parseNamedExpression();
  Expr *parseExpression();
  Expr *parseDisjunction();
  Expr *parseConjunction();
  Expr *parseInversion();
  Expr *parseComparison();
  Expr *parseBitOr() { return parseBinary(0); }
  /// Binary operators `|` ... `*` of precedence level `minLevel` or tighter.
  Expr *parseBinary(unsigned minLevel);
  Expr *parseFactor();
  Expr *parsePower();
  Expr *parseAwaitPrimary();
  Expr *parsePrimary();
  Expr *parseAtom();
  Expr *parseStrings();
  /// Parses the body of an f-string piece (the characters between its
  /// quotes), from offset `begin`, into `parts`. In a format spec (`inSpec`),
  /// parsing stops at the `}` that ends the enclosing field, whose offset in
  /// `body` is returned through `end`. Returns false after an error.
  bool parseFStringBody(llvm::StringRef body, size_t begin, bool isRaw,
                        bool inSpec, llvm::SmallVectorImpl<FStringPart> &parts,
                        size_t &end);
  /// Appends literal text to `parts`, merging it with a literal before it.
  void addFStringLiteral(llvm::SmallVectorImpl<FStringPart> &parts,
                         llvm::StringRef text, llvm::SMRange range);
  /// Parses the replacement field whose `{` is at `body[open]`; `end` is set
  /// past its `}`. Returns false after an error.
  bool parseFStringField(llvm::StringRef body, size_t open, bool isRaw,
                         FStringPart &part, size_t &end);
  /// Parses `text`, characters of the buffer, as the expression of an
  /// f-string replacement field.
  Expr *parseFStringExpression(llvm::StringRef text);
  Expr *parseParenthesized();
  Expr *parseListDisplay();
  Expr *parseBraceDisplay();
  Expr *parseCallSuffix(Expr *callee, llvm::SMLoc start);
  Expr *parseSubscriptSuffix(Expr *base, llvm::SMLoc start);
  Expr *parseSlices();
  Expr *parseSlice();
  Expr *parseLambda();
  Expr *parseYieldExpr();
  /// `star_targets` of a for loop or comprehension: `a`, `a, b`, `*a, b`.
  Expr *parseTargetList();
  Expr *parseStarTarget();
  bool
  parseComprehensionClauses(llvm::SmallVectorImpl<ComprehensionFor> &clauses);
  Expr *finishComprehension(ComprehensionKind kind, Expr *element, Expr *value,
                            llvm::SMLoc start);
  /// Parses parameters up to (not including) `closer`.
  bool parseParameters(TokenKind closer, bool allowAnnotations,
                       llvm::SmallVectorImpl<Parameter *> &params);

  const llvm::SourceMgr &srcMgr;
  unsigned bufferId;
  DiagnosticSink &diags;
  ASTContext &ctx;
  TokenStream tokens;

  /// Nesting of the expression being parsed, and of statements (blocks and
  /// elif chains); each is bounded by kMaxNestingDepth.
  unsigned nestingDepth = 0;
  unsigned statementDepth = 0;
  /// Whether "statements are nested too deeply" was reported (it is
  /// reported once).
  bool reportedDeepStatements = false;
  /// This parser parses an f-string replacement field (its `eof` is the end
  /// of the field).
  bool inFStringField = false;
  /// Loops enclosing the current statement in the current function.
  unsigned loopDepth = 0;
  /// Speculative parsing: errors are recorded, not reported.
  unsigned muteDepth = 0;
  bool mutedError = false;
};

/// Bounds the parser's recursion: reports once and fails when the nesting
/// exceeds kMaxNestingDepth. A `statement` guard (an indented block, an elif)
/// reports "statements are nested too deeply", once per parse.
class NestingGuard {
public:
  NestingGuard(Parser &parser, llvm::SMLoc loc, bool statement = false);
  ~NestingGuard() { --depth; }
  NestingGuard(const NestingGuard &) = delete;
  NestingGuard &operator=(const NestingGuard &) = delete;
  explicit operator bool() const { return ok; }

private:
  /// The parser's counter this guard increments.
  unsigned &depth;
  bool ok;
};

/// Mutes the parser's diagnostics in a scope (speculative parsing).
class MuteScope {
public:
  explicit MuteScope(Parser &parser) : parser(parser) {
    ++parser.muteDepth;
    savedMutedError = parser.mutedError;
    parser.mutedError = false;
  }
  ~MuteScope() {
    --parser.muteDepth;
    parser.mutedError = savedMutedError;
  }
  /// Whether an error was suppressed in this scope.
  bool hadError() const { return parser.mutedError; }

private:
  Parser &parser;
  bool savedMutedError;
};

} // namespace tilec::frontend::detail

#endif // TILEC_LIB_FRONTEND_PARSERIMPL_H
