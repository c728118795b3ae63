//===- ParseExpr.cpp - Expression parsing ---------------------------------===//
//
// Part of the tilec project.
//
//===----------------------------------------------------------------------===//
//
// Python expressions by recursive descent, one function per precedence level
// of the Python 3 grammar (lowest first):
//
//   lambda, `x if c else y`, or, and, not, comparisons (chained; in, not in,
//   is, is not), |, ^, &, << >>, + -, * / // % @, unary + - ~, **, await,
//   primaries (attribute, call, subscript), atoms.
//
// `**` binds tighter than a unary operator on its left and looser than one on
// its right: `-x**-y` is `-(x ** (-y))`.
//
//===----------------------------------------------------------------------===//

#include "ParserImpl.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace tilec::frontend;
using namespace tilec::frontend::detail;
using llvm::SMLoc;
using llvm::StringRef;

bool Parser::canStartExpression(const Token &token) {
  switch (token.getKind()) {
  case TokenKind::identifier:
  case TokenKind::integer:
  case TokenKind::floating:
  case TokenKind::imaginary:
  case TokenKind::string:
  case TokenKind::kw_True:
  case TokenKind::kw_False:
  case TokenKind::kw_None:
  case TokenKind::ellipsis:
  case TokenKind::l_paren:
  case TokenKind::l_square:
  case TokenKind::l_brace:
  case TokenKind::plus:
  case TokenKind::minus:
  case TokenKind::tilde:
  case TokenKind::kw_not:
  case TokenKind::kw_lambda:
  case TokenKind::kw_await:
    return true;
  default:
    return false;
  }
}

std::string Parser::describeExpr(const Expr *expr) {
  switch (expr->getKind()) {
  case Node::Kind::Name:
    return "name";
  case Node::Kind::IntegerLiteral:
  case Node::Kind::FloatLiteral:
  case Node::Kind::ImaginaryLiteral:
  case Node::Kind::StringLiteral:
    return "literal";
  case Node::Kind::FString:
    return "f-string expression";
  case Node::Kind::BoolLiteral:
    return llvm::cast<BoolLiteral>(expr)->getValue() ? "True" : "False";
  case Node::Kind::NoneLiteral:
    return "None";
  case Node::Kind::EllipsisLiteral:
    return "ellipsis";
  case Node::Kind::Unary:
  case Node::Kind::Binary:
  case Node::Kind::BoolOp:
    return "expression";
  case Node::Kind::Compare:
    return "comparison";
  case Node::Kind::IfExp:
    return "conditional expression";
  case Node::Kind::Lambda:
    return "lambda";
  case Node::Kind::Call:
    return "function call";
  case Node::Kind::Attribute:
    return "attribute";
  case Node::Kind::Subscript:
    return "subscript";
  case Node::Kind::Slice:
    return "slice";
  case Node::Kind::Tuple:
    return "tuple";
  case Node::Kind::List:
    return "list";
  case Node::Kind::Set:
    return "set display";
  case Node::Kind::Dict:
    return "dict literal";
  case Node::Kind::Starred:
    return "starred";
  case Node::Kind::Comprehension:
    switch (llvm::cast<ComprehensionExpr>(expr)->getComprehensionKind()) {
    case ComprehensionKind::List:
      return "list comprehension";
    case ComprehensionKind::Set:
      return "set comprehension";
    case ComprehensionKind::Dict:
      return "dict comprehension";
    case ComprehensionKind::Generator:
      return "generator expression";
    }
    return "comprehension";
  case Node::Kind::NamedExpr:
    return "named expression";
  case Node::Kind::UnsupportedExpr:
    return (llvm::cast<UnsupportedExpr>(expr)->getConstruct() + " expression")
        .str();
  default:
    return "expression";
  }
}

Expr *Parser::parseOperand(ExprParseFn fn, const llvm::Twine &context) {
  if (!canStartExpression(tok())) {
    emitExpected("expression " + context);
    return nullptr;
  }
  return (this->*fn)();
}

//===----------------------------------------------------------------------===//
// Expression lists
//===----------------------------------------------------------------------===//

Expr *Parser::parseStarExpressions() {
  SMLoc start = tok().getLoc();
  Expr *first = parseStarExpression();
  if (!first || tok().isNot(TokenKind::comma))
    return first;
  llvm::SmallVector<Expr *> elements{first};
  while (consumeIf(TokenKind::comma)) {
    if (!canStartExpression(tok()) && tok().isNot(TokenKind::star))
      break; // Trailing comma.
    Expr *element = parseStarExpression();
    if (!element)
      return nullptr;
    elements.push_back(element);
  }
  return createExpr<TupleExpr>(copy<Expr *>(elements), /*parenthesized=*/false,
                               rangeFrom(start));
}

Expr *Parser::parseStarExpression() {
  if (tok().isNot(TokenKind::star))
    return parseExpression();
  SMLoc start = consume().getLoc();
  Expr *value = parseOperand(&Parser::parseBitOr, "after '*'");
  if (!value)
    return nullptr;
  return createExpr<StarredExpr>(value, rangeFrom(start));
}

Expr *Parser::parseStarNamedExpression() {
  if (tok().isNot(TokenKind::star))
    return parseNamedExpression();
  SMLoc start = consume().getLoc();
  Expr *value = parseOperand(&Parser::parseBitOr, "after '*'");
  if (!value)
    return nullptr;
  return createExpr<StarredExpr>(value, rangeFrom(start));
}

