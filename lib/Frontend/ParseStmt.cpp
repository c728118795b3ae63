//===- ParseStmt.cpp - Statement parsing ----------------------------------===//
//
// Part of the tilec project.
//
//===----------------------------------------------------------------------===//
//
// Statements inside function bodies: simple statements (expression,
// assignments, return, assert, pass/break/continue, import, global) and
// compound ones (if/elif/else, for/else, while/else, def). Constructs that
// have no meaning in a kernel are skipped by indentation into
// UnsupportedStmt nodes.
//
//===----------------------------------------------------------------------===//

#include "ParserImpl.h"

#include <optional>

using namespace tilec::frontend;
using namespace tilec::frontend::detail;
using llvm::SMLoc;
using llvm::StringRef;

/// The operator of an augmented assignment token (`+=` -> Add).
static std::optional<BinaryOp> getAugmentedOp(const Token &token) {
  switch (token.getKind()) {
  case TokenKind::plus_equal:
    return BinaryOp::Add;
  case TokenKind::minus_equal:
    return BinaryOp::Sub;
  case TokenKind::star_equal:
    return BinaryOp::Mul;
  case TokenKind::at_equal:
    return BinaryOp::MatMul;
  case TokenKind::slash_equal:
    return BinaryOp::Div;
  case TokenKind::slash_slash_equal:
    return BinaryOp::FloorDiv;
  case TokenKind::percent_equal:
    return BinaryOp::Mod;
  case TokenKind::star_star_equal:
    return BinaryOp::Pow;
  case TokenKind::less_less_equal:
    return BinaryOp::LShift;
  case TokenKind::greater_greater_equal:
    return BinaryOp::RShift;
  case TokenKind::pipe_equal:
    return BinaryOp::BitOr;
  case TokenKind::caret_equal:
    return BinaryOp::BitXor;
  case TokenKind::amp_equal:
    return BinaryOp::BitAnd;
  default:
    return std::nullopt;
  }
}

/// "async def", "async for", "async with" for the `async` token followed by
/// `next`.
static StringRef getAsyncConstruct(const Token &next) {
  switch (next.getKind()) {
  case TokenKind::kw_def:
    return "async def";
  case TokenKind::kw_for:
    return "async for";
  case TokenKind::kw_with:
    return "async with";
  default:
    return "async";
  }
}

//===----------------------------------------------------------------------===//
// Statement dispatch and blocks
//===----------------------------------------------------------------------===//

void Parser::parseStatementWithRecovery(llvm::SmallVectorImpl<Stmt *> &out) {
  size_t start = tokens.getPosition();
  if (!parseStatement(out))
    syncAfterError();
  if (tokens.getPosition() == start &&
      !tok().isAny(TokenKind::dedent, TokenKind::eof))
    consume();
}

bool Parser::parseStatement(llvm::SmallVectorImpl<Stmt *> &out) {
  const Token &token = tok();
  SMLoc start = token.getLoc();
  auto push = [&](Stmt *stmt) {
    if (!stmt)
      return false;
    out.push_back(stmt);
    return true;
  };

  switch (token.getKind()) {
  case TokenKind::newline:
    consume();
    return true;
  case TokenKind::indent:
    // Keep parsing the over-indented lines as part of the current block, so
    // that their own errors are reported too.
    emitError(start, "unexpected indent");
    consume();
    while (!tok().isAny(TokenKind::dedent, TokenKind::eof))
      parseStatementWithRecovery(out);
    consumeIf(TokenKind::dedent);
    return true;
  case TokenKind::kw_if:
    return push(parseIfStmt(/*isElif=*/false));
  case TokenKind::kw_for:
    return push(parseForStmt());
  case TokenKind::kw_while:
    return push(parseWhileStmt());
  case TokenKind::kw_def:
    return push(parseFunctionDef({}, start));
  case TokenKind::at:
    return push(parseDecorated());
  case TokenKind::kw_class:
    return push(parseUnsupported("class", start, /*compound=*/true));
  case TokenKind::kw_try:
    return push(parseUnsupported("try", start, /*compound=*/true));
  case TokenKind::kw_with:
    return push(parseUnsupported("with", start, /*compound=*/true));
  case TokenKind::kw_async:
    return push(
        parseUnsupported(getAsyncConstruct(peek(1)), start, /*compound=*/true));
  case TokenKind::kw_elif:
    emitError(start, "'elif' without a matching 'if'");
    return false;
  case TokenKind::kw_else:
    emitError(start, "'else' without a matching 'if', 'for' or 'while'");
    return false;
  case TokenKind::kw_except:
    emitError(start, "'except' without a matching 'try'");
    return false;
  case TokenKind::kw_finally:
    emitError(start, "'finally' without a matching 'try'");
    return false;
  case TokenKind::identifier:
    if (atMatchStatement())
      return push(parseUnsupported("match", start, /*compound=*/true));
    break;
  default:
    break;
  }
  return parseSimpleStatements(out);
}

