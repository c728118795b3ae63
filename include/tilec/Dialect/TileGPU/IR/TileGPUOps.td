//===- TileGPUOps.td - tilegpu dialect operations ----------*- tablegen -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_IR_TILEGPUOPS_TD
#define TILEC_DIALECT_TILEGPU_IR_TILEGPUOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "tilec/Dialect/TileGPU/IR/TileGPUDialect.td"
include "tilec/Dialect/TileGPU/IR/TileGPUAttrs.td"

class TileGPU_Op<string mnemonic, list<Trait> traits = []>
    : Op<TileGPU_Dialect, mnemonic, traits>;

def TileGPU_ConvertLayoutOp : TileGPU_Op<"convert_layout",
    [Pure, SameOperandsAndResultShape, SameOperandsAndResultElementType]> {
  let summary = "redistribute a tile over the threads";
  let description = [{
    The same tile in another layout. When every thread already holds the
    elements it needs (the layouts agree on lanes and warps) this is a
    renaming of registers; otherwise the tile goes through shared memory
    (each thread writes the elements it holds, a CTA barrier, each thread
    reads the elements of the new layout).

    Example:

    ```mlir
    %y = tilegpu.convert_layout %x : tensor<64xf32, #blocked> -> tensor<64xf32, #slice>
    ```
  }];
  let arguments = (ins RankedTensorOf<[AnyType]>:$src);
  let results = (outs RankedTensorOf<[AnyType]>:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def TileGPU_BarrierOp : TileGPU_Op<"barrier"> {
  let summary = "CTA-wide barrier";
  let description = [{
    `bar.sync 0`: every thread of the CTA waits here; shared-memory writes
    before it are visible to reads after it.

    Example: `tilegpu.barrier`
  }];
  let assemblyFormat = "attr-dict";
}

#endif // TILEC_DIALECT_TILEGPU_IR_TILEGPUOPS_TD
