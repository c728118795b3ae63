//===- TileOps.td - tile dialect operations ----------------*- tablegen -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILEOPS_TD
#define TILEC_DIALECT_TILE_IR_TILEOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "tilec/Dialect/Tile/IR/TileDialect.td"
include "tilec/Dialect/Tile/IR/TileTypes.td"
include "tilec/Dialect/Tile/IR/TileAttrs.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Tile_Tensor : RankedTensorOf<[AnyType]>;
def Tile_Ptr : Type<CPred<"::llvm::isa<::tilec::tile::PointerType>($_self)">,
                    "tile pointer", "::tilec::tile::PointerType">;
def Tile_PtrTensor : RankedTensorOf<[Tile_Ptr]>;
def Tile_PtrLike : AnyTypeOf<[Tile_Ptr, Tile_PtrTensor]>;
def Tile_IntTensor : RankedTensorOf<[AnyInteger]>;
def Tile_IntLike : AnyTypeOf<[AnyInteger, Tile_IntTensor]>;
def Tile_BoolLike : AnyTypeOf<[I1, RankedTensorOf<[I1]>]>;
def Tile_BlockPtr : Type<CPred<"::llvm::isa<::tilec::tile::BlockPointerType>($_self)">,
                         "tile block pointer", "::tilec::tile::BlockPointerType">;
