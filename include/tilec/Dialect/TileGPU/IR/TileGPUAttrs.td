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

#endif // TILEC_DIALECT_TILEGPU_IR_TILEGPUATTRS_TD
