//===- Parser.cpp - Parser for .tile files --------------------------------===//
//
// Part of the tilec project.
//
//===----------------------------------------------------------------------===//
//
// Token plumbing, diagnostics, error recovery, and the module level: which
// top-level statements are parsed (imports, constants, jit functions) and
// which are skipped as host code.
//
//===----------------------------------------------------------------------===//

#include "ParserImpl.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SourceMgr.h"

#include <functional>

using namespace tilec::frontend;
using namespace tilec::frontend::detail;
using llvm::SMLoc;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// TokenStream
//===----------------------------------------------------------------------===//

static bool isLayout(const Token &token) {
  return token.isAny(TokenKind::newline, TokenKind::indent, TokenKind::dedent,
                     TokenKind::eof);
}

Token TokenStream::peek(unsigned ahead) {
  while (pos + ahead >= tokens.size()) {
    if (!tokens.empty() && tokens.back().is(TokenKind::eof))
      return tokens.back();
    tokens.push_back(lexer.lex());
  }
  return tokens[pos + ahead];
}

Token TokenStream::consume() {
  Token token = peek();
  if (token.isNot(TokenKind::eof))
    ++pos;
  return token;
}

SMLoc TokenStream::getPrevEndLoc(SMLoc fallback) const {
  for (size_t i = pos; i > 0; --i) {
    const Token &token = tokens[i - 1];
    if (!isLayout(token))
      return token.getEndLoc();
  }
  return fallback;
}

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

NestingGuard::NestingGuard(Parser &parser, SMLoc loc, bool statement)
    : depth(statement ? parser.statementDepth : parser.nestingDepth) {
  ok = ++depth <= kMaxNestingDepth;
  if (ok)
    return;
  if (!statement) {
    parser.emitError(loc, "expression is nested too deeply (more than " +
                              llvm::Twine(kMaxNestingDepth) + " levels)");
    return;
  }
  if (parser.reportedDeepStatements)
    return;
  parser.reportedDeepStatements = true;
  parser.emitError(loc, "statements are nested too deeply (limit " +
                            llvm::Twine(kMaxNestingDepth) + ")");
}

Parser::Parser(const llvm::SourceMgr &srcMgr, unsigned bufferId,
               DiagnosticSink &diags, ASTContext &ctx)
    : srcMgr(srcMgr), bufferId(bufferId), diags(diags), ctx(ctx),
      tokens(srcMgr, bufferId, diags) {}

Parser::Parser(const llvm::SourceMgr &srcMgr, unsigned bufferId,
               DiagnosticSink &diags, ASTContext &ctx, StringRef range)
    : srcMgr(srcMgr), bufferId(bufferId), diags(diags), ctx(ctx),
      tokens(srcMgr, bufferId, diags, range) {}

unsigned Parser::getLine(SMLoc loc) const {
  return srcMgr.FindLineNumber(loc, bufferId);
}

void Parser::emitError(SMLoc loc, const llvm::Twine &msg) {
  if (muteDepth > 0) {
    mutedError = true;
    return;
  }
  diags.error(loc, msg);
}

std::string Parser::describe(const Token &token) {
  switch (token.getKind()) {
  case TokenKind::eof:
    return "end of file";
  case TokenKind::newline:
    return "end of line";
  case TokenKind::indent:
    return "indented block";
  case TokenKind::dedent:
    return "end of indented block";
  case TokenKind::error:
    return "invalid token";
  case TokenKind::identifier:
    return ("identifier '" + token.getSpelling() + "'").str();
  case TokenKind::integer:
  case TokenKind::floating:
  case TokenKind::imaginary:
    return ("number '" + token.getSpelling() + "'").str();
  case TokenKind::string:
    return "string literal";
  default:
    if (token.isKeyword())
      return ("keyword '" + token.getSpelling() + "'").str();
    return ("'" + token.getSpelling() + "'").str();
  }
}

void Parser::emitExpected(const llvm::Twine &what) {
  const Token &current = tok();
  if (current.is(TokenKind::error)) {
    // Already diagnosed by the lexer; still a failure of this parse.
    if (muteDepth > 0)
      mutedError = true;
    return;
  }
  std::string found = inFStringField && current.is(TokenKind::eof)
                          ? "the end of the f-string field"
                          : describe(current);
  emitError(current.getLoc(), "expected " + what + ", found " + found);
}

