//===- RewriteBlockPointers.cpp - block pointers to pointer tiles ---------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A 1:N dialect conversion: every !tile.block_ptr value becomes 3*rank+1
// values (base, shape[rank] : i64, strides[rank] : i64, offsets[rank] : i32),
// through scf control flow too; block loads and stores become masked
// pointer-tile loads and stores. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/APFloat.h"

namespace tilec::tile {
#define GEN_PASS_DEF_TILEREWRITEBLOCKPOINTERS
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tilec::tile

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// The parts of a block pointer after conversion.
struct BlockPointerParts {
  Value base;
  SmallVector<Value> shape, strides, offsets;

  static BlockPointerParts unpack(ValueRange values) {
    unsigned rank = (values.size() - 1) / 3;
    BlockPointerParts parts;
    parts.base = values[0];
    parts.shape.assign(values.begin() + 1, values.begin() + 1 + rank);
    parts.strides.assign(values.begin() + 1 + rank, values.begin() + 1 + 2 * rank);
    parts.offsets.assign(values.begin() + 1 + 2 * rank, values.end());
    return parts;
  }
  SmallVector<Value> pack() const {
    SmallVector<Value> values{base};
    llvm::append_range(values, shape);
    llvm::append_range(values, strides);
    llvm::append_range(values, offsets);
    return values;
  }
};

class BlockPointerTypeConverter : public TypeConverter {
public:
  BlockPointerTypeConverter() {
    addConversion([](Type type) { return type; });
    addConversion([](BlockPointerType type, SmallVectorImpl<Type> &results) {
      MLIRContext *ctx = type.getContext();
      results.push_back(PointerType::get(type.getElementType()));
      auto i64 = IntegerType::get(ctx, 64), i32 = IntegerType::get(ctx, 32);
      results.append(2 * type.getRank(), i64);
      results.append(type.getRank(), i32);
      return success();
    });
  }
};

/// The tile of a block: per dimension d, the indices offset_d + arange(B_d)
/// shaped [1, …, B_d, …, 1] (i32), from which addresses and masks derive.
class BlockAccessBuilder {
public:
  BlockAccessBuilder(OpBuilder &b, Location loc, RankedTensorType blockType,
                     const BlockPointerParts &parts)
      : b(b), loc(loc), blockType(blockType), parts(parts) {}

  /// base + sum_d index_d * stride_d, as a tile of pointers.
  Value buildPointers() {
    auto i64 = b.getI64Type();
    Value sum;
    for (unsigned d = 0; d < blockType.getRank(); ++d) {
      Value index = indexAlong(d);
      auto type = cast<RankedTensorType>(index.getType());
      Value wide = arith::ExtSIOp::create(b, loc, type.clone(i64), index);
      Value stride = SplatOp::create(b, loc, type.clone(i64), parts.strides[d]);
      Value term = broadcastToBlock(arith::MulIOp::create(b, loc, wide, stride));
      sum = sum ? arith::AddIOp::create(b, loc, sum, term).getResult() : term;
    }
    Value base = SplatOp::create(
        b, loc, blockType.clone(parts.base.getType()), parts.base);
    return AddPtrOp::create(b, loc, base.getType(), base, sum);
  }

  /// AND over the checked dimensions of 0 <= index_d < shape_d, or null.
  Value buildMask(ArrayRef<int32_t> boundaryCheck) {
    auto i64 = b.getI64Type();
    Value mask;
    for (int32_t d : boundaryCheck) {
      Value index = indexAlong(d);
      auto type = cast<RankedTensorType>(index.getType());
      Value wide = arith::ExtSIOp::create(b, loc, type.clone(i64), index);
      Value zero = arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(type.clone(i64), b.getI64IntegerAttr(0)));
      Value bound = SplatOp::create(b, loc, type.clone(i64), parts.shape[d]);
      Value lower = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, wide, zero);
      Value upper = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, wide, bound);
      Value inBounds = broadcastToBlock(arith::AndIOp::create(b, loc, lower, upper));
      mask = mask ? arith::AndIOp::create(b, loc, mask, inBounds).getResult() : inBounds;
    }
    return mask;
  }

private:
  Value indexAlong(unsigned d) {
    int64_t size = blockType.getDimSize(d);
    auto rangeType = RankedTensorType::get({size}, b.getI32Type());
    Value range = MakeRangeOp::create(b, loc, rangeType, 0, size);
    Value offset = SplatOp::create(b, loc, rangeType, parts.offsets[d]);
    Value index = arith::AddIOp::create(b, loc, range, offset);
    // Insert unit dimensions around d.
    SmallVector<int64_t> shape{size};
    for (unsigned axis = 0; axis < blockType.getRank(); ++axis) {
      if (axis == d)
        continue;
      // Axes are inserted in increasing order, so `axis` is also the
      // position of the new unit dimension.
      shape.insert(shape.begin() + axis, 1);
      index = ExpandDimsOp::create(
          b, loc, RankedTensorType::get(shape, b.getI32Type()), index, axis);
    }
    return index;
  }

  Value broadcastToBlock(Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    auto full = blockType.clone(type.getElementType());
    if (type == full)
      return value;
    return BroadcastOp::create(b, loc, full, value);
  }

  OpBuilder &b;
  Location loc;
  RankedTensorType blockType;
  const BlockPointerParts &parts;
};

