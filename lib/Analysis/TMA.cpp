//===- TMA.cpp - which block loads become TMA copies ----------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/TMA.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/SharedLayout.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace tilec;

tile::MakeBlockPtrOp tilec::traceBlockPointer(Value ptr) {
  for (int depth = 0; depth < 64; ++depth) {
    if (auto make = ptr.getDefiningOp<tile::MakeBlockPtrOp>())
      return make;
    if (auto advance = ptr.getDefiningOp<tile::AdvanceOp>()) {
      ptr = advance.getPtr();
      continue;
    }
    auto arg = dyn_cast<BlockArgument>(ptr);
    if (!arg)
      return {};
    auto forOp = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!forOp || arg.getArgNumber() == 0)
      return {};
    // The loop must carry the pointer only through advances of itself.
    unsigned idx = arg.getArgNumber() - 1;
    Value yielded = forOp.getBody()->getTerminator()->getOperand(idx);
    while (auto advance = yielded.getDefiningOp<tile::AdvanceOp>())
      yielded = advance.getPtr();
    if (yielded != arg)
      return {};
    ptr = forOp.getInitArgs()[idx];
  }
  return {};
}

FailureOr<SmallVector<Value>> tilec::emitBlockOffsets(OpBuilder &b,
                                                     Location loc, Value ptr) {
  SmallVector<tile::AdvanceOp> advances;
  while (auto advance = ptr.getDefiningOp<tile::AdvanceOp>()) {
    advances.push_back(advance);
    ptr = advance.getPtr();
  }
  auto make = ptr.getDefiningOp<tile::MakeBlockPtrOp>();
  if (!make)
    return failure();
  SmallVector<Value> offsets(make.getOffsets());
  for (tile::AdvanceOp advance : llvm::reverse(advances))
    for (auto [offset, delta] : llvm::zip(offsets, advance.getOffsets()))
      offset = arith::AddIOp::create(b, loc, offset, delta);
  return offsets;
}

/// A kernel argument (through integer casts) or a constant.
static std::optional<TMARecipe::Term> traceTerm(Value value) {
  for (int depth = 0; depth < 8; ++depth) {
    APInt constant;
    if (matchPattern(value, m_ConstantInt(&constant)))
      return TMARecipe::Term{constant.getSExtValue(), 0};
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner()->isEntryBlock() &&
          isa<FunctionOpInterface>(arg.getOwner()->getParentOp()))
        return TMARecipe::Term{std::nullopt, arg.getArgNumber()};
      return std::nullopt;
    }
    Operation *def = value.getDefiningOp();
    if (!isa_and_present<arith::ExtSIOp, arith::ExtUIOp, arith::IndexCastOp,
                         arith::IndexCastUIOp>(def))
      return std::nullopt;
    value = def->getOperand(0);
  }
  return std::nullopt;
}

/// The divisibility the kernel promises for argument `index` (1 if none).
static int64_t argDivisibility(FunctionOpInterface func, unsigned index) {
  if (auto attr = func.getArgAttrOfType<IntegerAttr>(index,
                                                     tile::kDivisibilityAttrName))
    return attr.getInt();
  return 1;
}

std::optional<TMARecipe> tilec::getTMARecipe(tile::BlockLoadOp load,
                                             std::string *whyNot) {
  auto fail = [&](const Twine &reason) -> std::optional<TMARecipe> {
    if (whyNot)
      *whyNot = reason.str();
    return std::nullopt;
  };
  tile::MakeBlockPtrOp make = traceBlockPointer(load.getPtr());
  if (!make)
    return fail("the block pointer is not a make_block_ptr advanced in a loop");
  auto blockType = cast<tile::BlockPointerType>(make.getType()).getBlockType();
  if (blockType.getRank() != 2)
    return fail("only 2-d blocks are copied with TMA");
  auto func = load->getParentOfType<FunctionOpInterface>();
  auto base = dyn_cast<BlockArgument>(make.getBase());
  if (!base || !base.getOwner()->isEntryBlock() ||
      base.getOwner()->getParentOp() != func.getOperation())
    return fail("the base pointer is computed in the kernel (it must be a "
                "kernel argument for a descriptor built at launch)");
  if (argDivisibility(func, base.getArgNumber()) % 16 != 0)
    return fail("the base pointer is not known to be 16-byte aligned (*T:16)");
  Type element = blockType.getElementType();
  int64_t eltBytes = element.getIntOrFloatBitWidth() / 8;
  if (eltBytes < 1)
    return fail("sub-byte elements");
  TMARecipe recipe;
  recipe.baseArg = base.getArgNumber();
  recipe.elementType = element;
  recipe.nanFill = load.getPadding() == tile::PaddingOption::NaN;
  int64_t rank = blockType.getRank();
  for (int64_t d = rank - 1; d >= 0; --d) {
    auto size = traceTerm(make.getShape()[d]);
    auto stride = traceTerm(make.getStrides()[d]);
    if (!size || !stride)
      return fail("the shape and strides must be kernel arguments or constants");
    if (d == rank - 1) {
      if (stride->constant != 1)
        return fail("the innermost stride is not the constant 1");
    } else {
      int64_t div = stride->constant ? *stride->constant
                                     : argDivisibility(func, stride->argIndex);
      if ((div * eltBytes) % 16 != 0)
        return fail("a stride is not known to be a multiple of 16 bytes "
                    "(give it as i32:16)");
    }
    recipe.dims.push_back({*size, *stride});
  }
  auto shared = tilegpu::SharedTileLayout::get(blockType.getDimSize(0),
                                               blockType.getDimSize(1), eltBytes);
  if (shared.swizzleBytes < 32)
    return fail("rows narrower than 32 bytes");
  recipe.swizzleBytes = shared.swizzleBytes;
  recipe.box = {shared.getBlockCols(), blockType.getDimSize(0)};
  if (recipe.box[1] > 256)
    return fail("more than 256 rows in one box");
  return recipe;
}