bool Parser::expect(TokenKind kind, const llvm::Twine &what) {
  if (consumeIf(kind))
    return true;
  emitExpected(what);
  return false;
}

//===----------------------------------------------------------------------===//
// Recovery and skipping
//===----------------------------------------------------------------------===//

void Parser::skipLine() {
  while (tok().isNot(TokenKind::newline) && tok().isNot(TokenKind::eof))
    consume();
  consumeIf(TokenKind::newline);
}

void Parser::skipBlock() {
  if (!consumeIf(TokenKind::indent))
    return;
  unsigned depth = 1;
  while (depth > 0 && tok().isNot(TokenKind::eof)) {
    if (tok().is(TokenKind::indent))
      ++depth;
    else if (tok().is(TokenKind::dedent))
      --depth;
    consume();
  }
}

/// Whether `kind` starts a clause that continues a statement beginning with
/// `first` (`elif`/`else` after `if`, `except`/`finally` after `try`, ...).
static bool continuesStatement(TokenKind first, TokenKind kind) {
  switch (first) {
  case TokenKind::kw_if:
    return kind == TokenKind::kw_elif || kind == TokenKind::kw_else;
  case TokenKind::kw_for:
  case TokenKind::kw_while:
  case TokenKind::kw_async:
    return kind == TokenKind::kw_else;
  case TokenKind::kw_try:
    return kind == TokenKind::kw_except || kind == TokenKind::kw_else ||
           kind == TokenKind::kw_finally;
  default:
    return false;
  }
}

void Parser::skipStatement() {
  while (tok().is(TokenKind::at))
    skipLine();
  TokenKind first = tok().getKind();
  skipLine();
  skipBlock();
  while (continuesStatement(first, tok().getKind())) {
    skipLine();
    skipBlock();
  }
}

void Parser::syncAfterError() {
  if (tok().isAny(TokenKind::dedent, TokenKind::eof))
    return;
  skipLine();
  if (tok().isNot(TokenKind::indent))
    return;
  // The error was in a compound statement's header: its block and clauses
  // belong to it.
  skipBlock();
  while (tok().isAny(TokenKind::kw_elif, TokenKind::kw_else,
                     TokenKind::kw_except, TokenKind::kw_finally)) {
    skipLine();
    skipBlock();
  }
}

void Parser::skipToClosingParen() {
  unsigned depth = 0;
  while (!tok().isAny(TokenKind::newline, TokenKind::eof)) {
    if (tok().isAny(TokenKind::l_paren, TokenKind::l_square,
                    TokenKind::l_brace)) {
      ++depth;
    } else if (tok().isAny(TokenKind::r_paren, TokenKind::r_square,
                           TokenKind::r_brace)) {
      if (depth == 0 && tok().is(TokenKind::r_paren))
        return;
      if (depth > 0)
        --depth;
    }
    consume();
  }
}

//===----------------------------------------------------------------------===//
// Module level
//===----------------------------------------------------------------------===//

llvm::SmallVector<Stmt *> Parser::parseModuleBody() {
  llvm::SmallVector<Stmt *> body;
  while (tok().isNot(TokenKind::eof)) {
    size_t start = tokens.getPosition();
    parseModuleItem(body);
    if (tokens.getPosition() == start)
      consume();
  }
  return body;
}

void Parser::parseModuleItem(llvm::SmallVectorImpl<Stmt *> &body) {
  switch (tok().getKind()) {
  case TokenKind::newline:
  case TokenKind::dedent:
    consume();
    return;
  case TokenKind::error:
    // Diagnosed by the lexer.
    skipStatement();
    return;
  case TokenKind::indent:
    emitError(tok().getLoc(), "unexpected indent");
    skipBlock();
    return;
  case TokenKind::kw_import:
  case TokenKind::kw_from:
    parseModuleSimpleLine(body, /*report=*/true);
    return;
  case TokenKind::at:
    parseModuleDecorated(body);
    return;
  case TokenKind::identifier:
  case TokenKind::l_paren:
  case TokenKind::l_square:
    if (lineLooksLikeAssignment()) {
      parseModuleSimpleLine(body, /*report=*/false);
      return;
    }
    skipModuleStatement(body);
    return;
  default:
    skipModuleStatement(body);
    return;
  }
}