def Tile_ScalarType : AnyTypeOf<[AnyInteger, AnyFloat, Tile_Ptr]>;

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Program ids
//===----------------------------------------------------------------------===//

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "index of this program instance along a grid axis";
  let description = [{
    `tl.program_id(axis)`: the index (0 ≤ id < `tl.num_programs(axis)`) of the
    program instance running this code along grid axis 0, 1 or 2. On the GPU
    it is `%ctaid.{x,y,z}` (one program per CTA).

    Example:

    ```mlir
    %pid = tile.program_id 0
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "number of program instances along a grid axis";
  let description = [{
    `tl.num_programs(axis)`: the launch grid's extent along axis 0, 1 or 2
    (`%nctaid.{x,y,z}` on the GPU).

    Example:

    ```mlir
    %n = tile.num_programs 1
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
}

//===----------------------------------------------------------------------===//
// Tile creation and shape manipulation
//===----------------------------------------------------------------------===//

def Tile_MakeRangeOp : Tile_Op<"make_range", [Pure]> {
  let summary = "1-d tile of consecutive integers";
  let description = [{
    `tl.arange(start, end)`: a `tensor<(end-start) x i32>` holding
    `start, start+1, …, end-1`. `end - start` must be a power of two.

    Example:

    ```mlir
    %r = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    ```
  }];
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs RankedTensorOf<[I32]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure,
    TypesMatchWith<"result element type matches the scalar", "result", "src",
                   "::llvm::cast<::mlir::RankedTensorType>($_self).getElementType()">]> {
  let summary = "tile filled with one scalar";
  let description = [{
    Broadcasts a scalar (integer, float or pointer) to every element of a tile.

    Example:

    ```mlir
    %t = tile.splat %p : tensor<128x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins Tile_ScalarType:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($result)";
  let hasFolder = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure, SameOperandsAndResultElementType]> {
  let summary = "expand dimensions of size 1";
  let description = [{
    Repeats the source along every dimension where it has size 1 and the
    result does not. Source and result have the same rank; every other
    dimension is equal. (Rank changes are `tile.expand_dims`.)

    Example:

    ```mlir
    %b = tile.broadcast %a : tensor<1x64xf32> -> tensor<32x64xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Pure, SameOperandsAndResultElementType]> {
  let summary = "insert a dimension of size 1";
  let description = [{
    `x[:, None]` / `tl.expand_dims(x, axis)`: the result has rank+1 with a new
    dimension of size 1 at position `axis`.

    Example:

    ```mlir
    %e = tile.expand_dims %a {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure, SameOperandsAndResultElementType]> {
  let summary = "change the shape of a tile, keeping row-major element order";
  let description = [{
    `tl.reshape(x, shape)`: same elements in the same row-major order, new
    shape; the number of elements is unchanged. With `allow_reorder` the
    compiler may permute elements (Triton's `can_reorder=True`).

    Example:

    ```mlir
    %r = tile.reshape %a : tensor<4x8xf32> -> tensor<32xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, UnitAttr:$allow_reorder);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_TransOp : Tile_Op<"trans", [Pure, SameOperandsAndResultElementType]> {
  let summary = "permute the dimensions of a tile";
  let description = [{
    `tl.trans(x, *dims)` / `tl.permute`: result dimension `i` is source
    dimension `order[i]`.

    Example:

    ```mlir
    %t = tile.trans %a {order = array<i32: 1, 0>} : tensor<16x32xf16> -> tensor<32x16xf16>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, DenseI32ArrayAttr:$order);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

def Tile_AddPtrOp : Tile_Op<"addptr", [Pure, AllTypesMatch<["ptr", "result"]>]> {
  let summary = "advance pointers by element counts";
  let description = [{
    `ptr + offset`: each pointer advances by `offset` elements of its pointee
    type (not bytes). `ptr` and `offset` are both scalars or both tensors of
    the same shape; `offset` is any integer type (sign-extended).

    Example:

    ```mlir
    %q = tile.addptr %p, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_IntLike:$offset);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` type($result) `,` type($offset)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_LoadOp : Tile_Op<"load", [
    AttrSizedOperandSegments,
    MemoryEffects<[MemRead<DefaultResource>]>,
    TypesMatchWith<"result type is the pointee type of ptr", "ptr", "result",
                   "::tilec::tile::getPointeeType($_self)">,
    OptionalTypesMatchWith<"mask is i1 with the shape of ptr", "ptr", "mask",
                   "::tilec::tile::getI1SameShape($_self)">,
    OptionalTypesMatchWith<"other has the result type", "ptr", "other",
                   "::tilec::tile::getPointeeType($_self)">]> {
  let summary = "load through a pointer or a tile of pointers";
  let description = [{
    `tl.load(ptr, mask=None, other=None)`: reads one element per pointer.
    Where `mask` is false nothing is read and the element is `other` (or
    undefined without `other`). Cache and eviction hints are kept for the
    backend; `isVolatile` forbids caching and reordering.

    Example:

    ```mlir
    %v = tile.load %p, %m, %zero : tensor<128x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Optional<Tile_BoolLike>:$mask,
                   Optional<AnyType>:$other,
                   DefaultValuedAttr<Tile_CacheModifierAttr, "::tilec::tile::CacheModifier::None">:$cache,
                   DefaultValuedAttr<Tile_EvictionPolicyAttr, "::tilec::tile::EvictionPolicy::Normal">:$evict,
                   UnitAttr:$isVolatile);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$ptr (`,` $mask^)? (`,` $other^)? attr-dict `:` type($ptr)";
}

def Tile_StoreOp : Tile_Op<"store", [
    MemoryEffects<[MemWrite<DefaultResource>]>,
    TypesMatchWith<"value type is the pointee type of ptr", "ptr", "value",
                   "::tilec::tile::getPointeeType($_self)">,
    OptionalTypesMatchWith<"mask is i1 with the shape of ptr", "ptr", "mask",
                   "::tilec::tile::getI1SameShape($_self)">]> {
  let summary = "store through a pointer or a tile of pointers";
  let description = [{
    `tl.store(ptr, value, mask=None)`: writes one element per pointer where
    `mask` is true (everywhere without a mask).

    Example:

    ```mlir
    tile.store %p, %v, %m : tensor<128x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, AnyType:$value, Optional<Tile_BoolLike>:$mask,
                   DefaultValuedAttr<Tile_CacheModifierAttr, "::tilec::tile::CacheModifier::None">:$cache,
                   DefaultValuedAttr<Tile_EvictionPolicyAttr, "::tilec::tile::EvictionPolicy::Normal">:$evict);
  let assemblyFormat = "$ptr `,` $value (`,` $mask^)? attr-dict `:` type($ptr)";
}

def Tile_DebugBarrierOp : Tile_Op<"debug_barrier", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "barrier across the threads of one program";
  let description = [{
    `tl.debug_barrier()`: every thread of the program waits here (on the GPU
    `bar.sync 0`; on the CPU, where one thread runs a program, nothing).

    Example: `tile.debug_barrier`
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_AssumeOp : Tile_Op<"assume"> {
  let summary = "a condition the program promises to hold";
  let description = [{
    `tl.assume(cond)`: the kernel's author promises that the scalar `cond`
    is true whenever it is reached. Analyses may rely on it (the Hopper
    path's sign proofs read `tl.assume(x >= 0)` on a value x to place TMA
    coordinates computed from it, as in Triton's tutorial 03); the GPU
    lowering passes it to LLVM (`llvm.intr.assume`); nothing checks it.

    Example: `tile.assume %nonneg`
  }];
  let arguments = (ins I1:$cond);
  let assemblyFormat = "$cond attr-dict";
}

def Tile_PrintOp : Tile_Op<"print", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "print tiles and scalars from the device (tl.device_print)";
  let description = [{
    `tl.device_print(prefix, *args, hex=False)`: prints every element of every
    operand on its own line, in Triton's format

    ```
    pid (<x>, <y>, <z>) idx (<i>, <j>)<prefix>(operand <n>) <value>
    ```

    where `pid` is the program, `idx` the element's coordinate in its tile
    (empty for a scalar), `(operand <n>) ` appears only with several operands
    and `prefix` is the user's text as the frontend normalized it (Triton's
    rule: with operands, it starts with a space and ends with `": "`).
    Without operands the line is `pid (<x>, <y>, <z>)<prefix>`. Integers
    print in decimal (`is_signed[i]` tells how operand `i` reads), floats as
    `%f`, pointers as `%p`; with `hex`, every value as `0x` and its bits in
    hex, zero-padded to the type's width. Each element is printed once (on
    the GPU by the one thread that owns it, a scalar by thread 0), lines of
    different elements in no particular order on the GPU and in row-major
    order on the CPU.

    Example:

    ```mlir
    tile.print " x: " {hex = false, is_signed = array<i1: true>} %x : tensor<16xi32>
    ```
  }];
  let arguments = (ins StrAttr:$prefix, BoolAttr:$hex,
                   DenseBoolArrayAttr:$is_signed, Variadic<AnyType>:$args);
  let assemblyFormat = "$prefix attr-dict ($args^ `:` type($args))?";
  let hasVerifier = 1;
}

def Tile_AssertOp : Tile_Op<"assert", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "device-side assertion (tl.device_assert in debug mode)";
  let description = [{
    `tl.device_assert(cond, msg)` (and a Python `assert` on a run-time
    condition) when the kernel is compiled in debug mode (`--debug`,
    `@triton.jit(debug=True)`, `TRITON_DEBUG=1`): for every element of
    `cond` that is false, the program reports
    `<file>:<line>: <function>: block: [x,y,z], thread: [...] Assertion
    `<message>` failed.` and the launch fails. On the GPU this is CUDA's
    `__assertfail` (the kernel traps); on the CPU a host call that records
    the failure, which the launch returns as an error. Without debug mode
    the frontend emits nothing.

    Example:

    ```mlir
    tile.assert %ok, "x must be positive" {file = "k.tile", function = "kernel", line = 12 : i32} : tensor<16xi1>
    ```
  }];
  let arguments = (ins Tile_BoolLike:$cond, StrAttr:$message, StrAttr:$file,
                   I32Attr:$line, StrAttr:$function);
  let assemblyFormat = "$cond `,` $message attr-dict `:` type($cond)";
}

def Tile_AtomicRMWOp : Tile_Op<"atomic_rmw", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>,
    TypesMatchWith<"value type is the pointee type of ptr", "ptr", "value",
                   "::tilec::tile::getPointeeType($_self)">,
    TypesMatchWith<"result type is the pointee type of ptr", "ptr", "result",
                   "::tilec::tile::getPointeeType($_self)">,
    OptionalTypesMatchWith<"mask is i1 with the shape of ptr", "ptr", "mask",
                   "::tilec::tile::getI1SameShape($_self)">]> {
  let summary = "atomic read-modify-write through a pointer or a tile of pointers";
  let description = [{
    `tl.atomic_add/max/min/and/or/xor/xchg(ptr, val, mask, sem, scope)`:
    for every element where `mask` is true (everywhere without a mask),
    atomically replaces `*ptr` by `kind(*ptr, val)` and returns the old
    value (undefined where the mask is false). `kind` is one of add, fadd,
    max, umax, fmax, min, umin, fmin, and, or, xor, xchg; `sem`
    (relaxed, acquire, release, acq_rel) and `scope` (gpu, cta, sys) are
    Triton's.

    Example:

    ```mlir
    %old = tile.atomic_rmw %p, %v, %m {kind = "fadd", sem = "acq_rel", scope = "gpu"} : tensor<128x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, AnyType:$value, Optional<Tile_BoolLike>:$mask,
                   StrAttr:$kind, StrAttr:$sem, StrAttr:$scope);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$ptr `,` $value (`,` $mask^)? attr-dict `:` type($ptr)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// A relaxed or release float add whose old values nobody reads: a
    /// reduction (PTX `red`, which has no acquire and returns nothing).
    bool isReduction() {
      return getKind() == "fadd" && getResult().use_empty() &&
             (getSem() == "relaxed" || getSem() == "release");
    }
  }];
}

def Tile_AtomicCASOp : Tile_Op<"atomic_cas", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>,
    TypesMatchWith<"cmp type is the pointee type of ptr", "ptr", "cmp",
                   "::tilec::tile::getPointeeType($_self)">,
    TypesMatchWith<"value type is the pointee type of ptr", "ptr", "value",
                   "::tilec::tile::getPointeeType($_self)">,
    TypesMatchWith<"result type is the pointee type of ptr", "ptr", "result",
                   "::tilec::tile::getPointeeType($_self)">]> {
  let summary = "atomic compare-and-swap through a pointer or a tile of pointers";
  let description = [{
    `tl.atomic_cas(ptr, cmp, val, sem, scope)`: for every element,
    atomically stores `val` at `ptr` if `*ptr == cmp`, and returns the old
    value.

    Example:

    ```mlir
    %old = tile.atomic_cas %p, %c, %v {sem = "acq_rel", scope = "gpu"} : !tile.ptr<i32>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, AnyType:$cmp, AnyType:$value,
                   StrAttr:$sem, StrAttr:$scope);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$ptr `,` $cmp `,` $value attr-dict `:` type($ptr)";
}

def Tile_MakeBlockPtrOp : Tile_Op<"make_block_ptr", [Pure, AttrSizedOperandSegments,
    TypesMatchWith<"base points to the block's element type", "result", "base",
                   "::tilec::tile::PointerType::get(::llvm::cast<::tilec::tile::BlockPointerType>($_self).getElementType())">]> {
  let summary = "create a block pointer";
  let description = [{
    `tl.make_block_ptr(base, shape, strides, offsets, block_shape, order)`:
    a pointer to the block of shape `block_shape` at `offsets` inside the
    N-d tensor at `base` with the given `shape` and `strides` (in elements).
    `order` (a permutation, fastest-varying dimension first) is a layout hint
    only: the strides alone define the addresses.

    Example:

    ```mlir
    %bp = tile.make_block_ptr %base, [%M, %K], [%sm, %c1], [%o0, %c0] {order = array<i32: 1, 0>}
          : !tile.block_ptr<tensor<64x32xf16>>
    ```
  }];
  let arguments = (ins Tile_Ptr:$base, Variadic<I64>:$shape, Variadic<I64>:$strides,
                   Variadic<I32>:$offsets, DenseI32ArrayAttr:$order);
  let results = (outs Tile_BlockPtr:$result);
  let assemblyFormat = [{
    $base `,` `[` $shape `]` `,` `[` $strides `]` `,` `[` $offsets `]` attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_AdvanceOp : Tile_Op<"advance", [Pure, AllTypesMatch<["ptr", "result"]>]> {
  let summary = "move a block pointer";
  let description = [{
    `tl.advance(ptr, offsets)` / `ptr.advance(offsets)`: adds `offsets`
    (elements, one i32 per dimension) to the block's offsets.

    Example:

    ```mlir
    %bp2 = tile.advance %bp, [%c0, %c32] : !tile.block_ptr<tensor<64x32xf16>>
    ```
  }];
  let arguments = (ins Tile_BlockPtr:$ptr, Variadic<I32>:$offsets);
  let results = (outs Tile_BlockPtr:$result);
  let assemblyFormat = "$ptr `,` `[` $offsets `]` attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_BlockLoadOp : Tile_Op<"block_load", [MemoryEffects<[MemRead<DefaultResource>]>]> {
  let summary = "load the block a block pointer designates";
  let description = [{
    `tl.load(block_ptr, boundary_check=(…), padding_option=…)`: reads the
    block. For each dimension listed in `boundary_check`, elements whose index
    is outside `[0, shape)` are not read and take the padding value (0 for
    `zero`, NaN for `nan`; zero when no padding is given). Dimensions that are
    not checked must be in bounds.

    Example:

    ```mlir
    %t = tile.block_load %bp {boundary_check = array<i32: 0, 1>, padding = #tile.padding<zero>}
         : !tile.block_ptr<tensor<64x32xf16>> -> tensor<64x32xf16>
    ```
  }];
  let arguments = (ins Tile_BlockPtr:$ptr,
                   DefaultValuedAttr<DenseI32ArrayAttr, "{}">:$boundary_check,
                   DefaultValuedAttr<Tile_PaddingOptionAttr, "::tilec::tile::PaddingOption::Zero">:$padding,
                   DefaultValuedAttr<Tile_CacheModifierAttr, "::tilec::tile::CacheModifier::None">:$cache,
                   DefaultValuedAttr<Tile_EvictionPolicyAttr, "::tilec::tile::EvictionPolicy::Normal">:$evict);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$ptr attr-dict `:` type($ptr) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_BlockStoreOp : Tile_Op<"block_store", [MemoryEffects<[MemWrite<DefaultResource>]>]> {
  let summary = "store a block through a block pointer";
  let description = [{
    `tl.store(block_ptr, value, boundary_check=(…))`: writes the block;
    elements outside `[0, shape)` in a checked dimension are not written.

    Example:

    ```mlir
    tile.block_store %bp, %v {boundary_check = array<i32: 0>}
        : !tile.block_ptr<tensor<64xf32>>, tensor<64xf32>
    ```
  }];
  let arguments = (ins Tile_BlockPtr:$ptr, Tile_Tensor:$value,
                   DefaultValuedAttr<DenseI32ArrayAttr, "{}">:$boundary_check,
                   DefaultValuedAttr<Tile_CacheModifierAttr, "::tilec::tile::CacheModifier::None">:$cache,
                   DefaultValuedAttr<Tile_EvictionPolicyAttr, "::tilec::tile::EvictionPolicy::Normal">:$evict);
  let assemblyFormat = "$ptr `,` $value attr-dict `:` type($ptr) `,` type($value)";
  let hasVerifier = 1;
}

def Tile_BitcastOp : Tile_Op<"bitcast", [Pure]> {
  let summary = "reinterpret pointers or same-width values";
  let description = [{
    Changes the pointee type of pointers (`p.to(tl.pointer_type(tl.int8))`),
    or reinterprets the bits of same-width scalars/tiles
    (`x.to(tl.int32, bitcast=True)`). Shapes are unchanged.

    Example:

    ```mlir
    %q = tile.bitcast %p : !tile.ptr<f32> -> !tile.ptr<i8>
    ```
  }];
  let arguments = (ins AnyType:$src);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_InlineAsmElementwiseOp : Tile_Op<"inline_asm_elementwise", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "inline PTX applied elementwise, `packed_element` elements at a time";
  let description = [{
    `tl.inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack)`
    (Triton's): `asm` runs once per group of `packed_element` elements of
    the tiles `args` (all of one shape, or all scalars) and produces one
    tile per result, of the same shape. `asm_string` uses LLVM's inline-asm
    operand syntax (`$0`, `$1`, ...) and `constraints` LLVM's constraint
    list (`=r,r,r`): first the output registers, result by result, then
    the input registers, argument by argument (clobbers `~{...}` may
    follow).

    Registers: an element narrower than 32 bits shares a register with the
    next elements of its group: `min(32 / bits, packed_element)` of them,
    in element order from the low bits (4 x i8 in a `.b32`, 2 x f16 in a
    `.b32`; 2 x i8 in a `.b16`). Other elements take one register each. So
    a value takes `packed_element / elements_per_register` registers, and
    `constraints` must list exactly that many outputs (`=`) per result and
    inputs per argument.

    `pure` is Triton's `is_pure`: without it the op has memory effects and
    is never removed or reordered with other memory operations.

    On the GPU each thread runs `asm` on its register slots
    `[k * packed_element, (k + 1) * packed_element)`, which the layout makes
    `packed_element` consecutive elements along one dimension (layout
    inference gives such tiles at least `packed_element` elements per
    thread; a tile too small for that is an error). The CPU backend cannot
    run PTX: it reports an error.

    Example (Triton's test_inline_asm_packed: 4 x i8 in one register):

    ```mlir
    %y = tile.inline_asm_elementwise "and.b32 $0, $1, 0x1F1F1F1F; shl.b32 $0, $0, 3;"
           {constraints = "=r,r", packed_element = 4 : i32, pure = true}
           %x : tensor<512xi8> -> tensor<512xi8>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$args, StrAttr:$asm_string,
                   StrAttr:$constraints, BoolAttr:$pure,
                   I32Attr:$packed_element);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $asm_string attr-dict ($args^ `:` type($args))? `->` type($results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Registers one value of element type `elementType` takes in one asm
    /// invocation of `pack` elements (see the description).
    static unsigned getNumRegisters(mlir::Type elementType, unsigned pack);
    /// Elements of `elementType` that share one register for `pack`.
    static unsigned getElementsPerRegister(mlir::Type elementType,
                                           unsigned pack);
    /// The output (`=`) and input entries of an LLVM constraint list
    /// (clobbers `~{...}` are neither).
    static std::pair<unsigned, unsigned>
    countConstraints(llvm::StringRef constraints);
  }];
}

def Tile_PtrToIntOp : Tile_Op<"ptr_to_int", [Pure]> {
  let summary = "address of pointers as i64";
  let description = [{
    The 64-bit address of each pointer (`p.to(tl.int64)`).

    Example:

    ```mlir
    %a = tile.ptr_to_int %p : !tile.ptr<f32> -> i64
    ```
  }];
  let arguments = (ins Tile_PtrLike:$src);
  let results = (outs Tile_IntLike:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

def Tile_IntToPtrOp : Tile_Op<"int_to_ptr", [Pure]> {
  let summary = "pointers from i64 addresses";
  let description = [{
    Reinterprets 64-bit integers as pointers.

    Example:

    ```mlir
    %p = tile.int_to_ptr %a : i64 -> !tile.ptr<f32>
    ```
  }];
  let arguments = (ins Tile_IntLike:$src);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

def Tile_DotOp : Tile_Op<"dot", [Pure,
    AllTypesMatch<["c", "result"]>]> {
  let summary = "matrix product with accumulator";
  let description = [{
    `tl.dot(a, b, acc)`: `result = a @ b + c` for `a: [M, K]`, `b: [K, N]`,
    `c: [M, N]` (or batched `[B, M, K] @ [B, K, N]`). `a` and `b` have the
    same element type: f16/bf16 (f32 accumulator), f32 (`input_precision`
    tf32, tf32x3 or ieee; f32 accumulator), f8E4M3FN/f8E5M2 (f32
    accumulator) or i8 (i32 accumulator). M, N and K are any sizes (a
    dot the tensor cores cannot take runs on the FMA path).

    Example:

    ```mlir
    %d = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$a, Tile_Tensor:$b, Tile_Tensor:$c,
                   DefaultValuedAttr<Tile_InputPrecisionAttr, "::tilec::tile::InputPrecision::TF32">:$input_precision);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure, SingleBlock]> {
  let summary = "reduce tiles along one axis with a combine region";
  let description = [{
    Reduces every source tile along `axis` with the associative and
    commutative combine region, which takes two sets of scalars (one per
    source: the accumulated values, then the new values) and yields one set.
    All sources have the same shape. Each result has the source shape without
    `axis`; a 1-d source reduces to a scalar. `tl.sum`, `tl.max`, `tl.min`,
    `tl.argmax`, `tl.reduce` all lower to this op.

    Example:

    ```mlir
    %s = tile.reduce %x {axis = 1 : i32} : (tensor<64x128xf32>) -> tensor<64xf32> {
    ^bb0(%a: f32, %b: f32):
      %r = arith.addf %a, %b : f32
      tile.reduce.return %r : f32
    }
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$srcs, I32Attr:$axis);
  let results = (outs Variadic<AnyType>:$result);
  let regions = (region SizedRegion<1>:$combineOp);
  let assemblyFormat = "$srcs attr-dict `:` functional-type($srcs, $result) $combineOp";
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The shape of each result given a source type and the reduced axis.
    static ::mlir::Type getResultType(::mlir::RankedTensorType srcType, int axis);
  }];
}

def Tile_ReduceReturnOp : Tile_Op<"reduce.return",
    [Pure, Terminator, HasParent<"ReduceOp">, ReturnLike]> {
  let summary = "terminator of a tile.reduce combine region";
  let description = [{
    Yields the combined scalars, one per source of the enclosing `tile.reduce`.

    Example: `tile.reduce.return %r : f32`
  }];
  let arguments = (ins Variadic<AnyType>:$result);
  let assemblyFormat = "$result attr-dict `:` type($result)";
}

def Tile_ScanOp : Tile_Op<"scan", [Pure, SingleBlock]> {
  let summary = "inclusive scan of tiles along one axis with a combine region";
  let description = [{
    An inclusive prefix scan of every source tile along `axis`: result
    element i along the axis combines source elements 0..i (or i..N-1 with
    `reverse`), in that order, with the associative combine region, which
    takes two sets of scalars (one per source: the running values, then the
    new values; with `reverse`, the later elements come first as the running
    values) and yields one set. The region need not be commutative. All
    sources have one shape; every result has the shape and element type of
    its source. `tl.cumsum`, `tl.cumprod` and `tl.associative_scan` lower to
    this op.

    The GPU lowering follows Triton's: a sequential scan of each thread's
    elements, a Hillis-Steele scan over the lanes with `shfl.sync.up`, and
    one pass through shared memory across warps; the CPU lowering is a loop
    over the axis. Both do O(N) work along the axis.

    Example:

    ```mlir
    %s = tile.scan %x {axis = 0 : i32, reverse = false} : (tensor<1024xf32>) -> tensor<1024xf32> {
    ^bb0(%a: f32, %b: f32):
      %r = arith.addf %a, %b : f32
      tile.scan.return %r : f32
    }
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$srcs, I32Attr:$axis,
                   DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs Variadic<Tile_Tensor>:$result);
  let regions = (region SizedRegion<1>:$combineOp);
  let assemblyFormat = "$srcs attr-dict `:` functional-type($srcs, $result) $combineOp";
  let hasRegionVerifier = 1;
}

def Tile_ScanReturnOp : Tile_Op<"scan.return",
    [Pure, Terminator, HasParent<"ScanOp">, ReturnLike]> {
  let summary = "terminator of a tile.scan combine region";
  let description = [{
    Yields the combined scalars, one per source of the enclosing `tile.scan`.

    Example: `tile.scan.return %r : f32`
  }];
  let arguments = (ins Variadic<AnyType>:$result);
  let assemblyFormat = "$result attr-dict `:` type($result)";
}

#endif // TILEC_DIALECT_TILE_IR_TILEOPS_TD