bool tilec::isTMADot(tile::DotOp dot, unsigned numWarps, std::string *whyNot) {
  auto fail = [&](const Twine &reason) {
    if (whyNot)
      *whyNot = reason.str();
    return false;
  };
  if (!tilegpu::getWarpgroupMMALayout(dot, numWarps, nullptr))
    return fail("the dot does not run on wgmma");
  // Phases are counted from the loop's iteration number: one loop level.
  Operation *parent = dot->getParentOp();
  if (!isa<FunctionOpInterface>(parent)) {
    auto forOp = dyn_cast<scf::ForOp>(parent);
    if (!forOp || !isa<FunctionOpInterface>(forOp->getParentOp()))
      return fail("the dot is not at the top level of the kernel or of one "
                  "scf.for there");
  }
  for (auto [name, operand] : {std::pair{"a", dot.getA()}, std::pair{"b", dot.getB()}}) {
    auto load = operand.getDefiningOp<tile::BlockLoadOp>();
    if (!load)
      return fail(Twine("operand ") + name + " is not a block-pointer load");
    if (!operand.hasOneUse() || load->getBlock() != dot->getBlock())
      return fail(Twine("operand ") + name +
                  " is used by more than the dot or loaded in another block");
    std::string reason;
    if (!getTMARecipe(load, &reason))
      return fail(Twine("operand ") + name + ": " + reason);
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Attribute form
//===----------------------------------------------------------------------===//

static Attribute termAttr(Builder &b, const TMARecipe::Term &term) {
  if (term.constant)
    return b.getI64IntegerAttr(*term.constant);
  return b.getStringAttr("arg" + std::to_string(term.argIndex));
}

static std::optional<TMARecipe::Term> termFromAttr(Attribute attr) {
  if (auto i = dyn_cast_if_present<IntegerAttr>(attr))
    return TMARecipe::Term{i.getInt(), 0};
  auto s = dyn_cast_if_present<StringAttr>(attr);
  unsigned index;
  if (!s || !s.getValue().starts_with("arg") ||
      s.getValue().drop_front(3).getAsInteger(10, index))
    return std::nullopt;
  return TMARecipe::Term{std::nullopt, index};
}

DictionaryAttr TMARecipe::toAttr(MLIRContext *ctx) const {
  Builder b(ctx);
  SmallVector<Attribute> sizes, strides;
  for (const Dim &d : dims) {
    sizes.push_back(termAttr(b, d.size));
    strides.push_back(termAttr(b, d.stride));
  }
  return b.getDictionaryAttr({
      b.getNamedAttr("base", b.getI32IntegerAttr(baseArg)),
      b.getNamedAttr("element", TypeAttr::get(elementType)),
      b.getNamedAttr("sizes", b.getArrayAttr(sizes)),
      b.getNamedAttr("strides", b.getArrayAttr(strides)),
      b.getNamedAttr("box", b.getDenseI64ArrayAttr(box)),
      b.getNamedAttr("swizzle", b.getI64IntegerAttr(swizzleBytes)),
      b.getNamedAttr("oob_fill", b.getStringAttr(nanFill ? "nan" : "zero")),
  });
}

FailureOr<TMARecipe> TMARecipe::fromAttr(DictionaryAttr attr) {
  TMARecipe recipe;
  auto base = attr.getAs<IntegerAttr>("base");
  auto element = attr.getAs<TypeAttr>("element");
  auto sizes = attr.getAs<ArrayAttr>("sizes");
  auto strides = attr.getAs<ArrayAttr>("strides");
  auto box = attr.getAs<DenseI64ArrayAttr>("box");
  auto swizzle = attr.getAs<IntegerAttr>("swizzle");
  auto fill = attr.getAs<StringAttr>("oob_fill");
  if (!base || !element || !sizes || !strides || !box || !swizzle || !fill ||
      sizes.size() != strides.size())
    return failure();
  recipe.baseArg = base.getInt();
  recipe.elementType = element.getValue();
  for (auto [size, stride] : llvm::zip(sizes, strides)) {
    auto s = termFromAttr(size), t = termFromAttr(stride);
    if (!s || !t)
      return failure();
    recipe.dims.push_back({*s, *t});
  }
  recipe.box.assign(box.asArrayRef().begin(), box.asArrayRef().end());
  recipe.swizzleBytes = swizzle.getInt();
  recipe.nanFill = fill.getValue() == "nan";
  return recipe;
}