bool Parser::lineLooksLikeAssignment() {
  if (tok().is(TokenKind::identifier) && peek(1).is(TokenKind::colon))
    return true;
  unsigned depth = 0;
  for (unsigned i = 0;; ++i) {
    const Token &token = peek(i);
    switch (token.getKind()) {
    case TokenKind::newline:
    case TokenKind::eof:
      return false;
    case TokenKind::l_paren:
    case TokenKind::l_square:
    case TokenKind::l_brace:
      ++depth;
      break;
    case TokenKind::r_paren:
    case TokenKind::r_square:
    case TokenKind::r_brace:
      if (depth > 0)
        --depth;
      break;
    case TokenKind::equal:
      if (depth == 0)
        return true;
      break;
    case TokenKind::kw_lambda:
      // `f = lambda x=1: x` has its `=` after a top-level one anyway; a
      // lambda before any `=` makes this an expression statement.
      if (depth == 0)
        return false;
      break;
    default:
      break;
    }
  }
}

llvm::SmallVector<StringRef> Parser::scanAssignedNames() {
  llvm::SmallVector<StringRef> names;
  for (unsigned i = 0;; i += 2) {
    const Token &name = peek(i);
    const Token &next = peek(i + 1);
    if (name.isNot(TokenKind::identifier))
      return {};
    names.push_back(name.getSpelling());
    if (next.isAny(TokenKind::equal, TokenKind::colon))
      return names;
    if (next.isNot(TokenKind::comma))
      return {};
  }
}

/// Whether a top-level statement may be kept: an import, or an assignment
/// of a constant to names.
static bool isModuleLevelStmt(const Stmt *stmt) {
  std::function<bool(const Expr *)> isNamePattern = [&](const Expr *expr) {
    if (llvm::isa<NameExpr>(expr))
      return true;
    llvm::ArrayRef<Expr *> elements;
    if (const auto *tuple = llvm::dyn_cast<TupleExpr>(expr))
      elements = tuple->getElements();
    else if (const auto *list = llvm::dyn_cast<ListExpr>(expr))
      elements = list->getElements();
    else
      return false;
    return !elements.empty() && llvm::all_of(elements, isNamePattern);
  };
  if (llvm::isa<ImportStmt, ImportFromStmt>(stmt))
    return true;
  if (const auto *assign = llvm::dyn_cast<AssignStmt>(stmt))
    return llvm::all_of(assign->getTargets(), isNamePattern);
  if (const auto *ann = llvm::dyn_cast<AnnAssignStmt>(stmt))
    return llvm::isa<NameExpr>(ann->getTarget()) && ann->getValue();
  return false;
}

void Parser::parseModuleSimpleLine(llvm::SmallVectorImpl<Stmt *> &body,
                                   bool report) {
  size_t startPos = tokens.getPosition();
  SMLoc start = tok().getLoc();
  llvm::SmallVector<Stmt *> stmts;
  bool parsed;
  if (report) {
    parsed = parseSimpleStatements(stmts);
  } else {
    MuteScope mute(*this);
    parsed = parseSimpleStatements(stmts) && !mute.hadError();
  }
  if (parsed && llvm::all_of(stmts, isModuleLevelStmt)) {
    body.append(stmts.begin(), stmts.end());
    return;
  }
  if (!parsed && report) {
    syncAfterError();
    return;
  }
  // Host code, or a constant whose value tilec cannot parse: skip it.
  tokens.setPosition(startPos);
  llvm::SmallVector<StringRef> names = scanAssignedNames();
  StringRef construct = lineLooksLikeAssignment() ? "assignment" : "expression";
  skipStatement();
  body.push_back(ctx.create<SkippedStmt>(construct, copy<StringRef>(names),
                                         rangeFrom(start)));
}

