//===- Pipeline.cpp - the pass pipeline of DESIGN.md §3 -------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Compiler/Compiler.h"

#include "tilec/Conversion/Passes.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace tilec;

std::optional<EmitKind> tilec::parseEmitKind(llvm::StringRef text) {
  return llvm::StringSwitch<std::optional<EmitKind>>(text)
      .Case("tile", EmitKind::Tile)
      .Case("tilegpu", EmitKind::TileGPU)
      .Case("llvm", EmitKind::LLVM)
      .Case("ptx", EmitKind::PTX)
      .Case("cubin", EmitKind::Cubin)
      .Case("c-header", EmitKind::CHeader)
      .Default(std::nullopt);
}

llvm::StringRef tilec::getArtifactExtension(EmitKind kind) {
  switch (kind) {
  case EmitKind::Tile:
  case EmitKind::TileGPU:
    return ".mlir";
  case EmitKind::LLVM:
    return ".ll";
  case EmitKind::PTX:
    return ".ptx";
  case EmitKind::Cubin:
    return ".cubin";
  case EmitKind::CHeader:
    return ".h";
  }
  return "";
}

static void addCleanups(mlir::OpPassManager &pm) {
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
}

void tilec::buildTileLevelPipeline(mlir::OpPassManager &pm) {
  addCleanups(pm);
  pm.addPass(tile::createTileFoldDotAccumulate());
  pm.addPass(tile::createTileMultiplyByReciprocal());
  pm.addPass(tile::createTileRewriteBlockPointers());
  addCleanups(pm);
  pm.addPass(mlir::createLoopInvariantCodeMotionPass());
}

