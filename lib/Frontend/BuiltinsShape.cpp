//===- BuiltinsShape.cpp - Shapes, join, split, flip
//------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <cstdint>

using namespace tilec;
using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;
using mlir::failure;
using mlir::FailureOr;
using mlir::LogicalResult;
using mlir::success;
namespace arith = mlir::arith;
namespace math = mlir::math;

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

static FailureOr<CGValue> builtinReshape(CodeGen &cg, Args &a) {
  const CallArgs &call = a.call;
  const CGValue &input = a.value(0);
  FailureOr<llvm::SmallVector<int64_t>> shape = a.getVarargInts("the shape");
  if (failed(shape))
    return failure();
  if (failed(checkShape(cg, *shape, call.loc, call.calleeName + "()")))
    return failure();
  int64_t from = 1, to = 1;
  for (int64_t d : input.getShape())
    from *= d;
  for (int64_t d : *shape)
    to *= d;
  if (from != to)
    return cg.error(call.loc, "cannot reshape " + input.describe() + " (" +
                                  std::to_string(from) + " elements) to " +
                                  shapeToString(*shape) + " (" +
                                  std::to_string(to) + " elements)");
  if (shape->empty()) {
    if (!input.isTile())
      return input;
    return cg.error(call.loc, "reshaping a tile to a scalar is not supported");
  }
  return cg.reshape(input, *shape, a.flag(1));
}

/// tl.trans(x, *dims) and tl.permute(x, dims) (`requireDims`).
static FailureOr<CGValue> transLike(CodeGen &cg, Args &a, bool requireDims) {
  const CallArgs &call = a.call;
  const CGValue &input = a.value(0);
  FailureOr<llvm::SmallVector<int64_t>> dims = a.getVarargInts("the dims");
  if (failed(dims))
    return failure();
  llvm::SmallVector<int64_t> shape = input.getShape();
  int64_t rank = static_cast<int64_t>(shape.size());
  if (dims->empty()) {
    if (requireDims)
      return cg.error(call.loc, call.calleeName + "() needs the permutation "
                                                  "of the dimensions");
    if (rank != 2)
      return cg.error(call.loc, call.calleeName +
                                    "() without dims needs a 2-d tile, got " +
                                    input.describe());
    *dims = {1, 0};
  }
  if (static_cast<int64_t>(dims->size()) != rank)
    return cg.error(call.loc, call.calleeName +
                                  "(): " + std::to_string(dims->size()) +
                                  " dims given for " + input.describe());
  llvm::SmallVector<int64_t> sorted(*dims);
  llvm::sort(sorted);
  for (int64_t i = 0; i < rank; ++i)
    if (sorted[i] != i)
      return cg.error(call.loc, call.calleeName +
                                    "(): the dims must be a permutation of "
                                    "0.." +
                                    std::to_string(rank - 1));
  llvm::SmallVector<int64_t> outShape;
  llvm::SmallVector<int32_t> order;
  for (int64_t d : *dims) {
    outShape.push_back(shape[d]);
    order.push_back(static_cast<int32_t>(d));
  }
  bool identity = llvm::all_of(llvm::seq<int64_t>(0, rank),
                               [&](int64_t i) { return (*dims)[i] == i; });
  if (identity)
    return input;
  mlir::Value v = tile::TransOp::create(cg.builder, cg.loc(),
                                        cg.getType(input.getDType(), outShape),
                                        input.getValue(), order);
  return CGValue::runtime(v, input.getDType());
}

static FailureOr<CGValue> builtinExpandDims(CodeGen &cg, Args &a) {
  const CGValue &input = a.value(0);
  llvm::ArrayRef<int64_t> axes = a.ints(1);
  int64_t newRank = static_cast<int64_t>(input.getShape().size() + axes.size());
  llvm::SmallVector<int64_t> normalized;
  for (int64_t axis : axes) {
    int64_t ax = axis < 0 ? axis + newRank : axis;
    if (ax < 0 || ax >= newRank)
      return cg.error(a.loc(1), "axis " + std::to_string(axis) +
                                    " is out of range for the result of rank " +
                                    std::to_string(newRank));
    if (llvm::is_contained(normalized, ax))
      return cg.error(a.loc(1),
                      "axis " + std::to_string(axis) + " is given twice");
    normalized.push_back(ax);
  }
  llvm::sort(normalized);
  CGValue result = input;
  for (int64_t ax : normalized)
    result = cg.expandDims(result, ax);
  return result;
}

