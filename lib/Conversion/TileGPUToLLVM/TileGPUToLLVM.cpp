//===- TileGPUToLLVM.cpp - distributed tiles to per-thread code -----------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The convert-tilegpu-to-llvm pass (see Conversion/Passes.td). The patterns
// live in one file per op family; this file sets up the 1:N conversion,
// records the shared memory the kernel needs and marks kernels for NVVM.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/Passes.h"

#include "LoweringSupport.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tilec {
#define GEN_PASS_DEF_CONVERTTILEGPUTOLLVM
#include "tilec/Conversion/Passes.h.inc"
} // namespace tilec

#define DEBUG_TYPE "convert-tilegpu-to-llvm"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;

namespace {

/// Lowers each tilegpu.warp_specialize of `func` (its regions already
/// converted) to the split of the CTA's threads: the consumers (threads
/// below 32·num_warps) raise their registers and run the consumer region;
/// the producer warpgroup lowers its registers, and its first warp runs
/// the producer region. Returns the warps the kernel gains.
unsigned lowerWarpSpecialize(func::FuncOp func) {
  unsigned extraWarps = 0;
  SmallVector<tilegpu::WarpSpecializeOp> ops;
  func.walk([&](tilegpu::WarpSpecializeOp ws) { ops.push_back(ws); });
  for (tilegpu::WarpSpecializeOp ws : ops) {
    Location loc = ws.getLoc();
    OpBuilder b(ws);
    int64_t consumerThreads = ws.getConsumerWarps() * tilegpu::kThreadsPerWarp;
    auto moveRegion = [&](Region &region, Block *dest) {
      Block &src = region.front();
      src.getTerminator()->erase();
      dest->getOperations().splice(Block::iterator(dest->getTerminator()),
                                   src.getOperations());
    };
    Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
    Value isConsumer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid,
                                             i32Val(b, loc, consumerThreads));
    auto split = scf::IfOp::create(b, loc, isConsumer, /*withElseRegion=*/true);
    {
      OpBuilder then = OpBuilder::atBlockBegin(split.thenBlock());
      NVVM::SetMaxRegisterOp::create(then, loc, ws.getConsumerRegisters(),
                                     NVVM::SetMaxRegisterAction::increase);
      moveRegion(ws.getConsumer(), split.thenBlock());
    }
    {
      // setmaxnreg is executed by every warp of the warpgroup; then the
      // producer's first warp runs the region, the others are done.
      OpBuilder other = OpBuilder::atBlockBegin(split.elseBlock());
      NVVM::SetMaxRegisterOp::create(other, loc, ws.getProducerRegisters(),
                                     NVVM::SetMaxRegisterAction::decrease);
      Value warp = arith::DivUIOp::create(other, loc, tid,
                                          i32Val(other, loc, tilegpu::kThreadsPerWarp));
      Value first = arith::CmpIOp::create(other, loc, arith::CmpIPredicate::eq, warp,
                                          i32Val(other, loc, ws.getConsumerWarps()));
      auto producer = scf::IfOp::create(other, loc, first, /*withElseRegion=*/false);
      moveRegion(ws.getProducer(), producer.thenBlock());
    }
    extraWarps = std::max<unsigned>(extraWarps, ws.getProducerWarps());
    ws.erase();
  }
  return extraWarps;
}

/// Thread 0 prefetches each TMA descriptor parameter of `func` that a copy
/// uses (`prefetch.tensormap`, PTX ISA §9.7.9.15) first thing in the
/// kernel, so that the first copies of the CTA do not wait for the
/// descriptor's fetch from parameter space (as CUTLASS's
/// `prefetch_tma_descriptor`).
void prefetchDescriptors(LLVM::LLVMFuncOp func, ArrayRef<Value> descriptors) {
  SmallVector<Value> used;
  for (Value descriptor : descriptors)
    if (!descriptor.use_empty())
      used.push_back(descriptor);
  if (used.empty())
    return;
  auto b = OpBuilder::atBlockBegin(&func.getBody().front());
  Location loc = func.getLoc();
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  Value zero = LLVM::ConstantOp::create(b, loc, b.getI32Type(), 0);
  Value leader = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, tid, zero);
  for (Value descriptor : used)
    NVVM::PrefetchOp::create(b, loc, /*cacheLevel=*/nullptr, /*evictPriority=*/nullptr,
                             descriptor, leader, /*tensormap=*/b.getUnitAttr(),
                             /*uniform=*/nullptr, /*in_param_space=*/nullptr);
}