void tilec::buildPipeline(mlir::OpPassManager &pm, const PipelineOptions &options,
                          EmitKind stop) {
  // 1. The frontend's tile IR, cleaned up.
  if (stop == EmitKind::Tile) {
    addCleanups(pm);
    return;
  }
  // 2–3. Block pointers become pointer tiles, then layouts are assigned.
  buildTileLevelPipeline(pm);
  ConvertTileToTileGPUOptions layoutOptions;
  layoutOptions.numWarps = options.numWarps;
  layoutOptions.useWgmma = options.useWgmma;
  layoutOptions.useMma = options.useMMA;
  layoutOptions.vectorReductions = options.vectorReductions;
  pm.addPass(createConvertTileToTileGPU(layoutOptions));
  addCleanups(pm);
  // 4'. Each CTA loops over programs of the grid.
  if (options.persistent) {
    pm.addPass(tilegpu::createTileGPUPersistent());
    addCleanups(pm);
  }
  // 4–6. How each wgmma operand reaches shared memory (TMA, cp.async,
  // registers), then the multi-stage pipeline, then the shared-memory plan.
  if (options.useWgmma) {
    // 4a'. A loop's dot whose inputs are ready earlier is issued first.
    if (options.issueDotsEarly)
      pm.addPass(tilegpu::createTileGPUIssueDotsEarly());
    // 4a''. `auto` decides, by the dots' registers, which loops are to be
    // warp-specialized (their copies then go by TMA).
    if (options.warpSpecialize == "auto")
      pm.addPass(tilegpu::createTileGPUChooseWarpSpecialize());
    tilegpu::TileGPUAssignAsyncCopiesOptions assignOptions;
    assignOptions.useTMA = options.useTMA;
    assignOptions.useCpAsync = options.useCpAsync;
    // Every loop warp-specialized where it can be: its copies are TMA.
    assignOptions.cpAsyncBoxBytes =
        options.warpSpecialize == "all" ? 0 : options.cpAsyncBoxBytes;
    pm.addPass(tilegpu::createTileGPUAssignAsyncCopies(assignOptions));
    addCleanups(pm);
    tilegpu::TileGPUPipelineOptions pipelineOptions;
    pipelineOptions.numStages = options.numStages;
    pm.addPass(tilegpu::createTileGPUPipeline(pipelineOptions));
    addCleanups(pm);
    // 6'. Clusters of neighbouring programs share their common copies.
    if (options.numCTAs > 1) {
      tilegpu::TileGPUClusterMulticastOptions clusterOptions;
      clusterOptions.numCTAs = options.numCTAs;
      pm.addPass(tilegpu::createTileGPUClusterMulticast(clusterOptions));
    }
    // 6''. f32 atomic adds of tiles (the one-sweep backward's dQ) as TMA
    // reductions from shared memory; before the split, which makes their
    // barriers the consumers' and lets no ping-pong turn span them.
    if (options.useTMA)
      pm.addPass(tilegpu::createTileGPUAtomicAddViaTMA());
    // 7. A producer warpgroup for the pipelined TMA loops.
    if (options.warpSpecialize != "off") {
      tilegpu::TileGPUWarpSpecializeOptions wsOptions;
      wsOptions.mode = options.warpSpecialize;
      wsOptions.pingPong = options.pingPong;
      pm.addPass(tilegpu::createTileGPUWarpSpecialize(wsOptions));
      addCleanups(pm);
    }
    // 7'. The last dot of a pipelined loop issued one iteration late.
    if (options.intraWarpgroupOverlap != "off") {
      tilegpu::TileGPUIntraWarpgroupOverlapOptions overlapOptions;
      overlapOptions.mode =
          options.intraWarpgroupOverlap == "on" ? "all" : "warp-specialized";
      pm.addPass(tilegpu::createTileGPUIntraWarpgroupOverlap(overlapOptions));
      addCleanups(pm);
    }
    // 7'''. The small loads of a tensor-core loop, one iteration ahead.
    if (options.prefetchLoads)
      pm.addPass(tilegpu::createTileGPUPrefetchLoads());
    // 7''''. Output tiles stored through shared memory by TMA.
    if (options.tmaStore && options.useTMA) {
      pm.addPass(tilegpu::createTileGPUStoreViaTMA());
      addCleanups(pm);
    }
  }
  // 7''. Kernels whose work grows with program_id(0) launch longest first.
  if (options.longestFirst)
    pm.addPass(tilegpu::createTileGPULongestFirst());
  pm.addPass(tilegpu::createTileGPUAllocateShared());
  if (stop == EmitKind::TileGPU)
    return;
  // 9. Per-thread code, then upstream lowering to the LLVM dialect.
  ConvertTileGPUToLLVMOptions llvmOptions;
  llvmOptions.mbarrierSpinLimit = options.mbarrierSpinLimit;
  llvmOptions.vectorReductions = options.vectorReductions;
  pm.addPass(createConvertTileGPUToLLVM(llvmOptions));
  // fp8 has no LLVM type: arithmetic on it computes in f32, conversions to
  // and from it become integer code rounding like cvt.rn.satfinite (the CPU
  // backend's passes, so both backends round alike).
  mlir::arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"f8E4M3FN", "f8E5M2"};
  emulate.targetTypeStr = "f32";
  pm.addPass(mlir::arith::createArithEmulateUnsupportedFloats(emulate));
  pm.addPass(createExpandFloat8Conversions());
  // Upstream's convert-scf-to-cf, bottom up: linear in the owner-store ifs
  // of a kernel's long block (Passes.td says why).
  pm.addPass(createSCFToControlFlowBottomUp());
  pm.addPass(mlir::createConvertToLLVMPass());
  pm.addPass(mlir::createReconcileUnrealizedCastsPass());
  addCleanups(pm);
  // Line tables: a DISubprogram on every function turns the ops' source
  // locations into `.loc` directives. DebugDirectivesOnly, like nvcc
  // -lineinfo: LineTablesOnly would also make the NVPTX backend mark the
  // module `.target sm_90a, debug`, which ptxas compiles without
  // optimization.
  if (options.lineInfo) {
    mlir::LLVM::DIScopeForLLVMFuncOpPassOptions diOptions;
    diOptions.emissionKind = mlir::LLVM::DIEmissionKind::DebugDirectivesOnly;
    pm.addPass(mlir::LLVM::createDIScopeForLLVMFuncOpPass(diOptions));
  }
}
