//===- TileGPUAttrs.td - tilegpu layout attributes ---------*- tablegen -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_IR_TILEGPUATTRS_TD
#define TILEC_DIALECT_TILEGPU_IR_TILEGPUATTRS_TD

include "mlir/IR/AttrTypeBase.td"
include "tilec/Dialect/TileGPU/IR/TileGPUDialect.td"

class TileGPU_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<TileGPU_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def TileGPU_BlockedEncodingAttr : TileGPU_Attr<"BlockedEncoding", "blocked"> {
  let summary = "each thread holds small contiguous blocks, repeated over the tile";
  let description = [{
    A blocked layout (Triton's `#blocked`). Along dimension `d`, each thread
    holds `sizePerThread[d]` consecutive elements, the 32 lanes of a warp are
    spread `threadsPerWarp[d]` along it, and the warps of the CTA
    `warpsPerCTA[d]` along it. `order` lists the dimensions fastest-varying
    first: consecutive register slots, lanes and warps step along `order[0]`
    first. One CTA tile covers
    `sizePerThread[d] * threadsPerWarp[d] * warpsPerCTA[d]` elements of
    dimension `d`; a larger tile repeats it (more registers per thread), a
    smaller tile wraps (several threads hold the same element).

    Thread map of `#tilegpu.blocked<sizePerThread = [1, 4],
    threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], order = [1, 0]>` on a
    `8x32` tile (`Tt` is lane t of warp 0, `Ut` lane t of warp 1):

    ```
    row 0: T0  T0  T0  T0  T1  T1  T1  T1  ... T7  T7  T7  T7
    row 1: T8  T8  T8  T8  T9  ...                     T15 T15
    row 2: T16 ...                                     T23
    row 3: T24 ...                                     T31
    row 4: U0  U0  U0  U0  U1  ...                     U7
    ...
    row 7: U24 ...                                     U31
    ```

    The products of `threadsPerWarp` must be 32, of `warpsPerCTA` the kernel's
    warp count; every entry is a power of two. The same attribute applies to
    tiles of any shape of the same rank.
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$sizePerThread,
                        ArrayRefParameter<"unsigned">:$threadsPerWarp,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `sizePerThread` `=` `[` $sizePerThread `]` `,`
        `threadsPerWarp` `=` `[` $threadsPerWarp `]` `,`
        `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,`
        `order` `=` `[` $order `]` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getRank() const { return getOrder().size(); }
    /// Product of warpsPerCTA.
    unsigned getNumWarps() const;
  }];
}

def TileGPU_SliceEncodingAttr : TileGPU_Attr<"SliceEncoding", "slice"> {
  let summary = "the parent layout with one dimension removed";
  let description = [{
    The layout of a tile of rank r-1 obtained by removing dimension `dim` from
    a rank-r tile in layout `parent` (the result of a reduction along `dim`,
    or the operand of `tile.expand_dims` at `dim`). A thread holds element
    `i` when it holds an element `(…, i_{dim-1}, k, i_dim, …)` of the parent
    for some k: the threads that differed only along `dim` hold copies.

    Example: `#tilegpu.slice<{dim = 1, parent = #blocked}>` is the layout of
    row sums of a `#blocked` tile.
  }];
  let parameters = (ins "unsigned":$dim, "::mlir::Attribute":$parent);
  let assemblyFormat = "`<` `{` `dim` `=` $dim `,` `parent` `=` $parent `}` `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getRank() const;
  }];
}

