//===- TileToLinalg.cpp - tiles to linalg/tensor/scf for the host ---------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The convert-tile-to-linalg pass (see Conversion/Passes.td): makes every
// function a per-program function (grid arguments appended), then runs one
// dialect conversion whose patterns live in one file per op family.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/Passes.h"
#include "tilec/Conversion/TileToLinalg/TileToLinalg.h"

#include "TileToLinalgSupport.h"

#include "tilec/Analysis/AxisInfo.h"
#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tilec {
#define GEN_PASS_DEF_CONVERTTILETOLINALG
#include "tilec/Conversion/Passes.h.inc"
} // namespace tilec

#define DEBUG_TYPE "convert-tile-to-linalg"

using namespace mlir;
using namespace tilec;
using namespace tilec::cpu;

TileToLinalgTypeConverter::TileToLinalgTypeConverter(MLIRContext *ctx) {
  addConversion([](Type type) { return type; });
  addConversion([ctx](tile::PointerType) -> Type {
    return IntegerType::get(ctx, 64);
  });
  addConversion([this](RankedTensorType type) -> Type {
    Type element = convertType(type.getElementType());
    if (!element)
      return Type();
    return RankedTensorType::get(type.getShape(), element,
                                 type.getEncoding());
  });
}

int64_t cpu::getStorageBytes(Type type) {
  if (isa<tile::PointerType>(type))
    return 8;
  if (type.isIntOrFloat())
    return llvm::divideCeil(type.getIntOrFloatBitWidth(), 8);
  return 8;
}

Value cpu::buildParallelGeneric(OpBuilder &b, Location loc,
                                RankedTensorType resultType, ValueRange inputs,
                                ArrayRef<AffineMap> inputMaps,
                                ElementBodyBuilder body) {
  unsigned rank = resultType.getRank();
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                       resultType.getElementType());
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value result = body(nested, nestedLoc, args.drop_back());
        linalg::YieldOp::create(nested, nestedLoc, result);
      });
  return generic.getResult(0);
}

Value cpu::buildCopyGeneric(OpBuilder &b, Location loc,
                            RankedTensorType resultType, Value src,
                            AffineMap map) {
  return buildParallelGeneric(
      b, loc, resultType, src, map,
      [](OpBuilder &, Location, ValueRange args) { return args[0]; });
}

Value cpu::buildElementwiseGeneric(OpBuilder &b, Location loc,
                                   RankedTensorType resultType,
                                   ValueRange inputs, ElementBodyBuilder body) {
  SmallVector<AffineMap> maps(inputs.size(),
                              b.getMultiDimIdentityMap(resultType.getRank()));
  return buildParallelGeneric(b, loc, resultType, inputs, maps, body);
}

namespace {

/// Appends the grid arguments (cpu::kNumGridArguments i32s) to every function
/// with a body and replaces `tile.program_id` / `tile.num_programs` by them.
/// Drops the `tile.divisibility` argument attributes: addresses are plain
/// i64 from here on.
LogicalResult appendGridArguments(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  Type i32 = IntegerType::get(ctx, 32);
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      func.removeArgAttr(i, tile::kDivisibilityAttrName);
    unsigned first = func.getNumArguments();
    SmallVector<unsigned> indices(kNumGridArguments, first);
    SmallVector<Type> types(kNumGridArguments, i32);
    SmallVector<DictionaryAttr> attrs(kNumGridArguments,
                                      DictionaryAttr::get(ctx));
    SmallVector<Location> locs(kNumGridArguments, func.getLoc());
    if (failed(func.insertArguments(indices, types, attrs, locs)))
      return func.emitOpError("cannot append the grid arguments");
    func.walk([&](Operation *op) {
      if (auto pid = dyn_cast<tile::ProgramIdOp>(op)) {
        pid.replaceAllUsesWith(func.getArgument(first + pid.getAxis()));
        pid.erase();
      } else if (auto num = dyn_cast<tile::NumProgramsOp>(op)) {
        num.replaceAllUsesWith(func.getArgument(first + 3 + num.getAxis()));
        num.erase();
      }
    });
  }
  return success();
}

