//===- ElementwiseOpToLLVM.cpp - arith/math on tiles, per slot ------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// An elementwise op on tiles becomes the same op on each register slot.
// Scalar special functions become NVVM's approximate instructions where
// Triton uses them too (ex2.approx, lg2.approx, rsqrt.approx: PTX ISA
// §9.7.4.x); f16/bf16 inputs are computed in f32.
//
//===----------------------------------------------------------------------===//

#include "LoweringSupport.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;

namespace {

/// Any single-result arith/math op on tiles: one clone per register slot.
struct ElementwiseOpLowering : ConversionPattern {
  ElementwiseOpLowering(TileGPUTypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<ValueRange> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        isa<arith::ConstantOp>(op) || op->getNumResults() != 1)
      return failure();
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType)
      return failure();
    Type scalarType = getTypeConverter<TileGPUTypeConverter>()->convertElementType(
        resultType.getElementType());
    size_t numSlots = 0;
    for (ValueRange operand : operands)
      numSlots = std::max(numSlots, operand.size());
    SmallVector<Value> results;
    for (size_t r = 0; r < numSlots; ++r) {
      Operation *clone = rewriter.clone(*op);
      for (auto [i, operand] : llvm::enumerate(operands))
        clone->setOperand(i, operand.size() == 1 ? operand[0] : operand[r]);
      clone->getResult(0).setType(scalarType);
      results.push_back(clone->getResult(0));
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

/// A scalar `arith.select` of a type the converter changes (pointers:
/// `x_ptr if c else y_ptr` on a run-time `c`): the same select on the
/// converted values.
struct ScalarSelectLowering : OpConversionPattern<arith::SelectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::SelectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (isa<ShapedType>(op.getType()))
      return failure();
    Type type = getTypeConverter()->convertType(op.getType());
    if (!type)
      return failure();
    rewriter.replaceOpWithNewOp<arith::SelectOp>(
        op, type, adaptor.getCondition(), adaptor.getTrueValue(),
        adaptor.getFalseValue());
    return success();
  }
};

/// A splat constant tile: the scalar constant in every slot.
struct ConstantOpLowering : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type)
      return failure();
    auto splat = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!splat)
      return op.emitOpError("non-splat constant tiles are not supported on the "
                            "GPU yet");
    SmallVector<Type> slotTypes;
    if (failed(getTypeConverter()->convertType(type, slotTypes)))
      return failure();
    Value scalar = arith::ConstantOp::create(
        rewriter, op.getLoc(), cast<TypedAttr>(splat.getSplatValue<Attribute>()));
    rewriter.replaceOpWithMultiple(
        op, {SmallVector<Value>(slotTypes.size(), scalar)});
    return success();
  }
};

/// Calls an NVVM approximate f32 intrinsic; f16/bf16 go through f32.
Value callF32Intrinsic(ConversionPatternRewriter &rewriter, Location loc,
                       StringRef name, Value x, double preScale = 1.0,
                       double postScale = 1.0) {
  Type type = x.getType();
  Type f32 = rewriter.getF32Type();
  if (type != f32)
    x = arith::ExtFOp::create(rewriter, loc, f32, x);
  auto scale = [&](Value v, double s) -> Value {
    if (s == 1.0)
      return v;
    Value c = arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(s));
    return arith::MulFOp::create(rewriter, loc, v, c);
  };
  x = scale(x, preScale);
  Value y = LLVM::CallIntrinsicOp::create(rewriter, loc, f32,
                                          rewriter.getStringAttr(name),
                                          ValueRange{x})
                .getResult(0);
  y = scale(y, postScale);
  if (type != f32)
    y = arith::TruncFOp::create(rewriter, loc, type, y);
  return y;
}

constexpr double kLog2E = 1.4426950408889634;
constexpr double kLn2 = 0.6931471805599453;

template <typename MathOp>
struct ApproxMathLowering : OpConversionPattern<MathOp> {
  ApproxMathLowering(TileGPUTypeConverter &converter, MLIRContext *ctx,
                     StringRef intrinsic, double preScale, double postScale)
      : OpConversionPattern<MathOp>(converter, ctx), intrinsic(intrinsic),
        preScale(preScale), postScale(postScale) {}
  LogicalResult
  matchAndRewrite(MathOp op, typename MathOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<Float16Type, BFloat16Type, Float32Type>(op.getType()))
      return failure();
    rewriter.replaceOp(op, callF32Intrinsic(rewriter, op.getLoc(), intrinsic,
                                            adaptor.getOperand(), preScale,
                                            postScale));
    return success();
  }
  std::string intrinsic;
  double preScale, postScale;
};

} // namespace

void lowering::populateElementwiseOpToLLVMPatterns(
    TileGPUTypeConverter &converter, RewritePatternSet &patterns,
    LoweringState &state) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ElementwiseOpLowering>(converter, ctx);
  patterns.add<ConstantOpLowering>(converter, ctx);
  patterns.add<ScalarSelectLowering>(converter, ctx);
  patterns.add<ApproxMathLowering<math::Exp2Op>>(converter, ctx,
                                                 "llvm.nvvm.ex2.approx.f32", 1.0, 1.0);
  patterns.add<ApproxMathLowering<math::ExpOp>>(converter, ctx,
                                                "llvm.nvvm.ex2.approx.f32", kLog2E, 1.0);
  patterns.add<ApproxMathLowering<math::Log2Op>>(converter, ctx,
                                                 "llvm.nvvm.lg2.approx.f", 1.0, 1.0);
  patterns.add<ApproxMathLowering<math::LogOp>>(converter, ctx,
                                                "llvm.nvvm.lg2.approx.f", 1.0, kLn2);
  patterns.add<ApproxMathLowering<math::RsqrtOp>>(converter, ctx,
                                                  "llvm.nvvm.rsqrt.approx.f", 1.0, 1.0);
}
