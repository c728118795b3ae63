//===- TileDialect.td - tile dialect definition ------------*- tablegen -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILEDIALECT_TD
#define TILEC_DIALECT_TILE_IR_TILEDIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::tilec::tile";
  let summary = "The semantics of the .tile language on whole tiles";
  let description = [{
    The `tile` dialect holds a kernel as the `.tile` source means it: every
    value is a scalar or a whole tile (a builtin `tensor` whose dimensions are
    powers of two), pointers are `!tile.ptr<T>` values in global memory and
    block pointers are `!tile.block_ptr<tensor<...>>` values. There are no
    threads, layouts or shared memory here; those appear in `tilegpu`.

    Elementwise arithmetic and math are upstream `arith` and `math` ops applied
    to tensors; `where` is `arith.select`; control flow is `scf`. This dialect
    adds what upstream lacks: program ids, ranges, broadcasting, pointer
    arithmetic, masked loads/stores, block pointers, `dot` and reductions.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    void registerTypes();
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect"
  ];
}

#endif // TILEC_DIALECT_TILE_IR_TILEDIALECT_TD
