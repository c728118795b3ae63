//===- TileGPUDialect.td - tilegpu dialect definition ------*- tablegen -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_IR_TILEGPUDIALECT_TD
#define TILEC_DIALECT_TILEGPU_IR_TILEGPUDIALECT_TD

include "mlir/IR/OpBase.td"

def TileGPU_Dialect : Dialect {
  let name = "tilegpu";
  let cppNamespace = "::tilec::tilegpu";
  let summary = "tiles distributed over the threads of a CTA";
  let description = [{
    `tilegpu` is the `tile` program with a distributed layout attached to every
    tile: the tensor types carry an encoding attribute that says which thread
    of the CTA holds which element (`#tilegpu.blocked`, `#tilegpu.slice`).
    The `tile` ops, `arith`, `math` and `scf` are reused on these encoded
    tensors; this dialect adds the layouts and the ops that move data between
    them (`tilegpu.convert_layout`).

    A kernel in this form is a `func.func` with the `tilegpu.num_warps`
    attribute; every layout in it distributes over exactly that many warps.
  }];
  let dependentDialects = ["::tilec::tile::TileDialect"];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
    void registerTypes();
    /// Name of the function attribute holding the kernel's warp count.
    static constexpr ::llvm::StringLiteral getNumWarpsAttrName() {
      return ::llvm::StringLiteral("tilegpu.num_warps");
    }
    /// Name of the kernel (function) attribute holding the bytes of dynamic
    /// shared memory the kernel needs (set by tilegpu-allocate-shared).
    static constexpr ::llvm::StringLiteral getSharedMemoryAttrName() {
      return ::llvm::StringLiteral("tilegpu.shared_memory");
    }
    /// Name of the kernel (function) attribute holding its thread-block
    /// cluster dimensions (three positive integers, at most 8 CTAs in all;
    /// set by tilegpu-cluster-multicast where a kernel multicasts copies;
    /// absent: no cluster).
    static constexpr ::llvm::StringLiteral getClusterDimsAttrName() {
      return ::llvm::StringLiteral("tilegpu.cluster_dims");
    }
    /// Name of the kernel (function) attribute that makes its program ids
    /// longest first (a positive i32 G, set by tilegpu-longest-first):
    /// program_id(0) counts down along the launch and program_id(1) cycles
    /// through groups of G; absent: program_id(a) is %ctaid.a.
    static constexpr ::llvm::StringLiteral getLongestFirstAttrName() {
      return ::llvm::StringLiteral("tilegpu.longest_first");
    }
    /// Name of the unit attribute on a persistent kernel (its metadata's
    /// `persistent`: the runtime launches only as many CTAs as the GPU runs
    /// at once; never with `tilegpu.cluster_dims`) and on its `scf.for`
    /// (both set by tilegpu-persistent): the loop over the kernel's virtual
    /// programs, directly in the kernel's entry block (or, once split, in
    /// the consumer region of its tilegpu.warp_specialize), whose body is
    /// one program. Later passes continue rings across its iterations
    /// (tilegpu-pipeline) and split it (tilegpu-warp-specialize).
    static constexpr ::llvm::StringLiteral getPersistentAttrName() {
      return ::llvm::StringLiteral("tilegpu.persistent");
    }
  }];
}

#endif // TILEC_DIALECT_TILEGPU_IR_TILEGPUDIALECT_TD