static FailureOr<CGValue> builtinBroadcastTo(CodeGen &cg, Args &a) {
  const CallArgs &call = a.call;
  FailureOr<llvm::SmallVector<int64_t>> shape = a.getVarargInts("the shape");
  if (failed(shape))
    return failure();
  if (failed(checkShape(cg, *shape, call.loc, call.calleeName + "()")))
    return failure();
  return cg.broadcastTo(a.value(0), *shape, call.loc, "the input");
}

static FailureOr<CGValue> builtinBroadcast(CodeGen &cg, Args &a) {
  CGValue l = a.value(0), r = a.value(1);
  if (failed(cg.broadcastPair(l, r, a.call.loc, a.loc(0), a.loc(1))))
    return failure();
  return CGValue::tuple({l, r});
}

static FailureOr<CGValue> builtinAssume(CodeGen &cg, Args &a) {
  const CGValue &cond = a.value(0);
  if (cond.isConstexpr() && !cond.isTruthy())
    return cg.error(a.loc(0), "tl.assume() of a condition that is false at "
                              "compile time");
  if (cond.isRuntime() && (cond.isTile() || !cond.getDType().isBool()))
    return cg.error(a.loc(0), "tl.assume() needs a boolean scalar, got " +
                                  cond.describe());
  // A promise the analyses may rely on (tile.assume).
  if (cond.isRuntime())
    tile::AssumeOp::create(cg.builder, cg.loc(), cond.getValue());
  return CGValue::none();
}

/// tl.multiple_of, tl.max_contiguous, tl.max_constancy: as in Triton, one
/// positive compile-time integer per dimension (one for a scalar).
static FailureOr<CGValue> builtinHint(CodeGen &cg, Args &a) {
  const CGValue &input = a.value(0);
  llvm::ArrayRef<int64_t> values = a.ints(1);
  size_t rank = std::max<size_t>(1, input.getShape().size());
  if (values.size() != rank)
    return cg.error(
        a.loc(1), a.name(1) + " has " + std::to_string(values.size()) +
                      " values but the input " + input.describe() + " needs " +
                      std::to_string(rank) + " (one per dimension)");
  for (auto [i, v] : llvm::enumerate(values))
    if (v <= 0)
      return cg.error(a.loc(1), "value " + std::to_string(i) + " of " +
                                    a.name(1) + " must be positive, got " +
                                    std::to_string(v));
  // Alignment hints: checked, not used yet (the axis analysis infers).
  return input;
}

//===----------------------------------------------------------------------===//
// pow, join/split/interleave/cat, flip, scans
//===----------------------------------------------------------------------===//
//
// These are built from ops both backends already lower (element-wise
// arith/math, tile.make_range, tile.broadcast, tile.reshape, tile.reduce):
// no new tile op. join and cat select between two broadcast copies; split
// is a "flagged" reduction over its last axis of 2: out[..., k] picks the
// x[..., j] whose flag j == k is set; flip swaps pairs log2(N) times
// (O(numel log N); the scans are tile.scan).

FailureOr<CGValue> tilec::frontend::indexAlong(CodeGen &cg,
                                               llvm::ArrayRef<int64_t> shape,
                                               int64_t axis, SMLoc loc) {
  int64_t n = shape[axis];
  auto type = mlir::RankedTensorType::get({n}, cg.builder.getI32Type());
  mlir::Value r = tile::MakeRangeOp::create(cg.builder, cg.loc(), type,
                                            cg.builder.getI32IntegerAttr(0),
                                            cg.builder.getI32IntegerAttr(n));
  CGValue v = CGValue::runtime(r, DType::get(ScalarType::I32));
  if (shape.size() > 1) {
    llvm::SmallVector<int64_t> s(shape.size(), 1);
    s[axis] = n;
    v = cg.reshape(v, s, /*allowReorder=*/false);
  }
  return cg.broadcastTo(v, shape, loc, "index");
}

