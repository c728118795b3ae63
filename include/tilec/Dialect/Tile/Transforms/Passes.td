//===- Passes.td - tile dialect passes ---------------------*- tablegen -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_TRANSFORMS_PASSES_TD
#define TILEC_DIALECT_TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileRewriteBlockPointers : Pass<"tile-rewrite-block-pointers", "mlir::ModuleOp"> {
  let summary = "Lower block pointers to tiles of pointers and masks";
  let description = [{
    Replaces every `!tile.block_ptr` value by its parts (base pointer, shape,
    strides, offsets: scalars that flow through `scf` loops and branches as
    separate values), `tile.advance` by offset additions, and each
    `tile.block_load` / `tile.block_store` by a `tile.load` / `tile.store`
    on a tile of pointers

        base + sum_d (offset_d + arange(block_d)) * stride_d

    (64-bit index arithmetic) with, for each dimension in `boundary_check`,
    the mask `0 <= offset_d + i < shape_d`; `padding = nan` loads NaN where
    masked, `zero` (the default) loads 0. After this pass `tile-axis-info`
    sees block accesses as ordinary pointer tiles, so a stride that is the
    constant 1 gives vectorized accesses. (Triton's RewriteTensorPointer does
    the same for its non-TMA path.) The Hopper path finds the block again in
    the tile of pointers after layouts (tilegpu-assign-async-copies, see
    Analysis/AffineAccess.h) and copies it with TMA when it can.

    Example: a 2-d block load becomes make_range/expand_dims/broadcast ops,
    `arith.muli`/`tile.addptr` for the addresses, `arith.cmpi`/`arith.andi`
    for the mask and one `tile.load`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def TileFoldDotAccumulate : Pass<"tile-fold-dot-accumulate"> {
  let summary = "Fold an addition after a dot into the dot's accumulator";
  let description = [{
    `acc += tl.dot(a, b)` reaches the IR as a dot with a zero accumulator
    and an addition after it:

        %d = tile.dot %a, %b, %zero
        %r = arith.addf %acc, %d

    This pass rewrites it to `%r = tile.dot %a, %b, %acc` (`arith.addi`
    for integer dots; either operand order) when the accumulator is a
    constant zero, the addition is the dot's only use and in the dot's
    block (a dot computed once before a loop stays there), and the
    operands are not 8-bit floats (Hopper's fp8 wgmma accumulates with
    fewer mantissa bits than f32; Triton keeps those additions too, by its
    `max_num_imprecise_acc`). The tensor cores
    then accumulate in place: the unfused form holds a second M x N
    accumulator in registers (128 registers a thread for a 128 x 128 fp32
    tile over a warpgroup), which makes the backward kernels of attention
    spill. The sum is rounded once fewer (in the accumulator rather than
    after it), as with Triton's combine pass, which makes the same rewrite
    for these types.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileMultiplyByReciprocal : Pass<"tile-multiply-by-reciprocal"> {
  let summary = "Divide by a broadcast divisor once: x / d[:, None] to x * (1 / d)[:, None]";
  let description = [{
    A division marked `arcp` (Triton's `/` and `tl.fdiv` on floats, which
    need not round as IEEE division does) whose divisor is a
    `tile.broadcast` that repeats its source becomes a multiplication by
    the broadcast reciprocal of the source:

        %b = tile.broadcast %d : tensor<128x1xf32> -> tensor<128x128xf32>
        %q = arith.divf %x, %b fastmath<arcp> : tensor<128x128xf32>

    becomes

        %r = arith.divf %one, %d fastmath<arcp> : tensor<128x1xf32>
        %b = tile.broadcast %r : tensor<128x1xf32> -> tensor<128x128xf32>
        %q = arith.mulf %x, %b fastmath<arcp> : tensor<128x128xf32>

    Attention's epilogue `acc / l_i[:, None]` then divides once per row (2
    divisions a thread for a 128 x 128 tile over 8 warps) instead of once per
    element (64). `arcp` allows exactly this: `x / y` computed as
    `x * (1 / y)`, one more rounding (the result may differ from the
    division in the last bit or two). Only f32 tiles: f64 (whose `/`
    the frontend marks `arcp` too, but which the GPU divides with IEEE
    `div.rn.f64`) and 8-bit floats (a reciprocal rounded to fp8 is
    nowhere near the quotient) are left alone, as are divisions without
    `arcp` (`tl.div_rn`, `ieee_rounding=True`); f16 and bf16 divide in
    f32 already. The reciprocal keeps only `arcp`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // TILEC_DIALECT_TILE_TRANSFORMS_PASSES_TD
