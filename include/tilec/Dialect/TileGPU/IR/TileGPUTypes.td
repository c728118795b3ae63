//===- TileGPUTypes.td - tilegpu types ---------------------*- tablegen -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_IR_TILEGPUTYPES_TD
#define TILEC_DIALECT_TILEGPU_IR_TILEGPUTYPES_TD

include "mlir/IR/AttrTypeBase.td"
include "tilec/Dialect/TileGPU/IR/TileGPUDialect.td"

class TileGPU_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<TileGPU_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def TileGPU_SharedMemoryType : TileGPU_Type<"SharedMemory", "smem"> {
  let summary = "ring of tiles in shared memory, swizzled for wgmma and TMA";
  let description = [{
    `numBuffers` copies of a 2-d tile of type `tileType` in the CTA's shared
    memory, each in the swizzled layout that `wgmma.mma_async` reads and a
    TMA copy writes (see SharedLayout.h: the last dimension contiguous, cut
    into blocks of 128/64/32 bytes, 16-byte chunks XOR-ed within 8-row
    groups). Each buffer starts at a multiple of 1024 bytes. Ops address one
    buffer with an index.

    Example: `!tilegpu.smem<3 x tensor<128x64xf16>>` (3 stages of an A tile).
  }];
  let parameters = (ins "unsigned":$numBuffers, "::mlir::RankedTensorType":$tileType);
  let assemblyFormat = "`<` $numBuffers `x` $tileType `>`";
  let extraClassDeclaration = [{
    /// Bytes of one buffer (rounded up to 1024).
    int64_t getBufferBytes() const;
    /// The swizzled layout of one buffer (SharedLayout.h).
    SharedTileLayout getLayout() const;
    /// Swizzle-wide boxes per buffer: the TMA copies that fill one.
    int64_t getBoxCount() const {
      SharedTileLayout layout = getLayout();
      return layout.cols / layout.getBlockCols();
    }
  }];
}

def TileGPU_MBarriersType : TileGPU_Type<"MBarriers", "mbarriers"> {
  let summary = "array of mbarrier objects in shared memory";
  let description = [{
    `count` 64-bit mbarrier objects (PTX ISA §9.7.13.15), each initialized
    with an arrival count of 1 and tracking a transaction byte count: a
    producer thread announces the bytes it expects (`mbarrier_expect`), the
    TMA copies complete them, consumers wait on the phase parity.

    Example: `!tilegpu.mbarriers<3>`.
  }];
  let parameters = (ins "unsigned":$count);
  let assemblyFormat = "`<` $count `>`";
}

def TileGPU_TMADescriptorType : TileGPU_Type<"TMADescriptor", "tma_desc"> {
  let summary = "a CUtensorMap describing a tensor in global memory for TMA";
  let description = [{
    A 128-byte TMA descriptor (`CUtensorMap`, PTX ISA §5.5.8 "Tensor-map"),
    built by the runtime at launch with `cuTensorMapEncodeTiled` and passed
    as a `__grid_constant__` kernel parameter (64-byte aligned). Its recipe
    (base pointer, sizes and strides in terms of the kernel's parameters,
    box, swizzle, out-of-bounds fill) is the `tilegpu.tma_recipe` attribute
    (`#tilegpu.tma_recipe`) of the kernel argument. `blockType` is the
    2-d tile one copy moves (as it lies in shared memory), `rank` the
    number of dimensions of the described tensor (2 to 5; copies give that
    many coordinates).

    Example: `!tilegpu.tma_desc<tensor<128x64xf16>, 4>`.
  }];
  let parameters = (ins "::mlir::RankedTensorType":$blockType, "unsigned":$rank);
  let assemblyFormat = "`<` $blockType `,` $rank `>`";
}

#endif // TILEC_DIALECT_TILEGPU_IR_TILEGPUTYPES_TD
