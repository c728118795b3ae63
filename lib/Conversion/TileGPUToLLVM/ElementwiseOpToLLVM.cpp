//===- ElementwiseOpToLLVM.cpp - arith/math on tiles, per slot ------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// An elementwise op on tiles becomes the same op on each register slot.
// Scalar special functions become NVVM's approximate instructions where
// Triton uses them too (ex2.approx, with .ftz for exp2, lg2.approx,
// rsqrt.approx: PTX ISA §9.7.4.x); f16/bf16 inputs are computed in f32. tl.inline_asm_elementwise
// becomes one llvm.inline_asm per group of `packed_element` slots, with
// elements narrower than 32 bits packed into registers as Triton does
// (ElementwiseInlineAsmOpConversion).
//
//===----------------------------------------------------------------------===//

#include "LoweringSupport.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
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
    // A directed rounding would become a per-slot fptrunc that the NVPTX
    // backend rounds to nearest; TruncFPairsLowering takes the modes
    // the GPU has and reports the others.
    if (auto trunc = dyn_cast<arith::TruncFOp>(op))
      if (std::optional<arith::RoundingMode> mode = trunc.getRoundingmode();
          mode && *mode != arith::RoundingMode::to_nearest_even)
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

/// f32 -> fp8 (e4m3, e5m2), f16 or bf16 on a tile: two register slots per
/// packed `cvt` (PTX ISA §9.7.9.21; NVVM's convert.f32x2.to.{f8x2, f16x2,
/// bf16x2}), slot i in the low half (PTX's `b`), an odd last slot converted
/// beside itself.
/// - fp8: `cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32`, which rounds to nearest
///   even and saturates as the integer code of expand-fp8-conversions does
///   (that code, about 17 instructions an element, stays for scalars and
///   the CPU backend); fp8 values are stored as bytes.
/// - f16/bf16 (bf16x2 needs sm_80): `cvt.{rn,rz}`, half the conversions of
///   one `cvt` a slot and already the packed pair a wgmma A fragment or a
///   32-bit store takes (Triton converts pairs the same way). The intrinsic
///   keeps LLVM from splitting a pair back into two scalar conversions, as
///   it does to a `fptrunc <2 x float>` whose halves are carried through a
///   loop.
/// The packed cvts have no other rounding: another `roundingmode` is an
/// error (a per-slot `fptrunc` would round to nearest in silence).
struct TruncFPairsLowering : OpConversionPattern<arith::TruncFOp> {
  TruncFPairsLowering(TileGPUTypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(arith::TruncFOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    Type elem = type ? type.getElementType() : Type();
    bool fp8 = isa_and_nonnull<Float8E4M3FNType, Float8E5M2Type>(elem);
    if (!type || !(fp8 || isa<Float16Type, BFloat16Type>(elem)) ||
        !getElementTypeOrSelf(op.getIn().getType()).isF32())
      return failure();
    NVVM::FPRoundingMode rounding = NVVM::FPRoundingMode::RN;
    if (std::optional<arith::RoundingMode> mode = op.getRoundingmode()) {
      if (*mode == arith::RoundingMode::toward_zero && !fp8)
        rounding = NVVM::FPRoundingMode::RZ;
      else if (*mode != arith::RoundingMode::to_nearest_even)
        return op.emitOpError("rounding mode '")
               << arith::stringifyRoundingMode(*mode) << "' to "
               << (fp8 ? "fp8" : "f16/bf16")
               << " is not supported on the GPU (only to_nearest_even"
               << (fp8 ? ")" : " and toward_zero)");
    }
    Location loc = op.getLoc();
    ValueRange in = adaptor.getIn();
    auto pairType = VectorType::get({2}, fp8 ? rewriter.getI8Type() : elem);
    auto convertPair = [&](Value hi, Value lo) -> Value {
      if (fp8)
        return NVVM::ConvertF32x2ToF8x2Op::create(
            rewriter, loc, pairType, hi, lo, NVVM::FPRoundingMode::RN,
            NVVM::SaturationMode::SATFINITE, /*relu=*/false, elem);
      if (isa<Float16Type>(elem))
        return NVVM::ConvertF32x2ToF16x2Op::create(
            rewriter, loc, pairType, hi, lo, /*random_bits=*/Value(), rounding,
            NVVM::SaturationMode::NONE, /*relu=*/false);
      return NVVM::ConvertF32x2ToBF16x2Op::create(
          rewriter, loc, pairType, hi, lo, /*random_bits=*/Value(), rounding,
          NVVM::SaturationMode::NONE, /*relu=*/false);
    };
    SmallVector<Value> results;
    for (size_t i = 0; i < in.size(); i += 2) {
      Value lo = in[i], hi = i + 1 < in.size() ? in[i + 1] : in[i];
      Value pair = convertPair(hi, lo);
      for (size_t j = 0; j < 2 && i + j < in.size(); ++j) {
        Value slot = LLVM::ExtractElementOp::create(rewriter, loc, pair,
                                                    i32Val(rewriter, loc, j));
        results.push_back(fp8 ? fromStorage(rewriter, loc, slot, elem) : slot);
      }
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

/// An f32 division that need not be IEEE-rounded (`arcp`: the frontend's
/// `/` and tl.fdiv) is `div.full.f32` (PTX ISA §9.7.3.8: at most 2 ulp
/// over the full range), as Triton lowers `/`; the IEEE `div.rn.f32` the
/// NVPTX backend would emit costs about ten times the instructions
/// (attention's epilogue divides 64 accumulators per thread). tl.div_rn
/// and tl.fdiv(..., ieee_rounding=True) keep `div.rn.f32`.
struct FullRangeDivLowering : OpConversionPattern<arith::DivFOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::DivFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isFullRangeDivision(op))
      return failure();
    Type f32 = rewriter.getF32Type();
    rewriter.replaceOp(op, LLVM::CallIntrinsicOp::create(
                               rewriter, op.getLoc(), f32,
                               rewriter.getStringAttr("llvm.nvvm.div.full"),
                               ValueRange{adaptor.getLhs(), adaptor.getRhs()})
                               .getResult(0));
    return success();
  }
};

/// tile.inline_asm_elementwise: one `llvm.inline_asm` per group of
/// `packed_element` register slots of a thread. The layout must make each
/// group consecutive elements along one dimension: its first
/// log2(packed_element) register bases are 1, 2, 4, ... along that
/// dimension (layout inference asks for such runs).
struct InlineAsmElementwiseLowering
    : OpConversionPattern<tile::InlineAsmElementwiseOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::InlineAsmElementwiseOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    unsigned pack = op.getPackedElement();
    size_t numSlots = 1;
    if (auto tensor = dyn_cast<RankedTensorType>(op.getResult(0).getType())) {
      FailureOr<tilegpu::LinearLayout> layout = getLayoutOf(loc, tensor);
      if (failed(layout))
        return failure();
      // checkInlineAsmRuns ran before the conversion.
      numSlots = layout->getNumRegisters();
    }
    auto converter = getTypeConverter<TileGPUTypeConverter>();
    // Per value (results, then arguments): its element type in registers,
    // and how many elements share one register.
    auto regInfo = [&](Type type) {
      Type element = tile::getElementTypeOrSelf(type);
      return std::make_pair(
          converter->convertElementType(element),
          tile::InlineAsmElementwiseOp::getElementsPerRegister(element, pack));
    };
    auto packedType = [&](Type element, unsigned per) -> Type {
      if (per == 1)
        return element;
      return rewriter.getIntegerType(per * element.getIntOrFloatBitWidth());
    };

