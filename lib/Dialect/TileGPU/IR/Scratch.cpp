//===- Scratch.cpp - per-op scratch shared memory -------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/IR/Scratch.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/LinearLayout.h"
#include "tilec/Dialect/TileGPU/IR/ScanLayout.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;

int64_t tilec::tilegpu::getScratchElementBytes(Type type) {
  if (isa<tile::PointerType>(type))
    return 8;
  if (type.isIntOrFloat())
    return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
  return 8;
}

static int64_t tileBytes(Type type, int64_t extraElements = 0) {
  auto tile = dyn_cast<RankedTensorType>(type);
  if (!tile)
    return (1 + extraElements) * getScratchElementBytes(type);
  return (tile.getNumElements() + extraElements) *
         getScratchElementBytes(tile.getElementType());
}

/// The scratch of a shared-memory exchange of a `src` tile into `dst`'s
/// layout (ViewOpToLLVM.cpp): the source tile and `extraElements` more, in
/// the rounds getExchangeRounds chooses on the tile's own bytes
/// (`dstDim` is the result's dimension holding the index's outermost
/// bits); none when `registerOnly` says the layouts need no exchange.
static int64_t
exchangeBytes(RankedTensorType src, RankedTensorType dst,
              int64_t extraElements = 0, unsigned dstDim = 0,
              function_ref<bool(const LinearLayout &, const LinearLayout &)>
                  registerOnly = nullptr) {
  int64_t bytes = tileBytes(src, extraElements);
  FailureOr<LinearLayout> from = toLinearLayout(src.getShape(), src.getEncoding());
  FailureOr<LinearLayout> to = toLinearLayout(dst.getShape(), dst.getEncoding());
  if (failed(from) || failed(to))
    return bytes;
  if (registerOnly && registerOnly(*from, *to))
    return 0;
  return bytes >>
         getExchangeRounds(*from, 0, *to, dstDim, tileBytes(src)).getNumBits();
}

int64_t tilec::tilegpu::getScratchBytes(Operation *op) {
  if (auto convert = dyn_cast<ConvertLayoutOp>(op)) {
    unsigned elementBits =
        8 * getScratchElementBytes(convert.getType().getElementType());
    return exchangeBytes(
        convert.getSrc().getType(), convert.getType(), 0, 0,
        [&](const LinearLayout &from, const LinearLayout &to) {
          // Renamed registers, or shuffles within warps (ViewOpToLLVM.cpp).
          return getRegisterMapping(from, to).has_value() ||
                 getCheapLaneRegisterSwaps(from, to, elementBits).has_value();
        });
  }
  if (auto reshape = dyn_cast<tile::ReshapeOp>(op))
    return exchangeBytes(
        reshape.getSrc().getType(), reshape.getType(), 0, 0,
        [](const LinearLayout &from, const LinearLayout &to) {
          return getReshapeRegisterMapping(from, to).has_value();
        });
  if (auto trans = dyn_cast<tile::TransOp>(op)) {
    // Up to 8 elements of padding after each row (ViewOpToLLVM.cpp).
    RankedTensorType src = trans.getSrc().getType();
    int64_t rows = src.getNumElements() / std::max<int64_t>(1, src.getShape().back());
    return exchangeBytes(src, trans.getType(), rows * 8,
                         llvm::find(trans.getOrder(), 0) - trans.getOrder().begin());
  }
  if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
    // One partial per warp along the reduced axis, per output element
    // (none when no warp splits the axis).
    auto src = cast<RankedTensorType>(reduce.getSrcs().front().getType());
    FailureOr<LinearLayout> layout = toLinearLayout(src.getShape(), src.getEncoding());
    // A layout that is not linear fails the reduction's lowering, which
    // says so at the op; it needs no scratch before that.
    if (failed(layout))
      return 0;
    unsigned bits = 0;
    for (const Coord &basis : layout->getBases(HwDim::Warp))
      bits += basis[reduce.getAxis()] != 0;
    int64_t partials = bits ? int64_t(1) << bits : 0;
    int64_t bytes = 0;
    for (Value result : reduce.getResults())
      bytes = llvm::alignTo(bytes + partials * tileBytes(result.getType()), 8);
    return bytes;
  }
  if (auto scan = dyn_cast<tile::ScanOp>(op)) {
    // In a layout the scan takes in place (ScanLayout.h), the warps' totals
    // of every chunk of every line when warps split the axis, or the chunk
    // table (ScanAxis::getScratchElements); otherwise
    // each source is moved into and out of a layout it takes (a whole tile,
    // which also bounds the totals there). One area per source.
    auto src = cast<RankedTensorType>(scan.getSrcs().front().getType());
    FailureOr<LinearLayout> layout =
        toLinearLayout(src.getShape(), src.getEncoding());
    std::optional<ScanAxis> axis;
    if (succeeded(layout))
      axis = analyzeScanAxis(*layout, scan.getAxis());
    int64_t totals = 0;
    if (axis)
      totals = axis->getScratchElements(src.getNumElements() /
                                        src.getShape()[scan.getAxis()]);
    int64_t bytes = 0;
    for (Value s : scan.getSrcs()) {
      Type element = cast<RankedTensorType>(s.getType()).getElementType();
      int64_t area = axis ? totals * getScratchElementBytes(element)
                          : tileBytes(s.getType());
      bytes = llvm::alignTo(bytes + area, 8);
    }
    return bytes;
  }
  if (isa<tile::AtomicRMWOp, tile::AtomicCASOp>(op)) {
    if (op->getResult(0).use_empty())
      return 0;
    // Owners share the old values (one spare slot for the others).
    return std::max<int64_t>(2 * tileBytes(tile::getElementTypeOrSelf(op->getResult(0).getType())),
                             tileBytes(op->getResult(0).getType(), 1));
  }
  if (auto dot = dyn_cast<tile::DotOp>(op)) {
    RankedTensorType a = dot.getA().getType(), b = dot.getB().getType();
    RankedTensorType c = dot.getC().getType();
    unsigned rank = c.getRank();
    int64_t batch = rank == 3 ? c.getDimSize(0) : 1;
    int64_t m = c.getDimSize(rank - 2), n = c.getDimSize(rank - 1);
    int64_t k = a.getDimSize(rank - 1);
    if (isa<MMAEncodingAttr>(c.getEncoding())) {
      // Rows padded by 8 elements (16 bytes), B transposed after A.
      int64_t row = (k + 8) * 2;
      return llvm::alignTo(m * row, 16) + n * row;
    }
    int64_t elt = getScratchElementBytes(a.getElementType());
    (void)b;
    return llvm::alignTo(batch * m * k * elt, 16) + batch * k * n * elt;
  }
  return 0;
}
