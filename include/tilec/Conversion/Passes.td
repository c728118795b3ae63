//===- Passes.td - tilec conversion passes -----------------*- tablegen -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_CONVERSION_PASSES_TD
#define TILEC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToTileGPU : Pass<"convert-tile-to-tilegpu", "mlir::ModuleOp"> {
  let summary = "Assign a distributed layout to every tile";
  let description = [{
    Gives every tile-typed value a `#tilegpu.blocked` or `#tilegpu.slice`
    encoding over `num-warps` warps, and marks each function with
    `tilegpu.num_warps`.

    Layouts are inferred, not defaulted and cleaned up afterwards: values
    that must share a layout (operands and results of elementwise ops,
    broadcasts, loads/stores and their pointers and masks, loop-carried
    values, the accumulator and result of `tile.dot`) are unified into
    classes; `tile.expand_dims` and `tile.reduce` relate a rank-r class to
    the slice of a rank-(r+1) class. Each root class gets one blocked layout,
    chosen from its largest tile and from `tile-axis-info` on its memory
    accesses (the most contiguous dimension first, as many elements per
    thread as a 16-byte access allows); each sliced class gets the slice of
    its parent's layout. A value asked to be the slice of two different
    layouts is first split when it is cheap to recompute (ranges, splats,
    constants and arithmetic on them are cloned per use); only what remains
    gets a `tilegpu.convert_layout`.

    A `tile.dot` that wgmma can take (f16/bf16 operands, f32 accumulator,
    M ≥ 64, whole warpgroups) gets the `#tilegpu.wgmma` accumulator layout,
    which its elementwise users and loop-carried values then share; other
    dots get a register-blocked layout for the FMA path, with a remark
    saying why.

    Example: in a row softmax the row maximum is
    `#tilegpu.slice<{dim = 1, parent = #blocked}>` of the tile's layout, so
    `x - m[:, None]` needs no data movement.
  }];
  let options = [
    Option<"numWarps", "num-warps", "unsigned", "4",
           "Warps per CTA (one program instance runs on one CTA)">,
    Option<"useWgmma", "use-wgmma", "bool", "true",
           "Give eligible tl.dot accumulators the Hopper wgmma layout "
           "(tensor cores); false keeps every dot on the FMA path">
  ];
  let dependentDialects = ["::tilec::tilegpu::TileGPUDialect"];
}

def ConvertTileGPUToLLVM : Pass<"convert-tilegpu-to-llvm", "mlir::ModuleOp"> {
  let summary = "Lower distributed tiles to per-thread LLVM/NVVM code";
  let description = [{
    A 1:N dialect conversion: a tile value in a layout becomes the scalars
    one thread holds (one per register slot of the layout; see
    LinearLayout.h), pointers become `!llvm.ptr<1>`. Elementwise ops are
    applied per slot, `make_range`/`splat`/`broadcast`/`expand_dims` and
    register-only layout conversions rename slots, loads and stores become
    predicated (vectorized where `tile-axis-info` proves contiguity and
    alignment) `ld.global`/`st.global`, reductions combine within a thread,
    then across lanes with `shfl.sync.bfly`, then across warps through
    shared memory; other layout conversions and `tile.dot` (FMA on CUDA
    cores) go through shared memory. Program ids read `%ctaid`. Kernels
    become `nvvm.kernel` functions with `nvvm.maxntid`. Shared memory is one
    `.extern .shared .align 1024` array: the kernel-lifetime allocations
    (`local_alloc` rings, each 1024-byte aligned, then the mbarriers) first,
    per-op scratch after them; the bytes needed are recorded in the module's
    `tilegpu.shared_memory` attribute. The Hopper async ops become PTX:
    `mbarrier.init` / `arrive.expect_tx` / `try_wait.parity`,
    `cp.async.bulk.tensor` (one per swizzle-wide box, issued by thread 0),
    `wgmma.mma_async` on shared-memory descriptors and `wgmma.wait_group`.
    Arguments of type `!tilegpu.tma_desc` become by-value 128-byte
    `__grid_constant__` parameters (`llvm.byval`, `llvm.align = 64`,
    `nvvm.grid_constant`); their recipes are collected in the module's
    `tilegpu.tma_descriptors` attribute (argument index and recipe) for the
    kernel metadata.

    The remaining scalar `arith`/`math`/`scf`/`func` ops are left for the
    upstream conversions (`convert-scf-to-cf`, `convert-to-llvm`).
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect"
  ];
  let options = [
    Option<"mbarrierSpinLimit", "mbarrier-spin-limit", "int64_t", "0",
           "When positive, every mbarrier wait polls at most this many times, "
           "then prints its source location and traps (debug builds)">
  ];
}

#endif // TILEC_CONVERSION_PASSES_TD