    SmallVector<Type> regTypes;
    for (Type type : op.getResultTypes()) {
      auto [element, per] = regInfo(type);
      for (unsigned j = 0; j < pack; j += per)
        regTypes.push_back(packedType(element, per));
    }
    Type asmType = regTypes.size() == 1
                       ? regTypes.front()
                       : LLVM::LLVMStructType::getLiteral(ctx, regTypes);

    SmallVector<SmallVector<Value>> results(op.getNumResults());
    for (size_t group = 0; group < numSlots; group += pack) {
      SmallVector<Value> asmOperands;
      for (auto [arg, slots] : llvm::zip(op.getArgs(), adaptor.getOperands())) {
        auto [element, per] = regInfo(arg.getType());
        for (unsigned j = 0; j < pack; j += per) {
          if (per == 1) {
            asmOperands.push_back(slots[group + j]);
            continue;
          }
          auto vectorType = VectorType::get({per}, element);
          Value vec = LLVM::UndefOp::create(rewriter, loc, vectorType);
          for (unsigned k = 0; k < per; ++k)
            vec = LLVM::InsertElementOp::create(rewriter, loc, vec,
                                                slots[group + j + k],
                                                i32Val(rewriter, loc, k));
          asmOperands.push_back(LLVM::BitcastOp::create(
              rewriter, loc, packedType(element, per), vec));
        }
      }
      auto asmOp = LLVM::InlineAsmOp::create(
          rewriter, loc, asmType, asmOperands, op.getAsmString(),
          op.getConstraints(), /*has_side_effects=*/!op.getPure(),
          /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
          LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT),
          /*operand_attrs=*/ArrayAttr());
      unsigned reg = 0;
      for (auto [r, type] : llvm::enumerate(op.getResultTypes())) {
        auto [element, per] = regInfo(type);
        for (unsigned j = 0; j < pack; j += per, ++reg) {
          Value value = regTypes.size() == 1
                            ? asmOp.getResult(0)
                            : LLVM::ExtractValueOp::create(
                                  rewriter, loc, asmOp.getResult(0), reg)
                                  .getResult();
          if (per == 1) {
            results[r].push_back(value);
            continue;
          }
          Value vec = LLVM::BitcastOp::create(
              rewriter, loc, VectorType::get({per}, element), value);
          for (unsigned k = 0; k < per; ++k)
            results[r].push_back(LLVM::ExtractElementOp::create(
                rewriter, loc, vec, i32Val(rewriter, loc, k)));
        }
      }
    }
    SmallVector<ValueRange> replacements(results.begin(), results.end());
    rewriter.replaceOpWithMultiple(op, replacements);
    return success();
  }
};

} // namespace