void Parser::skipModuleStatement(llvm::SmallVectorImpl<Stmt *> &body) {
  SMLoc start = tok().getLoc();
  Token first = tok();
  StringRef construct;
  llvm::SmallVector<StringRef, 1> names;
  if (first.isKeyword()) {
    construct = first.getSpelling();
    // `def name`, `class name`, `async def name`.
    unsigned nameIndex = first.is(TokenKind::kw_async) ? 2 : 1;
    if (first.isAny(TokenKind::kw_def, TokenKind::kw_class) ||
        (first.is(TokenKind::kw_async) && peek(1).is(TokenKind::kw_def))) {
      if (peek(nameIndex).is(TokenKind::identifier))
        names.push_back(peek(nameIndex).getSpelling());
    }
  } else if (first.is(TokenKind::identifier) && atMatchStatement()) {
    construct = "match";
  } else {
    construct = lineLooksLikeAssignment() ? "assignment" : "expression";
  }
  skipStatement();
  body.push_back(ctx.create<SkippedStmt>(construct, copy<StringRef>(names),
                                         rangeFrom(start)));
}

bool Parser::decoratorLineIsJit() {
  // `@ name (. name)* [( ...)] NEWLINE` whose last name is `jit`.
  if (tok().isNot(TokenKind::at))
    return false;
  unsigned i = 1;
  StringRef last;
  while (true) {
    if (peek(i).isNot(TokenKind::identifier))
      return false;
    last = peek(i).getSpelling();
    ++i;
    if (peek(i).isNot(TokenKind::period))
      break;
    ++i;
  }
  return last == "jit" && peek(i).isAny(TokenKind::l_paren, TokenKind::newline);
}

void Parser::parseModuleDecorated(llvm::SmallVectorImpl<Stmt *> &body) {
  size_t startPos = tokens.getPosition();
  SMLoc start = tok().getLoc();
  bool jit = false;
  while (tok().is(TokenKind::at)) {
    jit |= decoratorLineIsJit();
    skipLine();
  }
  // What the decorators apply to.
  Token decl = tok();
  StringRef construct = decl.isKeyword() ? decl.getSpelling() : "decorated";
  llvm::SmallVector<StringRef, 1> names;
  unsigned nameIndex = decl.is(TokenKind::kw_async) ? 2 : 1;
  if (decl.isAny(TokenKind::kw_def, TokenKind::kw_class, TokenKind::kw_async) &&
      peek(nameIndex).is(TokenKind::identifier))
    names.push_back(peek(nameIndex).getSpelling());
  tokens.setPosition(startPos);

  // Meant as a kernel, but cannot be one. (A @jit class stays host code.)
  if (jit && decl.is(TokenKind::kw_async))
    emitError(decl.getLoc(), "a @jit function cannot be 'async def'");
  if (!jit || decl.isNot(TokenKind::kw_def)) {
    skipStatement();
    body.push_back(ctx.create<SkippedStmt>(construct, copy<StringRef>(names),
                                           rangeFrom(start)));
    return;
  }

  llvm::SmallVector<Expr *> decorators;
  if (!parseDecorators(decorators)) {
    // Skip the rest of the decorators and the function they decorate.
    syncAfterError();
    skipStatement();
    return;
  }
  if (FunctionDef *func = parseFunctionDef(decorators, start))
    body.push_back(func);
  else
    syncAfterError();
}

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

std::unique_ptr<ModuleAST>
tilec::frontend::parseModule(const llvm::SourceMgr &srcMgr, unsigned bufferId,
                             DiagnosticSink &diags) {
  unsigned errorsBefore = diags.getNumErrors();
  auto ctx = std::make_unique<ASTContext>();
  Parser parser(srcMgr, bufferId, diags, *ctx);
  llvm::SmallVector<Stmt *> body = parser.parseModuleBody();
  if (diags.getNumErrors() != errorsBefore)
    return nullptr;
  const llvm::MemoryBuffer *buffer = srcMgr.getMemoryBuffer(bufferId);
  llvm::SMRange range(SMLoc::getFromPointer(buffer->getBufferStart()),
                      SMLoc::getFromPointer(buffer->getBufferEnd()));
  llvm::ArrayRef<Stmt *> bodyRef = ctx->copyArray<Stmt *>(body);
  return std::make_unique<ModuleAST>(std::move(ctx), bodyRef, range);
}
