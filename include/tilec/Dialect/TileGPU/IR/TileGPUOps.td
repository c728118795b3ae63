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
include "tilec/Dialect/TileGPU/IR/TileGPUTypes.td"

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

def TileGPU_SharedMemory : Type<CPred<"::llvm::isa<::tilec::tilegpu::SharedMemoryType>($_self)">,
    "tilegpu shared memory", "::tilec::tilegpu::SharedMemoryType">;
def TileGPU_MBarriers : Type<CPred<"::llvm::isa<::tilec::tilegpu::MBarriersType>($_self)">,
    "tilegpu mbarriers", "::tilec::tilegpu::MBarriersType">;
def TileGPU_TMADescriptor : Type<CPred<"::llvm::isa<::tilec::tilegpu::TMADescriptorType>($_self)">,
    "tilegpu TMA descriptor", "::tilec::tilegpu::TMADescriptorType">;

def TileGPU_LocalAllocOp : TileGPU_Op<"local_alloc", [MemoryEffects<[MemAlloc<DefaultResource>]>]> {
  let summary = "allocate a ring of tiles in shared memory";
  let description = [{
    Reserves the kernel-lifetime shared memory of a `!tilegpu.smem` value
    (the offset is assigned when the kernel is lowered, before the per-op
    scratch area).

    Example: `%a = tilegpu.local_alloc : !tilegpu.smem<3 x tensor<128x64xf16>>`
  }];
  let results = (outs TileGPU_SharedMemory:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def TileGPU_MBarrierAllocOp : TileGPU_Op<"mbarrier_alloc", [MemoryEffects<[MemAlloc<DefaultResource>]>]> {
  let summary = "allocate and initialize mbarriers";
  let description = [{
    Reserves `count` mbarriers in shared memory; thread 0 initializes each
    with an arrival count of 1 (`mbarrier.init.shared.b64`), then
    `fence.mbarrier_init` and a CTA barrier make them visible to every
    thread and to the TMA engine. Place it where every thread executes it
    once, before any use (the kernel's entry block).

    Example: `%bars = tilegpu.mbarrier_alloc : !tilegpu.mbarriers<3>`
  }];
  let results = (outs TileGPU_MBarriers:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def TileGPU_MBarrierExpectOp : TileGPU_Op<"mbarrier_expect"> {
  let summary = "announce the bytes the next phase of an mbarrier waits for";
  let description = [{
    Thread 0 arrives on mbarrier `index` and sets its expected transaction
    count to `bytes` (`mbarrier.arrive.expect_tx.shared.b64`): the phase
    completes when the TMA copies signalling it have delivered that many
    bytes. With `pred`, only when it is true.

    Example: `tilegpu.mbarrier_expect %bars[%i], 32768 : !tilegpu.mbarriers<3>`
  }];
  let arguments = (ins TileGPU_MBarriers:$barriers, I32:$index, I32Attr:$bytes,
                   Optional<I1>:$pred);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $bytes (`if` $pred^)? attr-dict `:` type($barriers)
  }];
}

def TileGPU_MBarrierWaitOp : TileGPU_Op<"mbarrier_wait"> {
  let summary = "wait until an mbarrier completes a phase";
  let description = [{
    Every thread spins on `mbarrier.try_wait.parity.shared.b64` until phase
    `phase` (0 or 1, the parity of the phase counter) of mbarrier `index`
    has completed. In debug builds (`TILEC_DEBUG_MBARRIER`, see the pass
    options) the spin is bounded and traps with a message.

    Example: `tilegpu.mbarrier_wait %bars[%i], %phase : !tilegpu.mbarriers<3>`
  }];
  let arguments = (ins TileGPU_MBarriers:$barriers, I32:$index, I32:$phase);
  let assemblyFormat = "$barriers `[` $index `]` `,` $phase attr-dict `:` type($barriers)";
}

def TileGPU_TMALoadOp : TileGPU_Op<"tma_load", [AttrSizedOperandSegments]> {
  let summary = "TMA copy of a block from global to shared memory";
  let description = [{
    Thread 0 issues `cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes`
    (PTX ISA §9.7.9.25.4.1) copies of the block at `coords` (element
    offsets of the block's first element, outermost dimension first, as a
    block pointer's offsets) of the tensor `desc` describes, into buffer
    `index` of `dst`, completing on mbarrier `barrierIndex` of `barriers`.
    The copy is split into boxes of one swizzle row (at most 128 bytes)
    along the contiguous dimension. Elements outside the tensor (including
    negative coordinates) read as zero, or NaN as the descriptor's recipe
    says. With `pred`, only when it is true.

    Example:

    ```mlir
    tilegpu.tma_load %desc[%row, %col], %a[%i], %bars[%i]
        : !tilegpu.tma_desc<tensor<128x64xf16>>,
          !tilegpu.smem<3 x tensor<128x64xf16>>, !tilegpu.mbarriers<3>
    ```
  }];
  let arguments = (ins TileGPU_TMADescriptor:$desc, Variadic<I32>:$coords,
                   TileGPU_SharedMemory:$dst, I32:$index,
                   TileGPU_MBarriers:$barriers, I32:$barrierIndex,
                   Optional<I1>:$pred);
  let assemblyFormat = [{
    $desc `[` $coords `]` `,` $dst `[` $index `]` `,` $barriers `[` $barrierIndex `]` (`if` $pred^)? attr-dict
    `:` type($desc) `,` type($dst) `,` type($barriers)
  }];
  let hasVerifier = 1;
}

def TileGPU_WarpgroupDotOp : TileGPU_Op<"warpgroup_dot", [AllTypesMatch<["c", "result"]>]> {
  let summary = "wgmma of two shared-memory tiles into an accumulator";
  let description = [{
    `result = a @ b + c` on the tensor cores (`wgmma.mma_async`): `a` is
    buffer `aIndex` of an `M x K` ring (K contiguous), `b` buffer `bIndex` of
    a `K x N` ring (N contiguous), `c` and the result are `M x N` in a
    `#tilegpu.wgmma` layout. Issues `wgmma.fence`, the instructions and
    `wgmma.commit_group`; unless `isAsync`, also waits for them. An async
    result may only be read after a `tilegpu.warpgroup_wait` that returns it.

    Example:

    ```mlir
    %d = tilegpu.warpgroup_dot %a[%i], %b[%i], %c
         : !tilegpu.smem<3 x tensor<128x64xf16>>, !tilegpu.smem<3 x tensor<64x128xf16>>,
           tensor<128x128xf32, #wgmma>
    ```
  }];
  let arguments = (ins TileGPU_SharedMemory:$a, I32:$aIndex,
                   TileGPU_SharedMemory:$b, I32:$bIndex,
                   RankedTensorOf<[AnyType]>:$c, UnitAttr:$isAsync);
  let results = (outs RankedTensorOf<[AnyType]>:$result);
  let assemblyFormat = [{
    $a `[` $aIndex `]` `,` $b `[` $bIndex `]` `,` $c attr-dict
    `:` type($a) `,` type($b) `,` type($c)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Type getResultType() { return getC().getType(); }
  }];
}

def TileGPU_WarpgroupWaitOp : TileGPU_Op<"warpgroup_wait", [AllTypesMatch<["inputs", "outputs"]>]> {
  let summary = "wait for asynchronous warpgroup dots";
  let description = [{
    `wgmma.wait_group.sync.aligned pendings`: returns once at most
    `pendings` committed wgmma groups of this warpgroup are still running.
    Takes the accumulators of those dots and returns them: only the returned
    values may be read.

    Example: `%r = tilegpu.warpgroup_wait %d {pendings = 1 : i32} : tensor<128x128xf32, #wgmma>`
  }];
  let arguments = (ins Variadic<RankedTensorOf<[AnyType]>>:$inputs, I32Attr:$pendings);
  let results = (outs Variadic<RankedTensorOf<[AnyType]>>:$outputs);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs)";
}

#endif // TILEC_DIALECT_TILEGPU_IR_TILEGPUOPS_TD