struct MakeBlockPtrLowering : OpConversionPattern<MakeBlockPtrOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MakeBlockPtrOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> parts;
    for (ValueRange operand : adaptor.getOperands())
      llvm::append_range(parts, operand);
    rewriter.replaceOpWithMultiple(op, {parts});
    return success();
  }
};

struct AdvanceLowering : OpConversionPattern<AdvanceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AdvanceOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    BlockPointerParts parts = BlockPointerParts::unpack(adaptor.getPtr());
    for (auto [offset, delta] : llvm::zip(parts.offsets, adaptor.getOffsets()))
      offset = arith::AddIOp::create(rewriter, op.getLoc(), offset, delta.front());
    rewriter.replaceOpWithMultiple(op, {parts.pack()});
    return success();
  }
};

struct BlockLoadLowering : OpConversionPattern<BlockLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BlockLoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    BlockPointerParts parts = BlockPointerParts::unpack(adaptor.getPtr());
    BlockAccessBuilder builder(rewriter, loc, type, parts);
    Value ptrs = builder.buildPointers();
    Value mask = builder.buildMask(op.getBoundaryCheck());
    Value other;
    if (mask) {
      Type elt = type.getElementType();
      TypedAttr pad;
      if (auto floatType = dyn_cast<FloatType>(elt))
        pad = op.getPadding() == PaddingOption::NaN
                  ? rewriter.getFloatAttr(
                        elt, llvm::APFloat::getNaN(floatType.getFloatSemantics()))
                  : rewriter.getFloatAttr(elt, 0.0);
      else if (op.getPadding() == PaddingOption::NaN)
        return op.emitOpError("padding_option=\"nan\" needs a float element type");
      else
        pad = rewriter.getIntegerAttr(elt, 0);
      other = arith::ConstantOp::create(rewriter, loc,
                                        DenseElementsAttr::get(type, pad));
    }
    rewriter.replaceOpWithNewOp<LoadOp>(op, type, ptrs, mask, other,
                                        op.getCache(), op.getEvict(),
                                        /*isVolatile=*/false);
    return success();
  }
};

struct BlockStoreLowering : OpConversionPattern<BlockStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BlockStoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    BlockPointerParts parts = BlockPointerParts::unpack(adaptor.getPtr());
    BlockAccessBuilder builder(rewriter, op.getLoc(), op.getValue().getType(),
                               parts);
    Value ptrs = builder.buildPointers();
    Value mask = builder.buildMask(op.getBoundaryCheck());
    rewriter.replaceOpWithNewOp<StoreOp>(op, ptrs, adaptor.getValue().front(),
                                         mask, op.getCache(), op.getEvict());
    return success();
  }
};

/// `arith.select` between two block pointers (`p if c else q` on a run-time
/// scalar `c`, once canonicalization has folded the scf.if): a select of
/// every part.
struct SelectLowering : OpConversionPattern<arith::SelectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::SelectOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<BlockPointerType>(op.getType()) ||
        adaptor.getCondition().size() != 1)
      return failure();
    Value cond = adaptor.getCondition().front();
    SmallVector<Value> parts;
    for (auto [t, f] :
         llvm::zip_equal(adaptor.getTrueValue(), adaptor.getFalseValue()))
      parts.push_back(arith::SelectOp::create(rewriter, op.getLoc(), cond, t, f));
    rewriter.replaceOpWithMultiple(op, {parts});
    return success();
  }
};

struct TileRewriteBlockPointersPass
    : tile::impl::TileRewriteBlockPointersBase<TileRewriteBlockPointersPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    BlockPointerTypeConverter converter;
    ConversionTarget target(*ctx);
    auto noBlockPointers = [](Operation *op) {
      auto isBlockPtr = [](Type t) { return isa<BlockPointerType>(t); };
      return llvm::none_of(op->getOperandTypes(), isBlockPtr) &&
             llvm::none_of(op->getResultTypes(), isBlockPtr);
    };
    target.markUnknownOpDynamicallyLegal(noBlockPointers);
    target.addIllegalOp<MakeBlockPtrOp, AdvanceOp, BlockLoadOp, BlockStoreOp>();
    RewritePatternSet patterns(ctx);
    patterns.add<MakeBlockPtrLowering, AdvanceLowering, BlockLoadLowering,
                 BlockStoreLowering, SelectLowering>(converter, ctx);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