bool Parser::atMatchStatement() {
  if (tok().getSpelling() != "match" ||
      peek(1).isAny(TokenKind::equal, TokenKind::colon, TokenKind::period,
                    TokenKind::comma, TokenKind::newline))
    return false;
  // `match subject:` followed by an indented block of `case` clauses.
  for (unsigned i = 1;; ++i) {
    const Token &token = peek(i);
    if (token.isAny(TokenKind::newline, TokenKind::eof))
      return i > 1 && peek(i - 1).is(TokenKind::colon) &&
             peek(i + 1).is(TokenKind::indent);
  }
}

bool Parser::parseBlock(llvm::SmallVectorImpl<Stmt *> &body,
                        const llvm::Twine &after) {
  if (tok().isNot(TokenKind::newline)) {
    // `if x: return y` -- simple statements on the header's line.
    if (tok().isAny(TokenKind::kw_if, TokenKind::kw_for, TokenKind::kw_while,
                    TokenKind::kw_def, TokenKind::kw_class, TokenKind::kw_try,
                    TokenKind::kw_with, TokenKind::at)) {
      emitError(tok().getLoc(),
                "a compound statement cannot follow ':' on the same line");
      return false;
    }
    return parseSimpleStatements(body);
  }
  consume(); // newline
  if (tok().isNot(TokenKind::indent)) {
    emitError(tok().getLoc(), "expected an indented block after " + after);
    return true;
  }
  NestingGuard guard(*this, tok().getLoc(), /*statement=*/true);
  if (!guard) {
    // Too deep: skip the block (reported once).
    skipBlock();
    return true;
  }
  consume(); // indent
  while (!tok().isAny(TokenKind::dedent, TokenKind::eof))
    parseStatementWithRecovery(body);
  consumeIf(TokenKind::dedent);
  return true;
}

Stmt *Parser::parseUnsupported(StringRef construct, SMLoc start,
                               bool compound) {
  if (compound) {
    skipStatement();
  } else {
    while (
        !tok().isAny(TokenKind::newline, TokenKind::semicolon, TokenKind::eof))
      consume();
  }
  return ctx.create<UnsupportedStmt>(construct, rangeFrom(start));
}

//===----------------------------------------------------------------------===//
// Simple statements
//===----------------------------------------------------------------------===//

bool Parser::parseSimpleStatements(llvm::SmallVectorImpl<Stmt *> &out) {
  while (true) {
    Stmt *stmt = parseSimpleStatement();
    if (!stmt)
      return false;
    out.push_back(stmt);
    if (!consumeIf(TokenKind::semicolon) ||
        tok().isAny(TokenKind::newline, TokenKind::eof))
      break;
  }
  if (consumeIf(TokenKind::newline) || tok().is(TokenKind::eof))
    return true;
  emitExpected("end of line after statement");
  return false;
}