/// Turns every (now scalar-typed) func.func into an llvm.func (several
/// results are returned as a struct); kernels get `nvvm.kernel` and
/// `nvvm.maxntid`, and keep their `tilegpu.shared_memory` and the
/// `tilegpu.tma_recipe` of their descriptor parameters (the compiler writes
/// them into the metadata). The bodies keep their arith/scf ops for the
/// upstream conversions that follow.
LogicalResult convertFunctions(ModuleOp module) {
  OpBuilder b(module.getContext());
  SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
  for (func::FuncOp func : funcs) {
    FunctionType type = func.getFunctionType();
    Type result;
    if (type.getNumResults() == 0)
      result = LLVM::LLVMVoidType::get(module.getContext());
    else if (type.getNumResults() == 1)
      result = type.getResult(0);
    else
      result = LLVM::LLVMStructType::getLiteral(module.getContext(),
                                                type.getResults());
    // The persistent loop's mark has served (tilegpu-pipeline,
    // tilegpu-warp-specialize); the split below moves the loop.
    func.walk([](scf::ForOp loop) {
      loop->removeAttr(tilegpu::TileGPUDialect::getPersistentAttrName());
    });
    bool persistent = func->hasAttr(tilegpu::TileGPUDialect::getPersistentAttrName());
    unsigned extraWarps = lowerWarpSpecialize(func);
    b.setInsertionPoint(func);
    auto llvmFunc = LLVM::LLVMFuncOp::create(
        b, func.getLoc(), func.getName(),
        LLVM::LLVMFunctionType::get(result, type.getInputs()));
    llvmFunc.getBody().takeBody(func.getBody());
    // TMA descriptors: by-value 128-byte parameters, 64-byte aligned, read
    // in place (`__grid_constant__`).
    SmallVector<Value> descriptors;
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
      // A persistent kernel's grid: read by the metadata writer.
      if (Attribute axis = func.getArgAttr(i, tilegpu::kProgramGridAttrName))
        llvmFunc.setArgAttr(i, tilegpu::kProgramGridAttrName, axis);
      auto recipe = func.getArgAttrOfType<tilegpu::TMARecipeAttr>(
          i, tilegpu::kTMARecipeAttrName);
      if (!recipe)
        continue;
      llvmFunc.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                          TypeAttr::get(LLVM::LLVMArrayType::get(b.getI8Type(), 128)));
      llvmFunc.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                          b.getI64IntegerAttr(64));
      llvmFunc.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                          b.getUnitAttr());
      llvmFunc.setArgAttr(i, tilegpu::kTMARecipeAttrName, recipe);
      descriptors.push_back(llvmFunc.getArgument(i));
    }
    prefetchDescriptors(llvmFunc, descriptors);
    llvmFunc.walk([&](func::ReturnOp ret) {
      b.setInsertionPoint(ret);
      Value packed;
      if (ret.getNumOperands() > 1) {
        packed = LLVM::UndefOp::create(b, ret.getLoc(), result);
        for (auto [i, v] : llvm::enumerate(ret.getOperands()))
          packed = LLVM::InsertValueOp::create(b, ret.getLoc(), packed, v, i);
      } else if (ret.getNumOperands() == 1) {
        packed = ret.getOperand(0);
      }
      LLVM::ReturnOp::create(b, ret.getLoc(),
                             packed ? ValueRange{packed} : ValueRange{});
      ret.erase();
    });
    if (func->hasAttr(tile::kKernelAttrName)) {
      std::optional<unsigned> numWarps = tilegpu::lookupNumWarps(func);
      if (!numWarps)
        return func.emitError("a kernel without 'tilegpu.num_warps' reached "
                              "convert-tilegpu-to-llvm");
      // Every thread, with the warps warp specialization added: the
      // metadata's num_threads is read from here. One CTA per SM when
      // warp-specialized, so that ptxas sizes the register count for the
      // pool setmaxnreg rebalances.
      int32_t threads = (*numWarps + extraWarps) * tilegpu::kThreadsPerWarp;
      llvmFunc->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(),
                        b.getUnitAttr());
      llvmFunc->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(),
                        b.getDenseI32ArrayAttr({threads, 1, 1}));
      if (extraWarps)
        llvmFunc->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                          b.getI32IntegerAttr(1));
      llvmFunc->setAttr(tilegpu::TileGPUDialect::getSharedMemoryAttrName(),
                        func->getAttrOfType<IntegerAttr>(
                            tilegpu::TileGPUDialect::getSharedMemoryAttrName())
                            ?: b.getI64IntegerAttr(0));
      // A thread-block cluster: `.reqnctapercluster` in the PTX, and the
      // dims kept for the metadata.
      // Kept for the metadata (`persistent`).
      if (persistent)
        llvmFunc->setAttr(tilegpu::TileGPUDialect::getPersistentAttrName(),
                          b.getUnitAttr());
      if (auto cluster = func->getAttrOfType<DenseI32ArrayAttr>(
              tilegpu::TileGPUDialect::getClusterDimsAttrName())) {
        llvmFunc->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(), cluster);
        llvmFunc->setAttr(tilegpu::TileGPUDialect::getClusterDimsAttrName(),
                          cluster);
      }
    }
    func.erase();
  }
  return success();
}