CGValue tilec::frontend::selectValues(CodeGen &cg, const CGValue &cond,
                                      const CGValue &a, const CGValue &b) {
  return CGValue::runtime(arith::SelectOp::create(cg.builder, cg.loc(),
                                                  cond.getValue(), a.getValue(),
                                                  b.getValue()),
                          a.getDType());
}

/// The two operands of join/cat: run-time values of one dtype and shape.
static LogicalResult joinOperands(CodeGen &cg, Args &a, CGValue &x, CGValue &y,
                                  StringRef what) {
  x = a.value(0);
  y = a.value(1);
  if (x.getDType() != y.getDType())
    return cg
        .error(a.call.loc, what.str() +
                               " needs two values of one "
                               "dtype, got " +
                               x.describe() + " and " + y.describe())
        .note(a.loc(0), "the first is " + x.describe())
        .note(a.loc(1), "the second is " + y.describe());
  return cg.broadcastPair(x, y, a.call.loc, a.loc(0), a.loc(1));
}

/// x and y stacked along a new axis `axis` of size 2 (x first).
static FailureOr<CGValue> stack(CodeGen &cg, const CGValue &x, const CGValue &y,
                                int64_t axis, SMLoc loc) {
  llvm::SmallVector<int64_t> shape(x.getShape());
  shape.insert(shape.begin() + axis, 2);
  if (failed(checkShape(cg, shape, loc, "the joined tile")))
    return failure();
  FailureOr<CGValue> ex =
      cg.broadcastTo(cg.expandDims(x, axis), shape, loc, "the first operand");
  FailureOr<CGValue> ey =
      cg.broadcastTo(cg.expandDims(y, axis), shape, loc, "the second operand");
  FailureOr<CGValue> index = indexAlong(cg, shape, axis, loc);
  if (failed(ex) || failed(ey) || failed(index))
    return failure();
  FailureOr<CGValue> first =
      cg.compareOp(CmpOp::Eq, *index, CGValue::integer(0), loc, loc, loc);
  if (failed(first))
    return failure();
  return selectValues(cg, *first, *ex, *ey);
}

/// tl.join(a, b): a new minor dimension of size 2, a at index 0.
static FailureOr<CGValue> builtinJoin(CodeGen &cg, Args &a) {
  CGValue x, y;
  if (failed(joinOperands(cg, a, x, y, "tl.join()")))
    return failure();
  return stack(cg, x, y, static_cast<int64_t>(x.getShape().size()), a.call.loc);
}

/// tl.interleave(a, b): join, then the last two dimensions merged.
static FailureOr<CGValue> builtinInterleave(CodeGen &cg, Args &a) {
  CGValue x, y;
  if (failed(joinOperands(cg, a, x, y, "tl.interleave()")))
    return failure();
  int64_t rank = static_cast<int64_t>(x.getShape().size());
  FailureOr<CGValue> c = stack(cg, x, y, rank, a.call.loc);
  if (failed(c) || rank == 0)
    return c;
  llvm::SmallVector<int64_t> shape(x.getShape());
  shape.back() *= 2;
  return cg.reshape(*c, shape, /*allowReorder=*/false);
}