/// Any op outside the tile dialect without regions whose types involve
/// pointers (`arith.select` of pointer tiles, `ub.poison`): the same op on
/// the converted types.
struct ConvertPointerTypedOp : ConversionPattern {
  ConvertPointerTypedOp(TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (isa<tile::TileDialect>(op->getDialect()) || op->getNumRegions() != 0 ||
        isa<func::FuncOp, func::ReturnOp>(op))
      return rewriter.notifyMatchFailure(op, "not a plain op");
    SmallVector<Type> resultTypes;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(),
                                                resultTypes)))
      return rewriter.notifyMatchFailure(op, "unconvertible result type");
    OperationState state(op->getLoc(), op->getName(), operands, resultTypes,
                         op->getAttrs());
    Operation *converted = rewriter.create(state);
    rewriter.replaceOp(op, converted->getResults());
    return success();
  }
};

struct ConvertTileToLinalgPass
    : tilec::impl::ConvertTileToLinalgBase<ConvertTileToLinalgPass> {
  using ConvertTileToLinalgBase::ConvertTileToLinalgBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    // Inline PTX means nothing to the host: say so at each asm op.
    bool hasInlineAsm = false;
    module.walk([&](tile::InlineAsmElementwiseOp op) {
      op.emitError("inline PTX cannot run on the CPU backend "
                   "(tl.inline_asm_elementwise); the GPU backend runs it");
      hasInlineAsm = true;
    });
    if (hasInlineAsm)
      return signalPassFailure();
    if (failed(appendGridArguments(module)))
      return signalPassFailure();

    TileToLinalgTypeConverter converter(ctx);
    ConversionTarget target(*ctx);
    target.addIllegalDialect<tile::TileDialect>();
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect,
                           LLVM::LLVMDialect>();
    target.markUnknownOpDynamicallyLegal(
        [&](Operation *op) { return converter.isLegal(op); });
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp func) {
      return converter.isSignatureLegal(func.getFunctionType()) &&
             converter.isLegal(&func.getBody());
    });

    // Contiguity of the pointer tiles, computed on the tile IR before it is
    // rewritten (loads and stores of contiguous rows address each row from
    // its first element).
    ModuleAxisInfo axisInfo(module);
    RewritePatternSet patterns(ctx);
    MemoryLoweringOptions memoryOptions;
    memoryOptions.sanitize = sanitize;
    memoryOptions.axisInfo = &axisInfo;
    populateViewOpToLinalgPatterns(converter, patterns);
    populateMemoryOpToLinalgPatterns(converter, patterns, memoryOptions);
    DotLoweringOptions dotOptions;
    dotOptions.tileM = dotTileM;
    dotOptions.tileN = dotTileN;
    populateDotOpToLinalgPatterns(converter, patterns, dotOptions);
    populateReduceOpToLinalgPatterns(converter, patterns);
    populateDebugOpToLinalgPatterns(converter, patterns);
    patterns.add<ConvertPointerTypedOp>(converter, ctx);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    populateCallOpTypeConversionPattern(patterns, converter);

    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

namespace {

/// `llvm.intr.masked.load` reads memory (the enabled lanes at its pointer)
/// and does nothing else.
struct MaskedLoadMemoryEffects
    : MemoryEffectOpInterface::ExternalModel<MaskedLoadMemoryEffects,
                                             LLVM::MaskedLoadOp> {
  void getEffects(Operation *op,
                  SmallVectorImpl<SideEffects::EffectInstance<
                      MemoryEffects::Effect>> &effects) const {
    effects.emplace_back(MemoryEffects::Read::get(),
                         SideEffects::DefaultResource::get());
  }
};

} // namespace

void cpu::registerTileToLinalgInterfaces(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, LLVM::LLVMDialect *) {
    LLVM::MaskedLoadOp::attachInterface<MaskedLoadMemoryEffects>(*ctx);
  });
}