Stmt *Parser::parseSimpleStatement() {
  SMLoc start = tok().getLoc();
  switch (tok().getKind()) {
  case TokenKind::kw_pass:
    consume();
    return ctx.create<PassStmt>(rangeFrom(start));
  case TokenKind::kw_break:
    consume();
    if (loopDepth == 0)
      emitError(start, "'break' outside loop");
    return ctx.create<BreakStmt>(rangeFrom(start));
  case TokenKind::kw_continue:
    consume();
    if (loopDepth == 0)
      emitError(start, "'continue' not properly in loop");
    return ctx.create<ContinueStmt>(rangeFrom(start));
  case TokenKind::kw_return: {
    consume();
    Expr *value = nullptr;
    if (canStartExpression(tok()) || tok().is(TokenKind::star)) {
      value = parseStarExpressions();
      if (!value)
        return nullptr;
    }
    return ctx.create<ReturnStmt>(value, rangeFrom(start));
  }
  case TokenKind::kw_assert: {
    consume();
    Expr *test = parseOperand(&Parser::parseExpression, "after 'assert'");
    if (!test)
      return nullptr;
    Expr *message = nullptr;
    if (consumeIf(TokenKind::comma)) {
      message = parseOperand(&Parser::parseExpression, "as assertion message");
      if (!message)
        return nullptr;
    }
    return ctx.create<AssertStmt>(test, message, rangeFrom(start));
  }
  case TokenKind::kw_import:
    return parseImport();
  case TokenKind::kw_from:
    return parseFromImport();
  case TokenKind::kw_global:
  case TokenKind::kw_nonlocal:
    return parseGlobal();
  case TokenKind::kw_del:
    return parseUnsupported("del", start, /*compound=*/false);
  case TokenKind::kw_raise:
    return parseUnsupported("raise", start, /*compound=*/false);
  default:
    return parseExpressionOrAssignment();
  }
}

Expr *Parser::parseAssignmentValueAfter(StringRef op) {
  if (tok().is(TokenKind::kw_yield))
    return parseYieldExpr();
  if (!canStartExpression(tok()) && tok().isNot(TokenKind::star)) {
    emitExpected("expression after '" + op + "'");
    return nullptr;
  }
  return parseStarExpressions();
}

Stmt *Parser::parseExpressionOrAssignment() {
  SMLoc start = tok().getLoc();
  Expr *first;
  if (tok().is(TokenKind::kw_yield)) {
    first = parseYieldExpr();
  } else {
    if (!canStartExpression(tok()) && tok().isNot(TokenKind::star)) {
      emitExpected("statement");
      return nullptr;
    }
    first = parseStarExpressions();
  }
  if (!first)
    return nullptr;

  // Annotated assignment: `target: annotation [= value]`.
  if (tok().is(TokenKind::colon)) {
    if (llvm::isa<TupleExpr, ListExpr>(first)) {
      emitError(first->getLoc(), "only single target (not " +
                                     describeExpr(first) +
                                     ") can be annotated");
      return nullptr;
    }
    if (!llvm::isa<NameExpr, AttributeExpr, SubscriptExpr>(first)) {
      emitError(first->getLoc(), "illegal target for annotation");
      return nullptr;
    }
    consume();
    Expr *annotation = parseOperand(&Parser::parseExpression, "as annotation");
    if (!annotation)
      return nullptr;
    Expr *value = nullptr;
    if (consumeIf(TokenKind::equal)) {
      value = parseAssignmentValueAfter("=");
      if (!value)
        return nullptr;
    }
    return ctx.create<AnnAssignStmt>(first, annotation, value,
                                     rangeFrom(start));
  }

  // Augmented assignment: `target op= value`.
  if (std::optional<BinaryOp> op = getAugmentedOp(tok())) {
    if (!llvm::isa<NameExpr, AttributeExpr, SubscriptExpr>(first)) {
      emitError(first->getLoc(), "'" + describeExpr(first) +
                                     "' is an illegal expression for "
                                     "augmented assignment");
      return nullptr;
    }
    Token opToken = consume();
    Expr *value = parseAssignmentValueAfter(opToken.getSpelling());
    if (!value)
      return nullptr;
    return ctx.create<AugAssignStmt>(first, *op, value, opToken.getLoc(),
                                     rangeFrom(start));
  }

  // Assignment, possibly chained: `a = b = value`.
  if (tok().is(TokenKind::equal)) {
    SMLoc opLoc = tok().getLoc();
    llvm::SmallVector<Expr *, 2> targets{first};
    Expr *value = nullptr;
    while (consumeIf(TokenKind::equal)) {
      value = parseAssignmentValueAfter("=");
      if (!value)
        return nullptr;
      if (tok().is(TokenKind::equal))
        targets.push_back(value);
    }
    for (const Expr *target : targets)
      checkAssignTarget(target);
    return ctx.create<AssignStmt>(copy<Expr *>(targets), value, opLoc,
                                  rangeFrom(start));
  }

  return ctx.create<ExprStmt>(first, rangeFrom(start));
}