/// tl.cat(a, b, can_reorder=False, dim=0): a then b along `dim` (tilec
/// keeps the order, which satisfies can_reorder=True as well).
static FailureOr<CGValue> builtinCat(CodeGen &cg, Args &a) {
  const CallArgs &call = a.call;
  CGValue x, y;
  if (failed(joinOperands(cg, a, x, y, "tl.cat()")))
    return failure();
  int64_t rank = static_cast<int64_t>(x.getShape().size());
  if (rank == 0)
    return cg.error(call.loc, "tl.cat() needs tiles, got " + x.describe() +
                                  " (use tl.join for scalars)");
  int64_t dim = 0;
  if (a.has(3)) {
    int64_t d = a.integer(3);
    dim = d < 0 ? d + rank : d;
    if (dim < 0 || dim >= rank)
      return cg.error(a.loc(3), "dim " + std::to_string(d) +
                                    " is out of range for a tile of rank " +
                                    std::to_string(rank));
  }
  FailureOr<CGValue> c = stack(cg, x, y, dim, call.loc);
  if (failed(c))
    return failure();
  llvm::SmallVector<int64_t> shape(x.getShape());
  shape[dim] *= 2;
  return cg.reshape(*c, shape, /*allowReorder=*/false);
}

/// Reduces `values` (one shape) along `axis` over the elements whose
/// `flag` (i1, same shape) is set. `combine` combines two sets of values;
/// without it, any flagged element is picked (one is flagged).
FailureOr<llvm::SmallVector<CGValue>> tilec::frontend::flaggedReduce(
    CodeGen &cg, SMLoc loc, llvm::ArrayRef<CGValue> values, const CGValue &flag,
    int64_t axis, ValuesCombine combine) {
  llvm::SmallVector<CGValue> srcs{flag};
  srcs.append(values.begin(), values.end());
  bool hasCombine = static_cast<bool>(combine);
  FailureOr<llvm::SmallVector<CGValue>> results = cg.reduce(
      srcs, std::optional<int64_t>(axis), false, loc, loc,
      [&](llvm::ArrayRef<CGValue> lhs, llvm::ArrayRef<CGValue> rhs)
          -> FailureOr<llvm::SmallVector<CGValue>> {
        mlir::Value fl = lhs[0].getValue(), fr = rhs[0].getValue();
        llvm::SmallVector<CGValue> out{
            CGValue::runtime(arith::OrIOp::create(cg.builder, cg.loc(), fl, fr),
                             DType::get(ScalarType::I1))};
        llvm::ArrayRef<CGValue> lv = lhs.drop_front(), rv = rhs.drop_front();
        llvm::SmallVector<CGValue> both;
        mlir::Value bothFlags;
        if (hasCombine) {
          FailureOr<llvm::SmallVector<CGValue>> c = combine(lv, rv);
          if (failed(c))
            return failure();
          if (c->size() != lv.size())
            return cg.error(loc, "the combine function must return " +
                                     std::to_string(lv.size()) + " value" +
                                     (lv.size() == 1 ? "" : "s") +
                                     ", but it returns " +
                                     std::to_string(c->size()));
          for (size_t k = 0; k < lv.size(); ++k) {
            CGValue v = (*c)[k];
            DType d = lv[k].getDType();
            if (v.isNumber())
              v = cg.makeConstant(v, d);
            if (!v.isRuntime() || v.isTile())
              return cg.error(loc, "the combine function must return "
                                   "scalars, but result " +
                                       std::to_string(k) + " is " +
                                       v.describe());
            if (v.getDType() != d) {
              FailureOr<CGValue> cv = cg.cast(v, d, loc);
              if (failed(cv))
                return failure();
              v = *cv;
            }
            both.push_back(v);
          }
          bothFlags = arith::AndIOp::create(cg.builder, cg.loc(), fl, fr);
        }
        for (size_t k = 0; k < lv.size(); ++k) {
          mlir::Value pick = arith::SelectOp::create(
              cg.builder, cg.loc(), fl, lv[k].getValue(), rv[k].getValue());
          if (hasCombine)
            pick = arith::SelectOp::create(cg.builder, cg.loc(), bothFlags,
                                           both[k].getValue(), pick);
          out.push_back(CGValue::runtime(pick, lv[k].getDType()));
        }
        return out;
      });
  if (failed(results))
    return failure();
  results->erase(results->begin());
  return results;
}

