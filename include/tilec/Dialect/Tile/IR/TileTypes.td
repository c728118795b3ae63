//===- TileTypes.td - tile dialect types -------------------*- tablegen -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILETYPES_TD
#define TILEC_DIALECT_TILE_IR_TILETYPES_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"
include "tilec/Dialect/Tile/IR/TileDialect.td"

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Tile_PointerType : Tile_Type<"Pointer", "ptr"> {
  let summary = "pointer to an element in global memory";
  let description = [{
    A scalar pointer to a value of type `pointeeType` (an integer or float
    type). `addressSpace` is the NVPTX address space and defaults to 1
    (global). Tensors of pointers (`tensor<128x!tile.ptr<f32>>`) hold one
    address per element; `tile.addptr` advances them by element counts.

    Example:

    ```mlir
    %p = tile.addptr %base, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    ```
  }];
  let parameters = (ins "::mlir::Type":$pointeeType,
                        DefaultValuedParameter<"unsigned", "1">:$addressSpace);
  let assemblyFormat = "`<` $pointeeType (`,` $addressSpace^)? `>`";
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::Type":$pointeeType), [{
      return $_get(pointeeType.getContext(), pointeeType, 1);
    }]>
  ];
}

def Tile_BlockPointerType : Tile_Type<"BlockPointer", "block_ptr"> {
  let summary = "pointer to a block of a strided N-d tensor";
  let description = [{
    A block pointer (Triton's `make_block_ptr`) designates a block of shape
    `blockType.getShape()` inside a strided N-d tensor in global memory whose
    elements have type `blockType.getElementType()`. It carries the base
    address, the tensor's shape (i64 per dimension), its strides in elements
    (i64), and the block's offsets (i32), all run-time values; the block shape
    is static. Loads through it can check each dimension's bounds.

    Example: `!tile.block_ptr<tensor<64x32xf16>>`.
  }];
  let parameters = (ins "::mlir::RankedTensorType":$blockType);
  let assemblyFormat = "`<` $blockType `>`";
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::RankedTensorType":$blockType), [{
      return $_get(blockType.getContext(), blockType);
    }]>
  ];
  let extraClassDeclaration = [{
    /// Rank of the block (and of the tensor it points into).
    int64_t getRank() const { return getBlockType().getRank(); }
    /// Element type of the tensor in memory.
    ::mlir::Type getElementType() const { return getBlockType().getElementType(); }
  }];
}

#endif // TILEC_DIALECT_TILE_IR_TILETYPES_TD