def TileGPU_LinearEncodingAttr : TileGPU_Attr<"LinearEncoding", "linear"> {
  let summary = "any distributed layout, as its linear map over GF(2)";
  let description = [{
    A layout given directly as the linear map of `LinearLayout.h` (Triton's
    `#linear`, "Linear Layouts", Zhou et al., 2025): one basis per bit of
    the register slot, of the lane id (5, for 32 lanes) and of the warp id,
    each a coordinate with one entry per tile dimension. The element held in
    register slot r by lane l of warp w is the XOR of the bases of the set
    bits of r, l and w; a zero lane or warp basis replicates the element
    across that bit.

    `convert-tile-to-tilegpu` gives a tile that is reshaped from (or into)
    a tile with a layout of its own the reshaped layout (the same element
    for the same register, lane and warp), so that `tile.reshape` stays in
    registers; such layouts are rarely blocked. The bases describe one tile
    shape; a tile of the same rank whose extent along a dimension is smaller
    (a broadcast source, a reduction's slice) drops the coordinate bits past
    it: registers whose basis becomes zero drop out, lanes and warps
    replicate. A tile larger than the bases reach is an error.

    Example, the reshape of a 64-element `#tilegpu.blocked<sizePerThread =
    [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>` tile to
    `16x2x2`:

    ```
    #tilegpu.linear<register = [[0, 0, 1]],
                    lane = [[0, 1, 0], [1, 0, 0], [2, 0, 0], [4, 0, 0], [8, 0, 0]],
                    warp = []>
    ```
  }];
  let parameters = (ins "unsigned":$rank,
                        ArrayRefParameter<"int64_t">:$registerBases,
                        ArrayRefParameter<"int64_t">:$laneBases,
                        ArrayRefParameter<"int64_t">:$warpBases);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The bases of input `hw` (0: register, 1: lane, 2: warp), `rank`
    /// entries each, flattened.
    ::llvm::ArrayRef<int64_t> getFlatBases(unsigned hw) const;
    unsigned getNumWarps() const;
  }];
}