FailureOr<int64_t> tilec::frontend::axisArg(CodeGen &cg, Args &a, size_t i,
                                            int64_t rank, int64_t dflt) {
  int64_t axis = a.optInteger(i).value_or(dflt);
  if (axis < -rank || axis >= rank)
    return cg.error(a.loc(i), a.name(i) + " is " + std::to_string(axis) +
                                  ", out of range for a tile of rank " +
                                  std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

/// tl.split(a): the two halves of a tile whose last dimension is 2.
static FailureOr<CGValue> builtinSplit(CodeGen &cg, Args &a) {
  const CallArgs &call = a.call;
  const CGValue *x = &a.value(0);
  llvm::SmallVector<int64_t> shape(x->getShape());
  if (shape.back() != 2)
    return cg.error(a.loc(0), "tl.split() needs a tile whose last dimension "
                              "is 2, got " +
                                  x->describe());
  if (x->getDType().isPointer())
    return cg.error(a.loc(0), "tl.split() of pointer tiles is not supported "
                              "by tilec yet");
  int64_t last = static_cast<int64_t>(shape.size()) - 1;
  FailureOr<CGValue> index = indexAlong(cg, shape, last, call.loc);
  if (failed(index))
    return failure();
  std::vector<CGValue> halves;
  for (int64_t k = 0; k < 2; ++k) {
    FailureOr<CGValue> flag = cg.compareOp(
        CmpOp::Eq, *index, CGValue::integer(k), call.loc, call.loc, call.loc);
    if (failed(flag))
      return failure();
    FailureOr<llvm::SmallVector<CGValue>> r =
        flaggedReduce(cg, call.loc, {*x}, *flag, last, nullptr);
    if (failed(r))
      return failure();
    halves.push_back(r->front());
  }
  return CGValue::tuple(std::move(halves));
}

/// The signless integer kind of `dtype`'s width, for bit-level moves (i1
/// widens to i8, which a reduction handles on both backends).
static ScalarType bitsKind(DType dtype) {
  switch (dtype.getBitWidth()) {
  case 1:
  case 8:
    return ScalarType::I8;
  case 16:
    return ScalarType::I16;
  case 32:
    return ScalarType::I32;
  default:
    return ScalarType::I64;
  }
}

/// tl.flip(x, dim=None): reversed along `dim` (default the last), whose
/// size N must be a power of two (as in Triton). Built as Triton builds
/// it: the index along `dim` has log2(N) bits and reversing the order is
/// complementing every bit; bit b of the index is complemented by swapping
/// the two halves of each pair along the middle axis of
/// [outer * N / 2^(b+1), 2, 2^b * inner], and a pair (p, q) is swapped by
/// xor-ing each with the pair's xor-sum (p ^ (p ^ q) = q), a commutative
/// two-element reduction on the integers of the same width. O(numel *
/// log2 N) work.
static FailureOr<CGValue> builtinFlip(CodeGen &cg, Args &a) {
  const CallArgs &call = a.call;
  const CGValue *x = &a.value(0);
  int64_t rank = static_cast<int64_t>(x->getShape().size());
  FailureOr<int64_t> dim = axisArg(cg, a, 1, rank, rank - 1);
  if (failed(dim))
    return failure();
  if (x->getDType().isPointer())
    return cg.error(a.loc(0), "tl.flip() of pointer tiles is not supported "
                              "by tilec yet");
  llvm::SmallVector<int64_t> shape(x->getShape());
  int64_t n = shape[*dim];
  if (n == 1)
    return *x;
  if (!llvm::isPowerOf2_64(static_cast<uint64_t>(n)))
    return cg.error(a.loc(0), "tl.flip() needs the size along dim " +
                                  std::to_string(*dim) +
                                  " to be a power of two, got " +
                                  x->describe());
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < *dim; ++i)
    outer *= shape[i];
  for (int64_t i = *dim + 1; i < rank; ++i)
    inner *= shape[i];
  DType dtype = x->getDType();
  DType bits = DType::get(bitsKind(dtype));
  FailureOr<CGValue> y = cg.cast(*x, bits, call.loc,
                                 /*bitcast=*/!dtype.isBool());
  if (failed(y))
    return failure();
  for (int64_t d = 1; d < n; d *= 2) {
    llvm::SmallVector<int64_t> shape3 = {outer * n / (2 * d), 2, d * inner};
    CGValue z = cg.reshape(*y, shape3, /*allowReorder=*/false);
    FailureOr<llvm::SmallVector<CGValue>> pairXor = cg.reduce(
        {z}, std::optional<int64_t>(1), /*keepDims=*/true, call.loc, call.loc,
        [&](llvm::ArrayRef<CGValue> lhs, llvm::ArrayRef<CGValue> rhs)
            -> FailureOr<llvm::SmallVector<CGValue>> {
          return llvm::SmallVector<CGValue>{CGValue::runtime(
              arith::XOrIOp::create(cg.builder, cg.loc(), lhs[0].getValue(),
                                    rhs[0].getValue()),
              bits)};
        });
    if (failed(pairXor))
      return failure();
    FailureOr<CGValue> spread =
        cg.broadcastTo(pairXor->front(), shape3, call.loc, "the pair");
    if (failed(spread))
      return failure();
    CGValue swapped = CGValue::runtime(
        arith::XOrIOp::create(cg.builder, cg.loc(), z.getValue(),
                              spread->getValue()),
        bits);
    y = cg.reshape(swapped, shape, /*allowReorder=*/false);
  }
  return cg.cast(*y, dtype, call.loc, /*bitcast=*/!dtype.isBool());
}

//===----------------------------------------------------------------------===//
// Table
//===----------------------------------------------------------------------===//

llvm::ArrayRef<BuiltinSpec> tilec::frontend::getShapeBuiltins() {
  using K = ArgType;
  static const BuiltinSpec specs[] = {
      {"tl.reshape",
       builtinReshape,
       {req("input", K::Runtime), kwOnly(optBool("can_reorder", false))},
       BuiltinBinding::Varargs},
      {"tl.view",
       builtinReshape,
       {req("input", K::Runtime), kwOnly(optBool("can_reorder", false))},
       BuiltinBinding::Varargs},
      {"tl.trans",
       [](CodeGen &cg, Args &a) { return transLike(cg, a, false); },
       {req("input", K::Tile)},
       BuiltinBinding::Varargs},
      {"tl.permute",
       [](CodeGen &cg, Args &a) { return transLike(cg, a, true); },
       {req("input", K::Tile)},
       BuiltinBinding::Varargs},
      {"tl.expand_dims",
       builtinExpandDims,
       {req("input", K::Runtime), req("axis", K::IntList)}},
      {"tl.broadcast_to",
       builtinBroadcastTo,
       {req("input", K::Runtime)},
       BuiltinBinding::Varargs},
      {"tl.broadcast",
       builtinBroadcast,
       {req("input", K::Runtime), req("other", K::Runtime)}},
      {"tl.assume", builtinAssume, {req("cond")}},
      {"tl.multiple_of",
       builtinHint,
       {req("input", K::Runtime), req("values", K::IntList)}},
      {"tl.max_contiguous",
       builtinHint,
       {req("input", K::Runtime), req("values", K::IntList)}},
      {"tl.max_constancy",
       builtinHint,
       {req("input", K::Runtime), req("values", K::IntList)}},
      {"tl.join", builtinJoin, {req("a", K::Runtime), req("b", K::Runtime)}},
      {"tl.interleave",
       builtinInterleave,
       {req("a", K::Runtime), req("b", K::Runtime)}},
      {"tl.cat",
       builtinCat,
       {req("input", K::Runtime), req("other", K::Runtime),
        optBool("can_reorder", false), opt("dim", K::Int)}},
      {"tl.split", builtinSplit, {req("a", K::Tile)}},
      {"tl.flip", builtinFlip, {req("x", K::Tile), opt("dim", K::Int)}},
  };
  return specs;
}