bool Parser::checkAssignTarget(const Expr *target, bool topLevel) {
  switch (target->getKind()) {
  case Node::Kind::Name:
  case Node::Kind::Attribute:
  case Node::Kind::Subscript:
    return true;
  case Node::Kind::Tuple:
  case Node::Kind::List: {
    llvm::ArrayRef<Expr *> elements =
        llvm::isa<TupleExpr>(target)
            ? llvm::cast<TupleExpr>(target)->getElements()
            : llvm::cast<ListExpr>(target)->getElements();
    bool ok = true;
    for (const Expr *element : elements)
      ok &= checkAssignTarget(element, /*topLevel=*/false);
    return ok;
  }
  case Node::Kind::Starred:
    if (topLevel) {
      emitError(target->getLoc(),
                "starred assignment target must be in a list or tuple");
      return false;
    }
    return checkAssignTarget(llvm::cast<StarredExpr>(target)->getValue(),
                             /*topLevel=*/false);
  default:
    emitError(target->getLoc(), "cannot assign to " + describeExpr(target));
    return false;
  }
}

Stmt *Parser::parseImport() {
  SMLoc start = consume().getLoc(); // 'import'
  llvm::SmallVector<ImportAlias, 2> names;
  do {
    if (tok().isNot(TokenKind::identifier)) {
      emitExpected("module name after 'import'");
      return nullptr;
    }
    SMLoc loc = tok().getLoc();
    std::string dotted = consume().getSpelling().str();
    while (consumeIf(TokenKind::period)) {
      if (tok().isNot(TokenKind::identifier)) {
        emitExpected("name after '.' in module name");
        return nullptr;
      }
      dotted += "." + consume().getSpelling().str();
    }
    StringRef asName;
    if (consumeIf(TokenKind::kw_as)) {
      if (tok().isNot(TokenKind::identifier)) {
        emitExpected("name after 'as'");
        return nullptr;
      }
      asName = consume().getSpelling();
    }
    names.push_back({ctx.copyString(dotted), asName, loc});
  } while (consumeIf(TokenKind::comma));
  return ctx.create<ImportStmt>(copy<ImportAlias>(names), rangeFrom(start));
}

Stmt *Parser::parseFromImport() {
  SMLoc start = consume().getLoc(); // 'from'
  unsigned level = 0;
  while (tok().isAny(TokenKind::period, TokenKind::ellipsis))
    level += consume().is(TokenKind::ellipsis) ? 3 : 1;
  std::string module;
  if (tok().is(TokenKind::identifier)) {
    module = consume().getSpelling().str();
    while (consumeIf(TokenKind::period)) {
      if (tok().isNot(TokenKind::identifier)) {
        emitExpected("name after '.' in module name");
        return nullptr;
      }
      module += "." + consume().getSpelling().str();
    }
  } else if (level == 0) {
    emitExpected("module name after 'from'");
    return nullptr;
  }
  if (!expect(TokenKind::kw_import, "'import' after module name"))
    return nullptr;

  llvm::SmallVector<ImportAlias, 4> names;
  if (tok().is(TokenKind::star)) {
    names.push_back({"*", StringRef(), consume().getLoc()});
  } else {
    bool parenthesized = consumeIf(TokenKind::l_paren);
    while (true) {
      if (tok().isNot(TokenKind::identifier)) {
        emitExpected("name to import");
        return nullptr;
      }
      Token name = consume();
      StringRef asName;
      if (consumeIf(TokenKind::kw_as)) {
        if (tok().isNot(TokenKind::identifier)) {
          emitExpected("name after 'as'");
          return nullptr;
        }
        asName = consume().getSpelling();
      }
      names.push_back({name.getSpelling(), asName, name.getLoc()});
      if (!consumeIf(TokenKind::comma))
        break;
      if (parenthesized && tok().is(TokenKind::r_paren))
        break;
      if (!parenthesized && tok().isAny(TokenKind::newline, TokenKind::eof,
                                        TokenKind::semicolon)) {
        emitError(tok().getLoc(), "trailing comma not allowed without "
                                  "surrounding parentheses");
        return nullptr;
      }
    }
    if (parenthesized &&
        !expect(TokenKind::r_paren, "',' or ')' after imported name"))
      return nullptr;
  }
  return ctx.create<ImportFromStmt>(ctx.copyString(module), level,
                                    copy<ImportAlias>(names), rangeFrom(start));
}

