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
def TileGPU_TilePtr : Type<CPred<"::llvm::isa<::tilec::tile::PointerType>($_self)">,
    "tile pointer">;

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

def TileGPU_LocalAllocOp : TileGPU_Op<"local_alloc", [MemoryEffects<[MemAlloc<DefaultResource>]>]> {
  let summary = "allocate a ring of tiles in shared memory";
  let description = [{
    Reserves the shared memory of a `!tilegpu.smem` ring: `numBuffers`
    swizzled tiles, each 1024-byte aligned. Where it lives is decided by
    `tilegpu-allocate-shared`, which sets `offset` (bytes from the start of
    the kernel's dynamic shared memory, a multiple of 1024); memory is
    reused by allocations whose live ranges do not overlap. The op is placed
    at the kernel's entry; its live range is that of its uses.

    Example: `%a = tilegpu.local_alloc {offset = 0} : !tilegpu.smem<3 x tensor<128x64xf16>>`
  }];
  let arguments = (ins OptionalAttr<I64Attr>:$offset);
  let results = (outs TileGPU_SharedMemory:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def TileGPU_LocalStoreOp : TileGPU_Op<"local_store"> {
  let summary = "write a register tile into a shared-memory ring buffer";
  let description = [{
    Every thread writes the elements it holds of `value` (a 2-d tile in a
    distributed layout) into buffer `index` of `dst`, in the swizzled layout
    wgmma reads (runs of up to 16 bytes along the contiguous dimension are
    one vector store); with `transposed`, element (i, j) goes to (j, i) of
    the buffer (B given N x K for a K-major wgmma operand). Readers through
    the async proxy (wgmma, TMA stores) need a `tilegpu.fence_async_shared`
    and a CTA barrier after it; readers in other threads a CTA barrier.

    Example:

    ```mlir
    tilegpu.local_store %p, %ring[%c0] : tensor<128x64xf16, #blocked>, !tilegpu.smem<1 x tensor<128x64xf16>>
    ```
  }];
  let arguments = (ins RankedTensorOf<[AnyType]>:$value, TileGPU_SharedMemory:$dst,
                   I32:$index, UnitAttr:$transposed);
  let assemblyFormat = [{
    $value `,` $dst `[` $index `]` attr-dict `:` type($value) `,` type($dst)
  }];
  let hasVerifier = 1;
}

def TileGPU_FenceAsyncSharedOp : TileGPU_Op<"fence_async_shared"> {
  let summary = "make this thread's shared-memory writes visible to the async proxy";
  let description = [{
    `fence.proxy.async.shared::cta` (PTX ISA §9.7.13.4.18): shared-memory
    writes of the executing thread made by ordinary stores or `cp.async`
    become visible to later operations of the async proxy (wgmma operand
    reads, TMA stores). Put a CTA barrier after it when other threads issue
    those operations.

    Example: `tilegpu.fence_async_shared`
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

def TileGPU_MBarrierAllocOp : TileGPU_Op<"mbarrier_alloc", [MemoryEffects<[MemAlloc<DefaultResource>]>]> {
  let summary = "allocate mbarriers in shared memory";
  let description = [{
    Reserves `count` 8-byte mbarrier objects; `tilegpu-allocate-shared`
    sets `offset` (a multiple of 8). They hold nothing until
    `tilegpu.mbarrier_init`. The op is placed at the kernel's entry.

    Example: `%bars = tilegpu.mbarrier_alloc {offset = 98304} : !tilegpu.mbarriers<3>`
  }];
  let arguments = (ins OptionalAttr<I64Attr>:$offset);
  let results = (outs TileGPU_MBarriers:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def TileGPU_MBarrierInitOp : TileGPU_Op<"mbarrier_init"> {
  let summary = "initialize mbarriers before the copies that signal them";
  let description = [{
    Thread 0 initializes every mbarrier of `barriers` with an arrival count
    of `count` (`mbarrier.init.shared::cta.b64`, PTX ISA §9.7.13.15.9): 1
    for the barriers TMA copies complete (thread 0's expect-tx is the one
    arrival), the warp count for the barriers every warp arrives on
    (`tilegpu.mbarrier_arrive`). Then `fence.mbarrier_init.release.cluster`
    and a CTA barrier make them visible to every thread and to the TMA
    engine. Every phase count starts at 0. Executed by every thread, before
    each run of the loop that uses them (after a `tilegpu.mbarrier_inval`
    when they were used before).

    With `clusterSync`, a cluster barrier (`barrier.cluster.arrive.release`
    and `barrier.cluster.wait.acquire`, PTX ISA §9.7.13.2) replaces the CTA
    barrier: every CTA of the thread-block cluster has initialized its
    barriers before any thread goes on, since copies multicast by another
    CTA and its remote arrivals signal them (`tilegpu-cluster-multicast`).
    Every thread of every CTA of the cluster must execute it.

    Example: `tilegpu.mbarrier_init %bars : !tilegpu.mbarriers<3>`,
    `tilegpu.mbarrier_init %empty {count = 8 : i32} : !tilegpu.mbarriers<3>`
  }];
  let arguments = (ins TileGPU_MBarriers:$barriers,
                   ConfinedAttr<DefaultValuedAttr<I32Attr, "1">, [IntPositive]>:$count,
                   UnitAttr:$clusterSync);
  let assemblyFormat = "$barriers attr-dict `:` type($barriers)";
}

def TileGPU_MBarrierArriveOp : TileGPU_Op<"mbarrier_arrive"> {
  let summary = "every warp arrives once on an mbarrier";
  let description = [{
    Lane 0 of every warp arrives on mbarrier `index`
    (`mbarrier.arrive.shared::cta.b64`, release at CTA scope, PTX ISA
    §9.7.13.15.13), after the warp's own earlier operations (all lanes
    execute this op together); with `pred`, only when it is true. A barrier
    initialized with the warp count completes a phase when every warp has
    arrived: the software pipeline's consumer release, which says that the
    warps' reads of a ring buffer (their wgmma, retired by
    `tilegpu.warpgroup_wait`) are done, so that the buffer may be copied
    into again.

    With `clusterCTAs` = C, the warp arrives on that mbarrier in each of
    the first C CTAs of its thread-block cluster instead (lane q on the one
    of the CTA of rank q: `mapa.shared::cluster`, then
    `mbarrier.arrive.shared::cluster.b64`, release at CTA scope, PTX ISA
    §9.7.9.23 and §9.7.13.15.13): the release of a ring slot that copies
    multicast into every CTA of the cluster refill, so each CTA's barrier
    counts the warps of all C CTAs.

    Example: `tilegpu.mbarrier_arrive %empty[%i] if %p : !tilegpu.mbarriers<3>`,
    `tilegpu.mbarrier_arrive %empty[%i] {clusterCTAs = 2 : i32} : !tilegpu.mbarriers<3>`
  }];
  let arguments = (ins TileGPU_MBarriers:$barriers, I32:$index, Optional<I1>:$pred,
                   OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<2>, IntMaxValue<8>]>>:$clusterCTAs);
  let assemblyFormat = [{
    $barriers `[` $index `]` (`if` $pred^)? attr-dict `:` type($barriers)
  }];
  let hasVerifier = 1;
}

def TileGPU_MBarrierInvalOp : TileGPU_Op<"mbarrier_inval"> {
  let summary = "invalidate mbarriers whose last phase has been waited for";
  let description = [{
    A CTA barrier (every thread is past its last wait), then thread 0
    invalidates every mbarrier of `barriers` (`mbarrier.inval.shared::cta.b64`,
    PTX ISA §9.7.13.15.10), so that the memory can be initialized again or
    reused.

    With `clusterSync`, a cluster barrier replaces the CTA barrier: no CTA
    of the thread-block cluster still arrives on these barriers remotely
    (`tilegpu.mbarrier_arrive {clusterCTAs}`) when they are invalidated or
    the CTA exits. Every non-exited thread of every CTA of the cluster must
    execute it.

    Example: `tilegpu.mbarrier_inval %bars : !tilegpu.mbarriers<3>`
  }];
  let arguments = (ins TileGPU_MBarriers:$barriers, UnitAttr:$clusterSync);
  let assemblyFormat = "$barriers attr-dict `:` type($barriers)";
}

def TileGPU_MBarrierExpectOp : TileGPU_Op<"mbarrier_expect"> {
  let summary = "announce the bytes the next phase of an mbarrier waits for";
  let description = [{
    Thread 0 arrives on mbarrier `index` and sets its expected transaction
    count to `bytes` (`mbarrier.arrive.expect_tx.shared::cta.b64`, PTX ISA
    §9.7.13.15.12): the phase completes when the TMA copies signalling it
    have delivered that many bytes. With `pred`, only when it is true.
    `oncePerProgram`: see `tilegpu.tma_load`.

    Example: `tilegpu.mbarrier_expect %bars[%i], 32768 : !tilegpu.mbarriers<3>`
  }];
  let arguments = (ins TileGPU_MBarriers:$barriers, I32:$index, I32Attr:$bytes,
                   Optional<I1>:$pred, UnitAttr:$oncePerProgram);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $bytes (`if` $pred^)? attr-dict `:` type($barriers)
  }];
  let hasVerifier = 1;
}

def TileGPU_MBarrierWaitOp : TileGPU_Op<"mbarrier_wait"> {
  let summary = "wait until an mbarrier completes a phase";
  let description = [{
    Every thread waits (`mbarrier.try_wait.parity.shared::cta.b64` in a
    loop, PTX ISA §9.7.13.15.16) until the phase of mbarrier `index` whose
    parity is `phase` (0 or 1) has completed. With `leader`, only thread 0
    waits — the thread that issues the copies, before it copies into a
    buffer the other warps release — and, with `pred`, only when it is
    true. With the conversion's `mbarrier-spin-limit`, the spin is bounded
    and traps with a message. `oncePerProgram` (with `leader`): the wait
    for the release of a once-per-program copy's buffer, see
    `tilegpu.tma_load`.

    Example: `tilegpu.mbarrier_wait %bars[%i], %phase : !tilegpu.mbarriers<3>`,
    `tilegpu.mbarrier_wait %empty[%i], %phase leader if %p : !tilegpu.mbarriers<3>`
  }];
  let arguments = (ins TileGPU_MBarriers:$barriers, I32:$index, I32:$phase,
                   UnitAttr:$leader, Optional<I1>:$pred, UnitAttr:$oncePerProgram);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $phase (`leader` $leader^)? (`if` $pred^)? attr-dict `:` type($barriers)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Asynchronous copies
//===----------------------------------------------------------------------===//

def TileGPU_TMALoadOp : TileGPU_Op<"tma_load", [AttrSizedOperandSegments]> {
  let summary = "TMA copy of a block from global to shared memory";
  let description = [{
    Thread 0 issues `cp.async.bulk.tensor.<rank>d.shared::cluster.global.tile.mbarrier::complete_tx::bytes`
    (PTX ISA §9.7.9.25.5.2) copies of the block at `coords` of the tensor
    `desc` describes into buffer `index` of `dst`, completing on mbarrier
    `barrierIndex` of `barriers`. `coords` are element coordinates of the
    block's first element, one per descriptor dimension, outermost first
    (the block's rows then its columns come last; a block copied transposed
    gives its coordinates in the buffer's order). The copy is split into
    boxes of one swizzle row (at most 128 bytes) along the contiguous
    dimension. Elements outside the tensor (negative coordinates too) read
    as zero, or NaN as the descriptor's recipe says. With `pred`, only when
    it is true.

    With `multicast` = C, the block is the same in the first C CTAs of the
    thread-block cluster (ranks 0 … C-1, `tilegpu-cluster-multicast`
    proved it), and they share the copy: the CTA of rank r issues the boxes
    j with j mod C = r, each with `.multicast::cluster` and the mask of the
    C CTAs, so that every box lands at the same buffer offset in each of
    them and completes on each one's mbarrier `barrierIndex` (PTX ISA
    §9.7.9.25.5.2). Each CTA still expects the whole block's bytes. The
    box count must be a multiple of C. With `multicast_if`, only when that
    (the same in every CTA of the cluster) is true; otherwise each CTA
    copies the whole block into its own buffer, as without `multicast`
    (the coordinates were proved alike only for some launches, e.g. a
    GEMM's grouped program order when the group holds an even count of M
    blocks).

    `oncePerProgram`, on the copy, its `tilegpu.mbarrier_expect` and the
    leader's `tilegpu.mbarrier_wait` for the release of its buffer (all
    three directly in the body of a persistent kernel's loop over
    programs, unpredicated): tilegpu-pipeline gave this copy of a tile
    made once per program (attention's Q) the one-slot release protocol,
    and tilegpu-warp-specialize hands the three to the producer with the
    loops of the body it splits.

    Example:

    ```mlir
    tilegpu.tma_load %desc[%row, %col], %a[%i], %bars[%i]
        : !tilegpu.tma_desc<tensor<128x64xf16>, 2>,
          !tilegpu.smem<3 x tensor<128x64xf16>>, !tilegpu.mbarriers<3>
    ```
  }];
  let arguments = (ins TileGPU_TMADescriptor:$desc, Variadic<I32>:$coords,
                   TileGPU_SharedMemory:$dst, I32:$index,
                   TileGPU_MBarriers:$barriers, I32:$barrierIndex,
                   Optional<I1>:$pred, Optional<I1>:$multicastIf,
                   OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<2>, IntMaxValue<8>]>>:$multicast,
                   UnitAttr:$oncePerProgram);
  let assemblyFormat = [{
    $desc `[` $coords `]` `,` $dst `[` $index `]` `,` $barriers `[` $barrierIndex `]` (`if` $pred^)?
    (`multicast_if` $multicastIf^)? attr-dict
    `:` type($desc) `,` type($dst) `,` type($barriers)
  }];
  let hasVerifier = 1;
}

def TileGPU_TMAStoreOp : TileGPU_Op<"tma_store", [AttrSizedOperandSegments]> {
  let summary = "TMA copy of a shared-memory tile to a block of global memory";
  let description = [{
    Thread 0 issues `cp.async.bulk.tensor.<rank>d.global.shared::cta.tile.bulk_group`
    (PTX ISA §9.7.9.25.5.3) copies of buffer `index` of `src` to the block
    at `coords` (as in `tilegpu.tma_load`) of the tensor `desc` describes,
    one per swizzle-wide box, then `cp.async.bulk.commit_group`. Elements
    outside the tensor's sizes are not written. The buffer must have been
    written and made visible to the async proxy (`tilegpu.local_store`,
    `tilegpu.fence_async_shared`, a CTA barrier); `tilegpu.tma_store_wait`
    says when it may be overwritten. With `pred`, only when it is true (a
    tensor with an empty dimension, which a descriptor cannot describe:
    the runtime encodes its size as 1, and the copy must then write
    nothing).

    With `add` (f32 tiles), the copies are reductions instead,
    `cp.reduce.async.bulk.tensor.<rank>d.global.shared::cta.add.tile.bulk_group`
    (PTX ISA §9.7.9.25.5.4): each element of the block becomes its value
    plus the buffer's, atomically per element (a relaxed `tl.atomic_add`
    whose old values nobody reads: FlashAttention-3's dQ accumulation).

    Example:

    ```mlir
    tilegpu.tma_store %c[%c0], %desc[%row, %col] if %nonEmpty
        : !tilegpu.smem<1 x tensor<128x128xf16>>, !tilegpu.tma_desc<tensor<128x128xf16>, 2>
    tilegpu.tma_store add %dq[%c0], %desc[%row, %col]
        : !tilegpu.smem<1 x tensor<64x128xf32>>, !tilegpu.tma_desc<tensor<64x128xf32>, 2>
    ```
  }];
  let arguments = (ins TileGPU_SharedMemory:$src, I32:$index,
                   TileGPU_TMADescriptor:$desc, Variadic<I32>:$coords,
                   Optional<I1>:$pred, UnitAttr:$add);
  let assemblyFormat = [{
    (`add` $add^)? $src `[` $index `]` `,` $desc `[` $coords `]` (`if` $pred^)? attr-dict `:` type($src) `,` type($desc)
  }];
  let hasVerifier = 1;
}

def TileGPU_TMAStoreWaitOp : TileGPU_Op<"tma_store_wait"> {
  let summary = "wait until the TMA stores of this thread have read their source";
  let description = [{
    Thread 0 executes `cp.async.bulk.wait_group.read 0` (PTX ISA
    §9.7.9.25.5.6): every bulk store it committed has finished reading
    shared memory, which may then be reused; then a CTA barrier.
    `buffers` are the sources of those stores: they stay live (and so
    unshared, tilegpu-allocate-shared) until here.

    Example: `tilegpu.tma_store_wait`,
    `tilegpu.tma_store_wait %c : !tilegpu.smem<1 x tensor<128x128xf16>>`
  }];
  let arguments = (ins Variadic<TileGPU_SharedMemory>:$buffers);
  let assemblyFormat = "($buffers^ `:` type($buffers))? attr-dict";
}

def TileGPU_AsyncCopyOp : TileGPU_Op<"async_copy", [AttrSizedOperandSegments]> {
  let summary = "cp.async of a tile of pointers into a shared-memory ring buffer";
  let description = [{
    Every thread copies the elements it holds of the tile of pointers `ptr`
    (in its distributed layout) into their places in buffer `index` of
    `dst` (the swizzled layout wgmma reads; with `transposed` element (i, j)
    goes to (j, i)), with `cp.async.cg/ca.shared.global` (PTX ISA
    §9.7.9.25.3) of `vec` elements each (4, 8 or 16 bytes, contiguous and
    aligned in global memory, as tile-axis-info proved). Where `mask` is
    false (or `pred`, when given, is false) the chunk is zero-filled without
    reading global memory (`src-size` 0). The copies complete in the group
    of the next `tilegpu.async_commit_group`; `tilegpu.async_wait` waits for
    them.

    Example:

    ```mlir
    tilegpu.async_copy %ptrs, %a[%i] mask %mask {vec = 8 : i32}
        : tensor<128x64x!tile.ptr<f16>, #blocked>,
          !tilegpu.smem<3 x tensor<128x64xf16>>, tensor<128x64xi1, #blocked>
    ```
  }];
  let arguments = (ins RankedTensorOf<[TileGPU_TilePtr]>:$ptr,
                   Optional<RankedTensorOf<[I1]>>:$mask,
                   TileGPU_SharedMemory:$dst, I32:$index, Optional<I1>:$pred,
                   I32Attr:$vec, UnitAttr:$transposed);
  let assemblyFormat = [{
    $ptr `,` $dst `[` $index `]` (`mask` $mask^)? (`if` $pred^)? attr-dict
    `:` type($ptr) `,` type($dst) (`,` type($mask)^)?
  }];
  let hasVerifier = 1;
}

def TileGPU_AsyncCommitGroupOp : TileGPU_Op<"async_commit_group"> {
  let summary = "close this thread's group of cp.async copies";
  let description = [{
    `cp.async.commit_group` (PTX ISA §9.7.9.25.3.2): the `tilegpu.async_copy`
    copies issued since the previous commit form one group.

    Example: `tilegpu.async_commit_group`
  }];
  let assemblyFormat = "attr-dict";
}

def TileGPU_AsyncWaitOp : TileGPU_Op<"async_wait"> {
  let summary = "wait for this thread's cp.async groups";
  let description = [{
    `cp.async.wait_group pending` (PTX ISA §9.7.9.25.3.3): returns once at
    most `pending` of this thread's most recent groups are still in flight.
    Other threads' copies, and readers through the async proxy, need a
    `tilegpu.fence_async_shared` and a CTA barrier after it.

    Example: `tilegpu.async_wait {pending = 1 : i32}`
  }];
  let arguments = (ins I32Attr:$pending);
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// wgmma
//===----------------------------------------------------------------------===//

def TileGPU_WarpgroupDotOp : TileGPU_Op<"warpgroup_dot",
    [AllTypesMatch<["c", "result"]>]> {
  let summary = "wgmma of a shared-memory (or register) tile and a shared-memory tile";
  let description = [{
    `result = a @ b + c` on the tensor cores (`wgmma.mma_async`, PTX ISA
    §9.7.15.5): `a` is buffer `aIndex` of an `M x K` ring (K contiguous) or
    an `M x K` register tile in a `#tilegpu.wgmma` layout whose warps split
    M as the accumulator's do (each thread then holds the A fragments of
    its rows, §9.7.15.5.1.1: the accumulator layout of an earlier dot, like
    P in attention); `b` is buffer `bIndex` of a `K x N` ring (N contiguous)
    or, with `bTransposed`, of an `N x K` ring holding B transposed (K
    contiguous, "K-major"); `c` and the result are `M x N` in a
    `#tilegpu.wgmma` layout. wgmma reads 8-bit (e4m3, e5m2) and tf32
    operands K-major only, so their `b` must be `bTransposed`; f16/bf16 take
    either. Issues `wgmma.fence`, the instructions and `wgmma.commit_group`;
    unless `isAsync`, also waits for them. An async result may only be read
    after a `tilegpu.warpgroup_wait` that returns it, except as the `c` of a
    later `warpgroup_dot` (the tensor cores chain accumulators in order),
    and a register `a` must stay unchanged until then (PTX ISA
    §9.7.15.5.1): the wait takes it when it retires the dot in the same
    iteration; a dot left in flight across a loop's back edge is retired
    by a wait before the dot is issued again, and between the two nothing
    writes its fragments (ptxas allocating the registers of in-flight
    wgmmas, as Triton's and FlashAttention-3's kernels rely on).

    Example:

    ```mlir
    %d = tilegpu.warpgroup_dot %a[%i], %b[%i], %c
         : !tilegpu.smem<3 x tensor<128x64xf16>>, !tilegpu.smem<3 x tensor<64x128xf16>>,
           tensor<128x128xf32, #wgmma>
    ```
  }];
  let arguments = (ins AnyTypeOf<[TileGPU_SharedMemory, RankedTensorOf<[AnyType]>]>:$a,
                   Optional<I32>:$aIndex,
                   TileGPU_SharedMemory:$b, I32:$bIndex,
                   RankedTensorOf<[AnyType]>:$c, UnitAttr:$isAsync,
                   UnitAttr:$bTransposed);
  let results = (outs RankedTensorOf<[AnyType]>:$result);
  let assemblyFormat = [{
    $a (`[` $aIndex^ `]`)? `,` $b `[` $bIndex `]` `,` $c attr-dict
    `:` type($a) `,` type($b) `,` type($c)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Type getResultType() { return getC().getType(); }
    /// The M x K tile of A (the ring's tile type, or the register tile's).
    ::mlir::RankedTensorType getATileType();
    /// True when A is a register tile (not in shared memory).
    bool hasRegisterA() { return ::llvm::isa<::mlir::RankedTensorType>(getA().getType()); }
  }];
}

def TileGPU_WarpgroupWaitOp : TileGPU_Op<"warpgroup_wait", [AllTypesMatch<["inputs", "outputs"]>]> {
  let summary = "wait for asynchronous warpgroup dots";
  let description = [{
    `wgmma.wait_group.sync.aligned pendings` (PTX ISA §9.7.15.7): returns
    once at most `pendings` committed wgmma groups of this warpgroup are
    still running. Takes the accumulators of those dots and returns them
    (only the returned values may be read), and the register A operands of
    dots it retires (kept unchanged until then; their results are unused).

    Example: `%r = tilegpu.warpgroup_wait %d {pendings = 1 : i32} : tensor<128x128xf32, #wgmma>`,
    or with nothing to return, `tilegpu.warpgroup_wait {pendings = 1 : i32}`.

    Canonicalization lowers `pendings` to the groups that can still be
    running: those the previous wait in the block (or a synchronous dot,
    0) left, plus one per asynchronous dot since. The wait means the same;
    ptxas, which does not count across waits, otherwise assumes groups in
    flight after it (a loop's last waits after dQ's `pendings = 0` in the
    one-sweep backward) and inserts a wait of its own at the loop's
    back edge, which under a warp-specialized branch serializes every
    wgmma of the kernel (ptxas C7517, C7518).
  }];
  let arguments = (ins Variadic<RankedTensorOf<[AnyType]>>:$inputs, I32Attr:$pendings);
  let results = (outs Variadic<RankedTensorOf<[AnyType]>>:$outputs);
  let assemblyFormat = "($inputs^)? attr-dict (`:` type($inputs)^)?";
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Warp specialization
//===----------------------------------------------------------------------===//

def TileGPU_WarpSpecializeOp : TileGPU_Op<"warp_specialize",
    [RecursiveMemoryEffects, NoRegionArguments,
     SingleBlockImplicitTerminator<"::tilec::tilegpu::WarpYieldOp">]> {
  let summary = "split the CTA into consumer warps and a producer warpgroup";
  let description = [{
    The kernel's threads are the `num_warps` warps of the kernel (threads
    0 … 32·num_warps − 1, the ones every layout distributes over: the
    *consumers*) and `producerWarps` more (one warpgroup, the
    *producer*), so the CTA has 32·(num_warps + producerWarps) threads.
    The consumers run the `consumer` region, the producer's first warp the
    `producer` region; each region sees the values defined before the op
    (the kernel's arguments and shared-memory allocations), and nothing
    flows between them except through shared memory and mbarriers.

    On entry every warpgroup changes its register budget
    (`setmaxnreg.{inc,dec}.sync.aligned.u32`, PTX ISA §9.7.19.5): the
    consumers to `consumerRegisters` per thread, the producer to
    `producerRegisters` (multiples of 8 in [24, 256], and together at most
    the 64K registers of an SM: producerRegisters·32·producerWarps +
    consumerRegisters·32·num_warps ≤ 65536); the kernel's launch bound
    (`.maxntid`) counts all the threads, so that ptxas gives the kernel a
    register count the pool can be rebalanced from.

    Inside the op, what an op's lowering means by "the CTA" and "thread 0"
    is relative to the region it is in:

    - in `consumer`, a CTA barrier is the named barrier 1 of the consumer
      threads (`bar.sync 1, 32·num_warps`), and thread 0 is thread 0;
    - in `producer`, the region is executed by one warp (thread
      32·num_warps is its leader and "thread 0"), and a CTA barrier is the
      named barrier 2 of that warp (`bar.sync 2, 32`).

    Before the op the whole CTA runs (e.g. `tilegpu.mbarrier_init` of the
    barriers both sides use, with its `bar.sync 0`); after it, nothing but
    the kernel's return. Made by `tilegpu-warp-specialize`.

    Example:

    ```mlir
    tilegpu.mbarrier_init %full : !tilegpu.mbarriers<3>
    tilegpu.mbarrier_init %empty {count = 4 : i32} : !tilegpu.mbarriers<3>
    tilegpu.warp_specialize consumer {
      ... // the kernel, waiting %full and arriving on %empty
    } producer {
      ... // waiting %empty, then mbarrier_expect and tma_load on %full
    } {consumerRegisters = 232 : i32, producerRegisters = 40 : i32, producerWarps = 4 : i32}
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntPositive]>:$producerWarps,
                   I32Attr:$producerRegisters, I32Attr:$consumerRegisters);
  let regions = (region SizedRegion<1>:$consumer, SizedRegion<1>:$producer);
  let assemblyFormat = "`consumer` $consumer `producer` $producer attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// True when `op` is (nested) in the producer region of a
    /// warp_specialize op; `ws` receives that op.
    static bool isInProducer(::mlir::Operation *op, WarpSpecializeOp *ws = nullptr);
    /// The warp_specialize op whose consumer region holds `op`, if any.
    static WarpSpecializeOp getConsumerParent(::mlir::Operation *op);
    /// Warps of the consumers (the kernel's num_warps).
    unsigned getConsumerWarps();
  }];
}

class TileGPU_TurnOp<string mnemonic> : TileGPU_Op<mnemonic> {
  let arguments = (ins OptionalAttr<ConfinedAttr<I32Attr, [IntNonNegative, IntMaxValue<1>]>>:$warpgroup);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def TileGPU_TurnWaitOp : TileGPU_TurnOp<"turn_wait"> {
  let summary = "wait for this consumer warpgroup's turn at the tensor cores";
  let description = [{
    Ping-pong of the two consumer warpgroups of a `tilegpu.warp_specialize`
    with 8 consumer warps (FlashAttention-3's inter-warpgroup overlap,
    Shah et al., 2024, §3.1): the warpgroups take turns to issue their
    wgmma, so that one's softmax runs while the other's matrix products
    do. Consumer warpgroup g waits on its named barrier, `bar.sync 3 + g,
    256` (PTX ISA §9.7.13.1), which completes when the other warpgroup has
    passed the turn to it (`tilegpu.turn_pass`). With `warpgroup`, only
    that warpgroup waits (the other skips the op).

    Only in the consumer region of a `tilegpu.warp_specialize` of 8
    consumer warps; every wait must be matched by a pass of the other
    warpgroup. Made by `tilegpu-warp-specialize{ping-pong}`.

    Example: `tilegpu.turn_wait`, `tilegpu.turn_wait {warpgroup = 0 : i32}`
  }];
}

def TileGPU_TurnPassOp : TileGPU_TurnOp<"turn_pass"> {
  let summary = "give the tensor cores' turn to the other consumer warpgroup";
  let description = [{
    Consumer warpgroup g arrives, without waiting, on the named barrier
    of the other warpgroup, `bar.arrive 3 + (1 − g), 256` (PTX ISA
    §9.7.13.1), completing that warpgroup's `tilegpu.turn_wait`. With
    `warpgroup`, only that warpgroup passes. See `tilegpu.turn_wait`.

    Example: `tilegpu.turn_pass`, `tilegpu.turn_pass {warpgroup = 1 : i32}`
  }];
}

def TileGPU_RingHandoffOp : TileGPU_Op<"ring_handoff",
    [HasParent<"::tilec::tilegpu::WarpSpecializeOp">]> {
  let summary = "hand the rings of the loops before to the copies after";
  let description = [{
    Lets the loops of a `tilegpu.warp_specialize` reuse each other's
    shared memory for their rings. The producer runs ahead of the
    consumers, so a copy of a later loop could overwrite a ring slot an
    earlier loop still reads; handoff `index` orders them:

    - in the consumer region (after the `tilegpu.warpgroup_wait` that
      retires the last dot reading the earlier loops' rings) every
      consumer thread makes its shared-memory accesses visible to the
      async proxy (`fence.proxy.async.shared::cta`) and arrives, without
      waiting, on named barrier 5 + `index` (`bar.arrive 5 + index,
      32·num_warps + 32`, PTX ISA §9.7.13.1);
    - in the producer region (before the first copy of the later loop)
      the producer's warp waits there (`bar.sync 5 + index, 32·num_warps
      + 32`).

    Each index appears exactly once in each region, at its top level, in
    increasing order (named barriers 5 to 15: at most 11 handoffs).
    `tilegpu-allocate-shared` reads the pair: what the producer uses
    between handoffs `index − 1` and `index` is live from the consumers'
    handoff `index − 1` to their handoff `index` (every copy the producer
    issues there is awaited by the consumers before their handoff
    `index`), so rings of loops on either side of a handoff may share
    memory. Made by `tilegpu-warp-specialize` when the kernel's rings do
    not fit side by side.

    Example: `tilegpu.ring_handoff 0`
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative, IntMaxValue<10>]>:$index);
  let assemblyFormat = "$index attr-dict";
}

def TileGPU_WarpYieldOp : TileGPU_Op<"warp_yield",
    [Pure, Terminator, HasParent<"::tilec::tilegpu::WarpSpecializeOp">]> {
  let summary = "end of a region of tilegpu.warp_specialize";
  let description = [{
    Ends the consumer and the producer region of `tilegpu.warp_specialize`
    (implicit in the printed form). Example: `tilegpu.warp_yield`
  }];
  let assemblyFormat = "attr-dict";
}

def TileGPU_PersistentProgramIdOp : TileGPU_Op<"persistent_program_id", [Pure]> {
  let summary = "a program id of a persistent kernel's virtual program";
  let description = [{
    In a persistent kernel (`tilegpu-persistent`) each CTA runs the
    programs `vid` = its CTA index, + the launched CTAs, ... of the grid
    `(grid_x, grid_y, grid_z)` the caller asked for (hidden `program_grid`
    parameters, docs/metadata.md); this op is `tl.program_id(axis)` of
    virtual program `vid` (i32, 0 <= vid < grid_x · grid_y · grid_z):
    `vid mod grid_x` on axis 0, `(vid / grid_x) mod grid_y` on axis 1,
    `vid / (grid_x · grid_y)` on axis 2, in the launch order of a
    non-persistent grid (axis 0 fastest). In a kernel that
    `tilegpu-longest-first` made longest first, axes 0 and 1 are remapped
    from those as `tl.program_id` is (the same formula, with `vid`'s
    coordinates in place of `%ctaid`).

    Example: `%m = tilegpu.persistent_program_id %vid, %gx, %gy {axis = 0 : i32}`
  }];
  let arguments = (ins I32:$vid, I32:$grid_x, I32:$grid_y,
                       ConfinedAttr<I32Attr, [IntNonNegative, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$vid `,` $grid_x `,` $grid_y attr-dict";
}

#endif // TILEC_DIALECT_TILEGPU_IR_TILEGPUOPS_TD