Expr *Parser::parseNamedExpression() {
  if (tok().isNot(TokenKind::identifier) ||
      peek(1).isNot(TokenKind::colon_equal))
    return parseExpression();
  Token name = consume();
  auto *target = createExpr<NameExpr>(name.getSpelling(), name.getRange());
  SMLoc opLoc = consume().getLoc();
  Expr *value = parseOperand(&Parser::parseExpression, "after ':='");
  if (!value)
    return nullptr;
  return createExpr<NamedExpr>(target, value, opLoc, rangeFrom(name.getLoc()));
}

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

Expr *Parser::parseExpression() {
  NestingGuard guard(*this, tok().getLoc());
  if (!guard)
    return nullptr;
  if (tok().is(TokenKind::kw_lambda))
    return parseLambda();

  SMLoc start = tok().getLoc();
  Expr *trueValue = parseDisjunction();
  if (!trueValue || tok().isNot(TokenKind::kw_if))
    return trueValue;
  SMLoc ifLoc = consume().getLoc();
  Expr *condition = parseOperand(&Parser::parseDisjunction, "after 'if'");
  if (!condition)
    return nullptr;
  if (!expect(TokenKind::kw_else, "'else' after 'if' expression"))
    return nullptr;
  Expr *falseValue = parseOperand(&Parser::parseExpression, "after 'else'");
  if (!falseValue)
    return nullptr;
  return createExpr<IfExpr>(trueValue, condition, falseValue, ifLoc,
                            rangeFrom(start));
}

Expr *Parser::parseDisjunction() {
  SMLoc start = tok().getLoc();
  Expr *lhs = parseConjunction();
  while (lhs && tok().is(TokenKind::kw_or)) {
    SMLoc opLoc = consume().getLoc();
    Expr *rhs = parseOperand(&Parser::parseConjunction, "after 'or'");
    if (!rhs)
      return nullptr;
    lhs = createExpr<BoolOpExpr>(BoolOp::Or, lhs, rhs, opLoc, rangeFrom(start));
  }
  return lhs;
}

Expr *Parser::parseConjunction() {
  SMLoc start = tok().getLoc();
  Expr *lhs = parseInversion();
  while (lhs && tok().is(TokenKind::kw_and)) {
    SMLoc opLoc = consume().getLoc();
    Expr *rhs = parseOperand(&Parser::parseInversion, "after 'and'");
    if (!rhs)
      return nullptr;
    lhs =
        createExpr<BoolOpExpr>(BoolOp::And, lhs, rhs, opLoc, rangeFrom(start));
  }
  return lhs;
}

Expr *Parser::parseInversion() {
  if (tok().isNot(TokenKind::kw_not))
    return parseComparison();
  SMLoc start = consume().getLoc();
  NestingGuard guard(*this, start);
  if (!guard)
    return nullptr;
  Expr *operand = parseOperand(&Parser::parseInversion, "after 'not'");
  if (!operand)
    return nullptr;
  return createExpr<UnaryExpr>(UnaryOp::Not, operand, rangeFrom(start));
}