Stmt *Parser::parseGlobal() {
  Token keyword = consume();
  llvm::SmallVector<StringRef, 2> names;
  do {
    if (tok().isNot(TokenKind::identifier)) {
      emitExpected("name in '" + keyword.getSpelling() + "' statement");
      return nullptr;
    }
    names.push_back(consume().getSpelling());
  } while (consumeIf(TokenKind::comma));
  return ctx.create<GlobalStmt>(keyword.is(TokenKind::kw_nonlocal),
                                copy<StringRef>(names),
                                rangeFrom(keyword.getLoc()));
}

//===----------------------------------------------------------------------===//
// Compound statements
//===----------------------------------------------------------------------===//

Stmt *Parser::parseIfStmt(bool isElif) {
  SMLoc start = tok().getLoc();
  // An elif chain nests one IfStmt per elif.
  std::optional<NestingGuard> guard;
  if (isElif) {
    guard.emplace(*this, start, /*statement=*/true);
    if (!*guard)
      return nullptr;
  }
  StringRef keyword = consume().getSpelling();
  unsigned line = getLine(start);
  Expr *condition =
      parseOperand(&Parser::parseNamedExpression, "after '" + keyword + "'");
  if (!condition)
    return nullptr;
  if (!expect(TokenKind::colon, "':' after '" + keyword + "' condition"))
    return nullptr;
  llvm::SmallVector<Stmt *> thenBody;
  if (!parseBlock(thenBody,
                  "'" + keyword + "' statement on line " + llvm::Twine(line)))
    return nullptr;

  llvm::SmallVector<Stmt *> elseBody;
  if (tok().is(TokenKind::kw_elif)) {
    Stmt *elif = parseIfStmt(/*isElif=*/true);
    if (!elif)
      return nullptr;
    elseBody.push_back(elif);
  } else if (tok().is(TokenKind::kw_else)) {
    unsigned elseLine = getLine(consume().getLoc());
    if (!expect(TokenKind::colon, "':' after 'else'") ||
        !parseBlock(elseBody,
                    "'else' statement on line " + llvm::Twine(elseLine)))
      return nullptr;
  }
  return ctx.create<IfStmt>(condition, copy<Stmt *>(thenBody),
                            copy<Stmt *>(elseBody), isElif, rangeFrom(start));
}

Stmt *Parser::parseForStmt() {
  SMLoc start = consume().getLoc(); // 'for'
  unsigned line = getLine(start);
  if (!canStartExpression(tok()) && tok().isNot(TokenKind::star)) {
    emitExpected("loop target after 'for'");
    return nullptr;
  }
  Expr *target = parseTargetList();
  if (!target)
    return nullptr;
  checkAssignTarget(target);
  if (!expect(TokenKind::kw_in, "'in' after 'for' target"))
    return nullptr;
  Expr *iter = parseOperand(&Parser::parseStarExpressions, "after 'in'");
  if (!iter)
    return nullptr;
  if (!expect(TokenKind::colon, "':' after 'for' iterable"))
    return nullptr;

  llvm::SmallVector<Stmt *> body, elseBody;
  ++loopDepth;
  bool ok = parseBlock(body, "'for' statement on line " + llvm::Twine(line));
  --loopDepth;
  if (!ok)
    return nullptr;
  if (tok().is(TokenKind::kw_else)) {
    unsigned elseLine = getLine(consume().getLoc());
    if (!expect(TokenKind::colon, "':' after 'else'") ||
        !parseBlock(elseBody,
                    "'else' statement on line " + llvm::Twine(elseLine)))
      return nullptr;
  }
  return ctx.create<ForStmt>(target, iter, copy<Stmt *>(body),
                             copy<Stmt *>(elseBody), rangeFrom(start));
}