def TileGPU_WarpgroupMMAEncodingAttr : TileGPU_Attr<"WarpgroupMMAEncoding", "wgmma"> {
  let summary = "accumulator of Hopper warpgroup MMA (wgmma.mma_async)";
  let description = [{
    The layout of the accumulator D of `wgmma.mma_async.m64nNk*` with f32
    (or f16/s32) elements (PTX ISA §9.7.15.5.1.1, "Matrix fragments for
    wgmma.mma_async.m64nNk16", accumulator D). Warps form warpgroups of 4
    consecutive warps; `warpsPerCTA = [wm, wn]` (wm a multiple of 4) places
    wm/4 warpgroups along M and wn along N. One instruction covers a
    64 x `instrN` block per warpgroup; a tile larger than the CTA's blocks
    repeats them, first along N, then along M (more registers).

    Within one instruction's block, warp w of the warpgroup holds rows
    16w..16w+15; lane l holds rows l/4 and l/4+8 and columns 2(l%4),
    2(l%4)+1 of every 8-column group. Register d[4k + 2i + j] of a thread is
    element (16w + l/4 + 8i, 8k + 2(l%4) + j):

    ```
             col 0  1   2  3   4  5   6  7   8 ...
    row 0:   T0:d0,d1  T1:d0,d1  T2:d0,d1  T3:d0,d1  T0:d4,d5 ...
    row 1:   T4:d0,d1  T5 ...
    ...
    row 8:   T0:d2,d3  T1:d2,d3 ...
    row 16:  warp 1 ...
    ```

    Example: `#tilegpu.wgmma<warpsPerCTA = [8, 1], instrN = 128>` is the
    accumulator of a 128x128 tile computed by 2 warpgroups stacked along M.
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        "unsigned":$instrN);
  let assemblyFormat = [{
    `<` `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,` `instrN` `=` $instrN `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getNumWarps() const;
  }];
}

def TileGPU_MMAEncodingAttr : TileGPU_Attr<"MMAEncoding", "mma"> {
  let summary = "accumulator of warp-level MMA (mma.sync.m16n8k16)";
  let description = [{
    The layout of the accumulator of `mma.sync.aligned.m16n8k16` with f32
    elements (PTX ISA §9.7.14.5.8, "Matrix fragments for mma.m16n8k16",
    accumulator C/D; sm_80 and later): the tensor-core path when wgmma cannot
    take a dot (M < 64, `--disable-wgmma`). `warpsPerCTA = [wm, wn]` places
    wm warps along M (warp i holds rows 16i..16i+15 of a block) and wn along
    N (each `instrN` columns wide, `instrN / 8` instructions); a tile larger
    than the CTA's 16wm x instrN*wn block repeats it, first along N, then M.

    Within a warp's 16 x instrN block, lane l holds rows l/4 and l/4+8 and
    columns 2(l%4), 2(l%4)+1 of every 8-column group: register
    c[4k + 2i + j] is element (l/4 + 8i, 8k + 2(l%4) + j), the register
    order of `#tilegpu.wgmma` (whose warpgroups are 4 such warps stacked
    along M), so both share one linear layout.

    Example: `#tilegpu.mma<warpsPerCTA = [2, 2], instrN = 32>` is the
    accumulator of a 32x64 tile computed by 4 warps.
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        "unsigned":$instrN);
  let assemblyFormat = [{
    `<` `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,` `instrN` `=` $instrN `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getNumWarps() const;
  }];
}


//===----------------------------------------------------------------------===//
// TMA descriptor recipes
//===----------------------------------------------------------------------===//

def TileGPU_TMATermAttr : TileGPU_Attr<"TMATerm", "tma_term"> {
  let summary = "a size or stride of a TMA descriptor, as the host computes it";
  let description = [{
    `factor` times the product of the values of the kernel arguments
    `args` (their indices among the kernel's runtime parameters, i.e. the
    function's arguments before the descriptors); without `args`, the
    constant `factor`. The runtime evaluates the term from the launch
    arguments when it builds the descriptor. Sizes are element counts,
    strides element strides.

    Examples: `#tilegpu.tma_term<64>` (the constant 64),
    `#tilegpu.tma_term<1, args = [7]>` (the value of argument 7),
    `#tilegpu.tma_term<1, args = [2, 3, 8]>` (the descriptor tutorial's
    `Z * H * N_CTX`); inside a recipe the prefix is left out.
  }];
  let parameters = (ins "int64_t":$factor,
                        OptionalArrayRefParameter<"unsigned">:$args);
  let assemblyFormat = "`<` $factor (`,` `args` `=` `[` $args^ `]`)? `>`";
  let extraClassDeclaration = [{
    bool isConstant() const { return getArgs().empty(); }
  }];
}

def TileGPU_TMARecipeAttr : TileGPU_Attr<"TMARecipe", "tma_recipe"> {
  let summary = "how the runtime builds one TMA descriptor at launch";
  let description = [{
    The recipe of a `CUtensorMap` (PTX ISA §5.5.8, "Tensor-map"; built with
    `cuTensorMapEncodeTiled`) for a kernel's `!tilegpu.tma_desc` argument:
    the tensor starts at pointer argument `base` (16-byte aligned, promised
    by `*T:16`) and has elements of type `element`; `sizes` and `strides`
    (elements) give its dimensions, innermost (contiguous, stride 1) first,
    with up to 5 dimensions (a 2-d block with the outer dimensions of the
    tensor it lives in, such as attention's batch and head: their size is
    2^31-1, unbounded, since only the block's coordinates decide what is
    read). `box` is one copy's box (innermost first: one swizzle row, at
    most 128 bytes, by the block's rows, then 1s), `swizzle` its swizzle in
    bytes (32, 64 or 128). Elements outside the sizes read as zero, or NaN
    with `nanFill`. `nonNegative` lists integer arguments that the proof
    of the copies' coordinates being >= 0 assumed non-negative (sizes in
    `cdiv(N, B)`, the divisor of `off_hz // H`); the runtime refuses a
    launch that breaks it.

    The runtime re-checks TMA's rules on the actual values (docs/metadata.md
    `tma_descriptor`).

    Example:

    ```mlir
    #tilegpu.tma_recipe<base = 0, element = f16,
        sizes = [<1, args = [5]>, <1, args = [3]>], strides = [<1>, <1, args = [6]>],
        box = [64, 128], swizzle = 128, nanFill = false, nonNegative = [3]>
    ```
  }];
  let parameters = (ins "unsigned":$base, "::mlir::Type":$element,
                        ArrayRefParameter<"TMATermAttr">:$sizes,
                        ArrayRefParameter<"TMATermAttr">:$strides,
                        ArrayRefParameter<"int64_t">:$box,
                        "int64_t":$swizzle, "bool":$nanFill,
                        OptionalArrayRefParameter<"unsigned">:$nonNegative);
  let assemblyFormat = [{
    `<` `base` `=` $base `,` `element` `=` $element `,`
        `sizes` `=` `[` $sizes `]` `,` `strides` `=` `[` $strides `]` `,`
        `box` `=` `[` $box `]` `,` `swizzle` `=` $swizzle `,`
        `nanFill` `=` $nanFill
        (`,` `nonNegative` `=` `[` $nonNegative^ `]`)? `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getRank() const { return getSizes().size(); }
  }];
}

#endif // TILEC_DIALECT_TILEGPU_IR_TILEGPUATTRS_TD
