//===- Pipeline.cpp - the pass pipeline of DESIGN.md §3 -------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Compiler/Compiler.h"

#include "tilec/Conversion/Passes.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
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
  }
  return "";
}

static void addCleanups(mlir::OpPassManager &pm) {
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
}

void tilec::buildTileLevelPipeline(mlir::OpPassManager &pm) {
  addCleanups(pm);
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
  // 2–3. Block pointers become pointer tiles (until TMA claims them), then
  // layouts are assigned.
  buildTileLevelPipeline(pm);
  ConvertTileToTileGPUOptions layoutOptions;
  layoutOptions.numWarps = options.numWarps;
  pm.addPass(createConvertTileToTileGPU(layoutOptions));
  addCleanups(pm);
  if (stop == EmitKind::TileGPU)
    return;
  // 9. Per-thread code, then upstream lowering to the LLVM dialect.
  pm.addPass(createConvertTileGPUToLLVM());
  pm.addPass(mlir::createSCFToControlFlowPass());
  pm.addPass(mlir::createConvertToLLVMPass());
  pm.addPass(mlir::createReconcileUnrealizedCastsPass());
  addCleanups(pm);
}
