//===- TileAttrs.td - tile dialect attributes --------------*- tablegen -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILEATTRS_TD
#define TILEC_DIALECT_TILE_IR_TILEATTRS_TD

include "mlir/IR/EnumAttr.td"
include "tilec/Dialect/Tile/IR/TileDialect.td"

def Tile_PaddingOption : I32EnumAttr<"PaddingOption",
    "value of the elements of a block load that fall outside the tensor", [
      I32EnumAttrCase<"Zero", 0, "zero">,
      I32EnumAttrCase<"NaN", 1, "nan">
    ]> {
  let cppNamespace = "::tilec::tile";
  let genSpecializedAttr = 0;
}
def Tile_PaddingOptionAttr : EnumAttr<Tile_Dialect, Tile_PaddingOption, "padding"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tile_InputPrecision : I32EnumAttr<"InputPrecision",
    "precision of fp32 inputs to tile.dot", [
      I32EnumAttrCase<"TF32", 0, "tf32">,
      I32EnumAttrCase<"TF32x3", 1, "tf32x3">,
      I32EnumAttrCase<"IEEE", 2, "ieee">
    ]> {
  let cppNamespace = "::tilec::tile";
  let genSpecializedAttr = 0;
}
def Tile_InputPrecisionAttr : EnumAttr<Tile_Dialect, Tile_InputPrecision, "input_precision"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tile_CacheModifier : I32EnumAttr<"CacheModifier",
    "cache operator of a load or store (PTX ISA 9.7.9.1)", [
      I32EnumAttrCase<"None", 0, "none">,
      I32EnumAttrCase<"CA", 1, "ca">,
      I32EnumAttrCase<"CG", 2, "cg">,
      I32EnumAttrCase<"CS", 3, "cs">,
      I32EnumAttrCase<"WB", 4, "wb">,
      I32EnumAttrCase<"WT", 5, "wt">,
      I32EnumAttrCase<"CV", 6, "cv">
    ]> {
  let cppNamespace = "::tilec::tile";
  let genSpecializedAttr = 0;
}
def Tile_CacheModifierAttr : EnumAttr<Tile_Dialect, Tile_CacheModifier, "cache"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tile_EvictionPolicy : I32EnumAttr<"EvictionPolicy",
    "L1/L2 eviction priority hint of a load or store", [
      I32EnumAttrCase<"Normal", 0, "evict_normal">,
      I32EnumAttrCase<"EvictFirst", 1, "evict_first">,
      I32EnumAttrCase<"EvictLast", 2, "evict_last">
    ]> {
  let cppNamespace = "::tilec::tile";
  let genSpecializedAttr = 0;
}
def Tile_EvictionPolicyAttr : EnumAttr<Tile_Dialect, Tile_EvictionPolicy, "eviction"> {
  let assemblyFormat = "`<` $value `>`";
}

#endif // TILEC_DIALECT_TILE_IR_TILEATTRS_TD