Stmt *Parser::parseWhileStmt() {
  SMLoc start = consume().getLoc(); // 'while'
  unsigned line = getLine(start);
  Expr *condition =
      parseOperand(&Parser::parseNamedExpression, "after 'while'");
  if (!condition)
    return nullptr;
  if (!expect(TokenKind::colon, "':' after 'while' condition"))
    return nullptr;

  llvm::SmallVector<Stmt *> body, elseBody;
  ++loopDepth;
  bool ok = parseBlock(body, "'while' statement on line " + llvm::Twine(line));
  --loopDepth;
  if (!ok)
    return nullptr;
  if (tok().is(TokenKind::kw_else)) {
    unsigned elseLine = getLine(consume().getLoc());
    if (!expect(TokenKind::colon, "':' after 'else'") ||
        !parseBlock(elseBody,
                    "'else' statement on line " + llvm::Twine(elseLine)))
      return nullptr;
  }
  return ctx.create<WhileStmt>(condition, copy<Stmt *>(body),
                               copy<Stmt *>(elseBody), rangeFrom(start));
}

bool Parser::parseDecorators(llvm::SmallVectorImpl<Expr *> &decorators) {
  while (consumeIf(TokenKind::at)) {
    Expr *decorator = parseOperand(&Parser::parseNamedExpression, "after '@'");
    if (!decorator)
      return false;
    if (!expect(TokenKind::newline, "end of line after decorator"))
      return false;
    decorators.push_back(decorator);
  }
  return true;
}

Stmt *Parser::parseDecorated() {
  SMLoc start = tok().getLoc();
  llvm::SmallVector<Expr *> decorators;
  if (!parseDecorators(decorators))
    return nullptr;
  switch (tok().getKind()) {
  case TokenKind::kw_def:
    return parseFunctionDef(decorators, start);
  case TokenKind::kw_class:
    return parseUnsupported("class", start, /*compound=*/true);
  case TokenKind::kw_async:
    return parseUnsupported(getAsyncConstruct(peek(1)), start,
                            /*compound=*/true);
  default:
    emitExpected("'def' after decorators");
    return nullptr;
  }
}

FunctionDef *Parser::parseFunctionDef(llvm::ArrayRef<Expr *> decorators,
                                      SMLoc start) {
  SMLoc defLoc = consume().getLoc(); // 'def'
  unsigned line = getLine(defLoc);
  if (tok().isNot(TokenKind::identifier)) {
    emitExpected("function name after 'def'");
    return nullptr;
  }
  Token name = consume();
  if (!expect(TokenKind::l_paren, "'(' after function name"))
    return nullptr;
  llvm::SmallVector<Parameter *> params;
  if (!parseParameters(TokenKind::r_paren, /*allowAnnotations=*/true, params)) {
    // Recover at the `)` so that the body is still checked.
    params.clear();
    skipToClosingParen();
    if (tok().isNot(TokenKind::r_paren))
      return nullptr;
  }
  consume(); // ')'
  Expr *returns = nullptr;
  if (consumeIf(TokenKind::arrow)) {
    returns = parseOperand(&Parser::parseExpression, "after '->'");
    if (!returns)
      return nullptr;
  }
  if (!expect(TokenKind::colon, "':' after function signature"))
    return nullptr;

  llvm::SmallVector<Stmt *> body;
  unsigned savedLoopDepth = loopDepth;
  loopDepth = 0;
  bool ok =
      parseBlock(body, "function definition on line " + llvm::Twine(line));
  loopDepth = savedLoopDepth;
  if (!ok)
    return nullptr;
  return ctx.create<FunctionDef>(name.getSpelling(), name.getLoc(),
                                 copy<Expr *>(decorators),
                                 copy<Parameter *>(params), returns,
                                 copy<Stmt *>(body), defLoc, rangeFrom(start));
}
