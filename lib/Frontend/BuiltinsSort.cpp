//===- BuiltinsSort.cpp - sort, topk, gather, histogram -------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// tl.sort, tl.topk, tl.gather and tl.histogram, built from ops both backends
// already lower (tile.reshape, tile.broadcast, tile.make_range, tile.reduce,
// arith): no new tile op and no scratch memory of their own.
//
// - sort is Batcher's bitonic network on the last axis (Triton's
//   triton/language/standard.py): log2(N) merge stages, stage s doing s
//   compare-and-swap steps. A step pairs element e with e ^ d (d a power of
//   two): the tile is reshaped to [numel / 2d, 2, d], one two-element
//   reduction over the middle axis gives the smaller and the larger of each
//   pair, broadcast back, and each element takes one of them by a select.
//   N log2(N)^2 / 4 compare-exchanges in all.
// - topk(x, k) is the descending sort, then the first k of the last axis.
// - gather(src, index, axis) and histogram(x, num_bins) compare every output
//   position with every source position along one axis (an [.., M, N, ..]
//   flag tile) and reduce it: O(M N) work, bounded by the tile size limit.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cstdint>

using namespace tilec;
using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;
using mlir::failure;
using mlir::FailureOr;
namespace arith = mlir::arith;

static int64_t numElements(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// An i1 tile of `shape` (numel elements): index `k` along the middle axis
/// of [numel / (2 * inner), 2, inner], compared with `k` by `pred`, in
/// row-major order reshaped to `shape`.
static FailureOr<CGValue> pairSide(CodeGen &cg, SMLoc loc,
                                   llvm::ArrayRef<int64_t> shape, int64_t inner,
                                   CmpOp pred) {
  int64_t numel = numElements(shape);
  llvm::SmallVector<int64_t> shape3 = {numel / (2 * inner), 2, inner};
  FailureOr<CGValue> pos = indexAlong(cg, shape3, 1, loc);
  if (failed(pos))
    return failure();
  FailureOr<CGValue> side =
      cg.compareOp(pred, *pos, CGValue::integer(0), loc, loc, loc);
  if (failed(side))
    return failure();
  return cg.reshape(*side, shape, /*allowReorder=*/false);
}

/// One compare-and-swap step of the bitonic network on the last axis of
/// `x`: element e and its partner e ^ `distance` end up in ascending order,
/// or descending where `flip` (i1, x's shape) is set. The smaller and the
/// larger of each pair come from one two-element reduction (`a > b`
/// decides, as Triton's compare-and-swap).
static FailureOr<CGValue> compareAndSwap(CodeGen &cg, SMLoc loc,
                                         const CGValue &x, const CGValue &flip,
                                         int64_t distance) {
  llvm::SmallVector<int64_t> shape(x.getShape());
  int64_t numel = numElements(shape);
  llvm::SmallVector<int64_t> shape3 = {numel / (2 * distance), 2, distance};
  CGValue y = cg.reshape(x, shape3, /*allowReorder=*/false);
  FailureOr<llvm::SmallVector<CGValue>> lowHigh =
      cg.reduce({y, y}, std::optional<int64_t>(1), false, loc, loc,
                [&](llvm::ArrayRef<CGValue> lhs, llvm::ArrayRef<CGValue> rhs)
                    -> FailureOr<llvm::SmallVector<CGValue>> {
                  FailureOr<CGValue> lowGreater =
                      cg.compareOp(CmpOp::Gt, lhs[0], rhs[0], loc, loc, loc);
                  FailureOr<CGValue> highGreater =
                      cg.compareOp(CmpOp::Gt, lhs[1], rhs[1], loc, loc, loc);
                  if (failed(lowGreater) || failed(highGreater))
                    return failure();
                  return llvm::SmallVector<CGValue>{
                      selectValues(cg, *lowGreater, rhs[0], lhs[0]),
                      selectValues(cg, *highGreater, lhs[1], rhs[1])};
                });
  if (failed(lowHigh))
    return failure();
  CGValue spread[2];
  for (int k = 0; k < 2; ++k) {
    FailureOr<CGValue> b = cg.broadcastTo(cg.expandDims((*lowHigh)[k], 1),
                                          shape3, loc, "the pair");
    if (failed(b))
      return failure();
    spread[k] = cg.reshape(*b, shape, /*allowReorder=*/false);
  }
  // The first of a pair takes the smaller unless the pair is flipped.
  FailureOr<CGValue> isFirst = pairSide(cg, loc, shape, distance, CmpOp::Eq);
  if (failed(isFirst))
    return failure();
  CGValue takeLow = CGValue::runtime(arith::XOrIOp::create(cg.builder, cg.loc(),
                                                           isFirst->getValue(),
                                                           flip.getValue()),
                                     DType::get(ScalarType::I1));
  return selectValues(cg, takeLow, spread[0], spread[1]);
}

/// `x` sorted along its last axis (a power of two), ascending or
/// `descending`.
static FailureOr<CGValue> bitonicSort(CodeGen &cg, SMLoc loc, CGValue x,
                                      bool descending) {
  llvm::SmallVector<int64_t> shape(x.getShape());
  int64_t n = shape.back();
  int64_t numDims = llvm::Log2_64(static_cast<uint64_t>(n));
  DType dtype = x.getDType();
  // Booleans are ordered as 0 < 1: sorted as int8.
  if (dtype.isBool()) {
    FailureOr<CGValue> wide = cg.cast(x, DType::get(ScalarType::I8), loc);
    if (failed(wide))
      return failure();
    x = *wide;
  }
  for (int64_t stage = 1; stage <= numDims; ++stage) {
    // Before the last stage, runs of 2^stage alternate ascending and
    // descending (a bitonic sequence for the next merge); the last merge
    // goes in the requested order.
    CGValue flip;
    if (stage < numDims) {
      FailureOr<CGValue> f =
          pairSide(cg, loc, shape, int64_t(1) << stage, CmpOp::NotEq);
      if (failed(f))
        return failure();
      flip = *f;
    } else {
      flip = cg.splat(cg.makeConstant(CGValue::boolean(descending),
                                      DType::get(ScalarType::I1)),
                      shape);
    }
    for (int64_t step = stage - 1; step >= 0; --step) {
      FailureOr<CGValue> next =
          compareAndSwap(cg, loc, x, flip, int64_t(1) << step);
      if (failed(next))
        return failure();
      x = *next;
    }
  }
  if (dtype.isBool())
    return cg.cast(x, dtype, loc);
  return x;
}

/// The tile argument `i` of sort/topk, checked: not pointers, and a `dim`
/// argument `dimIndex` that must be the last axis.
static FailureOr<CGValue> sortInput(CodeGen &cg, Args &a, size_t dimIndex) {
  const CGValue &x = a.value(0);
  if (x.getDType().isPointer())
    return cg.error(a.loc(0),
                    a.call.calleeName + "() of pointers is not supported");
  int64_t rank = static_cast<int64_t>(x.getShape().size());
  FailureOr<int64_t> dim = axisArg(cg, a, dimIndex, rank, rank - 1);
  if (failed(dim))
    return failure();
  if (*dim != rank - 1)
    return cg.error(a.loc(dimIndex), a.call.calleeName +
                                         "() sorts along the last axis only "
                                         "(as Triton), but " +
                                         a.name(dimIndex) + " is " +
                                         std::to_string(*dim) + " for " +
                                         x.describe());
  return x;
}

/// tl.sort(x, dim=None, descending=False).
static FailureOr<CGValue> builtinSort(CodeGen &cg, Args &a) {
  FailureOr<CGValue> x = sortInput(cg, a, 1);
  if (failed(x))
    return failure();
  return bitonicSort(cg, a.call.loc, *x, a.flag(2));
}

/// tl.topk(x, k, dim=None): the k largest elements along the last axis, in
/// descending order.
static FailureOr<CGValue> builtinTopk(CodeGen &cg, Args &a) {
  FailureOr<CGValue> x = sortInput(cg, a, 2);
  if (failed(x))
    return failure();
  llvm::SmallVector<int64_t> shape(x->getShape());
  int64_t n = shape.back(), k = a.integer(1);
  if (k < 1 || k > n || !llvm::isPowerOf2_64(static_cast<uint64_t>(k)))
    return cg.error(a.loc(1), a.name(1) +
                                  " must be a power of two from 1 to the "
                                  "last dimension of " +
                                  x->describe() + ", got " + std::to_string(k));
  SMLoc loc = a.call.loc;
  FailureOr<CGValue> sorted = bitonicSort(cg, loc, *x, /*descending=*/true);
  if (failed(sorted) || k == n)
    return sorted;
  // The first k of each row: [outer, n / k, k], keep index 0 of the middle.
  int64_t outer = numElements(shape) / n;
  llvm::SmallVector<int64_t> shape3 = {outer, n / k, k};
  CGValue y = cg.reshape(*sorted, shape3, /*allowReorder=*/false);
  FailureOr<CGValue> pos = indexAlong(cg, shape3, 1, loc);
  if (failed(pos))
    return failure();
  FailureOr<CGValue> first =
      cg.compareOp(CmpOp::Eq, *pos, CGValue::integer(0), loc, loc, loc);
  if (failed(first))
    return failure();
  FailureOr<llvm::SmallVector<CGValue>> head =
      flaggedReduce(cg, loc, {y}, *first, 1, nullptr);
  if (failed(head))
    return failure();
  shape.back() = k;
  return cg.reshape(head->front(), shape, /*allowReorder=*/false);
}

/// tl.gather(src, index, axis): out[.., i, ..] = src[.., index[.., i, ..],
/// ..] along `axis`; the other dimensions of src and index are equal. An
/// index out of range gives an unspecified element of the row (Triton: UB).
static FailureOr<CGValue> builtinGather(CodeGen &cg, Args &a) {
  const CGValue &src = a.value(0), &index = a.value(1);
  SMLoc loc = a.call.loc;
  llvm::SmallVector<int64_t> srcShape(src.getShape()),
      indexShape(index.getShape());
  if (!index.getDType().isInt() || index.getDType().isBool())
    return cg.error(a.loc(1), "the index of tl.gather() must be an integer "
                              "tile, got " +
                                  index.describe());
  if (src.getDType().isPointer())
    return cg.error(a.loc(0), "tl.gather() of pointers is not supported");
  int64_t rank = static_cast<int64_t>(srcShape.size());
  if (static_cast<int64_t>(indexShape.size()) != rank)
    return cg.error(loc, "tl.gather() needs src and index of one rank, got " +
                             src.describe() + " and " + index.describe());
  FailureOr<int64_t> axis = axisArg(cg, a, 2, rank, 0);
  if (failed(axis))
    return failure();
  for (int64_t d = 0; d < rank; ++d)
    if (d != *axis && srcShape[d] != indexShape[d])
      return cg.error(loc, "tl.gather(): src and index must have the same "
                           "size in every dimension but the axis (" +
                               std::to_string(*axis) + "), got " +
                               src.describe() + " and " + index.describe());
  // [.., M (index), N (src), ..]: src repeated along the index axis, the
  // index along the source axis; flag = (index == position in src).
  llvm::SmallVector<int64_t> pairShape(indexShape);
  pairShape.insert(pairShape.begin() + *axis + 1, srcShape[*axis]);
  if (failed(checkShape(cg, pairShape, loc,
                        "tl.gather() works on an index x source intermediate "
                        "along the axis")))
    return failure();
  FailureOr<CGValue> spreadSrc =
      cg.broadcastTo(cg.expandDims(src, *axis), pairShape, loc, "the source");
  FailureOr<CGValue> spreadIndex = cg.broadcastTo(
      cg.expandDims(index, *axis + 1), pairShape, loc, "the index");
  FailureOr<CGValue> position = indexAlong(cg, pairShape, *axis + 1, loc);
  if (failed(spreadSrc) || failed(spreadIndex) || failed(position))
    return failure();
  FailureOr<CGValue> wideIndex = *spreadIndex;
  if (spreadIndex->getDType() != position->getDType())
    wideIndex = cg.cast(*spreadIndex, DType::get(ScalarType::I64), loc);
  FailureOr<CGValue> widePosition =
      spreadIndex->getDType() != position->getDType()
          ? cg.cast(*position, DType::get(ScalarType::I64), loc)
          : position;
  if (failed(wideIndex) || failed(widePosition))
    return failure();
  FailureOr<CGValue> flag =
      cg.compareOp(CmpOp::Eq, *wideIndex, *widePosition, loc, loc, loc);
  if (failed(flag))
    return failure();
  FailureOr<llvm::SmallVector<CGValue>> r =
      flaggedReduce(cg, loc, {*spreadSrc}, *flag, *axis + 1, nullptr);
  if (failed(r))
    return failure();
  return r->front();
}

/// tl.histogram(input, num_bins, mask=None): an int32 tile of num_bins
/// counts of the values of a 1-d integer tile (a value v counts in bin v;
/// values outside [0, num_bins) and masked-off elements count nowhere).
static FailureOr<CGValue> builtinHistogram(CodeGen &cg, Args &a) {
  const CGValue &input = a.value(0);
  SMLoc loc = a.call.loc;
  if (input.getShape().size() != 1 || !input.getDType().isInt() ||
      input.getDType().isBool())
    return cg.error(a.loc(0), "tl.histogram() needs a 1-d integer tile, got " +
                                  input.describe());
  int64_t bins = a.integer(1);
  int64_t n = input.getShape().front();
  llvm::SmallVector<int64_t> pairShape = {bins, n};
  if (failed(checkShape(cg, pairShape, a.loc(1),
                        "tl.histogram() compares every bin with every value "
                        "(a bins x values intermediate)")))
    return failure();
  DType i64 = DType::get(ScalarType::I64);
  FailureOr<CGValue> values = cg.cast(input, i64, a.loc(0));
  FailureOr<CGValue> bin = indexAlong(cg, pairShape, 0, loc);
  if (failed(values) || failed(bin))
    return failure();
  FailureOr<CGValue> bin64 = cg.cast(*bin, i64, loc);
  FailureOr<CGValue> spread =
      cg.broadcastTo(cg.expandDims(*values, 0), pairShape, loc, "the input");
  if (failed(bin64) || failed(spread))
    return failure();
  FailureOr<CGValue> hit =
      cg.compareOp(CmpOp::Eq, *spread, *bin64, loc, loc, loc);
  if (failed(hit))
    return failure();
  if (a.has(2)) {
    FailureOr<CGValue> mask = cg.toBool(a.value(2), a.loc(2));
    if (failed(mask))
      return failure();
    if (mask->getShape() != input.getShape() && mask->isTile())
      return cg.error(a.loc(2), "the mask of tl.histogram() must have the "
                                "input's shape " +
                                    shapeToString(input.getShape()) + ", got " +
                                    mask->describe());
    CGValue m = mask->isTile() ? cg.expandDims(*mask, 0) : *mask;
    FailureOr<CGValue> masked =
        cg.binaryOp(BinaryOp::BitAnd, *hit, m, loc, loc, a.loc(2));
    if (failed(masked))
      return failure();
    hit = masked;
  }
  FailureOr<CGValue> counts = cg.cast(*hit, DType::get(ScalarType::I32), loc);
  if (failed(counts))
    return failure();
  FailureOr<llvm::SmallVector<CGValue>> sums = cg.reduce(
      {*counts}, std::optional<int64_t>(1), false, loc, loc,
      [&](llvm::ArrayRef<CGValue> lhs, llvm::ArrayRef<CGValue> rhs)
          -> FailureOr<llvm::SmallVector<CGValue>> {
        return llvm::SmallVector<CGValue>{CGValue::runtime(
            arith::AddIOp::create(cg.builder, cg.loc(), lhs[0].getValue(),
                                  rhs[0].getValue()),
            DType::get(ScalarType::I32))};
      });
  if (failed(sums))
    return failure();
  return sums->front();
}

//===----------------------------------------------------------------------===//
// Table
//===----------------------------------------------------------------------===//

llvm::ArrayRef<BuiltinSpec> tilec::frontend::getSortBuiltins() {
  using K = ArgType;
  static const BuiltinSpec specs[] = {
      {"tl.sort",
       builtinSort,
       {req("x", K::Tile), opt("dim", K::Int), optBool("descending", false)}},
      {"tl.topk",
       builtinTopk,
       {req("x", K::Tile), req("k", K::Int), opt("dim", K::Int)}},
      {"tl.gather",
       builtinGather,
       {req("src", K::Tile), req("index", K::Tile), req("axis", K::Int)}},
      {"tl.histogram",
       builtinHistogram,
       {req("input", K::Tile), req("num_bins", K::Int), opt("mask")}},
  };
  return specs;
}