/// Fails with a located error unless every thread's register slots come in
/// groups of `pack` consecutive elements along one dimension.
static LogicalResult checkRuns(tile::InlineAsmElementwiseOp op,
                               const tilegpu::LinearLayout &layout,
                               unsigned pack) {
  if (pack == 1)
    return success();
  unsigned bits = llvm::Log2_32(pack);
  ArrayRef<tilegpu::Coord> bases = layout.getBases(tilegpu::HwDim::Register);
  bool ok = bases.size() >= bits;
  std::optional<unsigned> dim;
  for (unsigned i = 0; ok && i < bits; ++i) {
    const tilegpu::Coord &basis = bases[i];
    unsigned nonZero = 0;
    for (auto [d, c] : llvm::enumerate(basis)) {
      if (c == 0)
        continue;
      ++nonZero;
      ok &= c == (int64_t(1) << i) && (!dim || *dim == d);
      dim = d;
    }
    ok &= nonZero == 1;
  }
  if (ok)
    return success();
  std::string shape;
  llvm::raw_string_ostream os(shape);
  llvm::interleave(layout.getShape(), os, "x");
  return op.emitError()
         << "tl.inline_asm_elementwise with pack=" << pack << " needs runs of "
         << pack << " consecutive elements in each thread, but the " << shape
         << " tile gives each thread " << layout.getNumRegisters() << " element"
         << (layout.getNumRegisters() == 1 ? "" : "s")
         << (bases.size() >= bits ? " that are not consecutive" : "")
         << " (use a larger tile, fewer warps or a smaller pack)";
}

LogicalResult lowering::checkInlineAsmRuns(ModuleOp module) {
  bool ok = true;
  module.walk([&](tile::InlineAsmElementwiseOp op) {
    auto tensor = dyn_cast<RankedTensorType>(op.getResult(0).getType());
    if (!tensor)
      return;
    FailureOr<tilegpu::LinearLayout> layout = getLayoutOf(op.getLoc(), tensor);
    ok &= succeeded(layout) &&
          succeeded(checkRuns(op, *layout, op.getPackedElement()));
  });
  return success(ok);
}

bool lowering::isFullRangeDivision(Operation *divf) {
  auto op = dyn_cast<arith::DivFOp>(divf);
  return op && op.getType().isF32() &&
         arith::bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::arcp);
}

void lowering::populateElementwiseOpToLLVMPatterns(
    TileGPUTypeConverter &converter, RewritePatternSet &patterns,
    LoweringState &state) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ElementwiseOpLowering>(converter, ctx);
  patterns.add<TruncFPairsLowering>(converter, ctx);
  patterns.add<ConstantOpLowering>(converter, ctx);
  patterns.add<ScalarSelectLowering>(converter, ctx);
  patterns.add<InlineAsmElementwiseLowering>(converter, ctx);
  patterns.add<FullRangeDivLowering>(converter, ctx);
  // exp2 flushes subnormal results to zero, as Triton's does: ptxas wraps
  // the subnormal-correct form's MUFU.EX2 in a range check and rescaling,
  // which attention's softmax pays on every element.
  patterns.add<ApproxMathLowering<math::Exp2Op>>(converter, ctx,
                                                 "llvm.nvvm.ex2.approx.ftz.f32", 1.0, 1.0);
  patterns.add<ApproxMathLowering<math::ExpOp>>(converter, ctx,
                                                "llvm.nvvm.ex2.approx.f32", kLog2E, 1.0);
  patterns.add<ApproxMathLowering<math::Log2Op>>(converter, ctx,
                                                 "llvm.nvvm.lg2.approx.f", 1.0, 1.0);
  patterns.add<ApproxMathLowering<math::LogOp>>(converter, ctx,
                                                "llvm.nvvm.lg2.approx.f", 1.0, kLn2);
  patterns.add<ApproxMathLowering<math::RsqrtOp>>(converter, ctx,
                                                  "llvm.nvvm.rsqrt.approx.f", 1.0, 1.0);
}