/// Scalar math that NVPTX has no instruction for becomes a call to CUDA's
/// libdevice (`__nv_sinf`, …); the backend links libdevice.10.bc.
LogicalResult lowerMathToLibdevice(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  LLVMTypeConverter converter(ctx);
  RewritePatternSet patterns(ctx);
  populateLibDeviceConversionPatterns(converter, patterns);
  ConversionTarget target(*ctx);
  target.addLegalDialect<LLVM::LLVMDialect>();
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  target.addIllegalOp<math::SinOp, math::CosOp, math::TanOp, math::TanhOp,
                      math::SinhOp, math::CoshOp, math::AsinOp, math::AcosOp,
                      math::AtanOp, math::Atan2Op, math::ErfOp, math::ErfcOp,
                      math::Log1pOp, math::ExpM1Op, math::Log10Op,
                      math::PowFOp, math::CbrtOp, math::RoundOp>();
  // f64 has no approximation in NVVM: libdevice too.
  target.addDynamicallyLegalOp<math::ExpOp, math::Exp2Op, math::LogOp,
                               math::Log2Op, math::RsqrtOp>(
      [](Operation *op) { return !op->getResult(0).getType().isF64(); });
  return applyPartialConversion(module, target, std::move(patterns));
}

struct ConvertTileGPUToLLVMPass
    : tilec::impl::ConvertTileGPUToLLVMBase<ConvertTileGPUToLLVMPass> {
  using ConvertTileGPUToLLVMBase::ConvertTileGPUToLLVMBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    if (failed(checkInlineAsmRuns(module)))
      return signalPassFailure();
    ModuleAxisInfo axisInfo(module);
    LoweringState state(axisInfo);
    state.mbarrierSpinLimit = mbarrierSpinLimit;
    state.vectorReductions = vectorReductions;
    TileGPUTypeConverter converter(ctx);

    ConversionTarget target(*ctx);
    target.addIllegalDialect<tile::TileDialect, tilegpu::TileGPUDialect>();
    target.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect>();
    // Kept until their regions are converted (their ops' lowering reads
    // which region they are in), then lowered by lowerWarpSpecialize.
    target.addLegalOp<tilegpu::WarpSpecializeOp, tilegpu::WarpYieldOp>();
    target.markUnknownOpDynamicallyLegal(
        [&](Operation *op) { return converter.isLegal(op); });
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp func) {
      return converter.isSignatureLegal(func.getFunctionType()) &&
             converter.isLegal(&func.getBody());
    });
    // f32 divisions that need not be IEEE-rounded go to div.full.f32.
    target.addDynamicallyLegalOp<arith::DivFOp>([&](arith::DivFOp op) {
      return converter.isLegal(op.getOperation()) && !isFullRangeDivision(op);
    });
    // Special functions on f16/bf16/f32 go to NVVM's approximations.
    target.addDynamicallyLegalOp<math::Exp2Op, math::ExpOp, math::Log2Op,
                                 math::LogOp, math::RsqrtOp>([&](Operation *op) {
      return converter.isLegal(op) &&
             !isa<Float16Type, BFloat16Type, Float32Type>(
                 op->getResult(0).getType());
    });

    RewritePatternSet patterns(ctx);
    populateElementwiseOpToLLVMPatterns(converter, patterns, state);
    populateViewOpToLLVMPatterns(converter, patterns, state);
    populateMemoryOpToLLVMPatterns(converter, patterns, state);
    populateAtomicOpToLLVMPatterns(converter, patterns, state);
    populateReduceOpToLLVMPatterns(converter, patterns, state);
    populateScanOpToLLVMPatterns(converter, patterns, state);
    populateDotOpToLLVMPatterns(converter, patterns, state);
    populateProgramOpToLLVMPatterns(converter, patterns, state);
    populateDebugOpToLLVMPatterns(converter, patterns, state);
    populateAsyncOpToLLVMPatterns(converter, patterns, state);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    populateCallOpTypeConversionPattern(patterns, converter);

    if (failed(applyPartialConversion(module, target, std::move(patterns))) ||
        failed(lowerMathToLibdevice(module)))
      return signalPassFailure();

    if (state.failed || failed(convertFunctions(module)))
      return signalPassFailure();
  }
};

} // namespace