/// The comparison operator starting at `token` (followed by `next`), if any.
static std::optional<CmpOp> getComparisonOp(const Token &token,
                                            const Token &next) {
  switch (token.getKind()) {
  case TokenKind::equal_equal:
    return CmpOp::Eq;
  case TokenKind::not_equal:
    return CmpOp::NotEq;
  case TokenKind::less:
    return CmpOp::Lt;
  case TokenKind::less_equal:
    return CmpOp::LtE;
  case TokenKind::greater:
    return CmpOp::Gt;
  case TokenKind::greater_equal:
    return CmpOp::GtE;
  case TokenKind::kw_in:
    return CmpOp::In;
  case TokenKind::kw_is:
    return next.is(TokenKind::kw_not) ? CmpOp::IsNot : CmpOp::Is;
  case TokenKind::kw_not:
    if (next.is(TokenKind::kw_in))
      return CmpOp::NotIn;
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

Expr *Parser::parseComparison() {
  SMLoc start = tok().getLoc();
  Expr *lhs = parseBitOr();
  if (!lhs)
    return nullptr;
  llvm::SmallVector<Comparison, 2> comparisons;
  while (std::optional<CmpOp> op = getComparisonOp(tok(), peek(1))) {
    SMLoc opLoc = consume().getLoc();
    if (*op == CmpOp::IsNot || *op == CmpOp::NotIn)
      consume();
    Expr *rhs =
        parseOperand(&Parser::parseBitOr, "after '" + getSpelling(*op) + "'");
    if (!rhs)
      return nullptr;
    comparisons.push_back({*op, opLoc, rhs});
  }
  if (comparisons.empty())
    return lhs;
  return createExpr<CompareExpr>(lhs, copy<Comparison>(comparisons),
                                 rangeFrom(start));
}

/// The binary operator at `token` and its precedence level, from `|` (0,
/// loosest) to the multiplicative operators (5); all are left-associative.
/// (`**` is handled by parsePower.)
static std::optional<std::pair<BinaryOp, unsigned>>
getBinaryOperator(const Token &token) {
  switch (token.getKind()) {
  case TokenKind::pipe:
    return std::make_pair(BinaryOp::BitOr, 0u);
  case TokenKind::caret:
    return std::make_pair(BinaryOp::BitXor, 1u);
  case TokenKind::amp:
    return std::make_pair(BinaryOp::BitAnd, 2u);
  case TokenKind::less_less:
    return std::make_pair(BinaryOp::LShift, 3u);
  case TokenKind::greater_greater:
    return std::make_pair(BinaryOp::RShift, 3u);
  case TokenKind::plus:
    return std::make_pair(BinaryOp::Add, 4u);
  case TokenKind::minus:
    return std::make_pair(BinaryOp::Sub, 4u);
  case TokenKind::star:
    return std::make_pair(BinaryOp::Mul, 5u);
  case TokenKind::slash:
    return std::make_pair(BinaryOp::Div, 5u);
  case TokenKind::slash_slash:
    return std::make_pair(BinaryOp::FloorDiv, 5u);
  case TokenKind::percent:
    return std::make_pair(BinaryOp::Mod, 5u);
  case TokenKind::at:
    return std::make_pair(BinaryOp::MatMul, 5u);
  default:
    return std::nullopt;
  }
}

Expr *Parser::parseBinary(unsigned minLevel) {
  // Precedence climbing: one frame per operator actually present rather than
  // one per precedence level, which keeps deep nesting cheap on the stack.
  SMLoc start = tok().getLoc();
  Expr *lhs = parseFactor();
  while (lhs) {
    std::optional<std::pair<BinaryOp, unsigned>> op = getBinaryOperator(tok());
    if (!op || op->second < minLevel)
      break;
    SMLoc opLoc = consume().getLoc();
    if (!canStartExpression(tok())) {
      emitExpected("expression after '" + getSpelling(op->first) + "'");
      return nullptr;
    }
    Expr *rhs = parseBinary(op->second + 1);
    if (!rhs)
      return nullptr;
    lhs = createExpr<BinaryExpr>(op->first, lhs, rhs, opLoc, rangeFrom(start));
  }
  return lhs;
}

Expr *Parser::parseFactor() {
  UnaryOp op;
  switch (tok().getKind()) {
  case TokenKind::plus:
    op = UnaryOp::Plus;
    break;
  case TokenKind::minus:
    op = UnaryOp::Minus;
    break;
  case TokenKind::tilde:
    op = UnaryOp::Invert;
    break;
  default:
    return parsePower();
  }
  SMLoc start = consume().getLoc();
  NestingGuard guard(*this, start);
  if (!guard)
    return nullptr;
  Expr *operand = parseOperand(&Parser::parseFactor,
                               "after unary '" + getSpelling(op) + "'");
  if (!operand)
    return nullptr;
  return createExpr<UnaryExpr>(op, operand, rangeFrom(start));
}

Expr *Parser::parsePower() {
  SMLoc start = tok().getLoc();
  Expr *base = parseAwaitPrimary();
  if (!base || tok().isNot(TokenKind::star_star))
    return base;
  SMLoc opLoc = consume().getLoc();
  NestingGuard guard(*this, opLoc);
  if (!guard)
    return nullptr;
  // Right-associative, and the exponent may carry a unary operator.
  Expr *exponent = parseOperand(&Parser::parseFactor, "after '**'");
  if (!exponent)
    return nullptr;
  return createExpr<BinaryExpr>(BinaryOp::Pow, base, exponent, opLoc,
                                rangeFrom(start));
}

Expr *Parser::parseAwaitPrimary() {
  if (tok().isNot(TokenKind::kw_await))
    return parsePrimary();
  SMLoc start = consume().getLoc();
  Expr *operand = parseOperand(&Parser::parsePrimary, "after 'await'");
  if (!operand)
    return nullptr;
  return createExpr<UnsupportedExpr>("await", operand, rangeFrom(start));
}

//===----------------------------------------------------------------------===//
// Primaries
//===----------------------------------------------------------------------===//

Expr *Parser::parsePrimary() {
  SMLoc start = tok().getLoc();
  Expr *expr = parseAtom();
  while (expr) {
    switch (tok().getKind()) {
    case TokenKind::period: {
      SMLoc dotLoc = consume().getLoc();
      if (tok().isNot(TokenKind::identifier)) {
        emitExpected("attribute name after '.'");
        return nullptr;
      }
      Token name = consume();
      expr = createExpr<AttributeExpr>(expr, name.getSpelling(), dotLoc,
                                       name.getLoc(), rangeFrom(start));
      break;
    }
    case TokenKind::l_paren:
      expr = parseCallSuffix(expr, start);
      break;
    case TokenKind::l_square:
      expr = parseSubscriptSuffix(expr, start);
      break;
    default:
      return expr;
    }
  }
  return nullptr;
}

Expr *Parser::parseCallSuffix(Expr *callee, SMLoc start) {
  SMLoc lParenLoc = consume().getLoc();
  llvm::SmallVector<Argument, 4> args;
  llvm::StringSet<> keywords;
  bool sawKeyword = false, sawDoubleStar = false;

  while (tok().isNot(TokenKind::r_paren)) {
    SMLoc argLoc = tok().getLoc();
    if (tok().is(TokenKind::star)) {
      consume();
      Expr *value = parseOperand(&Parser::parseExpression, "after '*'");
      if (!value)
        return nullptr;
      if (sawDoubleStar)
        emitError(argLoc, "iterable argument unpacking follows keyword "
                          "argument unpacking");
      args.push_back({ArgKind::Star, StringRef(), argLoc, value});
    } else if (tok().is(TokenKind::star_star)) {
      consume();
      Expr *value = parseOperand(&Parser::parseExpression, "after '**'");
      if (!value)
        return nullptr;
      sawDoubleStar = true;
      args.push_back({ArgKind::DoubleStar, StringRef(), argLoc, value});
    } else if (tok().is(TokenKind::identifier) &&
               peek(1).is(TokenKind::equal)) {
      StringRef keyword = consume().getSpelling();
      consume();
      Expr *value =
          parseOperand(&Parser::parseExpression, "after '" + keyword + "='");
      if (!value)
        return nullptr;
      if (!keywords.insert(keyword).second)
        emitError(argLoc, "keyword argument repeated: " + keyword);
      sawKeyword = true;
      args.push_back({ArgKind::Keyword, keyword, argLoc, value});
    } else {
      if (!canStartExpression(tok())) {
        emitExpected("argument or ')'");
        return nullptr;
      }
      Expr *value = parseNamedExpression();
      if (!value)
        return nullptr;
      if (tok().isAny(TokenKind::kw_for, TokenKind::kw_async)) {
        value = finishComprehension(ComprehensionKind::Generator, value,
                                    nullptr, argLoc);
        if (!value)
          return nullptr;
        if (!args.empty() || tok().isNot(TokenKind::r_paren)) {
          emitError(argLoc, "generator expression must be parenthesized");
          return nullptr;
        }
      } else if (tok().is(TokenKind::equal)) {
        emitError(value->getLoc(), "expression cannot contain assignment, "
                                   "perhaps you meant \"==\"?");
        return nullptr;
      }
      if (sawDoubleStar)
        emitError(argLoc, "positional argument follows keyword argument "
                          "unpacking");
      else if (sawKeyword)
        emitError(argLoc, "positional argument follows keyword argument");
      args.push_back({ArgKind::Positional, StringRef(), argLoc, value});
    }
    if (consumeIf(TokenKind::comma))
      continue;
    if (tok().isNot(TokenKind::r_paren)) {
      emitExpected("',' or ')' after argument");
      return nullptr;
    }
  }
  consume(); // ')'
  return createExpr<CallExpr>(callee, copy<Argument>(args), lParenLoc,
                              rangeFrom(start));
}

Expr *Parser::parseSubscriptSuffix(Expr *base, SMLoc start) {
  SMLoc lSquareLoc = consume().getLoc();
  Expr *index = parseSlices();
  if (!index)
    return nullptr;
  if (!expect(TokenKind::r_square, "',' or ']' in subscript"))
    return nullptr;
  return createExpr<SubscriptExpr>(base, index, lSquareLoc, rangeFrom(start));
}

Expr *Parser::parseSlices() {
  SMLoc start = tok().getLoc();
  Expr *first = parseSlice();
  if (!first || tok().isNot(TokenKind::comma))
    return first;
  llvm::SmallVector<Expr *> elements{first};
  while (consumeIf(TokenKind::comma)) {
    if (tok().is(TokenKind::r_square))
      break;
    Expr *element = parseSlice();
    if (!element)
      return nullptr;
    elements.push_back(element);
  }
  return createExpr<TupleExpr>(copy<Expr *>(elements), /*parenthesized=*/false,
                               rangeFrom(start));
}

Expr *Parser::parseSlice() {
  SMLoc start = tok().getLoc();
  Expr *lower = nullptr;
  if (tok().isNot(TokenKind::colon)) {
    if (tok().is(TokenKind::star))
      return parseStarExpression();
    if (!canStartExpression(tok())) {
      emitExpected("index or slice");
      return nullptr;
    }
    lower = parseNamedExpression();
    if (!lower || tok().isNot(TokenKind::colon))
      return lower;
  }
  consume(); // ':'
  Expr *upper = nullptr, *step = nullptr;
  if (canStartExpression(tok()) && !(upper = parseExpression()))
    return nullptr;
  if (consumeIf(TokenKind::colon) && canStartExpression(tok()) &&
      !(step = parseExpression()))
    return nullptr;
  return createExpr<SliceExpr>(lower, upper, step, rangeFrom(start));
}

//===----------------------------------------------------------------------===//
// Atoms
//===----------------------------------------------------------------------===//

Expr *Parser::parseAtom() {
  const Token &token = tok();
  switch (token.getKind()) {
  case TokenKind::identifier: {
    Token name = consume();
    return createExpr<NameExpr>(name.getSpelling(), name.getRange());
  }
  case TokenKind::integer: {
    Token number = consume();
    return createExpr<IntegerLiteral>(
        number.getSpelling(), getIntegerLiteralValue(number.getSpelling()),
        number.getRange());
  }
  case TokenKind::floating: {
    Token number = consume();
    return createExpr<FloatLiteral>(number.getSpelling(),
                                    getFloatLiteralValue(number.getSpelling()),
                                    number.getRange());
  }
  case TokenKind::imaginary: {
    Token number = consume();
    return createExpr<ImaginaryLiteral>(
        number.getSpelling(), getFloatLiteralValue(number.getSpelling()),
        number.getRange());
  }
  case TokenKind::string:
    return parseStrings();
  case TokenKind::kw_True:
  case TokenKind::kw_False: {
    Token keyword = consume();
    return createExpr<BoolLiteral>(keyword.is(TokenKind::kw_True),
                                   keyword.getRange());
  }
  case TokenKind::kw_None:
    return createExpr<NoneLiteral>(consume().getRange());
  case TokenKind::ellipsis:
    return createExpr<EllipsisLiteral>(consume().getRange());
  case TokenKind::l_paren:
    return parseParenthesized();
  case TokenKind::l_square:
    return parseListDisplay();
  case TokenKind::l_brace:
    return parseBraceDisplay();
  default:
    emitExpected("expression");
    return nullptr;
  }
}

Expr *Parser::parseStrings() {
  SMLoc start = tok().getLoc();
  std::string value;
  bool isBytes = false, isFormat = false, ok = true;
  bool first = true;
  llvm::SmallVector<FStringPart> parts;
  while (tok().is(TokenKind::string)) {
    Token piece = consume();
    StringLiteralParts pieceParts = getStringLiteralParts(piece.getSpelling());
    if (!first && pieceParts.isBytes != isBytes)
      emitError(piece.getLoc(), "cannot mix bytes and nonbytes literals");
    isBytes = first ? pieceParts.isBytes : isBytes;
    first = false;
    if (!pieceParts.isFormat) {
      std::string decoded = decodeStringLiteral(piece.getSpelling());
      value += decoded;
      addFStringLiteral(parts, decoded, piece.getRange());
      continue;
    }
    isFormat = true;
    size_t end;
    if (!parseFStringBody(pieceParts.body, 0, pieceParts.isRaw,
                          /*inSpec=*/false, parts, end))
      ok = false;
  }
  if (!isFormat)
    return createExpr<StringLiteral>(ctx.copyString(value), isBytes,
                                     /*isFormat=*/false, rangeFrom(start));
  if (!ok)
    return nullptr;
  return createExpr<FStringExpr>(copy<FStringPart>(parts), rangeFrom(start));
}

void Parser::addFStringLiteral(llvm::SmallVectorImpl<FStringPart> &parts,
                               StringRef text, llvm::SMRange range) {
  if (text.empty())
    return;
  if (!parts.empty() && !parts.back().isField()) {
    FStringPart &last = parts.back();
    last.text = ctx.copyString((last.text + text).str());
    last.range.End = range.End;
    return;
  }
  FStringPart part;
  part.text = ctx.copyString(text);
  part.range = range;
  parts.push_back(part);
}

bool Parser::parseFStringBody(StringRef body, size_t begin, bool isRaw,
                              bool inSpec,
                              llvm::SmallVectorImpl<FStringPart> &parts,
                              size_t &end) {
  auto at = [&](size_t offset) {
    return SMLoc::getFromPointer(body.data() + offset);
  };
  // Literal characters not decoded yet, from offset `rawBegin`.
  std::string raw;
  size_t rawBegin = begin;
  auto flush = [&](size_t offset) {
    if (!raw.empty())
      addFStringLiteral(parts, decodeStringBody(raw, isRaw, /*isBytes=*/false),
                        {at(rawBegin), at(offset)});
    raw.clear();
    rawBegin = offset;
  };
  size_t i = begin;
  while (i < body.size()) {
    char c = body[i];
    if (c == '\\' && !isRaw && i + 1 < body.size()) {
      // `\N{name}` is a named escape, not a replacement field.
      if (body[i + 1] == 'N' && i + 2 < body.size() && body[i + 2] == '{') {
        size_t close = body.find('}', i + 3);
        if (close != StringRef::npos) {
          raw += body.slice(i, close + 1);
          i = close + 1;
          continue;
        }
      }
      raw += body.substr(i, 2);
      i += 2;
      continue;
    }
    if (c == '{') {
      if (!inSpec && i + 1 < body.size() && body[i + 1] == '{') {
        raw += '{';
        i += 2;
        continue;
      }
      flush(i);
      FStringPart part;
      size_t fieldEnd;
      if (!parseFStringField(body, i, isRaw, part, fieldEnd))
        return false;
      parts.push_back(part);
      i = fieldEnd;
      rawBegin = i;
      continue;
    }
    if (c == '}') {
      if (inSpec) {
        flush(i);
        end = i;
        return true;
      }
      if (i + 1 < body.size() && body[i + 1] == '}') {
        raw += '}';
        i += 2;
        continue;
      }
      emitError(at(i), "f-string: single '}' is not allowed");
      return false;
    }
    raw += c;
    ++i;
  }
  if (inSpec) {
    emitError(at(body.size()), "f-string: expecting '}'");
    return false;
  }
  flush(body.size());
  end = body.size();
  return true;
}

bool Parser::parseFStringField(StringRef body, size_t open, bool isRaw,
                               FStringPart &part, size_t &end) {
  auto at = [&](size_t offset) {
    return SMLoc::getFromPointer(body.data() + offset);
  };
  // The expression ends at a top-level `}`, `!` (not `!=`), `:` or `=` (not
  // part of `==`, `!=`, `<=`, `>=`).
  size_t i = open + 1;
  unsigned depth = 0;
  while (i < body.size()) {
    char c = body[i];
    if (c == '\'' || c == '"') {
      bool triple = i + 2 < body.size() && body[i + 1] == c && body[i + 2] == c;
      i += triple ? 3 : 1;
      while (i < body.size()) {
        if (body[i] == '\\') {
          i += 2;
          continue;
        }
        if (body[i] == c &&
            (!triple || (i + 2 < body.size() && body[i + 1] == c &&
                         body[i + 2] == c))) {
          i += triple ? 3 : 1;
          break;
        }
        ++i;
      }
      continue;
    }
    bool nextIsEqual = i + 1 < body.size() && body[i + 1] == '=';
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']') {
      if (depth)
        --depth;
    } else if (c == '}') {
      if (depth == 0)
        break;
      --depth;
    } else if (depth == 0) {
      if ((c == '!' && !nextIsEqual) || c == ':')
        break;
      if (c == '=' && !nextIsEqual &&
          !(i > open + 1 && StringRef("=!<>").contains(body[i - 1])))
        break;
    }
    ++i;
  }
  if (i >= body.size()) {
    emitError(at(open), "f-string: expecting '}'");
    return false;
  }
  StringRef exprText = body.slice(open + 1, i);
  if (exprText.trim().empty()) {
    emitError(at(i), llvm::Twine("f-string: valid expression required "
                                 "before '") +
                         llvm::Twine(body[i]) + "'");
    return false;
  }
  Expr *expr = parseFStringExpression(exprText);
  if (!expr)
    return false;
  part.expr = expr;

  if (body[i] == '=') {
    ++i;
    while (i < body.size() && llvm::isSpace(body[i]))
      ++i;
    part.selfDocText = body.slice(open + 1, i);
  }
  if (i < body.size() && body[i] == '!') {
    char conversion = i + 1 < body.size() ? body[i + 1] : '}';
    if (conversion == '}' || conversion == ':') {
      emitError(at(i + 1), "f-string: missing conversion character");
      return false;
    }
    if (conversion != 'r' && conversion != 's' && conversion != 'a') {
      emitError(at(i + 1), llvm::Twine("f-string: invalid conversion "
                                       "character '") +
                               llvm::Twine(conversion) +
                               "': expected 's', 'r', or 'a'");
      return false;
    }
    part.conversion = conversion;
    i += 2;
  }
  if (i < body.size() && body[i] == ':') {
    llvm::SmallVector<FStringPart> specParts;
    size_t specEnd;
    if (!parseFStringBody(body, i + 1, isRaw, /*inSpec=*/true, specParts,
                          specEnd))
      return false;
    part.formatSpec = createExpr<FStringExpr>(copy<FStringPart>(specParts),
                                              llvm::SMRange(at(i + 1),
                                                            at(specEnd)));
    if (!part.formatSpec)
      return false;
    i = specEnd;
  }
  if (i >= body.size() || body[i] != '}') {
    emitError(at(i), "f-string: expecting '}'");
    return false;
  }
  part.range = {at(open), at(i + 1)};
  end = i + 1;
  return true;
}

Expr *Parser::parseFStringExpression(StringRef text) {
  SMLoc loc = SMLoc::getFromPointer(text.data());
  NestingGuard guard(*this, loc);
  if (!guard)
    return nullptr;
  Parser sub(srcMgr, bufferId, diags, ctx, text);
  sub.nestingDepth = nestingDepth;
  sub.muteDepth = muteDepth;
  sub.inFStringField = true;
  Expr *expr =
      sub.tok().is(TokenKind::kw_yield)
          ? sub.parseYieldExpr()
          : sub.parseOperand(&Parser::parseStarExpressions,
                             "in f-string replacement field");
  if (expr && sub.tok().isNot(TokenKind::eof)) {
    sub.emitExpected("'}' after the f-string expression");
    expr = nullptr;
  }
  if (sub.mutedError)
    mutedError = true;
  return expr;
}

Expr *Parser::parseParenthesized() {
  SMLoc start = consume().getLoc(); // '('
  if (consumeIf(TokenKind::r_paren))
    return createExpr<TupleExpr>(llvm::ArrayRef<Expr *>(),
                                 /*parenthesized=*/true, rangeFrom(start));
  if (tok().is(TokenKind::kw_yield)) {
    Expr *yield = parseYieldExpr();
    if (!yield || !expect(TokenKind::r_paren, "')' after yield expression"))
      return nullptr;
    return yield;
  }

  Expr *first = parseStarNamedExpression();
  if (!first)
    return nullptr;
  if (tok().isAny(TokenKind::kw_for, TokenKind::kw_async)) {
    Expr *genexp = finishComprehension(ComprehensionKind::Generator, first,
                                       nullptr, start);
    if (!genexp ||
        !expect(TokenKind::r_paren, "')' after generator expression"))
      return nullptr;
    return genexp;
  }
  if (consumeIf(TokenKind::r_paren)) {
    if (llvm::isa<StarredExpr>(first)) {
      emitError(first->getLoc(), "cannot use starred expression here");
      return nullptr;
    }
    // A parenthesized expression: the parentheses only group.
    return first;
  }

  llvm::SmallVector<Expr *> elements{first};
  while (consumeIf(TokenKind::comma)) {
    if (tok().is(TokenKind::r_paren))
      break;
    Expr *element = parseStarNamedExpression();
    if (!element)
      return nullptr;
    elements.push_back(element);
  }
  if (!expect(TokenKind::r_paren, "',' or ')'"))
    return nullptr;
  return createExpr<TupleExpr>(copy<Expr *>(elements), /*parenthesized=*/true,
                               rangeFrom(start));
}

Expr *Parser::parseListDisplay() {
  SMLoc start = consume().getLoc(); // '['
  if (consumeIf(TokenKind::r_square))
    return createExpr<ListExpr>(llvm::ArrayRef<Expr *>(), rangeFrom(start));
  Expr *first = parseStarNamedExpression();
  if (!first)
    return nullptr;
  if (tok().isAny(TokenKind::kw_for, TokenKind::kw_async)) {
    Expr *comp =
        finishComprehension(ComprehensionKind::List, first, nullptr, start);
    if (!comp || !expect(TokenKind::r_square, "']' after list comprehension"))
      return nullptr;
    return comp;
  }
  llvm::SmallVector<Expr *> elements{first};
  while (consumeIf(TokenKind::comma)) {
    if (tok().is(TokenKind::r_square))
      break;
    Expr *element = parseStarNamedExpression();
    if (!element)
      return nullptr;
    elements.push_back(element);
  }
  if (!expect(TokenKind::r_square, "',' or ']' in list"))
    return nullptr;
  return createExpr<ListExpr>(copy<Expr *>(elements), rangeFrom(start));
}

Expr *Parser::parseBraceDisplay() {
  SMLoc start = consume().getLoc(); // '{'
  if (consumeIf(TokenKind::r_brace))
    return createExpr<DictExpr>(llvm::ArrayRef<DictEntry>(), rangeFrom(start));

  // A dict if the first entry is `key: value` or `**mapping`.
  Expr *first = nullptr;
  if (tok().isNot(TokenKind::star_star)) {
    first = parseStarNamedExpression();
    if (!first)
      return nullptr;
  }
  if (!first || tok().is(TokenKind::colon)) {
    llvm::SmallVector<DictEntry> entries;
    auto parseEntry = [&](Expr *key) -> bool {
      if (!key) {
        if (!expect(TokenKind::star_star, "'**' or dictionary key"))
          return false;
        Expr *mapping = parseOperand(&Parser::parseBitOr, "after '**'");
        if (!mapping)
          return false;
        entries.push_back({nullptr, mapping});
        return true;
      }
      if (llvm::isa<StarredExpr>(key)) {
        emitError(key->getLoc(), "cannot use a starred expression in a "
                                 "dictionary key");
        return false;
      }
      if (!expect(TokenKind::colon, "':' after dictionary key"))
        return false;
      Expr *value =
          parseOperand(&Parser::parseExpression, "after ':' in dictionary");
      if (!value)
        return false;
      entries.push_back({key, value});
      return true;
    };
    if (!parseEntry(first))
      return nullptr;
    if (first && tok().isAny(TokenKind::kw_for, TokenKind::kw_async)) {
      Expr *comp = finishComprehension(ComprehensionKind::Dict, entries[0].key,
                                       entries[0].value, start);
      if (!comp || !expect(TokenKind::r_brace, "'}' after dict comprehension"))
        return nullptr;
      return comp;
    }
    while (consumeIf(TokenKind::comma)) {
      if (tok().is(TokenKind::r_brace))
        break;
      Expr *key = nullptr;
      if (tok().isNot(TokenKind::star_star)) {
        key = parseOperand(&Parser::parseExpression, "as dictionary key");
        if (!key)
          return nullptr;
      }
      if (!parseEntry(key))
        return nullptr;
    }
    if (!expect(TokenKind::r_brace, "',' or '}' in dictionary"))
      return nullptr;
    return createExpr<DictExpr>(copy<DictEntry>(entries), rangeFrom(start));
  }

  if (tok().isAny(TokenKind::kw_for, TokenKind::kw_async)) {
    Expr *comp =
        finishComprehension(ComprehensionKind::Set, first, nullptr, start);
    if (!comp || !expect(TokenKind::r_brace, "'}' after set comprehension"))
      return nullptr;
    return comp;
  }
  llvm::SmallVector<Expr *> elements{first};
  while (consumeIf(TokenKind::comma)) {
    if (tok().is(TokenKind::r_brace))
      break;
    Expr *element = parseStarNamedExpression();
    if (!element)
      return nullptr;
    elements.push_back(element);
  }
  if (!expect(TokenKind::r_brace, "',' or '}' in set"))
    return nullptr;
  return createExpr<SetExpr>(copy<Expr *>(elements), rangeFrom(start));
}

//===----------------------------------------------------------------------===//
// Comprehensions, lambdas, yield, targets
//===----------------------------------------------------------------------===//

Expr *Parser::finishComprehension(ComprehensionKind kind, Expr *element,
                                  Expr *value, SMLoc start) {
  if (llvm::isa<StarredExpr>(element)) {
    emitError(element->getLoc(),
              "iterable unpacking cannot be used in comprehension");
    return nullptr;
  }
  llvm::SmallVector<ComprehensionFor, 1> clauses;
  if (!parseComprehensionClauses(clauses))
    return nullptr;
  return createExpr<ComprehensionExpr>(
      kind, element, value, copy<ComprehensionFor>(clauses), rangeFrom(start));
}

bool Parser::parseComprehensionClauses(
    llvm::SmallVectorImpl<ComprehensionFor> &clauses) {
  while (tok().is(TokenKind::kw_for) ||
         (tok().is(TokenKind::kw_async) && peek(1).is(TokenKind::kw_for))) {
    SMLoc loc = tok().getLoc();
    bool isAsync = consumeIf(TokenKind::kw_async);
    consume(); // 'for'
    if (!canStartExpression(tok()) && tok().isNot(TokenKind::star)) {
      emitExpected("target after 'for'");
      return false;
    }
    Expr *target = parseTargetList();
    if (!target || !checkAssignTarget(target))
      return false;
    if (!expect(TokenKind::kw_in, "'in' after comprehension target"))
      return false;
    Expr *iter = parseOperand(&Parser::parseDisjunction, "after 'in'");
    if (!iter)
      return false;
    llvm::SmallVector<Expr *, 1> conditions;
    while (consumeIf(TokenKind::kw_if)) {
      Expr *condition = parseOperand(&Parser::parseDisjunction, "after 'if'");
      if (!condition)
        return false;
      conditions.push_back(condition);
    }
    clauses.push_back({target, iter, copy<Expr *>(conditions), isAsync, loc});
  }
  return true;
}

Expr *Parser::parseTargetList() {
  SMLoc start = tok().getLoc();
  Expr *first = parseStarTarget();
  if (!first || tok().isNot(TokenKind::comma))
    return first;
  llvm::SmallVector<Expr *> elements{first};
  while (consumeIf(TokenKind::comma)) {
    if (!canStartExpression(tok()) && tok().isNot(TokenKind::star))
      break;
    Expr *element = parseStarTarget();
    if (!element)
      return nullptr;
    elements.push_back(element);
  }
  return createExpr<TupleExpr>(copy<Expr *>(elements), /*parenthesized=*/false,
                               rangeFrom(start));
}

Expr *Parser::parseStarTarget() {
  if (tok().isNot(TokenKind::star))
    return parseOperand(&Parser::parseBitOr, "as target");
  SMLoc start = consume().getLoc();
  Expr *value = parseOperand(&Parser::parseBitOr, "after '*'");
  if (!value)
    return nullptr;
  return createExpr<StarredExpr>(value, rangeFrom(start));
}

Expr *Parser::parseLambda() {
  SMLoc start = consume().getLoc(); // 'lambda'
  // `lambda = 3`, `x.lambda`: the keyword used as a name.
  if (tok().isAny(TokenKind::equal, TokenKind::plus_equal, TokenKind::period)) {
    emitError(start, "'lambda' is a Python keyword and cannot be used as a "
                     "name");
    return nullptr;
  }
  llvm::SmallVector<Parameter *> params;
  if (!parseParameters(TokenKind::colon, /*allowAnnotations=*/false, params))
    return nullptr;
  if (!expect(TokenKind::colon, "':' after lambda parameters"))
    return nullptr;
  Expr *body = parseOperand(&Parser::parseExpression, "as lambda body");
  if (!body)
    return nullptr;
  return createExpr<LambdaExpr>(copy<Parameter *>(params), body,
                                rangeFrom(start));
}

Expr *Parser::parseYieldExpr() {
  SMLoc start = consume().getLoc(); // 'yield'
  if (consumeIf(TokenKind::kw_from)) {
    Expr *operand =
        parseOperand(&Parser::parseExpression, "after 'yield from'");
    if (!operand)
      return nullptr;
    return createExpr<UnsupportedExpr>("yield from", operand, rangeFrom(start));
  }
  Expr *operand = nullptr;
  if (canStartExpression(tok()) || tok().is(TokenKind::star)) {
    operand = parseStarExpressions();
    if (!operand)
      return nullptr;
  }
  return createExpr<UnsupportedExpr>("yield", operand, rangeFrom(start));
}

bool Parser::parseParameters(TokenKind closer, bool allowAnnotations,
                             llvm::SmallVectorImpl<Parameter *> &params) {
  struct ParamInfo {
    StringRef name;
    ParamKind kind;
    Expr *annotation;
    Expr *defaultValue;
    llvm::SMRange range;
  };
  llvm::SmallVector<ParamInfo, 8> infos;
  llvm::StringSet<> names;
  bool sawSlash = false, sawStar = false, sawDefault = false;
  bool sawVarKeyword = false;
  SMLoc bareStarLoc;
  StringRef closerSpelling = getTokenSpelling(closer);

  auto parseAnnotation = [&](Expr *&annotation) {
    annotation = nullptr;
    if (!allowAnnotations || tok().isNot(TokenKind::colon))
      return true;
    consume();
    annotation =
        parseOperand(&Parser::parseExpression, "as parameter annotation");
    return annotation != nullptr;
  };

  while (tok().isNot(closer)) {
    SMLoc start = tok().getLoc();
    if (sawVarKeyword) {
      emitError(start, "arguments cannot follow var-keyword argument");
      return false;
    }
    if (tok().is(TokenKind::slash)) {
      if (infos.empty()) {
        emitError(start, "at least one argument must precede /");
        return false;
      }
      if (sawSlash) {
        emitError(start, "/ may appear only once");
        return false;
      }
      if (sawStar) {
        emitError(start, "/ must be ahead of *");
        return false;
      }
      consume();
      sawSlash = true;
      for (ParamInfo &info : infos)
        info.kind = ParamKind::PositionalOnly;
    } else if (tok().is(TokenKind::star)) {
      consume();
      if (sawStar) {
        emitError(start, "* argument may appear only once");
        return false;
      }
      sawStar = true;
      if (tok().is(TokenKind::identifier)) {
        Token name = consume();
        Expr *annotation;
        if (!parseAnnotation(annotation))
          return false;
        if (tok().is(TokenKind::equal)) {
          emitError(tok().getLoc(),
                    "var-positional argument cannot have default value");
          return false;
        }
        infos.push_back({name.getSpelling(), ParamKind::VarPositional,
                         annotation, nullptr, rangeFrom(start)});
      } else {
        bareStarLoc = start;
      }
    } else if (tok().is(TokenKind::star_star)) {
      consume();
      if (tok().isNot(TokenKind::identifier)) {
        emitExpected("parameter name after '**'");
        return false;
      }
      Token name = consume();
      Expr *annotation;
      if (!parseAnnotation(annotation))
        return false;
      if (tok().is(TokenKind::equal)) {
        emitError(tok().getLoc(),
                  "var-keyword argument cannot have default value");
        return false;
      }
      sawVarKeyword = true;
      infos.push_back({name.getSpelling(), ParamKind::VarKeyword, annotation,
                       nullptr, rangeFrom(start)});
    } else if (tok().is(TokenKind::identifier)) {
      Token name = consume();
      Expr *annotation;
      if (!parseAnnotation(annotation))
        return false;
      Expr *defaultValue = nullptr;
      if (consumeIf(TokenKind::equal)) {
        defaultValue =
            parseOperand(&Parser::parseExpression, "as default value");
        if (!defaultValue)
          return false;
      }
      if (!sawStar) {
        if (defaultValue)
          sawDefault = true;
        else if (sawDefault)
          emitError(start, "parameter without a default follows parameter "
                           "with a default");
      }
      bareStarLoc = SMLoc();
      infos.push_back({name.getSpelling(),
                       sawStar ? ParamKind::KeywordOnly : ParamKind::Normal,
                       annotation, defaultValue, rangeFrom(start)});
    } else {
      emitExpected("parameter name");
      return false;
    }

    if (!infos.empty() && infos.back().range.Start == start &&
        !names.insert(infos.back().name).second)
      emitError(start, "duplicate argument '" + infos.back().name +
                           "' in function definition");

    if (consumeIf(TokenKind::comma))
      continue;
    if (tok().isNot(closer)) {
      emitExpected("',' or '" + closerSpelling + "' after parameter");
      return false;
    }
  }
  if (bareStarLoc.isValid()) {
    emitError(bareStarLoc, "named arguments must follow bare *");
    return false;
  }
  for (const ParamInfo &info : infos)
    params.push_back(ctx.create<Parameter>(
        info.name, info.kind, info.annotation, info.defaultValue, info.range));
  return true;
}
