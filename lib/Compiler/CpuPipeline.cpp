//===- CpuPipeline.cpp - the pass pipeline of the CPU backend -------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Compiler/CpuPipeline.h"
#include "tilec/Compiler/Compiler.h"

#include "tilec/Conversion/Passes.h"
#include "tilec/Support/ScalarType.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/TargetParser/Host.h"

using namespace tilec;

static void addCleanups(mlir::OpPassManager &pm) {
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
}

void tilec::buildCpuPipeline(mlir::OpPassManager &pm,
                             const CpuPipelineOptions &options) {
  // 1. The tile-level passes the GPU pipeline runs too (block pointers
  // become pointer tiles).
  buildTileLevelPipeline(pm);

  // 2. Tiles to value-semantics linalg on tensors; chains of elementwise
  // generics (address arithmetic, masks, math) fuse into one loop nest.
  ConvertTileToLinalgOptions toLinalg;
  toLinalg.sanitize = options.sanitize;
  toLinalg.dotTileM = options.dotTileM;
  toLinalg.dotTileN = options.dotTileN;
  if (toLinalg.dotTileM < 0 || toLinalg.dotTileN < 0) {
    bool avx512 = llvm::sys::getHostCPUFeatures().lookup("avx512f");
    if (toLinalg.dotTileM < 0)
      toLinalg.dotTileM = avx512 ? 8 : 4;
    if (toLinalg.dotTileN < 0)
      toLinalg.dotTileN = avx512 ? 32 : 16;
  }
  pm.addPass(createConvertTileToLinalg(toLinalg));
  pm.addPass(mlir::createConvertElementwiseToLinalgPass());
  pm.addPass(mlir::createLinalgElementwiseOpFusionPass());
  // Accesses of contiguous rows read the first column of their address
  // tile only: compute only that column.
  pm.addPass(createBubbleUpExtractSlices());
  addCleanups(pm);

  // 3. Tensors to buffers: heap allocations freed by the ownership-based
  // deallocation, loop-carried accumulators updated in place.
  mlir::bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(mlir::bufferization::createOneShotBufferizePass(bufferize));
  mlir::bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(mlir::createConvertBufferizationToMemRefPass());
  // A K loop's per-iteration temporaries (loaded tiles, masks, addresses,
  // widened dot operands): one allocation per loop, not per iteration.
  pm.addPass(createHoistLoopLocalBuffers());
  pm.addPass(mlir::createConvertLinalgToLoopsPass());
  addCleanups(pm);
  pm.addPass(mlir::createLoopInvariantCodeMotionPass());

  // 4. Floating-point types the host has no arithmetic for: f16/bf16 special
  // functions compute in f32 (as on the GPU); bf16 and fp8 arithmetic is
  // emulated in f32 with one rounding per operation, and bf16 and fp8
  // conversions become integer code (no libgcc helper needed; fp8 rounds
  // and saturates like Hopper's cvt.rn.satfinite). f16 arithmetic stays f16:
  // LLVM's x86 backend promotes each operation to f32 and rounds the result
  // to nearest even, which is what the GPU's f16 instructions compute.
  pm.addPass(mlir::math::createMathExtendToSupportedTypes());
  mlir::arith::ArithEmulateUnsupportedFloatsOptions emulate;
  for (ScalarType type :
       {ScalarType::BF16, ScalarType::FP8E4NV, ScalarType::FP8E5})
    emulate.sourceTypeStrs.push_back(
        std::string(getScalarTypeInfo(type).mlirName));
  emulate.targetTypeStr = "f32";
  pm.addPass(mlir::arith::createArithEmulateUnsupportedFloats(emulate));
  pm.addPass(createExpandFloat8Conversions());
  mlir::arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(mlir::arith::createArithExpandOpsPass(expand));

  // 5. The standard conversions to the LLVM dialect.
  pm.addPass(mlir::createLowerAffinePass());
  pm.addPass(mlir::createSCFToControlFlowPass());
  // The dot's vector ops (DotOpToLinalg.cpp): 1-d in-bounds transfers
  // become plain vector loads and stores.
  pm.addPass(mlir::createConvertVectorToLLVMPass());
  pm.addPass(mlir::memref::createExpandStridedMetadataPass());
  pm.addPass(mlir::createLowerAffinePass());
  // aligned_alloc rather than malloc plus pointer arithmetic: LLVM then
  // knows every tile buffer aliases nothing else, which lets it hoist and
  // vectorize the loops that read one tile and write another.
  mlir::FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useAlignedAlloc = true;
  pm.addPass(mlir::createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(mlir::createConvertMathToLLVMPass());
  pm.addPass(mlir::createConvertMathToLibmPass());
  pm.addPass(mlir::createArithToLLVMConversionPass());
  pm.addPass(mlir::createConvertIndexToLLVMPass());
  pm.addPass(mlir::createConvertFuncToLLVMPass());
  pm.addPass(mlir::createConvertControlFlowToLLVMPass());
  pm.addPass(mlir::createReconcileUnrealizedCastsPass());
  addCleanups(pm);
}
